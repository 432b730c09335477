"""The bulk load's parse and fold of a first input, together (``--bulk`` folds its first input
while reading it since the folding spool), this checkout against another one.

    git worktree add --detach /tmp/lineage-base b593101
    python bench/bench_parse_fold.py --base /tmp/lineage-base bench/out/bench-200000.bp \\
        bench/out/shard-18000/provdb.0.unqlite --rounds 3

Each run is a fresh process with one checkout's package: with a ``FoldingStore``, the
parse into it; without, the parse into the spool and ``_Graph.add_input`` after it (what each
checkout's bulk load does), with the collector settings the bulk load uses. Prints the
seconds per run, best and median, and the ratios (base / this: above 1 is faster here). Both
must fold the same number of graph elements.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import checkouts


def parse_and_fold_once(root: str, path: str) -> dict:
    """Parse and fold ``path`` as the bulk load of the package in ``root`` does."""
    sys.path.insert(0, root)
    from lineage.bulk.fold import FoldedGraph, FoldingStore
    from lineage.load.collector import fewer_collections
    from lineage.load.inputs import Input
    from lineage.load.pipeline import parse_to_spool
    from lineage.load.spool import Spool
    from lineage.sources.base import LoadReport
    from lineage.sources.registry import detect

    fmt = detect(Path(path))
    report = LoadReport(path, fmt.name)
    graph = FoldedGraph()
    with fewer_collections():
        t0 = time.perf_counter()
        parse_to_spool(Input(path, fmt, True), report, Spool(store=FoldingStore(graph, "bench:1")))
        seconds = time.perf_counter() - t0
    return {"seconds": seconds, "elements": len(graph.nodes) + len(graph.edges)}


def main() -> None:
    args = checkouts.arguments(__doc__)
    if args.one:
        print(json.dumps(parse_and_fold_once(*args.one)))
        return
    for path in args.inputs:
        full = str(Path(path).resolve())
        runs = checkouts.alternate(checkouts.trees(args.base), args.rounds, lambda root: [
            sys.executable, __file__, full, "--base", root, "--one", root, full])
        counts = {r["elements"] for rs in runs.values() for r in rs}
        if len(counts) != 1:
            sys.exit(f"{path}: the checkouts folded different element counts: {counts}")
        print(f"{Path(path).name}: {counts.pop():,} graph elements")
        for name, rs in runs.items():
            print(f"  {name:4} s " + ", ".join(f"{r['seconds']:.2f}" for r in rs)
                  + f"; median {statistics.median(r['seconds'] for r in rs):.2f}")
        print("  " + checkouts.ratio_line(runs, "seconds"))


if __name__ == "__main__":
    main()
