"""Does APOC's path expander earn its place? Ancestry of the same start nodes on the same DAG,
side by side in one run: the ``ancestors`` template's Cypher search (VarLengthExpand with
pruning BFS) against APOC core's ``apoc.path.subgraphNodes`` and ``apoc.path.expandConfig``
(breadth-first, each node once: its path length is its shortest distance).

Runs on the managed server of ``LINEAGE_HOME`` (required: the script restarts that server so
that it loads APOC, and leaves it running), with APOC core in ``--plugins`` (fetched from
Maven Central when the directory holds no APOC jar: the self-contained ``core`` jar of
5.26.5, the last 5.26 release that has one).

    LINEAGE_HOME=/tmp/apoc-bench .venv/bin/python bench/bench_apoc_paths.py [N] [WIDTH] [STARTS] [--keep]

Prints median / p95 ms per way and ratios to the Cypher search; every way must find the
same number of ancestors, else the script stops.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
APOC = "org.neo4j.procedure:apoc-core:5.26.5:jar:core"
FOLLOWED = "USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER"
APOC_FILTER = "|".join(f"{t}>" for t in FOLLOWED.split("|"))
SEARCH = (f"MATCH (s:Lineage {{uid: $uid}}) "
          f"MATCH p = (s)-[:{FOLLOWED}*1..]->(a:Lineage) WITH a, min(length(p)) AS depth ")
EXPAND = ("MATCH (s:Lineage {uid: $uid}) CALL apoc.path.expandConfig(s, {relationshipFilter: "
          "$filter, minLevel: 1, uniqueness: 'NODE_GLOBAL', bfs: true}) YIELD path "
          "WITH last(nodes(path)) AS a, length(path) AS depth ")
COLUMNS = ("RETURN collect(a.uid) AS uids, collect(depth) AS depths")
WAYS = {
    "Cypher search, count": SEARCH + "RETURN count(*) AS n",
    "apoc.path.subgraphNodes, count": (
        "MATCH (s:Lineage {uid: $uid}) CALL apoc.path.subgraphNodes(s, {relationshipFilter: "
        "$filter, minLevel: 1}) YIELD node RETURN count(*) AS n"),
    "apoc.path.expandConfig BFS, count": EXPAND + "RETURN count(*) AS n",
    "Cypher search, uids + depths delivered": SEARCH + COLUMNS,
    "apoc.path.expandConfig BFS, uids + depths delivered": EXPAND + COLUMNS,
}


def plugins_with_apoc(directory: Path) -> Path:
    """``directory`` holding an APOC jar (fetched with Maven when there is none)."""
    directory.mkdir(parents=True, exist_ok=True)
    if not any(p.name.startswith("apoc") for p in directory.glob("*.jar")):
        subprocess.run(["mvn", "-q", "-B", "dependency:copy", f"-Dartifact={APOC}",
                        f"-DoutputDirectory={directory}"], check=True)
    return directory


def main(n: int = 200_000, width: int = 1000, starts_count: int = 30, keep: bool = False,
         plugins: Path = HERE / "out" / "plugins") -> None:
    if not os.environ.get("LINEAGE_HOME"):
        sys.exit("set LINEAGE_HOME to a state directory of its own: the script restarts its "
                 "server with APOC")
    os.environ["LINEAGE_NEO4J_PLUGINS"] = str(plugins_with_apoc(plugins))
    import lineage
    from lineage import server
    from lineage.load.writer import ensure_schema

    from bench_ancestry_depth import PREFIX, build, clean

    server.stop()
    server.start()
    with lineage.connect() as lin:
        driver = lin.graph.driver
        ensure_schema(driver, lin.graph.database)
        found = lin.graph.run("MATCH (x:ProvEntity) WHERE x.uid STARTS WITH $p "
                              "RETURN count(x) AS n", {"p": PREFIX})[0]["n"]
        if not (keep and found == n):
            clean(lin)
            build(lin, n, width)
        middle = n - n // 2
        starts = [f"{PREFIX}{middle + i * (width // starts_count)}" for i in range(starts_count)]
        results = {}
        for _ in range(2):  # the first round warms the server's plans up; the second counts
            for name, statement in WAYS.items():
                seconds, sizes = [], set()
                for uid in starts:
                    t0 = time.perf_counter()
                    record = driver.execute_query(statement, uid=uid, filter=APOC_FILTER,
                                                  database_=lin.graph.database)[0][0]
                    seconds.append(time.perf_counter() - t0)
                    sizes.add(record["n"] if "n" in record.keys() else len(record["uids"]))  # noqa: SIM118 (a Record holds values)
                seconds.sort()
                results[name] = (statistics.median(seconds) * 1000,
                                 seconds[round(0.95 * (len(seconds) - 1))] * 1000, sizes)
        answers = {name: frozenset(r[2]) for name, r in results.items()}
        assert len(set(answers.values())) == 1, answers  # the same ancestors every way
        print(f"{starts_count} start nodes, {sorted(next(iter(answers.values())))[:3]} "
              "ancestors each (first sizes); median / p95 ms")
        base = {"count": results["Cypher search, count"][0],
                "delivered": results["Cypher search, uids + depths delivered"][0]}
        for name, (median, p95, _) in results.items():
            ratio = median / base["delivered" if "delivered" in name else "count"]
            print(f"  {name:52} {median:8.1f} {p95:8.1f}   {ratio:5.2f}x the Cypher search")
        if not keep:
            clean(lin)


if __name__ == "__main__":
    numbers = [int(a) for a in sys.argv[1:] if a != "--keep"]
    main(*numbers, keep="--keep" in sys.argv)
