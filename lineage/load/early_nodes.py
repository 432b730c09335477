"""Writing an input's nodes while the rest of it is still being read.

A large input's first load spends a fifth to a third of its time reading (the server idle
meanwhile), then writes its nodes, then its relationships. On a first load (version 1 of
the input's load: nothing of an earlier version to clear first) of a file of at least
``LoadOptions.overlap_bytes``, the nodes the spool accepts are handed to a thread that
writes them, batch by batch, with the same :meth:`Writer.write_nodes` and under the same
load tag, while the reader goes on; the relationships are written after the reading, from
the spool, as always. Nodes of kinds with ``identity`` properties (an XALT run: checked
against other loads before anything of it is written) wait for the end of the reading.

With ``edges``, the relationships are written while reading too, by a second thread: a
chunk of them goes once the nodes at both ends of each are written (the writer remembers
the nodes it wrote: ``Writer.ids``), or once every node is; a chunk the relationship
thread has no room for stays in the spool and is written after the reading, as always. A
format whose relationships follow the records of their ends (a Chimbuko shard) is thus
written while it is read, the server busy from the first batch to the last.

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
from ..model.records import Edge, Node
from .node_ids import NodeIds, ends
from .writer import Writer, WriteStats

#: chunks of node rows waiting for the writer thread (each up to ``spool.CHUNK_ROWS`` rows):
#: enough to keep it busy while the reader catches up, few enough that memory stays flat
QUEUE_CHUNKS = 8
#: chunks of relationship rows waiting for their ends to be written (the node writer sends a
#: batch of ``BATCH_ROWS`` nodes at a time; about three relationships come with each node)
EDGE_QUEUE_CHUNKS = 32


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
    are handed over; :meth:`begin` (the load's write mark) runs before the first write. With
    ``edges``, a second thread writes relationship rows ``(type, start, end, props, key)``
    handed over with :meth:`put_edges` once their ends are written."""

    def __init__(self, writer: Writer | None, tag: str, begin: Callable[[], None],
                 edges: bool = False):
        self._writer, self._tag, self._begin = writer, tag, begin
        self._queue: queue.Queue = queue.Queue(maxsize=QUEUE_CHUNKS)
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._error: BaseException | None = None
        self._stats = WriteStats()
        #: whether relationships may be handed over (the writer remembers its nodes' ids)
        self.edges = edges and writer is not None and writer.ids is not None
        if self.edges:  # remembered from now on: an id it holds is one of this load's nodes
            assert writer is not None and writer.ids is not None
            writer.ids = NodeIds(2 * writer.ids.half)
        self._edge_queue: queue.Queue = queue.Queue(maxsize=EDGE_QUEUE_CHUNKS)
        self._edge_thread: threading.Thread | None = None
        self._edge_stats = WriteStats()
        self._progress = threading.Condition()
        self._nodes_done = False

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

    def put_edges(self, rows: list[tuple]) -> bool:
        """Hand over one chunk of checked relationship rows, to be written once their ends
        are; False when the relationship thread has no room for it now (the caller keeps
        the rows and they are written after the reading). Raises :class:`EarlyWriteFailed`
        when a writer has failed."""
        self._raise_failure()
        if not self.edges or self._thread is None:
            return False
        if self._edge_thread is None:
            self._edge_thread = threading.Thread(target=self._run_edges,
                                                 name="lineage-early-edges", daemon=True)
            self._edge_thread.start()
        try:
            self._edge_queue.put_nowait(rows)
        except queue.Full:
            return False
        return True

    def finish(self) -> WriteStats:
        """Wait until every handed-over node and relationship is written; what was
        written, counted."""
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._raise_failure()
        if self._edge_thread is not None:
            _end(self._edge_queue, self._edge_thread)
            self._raise_failure()
        stats = WriteStats()
        stats.add(self._stats)
        stats.add(self._edge_stats)
        return stats

    def abort(self) -> None:
        """Stop writing (the load failed or was interrupted); returns when the threads have
        ended, their last transactions committed or rolled back."""
        if self._thread is None:
            return
        self._stopping = True
        self._drain()  # room for the end marker, whatever the thread is doing
        self._queue.put(None)
        self._thread.join()
        if self._edge_thread is not None:
            self._drain(self._edge_queue)
            _end(self._edge_queue, self._edge_thread)

    def _raise_failure(self) -> None:
        if self._error is not None:
            raise EarlyWriteFailed(self._error) from self._error

    def _nodes(self) -> Iterator[Node]:
        kinds = model.NODE_KINDS
        progress = self._progress
        while True:
            rows = self._queue.get()
            if self._stopping:
                raise _Stop
            if rows is None:
                return
            for label, uid, props, extra in rows:
                yield Node(kinds[label], uid, props, extra)
                # the writer asks for the next node only after a batch it sent committed
                with progress:
                    progress.notify_all()

    def _run(self) -> None:
        try:
            assert self._writer is not None
            self._stats = self._writer.write_nodes(self._nodes(), self._tag)
        except _Stop:
            pass
        except BaseException as exc:  # noqa: BLE001 - raised on the reading side
            self._error = exc
            self._drain()  # unblock a reader waiting to hand over a chunk
        finally:
            with self._progress:
                self._nodes_done = True
                self._progress.notify_all()

    def _ends_written(self, row: tuple) -> None:
        """Return once both ends of relationship ``row`` are written, or the node writer
        has ended (the writer remembers the ids of the nodes it wrote, after each batch)."""
        ids = self._writer.ids if self._writer is not None else None
        if self._nodes_done or ends(ids, row[1], row[2]) is not None:
            return
        with self._progress:
            while not self._nodes_done and ends(ids, row[1], row[2]) is None:
                if self._stopping or self._error is not None:
                    raise _Stop
                self._progress.wait(1.0)

    def _edges(self, rows: list[tuple] | None) -> Iterator[Edge]:
        rels = model.REL_TYPES
        while rows is not None:
            for row in rows:
                if self._stopping:
                    raise _Stop
                self._ends_written(row)
                rel, start, end, props, key = row
                yield Edge(rels[rel], start, end, props, key)
            rows = self._edge_queue.get()

    def _run_edges(self) -> None:
        try:
            first = self._edge_queue.get()
            if first is None:
                return
            self._ends_written(first[0])  # the node writer has begun: it knows the load
            assert self._writer is not None
            self._edge_stats = self._writer.write_edges(self._edges(first), self._tag)
        except _Stop:
            pass
        except BaseException as exc:  # noqa: BLE001 - raised on the reading side
            self._error = exc
            self._drain(self._edge_queue)

    def _drain(self, which: queue.Queue | None = None) -> None:
        which = self._queue if which is None else which
        while True:
            try:
                which.get_nowait()
            except queue.Empty:
                return


def _end(chunks: queue.Queue, thread: threading.Thread) -> None:
    """Put the end marker for ``thread`` (unless it has ended) and wait for it to end."""
    while thread.is_alive():
        try:
            chunks.put(None, timeout=0.5)
            break
        except queue.Full:
            continue
    thread.join()
