"""One increment of a followed input, written as a load of its own.

An increment is named by the input and the part of it that was read: the bytes ``a`` to
``b`` of a growing file, ``file:///data/run/diamond-0.bp#bytes=0-5321``; the ``n``-th
increment of a database followed by its rows, ``file:///data/run/diamond-0.stampede.db#rows=3``
(what it read up to is in its load's counts, :func:`committed_rows`). That name is the
path of its ``:Load`` node, so ``lineage unload`` and ``lineage stats`` see every increment,
and the graph itself says what was read: an increment's load has status ``loaded`` (or
``empty``) only once its records are written, in the same transaction that takes off its
write mark (:func:`lineage.load.loads.end_write`). The end of the last such increment is
where the next one starts, also after the watcher was killed (:func:`committed_end`); what an
increment killed mid-write left is taken off again first (:func:`clear_abandoned`). Newer
increments of one file replace the values older ones stated of what both state; they are not
counted as conflicting claims (:data:`lineage.load.claims.PART`).

>>> name = increment_name("/data/run/diamond-0.bp", 0, 5321)
>>> name
'file:///data/run/diamond-0.bp#bytes=0-5321'
>>> byte_range(name)
(0, 5321)
"""

from __future__ import annotations

import dataclasses
import json
from typing import Callable, Iterable, Iterator

from ..errors import LineageError
from ..load import claims, loads
from ..load.inputs import Input
from ..load.pipeline import LoadResult, load_input
from ..load.writer import Writer
from ..model.records import Record
from ..sources.base import Format, LoadReport
from ..sources.options import LoadOptions

#: statuses of an increment whose bytes were read (an unloaded one was read, then taken
#: back: it is not read again)
READ = ["loaded", "empty", "unloaded"]

_INCREMENTS = ("MATCH (l:Load) WHERE l.path STARTS WITH $prefix "
               "RETURN l.id AS id, l.path AS path, l.status AS status, l.writing AS writing, "
               "l.writer AS writer, l.counts AS counts")
#: The key of a database increment's report (stored in its load's ``counts``, written in
#: the transaction that makes it ``loaded``) that says what it read up to.
MARKS = "read_up_to"


def name_prefix(path: str) -> str:
    """What the names of the increments of file ``path`` (absolute) start with.

    >>> name_prefix("/d/x.log")
    'file:///d/x.log#bytes='
    """
    return f"file://{path}{claims.PART}"


def rows_prefix(path: str) -> str:
    """What the names of the increments of database ``path`` (absolute) start with.

    >>> rows_prefix("/d/x.stampede.db")
    'file:///d/x.stampede.db#rows='
    """
    return f"file://{path}{claims.ROWS}"


def rows_name(path: str, number: int) -> str:
    """The name of the ``number``-th increment of database ``path`` (counted from 1).

    >>> rows_name("/d/x.stampede.db", 3)
    'file:///d/x.stampede.db#rows=3'
    """
    return f"{rows_prefix(path)}{number}"


def committed_rows(driver, database: str | None, path: str) -> tuple[int, dict | None]:
    """The number of the last increment of database ``path`` the graph says was read, and
    what it read up to (its marks, :data:`MARKS` in its load's counts; ``(0, None)`` when
    none was)."""
    last, marks = 0, None
    for row in _increments(driver, database, path, rows_prefix(path)):
        number = int(row["path"].rpartition(claims.ROWS)[2])
        if row["status"] in READ and number > last:
            last, marks = number, json.loads(row["counts"] or "{}").get(MARKS)
    return last, marks


def increment_name(path: str, start: int, end: int) -> str:
    """The name (``:Load`` path) of the increment of bytes ``start`` to ``end`` of ``path``."""
    return f"{name_prefix(path)}{start}-{end}"


def byte_range(name: str) -> tuple[int, int]:
    """The bytes an increment's name says were read: ``(start, end)``."""
    start, _, end = name.rpartition(claims.PART)[2].partition("-")
    return int(start), int(end)


def committed_end(driver, database: str | None, path: str) -> int:
    """Where the next increment of ``path`` starts: the end of the last increment the
    graph says was read (0 when none was)."""
    ends = [byte_range(row["path"])[1] for row in _increments(driver, database, path)
            if row["status"] in READ]
    return max(ends, default=0)


def _increments(driver, database: str | None, path: str,
                prefix: str | None = None) -> list[dict]:
    records, _, _ = driver.execute_query(_INCREMENTS, prefix=prefix or name_prefix(path),
                                         database_=database, routing_="r")
    return [dict(r) for r in records]


def clear_abandoned(driver, database: str | None, path: str,
                    prefix: str | None = None) -> int:
    """Take off the graph what increments of ``path`` (named by ``prefix``, default
    :func:`name_prefix`) wrote without finishing (their writer was killed: its write mark
    stands, its process is gone), and their ``:Load`` nodes. Raises :class:`LineageError`
    when a live process is writing one (another watcher of the same file). Returns how many
    were cleared."""
    cleared = 0
    for row in _increments(driver, database, path, prefix):
        if row["writing"] is None:
            continue
        if loads.being_written(driver, database, row["id"]):
            raise LineageError(f"{path} is being followed by another process "
                               f"({row['writer']}): one watcher per file")
        loads.release(driver, database, row["id"])
        driver.execute_query("MATCH (l:Load {uid: $uid}) DETACH DELETE l",
                             uid=loads.load_uid(row["id"]), database_=database)
        cleared += 1
    return cleared


Reader = Callable[[LoadReport], Iterable[Record]]


def write_increment(writer: Writer, fmt: Format, name: str, read: Reader,
                    options: LoadOptions | None = None) -> LoadResult:
    """Load the records ``read(report)`` yields as the load named ``name`` (in format
    ``fmt``: its name and source are the load's): parsed whole first, then written under
    its own ``:Load`` like any input (:func:`lineage.load.pipeline.load_input`)."""
    def parse(_source, report: LoadReport) -> Iterator[Record]:
        yield from read(report)

    piece = dataclasses.replace(fmt, parse=parse, own_process=True)
    return load_input(writer, Input(name, piece, True), options=options)
