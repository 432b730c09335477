"""Writing an input's nodes while the rest of it is still being read.

A large input's first load spends a fifth to a third of its time reading (the server idle
meanwhile), then writes its nodes, then its relationships. On a first load (version 1 of
the input's load: nothing of an earlier version to clear first) of a file of at least
``LoadOptions.overlap_bytes``, the nodes the spool accepts are handed to a thread that
writes them, batch by batch, with the same :meth:`Writer.write_nodes` and under the same
load tag, while the reader goes on; the relationships are written after the reading, from
the spool, as always. Nodes of kinds with ``identity`` properties (an XALT run: checked
against other loads before anything of it is written) wait for the end of the reading.

What users can observe stays as it was: a reader of the graph already saw a load's batches
as they committed, and a failure after the first write (a malformed record in strict mode,
a write error, an interrupt) takes the load's tag off again, which removes what this load
alone wrote, before the error is reported.

>>> early = EarlyNodes(None, "3f2a9c0d1e2b4a5f:1", begin=lambda: None)
>>> early.started, early.finish().node_rows   # nothing handed over: nothing written
(False, 0)
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator

from .. import model
from ..model.records import Node
from .writer import Writer, WriteStats

#: chunks of node rows waiting for the writer thread (each up to ``spool.CHUNK_ROWS`` rows):
#: enough to keep it busy while the reader catches up, few enough that memory stays flat
QUEUE_CHUNKS = 8


class EarlyWriteFailed(Exception):
    """The node writer thread failed; ``cause`` is its exception (raised by the reading side
    at its next hand-over, so the load stops reading and is retracted)."""

    def __init__(self, cause: BaseException):
        super().__init__(str(cause))
        self.cause = cause


class _Stop(Exception):
    """Ends the writer thread's node stream when the load is abandoned."""


class EarlyNodes:
    """A thread writing node rows ``(kind label, uid, props, extra labels)`` as chunks of them
    are handed over; :meth:`begin` (the load's write mark) runs before the first write."""

    def __init__(self, writer: Writer | None, tag: str, begin: Callable[[], None]):
        self._writer, self._tag, self._begin = writer, tag, begin
        self._queue: queue.Queue = queue.Queue(maxsize=QUEUE_CHUNKS)
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._error: BaseException | None = None
        self._stats = WriteStats()

    @property
    def started(self) -> bool:
        """Whether anything was handed to the writer (so the load may have written nodes)."""
        return self._thread is not None

    def put(self, rows: list[tuple]) -> None:
        """Hand over one chunk of checked node rows; raises :class:`EarlyWriteFailed` when
        the writer has failed."""
        if self._thread is None:
            self._begin()
            self._thread = threading.Thread(target=self._run, name="lineage-early-nodes",
                                            daemon=True)
            self._thread.start()
        while True:
            self._raise_failure()
            try:
                self._queue.put(rows, timeout=0.5)
                return
            except queue.Full:
                continue

    def finish(self) -> WriteStats:
        """Wait until every handed-over node is written; what was written, counted."""
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._raise_failure()
        return self._stats

    def abort(self) -> None:
        """Stop writing (the load failed or was interrupted); returns when the thread has
        ended, its last transaction committed or rolled back."""
        if self._thread is None:
            return
        self._stopping = True
        self._drain()  # room for the end marker, whatever the thread is doing
        self._queue.put(None)
        self._thread.join()

    def _raise_failure(self) -> None:
        if self._error is not None:
            raise EarlyWriteFailed(self._error) from self._error

    def _nodes(self) -> Iterator[Node]:
        kinds = model.NODE_KINDS
        while True:
            rows = self._queue.get()
            if self._stopping:
                raise _Stop
            if rows is None:
                return
            for label, uid, props, extra in rows:
                yield Node(kinds[label], uid, props, extra)

    def _run(self) -> None:
        try:
            assert self._writer is not None
            self._stats = self._writer.write_nodes(self._nodes(), self._tag)
        except _Stop:
            pass
        except BaseException as exc:  # noqa: BLE001 - raised on the reading side
            self._error = exc
            self._drain()  # unblock a reader waiting to hand over a chunk

    def _drain(self) -> None:
        while True:
            try:
                self._queue.get_nowait()
            except queue.Empty:
                return
