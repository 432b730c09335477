"""One input's records, checked against the model and kept until the input is known to be
good: a malformed input raises before anything of it is written.

A :class:`Spool` checks each record (declared properties of their types, storable, indexable;
a relationship the model declares between the kinds of its ends), counts it, and hands it
on in chunks of :data:`CHUNK_ROWS`: to its store (:class:`DiskStore`, temporary files: memory
stays flat for inputs of any size; a bulk load's store folds them instead), or, for nodes
of kinds without identity properties, to the writer of the input's early nodes
(:mod:`.early_nodes`).

>>> spool = Spool()
>>> spool.add_node(model.HOST, "host:n1", {"name": "n1"}, ())
>>> spool.seal(); [row[1] for row in spool.node_rows()]
['host:n1']
>>> spool.close()
"""

from __future__ import annotations

import pickle
import tempfile
from typing import Any, Iterator

from .. import model
from ..model.records import Edge, Node
from .early_nodes import EarlyNodes

#: Records checked and handed on at a time (to the store, or to the early nodes' writer).
CHUNK_ROWS = 1000


class DiskStore:
    """Where a spool keeps its checked rows: two temporary files of pickled chunks."""

    def __init__(self, directory: str | None = None):
        self.nodes = tempfile.TemporaryFile(dir=directory)
        self.edges = tempfile.TemporaryFile(dir=directory)

    def put_nodes(self, rows: list[tuple]) -> None:
        pickle.dump(rows, self.nodes, protocol=pickle.HIGHEST_PROTOCOL)

    def put_edges(self, rows: list[tuple]) -> None:
        pickle.dump(rows, self.edges, protocol=pickle.HIGHEST_PROTOCOL)

    def seal(self) -> None:
        """Every row was put."""

    @staticmethod
    def _chunks(fh) -> Iterator[list[tuple]]:
        fh.seek(0)
        while True:
            try:
                yield pickle.load(fh)
            except EOFError:
                return

    def node_rows(self) -> Iterator[tuple]:
        for chunk in self._chunks(self.nodes):
            yield from chunk

    def edge_rows(self) -> Iterator[tuple]:
        for chunk in self._chunks(self.edges):
            yield from chunk

    def close(self) -> None:
        self.nodes.close()
        self.edges.close()


class Spool:
    """Records parsed from one input, checked, counted and kept in ``store`` (default: a
    :class:`DiskStore`) until the input is known to be good; with ``early``, the nodes of
    kinds without identity properties go to that writer instead, written while the input is
    still being read (:mod:`.early_nodes`). A store has ``put_nodes(rows)``,
    ``put_edges(rows)``, ``seal()``, ``node_rows()``, ``edge_rows()`` and ``close()``."""

    def __init__(self, store: Any = None, early: EarlyNodes | None = None):
        self.store = DiskStore() if store is None else store
        self.early = early
        self._early_buf: list[tuple] = []
        self._node_buf: list[tuple] = []
        self._edge_buf: list[tuple] = []
        self._early_edge_buf: list[tuple] = []
        self.node_counts: dict[str, int] = {}
        self.edge_counts: dict[str, int] = {}

    def add(self, record: Node | Edge) -> None:
        """Keep one record, checked against the model first (so an undeclared property, a
        wrong type or an unindexable value fails here, before anything is written)."""
        if isinstance(record, Node):
            self.add_node(record.kind, record.uid, record.props, record.extra_labels)
        elif isinstance(record, Edge):
            self.add_edge(record.rel, record.start, record.end, record.props, record.key)
        else:
            raise TypeError(getattr(record, "refusal", None)  # see reader_process.Refused
                            or f"a loader yielded {type(record).__name__}, not a Node or Edge")

    def add_row(self, row: tuple | Any) -> None:
        """:meth:`add` for a record as :mod:`.reader_process` sends it: ``(kind, uid, props,
        extra labels)`` or ``(rel, start, end, props, key)``."""
        if type(row) is not tuple:
            self.add(row)
        elif len(row) == 4:
            self.add_node(*row)
        else:
            self.add_edge(*row)

    def add_node(self, kind: model.NodeKind, uid: str, props: dict, extra: tuple) -> None:
        props = kind.check(props)
        if "kind" in props or "loads" in props:
            raise model.ModelError(kind.label, "kind" if "kind" in props else "loads",
                                   "is set by the writer, not by loaders")
        problem = kind.index_problem(props)
        if problem:
            raise model.ModelError(kind.label, None, f"{uid[:200]}: {problem}")
        self.node_counts[kind.label] = self.node_counts.get(kind.label, 0) + 1
        if self.early is not None and not kind.identity:
            self._early_buf.append((kind.label, uid, props, extra))
            if len(self._early_buf) >= CHUNK_ROWS:
                rows, self._early_buf = self._early_buf, []
                self.early.put(rows)
            return
        self._node_buf.append((kind.label, uid, props, extra))
        if len(self._node_buf) >= CHUNK_ROWS:
            self._put_nodes()

    def add_edge(self, rel: model.RelType, start: str, end: str, props: dict, key: str) -> None:
        props = rel.check(props)
        ends = check_ends(rel.name, start, end)
        self.edge_counts[rel.name] = self.edge_counts.get(rel.name, 0) + 1
        early = self.early
        if early is not None and early.edges and not (ends[0].identity or ends[1].identity):
            self._early_edge_buf.append((rel.name, start, end, props, key))
            if len(self._early_edge_buf) >= CHUNK_ROWS:
                self._put_early_edges()
            return
        self._edge_buf.append((rel.name, start, end, props, key))
        if len(self._edge_buf) >= CHUNK_ROWS:
            self._put_edges()

    def _put_early_edges(self) -> None:
        """Hand the early relationships on (their nodes first), or keep them when the
        relationship writer has no room now."""
        assert self.early is not None
        rows, self._early_edge_buf = self._early_edge_buf, []
        if self._early_buf:
            early_nodes, self._early_buf = self._early_buf, []
            self.early.put(early_nodes)
        if not self.early.put_edges(rows):
            self._edge_buf.extend(rows)
            if len(self._edge_buf) >= CHUNK_ROWS:
                self._put_edges()

    def _put_edges(self) -> None:
        if self._node_buf:  # every node read so far is put before an edge is
            self._put_nodes()
        rows, self._edge_buf = self._edge_buf, []
        self.store.put_edges(rows)

    def _put_nodes(self) -> None:
        rows, self._node_buf = self._node_buf, []
        self.store.put_nodes(rows)

    def seal(self) -> None:
        """Every record was added: the buffers are handed on, the store sealed."""
        if self._early_edge_buf:
            self._put_early_edges()
        if self.early is not None and self._early_buf:
            rows, self._early_buf = self._early_buf, []
            self.early.put(rows)
        if self._node_buf:
            self._put_nodes()
        if self._edge_buf:
            rows, self._edge_buf = self._edge_buf, []
            self.store.put_edges(rows)
        self.store.seal()

    def iter_nodes(self) -> Iterator[Node]:
        """The nodes kept (with ``early``, those of kinds with identity properties only)."""
        kinds = model.NODE_KINDS
        for label, uid, props, extra in self.node_rows():
            yield Node(kinds[label], uid, props, extra)

    def iter_edges(self) -> Iterator[Edge]:
        rels = model.REL_TYPES
        for rel, start, end, props, key in self.edge_rows():
            yield Edge(rels[rel], start, end, props, key)

    def node_rows(self) -> Iterator[tuple]:
        """The nodes as they were kept, ``(kind label, uid, props, extra labels)``, without
        building a :class:`Node` each (the bulk fold reads 10^6 of them)."""
        return self.store.node_rows()

    def edge_rows(self) -> Iterator[tuple]:
        """The relationships as they were kept, ``(type, start, end, props, key)``."""
        return self.store.edge_rows()

    def close(self) -> None:
        self.store.close()


_DECLARED = {(r.rel.name, r.start.label, r.end.label) for r in model.RELATIONS}


def check_ends(rel: str, start_uid: str, end_uid: str) -> tuple[model.NodeKind, model.NodeKind]:
    """The kinds of a relationship's ends (known by their uid schemes); raises
    :class:`~lineage.model.ModelError` unless the model declares relationship type ``rel``
    between them.

    >>> [k.label for k in check_ends("PART_OF", "pegasus:job:w:j", "pegasus:workflow:w")]
    ['Job', 'Workflow']
    >>> check_ends("USED", "host:a", "host:b")
    Traceback (most recent call last):
    ...
    lineage.model.types.ModelError: USED: (:Host)-[:USED]->(:Host) is not declared in the model
    """
    start, end = model.kind_of_uid(start_uid), model.kind_of_uid(end_uid)
    if start is None or end is None or (rel, start.label, end.label) not in _DECLARED:
        pattern = f"(:{start.label if start else '?'})-[:{rel}]->(:{end.label if end else '?'})"
        raise model.ModelError(rel, None, f"{pattern} is not declared in the model")
    return start, end
