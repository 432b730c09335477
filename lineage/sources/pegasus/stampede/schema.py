"""The tables of a Pegasus database as the readers find them, for every schema version.

Pegasus's own migrations (pegasus-wms 5.1.3, ``Pegasus/db/admin/versions/v0.py`` to
``v14.py``) state what each schema version added; a column of :data:`ADDED` that a database
lacks is that of an older version and is read as unknown (the report lists it under
``older_schema_columns``) when the database's own ``dbversion`` says it is older than the
version that added it (or it has no ``dbversion``, as before Pegasus 4.3); a database whose
``dbversion`` says it has the column, and lacks it, is damaged like any other. Any other column the readers use that is missing is damage: an
error naming the input, the table and the column in strict mode; leniently a warning naming
them and what is not loaded (``missing_columns``), or, for the columns that identify and link
a table's rows (:data:`IDENTITY`), that table left unread (``unread_rows``).

>>> ADDED[("job_instance", "exitcode")][0]
0
>>> sorted(OLDER_NAMES)
['integrity_metrics']
"""

from __future__ import annotations

import decimal
from contextlib import nullcontext
from typing import Iterator

from ...base import LoadReport
from ....errors import ParseError, WholeInputError

YIELD_PER = 5000
INT64 = (-(2**63), 2**63 - 1)
NUMBERS = (int, float, decimal.Decimal)

#: Columns some older schema version lacks: (table, column) -> (the version that added it,
#: what a database without it does not say).
ADDED: dict[tuple[str, str], tuple[int, str]] = {
    ("job_instance", "exitcode"): (0, "attempts' exit codes (an attempt's outcome comes "
                                      "from its last state, as Pegasus's migration gives it)"),
    ("job_instance", "multiplier_factor"): (0, "multiplier factors (1 is assumed)"),
    ("invocation", "remote_cpu_time"): (0, "invocations' CPU times"),
    ("rc_lfn", "site"): (1, "replica sites (read from each replica's pool attribute)"),
    ("master_workflow", "archived"): (4, "which runs were archived"),
    ("workflowstate", "reason"): (7, "why workflows ended"),
    ("jobstate", "reason"): (7, "why attempts were held or aborted"),
    ("master_workflowstate", "reason"): (8, "why runs ended"),
    ("invocation", "maxrss"): (13, "invocations' peak memory"),
    ("invocation", "avg_cpu"): (13, "invocations' CPU use"),
}

#: The columns that identify a table's rows and link them to others: without one of them
#: the table cannot be read. ``rc_lfn`` is keyed by ``lfn_id`` (schema 6 on) or ``id``.
IDENTITY: dict[str, tuple[str, ...]] = {
    "workflow": ("wf_id", "wf_uuid"),
    "workflowstate": ("wf_id", "state", "timestamp"),
    "workflow_meta": ("wf_id", "key"),
    "host": ("host_id", "hostname"),
    "job": ("job_id", "wf_id", "exec_job_id"),
    "job_edge": ("wf_id", "parent_exec_job_id", "child_exec_job_id"),
    "job_instance": ("job_instance_id", "job_id", "job_submit_seq"),
    "jobstate": ("job_instance_id", "state", "timestamp"),
    "task": ("task_id", "wf_id", "job_id", "abs_task_id"),
    "task_edge": ("wf_id", "parent_abs_task_id", "child_abs_task_id"),
    "task_meta": ("task_id", "key"),
    "invocation": ("job_instance_id", "task_submit_seq"),
    "tag": ("job_instance_id",),
    "integrity": ("job_instance_id",),
    "rc_lfn": ("lfn",),
    "rc_pfn": ("lfn_id", "pfn"),
    "rc_meta": ("lfn_id", "key"),
    "rc_attr": ("id", "name"),
    "workflow_files": ("wf_id", "task_id", "lfn_id"),
    "file": ("task_id", "lfn"),
    "master_workflow": ("wf_id", "wf_uuid"),
    "master_workflowstate": ("wf_id", "state", "timestamp"),
}

#: Tables an older schema version named otherwise: old name -> the name readers use
#: (version 11 renamed ``integrity_metrics``).
OLDER_NAMES = {"integrity_metrics": "integrity"}


class Schema:
    """The reflected tables of one database, read under their current names, with a null
    stand-in for a column an older schema lacks (see the module's docstring).

    ``report`` and ``where`` (the input's name) are where missing columns are reported.
    Given a ``connection`` (of ``engine``), every read goes through it: the reads of one
    transaction, one snapshot of a database being written (``lineage watch``).
    """

    def __init__(self, engine, wanted: tuple[str, ...], report: LoadReport, where: str,
                 connection=None):
        from sqlalchemy import MetaData, inspect

        self.engine = engine
        self.pinned = connection
        bind = engine if connection is None else connection
        self.report, self.where = report, where
        self.names = set(inspect(bind).get_table_names())
        self.real = {new: old for old, new in OLDER_NAMES.items()
                     if old in self.names and new not in self.names}
        self.meta = MetaData()
        self.meta.reflect(bind=bind, only=[self.real.get(t, t) for t in wanted
                                             if self.real.get(t, t) in self.names])
        self.t = {self.current(name): table for name, table in self.meta.tables.items()}
        self.columns: dict[str, tuple[str, str]] = {}  # label -> (table, column)
        self.noted: set[tuple[str, str]] = set()
        self.version = self._version()

    def connect(self):
        """A connection to read with (a context manager): the pinned one, or a new one."""
        if self.pinned is not None:
            return nullcontext(self.pinned)
        return self.engine.connect()

    def _version(self) -> int | None:
        """The schema version the database's ``dbversion`` table states (None without one,
        or when it holds no number: as before Pegasus 4.3)."""
        from sqlalchemy import text

        if "dbversion" not in self.names:
            return None
        try:
            with self.connect() as conn:
                value = conn.execute(text("SELECT max(version_number) FROM dbversion")).scalar()
            return int(value) if value is not None else None
        except Exception:  # a damaged dbversion table: the version is unknown
            return None

    def older(self, table: str, column: str) -> bool:
        """Whether ``table.column`` is missing because the database's schema is older than
        the version that added it (see the module's docstring).

        >>> s = Schema.__new__(Schema)
        >>> s.version = 14
        >>> s.older("invocation", "maxrss"), s.older("job_instance", "sched_id")
        (False, False)
        >>> s.version = 4
        >>> s.older("invocation", "maxrss"), s.older("job_instance", "exitcode")
        (True, False)
        """
        added = ADDED.get((table, column))
        return added is not None and (self.version is None or self.version < added[0])

    @staticmethod
    def current(name: str) -> str:
        """A table's name as the readers know it (``integrity_metrics`` is ``integrity``)."""
        return OLDER_NAMES.get(name, name)

    def has(self, *tables: str) -> bool:
        return all(t in self.t for t in tables)

    def has_column(self, table: str, column: str) -> bool:
        return table in self.t and column in self.t[table].c

    def rows(self, table: str) -> int:
        from sqlalchemy import func, select

        with self.connect() as conn:
            return conn.execute(select(func.count()).select_from(self.t[table])).scalar_one()

    def check_identity(self, required: tuple[str, ...]) -> bool:
        """Every table's identifying columns are there (:data:`IDENTITY`). A table without
        one is an error (strict) or, leniently, left unread with a warning and its rows
        counted; False when that table is one of ``required`` (the input then holds nothing
        to read: counted as skipped)."""
        for table in sorted(self.t):
            missing = [c for c in IDENTITY.get(table, ()) if c not in self.t[table].c]
            if table == "rc_lfn" and not {"lfn_id", "id"} & set(self.t[table].c.keys()):
                missing.append("lfn_id")
            if not missing:
                continue
            column = missing[0]
            expected = (f"a column {column} (every Stampede schema has it: it identifies or "
                        f"links the rows of {self.real.get(table, table)})")
            if table in required or not self.report.lenient:
                self.report.skip(self.where, f"table {self.real.get(table, table)}", expected,
                                 "no such column")
                return False
            unread = self.report.extra.setdefault("unread_rows", {})
            unread[table] = self.rows(table)
            self.report.warn(f"{self.where}: table {self.real.get(table, table)} has no column "
                             f"{column}: its {unread[table]} rows are not loaded")
            del self.t[table]
        return True

    def c(self, table: str, column: str):
        """``table.column`` labelled ``<table>_<column>`` (NULL when the table lacks it)."""
        from sqlalchemy import null

        tab = self.t[table]
        label = f"{table}_{column}"
        self.columns[label] = (table, column)
        if column in tab.c:
            return tab.c[column].label(label)
        self.lacks(table, column)
        return null().label(label)

    def lacks(self, table: str, column: str) -> None:
        """A column a reader uses is not there: an older version's (noted) or damage."""
        if (table, column) in self.noted:
            return
        self.noted.add((table, column))
        name = f"{self.real.get(table, table)}.{column}"
        if self.older(table, column):
            self.report.extra.setdefault("older_schema_columns", []).append(name)
            return
        since = (f"the schema version {self.version} its dbversion states has it"
                 if (table, column) in ADDED else "every Stampede schema has it")
        lost = ADDED[(table, column)][1] if (table, column) in ADDED else f"its rows' {column}"
        if not self.report.lenient:
            raise ParseError(self.where, f"table {self.real.get(table, table)}",
                             f"a column {name} ({since}; without it {lost} would be lost)",
                             "no such column")
        self.report.extra.setdefault("missing_columns", []).append(name)
        self.report.warn(f"{self.where}: table {self.real.get(table, table)} has no column "
                         f"{column} ({since}): {lost} not loaded")

    def alias(self, label: str, table: str, column: str):
        """``table.column`` read as ``label`` (an identifying column), named by its table
        and column in errors."""
        self.columns[label] = (table, column)
        return self.t[table].c[column].label(label)

    def stream(self, stmt) -> Iterator:
        """Rows of ``stmt``, fetched in batches on a connection of their own.

        A value SQLAlchemy cannot convert to its column's type (SQLite keeps text in a
        NUMERIC column) raises :class:`WrongValue` naming the column, the row and the value.
        """
        with self.connect() as conn:
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

    def _wrong_value(self, stmt, done: int, exc: Exception) -> "WrongValue":
        """The first value after row ``done`` of ``stmt`` that is not of its column's
        type, read again without SQLAlchemy's type conversion."""
        numeric = {c.name for c in stmt.selected_columns if _python_type(c.type) in NUMBERS}
        sql = stmt.compile(dialect=self.engine.dialect, compile_kwargs={"literal_binds": True})
        with self.connect() as conn:
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
        return f"{self.real.get(table, table)}.{column}" if table else column

    def row_name(self, label: str, row) -> str:
        """The row of ``label``'s table named by the keys and ids read with it
        (``job_instance row (job_instance.job_instance_id 7, job.exec_job_id ls_ID1)``)."""
        table = self.columns.get(label, ("a", ""))[0]
        keys = {f"{table}_{c.name}" for c in self.t[table].primary_key} if table in self.t else ()
        ids = [f"{self.column_name(k)} {v}" for k, v in row.items()
               if k != label and v is not None
               and (k in keys or self.column_name(k).endswith(("_id", "_seq")))]
        name = self.real.get(table, table)
        return f"{name} row ({', '.join(ids)})" if ids else f"{name} row"


def _python_type(sql_type):
    """The Python type of a SQLAlchemy column type, or None (NULL stand-ins have none)."""
    try:
        return sql_type.python_type
    except NotImplementedError:
        return None


class WrongValue(ValueError):
    """A column value of the wrong type (text in a number column), with its row: the format's
    parser turns it into the input's :class:`WholeInputError` (:meth:`error`).

    >>> str(WrongValue("job_instance_exitcode", "x", "an integer", {}))
    "expected an integer in job_instance_exitcode, found 'x'"
    """

    def __init__(self, label: str | None, value, expected: str, row):
        self.label, self.value, self.expected, self.row = label, value, expected, row
        super().__init__(f"expected {expected} in {label}, found {value!r}")

    def error(self, where: str, schema: Schema) -> WholeInputError:
        """The error naming the input, the row by its key, the column and the value."""
        if self.label is None:  # SQLAlchemy refused a row, and read raw it looked right
            return WholeInputError(where, None, self.expected, str(self.value))
        return WholeInputError(where, schema.row_name(self.label, self.row),
                               f"{self.expected} in column {schema.column_name(self.label)}",
                               str(self.value))


def num(row, label: str) -> float | None:
    """The number in ``row[label]``, or None; a value that is no number raises WrongValue.

    >>> num({"invocation_remote_duration": 2}, "invocation_remote_duration")
    2.0
    """
    return _typed(row, label, float, "a number")


def integer(row, label: str) -> int | None:
    """The integer in ``row[label]``, or None; any other value raises WrongValue.

    >>> integer({"job_max_retries": "3"}, "job_max_retries")
    3
    """
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


def prop(key: str) -> str:
    """The graph property of a metadata key.

    >>> prop("checksum.value")
    'meta_checksum_value'
    """
    return "meta_" + "".join(c if c.isalnum() else "_" for c in key)
