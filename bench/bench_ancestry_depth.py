"""A depth-bounded ancestry question on a big DAG, side by side on the same start nodes, rows
delivered into Python: the template before (the whole upstream search, then a depth filter),
the API's searches before (one query per level, kept here as ``one_query_per_level``; then
three levels per query from Python, bench/legacy_bounded.py) and now (the template's own
search stops at max_depth: a branch with a literal bound).

Builds a layered DAG of N nodes (each derived from 2 nodes of the layer above) as
ProvEntity nodes tagged ``bench-ancestry``, measures, and deletes them again (``--keep``:
keeps them, and a later run with ``--keep`` measures the DAG it finds).

    .venv/bin/python bench/bench_ancestry_depth.py [N] [WIDTH] [DEPTH ...] [--keep]
    .venv/bin/python bench/bench_ancestry_depth.py 200000 1000 3 6 10 12
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

import lineage

sys.path.insert(0, str(Path(__file__).resolve().parent))
import legacy_bounded  # noqa: E402

PREFIX = "prov:entity:bench-ancestry-"
NOW = "now (the template's bounded search)"


def build(lin, n: int, width: int) -> None:
    # the model's constraints and indexes first: on a fresh server (no load yet) every
    # uid look-up below, and every question after, would scan the label instead
    from lineage.load.writer import ensure_schema

    ensure_schema(lin.graph.driver, lin.graph.database)
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


def one_query_per_level(lin, uid: str, max_depth: int) -> list[dict]:
    """Ancestors to ``max_depth`` the way the API found them before it searched three
    levels per query: template ``lineage_step`` once per level."""
    seen, frontier, rows = {uid}, [uid], []
    for depth in range(1, max_depth + 1):
        found = lin.query("lineage_step", uids=frontier, upstream=True)
        new = {r["uid"]: r for r in found if r["uid"] not in seen}
        if not new:
            break
        seen.update(new)
        rows += [{**r, "depth": depth} for r in sorted(new.values(), key=lambda r: r["uid"])]
        frontier = list(new)
    return rows


def main(n: int, width: int, depths: tuple[int, ...] = (3,), keep: bool = False) -> None:
    with lineage.connect() as lin:
        t0 = time.perf_counter()
        found = lin.graph.run("MATCH (x:ProvEntity) WHERE x.uid STARTS WITH $p "
                              "RETURN count(x) AS n", {"p": PREFIX})[0]["n"]
        if not (keep and found == n):
            clean(lin)
            build(lin, n, width)
            print(f"built {n} nodes, {2 * (n - width)} edges in {time.perf_counter() - t0:.1f} s")
        starts = [f"{PREFIX}{i}" for i in range(n - 10, n)]
        try:
            for depth in depths:
                ways = {
                    "template before (whole search, then filter)": lambda u: lin.graph.run(
                        legacy_bounded.WHOLE_SEARCH[True], {"uid": u, "max_depth": depth}),
                    "API, a query per level (before)": lambda u: one_query_per_level(
                        lin, u, depth),
                    "API, 3 levels a query (before)": lambda u: legacy_bounded.bounded_lineage(
                        lin, u, depth),
                    NOW: lambda u: lin.query("ancestors", uid=u, max_depth=depth),
                }
                for fn in ways.values():  # warm the plans up
                    fn(starts[0])
                results = {name: timed(fn, starts) for name, fn in ways.items()}
                assert len({rows for _, rows in results.values()}) == 1, results
                rows = next(iter(results.values()))[1]
                print(f"ancestors at depth <= {depth}, {len(starts)} start nodes, "
                      f"{rows // len(starts)} rows each, median ms:")
                now = results[NOW][0]
                for name, (median, _) in results.items():
                    print(f"  {name:44} {median * 1000:8.1f}   {median / now:5.2f}x now")
        finally:
            if not keep:
                clean(lin)


if __name__ == "__main__":
    numbers = [int(a) for a in sys.argv[1:] if a != "--keep"]
    main(*numbers[:2], depths=tuple(numbers[2:]) or (3,), keep="--keep" in sys.argv)
