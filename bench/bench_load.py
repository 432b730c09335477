"""Loading through the driver, before and after issue 14, side by side on the same input.

    python bench/bench_load.py --events 200000 --variants after,before,after,before
    python bench/bench_load.py --file provdb.0.unqlite     # any input lineage can load

Each variant runs in a fresh subprocess on an emptied graph (NEO4J_URI if set, else the
managed server of LINEAGE_HOME, default bench/out/state, stopped at the end), loading the
same input with ``pipeline.load_input``:

- ``before``: the writer as it was (bench/legacy_writer.py: MERGE plans with Eager steps,
  2,000-row batches);
- ``unfolded``: lineage/writer.py with every relationship record sent as a row of its own
  (``fold_edges=False``: the writer before relationship rows were folded per batch);
- ``after``: lineage/writer.py (Eager-free MERGE, CREATE of nodes known new, 2,000-row
  batches, relationship rows grouped by type, ordered by end node and folded: one row per
  relationship stated several times in a batch), and, for a file of 16 MiB or more, the
  nodes written while the file is still being read (lineage/early_nodes.py);
- ``read-then-write``: ``after`` with the whole file read before anything is written
  (``LoadOptions(overlap_bytes=None)``: the pipeline before early_nodes; every variant but
  ``after`` and ``after-merge`` reads first, so that they compare writers alone);
- ``after-merge``: lineage/writer.py on a graph that is not empty (one unrelated node), so
  nothing is known new and every node is MERGEd: what a load into a populated graph gets;
- ``overlap``: the writer with one sender thread (bench/lanes_writer.py, ``threads=1``):
  reading the spool and building rows overlaps with waiting on the server;
- ``parallel``: two sender threads (``threads=2``), each with its own session and
  transactions: nodes split by uid hash, relationships by their end node's hash.

Also prints the driver's transaction retries (deadlocks, dropped connections) and, for the
managed server, its CPU seconds during the load (how busy the 2 cores were on its side).

Prints seconds, graph elements/s, the write's share and peak RSS of each, and the ratios.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import private_server

VARIANTS = ("before", "unfolded", "after", "read-then-write", "after-merge", "overlap",
            "parallel")
THREADS = {"overlap": 1, "parallel": 2}


def _clear(lin) -> None:
    """Empty the graph in small transactions (a reset of a big graph can exceed the
    transaction memory limit of a small server)."""
    with lin.graph.driver.session(database=lin.graph.database) as session:
        session.run("MATCH ()-[r]->() CALL (r) { DELETE r } IN TRANSACTIONS OF 10000 ROWS").consume()
        session.run("MATCH (n) CALL (n) { DELETE n } IN TRANSACTIONS OF 10000 ROWS").consume()


class _RetryCount(logging.Handler):
    """Counts the driver's "... will be retried" warnings (a deadlock, a dropped connection)."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record):
        if "will be retried" in record.getMessage():
            self.count += 1


def _server_pid() -> int | None:
    """The managed server's pid (None with NEO4J_URI: its CPU is not measured)."""
    if os.environ.get("NEO4J_URI"):
        return None
    run = Path(os.environ["LINEAGE_HOME"]) / "neo4j" / "run" / "server.json"
    return json.loads(run.read_text()).get("pid") if run.exists() else None


def _cpu(pid: int | None) -> float:
    """User + system CPU seconds of process ``pid`` so far (0 when unknown)."""
    if not pid:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_variant(name: str, path: str) -> dict:
    """Load ``path`` into an emptied graph with the writer of ``name``; timings and counts."""
    from lineage import model
    from lineage.load import pipeline
    from lineage.api import connect
    from lineage.model.records import Node
    from lineage.config.settings import LoadOptions
    from lineage.sources.registry import detect

    if name == "before":
        from legacy_writer import Writer
    elif name in THREADS:
        from lanes_writer import LanesWriter as Writer
    else:
        from lineage.load.writer import Writer
    from lineage.load.writer import ensure_schema

    lin = connect()
    _clear(lin)
    ensure_schema(lin.graph.driver, lin.graph.database)
    writer = Writer(lin.graph.driver, lin.graph.database)
    writer.threads = THREADS.get(name, 0)
    writer.fold_edges = name != "unfolded"  # the legacy writer never folds
    retries = _RetryCount()
    logging.getLogger("neo4j").addHandler(retries)
    if name == "after-merge":
        host = model.kind("Host")
        writer.write_nodes([Node(host, host.uid("bench-other-host"), {"name": "bench-other-host"})])
    spent = {"write": 0.0, "nodes": 0.0, "edges": 0.0}

    def timed(method, part):
        def run(*args, **kwargs):
            t = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                spent["write"] += time.perf_counter() - t
                spent[part] += time.perf_counter() - t
        return run

    writer.write_nodes = timed(writer.write_nodes, "nodes")
    writer.write_edges = timed(writer.write_edges, "edges")
    server = _server_pid()
    cpu0, t0 = _cpu(server), time.perf_counter()
    client0 = time.process_time()
    # nodes written while reading only where the variant says so (the others compare writers)
    options = LoadOptions(overlap_bytes=None if name not in ("after", "after-merge") else 16 << 20)
    result = pipeline.load_input(writer, pipeline.Input(path, detect(Path(path)), True),
                                 options=options)
    seconds = time.perf_counter() - t0
    client_cpu, server_cpu = time.process_time() - client0, _cpu(server) - cpu0
    nodes = lin.query("MATCH (n:Lineage) RETURN count(n) AS n")[0]["n"]
    rels = lin.query("MATCH (:Lineage)-[r]->(:Lineage) RETURN count(r) AS n")[0]["n"]
    lin.close()
    return {"variant": name, "status": result.status, "seconds": seconds,
            "write_seconds": spent["write"], "node_seconds": spent["nodes"],
            "edge_seconds": spent["edges"], "client_cpu": client_cpu,
            "server_cpu": server_cpu, "retries": retries.count, "nodes": nodes, "relationships": rels,
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=200_000)
    ap.add_argument("--file", help="load this input instead of a generated BP stream")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--base", default="before", help="the variant the others are compared to")
    ap.add_argument("--variant", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.variant:
        print(json.dumps(run_variant(args.variant, args.file)))
        return
    out_dir = HERE / "out"
    out_dir.mkdir(exist_ok=True)
    if args.file:
        path = Path(args.file).resolve()
    else:
        from gen_bp import generate

        path = out_dir / f"bench-{args.events}.bp"
        if not path.exists():
            generate(path, args.events)
    results = []
    with private_server.environment(out_dir / "state") as env:
        for name in args.variants.split(","):
            proc = subprocess.run([sys.executable, __file__, "--variant", name, "--file",
                                   str(path)], capture_output=True, text=True, env=env)
            if proc.returncode != 0:
                sys.exit(proc.stderr)
            results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
            print(json.dumps(results[-1]), file=sys.stderr, flush=True)
    print(f"input: {path.name}, {path.stat().st_size / 2**20:.0f} MiB")
    print(f"{'variant':12} {'status':7} {'seconds':>8} {'write s':>8} {'nodes s':>8} {'rels s':>8} {'elements/s':>11} "
          f"{'nodes':>8} {'rels':>8} {'peak RSS MiB':>13} {'client cpu':>10} {'server cpu':>10} "
          f"{'retries':>7}")
    for r in results:
        elements = r["nodes"] + r["relationships"]
        print(f"{r['variant']:12} {r['status']:7} {r['seconds']:8.1f} {r['write_seconds']:8.1f} "
              f"{r['node_seconds']:8.1f} {r['edge_seconds']:8.1f} "
              f"{elements / r['seconds']:11,.0f} {r['nodes']:8} {r['relationships']:8} "
              f"{r['peak_rss_mib']:13.0f} {r['client_cpu']:10.1f} {r['server_cpu']:10.1f} "
              f"{r['retries']:7}", flush=True)
    # the first load into a just-started server also warms it (JIT, page cache): name the
    # variants more than once (--variants after,before,after,before) and compare the best
    best: dict[str, dict] = {}
    for r in results:
        if r["variant"] not in best or r["seconds"] < best[r["variant"]]["seconds"]:
            best[r["variant"]] = r
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    base = best.get(args.base)
    if base:
        for name, r in best.items():
            if name != args.base:
                print(f"{name} vs {args.base} (best of each): load {base['seconds'] / r['seconds']:.2f}x, "
                      f"write {base['write_seconds'] / r['write_seconds']:.2f}x faster")


if __name__ == "__main__":
    main()
