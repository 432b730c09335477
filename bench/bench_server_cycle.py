"""Starting and stopping the managed Neo4j: this checkout against another one, alternating.

    git worktree add --detach /tmp/lineage-base b45af4f
    python bench/bench_server_cycle.py --base /tmp/lineage-base --rounds 3

Each round starts and stops a managed server in one temporary state directory (rewriting its
neo4j.conf at every start, as ``lineage neo4j start`` does) once with each checkout's
``lineage.server``, each in a fresh process; prints start and stop seconds, the medians and
the ratios (base / this: above 1 is faster here).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import checkouts

CYCLE = """
import json, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from lineage import server
state = Path(sys.argv[2])
t = time.perf_counter(); server.start(state); started = time.perf_counter()
server.stop(state); stopped = time.perf_counter()
print(json.dumps({"start": started - t, "stop": stopped - started}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="another checkout of lineage-explorer")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    trees = checkouts.trees(args.base)
    state = tempfile.mkdtemp(prefix="lineage-cycle-")
    subprocess.run([sys.executable, "-c", CYCLE, trees["this"], state], check=True,
                   capture_output=True)  # the first start sets the password up: not timed
    runs = checkouts.alternate(
        trees, args.rounds, lambda root: [sys.executable, "-c", CYCLE, root, state],
        lambda name, run: print(f"{name}: start {run['start']:.2f} s, "
                                f"stop {run['stop']:.2f} s", flush=True))
    for what in ("start", "stop"):
        base, this = (statistics.median(r[what] for r in runs[n]) for n in ("base", "this"))
        print(f"{what}: median base {base:.2f} s, this {this:.2f} s, {base / this:.1f}x")


if __name__ == "__main__":
    main()
