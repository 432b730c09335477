"""Unbounded ancestry delivered into Python, side by side in one run, on the same DAG and the
same start nodes: what the user waits for with this tool, and with what they would use instead.

- the ``ancestors`` template streamed as one Bolt record per ancestor (the way before);
- ``lin.query("ancestors", uid=...)``: the same template, its rows collected server-side into
  one record (``Graph.run_collected``);
- the same search inside Neo4j, only counting (the engine alone);
- networkx in memory (the graph already loaded; a breadth-first search with depths);
- PostgreSQL: a recursive CTE over an edge table with an index on each column, as the
  Swift provenance database's ``ancestors()`` function does it, rows fetched with psycopg
  (needs Debian's postgresql, which scripts/setup.sh installs; skipped when absent).

Also the rows collected as one list per row, the way ``Graph.run_collected`` shipped them
before it sent one list per column.

Builds a layered DAG of N nodes (each derived from 2 nodes of the layer above, WIDTH wide) as
``ProvEntity`` nodes, measures, deletes them again (``--keep``: keeps them, and a later run
with ``--keep`` measures the DAG it finds instead of building it again).

    .venv/bin/python bench/bench_ancestry_delivery.py [N] [WIDTH] [STARTS] [--keep]  # 200000 1000 30
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import networkx as nx

import lineage
from lineage.query import templates

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_ancestry_depth import PREFIX, build, clean  # noqa: E402
from bench_queries import postgres  # noqa: E402


def timed(fn, starts) -> tuple[float, float, int]:
    """Median and 95th percentile milliseconds, and rows per start node."""
    seconds, rows = [], 0
    for uid in starts:
        t0 = time.perf_counter()
        rows += len(fn(uid))
        seconds.append(time.perf_counter() - t0)
    seconds.sort()
    p95 = seconds[min(len(seconds) - 1, round(0.95 * (len(seconds) - 1)))]
    return statistics.median(seconds) * 1000, p95 * 1000, rows // len(starts)


def networkx_ancestors(graph: nx.DiGraph, uid: str, cutoff: int | None = None):
    return [(node, depth) for node, depth in
            nx.single_source_shortest_path_length(graph, uid, cutoff=cutoff).items()
            if node != uid]


def postgres_runner(edges: list[tuple[str, str]]):
    """PostgreSQL's recursive CTE as bench_queries.py runs it (ancestors), or None, None."""
    try:
        server, run = postgres(edges)
    except Exception as exc:  # noqa: BLE001 - a missing PostgreSQL only skips this column
        print(f"  (PostgreSQL not measured: {exc})")
        return None, None
    return server, lambda uid, depth: run(uid, depth, True)


def rows_per_row(lin, template, params: dict) -> list[dict]:
    """The template's rows collected as one list per row (run_collected before)."""
    columns = template.returns
    statement = (f"CALL () {{\n{template.text}\n}}\n"
                 f"RETURN collect([{', '.join(f'`{c}`' for c in columns)}]) AS rows")
    return [dict(zip(columns, row)) for row in lin.graph.run(statement, params)[0]["rows"]]


def main(n: int = 200_000, width: int = 1000, starts_count: int = 30, keep: bool = False) -> None:
    with lineage.connect() as lin:
        t0 = time.perf_counter()
        found = lin.graph.run("MATCH (x:ProvEntity) WHERE x.uid STARTS WITH $p RETURN count(x) AS n",
                              {"p": PREFIX})[0]["n"]
        if not (keep and found == n):
            clean(lin)
            build(lin, n, width)
        edges = [(r["a"], r["b"]) for r in lin.graph.run(
            "MATCH (a:ProvEntity)-[:WAS_DERIVED_FROM]->(b) WHERE a.uid STARTS WITH $p "
            "RETURN a.uid AS a, b.uid AS b", {"p": PREFIX})]
        print(f"{'found' if keep and found == n else 'built'} {n} nodes, {len(edges)} edges "
              f"in {time.perf_counter() - t0:.1f} s")
        graph = nx.DiGraph(edges)
        server, cte = postgres_runner(edges)
        template = templates.get("ancestors")
        middle = n - n // 2
        starts = [f"{PREFIX}{middle + i * (width // starts_count)}" for i in range(starts_count)]
        print(f"{starts_count} start nodes in the middle layer; median / p95 ms; rows per start")
        try:
            for depth in (3, 10, 100, None):
                bind = {"uid": None, "max_depth": depth}
                ways = {
                    "lin.query (every row into Python)":
                        lambda u: lin.query("ancestors", uid=u, max_depth=depth),
                    "the same, a list per row (before)":
                        lambda u: rows_per_row(lin, template, template.bind({**bind, "uid": u})),
                    "lin.query_page (CLI table: 100 rows + counts)":
                        lambda u: lin.query_page("ancestors", {"uid": u, "max_depth": depth}).rows,
                    "template streamed, a Bolt record per row":
                        lambda u: lin.graph.run(template.text, template.bind({**bind, "uid": u})),
                    "inside Neo4j, counting only (template)":
                        lambda u: lin.graph.run("CALL () { " + template.text
                                                + " } RETURN count(*) AS n",
                                                template.bind({**bind, "uid": u})),
                    "networkx, graph in memory":
                        lambda u: networkx_ancestors(graph, u, depth),
                }
                if cte:
                    ways["PostgreSQL recursive CTE, rows fetched"] = lambda u: cte(u, depth)
                results = {name: timed(fn, starts) for name, fn in ways.items()}
                pg = results.get("PostgreSQL recursive CTE, rows fetched")
                rows = results["lin.query (every row into Python)"][2]
                agree = {name: r[2] for name, r in results.items()
                         if not name.startswith(("lin.query_page", "inside"))}
                assert len(set(agree.values())) == 1, agree  # the same answer every way
                print(f"\nmax_depth={depth}: {rows} rows per start")
                for name, (median, p95, _) in results.items():
                    ratio = f"  PostgreSQL/this = {pg[0] / median:5.2f}" if pg else ""
                    print(f"  {name:48} {median:8.1f} {p95:8.1f}{ratio}")
        finally:
            if not keep:
                clean(lin)
            if server:
                server.stop()


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:] if a != "--keep"), keep="--keep" in sys.argv)
