"""Why did this run differ? The differences between two runs of one kind, most telling first.

Parts are matched by stable names, never by uid: Pegasus jobs by job id
(``pegasus/compare_runs``), XALT executables and libraries by path (a library whose path
stayed but whose sha1 changed is the classic answer), environment variables by name,
Chimbuko functions by name (``chimbuko/compare_runs``), Swift calls by name, a name that
repeats numbered in start order (``echo``, ``echo #2``; the top-level call, named after its
run, as ``(script top level)``). For Pegasus workflows and Swift script runs linked across
systems (``lineage link``), each job's or call's XALT run is compared as XALT runs are, and
its Chimbuko anomaly count. Each difference is a row ``{aspect, name, first, second}``.

>>> _dict_changes("env", {"A": "1", "B": "2"}, {"A": "1", "B": "3", "C": "4"})
[{'aspect': 'env', 'name': 'B', 'first': '2', 'second': '3'}, {'aspect': 'env', 'name': 'C', 'first': None, 'second': '4'}]
"""

from __future__ import annotations

import json

from .errors import LineageError
from .sources.chimbuko import model as chimbuko_model
from .sources.pegasus import model as pegasus_model
from .sources.swift import model as swift_model
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


def _named(rows: list[dict]) -> dict[str, dict]:
    """Rows keyed by name, a repeated name numbered in start order (``echo``, ``echo #2``).

    >>> list(_named([{"name": "echo"}, {"name": "cat"}, {"name": "echo"}]))
    ['echo', 'cat', 'echo #2']
    """
    seen: dict[str, int] = {}
    out = {}
    for row in rows:
        name = row["name"] or "?"
        seen[name] = seen.get(name, 0) + 1
        out[name if seen[name] == 1 else f"{name} #{seen[name]}"] = row
    return out


def _swift(lin, a: dict, b: dict) -> list[dict]:
    pa, pb = a["properties"], b["properties"]
    def parts(uid: str, run_id: str | None) -> dict[str, dict]:
        # the script's own top-level call is named after the run: the same part in both
        return _named([{**r, "name": "(script top level)" if r["name"] == run_id else r["name"]}
                       for r in lin.query("swift/run_parts", run=uid)])

    parts_a, parts_b = parts(a["uid"], pa.get("run_id")), parts(b["uid"], pb.get("run_id"))
    out = [{"aspect": key, "name": key, "first": pa.get(key), "second": pb.get(key)}
           for key in ("status", "script_hash") if pa.get(key) != pb.get(key)]
    out += [{"aspect": "call only in one run", "name": name,
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
    timed = [{"aspect": "duration (s)", "name": name, "first": parts_a[name]["duration"],
              "second": parts_b[name]["duration"]} for name in both
             if parts_a[name]["duration"] != parts_b[name]["duration"]]
    return out + sorted(timed, key=lambda r: -abs((r["second"] or 0) - (r["first"] or 0)))


def _linked(lin, a: dict, b: dict) -> list[dict]:
    """Across systems (after ``lineage link``): per job or call, the program and libraries
    XALT saw it run, and Chimbuko's anomaly count, matched by job or call name."""
    def chain(uid):
        return _named([{**r, "name": r["job"]} for r in lin.query("cross/run_chain", run=uid)
                       if r["how"] == "same process"])

    chain_a, chain_b = chain(a["uid"]), chain(b["uid"])
    out = []
    for job in sorted(set(chain_a) & set(chain_b)):
        ra, rb = chain_a[job], chain_b[job]
        for row in _xalt(lin, {"uid": ra["execution"], "properties": {}},
                         {"uid": rb["execution"], "properties": {}}):
            out.append({**row, "aspect": f"{row['aspect']} (linked XALT run)",
                        "name": f"{job}: {row['name']}"})
        if ra["anomaly_count"] != rb["anomaly_count"]:
            out.append({"aspect": "anomalies (linked Chimbuko run)", "name": job,
                        "first": ra["anomaly_count"], "second": rb["anomaly_count"]})
    out += [{"aspect": "linked XALT run in one run only", "name": job,
             "first": (chain_a.get(job) or {}).get("execution"),
             "second": (chain_b.get(job) or {}).get("execution")}
            for job in sorted(set(chain_a) ^ set(chain_b))]
    return out


DIFFERS = {pegasus_model.WORKFLOW.label: _pegasus, xalt_model.EXECUTION.label: _xalt,
           chimbuko_model.PROGRAM_RUN.label: _chimbuko, swift_model.SCRIPT_RUN.label: _swift}
#: Run kinds whose jobs or calls ``lineage link`` connects to XALT and Chimbuko runs.
LINKED = (pegasus_model.WORKFLOW.label, swift_model.SCRIPT_RUN.label)


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
    differences = differ(lin, a, b)
    if a["kind"] in LINKED:
        differences += _linked(lin, a, b)
    return {"kind": a["kind"], "first": first, "second": second, "differences": differences}
