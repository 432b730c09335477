"""What differs between two Chimbuko program runs: functions matched by name
(``chimbuko/compare_runs``), their anomaly counts and mean runtimes."""

from __future__ import annotations


def differ(lin, a: dict, b: dict) -> list[dict]:
    """Per function: a changed anomaly count, a changed mean runtime."""
    rows = lin.query("chimbuko/compare_runs", run_a=a["uid"], run_b=b["uid"])
    out = []
    for r in rows:
        if r["a_anomalies"] != r["b_anomalies"]:
            out.append({"aspect": "anomalies", "name": r["function"],
                        "first": r["a_anomalies"], "second": r["b_anomalies"]})
        if r["a_mean_runtime"] != r["b_mean_runtime"]:
            out.append({"aspect": "mean runtime (us)", "name": r["function"],
                        "first": r["a_mean_runtime"], "second": r["b_mean_runtime"]})
    return out
