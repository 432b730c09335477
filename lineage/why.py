"""Why did it fail? A pegasus-analyzer style summary of a run from the graph alone.

For a Pegasus workflow (or one of its jobs): the failed, held and never-submitted jobs,
recursively through sub-workflows, each with its attempts, exit code or signal, host, what
blocked it, and the error lines of its output first (a planner's "Unable to instantiate
Transformation Catalog" sits at the end of 8 KiB of log). For a Swift script run: its failed
app executions. For an XALT execution: a non-zero exit status or a missing end record.

>>> error_lines("starting\\nreading config\\nERROR: Unable to instantiate Transformation Catalog\\ndone")
['ERROR: Unable to instantiate Transformation Catalog']
"""

from __future__ import annotations

import datetime as dt
import re

from .errors import LineageError
from .sources.pegasus import model as pegasus_model
from .sources.swift import model as swift_model
from .sources.xalt import model as xalt_model

#: Words that mark a line of job output as the likely cause of a failure.
_ERROR = re.compile(r"(?i)\b(error|exception|fatal|unable to|cannot|can't|could not|failed|"
                    r"failure|traceback|not found|no such file|denied|killed|segmentation|"
                    r"abort|out of memory|timed? ?out)\b")
MAX_CAUSES = 8


def error_lines(text: str | None, limit: int = MAX_CAUSES) -> list[str]:
    """The lines of ``text`` that look like an error's cause, the last ones first kept in
    order (a failure's cause is usually near the end), at most ``limit``."""
    if not text:
        return []
    found = [line.strip() for line in text.splitlines() if _ERROR.search(line)]
    return found[-limit:]


def when(epoch: float | None) -> str | None:
    """An epoch time as ISO 8601 in UTC.

    >>> when(0.0)
    '1970-01-01T00:00:00Z'
    """
    if epoch is None:
        return None
    return dt.datetime.fromtimestamp(epoch, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _pegasus(lin, node: dict) -> dict:
    props = node["properties"]
    is_job = node["kind"] == pegasus_model.JOB.label
    workflow = pegasus_model.WORKFLOW.uid(props["xwf_id"]) if is_job else node["uid"]
    rows = lin.query("pegasus/failed_jobs", workflow=workflow, recursive=True)
    if is_job:
        rows = [r for r in rows if r["job_uid"] == node["uid"]]
    problems = []
    for r in rows:
        text = "\n".join(t for t in (r.get("stderr"), r.get("stdout")) if t)
        problems.append({
            "what": "job", "uid": r["job_uid"], "name": r["job_id"], "status": r["status"],
            "held": r["held"], "attempts": r["attempts"], "last_state": r["last_state"],
            "exitcode": r["exitcode"], "signal": r["signal"], "host": r["host"],
            "workflow": r["workflow"], "blocked_by": r["blocked_by"],
            "held_reason": r["held_reason"], "causes": error_lines(text),
            "output_tail": text.strip().splitlines()[-3:] if text.strip() else [],
        })
    order = {"failed": 0, "held": 1, "unsubmitted": 2}
    problems.sort(key=lambda p: (order.get(p["status"], 3), p["blocked_by"] is not None,
                                 p["name"] or ""))
    return {"uid": node["uid"], "kind": node["kind"], "status": props.get("status"),
            "problems": problems}


def _swift(lin, node: dict) -> dict:
    rows = lin.query("swift/failed_executions", run=node["uid"])
    problems = [{"what": "app execution", "uid": r["exec_uid"], "name": r["app_name"],
                 "status": "failed", "site": r["site"], "job_id": r["job_id"],
                 "arguments": r["arguments"], "final_state": r["final_state"],
                 "started": when(r["start_time"]), "duration_s": r["duration"],
                 "call": r["call_uid"]} for r in rows]
    return {"uid": node["uid"], "kind": node["kind"],
            "status": node["properties"].get("status"), "problems": problems}


def _xalt(lin, node: dict) -> dict:
    props = node["properties"]
    problems = []
    exit_status = props.get("exit_status")
    if exit_status not in (None, 0):
        problems.append({"what": "exit status", "uid": node["uid"], "name": props.get("exec_path"),
                         "status": "failed", "exit_status": exit_status,
                         "host": props.get("syshost"), "job_id": props.get("job_id"),
                         "started": when(props.get("start_time"))})
    if not props.get("has_end_record"):
        problems.append({"what": "missing end record", "uid": node["uid"],
                         "name": props.get("exec_path"), "status": "incomplete",
                         "detail": "XALT recorded the start of this run but not its end: it "
                                   "was killed, crashed, or its end record was not loaded",
                         "host": props.get("syshost"), "job_id": props.get("job_id"),
                         "started": when(props.get("start_time"))})
    return {"uid": node["uid"], "kind": node["kind"], "status": props.get("status"),
            "problems": problems}


EXPLAINERS = {pegasus_model.WORKFLOW.label: _pegasus, pegasus_model.JOB.label: _pegasus,
              swift_model.SCRIPT_RUN.label: _swift, xalt_model.EXECUTION.label: _xalt}


def why(lin, uid: str) -> dict:
    """The failure summary of a Pegasus workflow or job, a Swift script run or an XALT
    execution: ``{uid, kind, status, problems: [...]}``, worst problems first."""
    rows = lin.query("nodes", uids=[uid])
    if not rows:
        raise LineageError(f"no node with uid {uid!r} in the graph (see `lineage query runs`)")
    node = rows[0]
    explain = EXPLAINERS.get(node["kind"])
    if explain is None:
        raise LineageError(f"{uid} is a {node['kind']}; `why` explains "
                           f"{', '.join(sorted(EXPLAINERS))} nodes")
    return explain(lin, node)
