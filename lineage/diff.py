"""Why did this run differ? The differences between two runs of one kind, most telling first.

Parts are matched by stable names, never by uid: Pegasus jobs by job id
(``pegasus/compare_runs``), XALT executables and libraries by path (a library whose path
stayed but whose sha1 changed is the classic answer), environment variables by name,
Chimbuko functions by name (``chimbuko/compare_runs``). Each difference is a row
``{aspect, name, first, second}``.

>>> _dict_changes("env", {"A": "1", "B": "2"}, {"A": "1", "B": "3", "C": "4"})
[{'aspect': 'env', 'name': 'B', 'first': '2', 'second': '3'}, {'aspect': 'env', 'name': 'C', 'first': None, 'second': '4'}]
"""

from __future__ import annotations

import json

from .errors import LineageError
from .sources.chimbuko import model as chimbuko_model
from .sources.pegasus import model as pegasus_model
from .sources.xalt import model as xalt_model

COLUMNS = ["aspect", "name", "first", "second"]


def _dict_changes(aspect: str, first: dict, second: dict) -> list[dict]:
    return [{"aspect": aspect, "name": k, "first": first.get(k), "second": second.get(k)}
            for k in sorted(set(first) | set(second)) if first.get(k) != second.get(k)]


def _pegasus(lin, a: dict, b: dict) -> list[dict]:
    rows = lin.query("pegasus/compare_runs", first=a["uid"], second=b["uid"])
    order = {"removed": 0, "added": 1, "changed": 2}
    out = []
    for r in sorted(rows, key=lambda r: (order.get(r["change"], 3),
                                         -abs(r["duration_change"] or 0.0), r["job_id"])):
        if r["change"] in ("added", "removed"):
            out.append({"aspect": f"job {r['change']}", "name": r["job_id"],
                        "first": r["status_first"], "second": r["status_second"]})
        elif r["change"] == "changed":
            out += [{"aspect": f"job {aspect}", "name": r["job_id"],
                     "first": r[f"{aspect}_first"], "second": r[f"{aspect}_second"]}
                    for aspect in ("status", "host", "duration")
                    if r[f"{aspect}_first"] != r[f"{aspect}_second"]]
    return out


def _xalt(lin, a: dict, b: dict) -> list[dict]:
    def inputs(uid):
        rows = lin.query("xalt/run_inputs", run=uid)
        exe = {r["path"]: r["sha1"] for r in rows if r["role"] == "executable"}
        libs = {r["path"]: r["sha1"] for r in rows if r["role"] != "executable"}
        return exe, libs

    (exe_a, libs_a), (exe_b, libs_b) = inputs(a["uid"]), inputs(b["uid"])
    pa, pb = a["properties"], b["properties"]
    out = _dict_changes("executable sha1", exe_a, exe_b)
    changed = [{"aspect": "library sha1 changed at the same path", "name": path,
                "first": libs_a[path], "second": libs_b[path]}
               for path in sorted(set(libs_a) & set(libs_b)) if libs_a[path] != libs_b[path]]
    only = [{"aspect": "library only in one run", "name": path, "first": libs_a.get(path),
             "second": libs_b.get(path)} for path in sorted(set(libs_a) ^ set(libs_b))]
    out += changed + only
    # a run known only from its end record has its environment and modules there
    pa, pb = ({**p, "modules": p.get("modules") or p.get("end_modules")} for p in (pa, pb))
    for key in ("exit_status", "cmdline", "modules", "cwd", "syshost", "user", "run_time"):
        if pa.get(key) != pb.get(key):
            out.append({"aspect": key, "name": key, "first": pa.get(key), "second": pb.get(key)})
    env_a, env_b = (json.loads(p.get("env") or p.get("end_env") or "{}") for p in (pa, pb))
    return out + _dict_changes("env", env_a, env_b)


def _chimbuko(lin, a: dict, b: dict) -> list[dict]:
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


DIFFERS = {pegasus_model.WORKFLOW.label: _pegasus, xalt_model.EXECUTION.label: _xalt,
           chimbuko_model.PROGRAM_RUN.label: _chimbuko}


def diff(lin, first: str, second: str) -> dict:
    """``{kind, first, second, differences}`` for two runs of one kind."""
    rows = {r["uid"]: r for r in lin.query("nodes", uids=[first, second])}
    for uid in (first, second):
        if uid not in rows:
            raise LineageError(f"no node with uid {uid!r} in the graph")
    a, b = rows[first], rows[second]
    if a["kind"] != b["kind"]:
        raise LineageError(f"{first} is a {a['kind']} and {second} a {b['kind']}: "
                           "`diff` compares two runs of one kind")
    differ = DIFFERS.get(a["kind"])
    if differ is None:
        raise LineageError(f"`diff` compares {', '.join(sorted(DIFFERS))} runs, not "
                           f"{a['kind']} nodes")
    return {"kind": a["kind"], "first": first, "second": second,
            "differences": differ(lin, a, b)}
