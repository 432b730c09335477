"""Why did an XALT run fail, and what differs between two runs of a program.

``explain``: its status (from its end record's exit status: :func:`.model.execution_status`)
and a missing end record. ``differ`` matches executables and libraries by path (a library
whose path stayed but whose sha1 changed is the classic answer) and environment variables by
name.
"""

from __future__ import annotations

import json

from ..answering import dict_changes, when
from ...model import status


def explain(lin, node: dict) -> dict:
    """A run that failed, and a run XALT saw start but not end."""
    props = node["properties"]
    problems = []
    if status.is_failed(props.get("status")):
        problems.append({"what": "exit status", "uid": node["uid"], "name": props.get("exec_path"),
                         "status": props["status"], "exit_status": props.get("exit_status"),
                         "host": props.get("syshost"), "job_id": props.get("job_id"),
                         "started": when(props.get("start_time"))})
    if not props.get("has_end_record"):
        problems.append({"what": "missing end record", "uid": node["uid"],
                         "name": props.get("exec_path"), "status": status.INCOMPLETE,
                         "detail": "XALT recorded the start of this run but not its end: it "
                                   "was killed, crashed, or its end record was not loaded",
                         "host": props.get("syshost"), "job_id": props.get("job_id"),
                         "started": when(props.get("start_time"))})
    return {"uid": node["uid"], "kind": node["kind"], "status": props.get("status"),
            "problems": problems}


def differ(lin, a: dict, b: dict) -> list[dict]:
    """Executable and libraries by path, then the run's own facts, then its environment."""
    def inputs(uid):
        rows = lin.query("xalt/run_inputs", run=uid)
        exe = {r["path"]: r["sha1"] for r in rows if r["role"] == "executable"}
        libs = {r["path"]: r["sha1"] for r in rows if r["role"] != "executable"}
        return exe, libs

    (exe_a, libs_a), (exe_b, libs_b) = inputs(a["uid"]), inputs(b["uid"])
    pa, pb = a["properties"], b["properties"]
    out = dict_changes("executable sha1", exe_a, exe_b)
    changed = [{"aspect": "library sha1 changed at the same path", "name": path,
                "first": libs_a[path], "second": libs_b[path]}
               for path in sorted(set(libs_a) & set(libs_b)) if libs_a[path] != libs_b[path]]
    only = [{"aspect": f"library only in the {'first' if path in libs_a else 'second'} run",
             "name": path, "first": libs_a.get(path),
             "second": libs_b.get(path)} for path in sorted(set(libs_a) ^ set(libs_b))]
    out += changed + only
    # a run known only from its end record has its environment and modules there
    pa, pb = ({**p, "modules": p.get("modules") or p.get("end_modules")} for p in (pa, pb))
    for key in ("exit_status", "cmdline", "modules", "cwd", "syshost", "user", "run_time"):
        if pa.get(key) != pb.get(key):
            out.append({"aspect": key, "name": key, "first": pa.get(key), "second": pb.get(key)})
    env_a, env_b = (json.loads(p.get("env") or p.get("end_env") or "{}") for p in (pa, pb))
    return out + dict_changes("env", env_a, env_b)
