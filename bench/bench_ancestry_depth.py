"""A depth-bounded ancestry question on a big DAG: the template's search (the whole upstream
graph, then a depth filter) against the API's breadth-first search that stops at max_depth,
side by side on the same start nodes, rows delivered into Python.

Builds a layered DAG of N nodes (each derived from 2 nodes of the layer above) as
ProvEntity nodes tagged ``bench-ancestry``, measures, and deletes them again.

    .venv/bin/python bench/bench_ancestry_depth.py [N] [WIDTH]   # default 100000 1000
"""

from __future__ import annotations

import random
import statistics
import sys
import time

import lineage
from lineage import templates

PREFIX = "prov:entity:bench-ancestry-"


def build(lin, n: int, width: int) -> None:
    rng = random.Random(7)
    nodes = [{"uid": f"{PREFIX}{i}", "id": i} for i in range(n)]
    for i in range(0, n, 10_000):
        lin.write("UNWIND $rows AS r CREATE (x:Lineage:Entity:ProvEntity {uid: r.uid, "
                  "kind: 'ProvEntity', identifier: 'bench-' + toString(r.id)})",
                  {"rows": nodes[i:i + 10_000]})
    edges = [{"a": f"{PREFIX}{i}", "b": f"{PREFIX}{rng.randrange(i - i % width - width, i - i % width)}"}
             for i in range(width, n) for _ in range(2)]
    for i in range(0, len(edges), 10_000):
        lin.write("UNWIND $rows AS r MATCH (a:Lineage {uid: r.a}), (b:Lineage {uid: r.b}) "
                  "MERGE (a)-[:WAS_DERIVED_FROM]->(b)", {"rows": edges[i:i + 10_000]})


def clean(lin) -> None:
    with lin.graph.driver.session(database=lin.graph.database) as session:  # auto-commit
        session.run("MATCH (x:ProvEntity) WHERE x.uid STARTS WITH $p "
                    "CALL (x) { DETACH DELETE x } IN TRANSACTIONS OF 10000 ROWS",
                    p=PREFIX).consume()


def timed(fn, starts) -> tuple[float, int]:
    seconds, rows = [], 0
    for uid in starts:
        t0 = time.perf_counter()
        rows += len(fn(uid))
        seconds.append(time.perf_counter() - t0)
    return statistics.median(seconds), rows


def main(n: int, width: int, depth: int = 3) -> None:
    with lineage.connect() as lin:
        clean(lin)
        t0 = time.perf_counter()
        build(lin, n, width)
        print(f"built {n} nodes, {2 * (n - width)} edges in {time.perf_counter() - t0:.1f} s")
        template = templates.get("ancestors")
        starts = [f"{PREFIX}{i}" for i in range(n - 10, n)]
        try:
            whole, rows_whole = timed(lambda u: lin.graph.run(
                template.text, template.bind({"uid": u, "max_depth": depth})), starts)
            bounded, rows_bounded = timed(lambda u: lin.query("ancestors", uid=u,
                                                              max_depth=depth), starts)
            assert rows_whole == rows_bounded
            print(f"ancestors at depth <= {depth}, {len(starts)} start nodes, "
                  f"{rows_bounded // len(starts)} rows each:")
            print(f"  template (whole search, then filter): median {whole * 1000:.0f} ms")
            print(f"  API breadth-first to max_depth:       median {bounded * 1000:.0f} ms")
            print(f"  ratio {whole / bounded:.1f}x")
        finally:
            clean(lin)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
