"""How ``lineage watch`` reads Pegasus event streams while monitord writes them: the lines a
NetLogger BP or monitord JSON-lines file grew by, read with the state of the lines before
(:class:`.bp.EventStream`), so a job whose events land in two increments ends as one read of
the whole file makes it.

>>> from lineage.sources.base import LoadReport
>>> stream = bp_stream()
>>> lines = [(1, "ts=1 event=stampede.xwf.start xwf.id=w restart_count=0\\n")]
>>> [r.props["status"] for r in stream.records(lines, LoadReport("x.bp", "pegasus-bp"), "x.bp")]
['running', 'running']
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator

from ...model.records import Record
from ..base import LoadReport
from .bp import EventStream, bp_events
from .jsonl import json_events

Decoder = Callable[[Iterable[tuple[int, str]], LoadReport, str], Iterator[tuple[int, dict]]]


class LineStream:
    """Lines of one stream, decoded by ``decode`` and handled with the state kept."""

    def __init__(self, decode: Decoder):
        self.decode = decode
        self.events = EventStream()

    def records(self, lines: Iterable[tuple[int, str]], report: LoadReport,
                path: str) -> Iterator[Record]:
        """The records of the next lines (``(line number, text)`` pairs)."""
        yield from self.events.records(self.decode(lines, report, path), report, path)


def bp_stream() -> LineStream:
    """A NetLogger BP stream read piece by piece."""
    return LineStream(bp_events)


def json_stream() -> LineStream:
    """A monitord JSON-lines stream read piece by piece."""
    return LineStream(json_events)
