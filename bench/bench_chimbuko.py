"""Benchmark of the Chimbuko loader: records per second and peak memory on a generated export.

Generates a JSON export (an array of ``version: 2`` anomaly records, like the provenance
database's query tools print) with overlapping call stacks and execution windows, then
measures, each in a fresh Python process so peak memory is that phase's own:

- ``parse``: the streamed parse alone (records -> lineage records, nothing written);
- ``load``:  parse + spool + write into Neo4j (a managed server under ``--state`` unless
  ``NEO4J_URI`` is set; the graph is emptied first, so a real server needs ``--reset-ok``).

Usage::

    python bench/bench_chimbuko.py --records 100000
    python bench/bench_chimbuko.py --records 100000 --skip-load

Peak memory is the process's maximum resident set size (``ru_maxrss``); the Neo4j server's
own memory is not included.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WINDOW = 3  # executions before and after an anomaly in its window
PER_STEP = 20  # anomalies per rank and io step


def _record(rank: int, step: int, k: int, n_functions: int) -> dict:
    """One anomaly record: call stack of 3, window of 2*WINDOW+1, one MPI message."""
    idx = 10 + 8 * k
    root, step_root = f"{rank}:0:0", f"{rank}:{step}:1"
    t0 = 1_683_827_500_000_000 + step * 10_000_000 + idx * 1000

    def entry(i: int, anomalous: bool = False) -> dict:
        fid = 10 + (i * 7 + rank) % n_functions
        return {"entry": t0 + (i - idx) * 1000, "event_id": f"{rank}:{step}:{i}",
                "exit": t0 + (i - idx) * 1000 + 500 + (400_000 if anomalous else 0),
                "fid": fid, "func": f"function_{fid}(int, double)", "is_anomaly": anomalous,
                "parent_event_id": step_root}

    me = entry(idx, True)
    window = [entry(i, i == idx) for i in range(idx - WINDOW, idx + WINDOW + 1)]
    stack = [{k2: v for k2, v in me.items() if k2 != "parent_event_id"},
             {"entry": t0 - 5_000_000, "event_id": step_root, "exit": 0, "fid": 2,
              "func": "timestep", "is_anomaly": False},
             {"entry": 1_683_827_400_000_000, "event_id": root, "exit": 0, "fid": 1,
              "func": "main", "is_anomaly": False}]
    return {
        "algo_params": {"histogram": {"Bin Counts": [5, 3, 0, 0, 1] * 4, "Bin width": 996.9,
                                      "First edge": 199162.9, "Max": 398546, "Min": 199163},
                        "internal_global_threshold": 2.31},
        "call_stack": stack,
        "counter_events": [{"counter_idx": 1, "counter_name": "Message size for all-reduce",
                            "counter_value": 8 * k, "pid": 0, "rid": rank, "tid": 0, "ts": t0 + 10}],
        "entry": me["entry"], "event_id": me["event_id"],
        "event_window": {
            "comm_window": [{"bytes": 64, "execdata_key": f"{rank}:{step}:{idx - 1}", "pid": 0,
                             "rid": rank, "src": rank, "tag": 7, "tar": (rank + 1) % 8, "tid": 0,
                             "timestamp": t0 - 900, "type": "SEND"}],
            "exec_window": window},
        "exit": me["exit"], "fid": me["fid"], "func": me["func"],
        "gpu_location": None, "gpu_parent": None, "hostname": f"node{rank // 4:03d}",
        "io_step": step, "io_step_tend": t0 + 9_000_000, "io_step_tstart": t0 - 1_000_000,
        "is_gpu_event": False,
        "node_state": {"data": [{"field": "Threads", "value": 5},
                                {"field": "meminfo:MemFree (MB)", "value": 8583}],
                       "timestamp": t0},
        "outlier_score": 100.0 + k, "outlier_severity": 400_000 + k,
        "pid": 0, "rid": rank, "runtime_exclusive": 400_500, "runtime_total": 400_500,
        "tid": 0, "version": 2,
    }


def generate(path: Path, n_records: int, ranks: int = 8, n_functions: int = 200) -> int:
    """Write an export of ``n_records`` records to ``path`` (streamed); returns its size."""
    written = 0
    with open(path, "w") as out:
        out.write("[\n")
        step = 0
        while written < n_records:
            for rank in range(ranks):
                for k in range(PER_STEP):
                    if written >= n_records:
                        break
                    if written:
                        out.write(",\n")
                    out.write(json.dumps(_record(rank, step, k, n_functions)))
                    written += 1
            step += 1
        out.write("\n]\n")
    return path.stat().st_size


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def phase_parse(path: Path) -> dict:
    from lineage.sources.chimbuko import mapping as chimbuko
    from lineage.sources.base import LoadReport

    report = LoadReport(str(path), "chimbuko-json")
    t0 = time.perf_counter()
    nodes = edges = 0
    for rec in chimbuko.parse_json(path, report):
        if hasattr(rec, "uid"):
            nodes += 1
        else:
            edges += 1
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "records": report.extra["records"]["anomalies"],
            "node_records": nodes, "edge_records": edges, "peak_rss_mb": _peak_mb()}


def phase_load(path: Path, state: Path, reset_ok: bool) -> dict:
    from lineage import server
    from lineage.api import Lineage
    from lineage.server.connection import Graph, Settings

    started = False
    if os.environ.get("NEO4J_URI"):
        if not reset_ok:
            raise SystemExit("NEO4J_URI is set: the benchmark empties that graph; pass --reset-ok")
        settings = Settings.from_env(start_managed=False)
    else:
        info = server.start(state)
        started = True
        settings = Settings(info["uri"], info["user"], server.password(state), None, True)
    lin = Lineage(Graph.connect(settings))
    try:
        lin.reset()
        t0 = time.perf_counter()
        [result] = lin.load([path], source="chimbuko")
        seconds = time.perf_counter() - t0
        counts = lin.query("MATCH (n:Lineage) RETURN count(n) AS n")[0]["n"]
        rels = lin.query("MATCH ()-[r]->() RETURN count(r) AS n")[0]["n"]
        anomalies = lin.query("MATCH (a:Anomaly) RETURN count(a) AS n")[0]["n"]
    finally:
        lin.close()
        if started:
            server.stop(state)
    return {"seconds": seconds, "records": result.report["records"]["anomalies"],
            "graph_nodes": counts, "graph_relationships": rels, "anomaly_nodes": anomalies,
            "unresolved_edges": result.write.unresolved_edges, "peak_rss_mb": _peak_mb()}


def _run_phase(args: list[str]) -> dict:
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run([sys.executable, __file__, "_phase", *args], env=env, check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--file", type=Path, help="keep the generated export here")
    parser.add_argument("--state", type=Path, default=REPO / ".bench-state",
                        help="managed Neo4j state directory (when NEO4J_URI is not set)")
    parser.add_argument("--skip-load", action="store_true", help="measure the parse only")
    parser.add_argument("--reset-ok", action="store_true", help="allow emptying NEO4J_URI's graph")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        path = args.file or Path(tmp) / "bench.anomalies.json"
        t0 = time.perf_counter()
        size = generate(path, args.records)
        print(f"generated {args.records} records, {size / 1e6:.1f} MB in "
              f"{time.perf_counter() - t0:.1f} s: {path}")
        parse = _run_phase(["parse", str(path)])
        print(f"parse:      {parse['records']} records in {parse['seconds']:.1f} s = "
              f"{parse['records'] / parse['seconds']:,.0f} records/s "
              f"({size / 1e6 / parse['seconds']:.1f} MB/s; {parse['node_records']} node and "
              f"{parse['edge_records']} edge records); peak RSS {parse['peak_rss_mb']:.0f} MB")
        if not args.skip_load:
            load = _run_phase(["load", str(path), str(args.state), str(args.reset_ok)])
            print(f"parse+load: {load['records']} records in {load['seconds']:.1f} s = "
                  f"{load['records'] / load['seconds']:,.0f} records/s; graph "
                  f"{load['graph_nodes']} nodes ({load['anomaly_nodes']} anomalies), "
                  f"{load['graph_relationships']} relationships, "
                  f"{load['unresolved_edges']} unresolved edges; "
                  f"peak RSS (Python) {load['peak_rss_mb']:.0f} MB")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "_phase":
        kind, path = sys.argv[2], Path(sys.argv[3])
        if kind == "parse":
            print(json.dumps(phase_parse(path)))
        else:
            print(json.dumps(phase_load(path, Path(sys.argv[4]), sys.argv[5] == "True")))
    else:
        main()
