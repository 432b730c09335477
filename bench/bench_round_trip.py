"""What does the least question to Neo4j cost: one round trip through ``lin.query``, against
the official driver's own ``execute_query`` on the same server?

    .venv/bin/python bench/bench_round_trip.py --size 2000 [--base main]

SIZE questions each way (``RETURN 1 AS one``), after as many untimed; medians in µs.
"""

from __future__ import annotations

import os
import statistics
import time

import harness

SIZES = {"smoke": 20, "default": 2_000}


def microseconds(ask, count: int) -> float:
    for _ in range(count):
        ask()
    times = []
    for _ in range(count):
        started = time.perf_counter()
        ask()
        times.append(time.perf_counter() - started)
    return 1e6 * statistics.median(times)


def measure(size: int, prepared: dict) -> dict:
    import neo4j

    auth = (os.environ["NEO4J_USERNAME"], os.environ["NEO4J_PASSWORD"])
    with harness.connect() as lin, neo4j.GraphDatabase.driver(os.environ["NEO4J_URI"],
                                                              auth=auth) as driver:
        ours = microseconds(lambda: lin.query("RETURN 1 AS one"), size)
        floor = microseconds(lambda: driver.execute_query("RETURN 1 AS one"), size)
    return {"seconds": ours / 1e6, "lin_query_us": ours, "driver_us": floor,
            "lin_query_over_driver": ours / floor}


if __name__ == "__main__":
    harness.main(__doc__, "round_trip", measure, SIZES)
