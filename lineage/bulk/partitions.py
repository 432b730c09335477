"""Folding a bulk load too large for memory: its rows on disk, partition by partition.

When the graph a bulk load folds in memory (:mod:`lineage.bulk.fold`) would pass the load's
budget (``LoadOptions.bulk_fold_elements``), what it holds and every row read after it go to
files on disk, a node to the partition of its uid's hash and a relationship to its end's; then
each partition is folded on its own, so memory holds one partition at a time. The graph is the
one the in-memory fold gives (``tests/test_bulk_partitions.py`` compares them):

1. node partitions, one by one: rows folded in the order they were read, an input's identity
   conflicts found against what the inputs before it stated (the first one stays, as
   :meth:`~lineage.bulk.fold.FoldedGraph.add_input` decides), and for each uid the first input that
   stated it and the inputs whose statement of it was a conflicting duplicate;
2. relationship partitions by end: a row whose end was a duplicate in its input is left out,
   the others marked by whether their end was stated by their input or one before, and moved
   to the partition of their start;
3. relationship partitions by start: the same for the start, then unresolved rows counted and
   the rest folded.

>>> import tempfile
>>> from lineage.bulk.fold import FoldedGraph
>>> from lineage.sources.base import LoadReport
>>> with tempfile.TemporaryDirectory() as tmp:
...     parts = Partitions(Path(tmp), 4)
...     parts.add_state(FoldedGraph())
...     n = parts.add_input("t1", "l1:", LoadReport("a", "x"))
...     parts.add_nodes(n, [("Host", "host:a", {"name": "a"}, ())])
...     parts.add_edges(n, [("USED", "host:a", "host:b", {}, None)])
...     nodes = [g.nodes for g in parts.node_graphs()]
...     edges = [g.edges for g in parts.edge_graphs()]
...     parts.close()
>>> [uid for found in nodes for uid in found], parts.inputs[0].stats.unresolved_edges
(['host:a'], 1)
"""

from __future__ import annotations

import heapq
import pickle
import shutil
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .fold import FoldedGraph
from ..errors import LineageError
from ..sources.base import LoadReport
from ..load.writer import WriteStats

#: rows buffered, over all partitions of one kind, before they are written (at most; an
#: eighth of the fold's budget when that is less: the buffers count against it)
BUFFERED_ROWS = 200_000

_NEVER = 1 << 62  # "stated by no input"


@dataclass
class PartitionedInput:
    """One input of the load, numbered in order (those folded in memory before the spill
    too: their rows are in the folded state): its load tag, its load id prefix, its report,
    and what folding its rows found (written into its result at the end)."""

    tag: str
    prefix: str
    report: LoadReport
    stats: WriteStats = field(default_factory=WriteStats)
    #: the load's result for this input (the caller's; its write stats get ``stats``)
    result: object = None
    #: identity conflicts: how many, and the first 20 by uid (as the in-memory fold warns)
    conflicts: int = 0
    first_conflicts: list = field(default_factory=list)


def _dump(path: Path, value, mode: str) -> None:
    """Pickle ``value`` to ``path``; a full disk (or any write error) names the place.

    >>> _dump(Path("/nonexistent/p-0.pickle"), [1], "ab")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    lineage.errors.LineageError: /nonexistent/p-0.pickle: the bulk load's fold could not be ...
    """
    try:
        with open(path, mode) as fh:
            pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
    except OSError as exc:
        raise LineageError(f"{path}: the bulk load's fold could not be written there "
                           f"({exc.strerror or exc}); free space there, or raise "
                           "LINEAGE_BULK_FOLD_ELEMENTS to fold more in memory") from None


class _Files:
    """One file per partition, appended to in pickled chunks of rows."""

    def __init__(self, directory: Path, stem: str, count: int, limit: int):
        self.paths = [directory / f"{stem}-{i}.pickle" for i in range(count)]
        self.buffers: list[list] = [[] for _ in range(count)]
        self.buffered, self.limit = 0, limit

    def add(self, partition: int, row: tuple) -> None:
        self.buffers[partition].append(row)
        self.buffered += 1
        if self.buffered >= self.limit:
            self.flush()

    def _write(self, partition: int) -> None:
        rows = self.buffers[partition]
        if rows:
            _dump(self.paths[partition], rows, "ab")
            self.buffered -= len(rows)
            self.buffers[partition] = []

    def flush(self) -> None:
        for partition in range(len(self.buffers)):
            self._write(partition)

    def rows(self, partition: int) -> Iterator[tuple]:
        """The rows of one partition in the order they were added (the file is then gone)."""
        self._write(partition)
        path = self.paths[partition]
        if not path.exists():  # no row went to this partition
            return
        with open(path, "rb") as fh:
            while True:
                try:
                    chunk = pickle.load(fh)
                except EOFError:
                    break
                yield from chunk
        path.unlink()


class Partitions:
    """A bulk load's rows on disk, by uid hash; inputs are numbered in the order they come.

    Node rows are ``(input, kind label, uid, props, extra labels)`` as read, or ``(None, uid,
    labels, props, tags)`` for a node folded in memory before; relationship rows ``(input,
    type, start, end, props, key)`` or ``(None, type, start, end, key, props, tags)``.
    """

    def __init__(self, directory: Path, count: int, budget: int | None = None):
        self.directory, self.count = directory, count
        directory.mkdir(parents=True, exist_ok=True)
        self.inputs: list[PartitionedInput] = []
        limit = min(BUFFERED_ROWS, max(1000, (budget or BUFFERED_ROWS * 8) // 8))
        self._nodes = _Files(directory, "nodes", count, limit)
        self._by_end = _Files(directory, "by-end", count, limit)
        self._by_start = _Files(directory, "by-start", count, limit)
        self.empty_lists: list[dict] = []
        self.tagged: dict[str, list[int]] = {}

    def _of(self, uid: str) -> int:
        return hash(uid) % self.count

    def add_input(self, tag: str, prefix: str, report: LoadReport) -> int:
        """Number the next input (its tag, its load id's prefix, its report)."""
        self.inputs.append(PartitionedInput(tag, prefix, report))
        return len(self.inputs) - 1

    def add_state(self, graph: FoldedGraph) -> None:
        """Everything ``graph`` folded so far (the inputs it folded must be numbered before,
        in order); the graph is emptied."""
        of, nodes, by_end = self._of, self._nodes, self._by_end
        for uid, (labels, props, tags) in graph.nodes.items():
            nodes.add(of(uid), (None, uid, labels, props, tags))
        for (rel, start, end, key), (props, tags) in graph.edges.items():
            by_end.add(of(end), (None, rel, start, end, key, props, tags))
        graph.clear()

    def add_nodes(self, number: int, rows: Iterable[tuple]) -> None:
        """Node rows ``(kind label, uid, props, extra labels)`` of input ``number``."""
        of, nodes = self._of, self._nodes
        for row in rows:
            nodes.add(of(row[1]), (number, *row))

    def add_edges(self, number: int, rows: Iterable[tuple]) -> None:
        """Relationship rows ``(type, start, end, props, key)`` of input ``number``."""
        of, by_end = self._of, self._by_end
        for row in rows:
            by_end.add(of(row[2]), (number, *row))

    # ------------------------------------------------------------------ folding
    def node_graphs(self, on_seen: Callable[[int], None] | None = None) -> Iterator[FoldedGraph]:
        """Each partition's nodes, folded (empty lists and tag counts gathered here); what
        the relationships need of them is kept on disk for :meth:`edge_graphs` (``on_seen``
        is called with the partition's number once it is)."""
        self._nodes.flush()
        for partition in range(self.count):
            graph, seen = FoldedGraph(), {}  # seen: uid -> [first input, duplicate inputs]
            for number, rows in _runs(self._nodes.rows(partition)):
                if number is None:
                    self._restore_nodes(graph, rows, seen)
                else:
                    self._fold_nodes(graph, number, rows, seen)
            _dump(self.directory / f"seen-{partition}.pickle", seen, "wb")
            if on_seen is not None:
                on_seen(partition)
            yield graph
            self._gather(graph)
        for found in self.inputs:
            self._warn(found)

    @staticmethod
    def _restore_nodes(graph: FoldedGraph, rows: list, seen: dict) -> None:
        for _, uid, labels, props, tags in rows:
            graph.nodes[uid] = [labels, props, tags]
            seen[uid] = [-1, ()]  # stated before any row read after the spill

    def _fold_nodes(self, graph: FoldedGraph, number: int, rows: list, seen: dict) -> None:
        found = self.inputs[number]
        rows = [row[1:] for row in rows]
        conflicts = graph.conflicts(rows, found.prefix) if graph.nodes else {}
        if conflicts:
            found.conflicts += len(conflicts)
            found.first_conflicts = heapq.nsmallest(
                20, [*found.first_conflicts, *conflicts.items()])
            for uid in conflicts:
                seen[uid][1] = (*seen[uid][1], number)
        graph.fold_nodes(rows, found.tag, found.stats, conflicts.keys())
        for _, uid, _, _ in rows:
            if uid not in seen:
                seen[uid] = [number, ()]

    def _warn(self, found: PartitionedInput) -> None:
        for line in FoldedGraph.conflict_warnings(found.report, found.first_conflicts):
            found.report.warn(line)
        if found.conflicts:
            found.report.extra["duplicate_uids_of_other_inputs"] = found.conflicts

    def _gather(self, graph: FoldedGraph) -> None:
        self.gathered(graph.empty_lists, graph.tagged())

    def gathered(self, empty_lists: list[dict], tagged: dict[str, list[int]]) -> None:
        """Add empty list values and per-tag node and relationship counts (a partition's, or
        what another process gathered from its partitions)."""
        self.empty_lists.extend(empty_lists)
        for tag, (nodes, edges) in tagged.items():
            counts = self.tagged.setdefault(tag, [0, 0])
            counts[0] += nodes
            counts[1] += edges

    def _seen(self, partition: int) -> dict:
        with open(self.directory / f"seen-{partition}.pickle", "rb") as fh:
            return pickle.load(fh)

    def edge_graphs(self, wait_seen: Callable[[int], None] | None = None) -> Iterator[FoldedGraph]:
        """Each partition's relationships (by start), resolved and folded: after
        :meth:`node_graphs`, or beside it in another process (``wait_seen(partition)``
        returns once that partition's nodes are folded)."""
        of, by_start = self._of, self._by_start
        self._by_end.flush()
        for partition in range(self.count):  # by end: the end's duplicates and presence
            if wait_seen is not None:
                wait_seen(partition)
            seen = self._seen(partition)
            for row in self._by_end.rows(partition):
                number, end = row[0], row[3]
                if number is None:
                    by_start.add(of(row[2]), row)
                    continue
                first, duplicate_in = seen.get(end, (_NEVER, ()))
                if number not in duplicate_in:
                    by_start.add(of(row[2]), (*row, first <= number))
        by_start.flush()
        for partition in range(self.count):  # by start: the same, then folded
            seen, graph = self._seen(partition), FoldedGraph(nodes=_EVERY_UID)
            for number, rows in _runs(by_start.rows(partition)):
                if number is None:
                    _restore_edges(graph, rows)
                else:
                    self._fold_edges(graph, number, rows, seen)
            (self.directory / f"seen-{partition}.pickle").unlink()
            yield graph
            self._gather(graph)

    def _fold_edges(self, graph: FoldedGraph, number: int, rows: list, seen: dict) -> None:
        found = self.inputs[number]
        stats, ready = found.stats, []
        for _, rel, start, end, props, key, end_stated in rows:
            first, duplicate_in = seen.get(start, (_NEVER, ()))
            if number in duplicate_in:
                continue
            if first > number or not end_stated:
                stats.edge_rows += 1
                stats.unresolved_edges += 1
                if len(stats.unresolved_examples) < 10:
                    stats.unresolved_examples.append(f"{rel} {start} -> {end}")
                continue
            ready.append((rel, start, end, props, key))
        graph.fold_edges(ready, found.tag, stats)  # every end is in _EVERY_UID

    def close(self) -> None:
        """Remove the files."""
        shutil.rmtree(self.directory, ignore_errors=True)


def _restore_edges(graph: FoldedGraph, rows: list) -> None:
    for _, rel, start, end, key, props, tags in rows:
        graph.edges[rel, start, end, key] = [props, tags]


class _EveryUid(dict):
    """The nodes of a partition of relationships: every end was checked before folding."""

    def __contains__(self, uid: object) -> bool:
        return True


_EVERY_UID = _EveryUid()


def _runs(rows: Iterable[tuple]) -> Iterator[tuple[int | None, list]]:
    """Consecutive rows of one input (or of the in-memory fold, ``None``), with its number."""
    run: list = []
    current = object()
    for row in rows:
        if row[0] != current and run:
            yield current, run
            run = []
        current = row[0]
        run.append(row)
    if run:
        yield current, run


def partitions_for(elements: int, budget: int) -> int:
    """How many partitions for about ``elements`` graph elements so that one holds about a
    quarter of the ``budget`` (at least 8, at most 1,024).

    >>> partitions_for(10_000_000, 2_000_000), partitions_for(10, 2_000_000)
    (20, 8)
    """
    return max(8, min(1024, -(-4 * elements // max(budget, 1))))
