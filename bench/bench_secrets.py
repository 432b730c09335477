"""What does the redaction of secrets cost per XALT run file, parsed by the XALT reader and
in the environment filter alone?

    .venv/bin/python bench/bench_secrets.py --size 1000 [--base main]

SIZE run records (bench/gen_xalt.py: the real sample's 299 environment values, command line
and process tree; one run in ten with 3 planted secrets) in two sets: *realistic* (a tenth
of the values differ from run to run) and *distinct* (every value differs: the redaction
cache never hits). For each set, in a fresh process each (a cold cache): the XALT reader
(``parse_json``: reading, environment filtering, command lines, records) over every file,
then the environment filter alone (``filter_env``). Milliseconds per run file, and how many
environment values each redacted. No Neo4j.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import gen_xalt
import harness

SIZES = {"smoke": 10, "default": 1_000}
SETS = {"realistic": False, "distinct": True}


def prepare(size: int, folder: Path, options: dict) -> dict:
    for name, distinct in SETS.items():
        gen_xalt.write_runs(folder / name, size, distinct, planted=True)
    return {"folder": str(folder)}


def one(folder: str, step: str) -> dict:
    """Parse every run file of ``folder`` (``step`` parse) or filter their environments."""
    from lineage.sources.base import LoadReport
    from lineage.sources.xalt.jsonfiles import parse_json
    from lineage.sources.xalt.mapping import filter_env

    paths = sorted(Path(folder).glob("run.*.json"))
    envs = [json.loads(p.read_text())["envT"] for p in paths]
    redacted = 0
    started = time.perf_counter()
    if step == "parse":
        for path in paths:
            report = LoadReport(str(path), "xalt-json")
            sum(1 for _ in parse_json(path, report))
            redacted += report.extra.get("xalt", {}).get("env_values_redacted", 0)
    else:
        redacted = sum(filter_env(env, "filtered")[1] for env in envs)
    return {"ms_per_file": 1000 * (time.perf_counter() - started) / len(paths),
            "redacted": redacted}


def measure(size: int, prepared: dict) -> dict:
    out = {}
    for name in SETS:
        for step in ("parse", "filter"):
            proc = subprocess.run([sys.executable, __file__, "--one",
                                   str(Path(prepared["folder"]) / name), step],
                                  capture_output=True, text=True, check=True)
            result = json.loads(proc.stdout.strip().splitlines()[-1])
            out[f"{step}_ms_{name}"] = result["ms_per_file"]
            out[f"{step}_redacted_{name}"] = result["redacted"]
    return {"seconds": out["parse_ms_realistic"] * size / 1000, **out}


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        print(json.dumps(one(*sys.argv[2:4])))
    else:
        harness.main(__doc__, "secrets", measure, SIZES, prepare)
