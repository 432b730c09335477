"""Exports of a big run, streamed (``lin.export``) and built in memory (the way before: the
whole subgraph as Python rows, one ``prov`` document / one networkx graph, then serialised),
side by side in one run, for a small and a big workflow: seconds and peak RSS of each export
in a fresh child process, and the ratios.

Generates two synthetic Pegasus workflows with bench/gen_bp.py (about 4 nodes per job),
loads them into the managed graph, exports each as PROV-JSON, PROV-N and GraphML both ways,
and unloads them again.

    .venv/bin/python bench/bench_export.py [SMALL_JOBS] [BIG_JOBS]   # default 2500 25000
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
FORMATS = ("prov-json", "prov-n", "graphml")


def _peak_kb() -> int:
    """Peak resident memory of this process (VmHWM), in KB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise RuntimeError("no VmHWM in /proc/self/status")


def child(mode: str, fmt: str, uid: str, out: str) -> None:
    """Run one export and print its seconds and the process's peak RSS (KB)."""
    import lineage

    with lineage.connect() as lin:
        # a forked child starts with its parent's peak RSS: reset the high-water mark
        Path("/proc/self/clear_refs").write_text("5")
        base = _peak_kb()
        t0 = time.perf_counter()
        if mode == "streamed":
            lin.export(uid, out, fmt=fmt)
        else:  # the whole subgraph in memory first
            from lineage.answers import exchange

            nodes, edges = lin.subgraph_rows(uid)
            if fmt == "graphml":
                import networkx as nx

                def flat(props: dict) -> dict:
                    return {k: json.dumps(v) if isinstance(v, (list, dict)) else v
                            for k, v in props.items() if v is not None}

                graph = nx.MultiDiGraph()
                for n in nodes:
                    graph.add_node(n["uid"], **flat({**(n["properties"] or {}), "kind": n["kind"]}))
                for e in edges:
                    graph.add_edge(e["source"], e["target"],
                                   **flat({**(e["properties"] or {}), "type": e["type"]}))
                nx.write_graphml(graph, out)
            else:
                doc = exchange.to_prov(list(nodes), list(edges))
                text = doc.serialize(format="json") if fmt == "prov-json" else doc.get_provn()
                Path(out).write_text(text, encoding="utf-8")
        seconds = time.perf_counter() - t0
        peak = _peak_kb()
    print(json.dumps({"seconds": seconds, "peak_kb": peak, "base_kb": base,
                      "bytes": Path(out).stat().st_size}))


def measure(mode: str, fmt: str, uid: str, out: Path) -> dict:
    done = subprocess.run([sys.executable, __file__, "--child", mode, fmt, uid, str(out)],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(small: int, big: int) -> None:
    sys.path.insert(0, str(HERE))
    import gen_bp
    import lineage

    work = Path(tempfile.mkdtemp(prefix="bench-export-"))
    runs = {}
    with lineage.connect() as lin:
        for label, jobs in (("small", small), ("big", big)):
            path = work / f"{label}.bp"
            gen_bp.generate(path, jobs * gen_bp.EVENTS_PER_JOB)
            text = path.read_text().replace("bench-0000-0000-0000-000000000001",
                                            f"bench-export-{label}")
            path.write_text(text)
            lin.load([path])
            uid = f"pegasus:workflow:bench-export-{label}"
            nodes = len(lin.subgraph_uids(uid))
            runs[label] = (uid, nodes, path)
    try:
        print(f"{'run':6} {'nodes':>7} {'format':9} {'streamed s':>10} {'in-memory s':>11} "
              f"{'streamed peak MB':>16} {'in-memory peak MB':>17} {'peak ratio':>10}")
        for label, (uid, nodes, _) in runs.items():
            for fmt in FORMATS:
                s = measure("streamed", fmt, uid, work / f"s.{fmt}")
                m = measure("in-memory", fmt, uid, work / f"m.{fmt}")
                print(f"{label:6} {nodes:>7} {fmt:9} {s['seconds']:>10.1f} {m['seconds']:>11.1f} "
                      f"{s['peak_kb'] / 1024:>16.0f} {m['peak_kb'] / 1024:>17.0f} "
                      f"{m['peak_kb'] / s['peak_kb']:>10.2f}", flush=True)
    finally:
        with lineage.connect() as lin:
            for _, _, path in runs.values():
                lin.unload(path)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(*sys.argv[2:6])
    else:
        main(*([int(a) for a in sys.argv[1:3]] or [2500, 25000]))
