"""`ancestors` / `descendants` with a max_depth are answered by a breadth-first search that
stops at that depth: the same rows as the templates' own (unbounded search, then filter)."""

import subprocess
import sys
from collections import Counter

import pytest

from lineage import analysis, templates

from .conftest import SAMPLES


@pytest.fixture(scope="module")
def loaded(session_lineage):
    session_lineage.reset()
    session_lineage.load([SAMPLES])
    return session_lineage


@pytest.mark.parametrize("name", ["ancestors", "descendants"])
@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5, 6, 7, 12, 13])  # 13: past BFS_LEVELS
@pytest.mark.parametrize("frontier", [0, analysis.STEPS_FRONTIER])  # 0: a level per query
def test_bounded_search_gives_the_templates_rows(loaded, monkeypatch, name, depth, frontier):
    monkeypatch.setattr(analysis, "STEPS_FRONTIER", frontier)
    starts = [r["uid"] for r in loaded.query(
        "MATCH (n:Lineage) WHERE n.kind IN ['Job', 'File', 'Dataset', 'FunctionCall', "
        "'Execution', 'Task'] RETURN n.uid AS uid ORDER BY uid")][::7][:25]
    assert len(starts) >= 10
    template = templates.get(name)
    reached = 0
    for uid in starts:
        params = template.bind({"uid": uid, "max_depth": depth})
        expected = loaded.graph.run(template.text, params)
        got = loaded.query(name, uid=uid, max_depth=depth)
        assert list(got) == expected, uid
        reached += len(got)
    assert reached > 0


def test_a_deep_bound_switches_to_one_search(loaded, monkeypatch):
    """Past BFS_LEVELS the search is the template's, with the same rows; with BFS_LEVELS 0
    every bounded question takes that path, so both ways are compared on every start."""
    starts = [r["uid"] for r in loaded.query(
        "MATCH (n:Lineage)-[:USED|WAS_GENERATED_BY]->() RETURN DISTINCT n.uid AS uid "
        "ORDER BY uid LIMIT 20")]
    by_levels = {u: list(loaded.query("ancestors", uid=u, max_depth=3)) for u in starts}
    monkeypatch.setattr(analysis, "BFS_LEVELS", 0)
    assert {u: list(loaded.query("ancestors", uid=u, max_depth=3)) for u in starts} == by_levels
    assert sum(map(len, by_levels.values())) > 0


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
    for depth in (1, analysis.BFS_LEVELS + 1):  # searched by levels; cut in the server
        bounded = loaded.query_page("ancestors", {"uid": uid, "max_depth": str(depth)}, limit=1)
        assert bounded.total == len(loaded.query("ancestors", uid=uid, max_depth=depth))
        assert bounded.rows == list(loaded.query("ancestors", uid=uid, max_depth=depth))[:1]
    assert loaded.query_page("ancestors", {"uid": uid}, offset=len(every)).rows == []


def test_the_cli_shows_a_page_and_sums_up_the_rest(loaded, cli_env):
    uid = _deepest(loaded)
    total = len(loaded.query("ancestors", uid=uid))

    def cli(*args):
        done = subprocess.run([sys.executable, "-m", "lineage", "query", "ancestors", "-p",
                               f"uid={uid}", *args], env=cli_env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    lines = cli("--limit", "2")
    assert len(lines) == 2 + 2 + 4  # header, rule, 2 rows, the page line, 3 count lines
    assert lines[4] == f"(rows 1-2 of {total:,}; --offset 2 for the next page, --all for every row)"
    assert lines[5].startswith("kind: ") and lines[6].startswith("depth: 1: ")
    assert len(cli("--all")) == 2 + total  # every row, no summary
    assert len(cli()) == 2 + min(total, 100) + (4 if total > 100 else 0)


@pytest.mark.parametrize("batch", [1, 10_000])
@pytest.mark.parametrize("frontier", [1, analysis.STEPS_FRONTIER])  # 1: c1, c2 a level a query
def test_a_node_reached_from_two_frontier_nodes_keeps_its_shortest_depth(loaded, monkeypatch,
                                                                          batch, frontier):
    """s -> p1 -> p2 -> {c1, c2} (depth 3, the second query's frontier); c1 -> y -> x and
    c2 -> x: x is 4 hops away, not 5, whichever frontier batch meets it first (batch 1:
    one query per frontier node, c1's first)."""
    prefix = "prov:entity:test-two-ways-"
    edges = [("s", "p1"), ("p1", "p2"), ("p2", "c1"), ("p2", "c2"), ("c1", "y"), ("y", "x"),
             ("c2", "x"), ("x", "top")]
    names = sorted({n for edge in edges for n in edge})
    monkeypatch.setattr(analysis, "STEP_BATCH", batch)
    monkeypatch.setattr(analysis, "STEPS_FRONTIER", frontier)
    loaded.write("UNWIND $uids AS uid CREATE (:Lineage:Entity:ProvEntity {uid: uid, "
                 "kind: 'ProvEntity'})", {"uids": [prefix + n for n in names]})
    try:
        loaded.write("UNWIND $edges AS e MATCH (a:Lineage {uid: e[0]}), (b:Lineage {uid: e[1]}) "
                     "CREATE (a)-[:WAS_DERIVED_FROM]->(b)",
                     {"edges": [[prefix + a, prefix + b] for a, b in edges]})
        template = templates.get("ancestors")
        for depth in (3, 4, 5, 6):
            got = list(loaded.query("ancestors", uid=prefix + "s", max_depth=depth))
            assert got == loaded.graph.run(template.text, template.bind(
                {"uid": prefix + "s", "max_depth": depth})), depth
        depths = {r["uid"][len(prefix):]: r["depth"]
                  for r in loaded.query("ancestors", uid=prefix + "s", max_depth=6)}
        assert depths == {"p1": 1, "p2": 2, "c1": 3, "c2": 3, "y": 4, "x": 4, "top": 5}
    finally:
        loaded.write("MATCH (n:Lineage) WHERE n.uid STARTS WITH $p DETACH DELETE n",
                     {"p": prefix})
