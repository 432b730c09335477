"""How long does the HTML report of a big workflow take to build?

    .venv/bin/python bench/bench_report.py --size 2500 [--base main]

A generated Pegasus workflow of SIZE jobs (bench/gen_bp.py) loaded into an emptied graph,
then ``lin.report`` of its run, timed (queries, layout and the page written).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import gen_bp
import harness

SIZES = {"smoke": 5, "default": 2_500}


def prepare(size: int, folder: Path, options: dict) -> dict:
    path = folder / f"workflow-{size}.bp"
    gen_bp.generate(path, size * gen_bp.EVENTS_PER_JOB)
    return {"paths": [str(path)]}


def measure(size: int, prepared: dict) -> dict:
    with harness.connect() as lin, tempfile.TemporaryDirectory() as tmp:
        lin.reset(force=True)
        lin.load(prepared["paths"])
        run = lin.query("runs")[0]["uid"]
        page = Path(tmp) / "report.html"
        seconds, _ = harness.timed(lambda: lin.report(run, page))
        return {"seconds": seconds, "megabytes": page.stat().st_size / 1e6}


if __name__ == "__main__":
    harness.main(__doc__, "report", measure, SIZES, prepare)
