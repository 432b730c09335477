"""`Graph.run_collected` (a template's rows shipped as one record, one list per column) gives
the very rows streaming gives: order, nulls in any column, lists, maps, nodes and dates."""

import pytest

from lineage import templates

from .conftest import SAMPLES


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
