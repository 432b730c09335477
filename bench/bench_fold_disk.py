"""The bulk fold past its budget (lineage/bulk/partitions.py), without Neo4j: parse one input
with a small fold budget, then fold the partitions and write the CSV (``Fold.write_csv``),
with the relationships' partitions in a forked child (``two``) or in this process (``one``),
each run a fresh process, alternating; prints seconds of each stage and peak RSS.

    python bench/bench_fold_disk.py bench/out/bench-1200000.bp --budget 100000 --rounds 2
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def run_once(path: str, budget: int, processes: str) -> dict:
    """One parse and fold on disk of ``path``: seconds of each stage, peak RSS."""
    from lineage.bulk import csv as bulk_csv
    from lineage.bulk.spill import Fold
    from lineage.load import loads
    from lineage.load.collector import fewer_collections
    from lineage.load.inputs import expand, identity
    from lineage.load.pipeline import first_result, parse_to_spool
    from lineage.load.spool import Spool
    from lineage.sources.base import LoadReport

    if processes == "one":
        bulk_csv._second_core = lambda: False
    [item] = list(expand([path]))
    with tempfile.TemporaryDirectory() as tmp, fewer_collections():
        fold = Fold(budget, Path(tmp), Path(path).stat().st_size)
        lid = loads.load_id(item.format.name, identity(item))
        report, result = LoadReport(item.path, item.format.name), first_result(item)
        t0 = time.perf_counter()
        folding = fold.first_store(loads.tag_of(lid, 1), f"{lid}:", report)
        spool = parse_to_spool(item, report, Spool(store=folding) if folding else None)
        fold.add(spool, folding, loads.tag_of(lid, 1), f"{lid}:", report, result)
        t1 = time.perf_counter()
        (Path(tmp) / "csv").mkdir()
        fold.write_csv(Path(tmp) / "csv")
        t2 = time.perf_counter()
        partitions = fold.partitions.count if fold.partitions else 0
        fold.close()
    return {"parse": t1 - t0, "fold+csv": t2 - t1, "partitions": partitions,
            "elements": result.write.node_rows + result.write.edges_written,
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input")
    ap.add_argument("--budget", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(run_once(args.input, args.budget, args.one)))
        return
    runs: dict[str, list[dict]] = {"one": [], "two": []}
    for _ in range(args.rounds):
        for processes in ("one", "two"):
            out = subprocess.run([sys.executable, __file__, args.input, "--budget",
                                  str(args.budget), "--one", processes],
                                 capture_output=True, text=True, check=True)
            runs[processes].append(json.loads(out.stdout.strip().splitlines()[-1]))
    for processes, rows in runs.items():
        print(f"{processes}: " + "; ".join(
            f"parse {r['parse']:.1f} s, fold+csv {r['fold+csv']:.1f} s, peak RSS "
            f"{r['peak_rss_mib']:.0f} MiB ({r['partitions']} partitions, "
            f"{r['elements']} row records)" for r in rows))
    one = statistics.median(r["fold+csv"] for r in runs["one"])
    two = statistics.median(r["fold+csv"] for r in runs["two"])
    print(f"fold+csv, median: one process {one:.1f} s, two {two:.1f} s: {one / two:.2f}x")


if __name__ == "__main__":
    main()
