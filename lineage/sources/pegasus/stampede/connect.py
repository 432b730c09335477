"""Opening a Pegasus database read-only (a SQLite file or a database URL) and reading it with
the errors a damaged or busy database gives turned into the input's own errors.

>>> sqlite_url("/tmp/a b.db")
'sqlite:///file:/tmp/a%20b.db?mode=ro&uri=true'
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator
from urllib.parse import quote

from ...base import LoadReport
from ....errors import LineageError
from ....model.records import Record
from ....redact import redact_text, redact_url, unreadable_url
from .schema import Schema, WrongValue

SQLITE_MAGIC = b"SQLite format 3\x00"


def sqlite_url(path: str | Path) -> str:
    """A read-only SQLAlchemy URL for a SQLite file (SQLite's own URI syntax)."""
    return f"sqlite:///file:{quote(str(path))}?mode=ro&uri=true"


def sqlite_tables(path: Path) -> set[str]:
    """The tables of a SQLite file (raises sqlite3.Error when it cannot be read)."""
    conn = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True)
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        conn.close()


def _engine(target: str | Path):
    from sqlalchemy import create_engine

    text = str(target)
    if "://" not in text:
        return create_engine(sqlite_url(text)), text
    if text.startswith("sqlite:///") and not text.startswith("sqlite:///file:"):
        path = text[len("sqlite:///"):]
        return create_engine(sqlite_url(path)), text  # read-only, like a plain path
    return create_engine(text), redact_url(text)


@contextmanager
def opened(target: str | Path, report: LoadReport, tables: tuple[str, ...], what: str):
    """``(schema, where)`` of the database ``target`` with ``tables`` reflected; ``schema``
    is None when the database cannot be read (counted as skipped: its schema text is not
    UTF-8, or a writer holds it locked). ``what`` names the kind of database in messages."""
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
            schema = Schema(engine, tables, report, where)
        except UnicodeDecodeError as exc:  # a damaged file: its schema text is not UTF-8
            report.skip(where, None, f"a {what} whose schema is readable text",
                        f"bytes that are not UTF-8 ({exc.reason} at {exc.start})")
            schema = None
        except SQLAlchemyError as exc:
            if "locked" not in str(exc):
                raise LineageError(f"{where}: cannot read the database: "
                                   f"{redact_text(str(exc))}") from None
            report.skip(where, None, "a database no writer holds locked (is "
                        "pegasus-monitord still writing it? load it when it is done)",
                        "database is locked")
            schema = None
        yield schema, where
    finally:
        engine.dispose()


def guarded(records: Iterator[Record], schema: Schema, report: LoadReport, where: str,
            what: str) -> Iterator[Record]:
    """``records`` read from ``schema``: a value of the wrong type stops the input with its
    error (no line to skip); rows the database cannot give are counted as skipped."""
    from sqlalchemy.exc import SQLAlchemyError

    try:
        yield from records
    except WrongValue as exc:
        raise exc.error(where, schema) from None
    except SQLAlchemyError as exc:
        report.skip(where, None, f"readable rows of a {what}", str(exc).splitlines()[0])
    except UnicodeDecodeError as exc:  # a damaged file: a text value that is not UTF-8
        report.skip(where, None, f"readable rows of a {what} (UTF-8 text)",
                    f"bytes that are not UTF-8 ({exc.reason} at {exc.start})")
