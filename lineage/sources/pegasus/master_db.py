"""Pegasus master databases: the index of a user's runs (``~/.pegasus/workflow.db``, tables
``dbversion``, ``master_workflow``, ``master_workflowstate``), read-only, with each run's
own Stampede database followed when it is there (see :mod:`.stampede.index`).

A database that also has the Stampede tables is read by :mod:`.db` (which reads its master
tables too); this format takes the ones that have the master tables only.

>>> [f.name for f in FORMATS]
['pegasus-master-db']
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Iterator

from ...model.records import Record
from ..base import Format, LoadReport
from . import db
from .stampede import index
from .stampede.connect import SQLITE_MAGIC, opened, sqlite_tables


def detect(path: Path, head: bytes) -> bool:
    """A SQLite file with the master tables and without the Stampede core."""
    if not head.startswith(SQLITE_MAGIC):
        return False
    try:
        tables = sqlite_tables(path)
    except sqlite3.Error:
        return False
    return set(index.TABLES) <= tables and not set(db.REQUIRED) <= tables


def parse(target: str | Path, report: LoadReport) -> Iterator[Record]:
    """The runs of one master database (a SQLite file path or a database URL) and the
    records of their Stampede databases."""
    with opened(target, report, index.TABLES, "Pegasus master database") as (schema, where):
        if schema is None:
            return
        if "master_workflow" not in schema.t:
            report.skip(where, None, "a Pegasus master database with tables "
                        + ", ".join(index.TABLES), "no master_workflow table")
            return
        if not schema.check_identity(("master_workflow",)):
            return
        known = set(index.TABLES + ("dbversion", "sqlite_sequence"))
        leftovers = sorted(n for n in schema.names if n not in known)
        for name in leftovers:
            report.unknown_item(f"table {name}")
        yield from index.read(schema, report, where, target, db.parse)


FORMATS = [
    Format(
        name="pegasus-master-db",
        source="pegasus",
        detect=detect,
        parse=parse,
        url_schemes=("sqlite", "mysql", "postgresql"),
        url_tables=index.TABLES,
        description="Pegasus master database (the index of a user's runs, ~/.pegasus/"
                    "workflow.db), with each run's Stampede database",
    )
]
