"""Pegasus Stampede databases (``*.stampede.db`` SQLite files, or a MySQL / PostgreSQL
Stampede database named by URL) into lineage records, read-only and streamed.

The uids are the ones the BP loader gives (see :mod:`.pegasus_common`): a job attempt is
keyed by ``job_instance.job_submit_seq`` (``job_inst.id`` in BP), an invocation by that and
``invocation.task_submit_seq`` (``inv.id``), so a run's ``.bp`` stream and its database load
into one graph.

Rows are streamed (``yield_per``: server-side cursors on PostgreSQL / MySQL); the only
tables held in memory are ``workflow`` and ``host``, which are small. Job attempts and their
states come from two ordered streams merged on ``(job_id, job_submit_seq)``, so memory stays
flat however many ``jobstate`` rows there are. The schema is inspected first: optional tables
(``task``, ``invocation``, ``rc_*``, ``workflow_files``, ``tag``, ``integrity`` ...) and
columns that old schemas lack are simply not read; leftover tables are reported. Rows not
loaded because a row they belong to is missing (``orphan_rows``) or because they have no id
(``rows_without_id``) are counted per table, with one warning per table.

>>> sqlite_url("/tmp/a b.db")
'sqlite:///file:/tmp/a%20b.db?mode=ro&uri=true'
"""

from __future__ import annotations

import decimal
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator
from urllib.parse import quote

from ... import model
from . import model as pegasus_model
from ...errors import LineageError, WholeInputError
from ...redact import redact_text, redact_url, unreadable_url
from ...records import Edge, Node, Record
from ...secrets import redact_command_line
from . import mapping as pc
from ..base import Format, LoadReport

SQLITE_MAGIC = b"SQLite format 3\x00"
#: Tables without which a database is not a Stampede database.
REQUIRED = ("workflow", "job", "job_instance", "jobstate")
#: Tables read when present.
OPTIONAL = (
    "workflowstate", "workflow_meta", "host", "task", "task_edge", "task_meta", "job_edge",
    "invocation", "tag", "integrity", "rc_lfn", "rc_pfn", "rc_meta", "workflow_files",
)
#: Tables known to hold nothing for the graph (dashboard / ensemble bookkeeping, versions).
KNOWN_UNUSED = (
    "dbversion", "schema_info", "master_workflow", "master_workflowstate", "ensemble",
    "ensemble_workflow", "trigger", "sqlite_sequence",
)
YIELD_PER = 5000
INT64 = (-(2**63), 2**63 - 1)
NUMBERS = (int, float, decimal.Decimal)
#: Why a row is not loaded, with the one warning per table that sums the rows up.
DROPS = {
    "orphan_rows": "{n} orphan {table} {rows} (parent not in the database, e.g. "
                   "{example}); not loaded",
    "rows_without_id": "{n} {table} {rows} without an id to load by (e.g. {example}); "
                       "not loaded",
}


def sqlite_url(path: str | Path) -> str:
    """A read-only SQLAlchemy URL for a SQLite file (SQLite's own URI syntax)."""
    return f"sqlite:///file:{quote(str(path))}?mode=ro&uri=true"


# ------------------------------------------------------------------ detection
def _sqlite_tables(path: Path) -> set[str]:
    conn = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True)
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        conn.close()


def detect(path: Path, head: bytes) -> bool:
    """A SQLite file whose tables include the Stampede core (workflow, job, jobstate ...)."""
    if not head.startswith(SQLITE_MAGIC):
        return False
    try:
        tables = _sqlite_tables(path)
    except sqlite3.OperationalError as exc:
        # locked by a writer (pegasus-monitord still running): take a Stampede-named file,
        # so that reading it says so, rather than calling it unrecognised
        return "locked" in str(exc) and path.name.endswith(".stampede.db")
    except sqlite3.Error:
        return False
    return all(t in tables for t in REQUIRED)


# ------------------------------------------------------------------ schema access
class _Schema:
    """The reflected tables, with a null stand-in for any column an old schema lacks."""

    def __init__(self, engine):
        from sqlalchemy import MetaData, inspect

        self.engine = engine
        names = set(inspect(engine).get_table_names())
        self.names = names
        wanted = [t for t in REQUIRED + OPTIONAL if t in names]
        self.meta = MetaData()
        self.meta.reflect(bind=engine, only=wanted)
        self.t = self.meta.tables
        self.columns: dict[str, tuple[str, str]] = {}  # label -> (table, column)

    def has(self, *tables: str) -> bool:
        return all(t in self.t for t in tables)

    def c(self, table: str, column: str):
        from sqlalchemy import null

        tab = self.t[table]
        label = f"{table}_{column}"
        self.columns[label] = (table, column)
        if column in tab.c:
            return tab.c[column].label(label)
        return null().label(label)

    def alias(self, label: str, table: str, column: str):
        """``table.column`` read as ``label`` (a column every old schema has), named by its
        table and column in errors."""
        self.columns[label] = (table, column)
        return self.t[table].c[column].label(label)

    def stream(self, stmt) -> Iterator:
        """Rows of ``stmt``, fetched in batches on a connection of their own.

        A value SQLAlchemy cannot convert to its column's type (SQLite keeps text in a
        NUMERIC column) raises :class:`WrongValue` naming the column, the row and the value.
        """
        with self.engine.connect() as conn:
            result = conn.execution_options(yield_per=YIELD_PER).execute(stmt)
            batches = result.mappings().partitions()
            done = 0
            while True:
                try:
                    batch = next(batches, None)
                except (TypeError, ValueError, ArithmeticError) as exc:
                    raise self._wrong_value(stmt, done, exc) from exc
                if batch is None:
                    return
                done += len(batch)
                yield from batch

    def _wrong_value(self, stmt, done: int, exc: Exception) -> WrongValue:
        """The first value after row ``done`` of ``stmt`` that is not of its column's
        type, read again without SQLAlchemy's type conversion."""
        numeric = {c.name for c in stmt.selected_columns if _python_type(c.type) in NUMBERS}
        sql = stmt.compile(dialect=self.engine.dialect, compile_kwargs={"literal_binds": True})
        with self.engine.connect() as conn:
            raw = conn.exec_driver_sql(str(sql))
            names = list(raw.keys())
            for number, values in enumerate(raw, 1):
                if number <= done:
                    continue
                row = dict(zip(names, values))
                for name, value in row.items():
                    if name in numeric and not isinstance(value, (*NUMBERS, type(None))):
                        return WrongValue(name, value, "a number", row)
        return WrongValue(None, f"{type(exc).__name__}: {exc}", "values of the types the "
                          "schema declares", {})

    def column_name(self, label: str) -> str:
        """``table.column`` for a label of :meth:`c` (``job_instance.exitcode``)."""
        table, column = self.columns.get(label, ("", label))
        return f"{table}.{column}" if table else column

    def row_name(self, label: str, row) -> str:
        """The row of ``label``'s table named by the keys and ids read with it
        (``job_instance row (job_instance.job_instance_id 7, job.exec_job_id ls_ID1)``)."""
        table = self.columns.get(label, ("a", ""))[0]
        keys = {f"{table}_{c.name}" for c in self.t[table].primary_key} if table in self.t else ()
        ids = [f"{self.column_name(k)} {v}" for k, v in row.items()
               if k != label and v is not None
               and (k in keys or self.column_name(k).endswith(("_id", "_seq")))]
        return f"{table} row ({', '.join(ids)})" if ids else f"{table} row"


def _python_type(sql_type):
    """The Python type of a SQLAlchemy column type, or None (NULL stand-ins have none)."""
    try:
        return sql_type.python_type
    except NotImplementedError:
        return None


class WrongValue(ValueError):
    """A column value of the wrong type (text in a number column), with its row: :func:`parse`
    turns it into the input's :class:`WholeInputError` (:meth:`error`).

    >>> str(WrongValue("job_instance_exitcode", "x", "an integer", {}))
    "expected an integer in job_instance_exitcode, found 'x'"
    """

    def __init__(self, label: str | None, value, expected: str, row):
        self.label, self.value, self.expected, self.row = label, value, expected, row
        super().__init__(f"expected {expected} in {label}, found {value!r}")

    def error(self, where: str, schema: _Schema) -> WholeInputError:
        """The error naming the input, the row by its key, the column and the value."""
        if self.label is None:  # SQLAlchemy refused a row, and read raw it looked right
            return WholeInputError(where, None, self.expected, str(self.value))
        return WholeInputError(where, schema.row_name(self.label, self.row),
                          f"{self.expected} in column {schema.column_name(self.label)}",
                          str(self.value))


def _num(row, label: str) -> float | None:
    """The number in ``row[label]``, or None; a value that is no number raises WrongValue.

    >>> _num({"invocation_remote_duration": 2}, "invocation_remote_duration")
    2.0
    """
    return _typed(row, label, float, "a number")


def _int(row, label: str) -> int | None:
    """The integer in ``row[label]``, or None; any other value raises WrongValue."""
    return _typed(row, label, int, "an integer")


def _typed(row, label: str, convert, expected: str):
    value = row[label]
    if value is None:
        return None
    try:
        out = convert(value)
    except (TypeError, ValueError, OverflowError):
        raise WrongValue(label, value, expected, row) from None
    if convert is int and not INT64[0] <= out <= INT64[1]:
        raise WrongValue(label, value, "an integer of 64 bits", row)
    return out


def _prop(key: str) -> str:
    return "meta_" + "".join(c if c.isalnum() else "_" for c in key)


# ------------------------------------------------------------------ the loader
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


class _Reader:
    def __init__(self, schema: _Schema, report: LoadReport, where: str):
        self.s = schema
        self.report = report
        self.where = where
        self.wfs: dict[int, _Workflow] = {}
        self.hosts: dict[int, str] = {}
        self.counts = report.extra.setdefault("rows", {})
        self.examples: dict[tuple[str, str], str] = {}  # (reason, table) -> first example

    def command_line(self, argv, program):
        """A row's command line without its secrets, counted in the report."""
        return redact_command_line(argv, program, self.report.extra)

    def _count(self, table: str, n: int = 1) -> None:
        if n:
            self.counts[table] = self.counts.get(table, 0) + n

    def _drop(self, reason: str, table: str, example: str, n: int = 1) -> None:
        """Count ``n`` rows of ``table`` not loaded for ``reason`` (a key of :data:`DROPS`)."""
        counts = self.report.extra.setdefault(reason, {})
        counts[table] = counts.get(table, 0) + n
        self.examples.setdefault((reason, table), example)

    def _orphans(self, table: str, *links: tuple) -> None:
        """Count (as read and as orphans) the rows of ``table`` that the inner joins of a
        read leave out: each link ``(column, parent, key)`` keeps a row whose ``column``
        equals ``key``, a column of the ``parent`` table or join."""
        from sqlalchemy import func, literal, or_, select

        child = self.s.t[table]
        lost = [(column, ~select(literal(1)).select_from(parent)
                 .where(key == child.c[column]).exists()) for column, parent, key in links]
        with self.s.engine.connect() as conn:
            n = conn.execute(select(func.count()).select_from(child)
                             .where(or_(*(cond for _, cond in lost)))).scalar_one()
            if not n:
                return
            for column, cond in lost:
                found, example = conn.execute(select(func.count(), func.min(child.c[column]))
                                              .select_from(child).where(cond)).one()
                if found:
                    break
        self._count(table, n)
        self._drop("orphan_rows", table, f"{column} {example}", n)

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
        cols = [s.c("workflow", c) for c in (
            "wf_id", "wf_uuid", "dag_file_name", "timestamp", "submit_hostname", "submit_dir",
            "planner_arguments", "user", "grid_dn", "planner_version", "dax_label",
            "dax_version", "dax_file", "parent_wf_id", "root_wf_id")]
        rows = list(s.stream(select(*cols).order_by(s.t["workflow"].c.wf_id)))
        for r in rows:
            self.wfs[r["workflow_wf_id"]] = _Workflow(
                r["workflow_wf_uuid"], r["workflow_parent_wf_id"], r["workflow_root_wf_id"])
        for r in rows:
            self._count("workflow")
            xwf = r["workflow_wf_uuid"]
            uid = pc.workflow_uid(xwf)
            parent = self.uuid(r["workflow_parent_wf_id"])
            root = self.uuid(r["workflow_root_wf_id"]) or (xwf if parent is None else None)
            yield Node(pegasus_model.WORKFLOW, uid, {
                "xwf_id": xwf,
                "name": r["workflow_dax_label"] or xwf,
                "label": r["workflow_dax_label"],
                "root_xwf_id": root,
                "parent_xwf_id": parent,
                "is_root": parent is None,
                "planner_version": r["workflow_planner_version"],
                "submit_dir": r["workflow_submit_dir"],
                "submit_hostname": r["workflow_submit_hostname"],
                "argv": self.command_line(r["workflow_planner_arguments"], "pegasus-plan"),
                "user": r["workflow_user"],
                "grid_dn": r["workflow_grid_dn"],
                "dax_file": r["workflow_dax_file"],
                "dax_version": r["workflow_dax_version"],
                "dag_file": r["workflow_dag_file_name"],
                "plan_time": _num(r, "workflow_timestamp"),
            })
            if r["workflow_user"]:
                user = model.USER.uid(r["workflow_user"])
                yield Node(model.USER, user, {"name": r["workflow_user"]})
                yield Edge(model.WAS_ASSOCIATED_WITH, uid, user, {"role": "submitter"})
            if parent is not None:
                yield Edge(model.PART_OF, uid, pc.workflow_uid(parent))
            elif r["workflow_parent_wf_id"] is not None:
                self.report.warn(f"{self.where}: workflow {xwf} names a parent wf_id "
                                 f"{r['workflow_parent_wf_id']} that is not in the database")

    def workflow_states(self) -> Iterator[Record]:
        """Start, end, restarts and final status of each workflow (rescue DAGs restart it)."""
        from sqlalchemy import select

        s = self.s
        if not s.has("workflowstate"):
            self.report.warn(f"{self.where}: no workflowstate table; workflow status unknown")
            return
        t = s.t["workflowstate"]
        stmt = select(*[s.c("workflowstate", c) for c in (
            "wf_id", "state", "timestamp", "restart_count", "status", "reason")]
        ).order_by(t.c.wf_id, t.c.timestamp)
        current, rows = None, []
        for r in s.stream(stmt):
            self._count("workflowstate")
            if r["workflowstate_wf_id"] != current and rows:
                yield from self._workflow_outcome(current, rows)
                rows = []
            current = r["workflowstate_wf_id"]
            rows.append(dict(r))
        if rows:
            yield from self._workflow_outcome(current, rows)

    def _workflow_outcome(self, wf_id, rows) -> Iterator[Record]:
        xwf = self.uuid(wf_id)
        if xwf is None:
            self._drop("orphan_rows", "workflowstate", f"wf_id {wf_id}", len(rows))
            return
        last = rows[-1]
        outcome = pc.workflow_outcome(
            [r["workflowstate_state"] for r in rows],
            [_num(r, "workflowstate_timestamp") for r in rows],
            max(_int(r, "workflowstate_restart_count") or 0 for r in rows),
            _int(last, "workflowstate_status"), last["workflowstate_reason"])
        yield Node(pegasus_model.WORKFLOW, pc.workflow_uid(xwf), {"xwf_id": xwf, **outcome})

    def workflow_meta(self) -> Iterator[Record]:
        from sqlalchemy import select

        s = self.s
        if not s.has("workflow_meta"):
            return
        stmt = select(s.c("workflow_meta", "wf_id"), s.c("workflow_meta", "key"),
                      s.c("workflow_meta", "value"))
        for r in s.stream(stmt):
            self._count("workflow_meta")
            xwf = self.uuid(r["workflow_meta_wf_id"])
            if xwf is None:
                self._drop("orphan_rows", "workflow_meta", f"wf_id {r['workflow_meta_wf_id']}")
                continue
            yield Node(pegasus_model.WORKFLOW, pc.workflow_uid(xwf),
                       {_prop(r["workflow_meta_key"]): r["workflow_meta_value"]})

    # ----------------------------------------------------------- hosts
    def hosts_table(self) -> Iterator[Record]:
        from sqlalchemy import select

        s = self.s
        if not s.has("host"):
            return
        stmt = select(*[s.c("host", c) for c in (
            "host_id", "site", "hostname", "ip", "uname", "total_memory")])
        for r in s.stream(stmt):
            self._count("host")
            name = r["host_hostname"]
            if not name:
                self._drop("rows_without_id", "host", f"host_id {r['host_host_id']}: no hostname")
                continue
            self.hosts[r["host_host_id"]] = name
            yield Node(model.HOST, model.HOST.uid(name), {
                "name": name, "ip": r["host_ip"], "uname": r["host_uname"],
                "total_memory": _int(r, "host_total_memory"),
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
            self._count("task")
            xwf = self.uuid(r["task_wf_id"])
            if xwf is None:
                self._drop("orphan_rows", "task", f"wf_id {r['task_wf_id']}")
                continue
            if not r["task_abs_task_id"]:
                self._drop("rows_without_id", "task",
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
            self._count("task_meta")
            xwf = self.uuid(r["task_wf_id"])
            if xwf is None:
                self._drop("orphan_rows", "task_meta", f"wf_id {r['task_wf_id']}")
                continue
            yield Node(pegasus_model.TASK, pc.task_uid(xwf, r["task_abs_task_id"]),
                       {_prop(r["task_meta_key"]): r["task_meta_value"]})
        self._orphans("task_meta", ("task_id", task, task.c.task_id))

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
            self._count(table)
            xwf = self.uuid(r[f"{table}_wf_id"])
            if xwf is None:
                self._drop("orphan_rows", table, f"wf_id {r[f'{table}_wf_id']}")
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
        for r in s.stream(stmt):
            self._count("jobstate")
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
        for r in s.stream(stmt):
            if current is not None and current[0]["job_job_id"] != r["job_job_id"]:
                yield from self._job_summary(*current)
                current = None
            if current is None:
                self._count("job")  # one row of the join per attempt; one job row
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
                attempt.times.append(_num(row, "jobstate_timestamp"))
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
        self._orphans("job_instance", ("job_id", job, job.c.job_id))
        self._orphans("jobstate", ("job_instance_id", ji, ji.c.job_instance_id))

    def _orphan_state(self, pending, states):
        """Count a state of an attempt whose job is not in the database; the next one."""
        self._drop("orphan_rows", "jobstate", f"job_id {pending[0][0]}")
        return next(states, None)

    def _attempt(self, r, attempt: _Attempt) -> Iterator[Record]:
        self._count("job_instance")
        xwf = self.uuid(r["job_wf_id"])
        if xwf is None:
            self._drop("orphan_rows", "job_instance", f"wf_id {r['job_wf_id']}")
            if attempt.states:
                self._drop("orphan_rows", "jobstate", f"wf_id {r['job_wf_id']}",
                           len(attempt.states))
            return
        job_id, seq = r["job_exec_job_id"], r["job_instance_job_submit_seq"]
        uid = pc.job_instance_uid(xwf, job_id, seq)
        raw = _int(r, "job_instance_exitcode")
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
            "cluster_start": _num(r, "job_instance_cluster_start"),
            "cluster_duration": _num(r, "job_instance_cluster_duration"),
            "local_duration": _num(r, "job_instance_local_duration"),
            "multiplier_factor": _int(r, "job_instance_multiplier_factor"),
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
            "status": pc.attempt_status(raw, last),
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
            self._drop("orphan_rows", "job",
                       f"job {r['job_exec_job_id']} of wf_id {r['job_wf_id']}")
            return
        job_id = r["job_exec_job_id"]
        uid = pc.job_uid(xwf, job_id)
        raw = _int(last_row, "job_instance_exitcode") if last_row is not None else None
        last_state = last.states[-1] if last and last.states else None
        clustered = r["job_clustered"]
        yield Node(pegasus_model.JOB, uid, {
            "name": job_id,
            "job_id": job_id,
            "xwf_id": xwf,
            "submit_file": r["job_submit_file"],
            "type_desc": r["job_type_desc"],
            "clustered": None if clustered is None else bool(clustered),
            "max_retries": _int(r, "job_max_retries"),
            "task_count": _int(r, "job_task_count"),
            "executable": r["job_executable"],
            "argv": self.command_line(r["job_argv"], r["job_executable"]),
            "attempts": attempts,
            "retries": max(attempts - 1, 0),
            "last_submit_seq": last_row["job_instance_job_submit_seq"] if last_row else None,
            "last_state": last_state,
            "status": pc.job_status(pc.attempt_status(raw, last_state) if attempts else None),
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
        for r in s.stream(stmt):
            self._count("invocation")
            xwf = self.uuid(r["job_wf_id"])
            if xwf is None:
                self._drop("orphan_rows", "invocation", f"wf_id {r['job_wf_id']}")
                continue
            job_id, seq = r["job_exec_job_id"], r["job_instance_job_submit_seq"]
            inv_id = _int(r, "invocation_task_submit_seq")
            uid = pc.invocation_uid(xwf, job_id, seq, inv_id)
            start, dur = _num(r, "invocation_start_time"), _num(r, "invocation_remote_duration")
            raw = _int(r, "invocation_exitcode")
            task = r["invocation_abs_task_id"]
            yield Node(pegasus_model.INVOCATION, uid, {
                "name": r["invocation_transformation"] or f"invocation {inv_id}",
                "inv_id": inv_id,
                "phase": pc.invocation_kind(inv_id),
                "start_time": start,
                "duration": dur,
                "end_time": start + dur if start is not None and dur is not None else None,
                "remote_cpu_time": _num(r, "invocation_remote_cpu_time"),
                "exitcode_raw": raw,
                **pc.decode_exitcode(raw),
                "transformation": r["invocation_transformation"],
                "executable": r["invocation_executable"],
                "argv": self.command_line(r["invocation_argv"], r["invocation_executable"]),
                "task_id": task,
                "maxrss": _int(r, "invocation_maxrss"),
                "avg_cpu": _num(r, "invocation_avg_cpu"),
            })
            yield Edge(model.PART_OF, uid, pc.job_instance_uid(xwf, job_id, seq))
            if task:
                yield Edge(pegasus_model.RUNS_TASK, uid, pc.task_uid(xwf, task))
        attempts = ji.join(job, ji.c.job_id == job.c.job_id)
        self._orphans("invocation", ("job_instance_id", attempts, ji.c.job_instance_id))

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
            for r in s.stream(stmt):
                self._count("tag")
                xwf = self.uuid(r["job_wf_id"])
                if xwf is None:
                    self._drop("orphan_rows", "tag", f"wf_id {r['job_wf_id']}")
                    continue
                yield Node(pegasus_model.JOB_INSTANCE, pc.job_instance_uid(
                    xwf, r["job_exec_job_id"], r["job_instance_job_submit_seq"]),
                    {"tag": r["tag_name"], "tag_count": _int(r, "tag_count")})
            self._orphans("tag", ("job_instance_id", base, ji.c.job_instance_id))
        if s.has("integrity"):
            integ = s.t["integrity"]
            stmt = select(*keys, s.c("integrity", "type"), s.c("integrity", "file_type"),
                          s.c("integrity", "count"), s.c("integrity", "duration")).select_from(
                integ.join(base, integ.c.job_instance_id == ji.c.job_instance_id))
            for r in s.stream(stmt):
                self._count("integrity")
                xwf = self.uuid(r["job_wf_id"])
                if xwf is None:
                    self._drop("orphan_rows", "integrity", f"wf_id {r['job_wf_id']}")
                    continue
                kind = "_".join(x for x in (r["integrity_type"], r["integrity_file_type"]) if x)
                kind = "".join(c if c.isalnum() else "_" for c in kind)
                yield Node(pegasus_model.JOB_INSTANCE, pc.job_instance_uid(
                    xwf, r["job_exec_job_id"], r["job_instance_job_submit_seq"]), {
                    f"integrity_{kind}_count": _int(r, "integrity_count"),
                    f"integrity_{kind}_duration": _num(r, "integrity_duration"),
                })
            self._orphans("integrity", ("job_instance_id", base, ji.c.job_instance_id))

    # ----------------------------------------------------------- files
    def _file_workflow(self) -> str | None:
        """The workflow replica-catalog rows belong to when workflow_files does not say:
        the database's one root workflow (rc_lfn has no wf_id of its own)."""
        roots = [w.uuid for i, w in self.wfs.items() if w.parent is None]
        return roots[0] if len(roots) == 1 else None

    def files(self) -> Iterator[Record]:
        """Files from workflow_files (with their direction), rc_lfn / rc_pfn and rc_meta."""
        yield from self._workflow_files()
        if not self.s.has("rc_lfn"):
            return
        # rc_lfn (with its pfns) and rc_meta: attached to the workflows workflow_files names,
        # else to the one root workflow of the database
        fallback = self._file_workflow()
        owners = self._lfn_owners() if self.s.has("workflow_files") else {}
        yield from self._replica_files(owners, fallback)
        if self.s.has("rc_meta"):
            yield from self._file_metadata(owners, fallback)

    def _workflow_files(self) -> Iterator[Record]:
        from sqlalchemy import select

        s = self.s
        mapped: set[int] = set()
        if s.has("workflow_files", "rc_lfn", "task"):
            wf_files, lfn, task = s.t["workflow_files"], s.t["rc_lfn"], s.t["task"]
            stmt = select(s.c("workflow_files", "wf_id"), s.c("workflow_files", "lfn_id"),
                          s.c("workflow_files", "file_type"), s.c("rc_lfn", "lfn"),
                          s.c("task", "abs_task_id")).select_from(
                wf_files.join(lfn, wf_files.c.lfn_id == lfn.c.lfn_id)
                .join(task, wf_files.c.task_id == task.c.task_id))
            for r in s.stream(stmt):
                self._count("workflow_files")
                xwf = self.uuid(r["workflow_files_wf_id"])
                name = r["rc_lfn_lfn"]
                if xwf is None:
                    self._drop("orphan_rows", "workflow_files",
                               f"wf_id {r['workflow_files_wf_id']}")
                    continue
                if not name:
                    self._drop("rows_without_id", "workflow_files",
                               f"lfn_id {r['workflow_files_lfn_id']}: no lfn")
                    continue
                if len(mapped) < 1_000_000:
                    mapped.add(r["workflow_files_lfn_id"])
                uid = pc.file_uid(xwf, name)
                task_uid = pc.task_uid(xwf, r["task_abs_task_id"])
                kind = (r["workflow_files_file_type"] or "").lower()
                yield Node(pegasus_model.FILE, uid, {"name": name, "lfn": name})
                yield Edge(model.PART_OF, uid, pc.workflow_uid(xwf))
                if kind == "output":
                    yield Edge(model.WAS_GENERATED_BY, uid, task_uid)
                else:
                    yield Edge(model.USED, task_uid, uid,
                               {"direction": "input" if kind == "input" else "unknown"})
            self._orphans("workflow_files", ("lfn_id", lfn, lfn.c.lfn_id),
                          ("task_id", task, task.c.task_id))

    def _replica_files(self, owners: dict, fallback: str | None) -> Iterator[Record]:
        from sqlalchemy import select

        s = self.s
        lfn = s.t["rc_lfn"]
        pfn_cols = []
        stmt_from = lfn
        if s.has("rc_pfn"):
            pfn = s.t["rc_pfn"]
            pfn_cols = [s.c("rc_pfn", "lfn_id"), s.c("rc_pfn", "pfn"), s.c("rc_pfn", "site")]
            stmt_from = lfn.outerjoin(pfn, lfn.c.lfn_id == pfn.c.lfn_id)
        stmt = select(s.c("rc_lfn", "lfn_id"), s.c("rc_lfn", "lfn"), *pfn_cols).select_from(
            stmt_from).order_by(lfn.c.lfn_id)
        unowned = 0
        group: list = []

        def flush(rows) -> Iterator[Record]:
            nonlocal unowned
            self._count("rc_lfn")  # one row of the join per pfn; one rc_lfn row
            self._count("rc_pfn", sum(r.get("rc_pfn_lfn_id") is not None for r in rows))
            lfn_id, name = rows[0]["rc_lfn_lfn_id"], rows[0]["rc_lfn_lfn"]
            xwfs = owners.get(lfn_id) or ([fallback] if fallback else [])
            if not xwfs:
                unowned += 1
                return
            pfns = [r.get("rc_pfn_pfn") for r in rows if r.get("rc_pfn_pfn")]
            sites = [r.get("rc_pfn_site") or "" for r in rows if r.get("rc_pfn_pfn")]
            for xwf in xwfs:
                uid = pc.file_uid(xwf, name)
                yield Node(pegasus_model.FILE, uid, {
                    "name": name, "lfn": name,
                    "pfn": pfns[0] if pfns else None, "site": sites[0] if sites else None,
                    "pfns": pfns or None, "pfn_sites": sites or None,
                })
                yield Edge(model.PART_OF, uid, pc.workflow_uid(xwf))

        for r in s.stream(stmt):
            if group and group[0]["rc_lfn_lfn_id"] != r["rc_lfn_lfn_id"]:
                yield from flush(group)
                group = []
            group.append(dict(r))
        if group:
            yield from flush(group)
        if s.has("rc_pfn"):
            self._orphans("rc_pfn", ("lfn_id", lfn, lfn.c.lfn_id))
        if unowned:
            self.report.warn(f"{self.where}: {unowned} replica-catalog files belong to no "
                             "workflow (no workflow_files rows, several root workflows); skipped")
            self.report.extra["unowned_files"] = unowned

    def _file_metadata(self, owners: dict, fallback: str | None) -> Iterator[Record]:
        from sqlalchemy import select

        s = self.s
        lfn, meta = s.t["rc_lfn"], s.t["rc_meta"]
        stmt = select(s.c("rc_lfn", "lfn_id"), s.c("rc_lfn", "lfn"), s.c("rc_meta", "key"),
                      s.c("rc_meta", "value")).select_from(
            meta.join(lfn, meta.c.lfn_id == lfn.c.lfn_id))
        for r in s.stream(stmt):
            self._count("rc_meta")
            xwfs = owners.get(r["rc_lfn_lfn_id"]) or ([fallback] if fallback else [])
            for xwf in xwfs:
                key = r["rc_meta_key"]
                props = {"lfn": r["rc_lfn_lfn"], _prop(key): r["rc_meta_value"]}
                if key == "checksum.value":
                    props["checksum"] = r["rc_meta_value"]
                elif key == "size":
                    try:
                        props["size"] = int(r["rc_meta_value"])
                    except (TypeError, ValueError):
                        pass
                yield Node(pegasus_model.FILE, pc.file_uid(xwf, r["rc_lfn_lfn"]), props)
        self._orphans("rc_meta", ("lfn_id", lfn, lfn.c.lfn_id))

    def _lfn_owners(self) -> dict[int, list[str]]:
        """lfn_id -> workflows that use it (workflow_files is small next to jobstate)."""
        from sqlalchemy import select

        s = self.s
        wf_files = s.t["workflow_files"]
        out: dict[int, list[str]] = {}
        stmt = select(wf_files.c.lfn_id, wf_files.c.wf_id).distinct()
        for r in s.stream(stmt):
            xwf = self.uuid(r["wf_id"])
            if xwf:  # rows of an unknown wf_id are counted by _workflow_files
                out.setdefault(r["lfn_id"], []).append(xwf)
        return out


def _engine(target: str | Path):
    from sqlalchemy import create_engine

    text = str(target)
    if "://" not in text:
        return create_engine(sqlite_url(text)), text
    if text.startswith("sqlite:///") and not text.startswith("sqlite:///file:"):
        path = text[len("sqlite:///"):]
        return create_engine(sqlite_url(path)), text  # read-only, like a plain path
    return create_engine(text), redact_url(text)


def parse(target: str | Path, report: LoadReport) -> Iterator[Record]:
    """Records of one Stampede database (a SQLite file path or a database URL)."""
    from sqlalchemy.exc import SQLAlchemyError

    try:
        engine, where = _engine(target)
    except ValueError as exc:  # a URL SQLAlchemy cannot parse (a libpq multi-host URL)
        raise LineageError(unreadable_url(str(target), exc)) from None
    except (SQLAlchemyError, ImportError) as exc:
        raise LineageError(f"{redact_url(str(target))}: cannot open the database: "
                           f"{redact_text(str(exc))}") from None
    try:
        try:
            schema = _Schema(engine)
        except UnicodeDecodeError as exc:  # a damaged file: its schema text is not UTF-8
            report.skip(where, None, "a Stampede database whose schema is readable text",
                        f"bytes that are not UTF-8 ({exc.reason} at {exc.start})")
            return
        except SQLAlchemyError as exc:
            if "locked" in str(exc):
                report.skip(where, None, "a database no writer holds locked (is "
                            "pegasus-monitord still writing it? load it when it is done)",
                            "database is locked")
                return
            raise LineageError(f"{where}: cannot read the database: "
                           f"{redact_text(str(exc))}") from None
        missing = [t for t in REQUIRED if t not in schema.names]
        if missing:
            report.skip(where, None, "a Stampede database with tables " + ", ".join(REQUIRED),
                        "missing " + ", ".join(missing))
            return
        leftovers = sorted(schema.names - set(REQUIRED + OPTIONAL + KNOWN_UNUSED))
        if leftovers:
            report.extra["unread_tables"] = leftovers
            for name in leftovers:
                report.unknown_item(f"table {name}")
        report.extra["absent_tables"] = [t for t in OPTIONAL if t not in schema.names]
        reader = _Reader(schema, report, where)
        try:
            yield from reader.hosts_table()
            yield from reader.workflows()
            yield from reader.workflow_states()
            yield from reader.workflow_meta()
            yield from reader.tasks()
            yield from reader.task_edges()
            yield from reader.task_meta()
            yield from reader.job_edges()
            yield from reader.jobs()
            yield from reader.invocations()
            yield from reader.attempt_extras()
            yield from reader.files()
        except WrongValue as exc:  # text in a number column: no line to skip, the input stops
            raise exc.error(where, schema) from None
        except SQLAlchemyError as exc:
            report.skip(where, None, "readable Stampede rows", str(exc).splitlines()[0])
        except UnicodeDecodeError as exc:  # a damaged file: a text value that is not UTF-8
            report.skip(where, None, "readable Stampede rows (UTF-8 text)",
                        f"bytes that are not UTF-8 ({exc.reason} at {exc.start})")
        reader.warn_drops()
    finally:
        engine.dispose()


FORMATS = [
    Format(
        name="pegasus-stampede-db",
        source="pegasus",
        detect=detect,
        parse=parse,
        url_schemes=("sqlite", "mysql", "postgresql"),
        url_tables=REQUIRED,
        description="Pegasus Stampede database (*.stampede.db SQLite, MySQL, PostgreSQL), read-only",
    )
]
