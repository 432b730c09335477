"""How long does a ``lineage`` command take from exec to exit?

    .venv/bin/python bench/bench_cli_startup.py --size 15 [--base main]

Each command as a fresh ``python -m lineage`` process, SIZE times; medians in seconds.
The ones that ask Neo4j a question pay the driver's import and a connection too.
"""

from __future__ import annotations

import statistics
import subprocess
import sys

import harness

SIZES = {"smoke": 1, "default": 15}
COMMANDS = {"help": ["--help"], "cypher_list": ["cypher", "list"],
            "query": ["query", "RETURN 1 AS one"], "stats": ["stats"]}


def measure(size: int, prepared: dict) -> dict:
    out = {}
    for name, argv in COMMANDS.items():
        times = []
        for _ in range(size):
            seconds, proc = harness.timed(lambda: subprocess.run(
                [sys.executable, "-m", "lineage", *argv], capture_output=True))
            if proc.returncode:
                raise SystemExit(f"lineage {' '.join(argv)}: {proc.stderr.decode()[-500:]}")
            times.append(seconds)
        out[f"seconds_{name}"] = statistics.median(times)
    return {"seconds": out["seconds_help"], **out}


if __name__ == "__main__":
    harness.main(__doc__, "cli_startup", measure, SIZES)
