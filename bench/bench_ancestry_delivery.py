"""Unbounded ancestry delivered into Python, side by side in one run, on the same DAG and the
same start nodes: what the user waits for with this tool, and with what they would use instead.

- the ``ancestors`` template streamed as one Bolt record per ancestor (the way before);
- ``lin.query("ancestors", uid=...)``: the same template, its rows collected server-side into
  one record (``Graph.run_collected``);
- the same search inside Neo4j, only counting (the engine alone);
- networkx in memory (the graph already loaded; a breadth-first search with depths);
- PostgreSQL: a recursive CTE over an edge table with an index on the child column, as the
  Swift provenance database's ``ancestors()`` function does it, rows fetched with psycopg
  (needs Debian's postgresql, which scripts/setup.sh installs; skipped when absent).

Builds a layered DAG of N nodes (each derived from 2 nodes of the layer above, WIDTH wide) as
``ProvEntity`` nodes, measures, deletes them again.

    .venv/bin/python bench/bench_ancestry_delivery.py [N] [WIDTH]   # default 200000 1000
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import networkx as nx

import lineage
from lineage import templates

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_ancestry_depth import PREFIX, build, clean  # noqa: E402
from bench_ancestry_depth import timed as timed_s  # noqa: E402


def timed(fn, starts) -> tuple[float, int]:
    """Median milliseconds and rows per start node."""
    median, rows = timed_s(fn, starts)
    return median * 1000, rows // len(starts)


def networkx_ancestors(graph: nx.DiGraph, uid: str) -> list[tuple[str, int]]:
    return [(node, depth) for node, depth in
            nx.single_source_shortest_path_length(graph, uid).items() if node != uid]


CTE = """
WITH RECURSIVE up(id, depth) AS (
  SELECT parent, 1 FROM edge WHERE child = %s
  UNION
  SELECT e.parent, up.depth + 1 FROM edge e JOIN up ON e.child = up.id
)
SELECT id, min(depth) FROM up GROUP BY id
"""


def postgres_runner(edges: list[tuple[str, str]]):
    try:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        from tests.swift_pg import PostgresServer
        server = PostgresServer().start()
    except Exception as exc:  # noqa: BLE001 - a missing PostgreSQL only skips this column
        print(f"  (PostgreSQL not measured: {exc})")
        return None, None
    import psycopg

    conn = psycopg.connect(server.url())
    conn.execute("CREATE TABLE edge (child text, parent text)")
    with conn.cursor().copy("COPY edge (child, parent) FROM STDIN") as copy:
        for child, parent in edges:
            copy.write_row((child, parent))
    conn.execute("CREATE INDEX edge_child ON edge (child)")
    conn.execute("ANALYZE edge")
    conn.commit()
    return server, lambda uid: conn.execute(CTE, (uid,)).fetchall()


def main(n: int = 200_000, width: int = 1000) -> None:
    with lineage.connect() as lin:
        clean(lin)
        t0 = time.perf_counter()
        build(lin, n, width)
        edges = [(r["a"], r["b"]) for r in lin.graph.run(
            "MATCH (a:ProvEntity)-[:WAS_DERIVED_FROM]->(b) WHERE a.uid STARTS WITH $p "
            "RETURN a.uid AS a, b.uid AS b", {"p": PREFIX})]
        print(f"built {n} nodes, {len(edges)} edges in {time.perf_counter() - t0:.1f} s")
        graph = nx.DiGraph(edges)
        server, cte = postgres_runner(edges)
        template = templates.get("ancestors")
        starts = [f"{PREFIX}{i}" for i in range(n - n // 2, n - n // 2 + 5)]
        try:
            streamed = timed(lambda u: lin.graph.run(template.text, template.bind({"uid": u})),
                             starts)
            collected = timed(lambda u: lin.query("ancestors", uid=u), starts)
            counted = timed(lambda u: lin.graph.run(
                "CALL () { " + template.text + " } RETURN count(*) AS n",
                template.bind({"uid": u})), starts)
            in_memory = timed(lambda u: networkx_ancestors(graph, u), starts)
            assert streamed[1] == collected[1] == in_memory[1]
            print(f"ancestors of {len(starts)} nodes, {collected[1]} rows each, median ms:")
            print(f"  template, one Bolt record per row:   {streamed[0]:8.0f}")
            print(f"  lin.query (rows collected):          {collected[0]:8.0f}   "
                  f"{streamed[0] / collected[0]:.1f}x faster than streamed")
            print(f"  inside Neo4j, counting only:         {counted[0]:8.0f}")
            print(f"  networkx in memory:                  {in_memory[0]:8.0f}")
            if cte:
                pg = timed(cte, starts)
                assert pg[1] == collected[1]
                print(f"  PostgreSQL recursive CTE:            {pg[0]:8.0f}   "
                      f"lin.query / PostgreSQL = {collected[0] / pg[0]:.2f}")
        finally:
            clean(lin)
            if server:
                server.stop()


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
