"""Pegasus Stampede event streams (NetLogger BP files written by pegasus-monitord and by
the 5.x planner's ``*.static.bp``) into lineage records.

Both spellings are read: ``event=stampede.job.info level=Info`` (monitord) and
``event=job.info`` with every value quoted (planner 5.x). Task and job dependencies become
``WAS_INFORMED_BY`` from child to parent; each attempt of a job is a ``JobInstance`` with
its time-ordered states.

>>> from lineage.sources.base import LoadReport
>>> lines = ['ts=1 event=stampede.wf.plan xwf.id=w dax.label=d',
...          'ts=2 event=stampede.job.info xwf.id=w job.id=j type=1 type_desc=compute']
>>> recs = list(parse_lines(lines, LoadReport("x.bp", "pegasus-bp")))
>>> sorted(r.uid for r in recs if hasattr(r, "uid"))
['pegasus:job:w:j', 'pegasus:workflow:w']
"""

from __future__ import annotations

import hashlib
import io
import marshal
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

from ... import model
from . import model as pegasus_model
from ...errors import WholeInputError
from ...model.records import Edge, Node, Record
from ...secrets import redact_command_line
from . import mapping as pc
from ..lines import bounded_lines
from ..base import Format, LoadReport
from .netlogger import BPSyntaxError, parse_line, parse_timestamp
from .stampede.connect import SQLITE_MAGIC, sqlite_tables

MAX_LINE = 16 * 1024 * 1024  # bytes; a longer line is malformed, not data (never read whole)
INT64 = (-(2**63), 2**63 - 1)  # what Neo4j stores as an integer
#: Declaration events whose repetition with other values is an error (an identical repeat,
#: as monitord writes when it replays a log after a restart, is harmless).
DECLARATIONS = {"job.info": ("job", "job.id"), "task.info": ("task", "task.id")}
_NOT_CONTENT = ("ts", "level")


class _Missing(Exception):
    """An event lacks a key or has a value of the wrong type."""

    def __init__(self, expected: str, found: str = ""):
        super().__init__(expected)
        self.expected = expected
        self.found = found


def _need(ev: dict[str, str], key: str) -> str:
    value = ev.get(key)
    if value is None or value == "":
        raise _Missing(f"key {key!r} in a {ev.get('event', '?')} event")
    return value


def _int(ev: dict[str, str], key: str, required: bool = False) -> int | None:
    value = ev.get(key)
    if value is None or value in ("", "None", "null"):
        if required:
            raise _Missing(f"key {key!r} in a {ev.get('event', '?')} event")
        return None
    try:
        number = int(float(value)) if "." in value else int(value)
    except (ValueError, OverflowError):
        raise _Missing(f"an integer for {key!r}", value) from None
    if not INT64[0] <= number <= INT64[1]:
        raise _Missing(f"a 64-bit integer for {key!r}", value)
    return number


def _float(ev: dict[str, str], key: str) -> float | None:
    value = ev.get(key)
    if value is None or value in ("", "None", "null"):
        return None
    try:
        return float(value)
    except ValueError:
        raise _Missing(f"a number for {key!r}", value) from None


def _time(ev: dict[str, str], key: str) -> float | None:
    value = ev.get(key)
    if value is None or value in ("", "None", "null"):
        return None
    try:
        return parse_timestamp(value)
    except ValueError:
        raise _Missing(f"an ISO-8601 or epoch timestamp for {key!r}", value) from None


@dataclass(slots=True)
class _Attempt:
    uid: str  # built once: an attempt is named by an event per state
    states: list[str] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    exitcode_raw: int | None = None  # main.end's, overridden by post.end's (as Pegasus's loader)
    # Pegasus 3.x: main.end / post.end without an exitcode key; the last state decides
    by_state: bool = False
    linked: bool = False  # its INSTANCE_OF was stated (by an event whose records were kept)


@dataclass
class _StreamState:
    """What the stream remembers between events: attempts and their states."""

    attempts: dict[tuple[str, str, int], _Attempt] = field(default_factory=dict)
    started: set[str] = field(default_factory=set)
    # xwf -> task ids declared by task.info (for Pegasus 3.x task.edge ends)
    task_ids: dict[str, set[str]] = field(default_factory=dict)
    # xwf -> (state, time, restart count, status) per xwf.start / xwf.end, in stream order
    workflow_states: dict[str, list[tuple]] = field(default_factory=dict)
    declared: set[tuple[str, str, str]] = field(default_factory=set)  # (kind, xwf, id)
    # (kind, xwf, id) -> (line, digest of the declaration): 16 bytes per job, not its text
    declared_at: dict[tuple[str, str, str], tuple[int, bytes]] = field(default_factory=dict)
    referenced: set[tuple[str, str, str]] = field(default_factory=set)

    def tasks_of(self, xwf: str) -> set[str]:
        """The task ids ``task.info`` declared in workflow ``xwf``."""
        return self.task_ids.get(xwf, set())


class _Events:
    """One handler per Stampede event type; each yields the records the event implies."""

    def __init__(self, report: LoadReport):
        self.report = report
        self.state = _StreamState()
        #: attempts whose INSTANCE_OF the event being handled states: linked once the
        #: event's records are kept (a skipped event's are not, so a later one states it)
        self.linking: list[_Attempt] = []
        self.handlers: dict[str, Callable[[dict[str, str], float], Iterator[Record]]] = {
            "wf.plan": self.wf_plan,
            "xwf.start": self.xwf_start,
            "xwf.end": self.xwf_end,
            "task.info": self.task_info,
            "task.edge": self.task_edge,
            "job.info": self.job_info,
            "job.edge": self.job_edge,
            "wf.map.task_job": self.map_task_job,
            "xwf.map.subwf_job": self.map_subwf_job,
            "wf.map.file": self.map_file,
            "job_inst.submit.start": self.job_inst,
            "job_inst.host.info": self.host_info,
            "job_inst.image.info": self.image_info,
            "job_inst.tag": self.tag,
            "job_inst.composite": self.job_inst,
            "inv.start": self.inv_start,
            "inv.end": self.inv_end,
            "xwf.meta": self.meta,
            "task.meta": self.meta,
            "job_inst.meta": self.meta,
            "rc.meta": self.meta,
            "wf.meta": self.meta,
            "int.metric": self.int_metric,
            "rc.pfn": self.rc_pfn,
        }
        for event in pc.STATE_OF_EVENT:
            self.handlers.setdefault(event, self.job_inst)
        # events that carry no lineage or execution facts of their own
        self.ignored = {
            "static.start", "static.end", "static.meta.start", "static.meta.end",
            "job_inst.submit.start.ignored",
        }

    def command_line(self, ev: dict[str, str], program: str | None) -> str | None:
        """The event's ``argv`` without its secrets, counted in the report."""
        return redact_command_line(ev.get("argv"), program, self.report.extra)

    # ----------------------------------------------------------- workflows
    def wf_plan(self, ev, ts):
        xwf = _need(ev, "xwf.id")
        uid = pc.workflow_uid(xwf)
        root = ev.get("root.xwf.id") or xwf
        parent = ev.get("parent.xwf.id")
        yield Node(pegasus_model.WORKFLOW, uid, {
            "xwf_id": xwf,
            "name": ev.get("dax.label"),
            "label": ev.get("dax.label"),
            "index": _int(ev, "dax.index"),
            "root_xwf_id": root,
            "parent_xwf_id": parent if parent and parent != xwf else None,
            "planner_version": ev.get("planner.version"),
            "submit_dir": ev.get("submit.dir"),
            "submit_hostname": ev.get("submit.hostname"),
            "argv": self.command_line(ev, "pegasus-plan"),
            "user": ev.get("user"),
            "dax_file": ev.get("dax.file"),
            "dax_version": ev.get("dax.version"),
            "dag_file": ev.get("dag.file.name"),
            "plan_time": ts,
        })
        if ev.get("user"):
            user = model.USER.uid(ev["user"])
            yield Node(model.USER, user, {"name": ev["user"]})
            yield Edge(model.WAS_ASSOCIATED_WITH, uid, user, {"role": "submitter"})
        if parent and parent != xwf:
            yield Node(pegasus_model.WORKFLOW, pc.workflow_uid(parent), {"xwf_id": parent})
            yield Edge(model.PART_OF, uid, pc.workflow_uid(parent))

    def xwf_start(self, ev, ts):
        xwf = _need(ev, "xwf.id")
        restarts = _int(ev, "restart_count")
        self.state.workflow_states.setdefault(xwf, []).append(
            ("WORKFLOW_STARTED", ts, restarts, None))
        props = {"xwf_id": xwf, "restart_count": _int(ev, "restart_count")}
        if xwf not in self.state.started:
            self.state.started.add(xwf)
            props["start_time"] = ts
        props["status"] = "running"
        yield Node(pegasus_model.WORKFLOW, pc.workflow_uid(xwf), props)

    def xwf_end(self, ev, ts):
        xwf = _need(ev, "xwf.id")
        status = _int(ev, "status")
        restarts = _int(ev, "restart_count")
        self.state.workflow_states.setdefault(xwf, []).append(
            ("WORKFLOW_TERMINATED", ts, restarts, status))
        yield Node(pegasus_model.WORKFLOW, pc.workflow_uid(xwf), {
            "xwf_id": xwf,
            "end_time": ts,
            "exit_status": status,
            "restart_count": _int(ev, "restart_count"),
            "status": None if status is None else ("succeeded" if status == 0 else "failed"),
        })

    # ----------------------------------------------------------- tasks and jobs
    def task_info(self, ev, ts):
        xwf = _need(ev, "xwf.id")
        task = _need(ev, "task.id")
        uid = pc.task_uid(xwf, task)
        self.state.declared.add(("task", xwf, task))
        self.state.task_ids.setdefault(xwf, set()).add(task)
        yield Node(pegasus_model.TASK, uid, {
            "name": task,
            "task_id": task,
            "type": _int(ev, "type"),
            "type_desc": ev.get("type_desc"),
            "transformation": ev.get("transformation"),
            "argv": self.command_line(ev, ev.get("transformation")),
        })
        yield Edge(model.PART_OF, uid, pc.workflow_uid(xwf))

    def task_edge(self, ev, ts):
        xwf = _need(ev, "xwf.id")
        tasks = self.state.tasks_of(xwf)
        child = pc.task_of_edge_end(_need(ev, "child.task.id"), tasks)
        parent = pc.task_of_edge_end(_need(ev, "parent.task.id"), tasks)
        self.state.referenced.update({("task", xwf, child), ("task", xwf, parent)})
        yield Edge(model.WAS_INFORMED_BY, pc.task_uid(xwf, child), pc.task_uid(xwf, parent))

    def job_info(self, ev, ts):
        xwf = _need(ev, "xwf.id")
        job = _need(ev, "job.id")
        uid = pc.job_uid(xwf, job)
        self.state.declared.add(("job", xwf, job))
        yield Node(pegasus_model.JOB, uid, {
            "name": job,
            "job_id": job,
            "xwf_id": xwf,
            "submit_file": ev.get("submit_file"),
            "type": _int(ev, "type"),
            "type_desc": ev.get("type_desc"),
            "clustered": None if ev.get("clustered") is None else _int(ev, "clustered") == 1,
            "max_retries": _int(ev, "max_retries"),
            "task_count": _int(ev, "task_count"),
            "executable": ev.get("executable"),
            "argv": self.command_line(ev, ev.get("executable")),
        })
        yield Edge(model.PART_OF, uid, pc.workflow_uid(xwf))

    def job_edge(self, ev, ts):
        xwf = _need(ev, "xwf.id")
        child, parent = _need(ev, "child.job.id"), _need(ev, "parent.job.id")
        self.state.referenced.update({("job", xwf, child), ("job", xwf, parent)})
        yield Edge(model.WAS_INFORMED_BY, pc.job_uid(xwf, child), pc.job_uid(xwf, parent))

    def map_task_job(self, ev, ts):
        xwf = _need(ev, "xwf.id")
        job, task = _need(ev, "job.id"), _need(ev, "task.id")
        self.state.referenced.update({("job", xwf, job), ("task", xwf, task)})
        yield Edge(pegasus_model.RUNS_TASK, pc.job_uid(xwf, job), pc.task_uid(xwf, task))

    def map_subwf_job(self, ev, ts):
        xwf = _need(ev, "xwf.id")
        sub = _need(ev, "subwf.id")
        job = _need(ev, "job.id")
        seq = _int(ev, "job_inst.id")
        sub_uid = pc.workflow_uid(sub)
        yield Node(pegasus_model.WORKFLOW, sub_uid, {"xwf_id": sub, "parent_xwf_id": xwf})
        yield Edge(model.PART_OF, sub_uid, pc.workflow_uid(xwf))
        yield Edge(model.WAS_STARTED_BY, sub_uid, pc.job_uid(xwf, job))
        if seq is not None:
            yield Edge(model.WAS_STARTED_BY, sub_uid, pc.job_instance_uid(xwf, job, seq))

    def map_file(self, ev, ts):
        xwf = _need(ev, "xwf.id")
        lfn = _need(ev, "lfn.id")
        uid = pc.file_uid(xwf, lfn)
        yield Node(pegasus_model.FILE, uid, {"name": lfn, "lfn": lfn})
        yield Edge(model.PART_OF, uid, pc.workflow_uid(xwf))
        task = ev.get("task.id")
        if task:
            # wf.map.file says a task touches a file, not in which direction
            yield Edge(model.USED, pc.task_uid(xwf, task), uid, {"direction": "unknown"})

    def rc_pfn(self, ev, ts):
        xwf = _need(ev, "xwf.id")
        lfn = _need(ev, "lfn.id")
        yield Node(pegasus_model.FILE, pc.file_uid(xwf, lfn), {
            "lfn": lfn, "pfn": ev.get("pfn"), "site": ev.get("site"),
        })
        yield Edge(model.PART_OF, pc.file_uid(xwf, lfn), pc.workflow_uid(xwf))

    def meta(self, ev, ts):
        xwf = _need(ev, "xwf.id")
        key, value = _need(ev, "key"), ev.get("value")
        prop = "meta_" + "".join(c if c.isalnum() else "_" for c in key)
        event = ev["event"]
        if event == "task.meta":
            yield Node(pegasus_model.TASK, pc.task_uid(xwf, _need(ev, "task.id")), {prop: value})
        elif event == "rc.meta":
            lfn = _need(ev, "lfn.id")
            yield Node(pegasus_model.FILE, pc.file_uid(xwf, lfn), {"lfn": lfn, prop: value})
            yield Edge(model.PART_OF, pc.file_uid(xwf, lfn), pc.workflow_uid(xwf))
        elif event == "job_inst.meta":
            job, seq = _need(ev, "job.id"), _int(ev, "job_inst.id", required=True)
            yield Node(pegasus_model.JOB_INSTANCE, pc.job_instance_uid(xwf, job, seq), {prop: value})
        else:
            yield Node(pegasus_model.WORKFLOW, pc.workflow_uid(xwf), {prop: value})

    # ----------------------------------------------------------- attempts
    def _attempt_uid(self, ev) -> tuple[str, str, int, str]:
        xwf = _need(ev, "xwf.id")
        job = _need(ev, "job.id")
        seq = _int(ev, "job_inst.id", required=True)
        attempt = self.state.attempts.get((xwf, job, seq))
        if attempt is not None:  # its job was referenced and its uid built when first seen
            return xwf, job, seq, attempt.uid
        self.state.referenced.add(("job", xwf, job))
        return xwf, job, seq, pc.job_instance_uid(xwf, job, seq)

    def job_inst(self, ev, ts):
        xwf = _need(ev, "xwf.id")
        job = _need(ev, "job.id")
        seq = _int(ev, "job_inst.id", required=True)
        event = ev["event"]
        attempt = self.state.attempts.get(key := (xwf, job, seq))
        if attempt is None:  # not setdefault: that builds an _Attempt for every event
            self.state.referenced.add(("job", xwf, job))
            attempt = self.state.attempts[key] = _Attempt(pc.job_instance_uid(xwf, job, seq))
        uid = attempt.uid
        props: dict = {"name": f"{job} #{seq}", "submit_seq": seq, "job_id": job,
                       "sched_id": ev.get("sched.id")}
        status = _int(ev, "status")
        states = pc.STATE_OF_EVENT.get(event)
        if states is not None:
            ok_state, bad_state = states
            state = ok_state if (bad_state is None or status in (0, None)) else bad_state
            attempt.states.append(state)
            attempt.times.append(ts)
        if event == "job_inst.submit.start" or event == "job_inst.submit.end":
            props["submit_time"] = ts
        elif event == "job_inst.held.start":
            props["held_reason"] = ev.get("reason")
        elif event == "job_inst.main.start":
            props.update({
                "start_time": ts,
                "stdin_file": ev.get("stdin.file"),
                "stdout_file": ev.get("stdout.file"),
                "stderr_file": ev.get("stderr.file"),
            })
        elif event == "job_inst.main.end":
            raw = _int(ev, "exitcode")
            attempt.exitcode_raw = raw
            attempt.by_state = "exitcode" not in ev
            props.update({
                "end_time": ts,
                "status_code": status,
                "exitcode_raw": raw,
                **pc.decode_exitcode(raw),
                "stdout_file": ev.get("stdout.file"),
                "stderr_file": ev.get("stderr.file"),
                "stdout_text": pc.decode_text(ev.get("stdout.text")),
                "stderr_text": pc.decode_text(ev.get("stderr.text")),
                "site": ev.get("site"),
                "user": ev.get("user"),
                "work_dir": ev.get("work_dir"),
                "local_duration": _float(ev, "local.dur"),
                "multiplier_factor": _int(ev, "multiplier_factor"),
                "cluster_start": _time(ev, "cluster.start"),
                "cluster_duration": _float(ev, "cluster.dur"),
            })
        elif event in ("job_inst.pre.end", "job_inst.post.end"):
            phase = "pre" if ".pre." in event else "post"
            raw = _int(ev, "exitcode")
            if phase == "post":
                attempt.by_state = "exitcode" not in ev
            props[f"{phase}_exitcode"] = pc.decode_exitcode(raw)["exitcode"] if raw else raw
            if phase == "post" and raw is not None:  # Pegasus's loader stores it as the attempt's
                attempt.exitcode_raw = raw
                props.update({"exitcode_raw": raw, **pc.decode_exitcode(raw)})
        elif event == "job_inst.abort.info":
            props["abort_reason"] = ev.get("reason")
        props["states"] = list(attempt.states)
        props["state_times"] = list(attempt.times)
        props["last_state"] = attempt.states[-1] if attempt.states else None
        props["status"] = pc.attempt_status(attempt.exitcode_raw, props["last_state"],
                                            attempt.by_state)
        yield Node(pegasus_model.JOB_INSTANCE, uid, props)
        if not attempt.linked:  # once per attempt, not once per event (7 events a job)
            self.linking.append(attempt)
            yield Edge(model.INSTANCE_OF, uid, pc.job_uid(xwf, job))

    def host_info(self, ev, ts):
        xwf, job, seq, uid = self._attempt_uid(ev)
        hostname = _need(ev, "hostname")
        host = model.HOST.uid(hostname)
        yield Node(model.HOST, host, {
            "name": hostname,
            "ip": ev.get("ip"),
            "total_memory": _int(ev, "total_memory"),
            "uname": ev.get("uname"),
        })
        yield Node(pegasus_model.JOB_INSTANCE, uid, {"site": ev.get("site"), "hostname": hostname})
        yield Edge(model.WAS_ASSOCIATED_WITH, uid, host, {"site": ev.get("site")})

    def image_info(self, ev, ts):
        yield from self.job_inst(ev, ts)  # the IMAGE_SIZE state, as Pegasus's loader stores it
        _, _, _, uid = self._attempt_uid(ev)
        yield Node(pegasus_model.JOB_INSTANCE, uid, {"image_size": _int(ev, "size")})

    def tag(self, ev, ts):
        _, _, _, uid = self._attempt_uid(ev)
        yield Node(pegasus_model.JOB_INSTANCE, uid, {"tag": ev.get("name"), "tag_count": _int(ev, "count")})

    def int_metric(self, ev, ts):
        _, _, _, uid = self._attempt_uid(ev)
        kind = "".join(c if c.isalnum() else "_" for c in ev.get("type", "check"))
        yield Node(pegasus_model.JOB_INSTANCE, uid, {
            f"integrity_{kind}_count": _int(ev, "count"),
            f"integrity_{kind}_succeeded": _int(ev, "succeeded"),
            f"integrity_{kind}_failed": _int(ev, "failed"),
            f"integrity_{kind}_duration": _float(ev, "duration"),
        })

    # ----------------------------------------------------------- invocations
    def _inv_uid(self, ev) -> tuple[str, str, str]:
        xwf, job, seq, inst = self._attempt_uid(ev)
        inv = _int(ev, "inv.id", required=True)
        return xwf, inst, pc.invocation_uid(xwf, job, seq, inv)

    def inv_start(self, ev, ts):
        _, inst, uid = self._inv_uid(ev)
        yield Node(pegasus_model.INVOCATION, uid, {"inv_id": _int(ev, "inv.id")})
        yield Edge(model.PART_OF, uid, inst)

    def inv_end(self, ev, ts):
        xwf, inst, uid = self._inv_uid(ev)
        raw = _int(ev, "exitcode")
        start = _time(ev, "start_time")
        dur = _float(ev, "dur")
        yield Node(pegasus_model.INVOCATION, uid, {
            "name": ev.get("transformation") or f"invocation {_int(ev, 'inv.id')}",
            "inv_id": _int(ev, "inv.id"),
            "phase": pc.invocation_kind(_int(ev, "inv.id")),  # inv.id is the task_submit_seq
            "start_time": start,
            "duration": dur,
            "end_time": start + dur if start is not None and dur is not None else None,
            "remote_cpu_time": _float(ev, "remote_cpu_time"),
            "exitcode_raw": raw,
            **pc.decode_exitcode(raw),
            "transformation": ev.get("transformation"),
            "executable": ev.get("executable"),
            "argv": self.command_line(ev, ev.get("executable")),
            "task_id": ev.get("task.id"),
        })
        yield Edge(model.PART_OF, uid, inst)
        if ev.get("task.id"):
            yield Edge(pegasus_model.RUNS_TASK, uid, pc.task_uid(xwf, ev["task.id"]))

    # ----------------------------------------------------------- end of stream
    def finish(self, touched: set[tuple[str, str | None]] | None = None) -> Iterator[Record]:
        """Each workflow's outcome from its start/end events, and each declared job's from
        its latest attempt; references to tasks and jobs the stream never declared are
        reported (a stream with no declarations at all, such as a runtime-only fragment, is
        trusted). ``touched``: only the workflows and jobs (``(xwf, job id or None)``) the
        events since the last call named (a stream read piece by piece)."""
        workflows = None if touched is None else {xwf for xwf, _ in touched}
        yield from self._workflow_outcomes(workflows)
        yield from self._job_outcomes(workflows, touched)

    def _workflow_outcomes(self, only: set[str] | None) -> Iterator[Record]:
        for xwf, events in self.state.workflow_states.items():
            if only is not None and xwf not in only:
                continue
            events = sorted(events, key=lambda e: (e[1] is None, e[1] or 0.0))  # time order
            restarts = [e[2] for e in events if e[2] is not None]
            outcome = pc.workflow_outcome([e[0] for e in events], [e[1] for e in events],
                                          max(restarts) if restarts else None, events[-1][3])
            yield Node(pegasus_model.WORKFLOW, pc.workflow_uid(xwf), {"xwf_id": xwf, **outcome})

    def _job_outcomes(self, workflows: set[str] | None,
                      jobs: set[tuple[str, str | None]] | None) -> Iterator[Record]:
        declaring = {(kind, xwf) for kind, xwf, _ in self.state.declared}
        undeclared = sorted(
            ref for ref in self.state.referenced - self.state.declared
            if (ref[0], ref[1]) in declaring and (workflows is None or ref[1] in workflows)
        )
        if undeclared:
            self.report.extra["inconsistencies"] = len(undeclared)
            for kind, xwf, ident in undeclared:
                self.report.warn(f"{kind} {ident!r} of workflow {xwf} is referenced but not "
                                 f"declared by a {kind}.info event")
        latest: dict[tuple[str, str], tuple[int, _Attempt]] = {}
        counts: dict[tuple[str, str], int] = {}
        for (xwf, job, seq), attempt in self.state.attempts.items():
            counts[(xwf, job)] = counts.get((xwf, job), 0) + 1
            if (xwf, job) not in latest or seq > latest[(xwf, job)][0]:
                latest[(xwf, job)] = (seq, attempt)
        for (xwf, job), (seq, attempt) in latest.items():
            if ("job", xwf, job) not in self.state.declared and ("job", xwf) in declaring:
                continue
            if jobs is not None and (xwf, job) not in jobs:
                continue
            last = attempt.states[-1] if attempt.states else None
            yield Node(pegasus_model.JOB, pc.job_uid(xwf, job), {
                "job_id": job,
                "xwf_id": xwf,
                "attempts": counts[(xwf, job)],
                "last_submit_seq": seq,
                "last_state": last,
                "status": pc.job_status(pc.attempt_status(attempt.exitcode_raw, last,
                                                          attempt.by_state)),
            })


def parse_lines(lines: Iterable[str], report: LoadReport, path: str = "<lines>") -> Iterator[Record]:
    """Records from BP lines; malformed lines raise or (lenient) are skipped and counted."""
    yield from handle_events(_bp_events(lines, report, path), report, path)


def _bp_events(lines: Iterable[str], report: LoadReport, path: str) -> Iterator[tuple[int, dict]]:
    return bp_events(enumerate(lines, start=1), report, path)


def bp_events(numbered: Iterable[tuple[int, str]], report: LoadReport,
              path: str) -> Iterator[tuple[int, dict]]:
    """Decoded events of ``(line number, line)`` pairs (a whole stream, or the lines a
    stream grew by); malformed lines raise or (lenient) are skipped and counted."""
    for lineno, line in numbered:
        if len(line) > MAX_LINE:
            report.skip(path, lineno, f"a line of at most {MAX_LINE} characters",
                        line[:60])
            continue
        first = line[:1]  # most lines start with "ts=": no need to copy them to look closer
        if (not first or first.isspace() or first == "#") and (
                not line.strip() or line.lstrip().startswith("#")):
            continue
        try:
            ev = parse_line(line)
        except BPSyntaxError as exc:
            report.skip(path, lineno, "key=value pairs (NetLogger BP)", f"{exc}: {line[:80]}")
            continue
        if not ev.get("event") or "ts" not in ev:
            report.skip(path, lineno, "a BP event with 'ts' and 'event' keys", line[:80])
            continue
        yield lineno, ev


def handle_events(events: Iterable[tuple[int, dict]], report: LoadReport,
                  path: str = "<events>") -> Iterator[Record]:
    """Records from decoded Stampede events (``(line number, {key: string value})``, keys
    spelled as in BP: ``xwf.id``); shared by the BP and the JSON-lines readers."""
    handlers = _Events(report)
    try:
        yield from _handled(handlers, events, report, path)
    finally:  # its bound handlers make a cycle holding the whole stream state: break it, so
        handlers.handlers.clear()  # the state goes at once, not at a later full collection


class EventStream:
    """Stampede events read piece by piece (``lineage watch``: the lines a stream grew by):
    the stream's state (an attempt's states so far, the workflows started, the declarations)
    is kept from one piece to the next, so each piece's records say what the whole stream
    says so far of what its events touched, and each piece ends with the outcomes so far of
    the workflows and jobs its events named.

    >>> stream = EventStream()
    >>> first = [(1, {"ts": "1", "event": "stampede.job_inst.submit.end", "xwf.id": "w",
    ...               "job.id": "j", "job_inst.id": "1"})]
    >>> then = [(2, {"ts": "2", "event": "stampede.job_inst.main.start", "xwf.id": "w",
    ...              "job.id": "j", "job_inst.id": "1"})]
    >>> _ = list(stream.records(first, LoadReport("x.bp", "pegasus-bp")))
    >>> [r.props["states"] for r in stream.records(then, LoadReport("x.bp", "pegasus-bp"))
    ...  if getattr(r, "kind", None) is pegasus_model.JOB_INSTANCE]
    [['SUBMIT', 'EXECUTE']]
    """

    def __init__(self) -> None:
        self.handlers: _Events | None = None

    def records(self, events: Iterable[tuple[int, dict]], report: LoadReport,
                path: str = "<events>") -> Iterator[Record]:
        """The records of the next piece's decoded events (as :func:`handle_events`)."""
        if self.handlers is None:
            self.handlers = _Events(report)
        self.handlers.report = report
        # the outcomes of the workflows and jobs these events name: the others' stand
        yield from _handled(self.handlers, events, report, path, touched=set())


def _handled(handlers: "_Events", events: Iterable[tuple[int, dict]], report: LoadReport,
             path: str, touched: set | None = None) -> Iterator[Record]:
    counts = report.extra.setdefault("events", {})
    # an attempt's JobInstance record, the properties of its next kept events merged in: an
    # attempt has an event per state (7 or more), and each record costs every step after
    # this one; merged as the writer would (a later value wins, None never erases)
    pending: Node | None = None
    for lineno, ev in events:
        name = ev["event"]
        if name.startswith("stampede."):
            name = name[len("stampede."):]
        ev["event"] = name
        if pc.canonical_keys(ev):
            counts["older key spellings"] = counts.get("older key spellings", 0) + 1
        if touched is not None:
            touched.add((ev.get("xwf.id"), ev.get("job.id")))
        handler = handlers.handlers.get(name)
        if handler is None:
            if name in handlers.ignored:  # known, and carrying nothing for the graph
                ignored = report.extra.setdefault("ignored_events", {})
                ignored[name] = ignored.get(name, 0) + 1
            else:
                report.unknown_item(f"event {name}")
            continue
        try:
            ts = parse_timestamp(ev["ts"])
            if name in DECLARATIONS:
                _check_redeclaration(handlers.state, ev, lineno)
            produced = list(handler(ev, ts))
        except _Missing as exc:
            handlers.linking.clear()
            report.skip(path, lineno, exc.expected, exc.found)
            continue
        except ValueError as exc:
            handlers.linking.clear()
            report.skip(path, lineno, "a valid 'ts' timestamp", str(exc))
            continue
        if handlers.linking:
            for attempt in handlers.linking:
                attempt.linked = True
            handlers.linking.clear()
        counts[name] = counts.get(name, 0) + 1
        for record in produced:
            if record.__class__ is Node and record.kind is _JOB_INSTANCE:
                if pending is not None:
                    if pending.uid == record.uid and pending.extra_labels == record.extra_labels:
                        merged = pending.props
                        for key, value in record.props.items():
                            if value is not None:
                                merged[key] = value
                        continue
                    yield pending
                pending = record
            else:
                yield record
    if pending is not None:
        yield pending
    yield from handlers.finish(touched)


_JOB_INSTANCE = pegasus_model.JOB_INSTANCE


def _check_redeclaration(state: _StreamState, ev: dict[str, str], lineno: int) -> None:
    """A second job.info / task.info for one id must repeat the first one exactly."""
    kind, id_key = DECLARATIONS[ev["event"]]
    key = (kind, _need(ev, "xwf.id"), _need(ev, id_key))
    content = ev.copy()
    for name in _NOT_CONTENT:
        content.pop(name, None)
    # marshal version 0: length-prefixed UTF-8 of each string (surrogates too), twice as fast
    # as repr; later versions write back-references and interning, so equal values could
    # encode differently
    digest = hashlib.blake2b(marshal.dumps(sorted(content.items()), 0), digest_size=16).digest()
    first = state.declared_at.get(key)
    if first is None:
        state.declared_at[key] = (lineno, digest)
    elif first[1] != digest:
        raise _Missing(
            f"one {ev['event']} per {kind} id ({kind} {key[2]!r} was declared at line "
            f"{first[0]} with other values)",
            "a declaration with different values",
        )


def utf8_lines(path: Path, report: LoadReport) -> Iterator[str]:
    """Decoded lines, bounded and checked for a cut-short end (see :mod:`..lines`)."""
    return bounded_lines(path, report, MAX_LINE)


def parse(path: Path, report: LoadReport) -> Iterator[Record]:
    """Records of one BP file. (It is also the format ``--source pegasus`` reads a file with
    when no Pegasus format recognised it: a SQLite file is then named for what it is.)"""
    with open(path, "rb") as head:
        if head.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC:
            raise _not_pegasus_sqlite(Path(path))
    yield from parse_lines(utf8_lines(Path(path), report), report, str(path))


def _not_pegasus_sqlite(path: Path) -> WholeInputError:
    """The error for a SQLite file that is neither a Stampede nor a master database."""
    try:
        found = "a SQLite database with tables " + (", ".join(sorted(sqlite_tables(path)))
                                                    or "none")
    except sqlite3.Error as exc:
        found = f"a SQLite database that cannot be read ({exc})"
    return WholeInputError(str(path), None, "a Pegasus BP stream, a Stampede database (tables "
                           "workflow, job, job_instance, jobstate ...) or a master database "
                           "(tables master_workflow, master_workflowstate)", found)


def detect(path: Path, head: bytes) -> bool:
    """A BP file: its first non-empty line has ``ts=`` and an ``event=`` of the Stampede schema."""
    text = head.removeprefix(b"\xef\xbb\xbf").decode("utf-8", errors="replace")
    for line in io.StringIO(text):
        if line.strip():
            return line.startswith("ts=") and (
                " event=stampede." in line or " event=" in line and path.suffix == ".bp"
            )
    return False


FORMATS = [
    Format(
        name="pegasus-bp",
        source="pegasus",
        detect=detect,
        parse=parse,
        description="Pegasus Stampede events, NetLogger BP (monitord and 5.x static.bp)",
        fallback=True,
    )
]
