"""The registry of input formats: every source's readers, in detection order.

Each reader module of a source (``READERS`` in ``lineage/sources/<source>/__init__.py``)
declares ``FORMATS``; :func:`formats` lists them all, :func:`detect` finds the one that
reads a given file, :func:`for_url` the one that reads a database URL. A source whose
package names a demo writer module (``DEMO``) writes its part of the demo campaign
(:func:`demo_writers`).

>>> [f.name for f in formats() if f.source == "pegasus"][:1]
['pegasus-bp']
>>> [source for source, _ in demo_writers()]
['pegasus', 'swift', 'chimbuko', 'xalt']
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Callable

from ..errors import UnknownFormatError
from ..redact import redact_text, redact_url, unreadable_url
from . import SOURCES
from .base import DemoFiles, Format, LoadReport

__all__ = ["Format", "LoadReport", "DemoFiles", "formats", "detect", "for_url",
           "demo_writers", "SOURCES", "HEAD_BYTES"]

HEAD_BYTES = 64 * 1024


def formats() -> list[Format]:
    """Every registered format."""
    out: list[Format] = []
    for source in SOURCES:  # detection order: sources in order, each source's readers in order
        package = importlib.import_module(f"lineage.sources.{source}")
        for reader in package.READERS:
            out.extend(importlib.import_module(f"lineage.sources.{source}.{reader}").FORMATS)
    return out


def demo_writers() -> list[tuple[str, Callable[..., DemoFiles]]]:
    """``(source, write)`` of every source with a demo writer, in source order:
    ``write(campaign, directory)`` writes that source's files of a
    :class:`lineage.demo.scenario.Campaign` under ``directory`` and returns a
    :class:`DemoFiles`."""
    out = []
    for source in SOURCES:
        package = importlib.import_module(f"lineage.sources.{source}")
        module = getattr(package, "DEMO", None)
        if module:
            out.append((source, importlib.import_module(f"lineage.sources.{source}.{module}").write))
    return out


def detect(path: Path, source: str = "auto") -> Format | None:
    """The format that reads ``path`` (restricted to one source unless ``source`` is auto).

    Returns ``None`` when no format recognises the file; with a forced ``source`` that has
    a fallback format, that format is returned (its parser then reports what is wrong).
    """
    if source != "auto" and source not in SOURCES:
        raise UnknownFormatError(f"unknown source {source!r}; expected one of {SOURCES}")
    with open(path, "rb") as fh:
        head = fh.read(HEAD_BYTES)
    candidates = [f for f in formats() if source in ("auto", f.source)]
    for fmt in candidates:
        if fmt.detect(Path(path), head):
            return fmt
    if source != "auto":
        # a forced source reads the file with its fallback format: if the file is something
        # else, the parser's error says what was expected where
        for fmt in candidates:
            if fmt.fallback:
                return fmt
    return None


def for_url(url: str, source: str = "auto") -> Format:
    """The format that reads a database URL such as ``sqlite:///x.db`` or ``postgresql://``.

    When several formats read that scheme (Stampede and Swift databases are both
    PostgreSQL), the database is asked which tables it has and the format whose
    ``url_tables`` are all there wins.
    """
    scheme = url.split(":", 1)[0].split("+", 1)[0]
    candidates = [f for f in formats() if scheme in f.url_schemes and source in ("auto", f.source)]
    if not candidates:
        raise UnknownFormatError(f"{redact_url(url)}: no {source} loader reads {scheme}:// URLs")
    if len(candidates) == 1:
        return candidates[0]
    tables = _tables_of(url)
    for fmt in candidates:
        if fmt.url_tables and all(t in tables for t in fmt.url_tables):
            return fmt
    raise UnknownFormatError(
        f"{redact_url(url)}: a {scheme} database without the tables of "
        + " or ".join(f"{f.name} ({', '.join(f.url_tables)})" for f in candidates)
        + "; use --source to choose"
    )


def _tables_of(url: str) -> set[str]:
    from sqlalchemy import create_engine, inspect
    from sqlalchemy.exc import SQLAlchemyError

    try:
        engine = create_engine(url)
    except (ValueError, SQLAlchemyError) as exc:  # a URL it cannot parse (libpq multi-host)
        raise UnknownFormatError(unreadable_url(url, exc)) from None
    try:
        return set(inspect(engine).get_table_names())
    except SQLAlchemyError as exc:
        raise UnknownFormatError(f"{redact_url(url)}: cannot list its tables: "
                                 f"{redact_text(str(exc))}") from None
    finally:
        engine.dispose()
