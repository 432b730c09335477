"""Benchmark the Pegasus BP path: parse rate, write rate and peak memory, side by side.

    python bench/bench_bp.py --events 1000000

Runs three stages on one generated stream, each in a fresh subprocess so that its peak
memory (ru_maxrss) is its own: (1) parse only, (2) parse into the spool, (3) the full load
into Neo4j (NEO4J_URI if set, else a managed server under bench/out/state, stopped at the
end). Prints events/s, graph elements/s and peak RSS, and the ratios between stages.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import private_server


def stage(name: str, path: str) -> dict:
    from lineage.sources.base import LoadReport
    from lineage.sources.pegasus.bp import parse
    from lineage.load.inputs import Input
    from lineage.load.pipeline import load_input, parse_to_spool

    fmt_report = LoadReport(path, "pegasus-bp")
    t0 = time.perf_counter()
    out: dict = {"stage": name}
    if name == "parse":
        records = sum(1 for _ in parse(Path(path), fmt_report))
        out["records"] = records
    elif name == "spool":
        from lineage.sources.registry import detect

        spool = parse_to_spool(Input(path, detect(Path(path)), True), fmt_report)
        out["records"] = sum(spool.node_counts.values()) + sum(spool.edge_counts.values())
        spool.close()
    else:
        from lineage.api import connect
        from lineage.sources.registry import detect
        from lineage.load.writer import Writer, ensure_schema

        lin = connect()
        lin.reset()
        writer = Writer(lin.graph.driver, lin.graph.database)
        ensure_schema(writer.driver, writer.database)
        t0 = time.perf_counter()
        result = load_input(writer, Input(path, detect(Path(path)), True))
        out["records"] = sum(result.nodes.values()) + sum(result.edges.values())
        counts = lin.query("MATCH (n:Lineage) RETURN count(n) AS n")[0]["n"]
        rels = lin.query("MATCH (:Lineage)-[r]->(:Lineage) RETURN count(r) AS n")[0]["n"]
        out["graph_nodes"], out["graph_relationships"] = counts, rels
        lin.close()
    out["seconds"] = time.perf_counter() - t0
    out["events"] = fmt_report.extra.get("events") and sum(fmt_report.extra["events"].values())
    out["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description="Pegasus BP parse/write benchmark")
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--stage", help=argparse.SUPPRESS)
    ap.add_argument("--file", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.stage:
        print(json.dumps(stage(args.stage, args.file)))
        return
    from gen_bp import generate

    out_dir = HERE / "out"
    out_dir.mkdir(exist_ok=True)
    path = out_dir / f"bench-{args.events}.bp"
    if not path.exists():
        generate(path, args.events)
    results = {}
    with private_server.environment(out_dir / "state") as env:
        for name in ("parse", "spool", "load"):
            proc = subprocess.run([sys.executable, __file__, "--stage", name, "--file",
                                   str(path)], capture_output=True, text=True, env=env)
            if proc.returncode != 0:
                sys.exit(proc.stderr)
            results[name] = json.loads(proc.stdout.strip().splitlines()[-1])
    parse, spool, load = results["parse"], results["spool"], results["load"]
    events = parse["events"]
    elements = load["graph_nodes"] + load["graph_relationships"]
    print(f"input: {path.name}, {events} events, {path.stat().st_size / 2**20:.0f} MiB")
    print(f"{'stage':8} {'seconds':>8} {'rate':>24} {'peak RSS MiB':>13}")
    print(f"{'parse':8} {parse['seconds']:8.1f} {events / parse['seconds']:14,.0f} events/s {parse['peak_rss_mib']:13.0f}")
    print(f"{'spool':8} {spool['seconds']:8.1f} {events / spool['seconds']:14,.0f} events/s {spool['peak_rss_mib']:13.0f}")
    print(f"{'load':8} {load['seconds']:8.1f} {elements / load['seconds']:10,.0f} elements/s {load['peak_rss_mib']:13.0f}")
    print(f"graph: {load['graph_nodes']} nodes, {load['graph_relationships']} relationships "
          f"from {load['records']} records")
    print(f"ratios: load time / parse time = {load['seconds'] / parse['seconds']:.1f}; "
          f"spool time / parse time = {spool['seconds'] / parse['seconds']:.2f}; "
          f"load peak RSS / parse peak RSS = {load['peak_rss_mib'] / parse['peak_rss_mib']:.2f}")


if __name__ == "__main__":
    main()
