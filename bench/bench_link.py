"""``lineage link`` at scale: N XALT runs against N Pegasus attempts (each with one kickstart
invocation), on 64 hosts, every run inside its attempt.

Writes the nodes with the project's writer (tagged ``bench-link``), then times, end to end,
the first ``link`` (reads both sides, matches, writes 2N links) and the second (finds the
same links, writes nothing). Side by side, in the same run, it times the matching step
alone against the cross product a naive linker would do (every run against every attempt),
on a slice small enough for that to finish, and prints the ratio.

    .venv/bin/python bench/bench_link.py [N]      # default 100000; uses NEO4J_URI or the
                                                  # managed server, and removes what it wrote
"""

from __future__ import annotations

import sys
import time

import lineage
from lineage import model
from lineage.linking.rules import Inputs, _within, match
from lineage.model.records import Edge, Node
from lineage.sources.pegasus import model as pm
from lineage.sources.xalt import model as xm
from lineage.load.writer import Writer

TAG = "bench-link"
WF = "bench-link-wf"


def rows(n: int) -> Inputs:
    """The rows the link templates return for the generated graph (for the naive slice)."""
    xalt, attempts, invocations = [], [], []
    for i in range(n):
        host, start = f"node{i % 64:03d}.bench", 1.7e9 + i * 2.0
        attempts.append({"uid": f"a{i}", "sched_id": str(900000 + i), "host": host,
                         "start_time": start, "end_time": start + 30})
        invocations.append({"uid": f"i{i}", "attempt": f"a{i}", "host": host,
                            "exec_path": f"/apps/bin/prog{i % 50}", "start_time": start + 1,
                            "end_time": start + 29})
        xalt.append({"uid": f"x{i}", "job_id": str(900000 + i), "host": host,
                     "exec_path": f"/apps/bin/prog{i % 50}", "start_time": start + 2,
                     "end_time": start + 28})
    return Inputs(xalt=xalt, attempts=attempts, invocations=invocations)


def records(inputs: Inputs):
    for a, i in zip(inputs.attempts, inputs.invocations):
        job = a["uid"]
        yield Node(pm.JOB_INSTANCE, pm.JOB_INSTANCE.uid(WF, job, 1), {
            "job_id": job, "xwf_id": WF, "submit_seq": 1, "sched_id": a["sched_id"],
            "hostname": a["host"], "start_time": a["start_time"], "end_time": a["end_time"]})
        yield Node(pm.INVOCATION, pm.INVOCATION.uid(WF, job, 1, 1), {
            "inv_id": 1, "executable": i["exec_path"], "start_time": i["start_time"],
            "end_time": i["end_time"]})
    for x in inputs.xalt:
        yield Node(xm.EXECUTION, xm.EXECUTION.uid(x["uid"]), {
            "uuid": x["uid"], "job_id": x["job_id"], "hostname": x["host"],
            "exec_path": x["exec_path"], "start_time": x["start_time"],
            "end_time": x["end_time"]})


def naive(inputs: Inputs) -> int:
    """Every run against every attempt: what a linker without indexes does."""
    found = 0
    for x in inputs.xalt:
        for a in inputs.attempts:
            if x["job_id"] == a["sched_id"] and _within(x["start_time"], a, 60.0):
                found += 1
    return found


def main(n: int) -> None:
    inputs = rows(n)
    with lineage.connect() as lin:
        writer = Writer(lin.graph.driver, lin.graph.database, batch_size=10000)
        t0 = time.perf_counter()
        writer.write_nodes(records(inputs), tag=TAG)
        writer.write_edges((Edge(model.PART_OF, pm.INVOCATION.uid(WF, a["uid"], 1, 1),
                                 pm.JOB_INSTANCE.uid(WF, a["uid"], 1))
                            for a in inputs.attempts), tag=TAG)
        print(f"wrote {3 * n} nodes in {time.perf_counter() - t0:.1f} s")
        try:
            for label in ("first link", "second link (idempotent)"):
                t0 = time.perf_counter()
                result = lin.link(rules=["scheduler_job", "process"])
                seconds = time.perf_counter() - t0
                made = {r: (c["made"], c["kept"]) for r, c in result.rules.items()}
                print(f"{label}: {seconds:.1f} s for {n} runs x {n} attempts (read, match, "
                      f"write: {result.seconds}); (made, kept) per rule {made}")
        finally:
            with lin.graph.driver.session(database=lin.graph.database) as session:
                session.run("MATCH (n:Lineage) WHERE $tag IN n.loads "
                            "CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS",
                            tag=TAG).consume()
    small = rows(min(n, 3000))
    t0 = time.perf_counter()
    indexed = match(small, ["scheduler_job"])
    t_indexed = time.perf_counter() - t0
    t0 = time.perf_counter()
    crossed = naive(small)
    t_naive = time.perf_counter() - t0
    assert crossed == len(indexed.links)
    print(f"matching {len(small.xalt)} x {len(small.attempts)} alone: indexed {t_indexed:.3f} s, "
          f"cross product {t_naive:.3f} s, ratio {t_naive / t_indexed:.0f}x")
    t0 = time.perf_counter()
    match(inputs, ["scheduler_job", "process"])
    print(f"matching {n} x {n} alone (both rules): {time.perf_counter() - t0:.2f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
