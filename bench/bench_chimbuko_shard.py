"""How long does the real XGC shard's stand-in (bench/gen_xgc_shard.py: a Chimbuko provDB
shard with the real 74 MB shard's counts) take to load, beside an older stand-in?

    .venv/bin/python bench/bench_chimbuko_shard.py [--old-stand-in 3c78f0a] [--base main]

SIZE is the percentage of the real shard's counts (100: all of them). Each run loads a
stand-in of 1% first (untimed: the server's query plans warm, as for a user's second
load), then the stand-in into an emptied graph with ``lin.load``; with ``--old-stand-in
REV`` the stand-in REV's bench/gen_xgc_shard.py writes (with its defaults) too, in the same
process, the two alternating which goes first. After the stand-in's load, the graph's counts
of what ``gen_xgc_shard.REAL_SHARD`` counts (``graph_executions``...).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import gen_xgc_shard
import harness

SIZES = {"smoke": 1, "default": 100}
#: The graph's counts after the stand-in's load, named as ``gen_xgc_shard.REAL_SHARD``.
GRAPH_COUNTS = {
    "executions": "MATCH (n:FunctionExecution) RETURN count(n) AS n",
    "caller links": "MATCH ()-[r:CALLED_BY]->() RETURN count(r) AS n",
    "window links": "MATCH ()-[r:FOLLOWED_BY]->() RETURN count(r) AS n",
    "messages": "MATCH ()-[r:SENT_MESSAGE]->() RETURN count(r) AS n",
    "ranks": "MATCH (n:Rank) RETURN count(n) AS n",
    "functions": "MATCH (n:Function) RETURN count(n) AS n",
}


def old_stand_in(rev: str, folder: Path) -> str:
    script = folder / "gen_xgc_shard_old.py"
    script.write_text(subprocess.run(
        ["git", "-C", str(harness.THIS), "show", f"{rev}:bench/gen_xgc_shard.py"],
        check=True, capture_output=True, text=True).stdout)
    env = dict(os.environ)
    env.setdefault("LINEAGE_CORPUS", str(harness.THIS.parent / "shared"))
    subprocess.run([sys.executable, str(script), "--out", str(folder / "old")], check=True,
                   env=env, capture_output=True)
    return str(folder / "old" / "provdb.0.unqlite")


def prepare(size: int, folder: Path, options: dict) -> dict:
    path = folder / "new" / "provdb.0.unqlite"
    gen_xgc_shard.write(path, size / 100)
    warm = folder / "warm" / "provdb.0.unqlite"
    gen_xgc_shard.write(warm, 0.01)
    out = {"new": str(path), "warm": str(warm)}
    if options["old_stand_in"]:
        out["old"] = old_stand_in(options["old_stand_in"], folder)
    return out


def extra(ap) -> None:
    ap.add_argument("--old-stand-in", metavar="REV", help="also load REV's stand-in")


def measure(size: int, prepared: dict) -> dict:
    stand_ins = {"new": prepared["new"]}
    if prepared.get("old_stand_in"):
        stand_ins["old"] = prepared["old"]
    order = sorted(stand_ins, reverse=bool(prepared["round"] % 2))
    out = {}
    with harness.connect() as lin:
        lin.reset(force=True)
        lin.load([prepared["warm"]])
        for name in order:
            lin.reset(force=True)
            figures = harness.load_figures(lin, [stand_ins[name]])
            out[f"seconds_{name}"] = figures["seconds"]
            out[f"elements_{name}"] = figures["elements"]
            out[f"megabytes_{name}"] = Path(stand_ins[name]).stat().st_size / 1e6
            if name == "new":  # what the graph holds, in the real shard's words
                out.update({f"graph_{key.replace(' ', '_')}": lin.query(cypher)[0]["n"]
                            for key, cypher in GRAPH_COUNTS.items()})
    if "seconds_old" in out:
        out["old_over_new"] = out["seconds_old"] / out["seconds_new"]
    return {"seconds": out["seconds_new"], **out}


if __name__ == "__main__":
    harness.main(__doc__, "chimbuko_shard", measure, SIZES, prepare, extra)
