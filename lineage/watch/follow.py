"""Following one input while it is written: a file growing by lines, or a file that appears.

:class:`LineFollower` reads the lines a file grew by since the last increment (whole lines
only: a last line without its newline is still being written and waits for the next look),
hands them to the source's stream reader (:func:`lineage.sources.registry.line_stream`),
which keeps what the lines before said, and writes what they state as one increment
(:mod:`.increments`). A relationship whose end no record of the file has stated yet waits
for the increment that states it, as one load of the whole file would have found it
(:class:`Pending`). After a restart the follower starts where the graph says the last
increment ended and reads the lines before once more, writing nothing, to know what they
said (:meth:`LineFollower.resume`).

:class:`FileFollower` loads a file of records (one XALT run, one Chimbuko record file) whole
once it has stopped changing; the graph knows what was read by the file's content digest
(an unchanged file is not written again).

>>> pending = Pending()
>>> from lineage import model
>>> from lineage.model.records import Edge, Node
>>> user = Node(model.USER, model.USER.uid("ann"), {"name": "ann"})
>>> host = Node(model.HOST, model.HOST.uid("c1"), {"name": "c1"})
>>> edge = Edge(model.WAS_ASSOCIATED_WITH, host.uid, user.uid)
>>> len(pending.ready([user, edge])), len(pending.ready([host]))
(1, 2)
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from ..errors import LineageError, ParseError
from ..load.inputs import Input, identity
from ..load.pipeline import LoadResult, load_input
from ..model.records import Edge, Node, Record
from ..sources import registry
from ..sources.base import Format, LoadReport
from ..sources.options import LoadOptions
from . import increments

#: bytes one increment reads at most (a big file found already written is read in pieces)
MAX_INCREMENT = 16 << 20
#: increments one look at a file writes at most (the other files get their turn)
INCREMENTS_PER_LOOK = 4


@dataclass
class Pending:
    """The relationships of a stream whose ends it has not stated yet, and the nodes it has."""

    stated: set[str] = field(default_factory=set)
    edges: list[Edge] = field(default_factory=list)

    def ready(self, records: Iterable[Record]) -> list[Record]:
        """``records`` with the relationships that cannot be written yet held back, and the
        held-back ones whose ends are now stated added (nodes first)."""
        nodes, edges = [], list(self.edges)
        for record in records:
            if isinstance(record, Node):
                nodes.append(record)
                self.stated.add(record.uid)
            else:
                edges.append(record)
        self.edges = [e for e in edges if not (e.start in self.stated and e.end in self.stated)]
        return nodes + [e for e in edges if e.start in self.stated and e.end in self.stated]


@dataclass
class Step:
    """What one look at a followed input did: the increment's name, the load's result (None:
    nothing new), the uids of runs its records touched, an error that stops the follow."""

    path: str
    name: str | None = None
    result: LoadResult | None = None
    runs: set[str] = field(default_factory=set)
    error: str | None = None


class LineFollower:
    """A file growing by lines (``Follow.how == "lines"``)."""

    def __init__(self, path: str, fmt: Format, options: LoadOptions,
                 max_increment: int = MAX_INCREMENT):
        self.path = str(Path(path).resolve())
        self.format = fmt
        self.options = options
        self.max_increment = max_increment
        self.errors = registry.follow_of(fmt.name).errors
        self.offset: int | None = None  # None: not resumed from the graph yet
        self.stopped: str | None = None
        self.behind = False  # the last look left whole lines unread

    # ------------------------------------------------------------ state
    def _fresh(self) -> None:
        self.stream = registry.line_stream(self.format.name)
        self.state: dict = {}  # the reader's memory across records (LoadReport.state)
        self.pending = Pending()
        self.lines = 0  # lines before ``offset``
        self.offset = 0

    def resume(self, writer) -> None:
        """Start where the graph says the last increment ended: take off what an increment
        killed mid-write left, then read the lines before that point once more, writing
        nothing, so the reader knows what they said."""
        increments.clear_abandoned(writer.driver, writer.database, self.path)
        end = increments.committed_end(writer.driver, writer.database, self.path)
        self._fresh()
        if end == 0:
            return
        report = LoadReport(self.path, self.format.name, lenient=True, options=self.options)
        report.state = self.state
        for start, stop in _pieces(self.path, end, self.max_increment):
            chunk = _read(self.path, start, stop)
            self._records(chunk, start, report)
            self.offset = stop
            self.lines += chunk.count(b"\n")

    # ------------------------------------------------------------ one look
    def step(self, writer) -> list[Step]:
        """Write the whole lines added since the last increment (in increments of at most
        ``max_increment`` bytes, :data:`INCREMENTS_PER_LOOK` at most: ``behind`` then says
        more is there); nothing when no whole line was added."""
        if self.stopped:
            return []
        if self.offset is None:
            try:
                self.resume(writer)
            except (LineageError, OSError) as exc:  # another watcher's; a rewritten file
                self.offset = None
                return [self._stop(str(exc))]
        done: list[Step] = []
        self.behind = False
        while True:
            if len(done) == INCREMENTS_PER_LOOK:
                self.behind = True
                return done
            try:
                size = os.stat(self.path).st_size
            except OSError as exc:
                return done + [self._stop(f"cannot be read any more ({exc.strerror})")]
            if size < self.offset:
                return done + [self._stop(
                    f"shrank to {size} bytes below the {self.offset} already read (rotated or "
                    "rewritten): not followed further; load it again with `lineage load`")]
            chunk = _whole_lines(self.path, self.offset, self.max_increment)
            if chunk is None:
                return done + [self._stop(
                    f"a line of more than {self.max_increment} bytes at byte {self.offset}")]
            if not chunk:
                return done
            done.append(self._write(writer, chunk))
            if done[-1].error:
                return done

    def _write(self, writer, chunk: bytes) -> Step:
        start, end = self.offset, self.offset + len(chunk)
        name = increments.increment_name(self.path, start, end)
        step = Step(self.path, name)

        def read(report: LoadReport) -> Iterator[Record]:
            report.state = self.state
            records = list(self._records(chunk, start, report))
            step.runs = {r.uid for r in records if isinstance(r, Node) and r.kind.run}
            return iter(records)

        try:
            step.result = increments.write_increment(writer, self.format, name, read,
                                                     self.options)
        except ParseError as exc:
            self._stop(str(exc))
            step.error = self.stopped
            return step
        except BaseException:
            self.offset = None  # the reader's state may be past what the graph holds
            raise
        self.offset = end
        self.lines += chunk.count(b"\n")
        return step

    def _records(self, chunk: bytes, start: int, report: LoadReport) -> list[Record]:
        numbered = _numbered(chunk, self.lines, start == 0, report, self.errors)
        return self.pending.ready(self.stream.records(numbered, report, self.path))

    def _stop(self, why: str) -> Step:
        self.stopped = why if why.startswith(self.path) else f"{self.path}: {why}"
        return Step(self.path, error=self.stopped)


def _numbered(chunk: bytes, before: int, at_start: bool, report: LoadReport,
              errors: str) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of the whole lines of ``chunk`` (``before`` lines precede
    it); undecodable bytes are reported (``errors="strict"``) or decoded with ``errors``."""
    if at_start and chunk.startswith(b"\xef\xbb\xbf"):
        chunk = chunk[3:]
    lines = chunk.split(b"\n")[:-1]  # the chunk ends with a newline
    for number, raw in enumerate(lines, before + 1):
        line = raw + b"\n"
        if errors != "strict":
            yield number, line.decode("utf-8", errors=errors)
            continue
        try:
            yield number, line.decode("utf-8")
        except UnicodeDecodeError as exc:
            report.skip(report.path, number, "UTF-8 text", f"byte {exc.start + 1}: {exc.reason}")


def _read(path: str, start: int, stop: int) -> bytes:
    with open(path, "rb") as fh:
        fh.seek(start)
        return fh.read(stop - start)


def _pieces(path: str, end: int, size: int) -> Iterator[tuple[int, int]]:
    """The already-read bytes ``0..end`` in pieces of whole lines of at most ``size``."""
    start = 0
    while start < end:
        chunk = _whole_lines(path, start, min(size, end - start))
        if not chunk:  # the graph says more was read than whole lines hold: a changed file
            raise LineageError(f"{path}: the first {end} bytes read before are not whole "
                               "lines any more (the file was rewritten): load it again")
        yield start, start + len(chunk)
        start += len(chunk)


def _whole_lines(path: str, offset: int, limit: int) -> bytes | None:
    """The bytes from ``offset`` up to the end of the last whole line within ``limit``
    bytes: ``b""`` when no line has ended yet, None when ``limit`` bytes hold no line end
    (a line too long to be read)."""
    with open(path, "rb") as fh:
        fh.seek(offset)
        data = fh.read(limit)
    cut = data.rfind(b"\n")
    if cut < 0:
        return None if len(data) >= limit else b""
    return data[:cut + 1]


class FileFollower:
    """A file loaded whole once it has stopped changing (``Follow.how == "files"``): two
    looks at least ``settle`` seconds apart that find the same size and time."""

    def __init__(self, path: str, fmt: Format, options: LoadOptions, settle: float = 1.0):
        self.path = str(Path(path).resolve())
        self.format = fmt
        self.options = options
        self.settle = settle
        self.seen: tuple | None = None  # (size, mtime) at the last look, and when
        self.loaded: tuple | None = None  # (size, mtime) of the last load
        self.stopped: str | None = None

    def step(self, writer) -> list[Step]:
        try:
            st = os.stat(self.path)
        except OSError:  # gone: what it stated stays until unloaded
            return []
        now = time.monotonic()
        mark = (st.st_size, st.st_mtime_ns)
        if mark == self.loaded:
            return []
        if self.seen is None or self.seen[0] != mark or now - self.seen[1] < self.settle:
            if self.seen is None or self.seen[0] != mark:
                self.seen = (mark, now)
            return []
        item = Input(self.path, self.format, True)
        step = Step(self.path, identity(item))
        try:
            step.result = load_input(writer, item, options=self.options)
        except ParseError as exc:  # tried again when the file changes
            step.error = f"{exc} (read again when the file changes)"
            step.result = getattr(exc, "result", None)
        self.loaded = mark
        if step.result is not None and step.result.status == "unchanged":
            return []
        return [step]
