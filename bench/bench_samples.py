"""What does loading the real samples cost: every file of ``$LINEAGE_CORPUS/samples`` (Swift
logs, Pegasus streams and databases, Chimbuko records, XALT records) into an emptied graph?

    LINEAGE_CORPUS=/path/to/shared .venv/bin/python bench/bench_samples.py [--base main]

SIZE is how many of the four source folders are loaded (the smoke run: XALT's alone).
"""

from __future__ import annotations

import os
from pathlib import Path

import harness

SIZES = {"smoke": 1, "default": 4}
FOLDERS = ("xalt", "chimbuko", "pegasus", "swift")


def prepare(size: int, folder: Path, options: dict) -> dict:
    corpus = Path(os.environ.get("LINEAGE_CORPUS", harness.THIS.parent / "shared"))
    return {"paths": [str(corpus / "samples" / name) for name in FOLDERS[:size]]}


if __name__ == "__main__":
    harness.main(__doc__, "samples", harness.load_emptied, SIZES, prepare)
