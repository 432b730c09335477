"""How long do exports of a big workflow take, and in how much memory?

    .venv/bin/python bench/bench_export.py --size 2500 [--base main]

A generated Pegasus workflow of SIZE jobs (bench/gen_bp.py) loaded into an emptied graph,
then ``lin.export`` of its run as PROV-JSON and as GraphML, each timed; the peak memory is
the larger of the two (one process).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import harness
from bench_report import SIZES, prepare  # the same workflow

FORMATS = ("prov-json", "graphml")


def measure(size: int, prepared: dict) -> dict:
    out = {}
    with harness.connect() as lin, tempfile.TemporaryDirectory() as tmp:
        lin.reset(force=True)
        lin.load(prepared["paths"])
        run = lin.query("runs")[0]["uid"]
        for fmt in FORMATS:
            path = Path(tmp) / f"export.{fmt}"
            out[f"seconds_{fmt}"], _ = harness.timed(lambda: lin.export(run, path, fmt))
            out[f"megabytes_{fmt}"] = path.stat().st_size / 1e6
    return {"seconds": sum(out[f"seconds_{fmt}"] for fmt in FORMATS), **out}


if __name__ == "__main__":
    harness.main(__doc__, "export", measure, SIZES, prepare)
