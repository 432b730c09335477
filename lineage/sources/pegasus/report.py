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

from .model import INVOCATION, JOB, TASK

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
