"""`ancestors` / `descendants` (and their Swift and Browser forms) with a max_depth: the
search itself stops at that depth (a branch with a literal bound runs, chosen by a guard on
$max_depth), with the same rows as a whole search filtered afterwards."""

import re
import subprocess
import sys
from collections import Counter

import pytest

from lineage.query import templates

from .conftest import SAMPLES
from .corpus import needs_corpus

pytestmark = needs_corpus

BOUNDED = ["ancestors", "descendants", "swift/ancestors", "swift/descendants",
           "ancestors_paths", "descendants_paths"]
PATHS = {"ancestors_paths", "descendants_paths"}

#: the branches' CALL, whose first branch is the whole search (max_depth null or large)
_BRANCHES = re.compile(
    r"CALL \(start\) \{\n  WITH start WHERE \$max_depth IS NULL OR \$max_depth > \d+\n"
    r"  (MATCH p = [^\n]*\*1\.\.\][^\n]*)\n  WITH (\w+), min\(length\(p\)\) AS depth\n"
    r".*?\n\}\nUNWIND found AS pair\nWITH pair\[0\] AS \w+, pair\[1\] AS depth\n", re.DOTALL)


def whole_search(text: str) -> str:
    """The template with its branches replaced by the whole search (its text before the
    bound): the oracle, which filters by depth only after searching everything."""
    found = _BRANCHES.search(text)
    assert found, "no bounded branches in the template"
    return (text[:found.start()] + f"{found[1]}\nWITH {found[2]}, min(length(p)) AS depth\n"
            + text[found.end():])


def rows(lin, name: str, text: str, params: dict) -> list:
    """The rows of a template's text; a path template's as the uid pairs of its paths."""
    if name in PATHS:
        return lin.graph.run("CALL () {\n" + text + "\n}\nRETURN [n IN nodes(path) | n.uid] "
                             "AS pair ORDER BY pair", params)
    return lin.graph.run(text, params)


@pytest.fixture(scope="module")
def loaded(session_lineage):
    session_lineage.reset()
    session_lineage.load([SAMPLES])
    return session_lineage


@pytest.mark.parametrize("name", BOUNDED)
def test_bounded_search_gives_the_whole_searchs_rows(loaded, name):
    starts = [r["uid"] for r in loaded.query(
        "MATCH (n:Lineage) WHERE n.kind IN ['Job', 'File', 'Dataset', 'FunctionCall', "
        "'Execution', 'Task'] RETURN n.uid AS uid ORDER BY uid")][::7][:25]
    assert len(starts) >= 10
    template = templates.get(name)
    oracle = whole_search(template.text)
    reached = 0
    for depth in [1, 2, 3, 4, 5, 7, 12, 13] + ([] if name in PATHS else [None]):
        for uid in starts:
            params = template.bind({"uid": uid, "max_depth": depth})
            got = rows(loaded, name, template.text, params)
            assert got == rows(loaded, name, oracle, params), (uid, depth)
            reached += len(got)
    assert reached > 0
    if name in ("ancestors", "descendants"):  # and through the API, as the rows arrive there
        got = list(loaded.query(name, uid=starts[0], max_depth=3))
        assert got == loaded.graph.run(template.text, template.bind(
            {"uid": starts[0], "max_depth": 3}))


@pytest.fixture
def chain(loaded):
    """n0 -USED-> n1 -USED-> ... -> n129: the ancestors of n0 within d hops are n1..nd."""
    prefix = "prov:entity:test-chain-"
    uids = [f"{prefix}{i:03d}" for i in range(130)]
    loaded.write("UNWIND $uids AS uid CREATE (:Lineage:Entity:ProvEntity {uid: uid, "
                 "kind: 'ProvEntity'})", {"uids": uids})
    loaded.write("UNWIND range(0, size($uids) - 2) AS i MATCH (a:Lineage {uid: $uids[i]}), "
                 "(b:Lineage {uid: $uids[i + 1]}) CREATE (a)-[:USED]->(b)", {"uids": uids})
    yield uids
    loaded.write("MATCH (n:Lineage) WHERE n.uid STARTS WITH $p DETACH DELETE n", {"p": prefix})


@pytest.mark.parametrize("name", BOUNDED)
def test_every_bound_stops_at_its_depth(loaded, chain, name):
    """Every max_depth from -1 to 102 (each branch's guard and literal bound, both edges of
    each), and null: the rows are exactly the nodes within that many hops."""
    template = templates.get(name)
    upstream = "ancestors" in name
    start = chain[0] if upstream else chain[-1]
    for depth in [*range(-1, 103)] + ([] if name in PATHS else [None]):
        got = rows(loaded, name, template.text,
                   template.bind({"uid": start, "max_depth": depth}))
        within = len(chain) - 1 if depth is None else max(0, min(depth, len(chain) - 1))
        if name in PATHS:
            assert len(got) == within, depth  # the chain's edges among the nodes kept
        else:
            assert [r["depth"] for r in got] == list(range(1, within + 1)), depth
            nearest = chain[1:within + 1] if upstream else chain[-2:-within - 2:-1]
            assert [r["uid"] for r in got] == nearest, depth


def test_a_bound_bounds_the_search_not_only_the_rows(loaded, chain):
    """PROFILE: ancestors at depth 3 on the 129-hop chain touch a few nodes; without the
    bound's branch (the whole search, then the filter), the whole chain."""
    template = templates.get("ancestors")
    params = template.bind({"uid": chain[0], "max_depth": 3})

    def db_hits(text: str) -> int:
        with loaded.graph.driver.session(database=loaded.graph.database) as session:
            result = session.run("PROFILE " + text, params)
            assert len(list(result)) == 3
            plan = result.consume().profile

        def total(op):
            return op.get("dbHits", 0) + sum(total(child) for child in op.get("children", []))
        return total(plan)
    bounded, whole = db_hits(template.text), db_hits(whole_search(template.text))
    assert bounded * 10 < whole, (bounded, whole)


def _deepest(loaded) -> str:
    """The start with the most ancestors in the samples."""
    return max((r["uid"] for r in loaded.query(
        "MATCH (n:Lineage)-[:USED|WAS_GENERATED_BY]->() RETURN DISTINCT n.uid AS uid")),
        key=lambda u: len(loaded.query("ancestors", uid=u)))


def test_a_page_is_a_slice_of_the_answer_with_its_counts(loaded):
    uid = _deepest(loaded)
    every = list(loaded.query("ancestors", uid=uid))
    assert len(every) > 6
    page = loaded.query_page("ancestors", {"uid": uid}, offset=2, limit=3)
    assert page.rows == every[2:5] and page.total == len(every) and page.more == len(every) - 5
    for column in ("kind", "depth", "status"):
        assert dict(page.counts[column]) == Counter(r[column] for r in every), column
    for depth in (1, 2, 13):
        bounded = loaded.query_page("ancestors", {"uid": uid, "max_depth": str(depth)}, limit=1)
        assert bounded.total == len([r for r in every if r["depth"] <= depth])
        assert bounded.rows == list(loaded.query("ancestors", uid=uid, max_depth=depth))[:1]
    assert loaded.query_page("ancestors", {"uid": uid}, offset=len(every)).rows == []


def test_the_cli_shows_a_page_and_sums_up_the_rest(loaded, cli_env):
    uid = _deepest(loaded)
    total = len(loaded.query("ancestors", uid=uid))

    def cli(*args):
        done = subprocess.run([sys.executable, "-m", "lineage", "query", "ancestors", "-p",
                               f"uid={uid}", *args], env=dict(cli_env, COLUMNS="250"),
                              capture_output=True, text=True, timeout=120)
        # a terminal wide enough for the table: a narrower one shows a column per line
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    lines = cli("--limit", "2")
    assert len(lines) == 2 + 2 + 4  # header, rule, 2 rows, the page line, 3 count lines
    assert lines[4] == f"(rows 1-2 of {total:,}; --offset 2 for the next page, --all for every row)"
    assert lines[5].startswith("kind: ") and lines[6].startswith("depth: 1: ")
    assert len(cli("--all")) == 2 + total  # every row, no summary
    assert len(cli()) == 2 + min(total, 100) + (4 if total > 100 else 0)


def test_a_node_reached_two_ways_keeps_its_shortest_depth(loaded):
    """s -> p1 -> p2 -> {c1, c2}; c1 -> y -> x and c2 -> x: x is 4 hops away, not 5."""
    prefix = "prov:entity:test-two-ways-"
    edges = [("s", "p1"), ("p1", "p2"), ("p2", "c1"), ("p2", "c2"), ("c1", "y"), ("y", "x"),
             ("c2", "x"), ("x", "top")]
    names = sorted({n for edge in edges for n in edge})
    loaded.write("UNWIND $uids AS uid CREATE (:Lineage:Entity:ProvEntity {uid: uid, "
                 "kind: 'ProvEntity'})", {"uids": [prefix + n for n in names]})
    try:
        loaded.write("UNWIND $edges AS e MATCH (a:Lineage {uid: e[0]}), (b:Lineage {uid: e[1]}) "
                     "CREATE (a)-[:WAS_DERIVED_FROM]->(b)",
                     {"edges": [[prefix + a, prefix + b] for a, b in edges]})
        template = templates.get("ancestors")
        for depth in (3, 4, 5, 6):
            got = list(loaded.query("ancestors", uid=prefix + "s", max_depth=depth))
            assert got == loaded.graph.run(whole_search(template.text), template.bind(
                {"uid": prefix + "s", "max_depth": depth})), depth
        depths = {r["uid"][len(prefix):]: r["depth"]
                  for r in loaded.query("ancestors", uid=prefix + "s", max_depth=6)}
        assert depths == {"p1": 1, "p2": 2, "c1": 3, "c2": 3, "y": 4, "x": 4, "top": 5}
    finally:
        loaded.write("MATCH (n:Lineage) WHERE n.uid STARTS WITH $p DETACH DELETE n",
                     {"p": prefix})
