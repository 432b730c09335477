"""CLI start-up: how long a ``lineage`` command takes from exec to exit, this checkout against
another one, alternating, on the same managed Neo4j.

    git worktree add --detach /tmp/lineage-base b45af4f
    python bench/bench_cli_startup.py --base /tmp/lineage-base --runs 15

Each command runs as ``python -m lineage.cli ARGS`` with that checkout first on ``sys.path``
(the same interpreter and site-packages: numpy, pandas and pyarrow installed, as in the test
environment), the two checkouts alternating run by run; prints the median and fastest
wall seconds of each and the ratio of medians (base / this: above 1 is faster here). The
commands that query run against a managed Neo4j the script starts in a temporary
``LINEAGE_HOME`` (and stops at the end); they cost the driver's import, the connection and
one round trip, which is what a user waits for when asking one question.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import checkouts

COMMANDS = [
    ["--help"],
    ["cypher", "list"],
    ["neo4j", "status"],
    ["query", "RETURN 1 AS one"],
    ["stats"],
]


def run_once(root: str, argv: list[str], env: dict) -> float:
    """Wall seconds of one ``lineage ARGV`` with the package in ``root``."""
    code = f"import sys; sys.path.insert(0, {root!r}); from lineage.cli import main; main()"
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code, *argv], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{root}: lineage {' '.join(argv)} exited {done.returncode}: "
                         f"{done.stderr.strip()[-500:]}")
    return seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="another checkout of lineage-explorer")
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    trees = checkouts.trees(args.base)
    home = tempfile.mkdtemp(prefix="lineage-startup-")
    env = {**os.environ, "LINEAGE_HOME": home, "CI": "true"}
    for name in ("NEO4J_URI", "NEO4J_USERNAME", "NEO4J_PASSWORD", "NEO4J_DATABASE"):
        env.pop(name, None)
    start = [sys.executable, "-c", f"import sys; sys.path.insert(0, {trees['this']!r}); "
             "from lineage.cli import main; main()"]
    subprocess.run([*start, "neo4j", "start"], env=env, check=True, stdout=subprocess.DEVNULL)
    try:
        print(f"load average {os.getloadavg()[0]:.2f}; {args.runs} runs each, alternating")
        print(f"{'command':<40} {'base median':>12} {'this median':>12} {'base min':>9} "
              f"{'this min':>9} {'ratio':>6}")
        for argv in COMMANDS:
            times: dict[str, list[float]] = {name: [] for name in trees}
            for root in trees.values():  # one unmeasured run each: the page cache
                run_once(root, argv, env)
            for _ in range(args.runs):
                for name, root in trees.items():
                    times[name].append(run_once(root, argv, env))
            base, this = (statistics.median(times[n]) for n in ("base", "this"))
            print(f"{' '.join(argv)[:40]:<40} {base:12.3f} {this:12.3f} "
                  f"{min(times['base']):9.3f} {min(times['this']):9.3f} {base / this:6.2f}x")
        print(f"load average {os.getloadavg()[0]:.2f}")
    finally:
        subprocess.run([*start, "neo4j", "stop"], env=env, stdout=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
