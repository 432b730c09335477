"""How fast does a large Pegasus BP stream load through the driver, in how much memory?

    .venv/bin/python bench/bench_bp.py --size 200000 [--base main]

The stream is generated (bench/gen_bp.py: a layered DAG of jobs, 16 events each; SIZE
events) and loaded with ``lin.load`` into an emptied graph.
"""

from __future__ import annotations

from pathlib import Path

import gen_bp
import harness

SIZES = {"smoke": 500, "default": 200_000, "large": 1_200_000}


def prepare(size: int, folder: Path, options: dict) -> dict:
    path = folder / f"bench-{size}.bp"
    gen_bp.generate(path, size)
    return {"paths": [str(path)]}


if __name__ == "__main__":
    harness.main(__doc__, "bp", harness.load_emptied, SIZES, prepare)
