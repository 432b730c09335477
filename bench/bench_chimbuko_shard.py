"""How long does the real XGC shard's stand-in (bench/gen_xgc_shard.py: a Chimbuko provDB
shard with the real 74 MB shard's counts) take to load, this checkout beside another?

    .venv/bin/python bench/bench_chimbuko_shard.py --base main     # side by side, median of 3
    .venv/bin/python bench/bench_chimbuko_shard.py [--old-stand-in 3c78f0a]

SIZE is the percentage of the real shard's counts (100: all of them). Each run loads a
stand-in of 1% first (untimed: the server's query plans warm, as for a user's second
load), then the stand-in into an emptied graph with ``lin.load``; with ``--old-stand-in
REV`` the stand-in REV's bench/gen_xgc_shard.py writes (with its defaults) too, in the same
process, the two alternating which goes first. After the stand-in's load, the graph's counts
of what ``gen_xgc_shard.REAL_SHARD`` counts (``graph_executions``...), printed at the end
beside the real shard's. Beside the seconds, the CPU seconds the load cost Neo4j's process
(``neo4j_cpu_s``, when the server is the managed one of ``LINEAGE_HOME``) and this process
with its children (``python_cpu_s``: the reader, the UnQLite child, the driver): on a
shared machine they move less with its load than the seconds do.

``--writes-alone``: after each load, the same stand-in's nodes and relationships read into
memory first (untimed), then written into an emptied graph by the loader's writer alone,
nodes then relationships, one thread (``writes_nodes_s``, ``writes_edges_s`` and their
``..._neo4j_cpu_s``): what the load's writes cost without the reader beside them.
"""

from __future__ import annotations

import os
import resource
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
    ap.add_argument("--writes-alone", action="store_true",
                    help="also time the stand-in's writes without the reader")


def neo4j_cpu_seconds() -> float | None:
    """CPU seconds the managed Neo4j's process has used so far (None: not known here)."""
    try:
        pid = int((Path(os.environ["LINEAGE_HOME"]) / "neo4j" / "run" / "neo4j.pid").read_text())
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (KeyError, OSError, ValueError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds() -> float:
    """CPU seconds of this process and its finished children."""
    return sum(resource.getrusage(who).ru_utime + resource.getrusage(who).ru_stime
               for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))


def cpu_figures(lin, paths: list[str]) -> dict:
    """:func:`harness.load_figures` with the CPU seconds of Neo4j and of this process."""
    server, own = neo4j_cpu_seconds(), own_cpu_seconds()
    figures = harness.load_figures(lin, paths)
    after = neo4j_cpu_seconds()
    figures["python_cpu_s"] = own_cpu_seconds() - own
    if server is not None and after is not None:
        figures["neo4j_cpu_s"] = after - server
    return figures


def writes_alone(lin, path: str) -> dict:
    """The stand-in's nodes, then its relationships, written by the loader's writer into an
    emptied graph from records read into memory first: seconds and Neo4j CPU seconds."""
    from lineage.load.writer import Writer
    from lineage.model.records import Node
    from lineage.sources.base import LoadReport
    from lineage.sources.chimbuko.mapping import parse_unqlite

    records = list(parse_unqlite(Path(path), LoadReport(path, "chimbuko-unqlite")))
    nodes = [r for r in records if isinstance(r, Node)]
    edges = [r for r in records if not isinstance(r, Node)]
    del records
    lin.reset(force=True)
    writer = Writer(lin.graph.driver, lin.graph.database)
    out = {}
    for name, step in (("nodes", lambda: writer.write_nodes(nodes, "bench:1")),
                       ("edges", lambda: writer.write_edges(edges, "bench:1"))):
        server = neo4j_cpu_seconds()
        out[f"writes_{name}_s"], _ = harness.timed(step)
        after = neo4j_cpu_seconds()
        if server is not None and after is not None:
            out[f"writes_{name}_neo4j_cpu_s"] = after - server
    lin.reset(force=True)
    return out


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
            out[f"load_average_{name}"] = os.getloadavg()[0]  # the minute before its load
            figures = cpu_figures(lin, [stand_ins[name]])
            out[f"seconds_{name}"] = figures["seconds"]
            for key in ("neo4j_cpu_s", "python_cpu_s"):
                if key in figures:
                    out[f"{key}_{name}"] = figures[key]
            out[f"elements_{name}"] = figures["elements"]
            out[f"megabytes_{name}"] = Path(stand_ins[name]).stat().st_size / 1e6
            if name == "new":  # what the graph holds, in the real shard's words
                out.update({f"graph_{key.replace(' ', '_')}": lin.query(cypher)[0]["n"]
                            for key, cypher in GRAPH_COUNTS.items()})
        if prepared.get("writes_alone"):
            out.update(writes_alone(lin, stand_ins["new"]))
    if "seconds_old" in out:
        out["old_over_new"] = out["seconds_old"] / out["seconds_new"]
    return {"seconds": out["seconds_new"], **out}


def beside_the_real_shard(result: dict) -> list[str]:
    """The graph's counts after the stand-in's load (medians) beside the real shard's."""
    median = result["median"]["this"]
    lines = ["the stand-in once loaded, beside the real shard:"]
    for key, real in gen_xgc_shard.REAL_SHARD.items():
        figure = median.get(f"graph_{key.replace(' ', '_')}")
        if figure is not None:
            scaled = real * result["size"] / 100
            lines.append(f"  {key:16} {figure:9,.0f}   real shard {real:7,}"
                         + (f" (x {result['size']}% = {scaled:,.0f})" if result["size"] != 100 else ""))
    return lines


if __name__ == "__main__":
    result = harness.main(__doc__, "chimbuko_shard", measure, SIZES, prepare, extra)
    if result:
        print("\n".join(beside_the_real_shard(result)))
