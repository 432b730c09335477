"""A Swift provenance database (swift-provenancedb's PostgreSQL schema) into lineage records.

Reads, in one read-only transaction, the tables the importer fills: ``run``, ``script``,
``fun_call`` with ``app_fun_call``, ``app_exec`` (with its 22 resource columns, its
``stage_in``/``stage_out`` file names and ``rt_info`` samples), ``ds`` with ``mapped`` and
``primitive``, ``dataset_containment``, ``dataset_in``/``dataset_out`` and the annotation
tables ``annot_{script_run,function_call,app_exec,dataset}_{num,text}``. Tables other than
``run``, ``fun_call`` and ``ds`` may be missing (older databases): they are reported and
skipped. A table present without the columns read from it is skipped too, with one warning,
and listed under ``tables_missing_columns``; a table this reader does not know is counted as
an unknown item and listed under ``unread_tables`` (views are not tables). The records are
those the log loader makes (same uids and properties), through the shared model in
:mod:`lineage.sources.swift.mapping`; annotations become ``annot_<key>`` properties.

The URL is any libpq URL: ``postgresql://user@host:5432/provdb`` (``postgres://`` and
``postgresql+psycopg://`` are accepted too); the password may come from ``PGPASSWORD`` or
``~/.pgpass`` rather than the URL.

>>> libpq_url("postgresql+psycopg://u@h/db")
'postgresql://u@h/db'
"""

from __future__ import annotations

import re

from decimal import Decimal
from typing import Iterator

from ...errors import LineageError
from ...redact import redact_url
from ...model.records import Node, Record
from . import model as swift_model
from . import mapping as sp
from ..base import Format, LoadReport

REQUIRED = ("run", "fun_call", "ds")
OPTIONAL = ("app_fun_call", "app_exec", "mapped", "primitive", "dataset_containment",
            "dataset_in", "dataset_out", "script", "stage_in", "stage_out", "rt_info")
ANNOTATED = {
    "script_run": (swift_model.SCRIPT_RUN, sp.run_uid),
    "function_call": (swift_model.FUNCTION_CALL, sp.call_uid),
    "app_exec": (swift_model.APP_EXECUTION, sp.exec_uid),
    "dataset": (swift_model.DATASET, sp.dataset_uid),
}
RT_COLUMNS = ("timestamp", "cpu_usage", "max_phys_mem", "max_virt_mem", "io_read", "io_write")
_BATCH = 2000


def libpq_url(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    return "postgresql" + sep + rest if scheme.split("+")[0] in ("postgresql", "postgres") else url


def _num(value):
    """Numbers as Python numbers (PostgreSQL ``numeric`` arrives as Decimal).

    >>> _num(Decimal("3")), _num(Decimal("21.5")), _num(None)
    (3, 21.5, None)
    """
    if isinstance(value, Decimal):
        whole = value.as_tuple().exponent >= 0
        return int(value) if whole and abs(value) < 2**53 else float(value)
    return value


def _float(value):
    return None if value is None else float(value)


def _str(value):
    return None if value is None else str(value)


def connect(url: str):
    """A read-only connection (every transaction it opens refuses writes)."""
    try:
        import psycopg
    except ImportError as exc:  # pragma: no cover - psycopg is a dependency
        raise LineageError("reading a Swift provenance database needs psycopg "
                           "(pip install 'psycopg[binary]')") from exc
    try:
        conn = psycopg.connect(libpq_url(url), connect_timeout=20)
    except psycopg.Error as exc:
        raise LineageError(f"cannot connect to the Swift provenance database "
                           f"{redact_url(url)}: {redact_url(str(exc))}") from exc
    conn.read_only = True
    return conn


class _Tables:
    """Which tables and columns the database has (checked once)."""

    def __init__(self, conn):
        rows = conn.execute(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = ANY (current_schemas(false)) "
            "ORDER BY table_name, ordinal_position"
        ).fetchall()
        self.columns: dict[str, list[str]] = {}
        for table, column in rows:
            self.columns.setdefault(table, []).append(column)
        self.base_tables = {name for (name,) in conn.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = ANY (current_schemas(false)) AND table_type = 'BASE TABLE'")}
        #: tables present without columns a reader needs: table -> the missing columns
        self.incomplete: dict[str, list[str]] = {}

    def has(self, table: str, *columns: str) -> bool:
        return table in self.columns and all(c in self.columns[table] for c in columns)

    def readable(self, table: str, *columns: str) -> bool:
        """Whether ``table`` has ``columns``; a table present without them is noted in
        :attr:`incomplete` (reported by :func:`_report_tables`)."""
        if self.has(table, *columns):
            return True
        if table in self.columns:
            missing = [c for c in columns if c not in self.columns[table]]
            self.incomplete.setdefault(table, []).extend(
                c for c in missing if c not in self.incomplete.get(table, ()))
        return False


def _known_tables() -> set[str]:
    """Every table this reader reads."""
    annotations = {f"annot_{entity}_{suffix}" for entity in ANNOTATED
                   for suffix in ("num", "text")}
    return {*REQUIRED, *OPTIONAL, *annotations}


def _report_unread(tables: _Tables, report: LoadReport) -> None:
    """Count the tables this reader does not know as unknown items (``unread_tables``)."""
    leftovers = sorted(tables.base_tables - _known_tables())
    if leftovers:
        report.extra["unread_tables"] = leftovers
        for name in leftovers:
            report.unknown_item(f"table {name}")


def _report_incomplete(tables: _Tables, report: LoadReport, url: str) -> None:
    """One warning for the tables skipped for missing columns (``tables_missing_columns``)."""
    if tables.incomplete:
        report.extra["tables_missing_columns"] = dict(sorted(tables.incomplete.items()))
        listed = "; ".join(f"{t} (no {', '.join(c)})" for t, c in sorted(tables.incomplete.items()))
        report.warn(f"{url}: tables without the columns read from them, not read: {listed}")


def _stream(conn, sql: str, name: str):
    """Rows of a query through a server-side cursor (memory stays flat)."""
    with conn.cursor(name=f"lineage_{name}") as cur:
        cur.itersize = _BATCH
        cur.execute(sql)
        yield from cur


def read_db(url: str, report: LoadReport) -> Iterator[Record]:
    conn = connect(url)
    url = redact_url(url)  # only the redacted URL reaches messages
    try:
        tables = _Tables(conn)
        missing = [t for t in REQUIRED if t not in tables.columns]
        if missing:
            report.skip(url, None, "a Swift provenance database (tables run, fun_call, ds)",
                        f"no table {', '.join(missing)}")
            return
        for table in OPTIONAL:
            if table not in tables.columns:
                report.warn(f"{url}: no table {table}; skipped")
        _report_unread(tables, report)
        yield from _runs(conn, tables, report)
        yield from _calls(conn, tables)
        yield from _execs(conn, tables)
        yield from _datasets(conn, tables)
        yield from _edges(conn, tables, report)
        yield from _annotations(conn, tables, report)
        _report_incomplete(tables, report, url)
        conn.rollback()
    finally:
        conn.close()


def _runs(conn, tables: _Tables, report: LoadReport) -> Iterator[Record]:
    n = 0
    for row in _stream(conn, "SELECT id, log_filename, swift_version, cog_version, final_state, "
                             "start_time, duration, script_filename, script_hash FROM run "
                             "ORDER BY id", "run"):
        n += 1
        yield from sp.run_records(sp.Run(
            row[0], log_filename=row[1], swift_version=_str(row[2]), cog_version=_str(row[3]),
            final_state=row[4], start_time=_float(row[5]), duration=_float(row[6]),
            script_filename=row[7], script_hash=row[8]))
    report.extra["runs"] = n
    if tables.readable("script", "hash_value", "content"):
        sql = ("SELECT s.hash_value, s.content, min(r.script_filename) FROM script s "
               "LEFT JOIN run r ON r.script_hash = s.hash_value "
               "GROUP BY s.hash_value, s.content ORDER BY s.hash_value")
        for sha1, content, filename in _stream(conn, sql, "script"):
            yield from sp.script_records(sha1, content or "", filename)


def _calls(conn, tables: _Tables) -> Iterator[Record]:
    attempts = ("(SELECT count(*) FROM app_exec e WHERE e.app_fun_call_id = f.id)"
                if tables.has("app_exec", "app_fun_call_id") else "NULL")
    if tables.has("app_fun_call"):
        sql = ("SELECT f.id, f.run_id, f.type, f.name, a.name, a.start_time, a.duration, "
               f"a.final_state, a.scratch, {attempts} FROM fun_call f "
               "LEFT JOIN app_fun_call a ON a.id = f.id ORDER BY f.id")
    else:
        sql = ("SELECT f.id, f.run_id, f.type, f.name, NULL, NULL, NULL, NULL, NULL, NULL "
               "FROM fun_call f ORDER BY f.id")
    for row in _stream(conn, sql, "fun_call"):
        yield from sp.call_records(sp.Call(
            row[0], row[1], row[2], name=row[3], app_name=row[4], start_time=_float(row[5]),
            duration=_float(row[6]), final_state=row[7], scratch=row[8], attempts=row[9]))


def _execs(conn, tables: _Tables) -> Iterator[Record]:
    if not tables.readable("app_exec", "id", "app_fun_call_id"):
        return
    resources = [c for c in sp.RESOURCE_COLUMNS if tables.has("app_exec", c)]
    parts = [f"e.{c}" for c in resources]
    stage_in = ("(SELECT array_agg(filename ORDER BY filename) FROM stage_in s "
                "WHERE s.app_exec_id = e.id)" if tables.has("stage_in") else "NULL")
    stage_out = ("(SELECT array_agg(filename ORDER BY filename) FROM stage_out s "
                 "WHERE s.app_exec_id = e.id)" if tables.has("stage_out") else "NULL")
    rt = [f"(SELECT array_agg({c} ORDER BY timestamp) FROM rt_info r WHERE r.app_exec_id = e.id)"
          for c in RT_COLUMNS] if tables.readable("rt_info", "app_exec_id", *RT_COLUMNS) else []
    sql = ("SELECT e.id, e.app_fun_call_id, f.run_id, e.start_time, e.duration, e.final_state, "
           f"e.site, {stage_in}, {stage_out}" + "".join(", " + p for p in parts + rt)
           + " FROM app_exec e LEFT JOIN fun_call f ON f.id = e.app_fun_call_id ORDER BY e.id")
    for row in _stream(conn, sql, "app_exec"):
        exec_id, call_id, run_id = row[0], row[1], row[2]
        values = row[9:]
        extra = {}
        if run_id and exec_id.startswith(run_id + ":"):
            extra["job_id"] = exec_id[len(run_id) + 1:]
        for i, column in enumerate(RT_COLUMNS if rt else ()):
            samples = values[len(resources) + i]
            if samples:
                extra[f"rt_{column}"] = [float(v) for v in samples if v is not None]
        yield from sp.exec_records(sp.AppExec(
            exec_id, call_id, run_id, start_time=_float(row[3]), duration=_float(row[4]),
            final_state=row[5], site=row[6], stage_in=list(row[7] or []),
            stage_out=list(row[8] or []),
            resources={c: _num(values[i]) for i, c in enumerate(resources)}, extra=extra))


def _datasets(conn, tables: _Tables) -> Iterator[Record]:
    filename = "m.filename" if tables.has("mapped") else "NULL"
    value = "p.value" if tables.has("primitive") else "NULL"
    joins = (" LEFT JOIN mapped m ON m.id = d.id" if tables.has("mapped") else "") + \
            (" LEFT JOIN primitive p ON p.id = d.id" if tables.has("primitive") else "")
    collection = ("EXISTS (SELECT 1 FROM dataset_containment c WHERE c.out_id = d.id)"
                  if tables.has("dataset_containment") else "false")
    sql = f"SELECT d.id, {filename}, {value}, {collection} FROM ds d{joins} ORDER BY d.id"
    for ds_id, fname, val, is_collection in _stream(conn, sql, "ds"):
        yield from sp.dataset_records(sp.Dataset(ds_id, fname, val, bool(is_collection)))


def _edges(conn, tables: _Tables, report: LoadReport) -> Iterator[Record]:
    if tables.readable("dataset_containment", "out_id", "in_id"):
        for out_id, in_id in _stream(conn, "SELECT out_id, in_id FROM dataset_containment "
                                           "ORDER BY out_id, in_id", "containment"):
            yield from sp.containment_records(out_id, in_id)
    for table, direction in (("dataset_in", "input"), ("dataset_out", "output")):
        if not tables.readable(table, "function_call_id", "dataset_id", "parameter"):
            continue
        sql = (f"SELECT function_call_id, dataset_id, parameter FROM {table} "
               "ORDER BY function_call_id, dataset_id, parameter")
        for call_id, ds_id, parameter in _stream(conn, sql, table):
            yield from sp.io_records(call_id, ds_id, parameter or "", direction)


def _annotations(conn, tables: _Tables, report: LoadReport) -> Iterator[Record]:
    """``annot_<entity>_{num,text}(<entity id>, name, value)`` as ``annot_<name>`` properties.

    The id column is ``id`` in some databases and ``<entity>_id`` in the importer's schema:
    it is the table's first column either way.
    """
    count = 0
    for entity, (kind, uid_of) in ANNOTATED.items():
        for suffix in ("num", "text"):
            table = f"annot_{entity}_{suffix}"
            if not tables.readable(table, "name", "value"):
                continue
            id_column = next(c for c in tables.columns[table] if c not in ("name", "value"))
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", id_column):
                report.warn(f"{table}: id column {id_column!r} is not a plain name; skipped")
                continue
            sql = (f'SELECT "{id_column}", name, value FROM {table} '
                   f'ORDER BY "{id_column}", name')
            for entity_id, name, value in _stream(conn, sql, table):
                count += 1
                value = _num(value) if suffix == "num" else value
                yield Node(kind, uid_of(entity_id), {sp.ANNOT_PREFIX + name: value})
    report.extra["annotations"] = count


def parse(url, report: LoadReport) -> Iterator[Record]:
    yield from read_db(str(url), report)


def detect(path, head: bytes) -> bool:
    return False  # a database URL, never a file


FORMATS = [
    Format("swift-db", "swift", detect, parse, url_schemes=("postgresql", "postgres"),
           url_tables=REQUIRED,
           description="Swift provenance database (swift-provenancedb schema) in PostgreSQL"),
]
