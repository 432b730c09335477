"""The issue-14 questions, this checkout against another one, each through its own
virtualenv, on one server and the same start nodes, beside PostgreSQL and networkx.

    git worktree add --detach /tmp/lineage-pre14 dd329a8     # the tool when issue 14 was filed
    (cd /tmp/lineage-pre14 && LINEAGE_SETUP_TEST_TOOLS=0 bash scripts/setup.sh)
    python bench/bench_query_checkouts.py --base /tmp/lineage-pre14 [--nodes 200000]
        [--width 1000] [--chain 10000] [--starts 30] [--rounds 2] [--cli-runs 5]

Builds, on a managed Neo4j started in a temporary ``LINEAGE_HOME``, a layered DAG of
``--nodes`` nodes (each derived from 2 nodes of the layer above, ``--width`` wide) and a
chain of ``--chain`` nodes, then asks every checkout, in a fresh process of its own
``.venv`` (its own driver, with ``neo4j-rust-ext`` or without, as its ``pyproject.toml``
resolves it), the ancestors of the same ``--starts`` nodes at depth 3, 10 and unbounded
with ``lin.query("ancestors", ...)`` (every row into Python; one unmeasured question first,
which plans the template), the checkouts alternating per round; each question's uids and
depths are hashed, and the hashes of the checkouts must agree. Then the wall time of the
CLI (``lineage query ancestors -p uid=...``, a fresh process each, output discarded).
The same questions on a PostgreSQL recursive CTE over the same edges (indexes on both
columns, a real server started here) and networkx in memory, for the ratios. Median and
p95 ms per question; the last line is a JSON object with every number.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import networkx as nx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import checkouts
from bench_load_checkouts import lineage_command

DAG = "prov:entity:bench-co-dag-"
CHAIN = "prov:entity:bench-co-chain-"

# run by each checkout's own interpreter: argv[1] its root, argv[2] the questions as JSON
CHILD = r"""
import hashlib, json, statistics, sys, time
root, questions = sys.argv[1], json.loads(sys.argv[2])
sys.path.insert(0, root)
import lineage
out = {}
with lineage.connect(start_managed=False) as lin:
    for q in questions:
        params = {} if q["max_depth"] is None else {"max_depth": q["max_depth"]}
        lin.query("ancestors", uid=q["starts"][0], **params)  # planned once, not measured
        seconds, rows, digest = [], 0, hashlib.sha256()
        for uid in q["starts"]:
            t0 = time.perf_counter()
            answer = lin.query("ancestors", uid=uid, **params)
            seconds.append(time.perf_counter() - t0)
            rows += len(answer)
            digest.update(repr(sorted((r["uid"], r["depth"]) for r in answer)).encode())
        seconds.sort()
        out[q["name"]] = {"median_ms": statistics.median(seconds) * 1000,
                          "p95_ms": seconds[round(0.95 * (len(seconds) - 1))] * 1000,
                          "rows": rows, "digest": digest.hexdigest()}
print(json.dumps(out))
"""


def build(lin, n: int, width: int, chain: int) -> list[tuple[str, str]]:
    """The DAG and the chain (``ProvEntity`` nodes, ``WAS_DERIVED_FROM`` edges); the edges
    as (child, parent) uids."""
    import random

    from lineage.load.writer import ensure_schema

    ensure_schema(lin.graph.driver, lin.graph.database)
    rng = random.Random(7)
    uids = [f"{DAG}{i}" for i in range(n)] + [f"{CHAIN}{i}" for i in range(chain)]
    edges = [(f"{DAG}{i}", f"{DAG}{rng.randrange(i - i % width - width, i - i % width)}")
             for i in range(width, n) for _ in range(2)]
    edges = list(dict.fromkeys(edges))
    edges += [(f"{CHAIN}{i}", f"{CHAIN}{i - 1}") for i in range(1, chain)]
    for i in range(0, len(uids), 10_000):
        lin.write("UNWIND $uids AS uid CREATE (:Lineage:Entity:ProvEntity "
                  "{uid: uid, kind: 'ProvEntity'})", {"uids": uids[i:i + 10_000]})
    for i in range(0, len(edges), 10_000):
        lin.write("UNWIND $rows AS r MATCH (a:Lineage {uid: r[0]}), (b:Lineage {uid: r[1]}) "
                  "CREATE (a)-[:WAS_DERIVED_FROM]->(b)", {"rows": edges[i:i + 10_000]})
    return edges


def percentiles(seconds: list[float]) -> dict:
    seconds = sorted(seconds)
    return {"median_ms": statistics.median(seconds) * 1000,
            "p95_ms": seconds[round(0.95 * (len(seconds) - 1))] * 1000}


def reference(edges, questions) -> dict:
    """The same questions on PostgreSQL (recursive CTE) and networkx, timed as
    bench_queries times them."""
    from bench_queries import postgres, timed

    def summed(result: dict) -> dict:
        return {"median_ms": result["median_ms"], "p95_ms": result["p95_ms"],
                "rows": sum(result["rows"])}

    graph = nx.DiGraph(edges)
    out = {}
    for q in questions:
        def reached(uid: str, depth=q["max_depth"]) -> int:
            return len(nx.single_source_shortest_path_length(graph, uid, cutoff=depth)) - 1
        out[("networkx", q["name"])] = summed(timed(reached, q["starts"]))
    server, run = postgres(edges)
    try:
        for q in questions:
            run(q["starts"][0], q["max_depth"], True)  # planned once, not measured
            out[("PostgreSQL CTE", q["name"])] = summed(timed(
                lambda u, q=q: len(run(u, q["max_depth"], True)), q["starts"]))
    finally:
        server.stop()
    return out


def cli_wall(command: list[str], root: str, env: dict, uid: str, max_depth) -> float:
    args = [*command, "query", "ancestors", "-p", f"uid={uid}"]
    if max_depth is not None:
        args += ["-p", f"max_depth={max_depth}"]
    t0 = time.perf_counter()
    subprocess.run(args, env=env, cwd=root, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="another checkout, set up with its .venv")
    ap.add_argument("--nodes", type=int, default=200_000)
    ap.add_argument("--width", type=int, default=1000)
    ap.add_argument("--chain", type=int, default=10_000)
    ap.add_argument("--starts", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--cli-runs", type=int, default=5)
    args = ap.parse_args()
    trees = checkouts.trees(args.base)
    home = tempfile.mkdtemp(prefix="lineage-queryco-")
    env = {**os.environ, "LINEAGE_HOME": home, "CI": "true"}
    for var in ("NEO4J_URI", "NEO4J_USERNAME", "NEO4J_PASSWORD", "NEO4J_DATABASE",
                "LINEAGE_PROFILE", "LINEAGE_CONFIG"):
        env.pop(var, None)
    os.environ.clear()
    os.environ.update(env)
    import lineage

    commands = {name: lineage_command(root) for name, root in trees.items()}
    dag_starts = [f"{DAG}{i}" for i in range(args.nodes - args.starts, args.nodes)]
    chain_starts = [f"{CHAIN}{i}" for i in range(args.chain - args.starts, args.chain)]
    questions = [{"name": f"{shape} depth {depth or 'unbounded'}", "starts": starts,
                  "max_depth": depth}
                 for shape, starts in (("DAG", dag_starts), ("chain", chain_starts))
                 for depth in (3, 10, None)]
    results: dict = {}
    try:
        with lineage.connect() as lin:
            t0 = time.perf_counter()
            edges = build(lin, args.nodes, args.width, args.chain)
            print(f"built {args.nodes:,} + {args.chain:,} nodes, {len(edges):,} edges in "
                  f"{time.perf_counter() - t0:.0f} s; load average {os.getloadavg()[0]:.2f}",
                  flush=True)
        runs = checkouts.alternate(
            trees, args.rounds,
            lambda root: [lineage_command(root)[0], "-c", CHILD, root, json.dumps(questions)],
            report=lambda name, r: print(f"  {name}: " + ", ".join(
                f"{q} {v['median_ms']:.1f}" for q, v in r.items()), flush=True))
        for q in questions:
            digests = {r[q["name"]]["digest"] for rs in runs.values() for r in rs}
            if len(digests) != 1:
                raise SystemExit(f"{q['name']}: the checkouts' answers differ")
            for name, rs in runs.items():
                best = min(rs, key=lambda r: r[q["name"]]["median_ms"])[q["name"]]
                results[(f"{name}: lin.query", q["name"])] = best
        for q in questions:
            if q["max_depth"] == 10:
                continue
            walls: dict[str, list[float]] = {name: [] for name in trees}
            for _ in range(args.cli_runs):
                for name, root in trees.items():
                    walls[name].append(cli_wall(commands[name], root, env, q["starts"][0],
                                                q["max_depth"]))
            for name in trees:
                results[(f"{name}: CLI", q["name"])] = percentiles(walls[name])
        results.update(reference(edges, questions))
        for q in questions:  # the same number of ancestors every way (the checkouts: hashed)
            counts = {way: r["rows"] for (way, name), r in results.items()
                      if name == q["name"] and "rows" in r}
            if len(set(counts.values())) != 1:
                raise SystemExit(f"{q['name']}: the ways found different ancestors: {counts}")
    finally:
        subprocess.run([*commands["this"], "neo4j", "stop"], env=env, cwd=trees["this"],
                       check=False, stdout=subprocess.DEVNULL)
        shutil.rmtree(home, ignore_errors=True)
    print(f"load average {os.getloadavg()[0]:.2f}; median / p95 ms over {args.starts} starts "
          f"(lin.query: the best round's)")
    ways = list(dict.fromkeys(way for way, _ in results))
    print(f"{'question':<24}" + "".join(f"{way:>28}" for way in ways))
    for q in questions:
        cells = []
        for way in ways:
            r = results.get((way, q["name"]))
            cells.append(f"{r['median_ms']:10.1f} / {r['p95_ms']:<10.1f}" if r else "-")
        print(f"{q['name']:<24}" + "".join(f"{c:>28}" for c in cells))
    for q in questions:
        base = results[("base: lin.query", q["name"])]["median_ms"]
        this = results[("this: lin.query", q["name"])]["median_ms"]
        cte = results[("PostgreSQL CTE", q["name"])]["median_ms"]
        print(f"{q['name']}: lin.query base / this {base / this:.2f}x; "
              f"PostgreSQL / this {cte / this:.2f}x; PostgreSQL / base {cte / base:.2f}x")
    print(json.dumps({f"{way} | {q}": r for (way, q), r in results.items()}))


if __name__ == "__main__":
    main()
