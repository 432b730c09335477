"""Ancestry and descent on HPC-shaped DAGs, side by side in one run on the same graph and the
same start nodes, rows delivered to the caller:

- ``lin.query`` (every row into Python), ``lin.query_page`` (what ``lineage query`` shows by
  default: 100 rows and the counts per kind, depth and status), and the CLI itself (a
  process per question, 5 start nodes);
- the same template inside Neo4j, only counting (the engine alone);
- networkx in memory (the graph already loaded), a breadth-first search with depths;
- PostgreSQL: a recursive CTE over an edge table with an index on each column, as the Swift
  provenance database's ``ancestors()`` does it, rows fetched with psycopg (a real server
  started by the script; Debian's postgresql, which scripts/setup.sh installs).

Depths 3, 10, 100 and unbounded; median and 95th percentile over the start nodes, each way
asked once first, unmeasured (its statement planned: a plan costs 0.5-0.9 s once per server
start, which would otherwise land in the p95 of whichever way came first). The
results go to ``bench/results/queries-<shape>-<n>.json``; ``bench/plot_queries.py`` draws them.

    .venv/bin/python bench/bench_queries.py SHAPE N [STARTS]     # e.g. montage 100000 30
"""

from __future__ import annotations

import json
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import networkx as nx

import lineage

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import legacy_bounded  # noqa: E402
from gen_shapes import generate  # noqa: E402

PREFIX = "prov:entity:bench-q-"
DEPTHS = (3, 10, 100, None)
CLI_STARTS = 5
#: bounded questions also the way the API answered them before (bench/legacy_bounded.py)
BEFORE = "lin.query before (levels from Python)"


def build(lin, n: int, edges: list[tuple[int, int]]) -> None:
    # the model's constraints and indexes first: on a fresh server (no load yet) every
    # uid look-up below, and every question after, would scan the label instead
    from lineage.load.writer import ensure_schema

    ensure_schema(lin.graph.driver, lin.graph.database)
    rows = [{"uid": f"{PREFIX}{i}", "id": i} for i in range(n)]
    for i in range(0, n, 10_000):
        lin.write("UNWIND $rows AS r CREATE (:Lineage:Entity:ProvEntity {uid: r.uid, "
                  "kind: 'ProvEntity', identifier: 'bench-' + toString(r.id)})",
                  {"rows": rows[i:i + 10_000]})
    pairs = [{"a": f"{PREFIX}{a}", "b": f"{PREFIX}{b}"} for a, b in edges]
    for i in range(0, len(pairs), 10_000):
        lin.write("UNWIND $rows AS r MATCH (a:Lineage {uid: r.a}), (b:Lineage {uid: r.b}) "
                  "CREATE (a)-[:WAS_DERIVED_FROM]->(b)", {"rows": pairs[i:i + 10_000]})


#: relationships deleted per transaction by clean()
CLEAN_BATCH = 50_000


def clean(lin) -> None:
    # relationships first, a bounded batch per transaction until none is left: a node's
    # DETACH DELETE takes all its relationships in one transaction, past the server's memory
    # for a Montage co-add of 10^6 nodes, and `MATCH ... CALL { DELETE } IN TRANSACTIONS`
    # over a fleet's 6.5 M relationships ran out of it too (the match is held whole)
    with lin.graph.driver.session(database=lin.graph.database) as session:
        while session.run("MATCH (x:ProvEntity)-[r]->() WHERE x.uid STARTS WITH $p "
                          "WITH r LIMIT $batch DELETE r RETURN count(*) AS n",
                          p=PREFIX, batch=CLEAN_BATCH).single()["n"]:
            pass
        session.run("MATCH (x:ProvEntity) WHERE x.uid STARTS WITH $p "
                    "CALL (x) { DETACH DELETE x } IN TRANSACTIONS OF 10000 ROWS",
                    p=PREFIX).consume()


CTE = {
    True: """WITH RECURSIVE up(id, depth) AS (
  SELECT parent, 1 FROM edge WHERE child = %(uid)s
  UNION
  SELECT e.parent, up.depth + 1 FROM edge e JOIN up ON e.child = up.id WHERE up.depth < %(max)s
) SELECT id, min(depth) FROM up GROUP BY id""",
    False: """WITH RECURSIVE down(id, depth) AS (
  SELECT child, 1 FROM edge WHERE parent = %(uid)s
  UNION
  SELECT e.child, down.depth + 1 FROM edge e JOIN down ON e.parent = down.id
  WHERE down.depth < %(max)s
) SELECT id, min(depth) FROM down GROUP BY id""",
}


def postgres(edges: list[tuple[str, str]]):
    from tests.swift_pg import PostgresServer
    import psycopg

    # SIGTERM (a killed benchmark) ends the script through its `finally`, which stops the
    # server: the default action would leave it running
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    server = PostgresServer().start()
    conn = psycopg.connect(server.url())
    conn.execute("CREATE TABLE edge (child text, parent text)")
    with conn.cursor().copy("COPY edge (child, parent) FROM STDIN") as copy:
        for child, parent in edges:
            copy.write_row((child, parent))
    conn.execute("CREATE INDEX edge_child ON edge (child)")
    conn.execute("CREATE INDEX edge_parent ON edge (parent)")
    conn.execute("ANALYZE edge")
    conn.commit()

    def run(uid: str, depth: int | None, upstream: bool):
        return conn.execute(CTE[upstream], {"uid": uid, "max": depth or 10**9}).fetchall()
    return server, run


def timed(fn, starts) -> dict:
    seconds, rows = [], []
    for uid in starts:
        t0 = time.perf_counter()
        rows.append(fn(uid))
        seconds.append(time.perf_counter() - t0)
    seconds.sort()
    return {"median_ms": statistics.median(seconds) * 1000,
            "p95_ms": seconds[min(len(seconds) - 1, round(0.95 * (len(seconds) - 1)))] * 1000,
            "rows": rows}


def cli_runner(env: dict):
    def run(name: str, uid: str, depth: int | None) -> int:
        args = [sys.executable, "-m", "lineage", "query", name, "-p", f"uid={uid}"]
        if depth is not None:
            args += ["-p", f"max_depth={depth}"]
        done = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(args)}: exit {done.returncode}\n{done.stderr}")
        return len(done.stdout.splitlines())
    return run


def main(shape: str, n: int, starts_count: int = 30) -> None:
    n, edges = generate(shape, n)
    uid_edges = [(f"{PREFIX}{a}", f"{PREFIX}{b}") for a, b in edges]
    graph = nx.DiGraph(uid_edges)
    rng = random.Random(11)
    with_parents = sorted({a for a, _ in uid_edges})
    with_children = sorted({b for _, b in uid_edges})
    starts = {True: rng.sample(with_parents, min(starts_count, len(with_parents))),
              False: rng.sample(with_children, min(starts_count, len(with_children)))}
    out = {"shape": shape, "nodes": n, "edges": len(edges), "starts": starts_count,
           "results": []}
    with lineage.connect() as lin:
        clean(lin)
        t0 = time.perf_counter()
        build(lin, n, edges)
        print(f"{shape}: {n} nodes, {len(edges)} edges built in {time.perf_counter() - t0:.1f} s")
        server, cte = postgres(uid_edges)
        env = dict(os.environ)
        cli = cli_runner(env)
        try:
            for upstream in (True, False):
                name = "ancestors" if upstream else "descendants"
                for depth in DEPTHS:
                    bound = {} if depth is None else {"max_depth": depth}
                    template = lineage.query.templates.get(name)
                    ways = {
                        "lin.query": lambda u: len(lin.query(name, uid=u, **bound)),
                        "lin.query_page": lambda u: lin.query_page(
                            name, {"uid": u, **bound}).total,
                        "inside Neo4j, count": lambda u: lin.graph.run(
                            "CALL () { " + template.text + " } RETURN count(*) AS n",
                            template.bind({"uid": u, "max_depth": depth}))[0]["n"],
                        "networkx": lambda u: sum(
                            1 for _ in nx.single_source_shortest_path_length(
                                graph if upstream else graph.reverse(copy=False), u,
                                cutoff=depth)) - 1,
                        "PostgreSQL CTE": lambda u: len(cte(u, depth, upstream)),
                    }
                    if depth is not None:  # the API before the templates bounded the search
                        ways[BEFORE] = lambda u: len(legacy_bounded.bounded_lineage(
                            lin, u, depth, upstream))
                    for fn in ways.values():  # each statement planned once, not measured
                        fn(starts[upstream][0])
                    results = {way: timed(fn, starts[upstream]) for way, fn in ways.items()}
                    cli_rows = timed(lambda u: cli(name, u, depth), starts[upstream][:CLI_STARTS])
                    answers = {way: r["rows"] for way, r in results.items()}
                    assert len({tuple(v) for v in answers.values()}) == 1, answers  # one answer
                    rows = statistics.median(answers["lin.query"])
                    row = {"direction": name, "max_depth": depth, "median_rows": rows,
                           **{way: {k: r[k] for k in ("median_ms", "p95_ms")}
                              for way, r in results.items()},
                           "CLI (process, 5 starts)": {k: cli_rows[k]
                                                       for k in ("median_ms", "p95_ms")}}
                    out["results"].append(row)
                    pg = row["PostgreSQL CTE"]["median_ms"]
                    print(f"\n{name} max_depth={depth}: median {rows:.0f} rows")
                    for way in [*ways, "CLI (process, 5 starts)"]:
                        m, p = row[way]["median_ms"], row[way]["p95_ms"]
                        print(f"  {way:26} {m:9.1f} {p:9.1f}   PostgreSQL/this {pg / m:6.2f}")
            results = HERE / "results"  # written before the clean, which may fail
            results.mkdir(exist_ok=True)
            path = results / f"queries-{shape}-{n}.json"
            path.write_text(json.dumps(out, indent=1))
            print(f"\nwritten {path}")
        finally:
            try:
                clean(lin)
            finally:  # the PostgreSQL server stops even when the clean fails
                server.stop()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), *(int(a) for a in sys.argv[3:4]))
