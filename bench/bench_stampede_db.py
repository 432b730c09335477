"""How fast does a large Stampede database (a Pegasus ``*.stampede.db``) load?

    .venv/bin/python bench/bench_stampede_db.py --size 30000 [--base main]

SIZE jobs (bench/gen_stampede_db.py: the real schema, a layered DAG, every tenth job
retried, seven states and two invocations per attempt), loaded with ``lin.load`` into an
emptied graph.
"""

from __future__ import annotations

from pathlib import Path

import gen_stampede_db
import harness

SIZES = {"smoke": 20, "default": 30_000, "large": 150_000}


def prepare(size: int, folder: Path, options: dict) -> dict:
    path = folder / f"bench-{size}.stampede.db"
    gen_stampede_db.generate(path, size)
    return {"paths": [str(path)]}


if __name__ == "__main__":
    harness.main(__doc__, "stampede_db", harness.load_emptied, SIZES, prepare)
