"""Workflows, tasks, jobs, attempts and invocations of a Stampede database into records.

The uids are the ones the BP reader gives (see :mod:`..mapping`): a job attempt is keyed by
``job_instance.job_submit_seq`` (``job_inst.id`` in BP), an invocation by that and
``invocation.task_submit_seq`` (``inv.id``), so a run's ``.bp`` stream and its database load
into one graph. Job attempts and their states come from two ordered streams merged on
``(job_id, job_submit_seq)``, so memory stays flat however many ``jobstate`` rows there are.
Rows not loaded because a row they belong to is missing (``orphan_rows``) or because they have
no id (``rows_without_id``) are counted per table, with one warning per table.

A database from before schema version 0 (Pegasus 4.2 and older) has no
``job_instance.exitcode``: an attempt's outcome is then its last state's, by the rule
Pegasus's own migration to version 0 applies (:func:`..mapping.attempt_status`).

>>> DROPS["orphan_rows"].format(n=2, table="jobstate", rows="rows", example="job_id 9")[:20]
'2 orphan jobstate ro'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from .... import model
from ...base import LoadReport
from ....model.records import Edge, Node, Record
from ....secrets import redact_command_line
from .. import mapping as pc
from .. import model as pegasus_model
from .schema import Schema, integer, num, prop

#: Why a row is not loaded, with the one warning per table that sums the rows up.
DROPS = {
    "orphan_rows": "{n} orphan {table} {rows} (parent not in the database, e.g. "
                   "{example}); not loaded",
    "rows_without_id": "{n} {table} {rows} without an id to load by (e.g. {example}); "
                       "not loaded",
}


#: The columns the workflow table and the master index (``master_workflow``) share.
PLAN_COLUMNS = ("wf_uuid", "dag_file_name", "timestamp", "submit_hostname", "submit_dir",
                "planner_arguments", "user", "grid_dn", "planner_version", "dax_label",
                "dax_version", "dax_file")


def plan_records(table: str, r, props: dict, report: LoadReport) -> Iterator[Record]:
    """A workflow's node, with ``props``, and its submitting user, from a row of
    :data:`PLAN_COLUMNS` read from ``table`` (``workflow`` or ``master_workflow``); the
    planner's arguments without their secrets (counted in ``report``)."""
    xwf = r[f"{table}_wf_uuid"]
    uid = pc.workflow_uid(xwf)
    yield Node(pegasus_model.WORKFLOW, uid, {
        "xwf_id": xwf,
        "name": r[f"{table}_dax_label"] or xwf,
        "label": r[f"{table}_dax_label"],
        "planner_version": r[f"{table}_planner_version"],
        "submit_dir": r[f"{table}_submit_dir"],
        "submit_hostname": r[f"{table}_submit_hostname"],
        "argv": redact_command_line(r[f"{table}_planner_arguments"], "pegasus-plan",
                                    report.extra),
        "user": r[f"{table}_user"],
        "grid_dn": r[f"{table}_grid_dn"],
        "dax_file": r[f"{table}_dax_file"],
        "dax_version": r[f"{table}_dax_version"],
        "dag_file": r[f"{table}_dag_file_name"],
        "plan_time": num(r, f"{table}_timestamp"),
        **props,
    })
    if r[f"{table}_user"]:
        user = model.USER.uid(r[f"{table}_user"])
        yield Node(model.USER, user, {"name": r[f"{table}_user"]})
        yield Edge(model.WAS_ASSOCIATED_WITH, uid, user, {"role": "submitter"})


def grouped_states(s: Schema, table: str) -> Iterator[tuple]:
    """``(wf_id, rows)`` of ``table`` (``workflowstate`` or ``master_workflowstate``), each
    workflow's rows in time order."""
    from sqlalchemy import select

    t = s.t[table]
    stmt = select(*[s.c(table, c) for c in (
        "wf_id", "state", "timestamp", "restart_count", "status", "reason")]
    ).order_by(t.c.wf_id, t.c.timestamp)
    current, rows = None, []
    for r in s.stream(stmt):
        if r[f"{table}_wf_id"] != current and rows:
            yield current, rows
            rows = []
        current = r[f"{table}_wf_id"]
        rows.append(dict(r))
    if rows:
        yield current, rows


def outcome(table: str, rows: list) -> dict:
    """A workflow's outcome properties from its time-ordered state rows of ``table``."""
    last = rows[-1]
    return pc.workflow_outcome(
        [r[f"{table}_state"] for r in rows], [num(r, f"{table}_timestamp") for r in rows],
        max(integer(r, f"{table}_restart_count") or 0 for r in rows),
        integer(last, f"{table}_status"), last[f"{table}_reason"])


@dataclass
class _Workflow:
    uuid: str
    parent: int | None
    root: int | None


@dataclass
class _Attempt:
    states: list[str] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    reasons: dict[str, str] = field(default_factory=dict)


class Reader:
    """Reads the run tables of one Stampede database into records, counting every row it
    does not load (see the module's docstring)."""

    def __init__(self, schema: Schema, report: LoadReport, where: str):
        self.s = schema
        self.report = report
        self.where = where
        self.wfs: dict[int, _Workflow] = {}
        self.hosts: dict[int, str] = {}
        self.counts = report.extra.setdefault("rows", {})
        self.examples: dict[tuple[str, str], str] = {}  # (reason, table) -> first example
        # before schema 0 attempts have no exit code: their last state decides
        self.by_state = not schema.has_column("job_instance", "exitcode")
        #: the jobs to read (a query of ``job_id`` values), None: all (see :meth:`scoped`)
        self.scope = None

    def scoped(self, stmt, job_id):
        """``stmt`` restricted to the rows of the jobs of :attr:`scope` (``job_id`` is the
        column naming a row's job); as it is when every job is read."""
        return stmt if self.scope is None else stmt.where(job_id.in_(self.scope))

    def command_line(self, argv, program):
        """A row's command line without its secrets, counted in the report."""
        return redact_command_line(argv, program, self.report.extra)

    def count(self, table: str, n: int = 1) -> None:
        """Count ``n`` rows of ``table`` as read."""
        if n:
            self.counts[table] = self.counts.get(table, 0) + n

    def drop(self, reason: str, table: str, example: str, n: int = 1) -> None:
        """Count ``n`` rows of ``table`` not loaded for ``reason`` (a key of :data:`DROPS`)."""
        counts = self.report.extra.setdefault(reason, {})
        counts[table] = counts.get(table, 0) + n
        self.examples.setdefault((reason, table), example)

    def orphans(self, table: str, *links: tuple) -> None:
        """Count (as read and as orphans) the rows of ``table`` that the inner joins of a
        read leave out: each link ``(column, parent, key)`` keeps a row whose ``column``
        equals ``key``, a column of the ``parent`` table or join. Not counted when only some
        jobs are read (:attr:`scope`)."""
        from sqlalchemy import func, literal, or_, select

        if self.scope is not None:
            return

        child = self.s.t[table]
        lost = [(column, ~select(literal(1)).select_from(parent)
                 .where(key == child.c[column]).exists()) for column, parent, key in links]
        with self.s.connect() as conn:
            n = conn.execute(select(func.count()).select_from(child)
                             .where(or_(*(cond for _, cond in lost)))).scalar_one()
            if not n:
                return
            for column, cond in lost:
                found, example = conn.execute(select(func.count(), func.min(child.c[column]))
                                              .select_from(child).where(cond)).one()
                if found:
                    break
        self.count(table, n)
        self.drop("orphan_rows", table, f"{column} {example}", n)

    def warn_drops(self) -> None:
        """One warning per table and reason for the rows that were not loaded."""
        for reason, template in DROPS.items():
            for table, n in sorted(self.report.extra.get(reason, {}).items()):
                example = self.examples.get((reason, table), "?")
                self.report.warn(f"{self.where}: " + template.format(
                    n=n, table=table, rows="row" if n == 1 else "rows", example=example))

    def uuid(self, wf_id) -> str | None:
        wf = self.wfs.get(wf_id)
        return wf.uuid if wf else None

    # ----------------------------------------------------------- workflows
    def workflows(self) -> Iterator[Record]:
        from sqlalchemy import select

        s = self.s
        cols = [s.c("workflow", c) for c in ("wf_id", *PLAN_COLUMNS, "parent_wf_id", "root_wf_id")]
        rows = list(s.stream(select(*cols).order_by(s.t["workflow"].c.wf_id)))
        for r in rows:
            self.wfs[r["workflow_wf_id"]] = _Workflow(
                r["workflow_wf_uuid"], r["workflow_parent_wf_id"], r["workflow_root_wf_id"])
        for r in rows:
            self.count("workflow")
            xwf = r["workflow_wf_uuid"]
            parent = self.uuid(r["workflow_parent_wf_id"])
            root = self.uuid(r["workflow_root_wf_id"]) or (xwf if parent is None else None)
            yield from plan_records("workflow", r, {
                "root_xwf_id": root, "parent_xwf_id": parent, "is_root": parent is None},
                self.report)
            if parent is not None:
                yield Edge(model.PART_OF, pc.workflow_uid(xwf), pc.workflow_uid(parent))
            elif r["workflow_parent_wf_id"] is not None:
                self.report.warn(f"{self.where}: workflow {xwf} names a parent wf_id "
                                 f"{r['workflow_parent_wf_id']} that is not in the database")

    def workflow_states(self) -> Iterator[Record]:
        """Start, end, restarts and final status of each workflow (rescue DAGs restart it)."""
        if not self.s.has("workflowstate"):
            self.report.warn(f"{self.where}: no workflowstate table; workflow status unknown")
            return
        for wf_id, rows in grouped_states(self.s, "workflowstate"):
            self.count("workflowstate", len(rows))
            xwf = self.uuid(wf_id)
            if xwf is None:
                self.drop("orphan_rows", "workflowstate", f"wf_id {wf_id}", len(rows))
                continue
            yield Node(pegasus_model.WORKFLOW, pc.workflow_uid(xwf),
                       {"xwf_id": xwf, **outcome("workflowstate", rows)})

    def workflow_meta(self) -> Iterator[Record]:
        from sqlalchemy import select

        s = self.s
        if not s.has("workflow_meta"):
            return
        stmt = select(s.c("workflow_meta", "wf_id"), s.c("workflow_meta", "key"),
                      s.c("workflow_meta", "value"))
        for r in s.stream(stmt):
            self.count("workflow_meta")
            xwf = self.uuid(r["workflow_meta_wf_id"])
            if xwf is None:
                self.drop("orphan_rows", "workflow_meta", f"wf_id {r['workflow_meta_wf_id']}")
                continue
            yield Node(pegasus_model.WORKFLOW, pc.workflow_uid(xwf),
                       {prop(r["workflow_meta_key"]): r["workflow_meta_value"]})

    # ----------------------------------------------------------- hosts
    def hosts_table(self) -> Iterator[Record]:
        from sqlalchemy import select

        s = self.s
        if not s.has("host"):
            return
        stmt = select(*[s.c("host", c) for c in (
            "host_id", "site", "hostname", "ip", "uname", "total_memory")])
        for r in s.stream(stmt):
            self.count("host")
            name = r["host_hostname"]
            if not name:
                self.drop("rows_without_id", "host", f"host_id {r['host_host_id']}: no hostname")
                continue
            self.hosts[r["host_host_id"]] = name
            yield Node(model.HOST, model.HOST.uid(name), {
                "name": name, "ip": r["host_ip"], "uname": r["host_uname"],
                "total_memory": integer(r, "host_total_memory"),
            })

    # ----------------------------------------------------------- tasks
    def tasks(self) -> Iterator[Record]:
        from sqlalchemy import select

        s = self.s
        if not s.has("task"):
            return
        task, job = s.t["task"], s.t["job"]
        stmt = select(
            *[s.c("task", c) for c in ("task_id", "wf_id", "abs_task_id", "transformation",
                                         "argv", "type_desc")],
            s.c("job", "exec_job_id"),
        ).select_from(task.outerjoin(job, task.c.job_id == job.c.job_id))
        for r in s.stream(stmt):
            self.count("task")
            xwf = self.uuid(r["task_wf_id"])
            if xwf is None:
                self.drop("orphan_rows", "task", f"wf_id {r['task_wf_id']}")
                continue
            if not r["task_abs_task_id"]:
                self.drop("rows_without_id", "task",
                           f"task_id {r['task_task_id']}: no abs_task_id")
                continue
            tid = r["task_abs_task_id"]
            uid = pc.task_uid(xwf, tid)
            yield Node(pegasus_model.TASK, uid, {
                "name": tid, "task_id": tid, "transformation": r["task_transformation"],
                "argv": self.command_line(r["task_argv"], r["task_transformation"]),
                "type_desc": r["task_type_desc"],
            })
            yield Edge(model.PART_OF, uid, pc.workflow_uid(xwf))
            if r["job_exec_job_id"]:
                yield Edge(pegasus_model.RUNS_TASK, pc.job_uid(xwf, r["job_exec_job_id"]), uid)

    def task_edges(self) -> Iterator[Record]:
        yield from self._edges("task_edge", "abs_task_id", pc.task_uid)

    def task_meta(self) -> Iterator[Record]:
        from sqlalchemy import select

        s = self.s
        if not s.has("task_meta", "task"):
            return
        tm, task = s.t["task_meta"], s.t["task"]
        stmt = select(s.c("task", "wf_id"), s.c("task", "abs_task_id"),
                      s.c("task_meta", "key"), s.c("task_meta", "value")
                      ).select_from(tm.join(task, tm.c.task_id == task.c.task_id))
        for r in s.stream(stmt):
            self.count("task_meta")
            xwf = self.uuid(r["task_wf_id"])
            if xwf is None:
                self.drop("orphan_rows", "task_meta", f"wf_id {r['task_wf_id']}")
                continue
            yield Node(pegasus_model.TASK, pc.task_uid(xwf, r["task_abs_task_id"]),
                       {prop(r["task_meta_key"]): r["task_meta_value"]})
        self.orphans("task_meta", ("task_id", task, task.c.task_id))

    # ----------------------------------------------------------- jobs and attempts
    def job_edges(self) -> Iterator[Record]:
        yield from self._edges("job_edge", "exec_job_id", pc.job_uid)

    def _edges(self, table: str, id_column: str, uid_of) -> Iterator[Record]:
        """``WAS_INFORMED_BY`` child -> parent from ``task_edge`` / ``job_edge``; rows of an
        unknown workflow are counted as orphans."""
        from sqlalchemy import select

        s = self.s
        if not s.has(table):
            return
        parent, child = f"parent_{id_column}", f"child_{id_column}"
        stmt = select(*[s.c(table, c) for c in ("wf_id", parent, child)])
        for r in s.stream(stmt):
            self.count(table)
            xwf = self.uuid(r[f"{table}_wf_id"])
            if xwf is None:
                self.drop("orphan_rows", table, f"wf_id {r[f'{table}_wf_id']}")
                continue
            yield Edge(model.WAS_INFORMED_BY, uid_of(xwf, r[f"{table}_{child}"]),
                       uid_of(xwf, r[f"{table}_{parent}"]))

    def _state_stream(self) -> Iterator[tuple[tuple[int, int], dict]]:
        from sqlalchemy import select

        s = self.s
        js, ji = s.t["jobstate"], s.t["job_instance"]
        stmt = (
            select(s.alias("k_job", "job_instance", "job_id"),
                   s.alias("k_seq", "job_instance", "job_submit_seq"),
                   s.c("jobstate", "state"), s.c("jobstate", "timestamp"),
                   s.c("jobstate", "reason"))
            .select_from(js.join(ji, js.c.job_instance_id == ji.c.job_instance_id))
            .order_by(ji.c.job_id, ji.c.job_submit_seq, js.c.timestamp,
                      *([js.c.jobstate_submit_seq] if "jobstate_submit_seq" in js.c else []))
        )
        for r in s.stream(self.scoped(stmt, ji.c.job_id)):
            self.count("jobstate")
            yield (r["k_job"], r["k_seq"]), r

    def jobs(self) -> Iterator[Record]:
        """Jobs with their attempts (left join, so never-submitted jobs come too), merged
        with the ordered job states of each attempt."""
        from sqlalchemy import select

        s = self.s
        job, ji = s.t["job"], s.t["job_instance"]
        job_cols = [s.c("job", c) for c in (
            "job_id", "wf_id", "exec_job_id", "submit_file", "type_desc", "clustered",
            "max_retries", "executable", "argv", "task_count")]
        ji_cols = [s.c("job_instance", c) for c in (
            "job_instance_id", "host_id", "job_submit_seq", "sched_id", "site", "user",
            "work_dir", "cluster_start", "cluster_duration", "local_duration", "subwf_id",
            "stdout_file", "stdout_text", "stderr_file", "stderr_text", "stdin_file",
            "multiplier_factor", "exitcode")]
        stmt = (select(*job_cols, *ji_cols)
                .select_from(job.outerjoin(ji, job.c.job_id == ji.c.job_id))
                .order_by(job.c.job_id, ji.c.job_submit_seq))
        states = self._state_stream()
        pending = next(states, None)
        current = None  # (job row, attempts, last attempt row, last attempt)
        for r in s.stream(self.scoped(stmt, job.c.job_id)):
            if current is not None and current[0]["job_job_id"] != r["job_job_id"]:
                yield from self._job_summary(*current)
                current = None
            if current is None:
                self.count("job")  # one row of the join per attempt; one job row
                current = [r, 0, None, None]
            if r["job_instance_job_instance_id"] is None:
                continue
            key = (r["job_job_id"], r["job_instance_job_submit_seq"])
            attempt = _Attempt()
            while pending is not None and pending[0] < key:  # states the join dropped
                pending = self._orphan_state(pending, states)
            while pending is not None and pending[0] == key:
                row = pending[1]
                attempt.states.append(row["jobstate_state"])
                attempt.times.append(num(row, "jobstate_timestamp"))
                if row["jobstate_reason"]:
                    attempt.reasons[row["jobstate_state"]] = row["jobstate_reason"]
                pending = next(states, None)
            current[1] += 1
            current[2], current[3] = r, attempt
            yield from self._attempt(r, attempt)
        if current is not None:
            yield from self._job_summary(*current)
        while pending is not None:
            pending = self._orphan_state(pending, states)
        self.orphans("job_instance", ("job_id", job, job.c.job_id))
        self.orphans("jobstate", ("job_instance_id", ji, ji.c.job_instance_id))

    def _orphan_state(self, pending, states):
        """Count a state of an attempt whose job is not in the database; the next one."""
        self.drop("orphan_rows", "jobstate", f"job_id {pending[0][0]}")
        return next(states, None)

    def _attempt(self, r, attempt: _Attempt) -> Iterator[Record]:
        self.count("job_instance")
        xwf = self.uuid(r["job_wf_id"])
        if xwf is None:
            self.drop("orphan_rows", "job_instance", f"wf_id {r['job_wf_id']}")
            if attempt.states:
                self.drop("orphan_rows", "jobstate", f"wf_id {r['job_wf_id']}",
                           len(attempt.states))
            return
        job_id, seq = r["job_exec_job_id"], r["job_instance_job_submit_seq"]
        uid = pc.job_instance_uid(xwf, job_id, seq)
        raw = integer(r, "job_instance_exitcode")
        last = attempt.states[-1] if attempt.states else None

        def first(*names):
            for name in names:
                for st, t in zip(attempt.states, attempt.times):
                    if st == name:
                        return t
            return None

        start = first("EXECUTE")
        end = first("JOB_SUCCESS", "JOB_FAILURE", "JOB_TERMINATED")
        host = self.hosts.get(r["job_instance_host_id"])
        yield Node(pegasus_model.JOB_INSTANCE, uid, {
            "name": f"{job_id} #{seq}",
            "job_id": job_id,
            "xwf_id": xwf,
            "submit_seq": seq,
            "sched_id": r["job_instance_sched_id"],
            "site": r["job_instance_site"],
            "user": r["job_instance_user"],
            "work_dir": r["job_instance_work_dir"],
            "cluster_start": num(r, "job_instance_cluster_start"),
            "cluster_duration": num(r, "job_instance_cluster_duration"),
            "local_duration": num(r, "job_instance_local_duration"),
            "multiplier_factor": integer(r, "job_instance_multiplier_factor"),
            "exitcode_raw": raw,
            **pc.decode_exitcode(raw),
            "stdout_file": r["job_instance_stdout_file"],
            "stderr_file": r["job_instance_stderr_file"],
            "stdin_file": r["job_instance_stdin_file"],
            "stdout_text": pc.decode_text(r["job_instance_stdout_text"]),
            "stderr_text": pc.decode_text(r["job_instance_stderr_text"]),
            "hostname": host,
            "states": attempt.states,
            "state_times": attempt.times,
            "last_state": last,
            "status": pc.attempt_status(raw, last, self.by_state),
            "held_reason": attempt.reasons.get("JOB_HELD"),
            "abort_reason": attempt.reasons.get("JOB_ABORTED"),
            "submit_time": first("SUBMIT", "PRE_SCRIPT_STARTED"),
            "start_time": start,
            "end_time": end,
            "duration": end - start if end is not None and start is not None else None,
        })
        yield Edge(model.INSTANCE_OF, uid, pc.job_uid(xwf, job_id))
        if host:
            yield Edge(model.WAS_ASSOCIATED_WITH, uid, model.HOST.uid(host),
                       {"site": r["job_instance_site"]})
        sub = self.uuid(r["job_instance_subwf_id"])
        if sub:
            sub_uid = pc.workflow_uid(sub)
            yield Edge(model.WAS_STARTED_BY, sub_uid, pc.job_uid(xwf, job_id))
            yield Edge(model.WAS_STARTED_BY, sub_uid, uid)
        elif r["job_instance_subwf_id"] is not None:
            self.report.warn(f"{self.where}: attempt {job_id} #{seq} ran sub-workflow "
                             f"wf_id {r['job_instance_subwf_id']}, which is not in the database")

    def _job_summary(self, r, attempts: int, last_row, last: _Attempt | None) -> Iterator[Record]:
        xwf = self.uuid(r["job_wf_id"])
        if xwf is None:
            self.drop("orphan_rows", "job",
                       f"job {r['job_exec_job_id']} of wf_id {r['job_wf_id']}")
            return
        job_id = r["job_exec_job_id"]
        uid = pc.job_uid(xwf, job_id)
        raw = integer(last_row, "job_instance_exitcode") if last_row is not None else None
        last_state = last.states[-1] if last and last.states else None
        clustered = r["job_clustered"]
        yield Node(pegasus_model.JOB, uid, {
            "name": job_id,
            "job_id": job_id,
            "xwf_id": xwf,
            "submit_file": r["job_submit_file"],
            "type_desc": r["job_type_desc"],
            "clustered": None if clustered is None else bool(clustered),
            "max_retries": integer(r, "job_max_retries"),
            "task_count": integer(r, "job_task_count"),
            "executable": r["job_executable"],
            "argv": self.command_line(r["job_argv"], r["job_executable"]),
            "attempts": attempts,
            "retries": max(attempts - 1, 0),
            "last_submit_seq": last_row["job_instance_job_submit_seq"] if last_row else None,
            "last_state": last_state,
            "status": pc.job_status(pc.attempt_status(raw, last_state, self.by_state)
                                    if attempts else None),
            "exitcode_raw": raw,
            **pc.decode_exitcode(raw),
            "held_reason": last.reasons.get("JOB_HELD") if last else None,
            "host": self.hosts.get(last_row["job_instance_host_id"]) if last_row else None,
        })
        yield Edge(model.PART_OF, uid, pc.workflow_uid(xwf))

    # ----------------------------------------------------------- invocations
    def invocations(self) -> Iterator[Record]:
        from sqlalchemy import select

        s = self.s
        if not s.has("invocation"):
            return
        inv, ji, job = s.t["invocation"], s.t["job_instance"], s.t["job"]
        stmt = (
            select(*[s.c("invocation", c) for c in (
                "task_submit_seq", "start_time", "remote_duration", "remote_cpu_time",
                "exitcode", "transformation", "executable", "argv", "abs_task_id", "maxrss",
                "avg_cpu")],
                s.c("job_instance", "job_submit_seq"), s.c("job", "exec_job_id"),
                s.c("job", "wf_id"))
            .select_from(inv.join(ji, inv.c.job_instance_id == ji.c.job_instance_id)
                         .join(job, ji.c.job_id == job.c.job_id))
        )
        for r in s.stream(self.scoped(stmt, job.c.job_id)):
            self.count("invocation")
            xwf = self.uuid(r["job_wf_id"])
            if xwf is None:
                self.drop("orphan_rows", "invocation", f"wf_id {r['job_wf_id']}")
                continue
            job_id, seq = r["job_exec_job_id"], r["job_instance_job_submit_seq"]
            inv_id = integer(r, "invocation_task_submit_seq")
            uid = pc.invocation_uid(xwf, job_id, seq, inv_id)
            start, dur = num(r, "invocation_start_time"), num(r, "invocation_remote_duration")
            raw = integer(r, "invocation_exitcode")
            task = r["invocation_abs_task_id"]
            yield Node(pegasus_model.INVOCATION, uid, {
                "name": r["invocation_transformation"] or f"invocation {inv_id}",
                "inv_id": inv_id,
                "phase": pc.invocation_kind(inv_id),
                "start_time": start,
                "duration": dur,
                "end_time": start + dur if start is not None and dur is not None else None,
                "remote_cpu_time": num(r, "invocation_remote_cpu_time"),
                "exitcode_raw": raw,
                **pc.decode_exitcode(raw),
                "transformation": r["invocation_transformation"],
                "executable": r["invocation_executable"],
                "argv": self.command_line(r["invocation_argv"], r["invocation_executable"]),
                "task_id": task,
                "maxrss": integer(r, "invocation_maxrss"),
                "avg_cpu": num(r, "invocation_avg_cpu"),
            })
            yield Edge(model.PART_OF, uid, pc.job_instance_uid(xwf, job_id, seq))
            if task:
                yield Edge(pegasus_model.RUNS_TASK, uid, pc.task_uid(xwf, task))
        attempts = ji.join(job, ji.c.job_id == job.c.job_id)
        self.orphans("invocation", ("job_instance_id", attempts, ji.c.job_instance_id))

    def attempt_extras(self) -> Iterator[Record]:
        """Tags (``job_inst.tag``) and integrity checks of attempts."""
        from sqlalchemy import select

        s = self.s
        ji, job = s.t["job_instance"], s.t["job"]
        base = ji.join(job, ji.c.job_id == job.c.job_id)
        keys = (s.c("job", "wf_id"), s.c("job", "exec_job_id"),
                s.c("job_instance", "job_submit_seq"))
        if s.has("tag"):
            tag = s.t["tag"]
            stmt = select(*keys, s.c("tag", "name"), s.c("tag", "count")).select_from(
                tag.join(base, tag.c.job_instance_id == ji.c.job_instance_id))
            for r in s.stream(self.scoped(stmt, job.c.job_id)):
                self.count("tag")
                xwf = self.uuid(r["job_wf_id"])
                if xwf is None:
                    self.drop("orphan_rows", "tag", f"wf_id {r['job_wf_id']}")
                    continue
                yield Node(pegasus_model.JOB_INSTANCE, pc.job_instance_uid(
                    xwf, r["job_exec_job_id"], r["job_instance_job_submit_seq"]),
                    {"tag": r["tag_name"], "tag_count": integer(r, "tag_count")})
            self.orphans("tag", ("job_instance_id", base, ji.c.job_instance_id))
        if s.has("integrity"):
            integ = s.t["integrity"]
            stmt = select(*keys, s.c("integrity", "type"), s.c("integrity", "file_type"),
                          s.c("integrity", "count"), s.c("integrity", "duration")).select_from(
                integ.join(base, integ.c.job_instance_id == ji.c.job_instance_id))
            for r in s.stream(self.scoped(stmt, job.c.job_id)):
                self.count("integrity")
                xwf = self.uuid(r["job_wf_id"])
                if xwf is None:
                    self.drop("orphan_rows", "integrity", f"wf_id {r['job_wf_id']}")
                    continue
                kind = "_".join(x for x in (r["integrity_type"], r["integrity_file_type"]) if x)
                kind = "".join(c if c.isalnum() else "_" for c in kind)
                yield Node(pegasus_model.JOB_INSTANCE, pc.job_instance_uid(
                    xwf, r["job_exec_job_id"], r["job_instance_job_submit_seq"]), {
                    f"integrity_{kind}_count": integer(r, "integrity_count"),
                    f"integrity_{kind}_duration": num(r, "integrity_duration"),
                })
            self.orphans("integrity", ("job_instance_id", base, ji.c.job_instance_id))
