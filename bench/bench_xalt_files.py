"""How fast do many small XALT run files load through the normal path into a graph that
already holds data, and does memory stay flat as their number grows?

    .venv/bin/python bench/bench_xalt_files.py --size 1000 [--base main]
    .venv/bin/python bench/bench_xalt_files.py --size fleet --runs 1     # 10^5 files

SIZE run files (bench/gen_xalt.py, from the real sample run record: 28 KB each), one
``lin.load`` of their folder, after a 20,000-event BP stream loaded untimed into the emptied
graph. Issue 44's target: at least 200 files/s at 1,000; XALT's own loader (XALTdb into
MariaDB) took 42-70 s for 200 such files (3-5 files/s).
"""

from __future__ import annotations

from pathlib import Path

import gen_bp
import gen_xalt
import harness

SIZES = {"smoke": 5, "default": 1_000, "fleet": 100_000}


def prepare(size: int, folder: Path, options: dict) -> dict:
    gen_xalt.write_runs(folder / "runs", size)
    holding = folder / "holding.bp"
    gen_bp.generate(holding, 100 if size <= SIZES["smoke"] else 20_000)
    return {"runs": str(folder / "runs"), "holding": str(holding)}


def measure(size: int, prepared: dict) -> dict:
    with harness.connect() as lin:
        lin.reset(force=True)
        lin.load([prepared["holding"]])
        out = harness.load_figures(lin, [prepared["runs"]])
    return {"seconds": out["seconds"], "files_per_s": size / out["seconds"], **out}


if __name__ == "__main__":
    harness.main(__doc__, "xalt_files", measure, SIZES, prepare)
