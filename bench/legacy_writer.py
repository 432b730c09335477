"""The writer as it was before issue 14 (UNWIND MERGE with Eager plans, 2,000-row batches),
kept only so bench/bench_load.py can run it side by side with lineage/writer.py."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from neo4j import Driver, ManagedTransaction

from lineage import model
from lineage.model.records import Edge, Node

# The FOREACH clears the properties of an element that only earlier versions of this load
# stated, the first time this version writes it (so a reload replaces the input's facts);
# the last SET appends the load's tag to the element's ``loads`` list once (no tag: the
# list is left as it is).
NODE_STATEMENT = """
UNWIND $rows AS row
MERGE (n:Lineage {uid: row.uid})
WITH n, row, coalesce(n.loads, []) AS had
FOREACH (_ IN CASE WHEN $tag IS NOT NULL AND size(had) > 0 AND NOT $tag IN had
                    AND all(t IN had WHERE t STARTS WITH $prefix) THEN [1] ELSE [] END |
  SET n = {uid: row.uid})
SET n += row.props
SET n:$($labels)
SET n.loads = CASE WHEN $tag IS NULL OR $tag IN coalesce(n.loads, [])
              THEN n.loads ELSE coalesce(n.loads, []) + $tag END
"""


# The nodes of ``rows`` that other loads already stated with other values of the kind's
# identity properties (see NodeKind.identity): ``$prefix`` is this load's tag prefix.
IDENTITY_STATEMENT = """
UNWIND $rows AS row
MATCH (n:Lineage {uid: row.uid})
WHERE any(t IN coalesce(n.loads, []) WHERE NOT t STARTS WITH $prefix)
  AND any(k IN keys(row.identity) WHERE n[k] IS NOT NULL AND n[k] <> row.identity[k])
RETURN row.uid AS uid,
       [k IN keys(row.identity) WHERE n[k] <> row.identity[k] | [k, n[k], row.identity[k]]]
         AS differ
"""


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


def _edge_statement(rel: model.RelType, keyed: bool) -> str:
    if not rel.name.isidentifier() or not rel.name.isupper():
        raise ValueError(f"relationship type {rel.name!r} is not an upper-case identifier")
    key = " {key: row.key}" if keyed else ""
    return (
        "UNWIND $rows AS row\n"
        "MATCH (a:Lineage {uid: row.start})\n"
        "MATCH (b:Lineage {uid: row.end})\n"
        f"MERGE (a)-[r:{rel.name}{key}]->(b)\n"
        "WITH r, row, coalesce(r.loads, []) AS had\n"
        "FOREACH (_ IN CASE WHEN $tag IS NOT NULL AND size(had) > 0 AND NOT $tag IN had\n"
        "                   AND all(t IN had WHERE t STARTS WITH $prefix) THEN [1] ELSE [] END |\n"
        f"  SET r = {{{'key: row.key' if keyed else ''}}})\n"
        "SET r += row.props\n"
        "SET r.loads = CASE WHEN $tag IS NULL OR $tag IN coalesce(r.loads, [])\n"
        "              THEN r.loads ELSE coalesce(r.loads, []) + $tag END\n"
        "RETURN count(r) AS written"
    )


EDGE_STATEMENTS = {name: _edge_statement(rel, False) for name, rel in model.REL_TYPES.items()}
KEYED_EDGE_STATEMENTS = {name: _edge_statement(rel, True) for name, rel in model.REL_TYPES.items()}


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


def ensure_schema(driver: Driver, database: str | None = None) -> None:
    """Create the model's constraints and indexes if they are missing (idempotent).

    Schema commands take no parameters; names, labels and properties come from the model.
    """
    spec = model.schema()
    statements = [
        f"CREATE CONSTRAINT {name} IF NOT EXISTS FOR (n:{label}) REQUIRE n.{prop} IS UNIQUE"
        for name, label, prop in spec.unique
    ] + [
        f"CREATE INDEX {name} IF NOT EXISTS FOR (n:{label}) ON (n.{prop})"
        for name, label, prop in spec.ranges
    ]
    for statement in statements:
        driver.execute_query(statement, database_=database)
    driver.execute_query("CALL db.awaitIndexes(300)", database_=database)


def _write_nodes(tx: ManagedTransaction, groups: dict[tuple[str, ...], list[dict]],
                 tag: str | None) -> None:
    for labels, rows in groups.items():
        tx.run(NODE_STATEMENT, rows=rows, labels=list(labels[1:]), tag=tag,
               prefix=_prefix(tag)).consume()


def _write_edges(tx: ManagedTransaction, groups: dict[tuple[str, bool], list[dict]],
                 tag: str | None) -> int:
    written = 0
    for (rel, keyed), rows in groups.items():
        statement = (KEYED_EDGE_STATEMENTS if keyed else EDGE_STATEMENTS)[rel]
        written += tx.run(statement, rows=rows, tag=tag, prefix=_prefix(tag)).single()["written"]
    return written


def _prefix(tag: str | None) -> str | None:
    """``<load id>:`` of a tag ``<load id>:<version>``."""
    return tag.rsplit(":", 1)[0] + ":" if tag else None


def _props(node_or_edge) -> dict:
    return {k: v for k, v in node_or_edge.props.items() if v is not None}


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

    def __init__(self, driver: Driver, database: str | None = None, batch_size: int = 2000):
        """Write to ``database`` of ``driver`` in batches of ``batch_size`` rows."""
        self.driver = driver
        self.database = database
        self.batch_size = batch_size

    def _session(self):
        return self.driver.session(database=self.database)

    def write_nodes(self, nodes: Iterable[Node], tag: str | None = None) -> WriteStats:
        """MERGE nodes on uid, add their labels, set their (non-null) properties and their
        ``kind``, and add ``tag`` (the load's) to their ``loads``.

        Records of one uid within a batch are folded into one row first (later properties
        win, as they would in sequence), so a stream that updates a node many times costs
        one MERGE per batch.
        """
        stats = WriteStats()
        pending: dict[str, tuple[tuple[str, ...], dict]] = {}
        size = 0
        with self._session() as session:
            def flush() -> None:
                nonlocal size
                groups: dict[tuple[str, ...], list[dict]] = {}
                for uid, (labels, props) in pending.items():
                    groups.setdefault(labels, []).append({"uid": uid, "props": props})
                session.execute_write(_write_nodes, groups, tag)
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
                else:  # a different label set: keep both rows, in order
                    flush()
                    pending[node.uid] = (node.labels, props)
                stats.node_rows += 1
                size += _size(props)
                if len(pending) >= self.batch_size or size >= BATCH_BYTES:
                    flush()
            if pending:
                flush()
        return stats

    def write_edges(self, edges: Iterable[Edge], tag: str | None = None) -> WriteStats:
        """MERGE edges between existing nodes (adding ``tag`` to their ``loads``); count those
        whose ends are missing."""
        stats = WriteStats()
        groups: dict[tuple[str, bool], list[dict]] = {}
        batch: list[dict] = []
        size = 0

        def flush(session) -> None:
            written = session.execute_write(_write_edges, groups, tag)
            stats.edge_rows += len(batch)
            stats.edges_written += written
            if written < len(batch):
                stats.unresolved_edges += len(batch) - written
                if len(stats.unresolved_examples) < 10:
                    stats.unresolved_examples.extend(
                        session.execute_read(_missing_ends, batch)[: 10 - len(stats.unresolved_examples)]
                    )

        with self._session() as session:
            for edge in edges:
                row = {"rel": edge.rel.name, "start": edge.start, "end": edge.end,
                       "props": _props(edge)}
                if edge.key:
                    row["key"] = edge.key
                groups.setdefault((edge.rel.name, bool(edge.key)), []).append(row)
                batch.append(row)
                size += _size(row["props"])
                if len(batch) >= self.batch_size or size >= BATCH_BYTES:
                    flush(session)
                    groups, batch, size = {}, [], 0
            if batch:
                flush(session)
        return stats
