"""The floor of one question: a round trip to Neo4j against one to PostgreSQL, same machine.

    .venv/bin/python bench/bench_round_trip.py [ROUNDS]        # default 2000 per way

Issue 14 asks ancestry to be 3x faster than PostgreSQL's recursive CTE on every question. On
answers of a few rows the CTE takes 0.1-0.2 ms; this measures what any question costs before
its work begins, each way asked ROUNDS times after WARM_UP unmeasured (median and 95th
percentile, microseconds; the warm-up matters: a fresh server's first thousands of
questions are slower while its JIT compiles them):

- Neo4j (the managed server of LINEAGE_HOME, default bench/out/state-round-trip, stopped at
  the end): ``RETURN 1`` through ``lin.query`` (what the API does), the driver's
  ``execute_query`` (a managed transaction: BEGIN, RUN, PULL, COMMIT) and an auto-commit
  ``session.run`` on one open session (RUN and PULL in one flight, the least the driver
  does);
- PostgreSQL (a real server started by the script, as bench_queries.py does): ``SELECT 1``
  and a three-row recursive CTE over a two-column edge table, through psycopg on one open
  connection, as bench_queries.py asks it.

Prints one line per way and the ratios; the last line is the results as JSON.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import private_server  # noqa: E402

CHAIN = [(f"n{i}", f"n{i - 1}") for i in range(1, 20)]
CTE = """WITH RECURSIVE up(id, depth) AS (
  SELECT parent, 1 FROM edge WHERE child = %(uid)s
  UNION
  SELECT e.parent, up.depth + 1 FROM edge e JOIN up ON e.child = up.id WHERE up.depth < 3
) SELECT id, min(depth) FROM up GROUP BY id"""


WARM_UP = 3000


def timed(ask, rounds: int) -> dict:
    """Median and 95th percentile of ``ask()`` in microseconds, after WARM_UP calls."""
    for _ in range(WARM_UP):
        ask()
    seconds = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        ask()
        seconds.append(time.perf_counter() - t0)
    seconds.sort()
    return {"median_us": statistics.median(seconds) * 1e6,
            "p95_us": seconds[round(0.95 * (len(seconds) - 1))] * 1e6}


def neo4j_ways(lin, rounds: int) -> dict:
    driver, database = lin.graph.driver, lin.graph.database
    out = {"lin.query RETURN 1": timed(lambda: lin.query("RETURN 1 AS one"), rounds),
           "execute_query RETURN 1": timed(
               lambda: driver.execute_query("RETURN 1 AS one", database_=database), rounds)}
    with driver.session(database=database) as session:
        out["session.run RETURN 1"] = timed(
            lambda: session.run("RETURN 1 AS one").single(), rounds)
    return out


def postgres_ways(rounds: int) -> dict:
    import psycopg

    from tests.swift_pg import PostgresServer

    server = PostgresServer().start()
    try:
        with psycopg.connect(server.url()) as conn:
            conn.execute("CREATE TABLE edge (child text, parent text)")
            with conn.cursor().copy("COPY edge (child, parent) FROM STDIN") as copy:
                for row in CHAIN:
                    copy.write_row(row)
            conn.execute("CREATE INDEX edge_child ON edge (child)")
            conn.execute("CREATE INDEX edge_parent ON edge (parent)")
            conn.commit()
            assert len(conn.execute(CTE, {"uid": "n10"}).fetchall()) == 3
            return {"psycopg SELECT 1": timed(lambda: conn.execute("SELECT 1").fetchall(), rounds),
                    "psycopg CTE, 3 rows": timed(
                        lambda: conn.execute(CTE, {"uid": "n10"}).fetchall(), rounds)}
    finally:
        server.stop()


def main(rounds: int = 2000) -> None:
    with private_server.connected(HERE / "out" / "state-round-trip") as lin:
        results = neo4j_ways(lin, rounds)
    results.update(postgres_ways(rounds))
    for way, r in results.items():
        print(f"{way:28} median {r['median_us']:7.1f} us   p95 {r['p95_us']:7.1f} us")
    floor = results["session.run RETURN 1"]["median_us"]
    cte = results["psycopg CTE, 3 rows"]["median_us"]
    print(f"the least Neo4j round trip / PostgreSQL's 3-row CTE: {floor / cte:.1f}x "
          f"(3x ahead of the CTE would be {cte / 3:.0f} us)")
    print(json.dumps({"rounds": rounds, "results": results}))


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:2]))
