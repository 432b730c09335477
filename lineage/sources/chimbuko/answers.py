"""What differs between two Chimbuko program runs: functions matched by name
(``chimbuko/compare_runs``), their anomaly counts and mean runtimes; and when a program run
began (its first rank's start), which Chimbuko records nowhere else.

>>> ranks = {"r": {"kind": "Rank", "properties": {"start_timestamp": "1600000000500000"}}}
>>> first_rank_start(ranks, [{"source": "r", "type": "PART_OF", "target": "run"}], "run")
1600000000.5
"""

from __future__ import annotations

from .model import RANK


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


def first_rank_start(by_uid: dict[str, dict], edges: list[dict], run_uid: str) -> float | None:
    """Seconds since the epoch when the first rank of a program run started (its
    ``start_timestamp``: microseconds, as TAU writes it), None when no rank says."""
    starts = []
    for e in edges:
        part = by_uid.get(e["source"], {})
        if (e["type"] == "PART_OF" and e["target"] == run_uid
                and part.get("kind") == RANK.label):
            stamp = (part.get("properties") or {}).get("start_timestamp")
            if isinstance(stamp, str) and stamp.isdigit():
                starts.append(int(stamp) / 1e6)
    return min(starts, default=None)
