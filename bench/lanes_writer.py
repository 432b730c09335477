"""Writes sent by sender threads, kept only so bench/bench_load.py can run them side by side
with lineage/writer.py (variants ``overlap`` and ``parallel``): measured no faster on the
2-core development machine (see the README's Benchmarks), so not part of the package.

``LanesWriter(driver, database, threads=n)`` is lineage.load.writer.Writer whose batches are sent
by ``n`` threads, each with its own session, taking jobs from its own bounded queue (two
batches waiting: memory stays flat) while the caller reads the spool and builds the next
rows. Nodes go to a lane by their uid's hash; relationships by their end node's hash (the
nodes many relationships end at, a workflow or a host, are each locked by one lane only;
their start nodes may be locked by both, so deadlocks happen and the driver's managed
transactions retry them). ``threads=1`` only overlaps preparing rows with waiting on the
server. Writes stay idempotent MERGEs and CREATEs under one load tag: a lane's error is
raised by the write once every lane has stopped, and the pipeline takes the tag off again.
"""

from __future__ import annotations

import queue
import threading
from typing import Callable, Iterable

from neo4j.exceptions import ConstraintError

from lineage.model.records import Edge, Node
from lineage.load.writer import (BATCH_BYTES, BATCH_ROWS, WriteStats, Writer, _props, _size,
                            _write_nodes, send_edge_batch)

_STOP = object()


class Lanes:
    """``send(lane, job)`` runs ``job(session)`` on lane ``lane % count``: ``threads`` sender
    threads with a session each (0: every job at once in the caller's thread); ``close()``
    waits for them and raises the first error any met (the others stop taking jobs).

    >>> with Lanes(driver, None, 2) as lanes:                # doctest: +SKIP
    ...     lanes.send(0, lambda session: session.run("RETURN 1").consume())
    """

    def __init__(self, driver, database: str | None, threads: int, depth: int = 2):
        self.driver, self.database = driver, database
        self.count = max(threads, 1)
        self.error: BaseException | None = None
        self._threads: list[threading.Thread] = []
        self._queues: list[queue.Queue] = []
        self._session = None
        if threads <= 0:
            self._session = driver.session(database=database)
            return
        for i in range(threads):
            q: queue.Queue = queue.Queue(maxsize=depth)
            t = threading.Thread(target=self._run, args=(q,), name=f"lineage-writer-{i}",
                                 daemon=True)
            self._queues.append(q)
            self._threads.append(t)
            t.start()

    def _run(self, q: queue.Queue) -> None:
        with self.driver.session(database=self.database) as session:
            while True:
                job = q.get()
                if job is _STOP:
                    return
                if self.error is not None:
                    continue  # drain: another lane failed
                try:
                    job(session)
                except BaseException as exc:  # handed to the caller by close()
                    if self.error is None:
                        self.error = exc

    def send(self, lane: int, job: Callable) -> None:
        """Run ``job(session)`` on lane ``lane`` (at once, without threads)."""
        if self.error is not None:
            raise self.error
        if self._session is not None:
            job(self._session)
            return
        self._queues[lane % self.count].put(job)

    def close(self) -> None:
        """Wait for every lane to finish its jobs; raise the first error any of them met."""
        if self._session is not None:
            self._session.close()
            self._session = None
        for q in self._queues:
            q.put(_STOP)
        for t in self._threads:
            t.join()
        self._threads, self._queues = [], []
        if self.error is not None:
            raise self.error

    def __enter__(self) -> "Lanes":
        return self

    def __exit__(self, kind, exc, tb) -> None:
        if kind is not None and self.error is None:
            self.error = exc  # stop the lanes; the caller's error is the one raised
            try:
                self.close()
            except BaseException:
                pass
            return
        self.close()


class LanesWriter(Writer):
    """lineage.load.writer.Writer with ``threads`` sender threads (0: the caller's thread)."""

    def __init__(self, driver, database=None, batch_size: int = BATCH_ROWS,
                 threads: int = 2):
        super().__init__(driver, database, batch_size)
        self.threads = threads

    def _graph_is_empty(self) -> bool:
        with self._session() as session:
            return not session.run("RETURN EXISTS { MATCH (:Lineage) } AS any").single()["any"]

    def write_nodes(self, nodes: Iterable[Node], tag: str | None = None) -> WriteStats:
        """Writer.write_nodes, each uid sent by the lane of its hash, in order."""
        stats = WriteStats()
        fresh = self._graph_is_empty()
        count = max(self.threads, 1)
        lanes_state = [_NodeLane(fresh) for _ in range(count)]
        pending = [dict() for _ in range(count)]  # uid -> (labels, props), per lane
        sizes = [0] * count
        with Lanes(self.driver, self.database, self.threads) as lanes:

            def flush(i: int) -> None:
                lanes.send(i, lanes_state[i].job(pending[i], tag))
                pending[i] = {}
                sizes[i] = 0

            for node in nodes:
                props = _props(node)
                props["kind"] = node.kind.label
                i = hash(node.uid) % count
                lane = pending[i]
                seen = lane.get(node.uid)
                if seen is None:
                    lane[node.uid] = (node.labels, props)
                elif seen[0] == node.labels:
                    seen[1].update(props)
                else:  # a different label set: keep both rows, in order
                    flush(i)
                    pending[i][node.uid] = (node.labels, props)
                stats.node_rows += 1
                sizes[i] += _size(props)
                if len(pending[i]) >= self.batch_size or sizes[i] >= BATCH_BYTES:
                    flush(i)
            for i in range(count):
                if pending[i]:
                    flush(i)
        return stats

    def write_edges(self, edges: Iterable[Edge], tag: str | None = None) -> WriteStats:
        """Writer.write_edges, each relationship sent by the lane of its end node's hash."""
        count = max(self.threads, 1)
        lane_stats = [WriteStats() for _ in range(count)]
        groups: list[dict[tuple[str, bool, bool], list[dict]]] = [{} for _ in range(count)]
        batches: list[dict[tuple, dict]] = [{} for _ in range(count)]
        sizes = [0] * count
        fold = self.fold_edges

        with Lanes(self.driver, self.database, self.threads) as lanes:

            def flush(i: int) -> None:
                lanes.send(i, _edge_job(groups[i], batches[i], tag, lane_stats[i]))
                groups[i], batches[i], sizes[i] = {}, {}, 0

            for edge in edges:
                props = _props(edge)
                i = hash(edge.end) % count
                ident = (edge.rel.name, edge.start, edge.end, edge.key) if fold else object()
                row = batches[i].get(ident)
                if row is not None:  # stated again in this batch: one row, later values win
                    row["props"].update(props)
                    row["n"] += 1
                else:
                    row = {"rel": edge.rel.name, "start": edge.start, "end": edge.end,
                           "props": props, "n": 1}
                    if edge.key:
                        row["key"] = edge.key
                    groups[i].setdefault((edge.rel.name, bool(edge.key), False), []).append(row)
                    batches[i][ident] = row
                sizes[i] += _size(props)
                if len(batches[i]) >= self.batch_size or sizes[i] >= BATCH_BYTES:
                    flush(i)
            for i in range(count):
                if batches[i]:
                    flush(i)
        stats = WriteStats()
        for one in lane_stats:
            stats.add(one)
        return stats


class _NodeLane:
    """One lane's knowledge for CREATE: whether the graph was empty as the write began (until
    another writer is seen) and which uids (by hash) it has written."""

    def __init__(self, fresh: bool):
        self.fresh = fresh
        self.written: set[int] = set()  # a collision only means MERGE

    def job(self, pending: dict[str, tuple[tuple[str, ...], dict]], tag: str | None):
        def run(session) -> None:
            groups: dict[tuple[tuple[str, ...], bool], list[dict]] = {}
            for uid, (labels, props) in pending.items():
                new = self.fresh and hash(uid) not in self.written
                groups.setdefault((labels, new), []).append({"uid": uid, "props": props})
            try:
                session.execute_write(_write_nodes, groups, tag)
            except ConstraintError:
                if not self.fresh:
                    raise
                self.fresh = False  # another writer got there first: MERGE from now on
                merged: dict[tuple[tuple[str, ...], bool], list[dict]] = {}
                for (labels, _), rows in groups.items():
                    merged.setdefault((labels, False), []).extend(rows)
                session.execute_write(_write_nodes, merged, tag)
            if self.fresh:
                self.written.update(hash(uid) for uid in pending)
        return run


def _edge_job(groups: dict[tuple[str, bool], list[dict]], batch: dict[tuple, dict],
              tag: str | None, stats: WriteStats):
    """One batch of edge rows (each with ``n``, the records it folds) for a lane."""
    def run(session) -> None:
        records = sum(row["n"] for row in batch.values())
        send_edge_batch(session, groups, batch, records, tag, stats)
    return run
