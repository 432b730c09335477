"""Following a Stampede database while pegasus-monitord writes it (``lineage watch``), by the
ids of its rows.

Every SQLite table has a ``rowid`` that grows as rows are appended: the integer key where a
table has one (``job_instance_id``, ``job_id``, ...), an implicit one where it has none
(``jobstate``, ``job_edge``, ``task_edge``, ``workflow_files``, ``rc_meta``, ...). monitord
appends rows to every table and updates some after inserting them: an attempt's
``job_instance`` row gets its host, exit code, durations and output while it runs and when
it ends, a workflow row its parent and root. One increment is one read transaction (one
snapshot of the database): the largest rowid of each table there (the increment's *marks*),
then the records of

- every host and workflow (``host``, ``workflow``, ``workflowstate``, ``workflow_meta``):
  few rows, some updated, so read whole each time;
- the planning tables (tasks, task and job edges, files, the replica catalogue), read whole
  when one of them or the workflow table has rows above the marks of the last increment:
  monitord writes them once per (sub-)workflow, when it starts;
- the jobs the new rows belong to, each job read whole with its current values (its row,
  every attempt with all its states, invocations, tags and integrity rows; a job's status
  and retries depend on all its attempts): jobs of new ``job`` rows and of new workflows,
  jobs whose attempts have new ``job_instance``, ``jobstate``, ``invocation``, ``tag`` or
  ``integrity`` rows or name a new host or sub-workflow, and jobs with an attempt still open
  (none of :data:`FINAL_STATES` yet), whose row monitord may have updated since.

A first read (nothing read before) reads a copy of the database taken in one read
transaction (SQLite's backup), so monitord is not kept from committing while a database
found already written is read whole.

An increment is written when some table has rows above the last marks, or when the database
file changed without new rows (an update alone: the open attempts and the workflows are read
again). An attempt's row updated after its final state, with no new row of it, is not read
again: monitord writes an attempt's outcome with the event that ends it.

>>> FINAL_STATES[:2]
('JOB_SUCCESS', 'JOB_FAILURE')
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from contextlib import closing
from itertools import chain
from urllib.parse import quote
from typing import Iterator

from ....errors import LineageError
from ....model.records import Record
from ...base import LoadReport
from ..db import OPTIONAL, REQUIRED, readable
from .connect import guarded, sqlite_url
from .files import Files
from .runs import Reader
from .schema import OLDER_NAMES, Schema

#: States after which monitord writes nothing more of an attempt without a new row of it
#: (a post script's states are new rows).
FINAL_STATES = ("JOB_SUCCESS", "JOB_FAILURE", "POST_SCRIPT_SUCCESS", "POST_SCRIPT_FAILURE")
#: Tables written when a (sub-)workflow is planned: read whole when one of them grew.
PLANNING = ("workflow", "task", "task_edge", "task_meta", "job_edge", "workflow_files",
            "file", "rc_lfn", "rc_pfn", "rc_meta", "rc_attr")
#: Tables whose rows belong to an attempt (``job_instance_id``).
OF_ATTEMPTS = ("jobstate", "invocation", "tag", "integrity")
#: Seconds a look waits for monitord's write lock before it leaves the database to the next.
BUSY_WAIT = 0.5


def stampede_rows() -> "StampedeRows":
    """The reader ``lineage watch`` follows Stampede databases with."""
    return StampedeRows()


class StampedeRows:
    """Opens one snapshot of a Stampede database per look (:class:`Snapshot`)."""

    def snapshot(self, path: str, marks: dict | None) -> "Snapshot | None":
        """A read transaction on the SQLite file ``path`` (read-only), its marks read; None
        when a writer holds the database locked (look again later). A first read
        (``marks`` None: nothing read before) reads a copy taken in one short transaction,
        so monitord is not kept from committing while the whole database is read."""
        if marks is None:
            return Snapshot.of_copy(path)
        return Snapshot.open(path)


def file_mark(path: str) -> list[int]:
    """Size and modification time of the database file and of its write-ahead log: they
    change with every transaction monitord commits."""
    mark = []
    for name in (path, path + "-wal"):
        try:
            st = os.stat(name)
            mark += [st.st_size, st.st_mtime_ns]
        except OSError:
            mark += [0, 0]
    return mark


def _busy(exc: Exception) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


class Snapshot:
    """One read transaction on a Stampede database: ``marks`` is ``{"rows": {table: largest
    rowid}, "file": file_mark}`` as it began."""

    def __init__(self, path: str, engine, connection, marks: dict):
        self.path, self.engine, self.conn, self.marks = path, engine, connection, marks
        self.copy: str | None = None  # a copy read instead of the database, removed at close

    @classmethod
    def of_copy(cls, path: str) -> "Snapshot | None":
        """A snapshot of a copy of ``path`` (SQLite's backup, one read transaction)."""
        mark = file_mark(path)
        handle, copy = tempfile.mkstemp(suffix=".stampede.db")
        os.close(handle)
        try:
            source = sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True, timeout=BUSY_WAIT,
                                     isolation_level=None)
            try:
                # the read lock first (a locked database says so here; the backup itself
                # would wait for the lock without end), then the copy under it
                source.execute("BEGIN")
                source.execute("SELECT count(*) FROM sqlite_master").fetchone()
                with closing(sqlite3.connect(copy)) as target:
                    source.backup(target)
            finally:
                source.close()
            snapshot = cls.open(copy, where=path, mark=mark)
        except BaseException as exc:
            os.unlink(copy)
            if isinstance(exc, sqlite3.OperationalError):
                if _busy(exc):
                    return None
                raise LineageError(f"{path}: cannot read the database: {exc}") from None
            raise
        if snapshot is None:
            os.unlink(copy)
        else:
            snapshot.copy = copy
        return snapshot

    @classmethod
    def open(cls, path: str, where: str | None = None,
             mark: list[int] | None = None) -> "Snapshot | None":
        """A read transaction on ``path`` (named ``where`` in messages and records; ``mark``:
        its :func:`file_mark`, taken before)."""
        from sqlalchemy import create_engine, func, literal_column, select, table
        from sqlalchemy.exc import OperationalError

        where = where or path
        if mark is None:  # before the transaction: a commit in between shows at the next look
            mark = file_mark(path)
        engine = create_engine(sqlite_url(path), connect_args={"timeout": BUSY_WAIT})
        conn = None
        try:
            conn = engine.connect()
            conn.exec_driver_sql("BEGIN")
            names = {r[0] for r in conn.exec_driver_sql(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            rows = {}
            for name in sorted(names & {*REQUIRED, *OPTIONAL, *OLDER_NAMES}):
                rows[Schema.current(name)] = conn.execute(
                    select(func.max(literal_column("rowid"))).select_from(table(name))
                ).scalar() or 0
        except OperationalError as exc:
            if conn is not None:
                conn.close()
            engine.dispose()
            if _busy(exc):
                return None
            raise LineageError(f"{where}: cannot read the database: {exc.orig}") from None
        return cls(where, engine, conn, {"rows": rows, "file": mark})

    def news(self, marks: dict | None) -> bool:
        """Whether this snapshot holds anything the increment that read up to ``marks`` did
        not (None: nothing was read). Raises :class:`LineageError` when a table holds fewer
        rows than were read (the database was replaced or rewritten)."""
        if marks is None:
            return True
        before = marks.get("rows", {})
        for table, last in sorted(before.items()):
            if self.marks["rows"].get(table, 0) < last:
                raise LineageError(
                    f"{self.path}: table {table} holds rows up to id "
                    f"{self.marks['rows'].get(table, 0)}, below the {last} already read (the "
                    "database was replaced or rewritten): not followed further; load it "
                    "again with `lineage load`")
        return self.marks != marks

    def records(self, marks: dict | None, report: LoadReport) -> Iterator[Record]:
        """The records of what this snapshot holds beyond ``marks`` (see the module)."""
        schema = Schema(self.engine, REQUIRED + OPTIONAL, report, self.path,
                        connection=self.conn)
        if not readable(schema, report, self.path):
            return
        reader = Reader(schema, report, self.path)
        before = None if marks is None else marks.get("rows", {})
        sections = [reader.hosts_table, reader.workflows, reader.workflow_states,
                    reader.workflow_meta]
        if before is None or any(self.marks["rows"].get(t, 0) > before.get(t, 0)
                                 for t in PLANNING):
            sections += [reader.tasks, reader.task_edges, reader.task_meta, reader.job_edges,
                         Files(reader).records]
        if before is not None:
            reader.scope = jobs_to_read(schema, before)
        sections += [reader.jobs, reader.invocations, reader.attempt_extras]
        yield from guarded(chain.from_iterable(section() for section in sections), schema,
                           report, self.path, "Stampede database")
        reader.warn_drops()

    def close(self) -> None:
        """End the read transaction (nothing was written: it is rolled back)."""
        if self.conn is not None:
            self.conn.close()
            self.conn = None
            self.engine.dispose()
        if self.copy is not None:
            os.unlink(self.copy)
            self.copy = None


def jobs_to_read(s: Schema, before: dict):
    """The ``job_id`` values of the jobs to read again after the increment that read up to
    the rowids ``before`` (see the module), as one query."""
    from sqlalchemy import literal, literal_column, select, union

    def new(table: str, column: str):
        return select(s.t[table].c[column]).where(
            literal_column("rowid") > before.get(table, 0))

    job, ji, js = s.t["job"], s.t["job_instance"], s.t["jobstate"]
    parts = [new("job", "job_id"), new("job_instance", "job_id"),
             select(job.c.job_id).where(job.c.wf_id.in_(new("workflow", "wf_id")))]
    parts += [select(ji.c.job_id).where(ji.c.job_instance_id.in_(new(t, "job_instance_id")))
              for t in OF_ATTEMPTS if s.has(t)]
    if s.has("host") and "host_id" in ji.c:
        parts.append(select(ji.c.job_id).where(ji.c.host_id.in_(new("host", "host_id"))))
    if "subwf_id" in ji.c:
        parts.append(select(ji.c.job_id).where(ji.c.subwf_id.in_(new("workflow", "wf_id"))))
    ended = (select(literal(1)).select_from(js)
             .where(js.c.job_instance_id == ji.c.job_instance_id, js.c.state.in_(FINAL_STATES))
             .exists())
    parts.append(select(ji.c.job_id).where(~ended))
    return union(*parts)
