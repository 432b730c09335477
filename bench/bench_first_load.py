"""The first load after a server start, with and without a rolled-back warm-up before it.

    python bench/bench_first_load.py --file bench/out/shard-18000/provdb.0.unqlite \\
        --variants warm,cold,warm,cold

The first load into a just-started server is slower than the next ones (the server's JIT
compiles as it goes). Each run here stops the managed server of LINEAGE_HOME (default
bench/out/state-first-load), deletes its ``neo4j`` database (files and transaction logs:
a new database, as a user's first load meets it), starts it, and then:

- ``cold``: runs ``lineage load FILE`` at once;
- ``warm``: first creates the model's schema and writes a small generated Chimbuko shard
  (``--warm-records`` anomaly records) with the loader's own statements inside one
  transaction that is rolled back (nothing reaches the database), then the same load;
- ``restart``: keeps the database: empties the graph the run before loaded (relationships,
  then nodes, in batches; the files keep their size), stops and starts the server, then
  the same load: a cold JVM over store files that need not grow. Put it after another run;
- ``again``: empties the graph the same way and loads again into the same server, without
  a restart (a JVM that has run one load). Put it after another run.

Prints the warm-up's seconds, the load's wall seconds, the server's CPU seconds during the
load and which of its threads spent them (Bolt workers, the JIT's C1 and C2 compilers,
garbage collection), and the medians. Whether a warm-up could pay for itself depends on
both: it only helps where it can run while the server would otherwise wait.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _threads(pid: int) -> Counter:
    """CPU seconds of the server's threads so far, by name without its number
    ("C2 CompilerThre", "neo4j.BoltWorke", "GC Thread", ...)."""
    spent: Counter = Counter()
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            name = (task / "comm").read_text().strip()
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # a thread that ended meanwhile
            continue
        name = re.sub(r"[-#]?\d+$", "", name).strip()
        spent[name] += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return spent


class _OneTransaction:
    """A driver stand-in whose every session writes into one open transaction ``tx``."""

    def __init__(self, tx):
        self.tx = tx

    @contextmanager
    def session(self, database=None):
        yield self

    def execute_write(self, work, *args, **kwargs):
        return work(self.tx, *args, **kwargs)

    execute_read = execute_write

    def run(self, *args, **kwargs):
        return self.tx.run(*args, **kwargs)


def warm_up(info: dict, password: str, shard: Path) -> float:
    """The schema, then ``shard``'s records written by the loader's Writer and rolled back."""
    import neo4j

    from lineage.model.records import Edge, Node
    from lineage.sources.base import LoadReport
    from lineage.sources.chimbuko.mapping import parse_unqlite
    from lineage.load.writer import Writer, ensure_schema

    records = list(parse_unqlite(shard, LoadReport(str(shard), "chimbuko-unqlite")))
    t0 = time.perf_counter()
    with neo4j.GraphDatabase.driver(info["uri"], auth=(info["user"], password)) as driver:
        ensure_schema(driver)  # without the uid index every MATCH of an end is a scan
        with driver.session() as session:
            tx = session.begin_transaction()
            writer = Writer(_OneTransaction(tx))
            writer.write_nodes([r for r in records if isinstance(r, Node)], tag="load:warm-up")
            writer.write_edges([r for r in records if isinstance(r, Edge)], tag="load:warm-up")
            tx.rollback()
    return time.perf_counter() - t0


def _empty(info: dict, password: str) -> None:
    import neo4j

    with neo4j.GraphDatabase.driver(info["uri"], auth=(info["user"], password)) as driver:
        for statement in ("MATCH ()-[r]->() WITH r LIMIT 50000 DELETE r RETURN count(*) AS n",
                          "MATCH (n) WITH n LIMIT 50000 DELETE n RETURN count(*) AS n"):
            while driver.execute_query(statement).records[0]["n"]:
                pass


def run(kind: str, state: Path, path: str, warm_shard: Path) -> dict:
    from lineage import server

    if kind in ("restart", "again"):
        _empty(server.start(state), server.password(state))
    if kind != "again":
        server.stop(state)
        data = state / "neo4j" / "data"
        for part in ("databases/neo4j", "transactions/neo4j"):
            if kind != "restart":
                shutil.rmtree(data / part, ignore_errors=True)
    info = server.start(state)
    pid = server.status(state)["pid"]
    warm = warm_up(info, server.password(state), warm_shard) if kind == "warm" else 0.0
    threads0, cpu0, t0 = _threads(pid), _cpu(pid), time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "lineage", "load", path], capture_output=True,
                          text=True, env=dict(os.environ, LINEAGE_HOME=str(state)))
    if done.returncode:
        raise SystemExit(f"lineage load failed:\n{done.stderr}")
    seconds, server_cpu = time.perf_counter() - t0, _cpu(pid) - cpu0
    threads = _threads(pid)
    threads.subtract(threads0)
    return {"kind": kind, "warm_up_s": round(warm, 2), "load_s": round(seconds, 2),
            "server_cpu_s": round(server_cpu, 1),
            "threads_cpu_s": {name: round(cpu, 1) for name, cpu in threads.most_common(5)}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", required=True, help="the input each run loads")
    ap.add_argument("--variants", default="warm,cold,warm,cold")
    ap.add_argument("--warm-records", type=int, default=300)
    ap.add_argument("--out", help="write the runs as JSON here")
    args = ap.parse_args()
    from bench_chimbuko_shard import write_shard
    from lineage import server

    state = Path(os.environ.get("LINEAGE_HOME", HERE / "out" / "state-first-load"))
    warm_shard = HERE / "out" / f"warm-up-{args.warm_records}" / "provdb.0.unqlite"
    if not warm_shard.exists():
        warm_shard.parent.mkdir(parents=True, exist_ok=True)
        write_shard(warm_shard, args.warm_records)
    runs = []
    try:
        for kind in args.variants.split(","):
            runs.append(run(kind, state, args.file, warm_shard))
            print(json.dumps(runs[-1]), flush=True)
    finally:
        server.stop(state)
    for kind in sorted({r["kind"] for r in runs}):
        mine = [r for r in runs if r["kind"] == kind]
        print(f"{kind}: load median {statistics.median(r['load_s'] for r in mine):.1f} s, "
              f"warm-up + load {statistics.median(r['load_s'] + r['warm_up_s'] for r in mine):.1f}"
              f" s, server CPU {statistics.median(r['server_cpu_s'] for r in mine):.1f} s")
    if args.out:
        Path(args.out).write_text(json.dumps(runs, indent=1))


if __name__ == "__main__":
    main()
