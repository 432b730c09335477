"""``lineage load`` end to end, this checkout against another one, each with its own
virtualenv and its own managed Neo4j, alternating, on the same input files.

    git worktree add --detach /tmp/lineage-pre14 dd329a8     # the tool when issue 14 was filed
    (cd /tmp/lineage-pre14 && LINEAGE_SETUP_TEST_TOOLS=0 bash scripts/setup.sh)
    python bench/bench_load_checkouts.py --base /tmp/lineage-pre14 bench/out/bench-200000.bp
    python bench/bench_load_checkouts.py --base . --base-env LINEAGE_OVERLAP_BYTES=off FILE

What a user waits for: the wall time of ``lineage load FILE`` as a fresh process (start-up,
parse, write, the load's own records), each checkout's command run by its own ``.venv``
(its own driver and its own ``neo4j-rust-ext`` or not, as its ``pyproject.toml`` resolves
them) against its own server, started once in a temporary ``LINEAGE_HOME`` and emptied with
two batched deletes before every load (not timed; not a checkout's ``lineage reset``, which
also creates that checkout's schema: this one's has an index more than dd329a8's, which the
base's loads would then maintain, and dd329a8's reset runs out of transaction memory on a
Chimbuko shard's hubs). Also reported: the command's peak RSS and CPU seconds, the server's
CPU seconds during the load, and the nodes and relationships each load left (``lineage
query ... --format json``), so that a faster load that wrote less shows. Each checkout's
commands run in its own tree: ``python -m`` puts the working directory first on
``sys.path``, so the tree decides which code runs. The last line
of output is a JSON object with every run.
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

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import checkouts


def lineage_command(root: str) -> list[str]:
    """The checkout's own interpreter running its CLI, e.g. ``[root/.venv/bin/python, -m,
    lineage.cli]`` (this interpreter when the checkout has no ``.venv``); run it with the
    checkout as the working directory."""
    python = Path(root) / ".venv" / "bin" / "python"
    return [str(python) if python.exists() else sys.executable, "-m", "lineage.cli"]


def server_status(command: list[str], env: dict, cwd: str) -> dict:
    """The checkout's managed Neo4j as ``lineage neo4j status --json`` describes it (pid,
    URI, user, password file)."""
    out = subprocess.run([*command, "neo4j", "status", "--json"], env=env, cwd=cwd,
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a running process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def empty_graph(status: dict) -> None:
    """Delete every relationship, then every node, in batches, in the server ``status``
    describes (:func:`server_status`); the schema stays as that checkout made it."""
    from neo4j import GraphDatabase

    password = Path(status["password_file"]).read_text().strip()
    with GraphDatabase.driver(status["uri"], auth=(status["user"], password)) as driver, \
            driver.session() as session:  # CALL ... IN TRANSACTIONS: an auto-commit one
        for statement in ("MATCH ()-[r]->() CALL (r) { DELETE r } IN TRANSACTIONS OF 10000 ROWS",
                          "MATCH (n) CALL (n) { DELETE n } IN TRANSACTIONS OF 10000 ROWS"):
            session.run(statement).consume()


def timed_load(command: list[str], path: str, env: dict, cwd: str) -> dict:
    """One ``lineage load PATH``: wall, peak RSS and CPU of the process (os.wait4; its
    standard error goes to a file, which a pipe left unread while waiting could not take)."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen([*command, "load", path], env=env, cwd=cwd,
                                stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            told = err.read().decode(errors="replace").strip()[-800:]
            raise SystemExit(f"lineage load {path} ({command[0]}) failed: {told}")
    return {"wall": wall, "peak_rss_mib": usage.ru_maxrss / 1024,
            "cpu": usage.ru_utime + usage.ru_stime}


def graph_size(command: list[str], env: dict, cwd: str) -> tuple[int, int]:
    """Nodes and relationships in the graph (``lineage query ... --format json``)."""
    cypher = ("CALL { MATCH (n) RETURN count(n) AS nodes } "
              "CALL { MATCH ()-[r]->() RETURN count(r) AS relationships } "
              "RETURN nodes, relationships")
    out = subprocess.run([*command, "query", cypher, "--format", "json"], env=env, cwd=cwd,
                         check=True, capture_output=True, text=True).stdout
    row = json.loads(out)
    row = row[0] if isinstance(row, list) else row["rows"][0]
    return int(row["nodes"]), int(row["relationships"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--base", required=True, help="another checkout, set up with its .venv")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--base-env", action="append", default=[], metavar="VAR=VALUE",
                    help="set in the base's environment only (with --base . : one setting "
                         "of this checkout against another, e.g. LINEAGE_OVERLAP_BYTES=off)")
    args = ap.parse_args()
    trees = checkouts.trees(args.base)
    homes = {name: tempfile.mkdtemp(prefix=f"lineage-loadco-{name}-") for name in trees}
    envs = {}
    for name in trees:
        env = {**os.environ, "LINEAGE_HOME": homes[name], "CI": "true"}
        for var in ("NEO4J_URI", "NEO4J_USERNAME", "NEO4J_PASSWORD", "NEO4J_DATABASE",
                    "LINEAGE_PROFILE", "LINEAGE_CONFIG"):
            env.pop(var, None)
        if name == "base":
            env.update(dict(item.split("=", 1) for item in args.base_env))
        envs[name] = env
    commands = {name: lineage_command(root) for name, root in trees.items()}
    inputs = [str(Path(path).resolve()) for path in args.inputs]
    runs: dict[str, dict[str, list[dict]]] = {p: {n: [] for n in trees} for p in inputs}
    failed = True
    try:
        servers = {}
        for name, root in trees.items():
            subprocess.run([*commands[name], "neo4j", "start"], env=envs[name], cwd=root,
                           check=True, stdout=subprocess.DEVNULL)
            servers[name] = server_status(commands[name], envs[name], root)
        print(f"load average {os.getloadavg()[0]:.2f}; {args.rounds} rounds, alternating")
        for path in inputs:
            for _ in range(args.rounds):
                for name, root in trees.items():
                    empty_graph(servers[name])  # not timed
                    before = cpu_seconds(servers[name]["pid"])
                    one = timed_load(commands[name], path, envs[name], root)
                    one["server_cpu"] = cpu_seconds(servers[name]["pid"]) - before
                    one["nodes"], one["relationships"] = graph_size(commands[name],
                                                                    envs[name], root)
                    one["elements_per_s"] = (one["nodes"] + one["relationships"]) / one["wall"]
                    one["load_average"] = os.getloadavg()[0]
                    runs[path][name].append(one)
                    print(f"{Path(path).name} {name:>4}: {one['wall']:7.1f} s "
                          f"{one['elements_per_s']:8.0f} elements/s  nodes {one['nodes']:,} "
                          f"rels {one['relationships']:,}  client CPU {one['cpu']:.1f} s "
                          f"server CPU {one['server_cpu']:.1f} s  peak RSS "
                          f"{one['peak_rss_mib']:.0f} MiB  load avg {one['load_average']:.1f}",
                          flush=True)
            best = {n: min(r["wall"] for r in rs) for n, rs in runs[path].items()}
            med = {n: statistics.median(r["wall"] for r in rs) for n, rs in runs[path].items()}
            print(f"{Path(path).name}: base / this, wall: best {best['base'] / best['this']:.2f}x,"
                  f" median {med['base'] / med['this']:.2f}x", flush=True)
        failed = False
    finally:
        for name, root in trees.items():
            subprocess.run([*commands[name], "neo4j", "stop"], env=envs[name], cwd=root,
                           check=False, stdout=subprocess.DEVNULL)
            if failed:  # kept for its logs
                print(f"{name}'s server state and logs: {homes[name]}", file=sys.stderr)
            else:
                shutil.rmtree(homes[name], ignore_errors=True)
    print(json.dumps({"base": trees["base"], "base_env": args.base_env, "runs": runs}))


if __name__ == "__main__":
    main()
