"""Following a database while it is written, by its rows (``Follow.how == "rows"``).

Each look opens one read transaction on the database (the source's reader,
:func:`lineage.sources.registry.row_reader`): the snapshot says what it holds up to (its
*marks*: the largest row id of each table, say), and when that is more than the last
increment read, the records of what is new (and of what the new rows name or may have
changed) are written as one increment, ``file:///…/run.stampede.db#rows=<n>``, its marks
stored in its load's counts in the transaction that makes it ``loaded``
(:func:`.increments.committed_rows`). A restart takes off what an increment killed mid-write
left, and goes on from the marks of the last increment written. A database a writer holds
locked is left to the next look.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from ..errors import LineageError, ParseError
from ..model.records import Node, Record
from ..sources import registry
from ..sources.base import Format, LoadReport
from ..sources.options import LoadOptions
from . import increments
from .follow import Step


class RowFollower:
    """A database that grows by rows."""

    def __init__(self, path: str, fmt: Format, options: LoadOptions):
        self.path = str(Path(path).resolve())
        self.format = fmt
        self.options = options
        self.reader = registry.row_reader(fmt.name)
        self.number: int | None = None  # the last increment written (None: not resumed)
        self.marks: dict | None = None  # what it read up to
        self.stopped: str | None = None
        self.busy = 0  # looks that found the database locked, in a row

    def resume(self, writer) -> None:
        """Take off what an increment killed mid-write left; go on from the last one written."""
        driver, database = writer.driver, writer.database
        increments.clear_abandoned(driver, database, self.path,
                                   increments.rows_prefix(self.path))
        self.number, self.marks = increments.committed_rows(driver, database, self.path)

    def step(self, writer) -> list[Step]:
        """Write what the database holds beyond the last increment, as one increment;
        nothing when it holds nothing new or is locked by its writer."""
        if self.stopped:
            return []
        try:
            if self.number is None:
                self.resume(writer)
            snapshot = self.reader.snapshot(self.path, self.marks)
        except (LineageError, OSError) as exc:
            self.number = None
            return [self._stop(str(exc))]
        if snapshot is None:
            self.busy += 1
            return []
        self.busy = 0
        try:
            if not snapshot.news(self.marks):
                return []
            return [self._write(writer, snapshot)]
        except LineageError as exc:
            return [self._stop(str(exc))]
        finally:
            snapshot.close()

    def _write(self, writer, snapshot) -> Step:
        name = increments.rows_name(self.path, self.number + 1)
        step = Step(self.path, name)

        def read(report: LoadReport) -> Iterator[Record]:
            for record in snapshot.records(self.marks, report):
                if isinstance(record, Node) and record.kind.run:
                    step.runs.add(record.uid)
                yield record
            report.extra[increments.MARKS] = snapshot.marks
            snapshot.close()  # read: the writer need not wait for the graph's write

        try:
            step.result = increments.write_increment(writer, self.format, name, read,
                                                     self.options)
        except ParseError as exc:
            step.error = self._stop(str(exc)).error
            return step
        except BaseException:
            self.number = None  # resumed from the graph at the next look
            raise
        self.number, self.marks = self.number + 1, snapshot.marks
        return step

    def _stop(self, why: str) -> Step:
        self.stopped = why if why.startswith(self.path) else f"{self.path}: {why}"
        return Step(self.path, error=self.stopped)
