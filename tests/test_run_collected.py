"""`Graph.run_collected` (a template's rows shipped as one record, one list per column) gives
the very rows streaming gives: order, nulls in any column, lists, maps, nodes and dates."""

import pytest

from lineage.query import templates

from .conftest import SAMPLES
from .corpus import needs_corpus

pytestmark = needs_corpus


@pytest.fixture(scope="module")
def loaded(session_lineage):
    session_lineage.reset()
    session_lineage.load([SAMPLES / "pegasus" / "blackdiamond-4.0.bp"])
    return session_lineage


@pytest.mark.parametrize("cypher, columns", [
    # nulls here and there in every column (a per-column collect() would drop them)
    (("UNWIND range(1, 2500) AS i "
      "RETURN CASE WHEN i % 7 = 0 THEN null ELSE i END AS n, "
      "CASE WHEN i % 3 = 0 THEN null ELSE 'v' + toString(i) END AS s, "
      "[i, null, 'x'] AS l, null AS z, i % 2 = 0 AS b, toFloat(i) / 4 AS f"), "n s l z b f"),
    ("UNWIND [null, null] AS x RETURN x, x AS y", "x y"),
    ("UNWIND [] AS x RETURN x, 1 AS y", "x y"),
    ("RETURN {a: 1, b: [date('2024-01-02')]} AS m, datetime('2024-01-02T03:04:05Z') AS t", "m t"),
    (("MATCH (n:Lineage) WITH n ORDER BY n.uid LIMIT 20 "
      "RETURN n, n.uid AS uid, labels(n) AS labels"), "n uid labels"),
    (("MATCH p = (:Lineage)-[r]->(:Lineage) WITH p, r ORDER BY elementId(r) LIMIT 20 "
      "RETURN r, p"), "r p"),
])
def test_collected_rows_are_the_streamed_rows(loaded, cypher, columns):
    columns = columns.split()
    streamed = loaded.graph.run(cypher, {})
    collected = loaded.graph.run_collected(cypher, {}, columns)
    assert collected == streamed
    assert all(list(row) == columns for row in collected)


@pytest.mark.parametrize("name", ["ancestors", "descendants"])
def test_a_template_gives_the_same_rows_either_way(loaded, name):
    uids = [r["uid"] for r in loaded.graph.run(
        "MATCH (n:Lineage) WHERE n.kind IN ['Job', 'File'] RETURN n.uid AS uid ORDER BY uid")]
    template = templates.get(name)
    seen = 0
    for uid in uids:
        params = template.bind({"uid": uid})
        rows = loaded.graph.run_collected(template.text, params, template.returns)
        assert rows == loaded.graph.run(template.text, params), uid
        assert rows == list(loaded.query(name, uid=uid))
        seen += len(rows)
    assert seen > 50  # ancestry with nulls (status) and depths was compared


def _out_of_memory():
    """The error the server gives a statement past its transaction memory (as a 750,000-row
    answer collected into one list does under the managed server's default 512 MiB)."""
    from neo4j.exceptions import Neo4jError

    return Neo4jError._hydrate_neo4j(
        code="Neo.TransientError.General.MemoryPoolOutOfMemoryError",
        message="The allocation of an extra 2.0 MiB would use more than the limit 512.0 MiB.")


ROWS = ("UNWIND range(1, 250) AS i RETURN toString(i) AS uid, i % 7 AS kind, "
        "CASE WHEN i % 5 = 0 THEN ['a', i] END AS tags ORDER BY uid")


@pytest.fixture
def refuse(loaded, monkeypatch):
    """Call it to make the server refuse every statement that gathers an answer into one list
    (run_page's and run_collected's), as it does past its memory; the rows streamed are real.
    Returns the refused statements."""
    graph = loaded.graph
    real = type(graph)._read
    refusals: list[str] = []

    def read(self, cypher, params):
        if "collect([" in cypher:
            refusals.append(cypher)
            raise _out_of_memory()
        return real(self, cypher, params)

    def start() -> list[str]:
        monkeypatch.setattr(type(graph), "_read", read)
        return refusals
    return start


def test_a_page_past_the_servers_memory_is_cut_from_streamed_rows(loaded, refuse):
    columns = ["uid", "kind", "tags"]
    served = loaded.graph.run_page(ROWS, {}, columns, 10, 20, ["kind", "tags"])
    every = list(loaded.graph.stream(ROWS, {}))
    refused = refuse()
    page = loaded.graph.run_page(ROWS, {}, columns, 10, 20, ["kind", "tags"])
    assert len(refused) == 1  # the one-list statement was tried, then the rows streamed
    assert page.rows == every[10:30] == served.rows
    assert page.total == served.total == 250 and page.more == 220
    assert dict(page.counts["kind"]) == dict(served.counts["kind"]) == {
        k: len([i for i in range(1, 251) if i % 7 == k]) for k in range(7)}
    assert dict(page.counts["tags"])[None] == 200  # lists counted by their JSON text
    assert [n for _, n in page.counts["kind"]] == sorted((n for _, n in page.counts["kind"]),
                                                         reverse=True)


def test_collected_rows_past_the_servers_memory_are_streamed(loaded, refuse):
    refused = refuse()
    rows = loaded.graph.run_collected(ROWS, {}, ["uid", "kind", "tags"])
    assert len(refused) == 1
    assert rows == list(loaded.graph.stream(ROWS, {}))


def test_other_errors_are_not_taken_for_memory(loaded, monkeypatch):
    from neo4j.exceptions import ClientError, Neo4jError

    graph = loaded.graph

    def read(self, cypher, params):
        raise Neo4jError._hydrate_neo4j(code="Neo.ClientError.Statement.SyntaxError",
                                        message="Invalid input")
    monkeypatch.setattr(type(graph), "_read", read)
    with pytest.raises(ClientError):
        graph.run_page(ROWS, {}, ["uid"], 0, 5, [])
    with pytest.raises(ClientError):
        graph.run_collected(ROWS, {}, ["uid"])
