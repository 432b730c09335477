"""Parsing into the spool (what a load does before it writes anything): this checkout against
another one, side by side on the same inputs.

    git worktree add --detach /tmp/lineage-base 02aae4a
    python bench/bench_parse.py --base /tmp/lineage-base bench/out/bench-200000.bp \\
        bench/out/shard-18000/provdb.0.unqlite --rounds 3

Each parse runs in a fresh process (``pipeline.parse_to_spool`` of that checkout, imported
from it), the two checkouts alternating per round; prints wall and CPU seconds of every run,
the best and the median of each (CPU counts the reader's child process, if any), peak RSS
of the parse and of its largest child, and the ratios (base / this: above 1 is faster here).
Both must give the same record count. The inputs are made by bench/gen_bp.py (``python
bench/bench_bp.py`` writes them) and bench/bench_chimbuko_shard.py.
"""

from __future__ import annotations

import json
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import checkouts


def parse_once(root: str, path: str) -> dict:
    """Parse ``path`` with the package in ``root``; wall and CPU seconds, record count."""
    sys.path.insert(0, root)
    from lineage.load.inputs import Input
    from lineage.load.pipeline import parse_to_spool
    from lineage.sources.base import LoadReport
    from lineage.sources.registry import detect

    fmt = detect(Path(path))
    wall, cpu = time.perf_counter(), _cpu()
    spool = parse_to_spool(Input(path, fmt, True), LoadReport(path, fmt.name))
    out = {"wall": time.perf_counter() - wall, "cpu": _cpu() - cpu,
           "records": sum(spool.node_counts.values()) + sum(spool.edge_counts.values()),
           "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
           "children_rss_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}
    spool.close()
    return out


def _cpu() -> float:
    """CPU seconds of this process and of its children that ended (a reader process)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
        resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    args = checkouts.arguments(__doc__)
    if args.one:
        print(json.dumps(parse_once(*args.one)))
        return
    trees = checkouts.trees(args.base)
    for path in args.inputs:
        runs = checkouts.alternate(trees, args.rounds, lambda root, path=path: [
            sys.executable, __file__, "--base", root, "--one", root,
            str(Path(path).resolve()), path])
        counts = {r["records"] for rs in runs.values() for r in rs}
        if len(counts) != 1:
            sys.exit(f"{path}: the checkouts read different record counts: {counts}")
        print(f"{Path(path).name}: {counts.pop():,} records")
        for name, rs in runs.items():
            walls = ", ".join(f"{r['wall']:.2f}" for r in rs)
            print(f"  {name:5} wall s {walls}; best {min(r['wall'] for r in rs):.2f}, "
                  f"median {statistics.median(r['wall'] for r in rs):.2f}; CPU s best "
                  f"{min(r['cpu'] for r in rs):.2f} (with child processes); peak RSS MiB "
                  f"{max(r['peak_rss_mib'] for r in rs):.0f}, of a child "
                  f"{max(r.get('children_rss_mib', 0) for r in rs):.0f}")
        for what in ("wall", "cpu"):
            print("  " + checkouts.ratio_line(runs, what))


if __name__ == "__main__":
    main()
