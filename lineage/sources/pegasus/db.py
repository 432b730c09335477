"""Pegasus Stampede databases (``*.stampede.db`` SQLite files, or a MySQL / PostgreSQL
Stampede database named by URL) into lineage records, read-only and streamed.

Rows are streamed (``yield_per``: server-side cursors on PostgreSQL / MySQL); the only
tables held in memory are ``workflow`` and ``host``, which are small. The schema is
inspected first (:mod:`.stampede.schema`): optional tables (``task``, ``invocation``,
``rc_*``, ``workflow_files`` / ``file``, ``tag``, ``integrity`` ...) are read when present,
in the layout of whichever schema version wrote them; leftover tables are reported. The run
tables are read by :mod:`.stampede.runs`, the file tables by :mod:`.stampede.files`.

>>> sqlite_url("/tmp/a b.db")
'sqlite:///file:/tmp/a%20b.db?mode=ro&uri=true'
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Iterator
from urllib.parse import quote

from ...errors import LineageError
from ...records import Record
from ..base import Format, LoadReport
from .stampede.files import Files
from .stampede.runs import Reader
from .stampede.schema import Schema, WrongValue

SQLITE_MAGIC = b"SQLite format 3\x00"
#: Tables without which a database is not a Stampede database.
REQUIRED = ("workflow", "job", "job_instance", "jobstate")
#: Tables read when present.
OPTIONAL = (
    "workflowstate", "workflow_meta", "host", "task", "task_edge", "task_meta", "job_edge",
    "invocation", "tag", "integrity", "rc_lfn", "rc_pfn", "rc_meta", "rc_attr",
    "workflow_files", "file",
)
#: Tables known to hold nothing for the graph (dashboard / ensemble bookkeeping, versions;
#: ``master_workflow_new`` is what Pegasus's migration to schema 12 leaves behind on SQLite).
KNOWN_UNUSED = (
    "dbversion", "schema_info", "master_workflow", "master_workflowstate", "ensemble",
    "ensemble_workflow", "trigger", "sqlite_sequence", "sequences", "master_workflow_new",
)


def sqlite_url(path: str | Path) -> str:
    """A read-only SQLAlchemy URL for a SQLite file (SQLite's own URI syntax)."""
    return f"sqlite:///file:{quote(str(path))}?mode=ro&uri=true"


def _safe_url(url: str) -> str:
    try:
        from sqlalchemy.engine import make_url

        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # an unparsable URL is reported by create_engine later
        return url.split("@")[-1]


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


def _engine(target: str | Path):
    from sqlalchemy import create_engine

    text = str(target)
    if "://" not in text:
        return create_engine(sqlite_url(text)), text
    if text.startswith("sqlite:///") and not text.startswith("sqlite:///file:"):
        path = text[len("sqlite:///"):]
        return create_engine(sqlite_url(path)), text  # read-only, like a plain path
    return create_engine(text), _safe_url(text)


def parse(target: str | Path, report: LoadReport) -> Iterator[Record]:
    """Records of one Stampede database (a SQLite file path or a database URL)."""
    from sqlalchemy.exc import SQLAlchemyError

    try:
        engine, where = _engine(target)
    except (SQLAlchemyError, ImportError) as exc:
        raise LineageError(f"{_safe_url(str(target))}: cannot open the database: {exc}") from exc
    try:
        try:
            schema = Schema(engine, REQUIRED + OPTIONAL, report, where)
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
            raise LineageError(f"{where}: cannot read the database: {exc}") from exc
        missing = [t for t in REQUIRED if t not in schema.t]
        if missing:
            report.skip(where, None, "a Stampede database with tables " + ", ".join(REQUIRED),
                        "missing " + ", ".join(missing))
            return
        if not schema.check_identity(REQUIRED):
            return
        known = set(REQUIRED + OPTIONAL + KNOWN_UNUSED)
        leftovers = sorted(n for n in schema.names if schema.current(n) not in known)
        if leftovers:
            report.extra["unread_tables"] = leftovers
            for name in leftovers:
                report.unknown_item(f"table {name}")
        report.extra["absent_tables"] = [t for t in OPTIONAL if t not in schema.t]
        reader = Reader(schema, report, where)
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
            yield from Files(reader).records()
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
