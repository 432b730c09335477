"""First loads into an empty graph: `load --bulk` (neo4j-admin import) against the driver path
and a one-transaction-per-record floor, side by side on one generated Pegasus BP stream (or
on any input lineage loads, ``--input``).

    python bench/bench_bulk.py --events 120000        # about 10^5 graph elements
    python bench/bench_bulk.py --events 1200000       # about 10^6 (long on 2 cores)
    python bench/bench_bulk.py --input provdb.0.unqlite --variants bulk,driver   # any input
    python bench/bench_bulk.py --base /tmp/lineage-base --variants base-bulk,bulk,base-bulk,bulk

Each variant runs in a fresh subprocess against the managed server of LINEAGE_HOME (default
bench/out/state; ``--bulk`` stops and restarts it, so NEO4J_URI is not used), on an emptied
graph:

- ``bulk``: ``lin.load([input], bulk=True)``: parse, fold, CSV, stop, import, start, schema;
- ``driver``: ``lin.load([input])``: the normal load (lineage/writer.py);
- ``per-record``: the writer with one transaction per record, on the first ``--floor``
  node records and the edge records between them (the rate a naive loader gets; the whole
  input would take hours);
- ``bulk-disk``: ``bulk`` with a fold budget of ``--budget`` graph elements
  (``LoadOptions.bulk_fold_elements``): past it the fold goes to disk, partition by
  partition (lineage/bulk/partitions.py), so its peak RSS should not grow with the input;
- ``base-bulk``, ``base-driver``: ``bulk`` and ``driver`` with the package of another
  checkout (``--base``), for before/after comparisons in one run.

Prints graph elements/s, seconds and peak RSS (this process; and its children, i.e. the
neo4j-admin JVM, for ``bulk``) and the ratios, and the ceiling: ``neo4j-admin database
import`` alone, from the bulk runs' phases (the import and start, less the start). Writes
them to ``bench/results/ingest-<input>.json`` (``--out``), which ``bench/plot_ingest.py``
draws.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
# the package measured: this checkout's, or another's for the base-* variants
sys.path.insert(0, os.environ.get("BENCH_LINEAGE_ROOT") or str(HERE.parent))


def _clear(lin) -> None:
    """Empty the graph in small transactions (``reset`` of a 10^6-element graph can exceed
    the transaction memory limit of the managed server's default settings)."""
    with lin.graph.driver.session(database=lin.graph.database) as session:
        session.run("MATCH ()-[r]->() CALL (r) { DELETE r } IN TRANSACTIONS OF 10000 ROWS").consume()
        session.run("MATCH (n) CALL (n) { DELETE n } IN TRANSACTIONS OF 10000 ROWS").consume()


def run_variant(name: str, path: str, floor: int, budget: int) -> dict:
    from lineage.api import connect

    phases: dict[str, float] = {}
    name = name.removeprefix("base-")
    options = None
    if name == "bulk-disk":
        from lineage.config.settings import LoadOptions

        name, options = "bulk", LoadOptions(bulk_fold_elements=budget)
    if name == "bulk":  # where the time goes: CSV, stop + import + start, schema
        from lineage import bulk, server
        from lineage.bulk import admin, spill

        def timed(module, attr, label):
            real = getattr(module, attr)

            def run(*args, **kwargs):
                t = time.perf_counter()
                try:
                    return real(*args, **kwargs)
                finally:
                    phases[label] = phases.get(label, 0) + time.perf_counter() - t
            setattr(module, attr, run)
        timed(bulk, "parse_to_spool", "parse")
        timed(spill.Fold, "write_csv", "csv")  # the CSV, and past the budget the fold on disk
        if hasattr(server, "BackgroundStop"):  # the stop overlaps the parse: what was left
            timed(server.BackgroundStop, "wait", "stop (waited)")
            timed(admin, "import_full", "import+start")
            timed(server, "_restart", "of which start")
        else:
            timed(admin, "import_full", "stop+import+start")
        timed(bulk, "ensure_schema", "schema")
    lin = connect()
    _clear(lin)
    t0 = time.perf_counter()
    if name in ("bulk", "driver"):
        [result] = lin.load([path], bulk=name == "bulk", options=options)
        assert result.status == "loaded", result.as_dict()
        seconds = time.perf_counter() - t0
    else:
        from lineage.load import pipeline
        from lineage.sources.base import LoadReport
        from lineage.sources.registry import detect
        from lineage.load.writer import Writer, ensure_schema

        ensure_schema(lin.graph.driver, lin.graph.database)
        fmt = detect(Path(path))
        spool = pipeline.parse_to_spool(pipeline.Input(path, fmt, True),
                                        LoadReport(path, fmt.name))
        nodes = []
        for node in spool.iter_nodes():
            nodes.append(node)
            if len(nodes) >= floor:
                break
        uids = {n.uid for n in nodes}
        edges = [e for e in spool.iter_edges() if e.start in uids and e.end in uids]
        spool.close()
        writer = Writer(lin.graph.driver, lin.graph.database, batch_size=1)
        t0 = time.perf_counter()
        writer.write_nodes(nodes, "floor:1")
        writer.write_edges(edges, "floor:1")
        seconds = time.perf_counter() - t0
    count = lin.query("CALL () { MATCH (n:Lineage) RETURN count(n) AS n } "
                      "CALL () { MATCH (:Lineage)-[r]->(:Lineage) RETURN count(r) AS r } "
                      "RETURN n, r")[0]
    lin.close()
    return {"variant": name, "seconds": seconds, "phases": phases, "nodes": count["n"], "relationships": count["r"],
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "children_peak_rss_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}


def ceiling(run: dict) -> dict | None:
    """``neo4j-admin database import`` alone in a bulk run: its import and start phase less
    the start (None when the run has no such phases, e.g. a base checkout's older timers)."""
    phases = run.get("phases") or {}
    if "import+start" not in phases or "of which start" not in phases:
        return None
    seconds = phases["import+start"] - phases["of which start"]
    elements = run["nodes"] + run["relationships"]
    return {"seconds": seconds, "elements": elements, "rate": elements / seconds}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=120_000)
    ap.add_argument("--floor", type=int, default=3000, help="node records of the per-record run")
    ap.add_argument("--variants", default="bulk,driver,per-record")
    ap.add_argument("--input", help="an input file to load instead of a generated BP stream")
    ap.add_argument("--base", help="another checkout, for the base-* variants")
    ap.add_argument("--budget", type=int, default=100_000,
                    help="the fold budget of the bulk-disk variant (graph elements)")
    ap.add_argument("--out", help="results file (default bench/results/ingest-<input>.json)")
    ap.add_argument("--variant", help=argparse.SUPPRESS)
    ap.add_argument("--file", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.variant:
        print(json.dumps(run_variant(args.variant, args.file, args.floor, args.budget)))
        return
    from gen_bp import generate

    out_dir = HERE / "out"
    out_dir.mkdir(exist_ok=True)
    path = Path(args.input).resolve() if args.input else out_dir / f"bench-{args.events}.bp"
    if args.input and not path.is_file():
        sys.exit(f"{args.input}: no such file")
    if not path.exists():
        generate(path, args.events)
    env = dict(os.environ)
    env.setdefault("LINEAGE_HOME", str(out_dir / "state"))
    env.pop("NEO4J_URI", None)
    runs: list[tuple[str, dict]] = []  # a variant named twice runs twice; the best counts
    for name in args.variants.split(","):
        if name.startswith("base-") and not args.base:
            sys.exit(f"variant {name}: needs --base CHECKOUT")
        run_env = dict(env, BENCH_LINEAGE_ROOT=str(Path(args.base).resolve())
                       if name.startswith("base-") else "")
        proc = subprocess.run([sys.executable, __file__, "--variant", name, "--file", str(path),
                               "--floor", str(args.floor), "--budget", str(args.budget)],
                              capture_output=True, text=True,
                              env=run_env)
        if proc.returncode != 0:
            sys.exit(proc.stderr)
        runs.append((name, json.loads(proc.stdout.strip().splitlines()[-1])))
    print(f"input: {path.name}, {path.stat().st_size / 2**20:.0f} MiB; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'variant':11} {'seconds':>8} {'elements':>9} {'elements/s':>11} "
          f"{'peak RSS MiB':>13} {'children MiB':>13}")
    rates: dict[str, float] = {}
    for name, r in runs:
        elements = r["nodes"] + r["relationships"]
        rate = elements / r["seconds"]
        rates[name] = max(rates.get(name, 0.0), rate)
        print(f"{name:11} {r['seconds']:8.1f} {elements:9} {rate:11,.0f} "
              f"{r['peak_rss_mib']:13.0f} {r['children_peak_rss_mib']:13.0f}")
        if r.get("phases"):
            print("  phases (s): " + ", ".join(f"{k} {v:.1f}" for k, v in r["phases"].items()))
    ceilings = [c for name, r in runs if name in ("bulk", "bulk-disk") and (c := ceiling(r))]
    best = max(ceilings, key=lambda c: c["rate"]) if ceilings else None
    if best:
        rates["neo4j-admin"] = best["rate"]
        print(f"{'neo4j-admin':11} {best['seconds']:8.1f} {best['elements']:9} "
              f"{best['rate']:11,.0f}   (the import tool alone: the bulk runs' import and "
              "start, less the start)")
    out = Path(args.out) if args.out else HERE / "results" / f"ingest-{path.stem}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({
        "input": path.name, "input_mib": path.stat().st_size / 2**20,
        "load_average": os.getloadavg()[0], "cores": os.cpu_count(),
        "runs": [dict(r, variant=name) for name, r in runs],
        "ceiling": best}, indent=1))
    print(f"written {out}")
    for a, b in (("bulk", "driver"), ("bulk", "per-record"), ("driver", "per-record"),
                 ("neo4j-admin", "bulk"), ("neo4j-admin", "driver"),
                 ("bulk-disk", "bulk"),
                 ("bulk", "base-bulk"), ("driver", "base-driver")):
        if a in rates and b in rates:
            print(f"{a} / {b}: {rates[a] / rates[b]:.1f}x the elements/s (best of each)")


if __name__ == "__main__":
    main()
