"""Why did a Pegasus workflow or job fail, and what differs between two runs of a workflow.

``explain`` gives a pegasus-analyzer style summary from the graph alone: the failed, held and
never-submitted jobs, recursively through sub-workflows, each with its attempts, exit code or
signal, host, what blocked it, and the error lines of its output first (a planner's "Unable
to instantiate Transformation Catalog" sits at the end of 8 KiB of log). ``differ`` matches
jobs by job id (``pegasus/compare_runs``).
"""

from __future__ import annotations

from ..answering import error_lines
from ...model import status
from .model import JOB, WORKFLOW


def explain(lin, node: dict) -> dict:
    """The failure summary of a workflow (its jobs and its sub-workflows') or of one job."""
    props = node["properties"]
    is_job = node["kind"] == JOB.label
    workflow = WORKFLOW.uid(props["xwf_id"]) if is_job else node["uid"]
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
    order = {name: i for i, name in enumerate(status.PROBLEM_STATUSES)}
    problems.sort(key=lambda p: (order.get(p["status"], len(order)), p["blocked_by"] is not None,
                                 p["name"] or ""))
    return {"uid": node["uid"], "kind": node["kind"], "status": props.get("status"),
            "problems": problems}


def differ(lin, a: dict, b: dict) -> list[dict]:
    """Jobs removed, added, then changed (status, host, duration), biggest change first."""
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
