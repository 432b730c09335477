"""Why did a Swift script run fail, and what differs between two runs of a script.

``explain`` lists its failed app executions; ``differ`` matches calls by name (a name that
repeats numbered in start order, ``echo``, ``echo #2``; the top-level call, named after its
run, as ``(script top level)``) and compares their status, inputs, arguments, outputs, failed
executions and durations.
"""

from __future__ import annotations

from ..answering import named, when
from ...model import status


def explain(lin, node: dict) -> dict:
    """The failed app executions of a script run."""
    rows = lin.query("swift/failed_executions", run=node["uid"])
    problems = [{"what": "app execution", "uid": r["exec_uid"], "name": r["app_name"],
                 "status": status.FAILED, "site": r["site"], "job_id": r["job_id"],
                 "arguments": r["arguments"], "final_state": r["final_state"],
                 "started": when(r["start_time"]), "duration_s": r["duration"],
                 "call": r["call_uid"]} for r in rows]
    return {"uid": node["uid"], "kind": node["kind"],
            "status": node["properties"].get("status"), "problems": problems}


def differ(lin, a: dict, b: dict) -> list[dict]:
    """What differs between two script runs, durations last (biggest change first)."""
    pa, pb = a["properties"], b["properties"]

    def parts(uid: str, run_id: str | None) -> dict[str, dict]:
        # the script's own top-level call is named after the run: the same part in both
        return named([{**r, "name": "(script top level)" if r["name"] == run_id else r["name"]}
                      for r in lin.query("swift/run_parts", run=uid)])

    parts_a, parts_b = parts(a["uid"], pa.get("run_id")), parts(b["uid"], pb.get("run_id"))
    out = [{"aspect": key, "name": key, "first": pa.get(key), "second": pb.get(key)}
           for key in ("status", "script_hash") if pa.get(key) != pb.get(key)]
    out += [{"aspect": f"call only in the {'first' if name in parts_a else 'second'} run",
             "name": name,
             "first": (parts_a.get(name) or {}).get("status"),
             "second": (parts_b.get(name) or {}).get("status")}
            for name in sorted(set(parts_a) ^ set(parts_b))]
    both = sorted(set(parts_a) & set(parts_b))
    for aspect, key in (("call status", "status"), ("inputs", "inputs"),
                        ("arguments", "arguments"), ("outputs", "outputs"),
                        ("failed executions", "failed_executions")):
        out += [{"aspect": aspect, "name": name, "first": parts_a[name][key],
                 "second": parts_b[name][key]}
                for name in both if parts_a[name][key] != parts_b[name][key]]
    timed = [{"aspect": "duration", "name": name, "first": parts_a[name]["duration"],
              "second": parts_b[name]["duration"]} for name in both
             if parts_a[name]["duration"] != parts_b[name]["duration"]]
    return out + sorted(timed, key=lambda r: -abs((r["second"] or 0) - (r["first"] or 0)))
