"""Pegasus Stampede databases (``*.stampede.db`` SQLite files, or a MySQL / PostgreSQL
Stampede database named by URL) into lineage records, read-only and streamed.

Rows are streamed (``yield_per``: server-side cursors on PostgreSQL / MySQL); the only
tables held in memory are ``workflow`` and ``host``, which are small. The schema is
inspected first (:mod:`.stampede.schema`): optional tables (``task``, ``invocation``,
``rc_*``, ``workflow_files`` / ``file``, ``tag``, ``integrity`` ...) are read when present,
in the layout of whichever schema version wrote them; leftover tables are reported. The run
tables are read by :mod:`.stampede.runs`, the file tables by :mod:`.stampede.files`. A
database that also holds the master tables with runs in them (Pegasus 5 creates every table
in every database; a site may keep one MySQL database for both) is read as that index of
runs too (:mod:`.stampede.index`), and the runs' own Stampede databases with it.

>>> sqlite_url("/tmp/a b.db")
'sqlite:///file:/tmp/a%20b.db?mode=ro&uri=true'
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Iterator

from ...model.records import Record
from ..base import Format, LoadReport
from .stampede import index
from .stampede.connect import SQLITE_MAGIC, guarded, opened, sqlite_tables, sqlite_url
from .stampede.files import Files, other_layout_tables
from .stampede.runs import Reader

__all__ = ["FORMATS", "detect", "parse", "sqlite_url"]

#: Tables without which a database is not a Stampede database.
REQUIRED = ("workflow", "job", "job_instance", "jobstate")
#: Tables read when present.
OPTIONAL = (
    "workflowstate", "workflow_meta", "host", "task", "task_edge", "task_meta", "job_edge",
    "invocation", "tag", "integrity", "rc_lfn", "rc_pfn", "rc_meta", "rc_attr",
    "workflow_files", "file",
)
#: Tables known to hold nothing for the graph (ensemble bookkeeping, versions;
#: ``master_workflow_new`` is what Pegasus's migration to schema 12 leaves behind on SQLite).
KNOWN_UNUSED = (
    "dbversion", "schema_info", "ensemble", "ensemble_workflow", "trigger", "sqlite_sequence",
    "sequences", "master_workflow_new",
)


# ------------------------------------------------------------------ detection
def detect(path: Path, head: bytes) -> bool:
    """A SQLite file whose tables include the Stampede core (workflow, job, jobstate ...)."""
    if not head.startswith(SQLITE_MAGIC):
        return False
    try:
        tables = sqlite_tables(path)
    except sqlite3.OperationalError as exc:
        # locked by a writer (pegasus-monitord still running): take a Stampede-named file,
        # so that reading it says so, rather than calling it unrecognised
        return "locked" in str(exc) and path.name.endswith(".stampede.db")
    except sqlite3.Error:
        return False
    return all(t in tables for t in REQUIRED)


def parse(target: str | Path, report: LoadReport) -> Iterator[Record]:
    """Records of one Stampede database (a SQLite file path or a database URL)."""
    with opened(target, report, REQUIRED + OPTIONAL + index.TABLES, "Stampede database"
                ) as (schema, where):
        if schema is None or not readable(schema, report, where):
            return
        known = set(REQUIRED + OPTIONAL + index.TABLES + KNOWN_UNUSED)
        leftovers = sorted(n for n in schema.names if schema.current(n) not in known)
        if leftovers:
            report.extra["unread_tables"] = leftovers
            for name in leftovers:
                report.unknown_item(f"table {name}")
        other_layout = other_layout_tables(schema.t)
        report.extra["absent_tables"] = [t for t in OPTIONAL
                                         if t not in schema.t and t not in other_layout]
        reader = Reader(schema, report, where)
        yield from guarded(_runs(reader), schema, report, where, "Stampede database")
        reader.warn_drops()
        if schema.has("master_workflow") and schema.rows("master_workflow"):
            yield from index.read(schema, report, where, target, parse)


def readable(schema, report: LoadReport, where: str) -> bool:
    """Whether ``schema`` has the tables and columns of a Stampede database's runs; what it
    lacks is reported (skipped, or an error in strict mode)."""
    missing = [t for t in REQUIRED if t not in schema.t]
    if missing:
        report.skip(where, None, "a Stampede database with tables " + ", ".join(REQUIRED),
                    "missing " + ", ".join(missing))
        return False
    return schema.check_identity(REQUIRED)


def _runs(reader: Reader) -> Iterator[Record]:
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
