"""Reading a Chimbuko UnQLite shard: the safety probe's second read, before and after.

    python bench/bench_chimbuko_shard.py --records 18000      # about a 75 MB shard

Writes a provenance database shard (``provdb.0.unqlite``, an ``anomalies`` collection of
generated v2 records, as bench/bench_chimbuko.py makes them) with the unqlite package, as
Chimbuko's provDB does, then parses it side by side, each in a fresh process:

- ``before``: the shard read through once in a child process (the old safety probe, with
  its deadline), then read again by the parser;
- ``after``: the one read, in the child process that streams the records to the parser.

Prints seconds, lineage records and peak RSS of each, and the ratio. A full load of the
same shard, old writer against new: ``python bench/bench_load.py --file <shard>``.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))


def write_shard(path: Path, n_records: int, ranks: int = 8, n_functions: int = 200) -> None:
    import unqlite

    from bench_chimbuko import PER_STEP, _record

    path.unlink(missing_ok=True)
    db = unqlite.UnQLite(str(path))
    coll = db.collection("anomalies")
    coll.create()
    written, step = 0, 0
    while written < n_records:
        for rank in range(ranks):
            for k in range(PER_STEP):
                if written < n_records:
                    coll.store(_record(rank, step, k, n_functions))
                    written += 1
        step += 1
    db.commit()
    db.close()


def _old_probe(path: str) -> int:
    """The safety probe as it was: every record of every collection, read in a child."""
    import unqlite

    from lineage.sources.chimbuko.mapping import (_OPEN_MMAP, _OPEN_READONLY, GLOBAL_COLLECTIONS,
                                                  MAIN_COLLECTIONS, collection_records)

    db = unqlite.UnQLite(path, flags=_OPEN_READONLY | _OPEN_MMAP)
    try:
        return sum(1 for c in MAIN_COLLECTIONS + GLOBAL_COLLECTIONS
                   if db.collection(c).exists() for _ in collection_records(db, c))
    finally:
        db.close()


def run(variant: str, path: Path) -> dict:
    import multiprocessing

    from lineage.sources.base import LoadReport
    from lineage.sources.chimbuko.mapping import parse_unqlite

    report = LoadReport(str(path), "chimbuko-unqlite")
    t0 = time.perf_counter()
    if variant == "before":
        with multiprocessing.get_context("spawn").Pool(1) as pool:
            pool.apply_async(_old_probe, (str(path),)).get(timeout=600)
    records = sum(1 for _ in parse_unqlite(path, report))
    return {"variant": variant, "seconds": time.perf_counter() - t0, "records": records,
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=18_000)
    ap.add_argument("--file", help="an existing shard instead of a generated one")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--variant", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.variant:
        print(json.dumps(run(args.variant, Path(args.file))))
        return
    if args.file:
        path = Path(args.file)
    else:
        path = HERE / "out" / f"shard-{args.records}" / "provdb.0.unqlite"
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            write_shard(path, args.records)
    print(f"shard: {path} ({path.stat().st_size / 1e6:.0f} MB)")
    best: dict[str, dict] = {}
    for _ in range(args.rounds):  # alternated, best of the rounds (a shared machine)
        for variant in ("before", "after"):
            out = subprocess.run([sys.executable, __file__, "--variant", variant, "--file",
                                  str(path)], capture_output=True, text=True, check=True)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            if variant not in best or r["seconds"] < best[variant]["seconds"]:
                best[variant] = r
    for r in best.values():
        print(f"{r['variant']:7} {r['seconds']:7.1f} s  {r['records']:9,} lineage records  "
              f"peak RSS {r['peak_rss_mib']:.0f} MiB")
    print(f"after vs before: {best['before']['seconds'] / best['after']['seconds']:.2f}x faster")


if __name__ == "__main__":
    main()
