"""The one writer: record batches into Neo4j with ``UNWIND $rows ... MERGE`` in managed
transactions (the driver retries transient errors such as deadlocks and lost leaders).

The statements are generated once from the model (:mod:`.statements`); the ends of a
relationship this writer's nodes make are found by element id (:mod:`.node_ids`, its fast
path) and else by uid.

>>> _union(("Lineage", "Job"), ("Lineage", "Failed"))
('Lineage', 'Job', 'Failed')
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Iterable

from neo4j import Driver, ManagedTransaction
from neo4j.exceptions import ConstraintError

from .. import model
from ..model.records import Edge, Node
from .claims import EDGE_CLAIMS, FIXED_LABELS, LABEL_ORDER, NODE_CLAIMS
from .node_ids import ID_EDGE_STATEMENTS, NODE_IDS_LIMIT, NodeIds, ends
from .statements import (EDGE_RESET_STATEMENTS, EDGE_STATEMENTS, IDENTITY_STATEMENT,
                         KEYED_EDGE_STATEMENTS, NODE_CREATE_STATEMENT, NODE_RESET_STATEMENT,
                         NODE_STATEMENT, Rows)

def identity_conflicts(driver: Driver, database: str | None, nodes: Iterable[Node],
                       prefix: str, batch: int = 2000) -> dict[str, list]:
    """Which of ``nodes`` other loads already stated with other identity values: uid ->
    ``[[property, stored, this input's], ...]`` (kinds without ``identity`` are not asked)."""
    wanted: dict[str, dict] = {}
    for node in nodes:
        ident = {k: node.props.get(k) for k in node.kind.identity
                 if node.props.get(k) is not None}
        if ident:
            wanted.setdefault(node.uid, {}).update(ident)
    rows = [{"uid": uid, "identity": ident} for uid, ident in wanted.items()]
    found: dict[str, list] = {}
    for i in range(0, len(rows), batch):
        records, _, _ = driver.execute_query(IDENTITY_STATEMENT, rows=rows[i:i + batch],
                                             prefix=prefix, database_=database,
                                             routing_="r")
        found.update({r["uid"]: r["differ"] for r in records})
    return found


def agreement_conflicts(driver: Driver, database: str | None, nodes: Iterable[Node],
                        prefix: str, batch: int = 2000) -> dict[str, list]:
    """Which of ``nodes`` other loads stated with another value of any property the node
    states here: uid -> ``[[property, stored, this input's], ...]``; asked batch by batch
    (memory holds one batch)."""
    found: dict[str, list] = {}
    rows: list[dict] = []

    def ask() -> None:
        records, _, _ = driver.execute_query(IDENTITY_STATEMENT, rows=rows, prefix=prefix,
                                             database_=database, routing_="r")
        for r in records:
            found.setdefault(r["uid"], []).extend(r["differ"])

    for node in nodes:
        rows.append({"uid": node.uid, "identity": node.props})
        if len(rows) >= batch:
            ask()
            rows = []
    if rows:
        ask()
    return found


@dataclass
class WriteStats:
    """What one write sent: node and edge rows, and edges whose ends were not in the graph."""

    node_rows: int = 0
    edge_rows: int = 0
    edges_written: int = 0
    unresolved_edges: int = 0
    unresolved_examples: list[str] = field(default_factory=list)

    def add(self, other: "WriteStats") -> None:
        self.node_rows += other.node_rows
        self.edge_rows += other.edge_rows
        self.edges_written += other.edges_written
        self.unresolved_edges += other.unresolved_edges
        room = 10 - len(self.unresolved_examples)
        self.unresolved_examples.extend(other.unresolved_examples[:max(room, 0)])


def ensure_schema(driver: Driver, database: str | None = None) -> list[str]:
    """Create the model's constraints and indexes that the database lacks (idempotent);
    returns the names of those it created. One look at the names it holds first, so a load
    into a database whose schema is whole sends no schema command.

    Schema commands take no parameters; names, labels and properties come from the model.

    >>> ensure_schema(driver)        # a database the model's schema is already in  # doctest: +SKIP
    []
    """
    spec = model.schema()
    wanted = [
        (name, f"CREATE CONSTRAINT {name} IF NOT EXISTS FOR (n:{label}) REQUIRE n.{prop} IS UNIQUE")
        for name, label, prop in spec.unique
    ] + [
        (name, f"CREATE INDEX {name} IF NOT EXISTS FOR (n:{label}) ON (n.{prop})")
        for name, label, prop in spec.ranges
    ]
    held = {record["name"] for show in ("SHOW CONSTRAINTS YIELD name", "SHOW INDEXES YIELD name")
            for record in driver.execute_query(show, database_=database).records}
    created = []
    for name, statement in wanted:
        if name not in held:
            driver.execute_query(statement, database_=database)
            created.append(name)
    driver.execute_query("CALL db.awaitIndexes(300)", database_=database)
    return created


def _write_nodes(tx: ManagedTransaction, groups: dict[tuple[tuple[str, ...], bool], list[dict]],
                 tag: str | None, at: float = 0.0) -> tuple[list[str], list[str]]:
    """One batch: ``groups`` maps (labels, known new) to rows ``{uid, props}``; returns the
    uids written and their nodes' element ids, in the same order. Rows of nodes another
    load states too record this version's claim first (written at ``at``)."""
    prefix = _prefix(tag)
    groups = {key: Rows(rows) for key, rows in groups.items()}
    if _reload(tag):
        for rows in groups.values():
            tx.run(NODE_RESET_STATEMENT, rows=rows, tag=tag, prefix=prefix).consume()
    if tag is not None:
        for (labels, new), rows in groups.items():
            if not new:
                tx.run(NODE_CLAIMS, rows=rows, labels=list(labels[1:]), tag=tag,
                       prefix=prefix, at=at, fixed=FIXED_LABELS,
                       order=LABEL_ORDER).consume()
    loads = [tag] if tag is not None else None
    uids: list[str] = []
    ids: list[str] = []
    for (labels, new), rows in groups.items():
        uids.extend(row["uid"] for row in rows)
        if new:
            rows = Rows({"props": {**row["props"], "uid": row["uid"], "loads": loads}}
                        for row in rows)
            result = tx.run(NODE_CREATE_STATEMENT, rows=rows, labels=list(labels[1:]))
        else:
            result = tx.run(NODE_STATEMENT, rows=rows, labels=list(labels[1:]), tag=tag,
                            prefix=prefix)
        ids.extend(result.single(strict=True)["ids"])
    return uids, ids


def _write_edges(tx: ManagedTransaction, groups: dict[tuple[str, bool, bool], list[dict]],
                 tag: str | None, at: float | None = None) -> int:
    """One batch: ``groups`` maps (type, keyed, ends by id) to rows; returns the records of
    the rows written (rows whose ends were found). With ``at`` (the version's time), the
    rows of relationships another load states too record this version's claim first."""
    written = 0
    prefix = _prefix(tag)
    groups = {key: Rows(rows) for key, rows in groups.items()}
    if _reload(tag):
        for (rel, keyed, _), rows in groups.items():
            tx.run(EDGE_RESET_STATEMENTS[rel, keyed], rows=rows, tag=tag, prefix=prefix).consume()
    if tag is not None and at is not None:
        for (rel, keyed, _), rows in groups.items():
            if (rel, keyed) in EDGE_CLAIMS:
                tx.run(EDGE_CLAIMS[rel, keyed], rows=rows, rel=rel, tag=tag, prefix=prefix,
                       at=at).consume()
    for (rel, keyed, by_id), rows in groups.items():
        by_uid = (KEYED_EDGE_STATEMENTS if keyed else EDGE_STATEMENTS)[rel]
        if by_id:
            found = tx.run(ID_EDGE_STATEMENTS[rel, keyed], rows=rows, tag=tag,
                           prefix=prefix).single()["written"]
            if found == sum(row["n"] for row in rows):
                written += found
                continue
            # an id the uid check refused: the same rows by uid (MERGE again is a no-op for
            # those already written)
        written += tx.run(by_uid, rows=rows, tag=tag, prefix=prefix).single()["written"]
    return written


def _reload(tag: str | None) -> bool:
    """Whether elements of earlier versions of the tag's load may be in the graph (any
    version after the first): only then are they looked for, to be cleared first.

    >>> _reload("3f2a9c0d1e2b4a5f:1"), _reload("3f2a9c0d1e2b4a5f:2"), _reload(None)
    (False, True, False)
    """
    return tag is not None and not tag.endswith(":1")


def _prefix(tag: str | None) -> str | None:
    """``<load id>:`` of a tag ``<load id>:<version>``."""
    return tag.rsplit(":", 1)[0] + ":" if tag else None


def _props(node_or_edge) -> dict:
    return {k: v for k, v in node_or_edge.props.items() if v is not None}


#: Node rows per write transaction (each statement of a batch carries one group of them).
BATCH_ROWS = 2000

#: Relationship rows per write transaction: their rows are small, and fewer commits made the
#: relationships of the XGC-like shard faster to write (docs/performance.md, "The Chimbuko
#: shard stand-in").
EDGE_BATCH_ROWS = 10000

#: A batch is sent when it holds this many bytes of text, whatever its row count (a few rows
#: of 300 KB command lines must not make one transaction of hundreds of MB).
BATCH_BYTES = 16 * 1024 * 1024


def _size(props: dict) -> int:
    """Roughly how many bytes the values of ``props`` take (text and lists of text)."""
    total = 64
    for value in props.values():
        if isinstance(value, str):
            total += len(value)
        elif isinstance(value, list):
            total += sum(len(v) if isinstance(v, str) else 8 for v in value)
        else:
            total += 8
    return total


def _missing_ends(tx: ManagedTransaction, rows: list[dict]) -> list[str]:
    result = tx.run(
        "UNWIND $rows AS row "
        "WITH row WHERE NOT EXISTS { MATCH (:Lineage {uid: row.start}) } "
        "OR NOT EXISTS { MATCH (:Lineage {uid: row.end}) } "
        "RETURN row.rel + ' ' + row.start + ' -> ' + row.end AS edge LIMIT 10",
        rows=rows,
    )
    return [r["edge"] for r in result]


class Writer:
    """Batched, idempotent writes of records to one database.

    >>> from lineage import model
    >>> w = Writer(driver, batch_size=500)                           # doctest: +SKIP
    >>> w.write_nodes([Node(model.HOST, "host:nid001", {"name": "nid001"})]).node_rows  # doctest: +SKIP
    1
    """

    def __init__(self, driver: Driver, database: str | None = None,
                 batch_size: int | None = None, fold_edges: bool = True,
                 node_ids: int = NODE_IDS_LIMIT, batch_inputs: bool = True):
        """Write to ``database`` of ``driver`` in batches of ``batch_size`` rows (by
        default BATCH_ROWS of nodes and EDGE_BATCH_ROWS of relationships);
        ``fold_edges=False`` sends every edge record as a row of its own, unfolded;
        ``node_ids``: how many written nodes' ids to remember for relationship writes (0:
        none, every end looked up by uid); ``batch_inputs=False``: every input is written on
        its own by this writer's batches, none many to a transaction (:mod:`.fleet`)."""
        self.driver = driver
        self.batch_inputs = batch_inputs
        self.database = database
        self.batch_size = batch_size or BATCH_ROWS
        self.edge_batch_size = batch_size or EDGE_BATCH_ROWS
        self.fold_edges = fold_edges
        self.ids = NodeIds(node_ids) if node_ids > 0 else None
        #: per load tag: when its version was first written (orders claims: newest wins)
        self.written_at: dict[str, float] = {}
        #: tags whose first nodes went into a graph holding no other node: their elements
        #: are theirs alone, their relationships need no claims
        self.alone: set[str] = set()

    def _at(self, tag: str | None) -> float:
        if tag is None:
            return 0.0
        return self.written_at.setdefault(tag, time.time())

    def _session(self):
        return self.driver.session(database=self.database)

    def _graph_is_empty(self, session) -> bool:
        return not session.run("RETURN EXISTS { MATCH (:Lineage) } AS any").single()["any"]

    def write_nodes(self, nodes: Iterable[Node], tag: str | None = None) -> WriteStats:
        """MERGE nodes on uid, add their labels, set their (non-null) properties and their
        ``kind``, and add ``tag`` (the load's) to their ``loads``.

        Records of one uid within a batch are folded into one row first (later properties
        win and labels add up, as they would in sequence), so a stream that updates a node
        many times costs one MERGE per batch, whatever labels each record gives it. When
        the graph holds no lineage node as the write begins, a uid this call has not
        written yet is CREATEd (no index look-up); should another writer have created it
        meanwhile, the batch is written again with MERGE. The element ids of the nodes
        written are remembered (``self.ids``) for :meth:`write_edges`.
        """
        stats = WriteStats()
        pending: dict[str, tuple[tuple[str, ...], dict]] = {}
        size = 0
        with self._session() as session:
            fresh = self._graph_is_empty(session)
            if tag is not None and tag not in self.written_at and fresh:
                self.alone.add(tag)
            at = self._at(tag)
            written: set[int] = set()  # hashes of uids written (a collision only means MERGE)

            def flush() -> None:
                nonlocal size, fresh
                groups: dict[tuple[tuple[str, ...], bool], list[dict]] = {}
                for uid, (labels, props) in pending.items():
                    new = fresh and hash(uid) not in written
                    groups.setdefault((labels, new), []).append({"uid": uid, "props": props})
                try:
                    uids, ids = session.execute_write(_write_nodes, groups, tag, at)
                except ConstraintError:
                    if not fresh:
                        raise
                    fresh = False  # another writer got there first: MERGE from now on
                    self.alone.discard(tag)
                    merged: dict[tuple[tuple[str, ...], bool], list[dict]] = {}
                    for (labels, _), rows in groups.items():
                        merged.setdefault((labels, False), []).extend(rows)
                    uids, ids = session.execute_write(_write_nodes, merged, tag, at)
                if self.ids is not None:
                    self.ids.remember(uids, ids)
                if fresh:
                    written.update(hash(uid) for uid in pending)
                pending.clear()
                size = 0

            for node in nodes:
                props = _props(node)
                props["kind"] = node.kind.label
                seen = pending.get(node.uid)
                if seen is None:
                    pending[node.uid] = (node.labels, props)
                elif seen[0] == node.labels:
                    seen[1].update(props)
                else:  # labels only add up: one row with both sets, as in sequence
                    pending[node.uid] = (_union(seen[0], node.labels), seen[1])
                    seen[1].update(props)
                stats.node_rows += 1
                size += _size(props)
                if len(pending) >= self.batch_size or size >= BATCH_BYTES:
                    flush()
            if pending:
                flush()
        return stats

    def write_edges(self, edges: Iterable[Edge], tag: str | None = None) -> WriteStats:
        """MERGE edges between existing nodes (adding ``tag`` to their ``loads``); count those
        whose ends are missing. An edge stated several times within a batch (a Pegasus job
        instance's INSTANCE_OF, once per state event) is sent as one row that counts its
        records (``n``), its properties folded in order (later non-null values win, as the
        MERGE's ``coalesce`` would). Rows are sent grouped by type and ordered by their end
        nodes, so one statement locks each node once and in a stable order. Ends this
        writer wrote recently are found by their element ids (checked against their uids)."""
        stats = WriteStats()
        ids = self.ids
        groups: dict[tuple[str, bool, bool], list[dict]] = {}
        batch: dict[object, dict] = {}  # (type, start, end, key) -> its row
        records = size = 0
        fold = self.fold_edges

        at = None if tag is None or tag in self.alone else self._at(tag)

        def flush(session) -> None:
            send_edge_batch(session, groups, batch, records, tag, stats, at)

        with self._session() as session:
            for edge in edges:
                props = _props(edge)
                ident = (edge.rel.name, edge.start, edge.end, edge.key) if fold else records
                row = batch.get(ident)
                if row is not None:  # stated again in this batch: one row
                    row["props"].update(props)
                    row["n"] += 1
                else:
                    row = {"rel": edge.rel.name, "start": edge.start, "end": edge.end,
                           "props": props, "n": 1}
                    if edge.key:
                        row["key"] = edge.key
                    found = ends(ids, edge.start, edge.end) if ids is not None else None
                    if found is not None:
                        row["a"], row["b"] = found
                    by_id = found is not None
                    groups.setdefault((edge.rel.name, bool(edge.key), by_id), []).append(row)
                    batch[ident] = row
                records += 1
                size += _size(props)
                if len(batch) >= self.edge_batch_size or size >= BATCH_BYTES:
                    flush(session)
                    groups, batch, records, size = {}, {}, 0, 0
            if batch:
                flush(session)
        return stats


def send_edge_batch(session, groups: dict[tuple[str, bool, bool], list[dict]], batch: dict,
                    records: int, tag: str | None, stats: WriteStats,
                    at: float | None = None) -> None:
    """Write one batch of edge rows (``groups`` by type, keyedness and whether their ends
    are found by id, ``batch`` the same rows by identity, ``records`` the edge records they
    fold) in one transaction, ordered by end node; add to ``stats``, with examples of edges
    whose ends were missing; ``at``: claims are recorded (see :func:`_write_edges`)."""
    for rows in groups.values():
        rows.sort(key=_ends)
    written = session.execute_write(_write_edges, groups, tag, at)
    stats.edge_rows += records
    stats.edges_written += written
    if written < records:
        stats.unresolved_edges += records - written
        if len(stats.unresolved_examples) < 10:
            stats.unresolved_examples.extend(
                session.execute_read(_missing_ends, list(batch.values()))
                [: 10 - len(stats.unresolved_examples)]
            )


def _union(first: tuple[str, ...], then: tuple[str, ...]) -> tuple[str, ...]:
    """The labels of ``first`` and then those of ``then`` it lacks, in order.

    >>> _union(("Lineage", "Activity", "FunctionExecution", "Anomaly"),
    ...        ("Lineage", "Activity", "FunctionExecution"))
    ('Lineage', 'Activity', 'FunctionExecution', 'Anomaly')
    """
    return first + tuple(label for label in then if label not in first)


def _ends(row: dict) -> tuple[str, str]:
    return row["end"], row["start"]
