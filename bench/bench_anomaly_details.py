"""What a Chimbuko run report pays for its anomalies' call stacks and windows: one query of
``chimbuko/anomaly_details`` for the top N anomalies, side by side with the two per-anomaly
templates (``chimbuko/anomaly_call_stack`` + ``chimbuko/anomaly_context``, 2 N round trips),
and the same template called once per anomaly (N round trips: the round trips' own share);
same rows checked, median of --repeat runs each, and the ratios. (The two per-anomaly
templates match ``(:FunctionExecution {uid: ...})``, which the ``:Lineage`` uid index does not
serve: on a big graph each call scans the label.)

    python bench/bench_anomaly_details.py --reset-ok                     # the bundled samples
    python bench/bench_anomaly_details.py --reset-ok --records 20000 --top 50
    python bench/bench_anomaly_details.py --no-load --top 50     # again, on the graph as it is

Uses NEO4J_URI when set (the graph is emptied first: --reset-ok says that is fine), else a
managed server under bench/out/state-anomaly (stopped at the end; its graph stays for
``--no-load``). ``--records`` loads a generated export
(bench/bench_chimbuko.py's generator) instead of the bundled samples.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

RUNS = "MATCH (r:ProgramRun)<-[:PART_OF]-(:Rank)<-[:PART_OF]-(:Anomaly) RETURN DISTINCT r.uid AS uid"


def _timed(fn, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=50, help="anomalies per report (default 50)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--records", type=int, default=0, help="generated records instead of the samples")
    parser.add_argument("--reset-ok", action="store_true", help="the graph may be emptied")
    parser.add_argument("--no-load", action="store_true",
                        help="measure the graph as it is (a previous run's load)")
    parser.add_argument("--state", type=Path, default=HERE / "out" / "state-anomaly")
    args = parser.parse_args(argv)
    if not args.reset_ok and not args.no_load:
        parser.error("the benchmark empties the graph: pass --reset-ok")

    import private_server

    import os

    def samples_dir():
        return Path(os.environ.get("LINEAGE_CORPUS", Path(__file__).resolve().parents[2] / "shared")) / "samples"

    with private_server.connected(args.state) as lin:
        measure(lin, args, samples_dir)


def measure(lin, args, samples_dir) -> None:
    """Load (unless --no-load) and time the three ways of fetching the anomalies' details."""
    if args.no_load:
        pass
    elif args.records:
        lin.reset(force=True)
        from bench_chimbuko import generate

        path = Path(tempfile.mkdtemp(prefix="bench-anomaly-")) / "anomalies.json"
        generate(path, args.records)
        lin.load([path])
    else:
        lin.reset(force=True)
        lin.load(sorted((samples_dir() / "chimbuko").glob("*.json")))
    run = lin.query(RUNS)[0]["uid"]
    uids = [r["uid"] for r in lin.query("chimbuko/run_anomalies", run=run, limit=args.top)]
    # warm the plan cache of both ways first
    lin.query("chimbuko/anomaly_details", uids=uids[:1])
    lin.query("chimbuko/anomaly_call_stack", uid=uids[0])
    lin.query("chimbuko/anomaly_context", uid=uids[0])

    def per_anomaly():
        return [(lin.query("chimbuko/anomaly_call_stack", uid=u),
                 lin.query("chimbuko/anomaly_context", uid=u)) for u in uids]

    def one_each():
        return [lin.query("chimbuko/anomaly_details", uids=[u])[0] for u in uids]

    def batch():
        return lin.query("chimbuko/anomaly_details", uids=uids)

    t_per, per = _timed(per_anomaly, args.repeat)
    t_each, each = _timed(one_each, args.repeat)
    t_one, one = _timed(batch, args.repeat)
    same = all(len(r["stack"]) == len(s) and len(r["window"]) == len(w)
               for r, (s, w) in zip(one, per)) and len(one) == len(per) and list(one) == each
    print(f"{len(uids)} anomalies of {run}; median of {args.repeat}")
    print(f"  per anomaly (2 templates, {2 * len(uids)} round trips): {t_per * 1000:8.1f} ms")
    print(f"  anomaly_details, one uid each ({len(uids)} round trips): {t_each * 1000:8.1f} ms")
    print(f"  anomaly_details, all uids (1 round trip):    {t_one * 1000:8.1f} ms")
    print(f"  ratios to the one query: two templates {t_per / t_one:.1f}x, one uid each "
          f"{t_each / t_one:.1f}x; same rows: {same}")


if __name__ == "__main__":
    main()
