"""The bulk path's Python side after the parse: folding the spool (``FoldedGraph.add_input``)
and writing neo4j-admin CSV (``lineage.bulk.csv.write_csv``), this checkout against another one, side by
side on the same input.

    git worktree add --detach /tmp/lineage-base acf6f61
    python bench/bench_fold_csv.py --base /tmp/lineage-base bench/out/bench-1200000.bp --rounds 3

Each run is a fresh process with one checkout's package (parse into the spool, untimed; then
the fold and the CSV, timed, with the collector settings the bulk load uses), the checkouts
alternating per round. Prints the seconds of both phases per run, the best and the median,
and the ratios (base / this: above 1 is faster here). Both checkouts must write the same
content (every row's non-empty column/field pairs, whatever the file layout), else the
script stops.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import checkouts


def fold_and_write_once(root: str, path: str) -> dict:
    """Parse ``path`` with the package in ``root``, then time its fold and its CSV."""
    sys.path.insert(0, root)
    from lineage.bulk.csv import write_csv
    from lineage.bulk.fold import FoldedGraph
    from lineage.load.collector import fewer_collections
    from lineage.load.inputs import Input
    from lineage.load.pipeline import parse_to_spool
    from lineage.sources.base import LoadReport
    from lineage.sources.registry import detect

    fmt = detect(Path(path))
    report = LoadReport(path, fmt.name)
    with fewer_collections(), tempfile.TemporaryDirectory() as work:
        spool = parse_to_spool(Input(path, fmt, True), report)
        graph = FoldedGraph()
        t0 = time.perf_counter()
        graph.add_input(spool, "bench:1", "bench:", report)
        t1 = time.perf_counter()
        nodes, rels = write_csv(graph, Path(work))[:2]  # a third: the --id-type
        t2 = time.perf_counter()
        spool.close()
        digest = _content_digest(nodes, rels)
    return {"fold": t1 - t0, "csv": t2 - t1, "sha256": digest,
            "elements": len(graph.nodes) + len(graph.edges)}


def _content_digest(node_files: list, rel_files: list) -> str:
    """What the CSV files say, whatever their layout: every row as its non-empty
    ``column: field`` pairs, hashed, summed (the order of rows, files and columns aside).
    Numbered nodes (``:ID`` and ``uid:string``) count as ``uid:ID``, and relationship ends
    by number as the uids of those nodes, so both ways of naming nodes compare."""
    csv.field_size_limit(sys.maxsize)  # command lines of hundreds of KB
    uids: dict[str, str] = {}
    total = 0
    for path in [*node_files, *rel_files]:  # each its header first; the nodes first
        with open(path, encoding="utf-8", newline="") as fh:
            rows = csv.reader(fh)
            header = next(rows)
            for row in rows:
                fields = dict(zip(header, row))
                if ":ID" in fields:
                    uids[fields.pop(":ID")] = fields["uid:ID"] = fields.pop("uid:string")
                for end in (":START_ID", ":END_ID"):
                    if end in fields and uids:
                        fields[end] = uids[fields[end]]
                pairs = sorted((c, v) for c, v in fields.items() if v != "")
                total += int.from_bytes(hashlib.blake2b(repr(pairs).encode(),
                                                        digest_size=16).digest(), "big")
    return f"{total % (1 << 128):032x}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input")
    ap.add_argument("--base", required=True, help="another checkout of lineage-explorer")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(fold_and_write_once(*args.one)))
        return
    runs = checkouts.alternate(
        checkouts.trees(args.base), args.rounds,
        lambda root: [sys.executable, __file__, args.input, "--base", root, "--one", root,
                      str(Path(args.input).resolve())])
    digests = {r["sha256"] for rs in runs.values() for r in rs}
    if len(digests) != 1:
        sys.exit(f"{args.input}: the checkouts wrote different CSV: {sorted(digests)}")
    print(f"{Path(args.input).name}: {runs['this'][0]['elements']:,} graph elements, "
          "the same CSV content from both checkouts")
    for phase in ("fold", "csv"):
        for name, rs in runs.items():
            print(f"  {phase:4} {name:4} s " + ", ".join(f"{r[phase]:.2f}" for r in rs))
        print("  " + checkouts.ratio_line(runs, phase))


if __name__ == "__main__":
    main()
