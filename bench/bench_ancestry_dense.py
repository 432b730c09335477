"""The worst case for searching several levels from each frontier node apart: dense layers,
every node derived from every node of the layer above, so the frontier nodes' reaches are
all the same. The API's bounded search now (``lin.query("ancestors", max_depth=...)``: the
template's own search, bounded) against the searches from Python before it
(bench/legacy_bounded.py: three levels per query, with and without the switch to a level per
query for large frontiers; and one query per level, ``bench_ancestry_depth``), side by side
on the same start node, rows delivered into Python.

    .venv/bin/python bench/bench_ancestry_dense.py [LAYERS] [WIDTH]    # default 7 200
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import lineage
from lineage.load.writer import ensure_schema

sys.path.insert(0, str(Path(__file__).resolve().parent))
import legacy_bounded  # noqa: E402
from bench_ancestry_depth import one_query_per_level  # noqa: E402

PREFIX = "prov:entity:bench-dense-"


def build(lin, layers: int, width: int) -> None:
    ensure_schema(lin.graph.driver, lin.graph.database)
    lin.write("UNWIND $uids AS uid CREATE (:Lineage:Entity:ProvEntity {uid: uid, "
              "kind: 'ProvEntity'})",
              {"uids": [f"{PREFIX}{layer}-{i}" for layer in range(layers) for i in range(width)]})
    for layer in range(1, layers):
        pairs = [[f"{PREFIX}{layer}-{i}", f"{PREFIX}{layer - 1}-{j}"]
                 for i in range(width) for j in range(width)]
        for k in range(0, len(pairs), 20_000):
            lin.write("UNWIND $edges AS e MATCH (a:Lineage {uid: e[0]}), (b:Lineage {uid: e[1]}) "
                      "CREATE (a)-[:WAS_DERIVED_FROM]->(b)", {"edges": pairs[k:k + 20_000]})


def clean(lin) -> None:
    lin.write("MATCH (n:Lineage) WHERE n.uid STARTS WITH $p DETACH DELETE n", {"p": PREFIX})


def levels(lin, start: str, depth: int, switch: bool = True) -> list[dict]:
    """The API's search before: three levels from every frontier node, switching to a level
    per query past ``STEPS_FRONTIER`` nodes (or never, ``switch=False``)."""
    kept = legacy_bounded.STEPS_FRONTIER
    legacy_bounded.STEPS_FRONTIER = kept if switch else 10**9
    try:
        return legacy_bounded.bounded_lineage(lin, start, depth)
    finally:
        legacy_bounded.STEPS_FRONTIER = kept


def main(layers: int = 7, width: int = 200) -> None:
    with lineage.connect() as lin:
        clean(lin)
        build(lin, layers, width)
        start = f"{PREFIX}{layers - 1}-0"
        print(f"{layers} layers of {width}, each node derived from all of the layer above; "
              "median of 3 ms (after one warm-up)")
        try:
            for depth in range(1, layers):
                ways = {"a query per level": lambda d=depth: one_query_per_level(lin, start, d),
                        "three levels, no switch": lambda d=depth: levels(lin, start, d, False),
                        "three levels, switch (before)": lambda d=depth: levels(lin, start, d),
                        "lin.query": lambda d=depth: lin.query("ancestors", uid=start,
                                                               max_depth=d)}
                results = {}
                for name, fn in ways.items():
                    fn()
                    seconds = []
                    for _ in range(3):
                        t0 = time.perf_counter()
                        rows = fn()
                        seconds.append(time.perf_counter() - t0)
                    results[name] = (statistics.median(seconds) * 1000, len(rows))
                assert len({n for _, n in results.values()}) == 1, results
                now = results["lin.query"][0]
                print(f"  depth {depth} ({results['lin.query'][1]} rows): " + ", ".join(
                    f"{name} {ms:.1f} ({ms / now:.2f}x)" for name, (ms, _) in results.items()))
        finally:
            clean(lin)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
