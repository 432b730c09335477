"""What a Pegasus report shows besides its tables: the attempts of a workflow's jobs for its
run view (the Gantt timeline, one bar per attempt, one row per host, and for a clicked job its
attempts with the tail of their output; :func:`workflow_panel`, :func:`job_panel`) and the
short labels of drawn jobs and tasks (:func:`job_labels`).

The query takes every value as a parameter; the page draws the timeline from this data with
``textContent`` / SVG attributes only, so no provenance string is ever parsed as HTML.

>>> tail("abcdef", 3)
'...def'
>>> job_labels([{"uid": "j", "kind": "Job", "name": "proc_ID01", "properties": {}},
...             {"uid": "t", "kind": "Task", "name": "ID01",
...              "properties": {"transformation": "proc"}}],
...            [{"source": "j", "type": "RUNS_TASK", "target": "t"}])
{'t': 'proc', 'j': 'proc'}
"""

from __future__ import annotations

import re
import time

from ..outcome import REFRESH_SECONDS, across_systems, ago, deciding_line, outcome
from ...model.status import RUNNING
from .model import INVOCATION, JOB, TASK, WORKFLOW

#: Characters of stdout / stderr kept per attempt (the end: where the error usually is).
TAIL_CHARS = 2000

ATTEMPTS_CYPHER = """
MATCH (wf:Lineage:Workflow {uid: $workflow})<-[:PART_OF]-(job:Job)<-[:INSTANCE_OF]-(a:JobInstance)
RETURN job.uid AS job, job.job_id AS job_id, a.submit_seq AS submit_seq, a.status AS status,
       a.hostname AS host, a.start_time AS start_time, a.end_time AS end_time,
       a.exitcode AS exitcode, a.signal AS signal, a.last_state AS last_state,
       a.stdout_text AS stdout, a.stderr_text AS stderr
ORDER BY job_id, submit_seq
"""


def tail(text: str | None, limit: int = TAIL_CHARS) -> str | None:
    """The last ``limit`` characters of ``text`` (``...`` in front when cut)."""
    if text is None or len(text) <= limit:
        return text
    return "..." + text[-limit:]


def workflow_attempts(lin, workflow: str) -> list[dict]:
    """Every attempt of every job of ``workflow``, oldest first per job, output tails cut."""
    return _numbered(lin.query(ATTEMPTS_CYPHER, workflow=workflow))


def workflow_panel(lin, uid: str, is_run: bool) -> dict:
    """The report's timeline of a workflow's attempts (its run view only)."""
    return {"attempts": workflow_attempts(lin, uid)} if is_run else {}


def job_panel(lin, uid: str, is_run: bool) -> dict:
    """The report's timeline of one job's attempts."""
    return {"attempts": job_attempts(lin, uid)}


def job_attempts(lin, job: str) -> list[dict]:
    """Every attempt of one job (template ``pegasus/job_attempts``), as ``workflow_attempts``
    gives them: what a job's own report lists and draws on its timeline."""
    return _numbered(lin.query("pegasus/job_attempts", job=job))


def _numbered(rows) -> list[dict]:
    """Rows ordered by job then submit sequence, each with its attempt number (1, 2, ...)
    and the tails of its output."""
    out = []
    number: dict[str, int] = {}
    for r in rows:
        r = dict(r)
        number[r["job"]] = number.get(r["job"], 0) + 1
        r["attempt"] = number[r["job"]]
        r["stdout"], r["stderr"] = tail(r["stdout"]), tail(r["stderr"])
        out.append(r)
    return out


def transformation_name(text: str) -> str:
    """A Pegasus transformation without its namespace and version (``ns::name:version``).

    >>> transformation_name("pegasus::analyze:4.0"), transformation_name("proc")
    ('analyze', 'proc')
    """
    m = re.fullmatch(r"(?:[^:]*::)?([^:]+)(?::[^:]*)?", text)
    return m.group(1) if m else text


def job_labels(nodes: list[dict], edges: list[dict]) -> dict[str, str]:
    """A readable label per Pegasus job and task: its transformation's name (a job's through
    the task it runs, ``RUNS_TASK``), falling back to the job id. Nodes of other kinds are left out."""
    by_uid = {n["uid"]: n for n in nodes}
    labels = {}
    for n in nodes:
        props = n.get("properties") or {}
        if n.get("kind") in (TASK.label, INVOCATION.label) and props.get("transformation"):
            labels[n["uid"]] = transformation_name(str(props["transformation"]))
    for e in edges:
        if e["type"] == "RUNS_TASK" and e["target"] in labels and e["source"] in by_uid:
            if by_uid[e["source"]].get("kind") == JOB.label:
                labels.setdefault(e["source"], labels[e["target"]])
    for n in nodes:
        if n.get("kind") == JOB.label and n["uid"] not in labels:
            props = n.get("properties") or {}
            name = props.get("transformation")
            labels[n["uid"]] = (transformation_name(str(name)) if name else
                                str(props.get("job_id") or n.get("name")))
    return labels


# ------------------------------------------------------------------ what happened
#: Lines of PegasusLite's and kickstart's own chatter: the task's error is elsewhere.
WRAPPER_NOISE = re.compile(r"PegasusLite|^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d: |^#@ |"
                           r"^-+ pegasus-")


def _plural(n: int, word: str) -> str:
    """``n`` and ``word``, plural when ``n`` is not 1.

    >>> _plural(1, "job"), _plural(2, "job")
    ('1 job', '2 jobs')
    """
    return f"{n} {word}{'' if n == 1 else 's'}"


def _failure(row: dict) -> dict:
    """A failed or held job of ``pegasus/failed_jobs`` as the box lists it."""
    if row.get("signal") is not None:
        ended = f"killed by signal {row['signal']}"
    elif row.get("exitcode") is not None:
        ended = f"exit code {row['exitcode']}"
    else:
        ended = str(row.get("last_state") or row["status"])
    detail = [ended]
    if row.get("host"):
        detail.append(f"on {row['host']}")
    detail.append(f"after {_plural(row.get('attempts') or 0, 'attempt')}")
    if row["status"] != "failed":
        detail.insert(0, str(row["status"]))
    error = deciding_line(row.get("stdout"), row.get("stderr"), noise=WRAPPER_NOISE)
    if error is None and row.get("held_reason"):
        error = f"held: {row['held_reason']}"
    return {"name": row["job_id"], "uid": row["job_uid"], "error": error,
            "detail": ", ".join(detail)}


def _counts(stats: dict) -> list[tuple[str, int, str]]:
    """The job counts of ``pegasus/statistics``, each saying what it counts."""
    out = [("jobs", stats["jobs_total"], "as pegasus-statistics counts them (sub-workflow "
            "jobs are counted as sub-workflows)"),
           ("succeeded jobs", stats["jobs_succeeded"], "last attempt succeeded"),
           ("failed jobs", stats["jobs_failed"], "last attempt failed (pegasus-statistics "
            "'Failed')")]
    if stats["jobs_unsubmitted"]:
        out.append(("blocked jobs", stats["jobs_unsubmitted"], "never submitted: a job "
                    "upstream failed (pegasus-analyzer's 'unsubmitted')"))
    if stats["jobs_running"]:
        out.append(("running jobs", stats["jobs_running"], "submitted, not finished"))
    if stats["jobs_held"]:
        out.append(("held jobs", stats["jobs_held"], "last attempt held at some point "
                    "(also counted above)"))
    if stats["job_retries"]:
        out.append(("job retries", stats["job_retries"], "attempts after the first"))
    if stats["subworkflows_total"]:
        out.append(("sub-workflows", stats["subworkflows_total"], "dax / dag jobs"))
        out.append(("failed sub-workflows", stats["subworkflows_failed"], "their job failed"))
    return out


def _anomalies(rows) -> int:
    """Anomalies of the Chimbuko runs linked to the attempts (each attempt counted once)."""
    per_attempt: dict[str, int] = {}
    for r in rows:
        per_attempt[r["attempt"]] = max(per_attempt.get(r["attempt"], 0),
                                        r.get("anomaly_count") or 0)
    return sum(per_attempt.values())


def workflow_outcome(lin, uid: str, is_run: bool) -> dict:
    """What happened to a workflow: its status, the failed jobs with the line of their
    output that says why, what they blocked, the job counts of pegasus-statistics and, across
    systems, the failed job's (else every job's) binary, libraries and anomalies."""
    stats = lin.query("pegasus/statistics", workflow=uid)[0]
    problems = list(lin.query("pegasus/failed_jobs", workflow=uid))
    failed = [_failure(r) for r in problems if r["status"] != "unsubmitted"]
    blocked = [{"name": r["job_id"], "uid": r["job_uid"], "by": r.get("blocked_by")}
               for r in problems if r["status"] == "unsubmitted"]
    chain = list(lin.query("cross/run_chain", run=uid))
    failed_names = {f["name"] for f in failed}
    mine = [r for r in chain if r["job"] in failed_names] or chain
    across = across_systems(mine, _anomalies(mine) if mine else None)
    if failed_names and mine is not chain:
        across = [(f"{label} of {', '.join(sorted(failed_names))}", value)
                  for label, value in across]
    status = stats["status"]
    total = stats["jobs_total"]
    if status == RUNNING:
        return outcome(status, _running(lin, uid, stats), failures=failed, blocked=blocked,
                       counts=_counts(stats), across=across, refresh=REFRESH_SECONDS)
    if failed:
        headline = (f"Failed: {stats['jobs_failed']} of {_plural(total, 'job')} failed "
                    f"({', '.join(f['name'] for f in failed)})")
        if blocked:
            headline += f"; {_plural(len(blocked), 'job')} never ran because of it"
    elif status == "failed":
        headline = "Failed: the workflow failed, though no job did (see its sub-workflows)"
    else:
        headline = f"{(status or 'no status').capitalize()}: {stats['jobs_succeeded']} of " \
                   f"{_plural(total, 'job')} succeeded"
        if stats["job_retries"]:
            retries = stats["job_retries"]
            headline += f" ({retries} {'retry' if retries == 1 else 'retries'})"
    return outcome(status, headline, failures=failed, blocked=blocked,
                   counts=_counts(stats), across=across)


def _running(lin, uid: str, stats: dict) -> str:
    """The headline of a workflow still running: how many of its jobs are done (and failed),
    and when its stream last said something."""
    done = stats["jobs_succeeded"] + stats["jobs_failed"]
    failed = f" ({stats['jobs_failed']} failed)" if stats["jobs_failed"] else ""
    rows = lin.query("pegasus/last_event", workflow=uid)
    last = rows[0]["last_event"] if rows else None
    return (f"Running: {done} of {_plural(stats['jobs_total'], 'job')} done{failed}, "
            f"last event {ago(None if last is None else time.time() - last)}")


def job_outcome(lin, uid: str, is_run: bool) -> dict:
    """What happened to one job: its status and, when its last attempt failed, the line of
    its output that says why."""
    tries = job_attempts(lin, uid)
    root = lin.query("nodes", uids=[uid])[0]
    status = root.get("status") or (tries[-1]["status"] if tries else "unsubmitted")
    name = (root.get("properties") or {}).get("job_id") or root["name"]
    workflow = _workflow_of(uid)
    rows = [r for r in lin.query("pegasus/failed_jobs", workflow=workflow)
            if r["job_uid"] == uid] if workflow else []
    failures = [_failure(r) for r in rows if r["status"] != "unsubmitted"]
    blocked = [{"name": name, "uid": uid, "by": r["blocked_by"]} for r in rows
               if r["status"] == "unsubmitted" and r.get("blocked_by")]
    headline = f"{status.capitalize()}: job {name} after {_plural(len(tries), 'attempt')}"
    chain = [r for r in lin.query("cross/run_chain", run=workflow)
             if r["job"] == name] if workflow else []
    return outcome(status, headline, failures=failures, blocked=blocked,
                   counts=[("attempts", len(tries), "submissions of this job")],
                   across=across_systems(chain, _anomalies(chain) if chain else None))


def _workflow_of(job_uid: str) -> str | None:
    """The workflow uid of a job uid (``pegasus:job:<wf>:<job id>``).

    >>> _workflow_of("pegasus:job:abc:ls_ID1")
    'pegasus:workflow:abc'
    """
    parts = job_uid.split(":")
    return WORKFLOW.uid(parts[2]) if len(parts) >= 4 else None
