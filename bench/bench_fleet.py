"""How fast do many small XALT run files load through the normal path, beside XALT's own
loader and beside the same elements as one input, and does memory stay flat in their number?

    .venv/bin/python bench/bench_fleet.py --base REV                 # 1,000 files, 3 rounds
    .venv/bin/python bench/bench_fleet.py --curve 1000,10000,100000 --runs 1

SIZE run files (bench/gen_xalt.py, from the real sample run record: 28 KB each) loaded with
one ``lin.load`` of their folder into a graph that already holds data (a 20,000-event BP
stream, loaded untimed into the emptied graph); then, into the same graph emptied and
holding the stream again, the same SIZE records as one XALT syslog file (the floor: one
input, the same elements). XALT's own loader (XALTdb into MariaDB) took 42-70 s for 200 of
the same files: 3-5 files/s (recorded facts; the figures ``xalt_own_files_per_s_*``).
``--curve N,N,...``: the peak memory of loading N files (a process each, after the
figures above), into the graph as the timed load left it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import gen_bp
import gen_xalt
import harness

SIZES = {"smoke": 5, "default": 1_000}
#: XALT's own loader (XALTdb, into MariaDB): 200 run files in 42-70 s (recorded facts)
XALT_OWN = {"files": 200, "seconds_fast": 42.0, "seconds_slow": 70.0}


def options(parser) -> None:
    parser.add_argument("--curve", default="",
                        help="file counts whose load's peak memory to measure (10^3,10^4,...)")


def prepare(size: int, folder: Path, options: dict) -> dict:
    gen_xalt.write_runs(folder / "runs", size)
    gen_xalt.write_syslog(folder / "floor.log", size)
    holding = folder / "holding.bp"
    gen_bp.generate(holding, 100 if size <= SIZES["smoke"] else 20_000)
    curve = {}
    for count in (int(x) for x in options["curve"].split(",") if x):
        curve[count] = str(folder / f"curve-{count}")
        gen_xalt.write_runs(Path(curve[count]), count, start=10_000_000)  # uuids of their own
    return {"runs": str(folder / "runs"), "floor": str(folder / "floor.log"),
            "holding": str(holding), "curve_folders": curve}


def measure(size: int, prepared: dict) -> dict:
    with harness.connect() as lin:
        lin.reset(force=True)
        lin.load([prepared["holding"]])
        fleet = harness.load_figures(lin, [prepared["runs"]])
        lin.reset(force=True)
        lin.load([prepared["holding"]])
        floor = harness.load_figures(lin, [prepared["floor"]])
        if prepared["curve_folders"]:  # the curve's loads go into a graph holding the fleet
            lin.reset(force=True)
            lin.load([prepared["holding"]])
            lin.load([prepared["runs"]])
    out = {"seconds": fleet["seconds"], "files_per_s": size / fleet["seconds"],
           "ms_per_file": 1000 * fleet["seconds"] / size, "elements": fleet["elements"],
           "elements_per_s": fleet["elements_per_s"],
           "seconds_floor": floor["seconds"], "elements_floor": floor["elements"],
           "floor_elements_per_s": floor["elements_per_s"],
           "fleet_over_floor": fleet["seconds"] / floor["seconds"],
           "xalt_own_files_per_s_fast": XALT_OWN["files"] / XALT_OWN["seconds_fast"],
           "xalt_own_files_per_s_slow": XALT_OWN["files"] / XALT_OWN["seconds_slow"],
           "over_xalt_own_fast": (size / fleet["seconds"])
           / (XALT_OWN["files"] / XALT_OWN["seconds_fast"])}
    for count, folder in sorted(prepared["curve_folders"].items(), key=lambda x: int(x[0])):
        out.update({f"{k}_{count}": v for k, v in curve_point(folder).items()})
    return out


def curve_point(folder: str) -> dict:
    """Load the files of ``folder`` in a process of its own, as ``lineage load`` does (each
    result counted, none kept: ``lin.load_each``): its peak RSS and the rate."""
    code = ("import json, resource, time, harness\n"
            "with harness.connect() as lin:\n"
            "    t = time.perf_counter(); n = sum(1 for _ in lin.load_each([%r]))\n"
            "    s = time.perf_counter() - t\n"
            "print(json.dumps({'files': n, 'seconds': s,\n"
            "  'peak_rss_mib': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))"
            % folder)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.environ.get("PYTHONPATH", ""), str(Path(__file__).parent)]))
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, cwd=Path(__file__).parent)
    if proc.returncode:
        raise SystemExit(f"loading {folder} failed:\n{proc.stderr[-3000:]}")
    point = json.loads(proc.stdout.strip().splitlines()[-1])
    return {"curve_peak_rss_mib": round(point["peak_rss_mib"], 1),
            "curve_files_per_s": point["files"] / point["seconds"]}


if __name__ == "__main__":
    harness.main(__doc__, "fleet", measure, SIZES, prepare, options)
