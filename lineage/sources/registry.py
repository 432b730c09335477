"""The registry: every source's declaration (:class:`.source.Source`), collected once, and what
the generic code asks of them: the input formats (:func:`formats`, :func:`detect`,
:func:`for_url`), the views (:func:`views`), the load options (:func:`load_options`, from
:mod:`.options`), the template folders (:func:`template_dirs`), the writers of the demo
campaign (:func:`demo_writers`), the export formats sources write (:func:`export_formats`,
:func:`export_writer`) and how ``lineage watch`` follows a format (:func:`follow_of`,
:func:`line_stream`).

>>> [f.name for f in formats() if f.source == "pegasus"][:1]
['pegasus-bp']
>>> sorted(views().explainers)[:2]
['Execution', 'Job']
>>> [source for source, _ in demo_writers()]
['pegasus', 'swift', 'chimbuko', 'xalt']
>>> export_formats()
('prov-json', 'prov-n')
>>> export_writer("prov-n").__name__
'write_prov_n'
>>> follow_of("pegasus-bp").how, follow_of("swift-log")
('lines', None)
"""

from __future__ import annotations

import importlib
from dataclasses import fields
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from ..errors import UnknownFormatError
from ..redact import redact_text, redact_url, unreadable_url
from . import SOURCES, declarations
from .base import DemoFiles, Format, LoadReport
from .options import load_options, options
from .source import Follow, Source, Views

__all__ = ["Format", "LoadReport", "DemoFiles", "formats", "detect", "for_url",
           "demo_writers", "SOURCES", "HEAD_BYTES", "sources", "views", "options",
           "load_options", "template_dirs", "export_formats", "export_writer", "follow_of",
           "line_stream", "row_reader"]

HEAD_BYTES = 64 * 1024


@lru_cache(maxsize=1)
def sources() -> dict[str, Source]:
    """Every source's declaration, by name, in detection order."""
    return declarations()


@lru_cache(maxsize=1)
def _formats() -> tuple[Format, ...]:
    # detection order: sources in order, each source's readers in order
    return tuple(fmt for source in sources().values() for fmt in source.formats())


def formats() -> list[Format]:
    """Every registered format."""
    return list(_formats())


@lru_cache(maxsize=1)
def views() -> Views:
    """Every source's views in one: the tables of kinds joined (a kind is declared by one
    source, so by one view), the sets united, the label functions called in turn."""
    merged: dict[str, Any] = {}
    for source in sources().values():
        for f in fields(Views):
            value = getattr(source.views, f.name)
            if f.name == "labels":
                merged.setdefault("labels", []).extend([value] if value else [])
            elif isinstance(value, frozenset):
                merged[f.name] = merged.get(f.name, frozenset()) | value
            else:
                have = merged.setdefault(f.name, {})
                twice = set(have) & set(value)
                if twice:
                    raise ValueError(f"{source.name}: views.{f.name} of {sorted(twice)} are "
                                     "declared by another source too")
                have.update(value)
    return Views(**{**merged, "labels": _all_labels(tuple(merged["labels"]))})


def _all_labels(functions: tuple) -> Any:
    def labels(nodes: list, edges: list) -> dict:
        return {uid: text for f in functions for uid, text in f(nodes, edges).items()}
    return labels


def template_dirs() -> dict[str, Path]:
    """Each source's template folder, by the name its templates start with."""
    return {name: s.cypher_dir for name, s in sources().items() if s.cypher_dir.is_dir()}


def demo_writers() -> list[tuple[str, Callable[..., DemoFiles]]]:
    """``(source, write)`` of every source with a demo writer (``Source.demo``), in source
    order: ``write(campaign, directory)`` writes that source's files of a
    :class:`lineage.sources.scenario.Campaign` under ``directory`` and returns a
    :class:`DemoFiles`."""
    return [(name, importlib.import_module(source.module(source.demo)).write)
            for name, source in sources().items() if source.demo]


def export_formats() -> tuple[str, ...]:
    """The export formats the sources write (``Source.exports``), in source order; reads
    the declarations only (the command line lists them without importing a writer)."""
    out: dict[str, str] = {}
    for name, source in sources().items():
        for fmt in source.exports:
            if fmt in out:
                raise ValueError(f"{name}: export format {fmt!r} is written by {out[fmt]} too")
            out[fmt] = name
    return tuple(out)


def export_writer(fmt: str) -> Callable[..., Any]:
    """The writer of export format ``fmt``: ``write(nodes, edges, path, roots)``."""
    for source in sources().values():
        if fmt in source.exports:
            module, function = source.export_target(fmt)
            return getattr(importlib.import_module(module), function)
    raise ValueError(f"no source writes export format {fmt!r}; expected one of "
                     f"{', '.join(export_formats())}")


def follow_of(format_name: str) -> Follow | None:
    """How ``lineage watch`` follows inputs of ``format_name`` (``Source.follows``); None
    when no source follows that format."""
    for source in sources().values():
        if format_name in source.follows:
            return source.follows[format_name]
    return None


def line_stream(format_name: str) -> Any:
    """A new stream reader of ``format_name`` (one whose follow is ``lines``): an object
    whose ``records(lines, report, path)`` yields records and remembers across calls."""
    return _follow_reader(format_name, "lines")


def row_reader(format_name: str) -> Any:
    """A new reader of a database of ``format_name`` followed by its rows (``Follow.how ==
    "rows"``): an object whose ``snapshot(path, marks)`` opens one read of it (see :class:`Follow`)."""
    return _follow_reader(format_name, "rows")


def _follow_reader(format_name: str, how: str) -> Any:
    for source in sources().values():
        follow = source.follows.get(format_name)
        if follow is not None and follow.how == how:
            module, function = follow.target(source.package)
            return getattr(importlib.import_module(module), function)()
    raise ValueError(f"no source follows {format_name!r} by its {how}")


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
    path = Path(path)
    for fmt in candidates:
        if fmt.detect(path, head):
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
