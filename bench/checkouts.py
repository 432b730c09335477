"""This checkout against another one (``--base``), side by side: the shape the before/after
benchmarks share (bench_parse, bench_parse_fold, bench_fold_csv, bench_server_cycle,
bench_cli_startup).

    trees = checkouts.trees("/tmp/lineage-base")     # {"base": ..., "this": ...}
    runs = checkouts.alternate(trees, 3, lambda root: [sys.executable, script, root])
    print(checkouts.ratio_line(runs, "wall"))

Each run is a fresh process, the checkouts alternating per round, its result the JSON object
on the last line of its standard output.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
from collections.abc import Callable
from pathlib import Path

THIS = Path(__file__).resolve().parent.parent


def arguments(doc: str) -> argparse.Namespace:
    """The command line of a before/after benchmark on input files: the inputs, ``--base
    CHECKOUT``, ``--rounds N`` and the hidden ``--one ROOT PATH`` of a single run (what
    :func:`alternate`'s commands call the script with)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--base", required=True, help="another checkout of lineage-explorer")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    return ap.parse_args()


def trees(base: str) -> dict[str, str]:
    """The two package roots, ``base`` first."""
    return {"base": str(Path(base).resolve()), "this": str(THIS)}


def alternate(roots: dict[str, str], rounds: int, command: Callable[[str], list[str]],
              report: Callable[[str, dict], None] | None = None) -> dict[str, list[dict]]:
    """Run ``command(root)`` ``rounds`` times per checkout, alternating; the JSON results
    per checkout name (``report(name, result)`` after each run, when given)."""
    runs: dict[str, list[dict]] = {name: [] for name in roots}
    for _ in range(rounds):
        for name, root in roots.items():
            out = subprocess.run(command(root), capture_output=True, text=True,
                                 check=True).stdout
            runs[name].append(json.loads(out.strip().splitlines()[-1]))
            if report:
                report(name, runs[name][-1])
    return runs


def ratio_line(runs: dict[str, list[dict]], key: str) -> str:
    """``base / this`` of ``key``'s best and median (above 1: faster here)."""
    best = {n: min(r[key] for r in rs) for n, rs in runs.items()}
    med = {n: statistics.median(r[key] for r in rs) for n, rs in runs.items()}
    return (f"base / this, {key}: best {best['base'] / best['this']:.2f}x, "
            f"median {med['base'] / med['this']:.2f}x")
