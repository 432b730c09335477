"""A demo workflow run as pegasus-monitord's NetLogger BP event stream (``stampede.*``
events with ``level=Info``; a value with a blank, a quote or ``=`` double-quoted).

>>> bp_line(0.0, "xwf.start", [("xwf.id", "w"), ("restart_count", 0)])
'ts=1970-01-01T00:00:00.000000Z event=stampede.xwf.start level=Info xwf.id=w restart_count=0'
>>> bp_value('-a "x" -o f')
'"-a \\\\"x\\\\" -o f"'
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Iterable

from ..scenario import WorkflowRun
from .demo_attempts import EXITCODE, JOB_TYPES, Recorded, encode, recorded, task_edges

Event = tuple[float, str, list[tuple[str, object]]]


def bp_time(t: float) -> str:
    """NetLogger's timestamp: ISO 8601 UTC with microseconds."""
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def bp_value(value: object) -> str:
    """A value as BP writes it: bare, or quoted with ``\\`` and ``"`` escaped."""
    text = str(value)
    if text and not any(c in text for c in ' "=\\\t'):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def bp_line(ts: float, event: str, pairs: Iterable[tuple[str, object]]) -> str:
    body = " ".join(f"{k}={bp_value(v)}" for k, v in pairs if v is not None)
    return f"ts={bp_time(ts)} event=stampede.{event} level=Info" + (f" {body}" if body else "")


def _static(run: WorkflowRun) -> list[Event]:
    """The plan: workflow, tasks, jobs and their edges, as the planner declared them."""
    xwf, t = run.uuid, run.planned
    events: list[Event] = [(t, "wf.plan", [
        ("xwf.id", xwf), ("dax.label", run.label), ("dax.index", 0), ("root.xwf.id", xwf),
        ("planner.version", run.planner_version), ("submit.dir", run.submit_dir),
        ("argv", run.planner_argv), ("user", run.user), ("dag.file.name", f"{run.label}-0.dag"),
        ("submit.hostname", run.submit_host.name), ("dax.version", "5.0"),
        ("dax.file", f"{run.submit_dir.split('/submit/')[0]}/workflow.yml")]),
        (t, "static.start", [])]
    for task in run.tasks:
        events.append((t, "task.info", [
            ("type_desc", "compute"), ("task.id", task.task_id), ("argv", task.argv),
            ("type", JOB_TYPES["compute"]), ("transformation", task.transformation),
            ("xwf.id", xwf)]))
    for parent, child in task_edges(run):
        events.append((t, "task.edge", [("child.task.id", child), ("parent.task.id", parent),
                                        ("xwf.id", xwf)]))
    for job in run.jobs:
        events.append((t + 1, "job.info", [
            ("executable", job.executable), ("type_desc", job.type_desc), ("argv", job.argv),
            ("clustered", 0), ("max_retries", job.max_retries),
            ("task_count", 1 if job.task else 0), ("job.id", job.job_id),
            ("submit_file", f"00/00/{job.job_id}.sub"), ("type", JOB_TYPES[job.type_desc]),
            ("xwf.id", xwf)]))
    for job in run.jobs:
        if job.task:
            events.append((t + 1, "wf.map.task_job", [
                ("job.id", job.job_id), ("task.id", job.task.task_id), ("xwf.id", xwf)]))
    for parent, child in run.edges:
        events.append((t + 1, "job.edge", [("parent.job.id", parent), ("child.job.id", child),
                                           ("xwf.id", xwf)]))
    events.append((t + 1, "static.end", []))
    return events


def _attempt(run: WorkflowRun, r: Recorded) -> list[Event]:
    """The events monitord logs for one attempt, in its order (``js.id`` numbers them)."""
    a, job = r.attempt, r.job
    ids = [("xwf.id", run.uuid), ("job.id", job.job_id), ("sched.id", a.sched_id)]

    def state(js: int, *more):
        return [*ids, ("js.id", js), ("job_inst.id", a.seq), *more]

    inv_start, inv_dur = r.kickstart()
    post_start, post_dur = r.post()
    inv = [("xwf.id", run.uuid), ("job.id", job.job_id), ("job_inst.id", a.seq)]
    task_id = job.task.task_id if job.task else None
    return [
        (a.submitted, "job_inst.submit.start", state(1)),
        (a.submitted, "job_inst.submit.end", [("status", 0), *state(1)]),
        (a.started, "job_inst.main.start", state(2, ("stdout.file", f"{job.job_id}.out"),
                                                   ("stderr.file", f"{job.job_id}.err"))),
        (a.ended, "job_inst.main.term", [("status", 0), *state(3)]),
        (a.ended, "inv.start", [*inv, ("inv.id", 1)]),
        (a.ended, "inv.end", [
            *inv, ("executable", a.process.binary.path),
            ("remote_cpu_time", f"{a.process.cpu_time:.6f}"), ("start_time", inv_start),
            ("argv", r.invocation_argv()), ("task.id", task_id), ("inv.id", 1),
            ("dur", f"{inv_dur:.3f}"), ("transformation", r.transformation()),
            ("exitcode", r.main_status)]),
        (a.ended, "job_inst.host.info", [
            *inv, ("hostname", a.host.name), ("total_memory", a.host.memory), ("ip", a.host.ip),
            ("site", a.host.site), ("uname", a.host.uname)]),
        (a.ended, "job_inst.main.end", [
            ("status", 0 if r.ok else -1), ("stdout.file", r.file("out")),
            ("stderr.text", encode(r.lite_text())), *state(4), ("site", a.host.site),
            ("local.dur", int(round(a.ended - a.started))), ("work_dir", a.work_dir),
            ("user", run.user), ("multiplier_factor", 1), ("stdout.text", encode(r.task_text())),
            ("exitcode", r.main_status), ("stderr.file", r.file("err"))]),
        (a.ended, "job_inst.post.start", state(5)),
        (a.post_ended, "job_inst.post.term", state(6)),
        (a.ended, "inv.start", [*inv, ("inv.id", -2)]),
        (a.post_ended, "inv.end", [
            *inv, ("executable", EXITCODE), ("remote_cpu_time", post_dur),
            ("start_time", post_start), ("argv", r.post_argv()), ("inv.id", -2),
            ("dur", post_dur), ("transformation", "dagman::post"),
            ("exitcode", r.post_status)]),
        (a.post_ended, "job_inst.post.end", [("status", 0 if r.ok else -1), *state(7),
                                             ("exitcode", r.post_status)]),
    ]


def bp_lines(run: WorkflowRun) -> list[str]:
    """The whole stream: the plan, the run's start, every attempt's events (by time, each
    attempt's in its own order), the run's end."""
    runtime: list[Event] = [(run.started, "xwf.start", [("xwf.id", run.uuid),
                                                        ("restart_count", 0)])]
    for r in recorded(run):
        runtime += _attempt(run, r)
    runtime.sort(key=lambda e: e[0])  # stable: an attempt's events keep their order
    runtime.append((run.ended, "xwf.end", [("status", run.status), ("xwf.id", run.uuid),
                                           ("restart_count", 0)]))
    return [bp_line(ts, name, pairs) for ts, name, pairs in _static(run) + runtime]
