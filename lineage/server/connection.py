"""Which Neo4j to talk to, and a small handle that runs Cypher and returns plain rows.

``NEO4J_URI`` (with ``NEO4J_USERNAME``, ``NEO4J_PASSWORD``, ``NEO4J_DATABASE``) names any
server: ``bolt://``, ``neo4j://``, ``neo4j+s://`` (Aura, clusters). Without it the managed
local server is used, and started if it is not running.

>>> to_plain([1, {"a": (2, 3)}])
[1, {'a': [2, 3]}]
"""

from __future__ import annotations

import json
import logging
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from neo4j import READ_ACCESS, Driver, GraphDatabase, RoutingControl
from neo4j.exceptions import ClientError, TransientError
from neo4j.graph import Node as NeoNode
from neo4j.graph import Path as NeoPath
from neo4j.graph import Relationship as NeoRelationship
from neo4j.time import Date, DateTime, Duration, Time

from .. import server
from ..errors import LineageError
from ..redact import redact_url
from ..config import settings as lineage_settings

STREAM_FETCH_SIZE = 2000  # rows per Bolt PULL while streaming
log = logging.getLogger("lineage.server.connection")


@dataclass(frozen=True)
class Settings:
    """Where the graph lives and how to log in."""

    uri: str
    user: str
    password: str
    database: str | None
    managed: bool

    @classmethod
    def of(cls, settings: "lineage_settings.Settings", start_managed: bool = True) -> "Settings":
        """Connection settings from the package settings: ``NEO4J_URI`` and its login, or
        the managed local server's (started unless ``start_managed`` is false)."""
        if settings.neo4j_uri:
            return cls(settings.neo4j_uri, settings.neo4j_user, settings.neo4j_password,
                       settings.neo4j_database, False)
        info = server.start() if start_managed else server.status()
        log.info("using the managed Neo4j in %s", info.get("state_dir"))
        return cls(info["uri"], info["user"], server.password(), settings.neo4j_database, True)

    @classmethod
    def from_env(cls, start_managed: bool = True) -> "Settings":
        """Connection settings from the environment (see :meth:`of`)."""
        return cls.of(lineage_settings.Settings.from_env(), start_managed)


_SCALARS = frozenset({str, int, float, bool})
_PLAIN_TYPES = _SCALARS | {type(None)}  # a row of only these needs no conversion

#: the end of :meth:`Graph.run_page`'s statement: the page, the total, and per counted
#: column position the rows per value, most frequent first (fixed text, values are parameters)
_PAGE_TAIL = """CALL (rows) {
  UNWIND $__positions AS position
  UNWIND rows AS row
  WITH position, row[position] AS value, count(*) AS n
  ORDER BY position, n DESC
  RETURN collect([position, value, n]) AS counts
}
RETURN size(rows) AS total, rows[$__offset..($__offset + $__limit)] AS page, counts"""


@dataclass
class Page:
    """One page of a query's rows, the total, and the rows per value of counted columns.

    >>> Page([{"uid": "a"}], 70000, 0, {"kind": [("Job", 69999), ("Workflow", 1)]}).more
    69999
    """

    rows: list[dict]
    total: int
    offset: int
    counts: dict[str, list[tuple[Any, int]]]

    @property
    def more(self) -> int:
        """Rows after this page."""
        return max(self.total - self.offset - len(self.rows), 0)


def past_memory(exc: Exception) -> bool:
    """Whether a server error says the statement ran past the server's memory (its
    transaction memory pool, or the JVM's), which streaming the rows instead may avoid."""
    return "Memory" in (getattr(exc, "code", None) or "")


def count_key(value: Any) -> Any:
    """A value usable as a count key (lists and maps as their JSON text).

    >>> count_key(["a"]), count_key(3)
    ('["a"]', 3)
    """
    if isinstance(value, (list, dict)):
        return json.dumps(value, sort_keys=True, default=str)
    return value


def page_of(rows: Iterable[dict], offset: int, limit: int, count_by: list[str]) -> Page:
    """A page cut from rows as they come, holding only the page and the counts: rows
    ``offset`` to ``offset + limit``, the total, and per column of ``count_by`` how many rows
    hold each value (most first).

    >>> page_of(iter([{"k": "a"}, {"k": "b"}, {"k": "a"}]), 1, 1, ["k"])
    Page(rows=[{'k': 'b'}], total=3, offset=1, counts={'k': [('a', 2), ('b', 1)]})
    """
    kept: list[dict] = []
    tallies: dict[str, Counter] = {column: Counter() for column in count_by}
    total = 0
    for row in rows:
        if offset <= total < offset + limit:
            kept.append(row)
        total += 1
        for column, tally in tallies.items():
            tally[count_key(row.get(column))] += 1
    return Page(kept, total, offset, {c: tally.most_common() for c, tally in tallies.items()})


def to_plain(value: Any) -> Any:
    """Driver values as plain Python: nodes and relationships become dicts, paths lists."""
    if value is None or type(value) in _SCALARS:  # the common case first: rows of scalars
        return value
    if isinstance(value, NeoNode):
        return {**{k: to_plain(v) for k, v in value.items()}, "_labels": sorted(value.labels)}
    if isinstance(value, NeoRelationship):
        return {
            **{k: to_plain(v) for k, v in value.items()},
            "_type": value.type,
            "_start": value.start_node.get("uid") if value.start_node else None,
            "_end": value.end_node.get("uid") if value.end_node else None,
        }
    if isinstance(value, NeoPath):
        return [to_plain(n) for n in value.nodes]
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    if isinstance(value, (DateTime, Date, Time)):
        return value.iso_format()
    if isinstance(value, Duration):
        return str(value)
    return value


BOLT_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


def check_uri(uri: str) -> None:
    """Refuse a Neo4j URI the driver cannot use, with a message that never shows a password.

    >>> check_uri("neo4j+s://abc.databases.neo4j.io")
    >>> check_uri("bolt://neo4j:s3cret@db:7687")
    Traceback (most recent call last):
    ...
    lineage.errors.LineageError: NEO4J_URI bolt://neo4j:***@db:7687: put the user and password in NEO4J_USERNAME and NEO4J_PASSWORD, not in the URI
    """
    scheme, sep, rest = uri.partition("://")
    if not sep or scheme not in BOLT_SCHEMES:
        raise LineageError(f"NEO4J_URI {redact_url(uri)}: expected a bolt:// or neo4j:// URI "
                           f"({', '.join(s + '://' for s in BOLT_SCHEMES)})")
    if "@" in rest.split("/", 1)[0].split("?", 1)[0] or "@" in rest.partition("?")[0]:
        raise LineageError(f"NEO4J_URI {redact_url(uri)}: put the user and password in "
                           "NEO4J_USERNAME and NEO4J_PASSWORD, not in the URI")


#: Neo4j refuses every login for ``dbms.security.auth_lock_time`` (5 s by default) after
#: three wrong passwords in a row, whoever sent them.
AUTH_LOCK_SECONDS = 5.5
RATE_LIMITED = "Neo.ClientError.Security.AuthenticationRateLimit"


def _verify(driver: Driver) -> None:
    """Check the connection and the login; a login refused because someone tried wrong
    passwords just before is tried once more after the lock time, then explained."""
    for attempt in (1, 2):
        try:
            driver.verify_connectivity()
            return
        except ClientError as exc:
            if exc.code != RATE_LIMITED:
                raise
            if attempt == 2:
                raise LineageError(
                    "Neo4j refuses logins for a few seconds because wrong passwords were "
                    "tried for this user just before (another client with an old password?); "
                    "try again shortly") from exc
            time.sleep(AUTH_LOCK_SECONDS)


class Graph:
    """A connection to the lineage graph.

    >>> with Graph.connect() as g:                                   # doctest: +SKIP
    ...     g.run("MATCH (n:Job) RETURN n.uid AS uid LIMIT 1")
    [{'uid': 'pegasus:job:ea17e8ac-02ac-4909-b5e3-16e367392556:analyze_j4'}]
    """

    def __init__(self, driver: Driver, database: str | None = None, settings: Settings | None = None):
        self.driver = driver
        self.database = database
        self.settings = settings

    @classmethod
    def connect(cls, settings: Settings | None = None) -> "Graph":
        settings = settings or Settings.from_env()
        check_uri(settings.uri)
        from ..config.logs import SECRETS

        SECRETS.add(settings.password)  # never in a log line, whoever logs it
        log.info("connecting to %s as %s (database %s)", redact_url(settings.uri),
                 settings.user, settings.database or "default")
        started = time.perf_counter()
        driver = GraphDatabase.driver(
            settings.uri, auth=(settings.user, settings.password), notifications_min_severity="OFF"
        )
        try:
            _verify(driver)
        except BaseException:
            driver.close()
            raise
        log.debug("connected in %.3f s", time.perf_counter() - started)
        return cls(driver, settings.database, settings)

    def run(self, cypher: str, params: dict | None = None, write: bool = False) -> list[dict]:
        """Run Cypher with parameters and return the rows as plain dicts."""
        if not write:
            records = self._read(cypher, params)
        else:
            records, _, _ = self.driver.execute_query(
                cypher, parameters_=params or {}, database_=self.database,
                routing_=RoutingControl.WRITE)
        return [{k: to_plain(v) for k, v in r.items()} for r in records]

    def _read(self, cypher: str, params: dict | None) -> list:
        """A read query's records, as one auto-commit transaction: one round trip (RUN and
        PULL together) where ``execute_query``'s managed transaction takes two (BEGIN, RUN,
        PULL, then COMMIT): 1.0 against 1.5 ms for ``RETURN 1``, 300 alternating runs. It shares
        ``execute_query``'s bookmark manager, so in a cluster a read still sees the writes
        made before it. A transient error (a leader switch, a lock) is retried once."""
        for attempt in (1, 2):
            try:
                with self.driver.session(  # the driver's bookmarks: reads see prior writes
                        database=self.database, default_access_mode=READ_ACCESS,
                        bookmark_manager=self.driver.execute_query_bookmark_manager) as session:
                    return list(session.run(cypher, params or {}))
            except TransientError as exc:
                if attempt == 2 or past_memory(exc):
                    raise
        raise AssertionError("unreachable")

    def stream(self, cypher: str, params: dict | None = None) -> Iterator[dict]:
        """Rows of a read query one at a time as plain dicts; the driver fetches them in
        batches of ``fetch_size``, so memory does not grow with the answer (exports)."""
        with self.driver.session(database=self.database, default_access_mode=READ_ACCESS,
                                 fetch_size=STREAM_FETCH_SIZE) as session:
            for record in session.run(cypher, params or {}):
                yield {k: to_plain(v) for k, v in record.items()}

    def run_collected(self, cypher: str, params: dict | None, columns: list[str]) -> list[dict]:
        """Run a read query whose columns are known and get its rows in one Bolt record,
        one list per column (``CALL () { query } WITH collect([columns]) AS rows RETURN
        [row IN rows | row[0]], ...``): a driver record costs 20-40 µs of Python each, and a
        list per row costs the decoder and the collector more than a list per column, so big
        answers arrive several times faster (bench/bench_ancestry_delivery.py). Nulls keep
        their places (``collect(column)`` would drop them). Only the query text and column
        names go into the statement, never a value. Falls back to streaming the rows when
        the lists would exceed the server's transaction memory.

        >>> graph.run_collected("UNWIND [1, null] AS x RETURN x, x + 1 AS y", None,
        ...                     ["x", "y"])                               # doctest: +SKIP
        [{'x': 1, 'y': 2}, {'x': None, 'y': None}]
        """
        if not columns or not all(c.isidentifier() for c in columns):
            return self.run(cypher, params)
        statement = (f"CALL () {{\n{cypher}\n}}\n"
                     f"WITH collect([{', '.join(f'`{c}`' for c in columns)}]) AS rows\n"
                     "RETURN " + ", ".join(f"[row IN rows | row[{i}]] AS c{i}"
                                           for i in range(len(columns))))
        try:
            records = self._read(statement, params)
        except (TransientError, ClientError) as exc:
            if not past_memory(exc):
                raise
            return self.run(cypher, params)
        lists = [values if _PLAIN_TYPES.issuperset(map(type, values))
                 else [to_plain(v) for v in values] for values in records[0].values()]
        return [dict(zip(columns, row)) for row in zip(*lists)]

    def run_page(self, cypher: str, params: dict | None, columns: list[str], offset: int,
                 limit: int, count_by: list[str] = ()) -> "Page":
        """Rows ``offset`` to ``offset + limit`` of a read query whose columns are known, with
        the total row count and, for each column of ``count_by``, how many rows hold each
        value, in one round trip: only the page crosses the wire, so a 70,000-row answer is
        summarised in about the time the search takes (``lineage query`` shows large answers
        this way). Like :meth:`run_collected`, only the query text and column names go into
        the statement; offset, limit and column positions are parameters. When the server
        cannot hold the answer's rows as one list (its transaction memory), the rows are
        streamed instead and the page cut here (:func:`page_of`)."""
        if not columns or not all(c.isidentifier() for c in columns):
            raise ValueError(f"columns must be identifiers: {columns!r}")
        names = ", ".join(f"`{c}`" for c in columns)
        statement = (f"CALL () {{\n{cypher}\n}}\n"
                     f"WITH collect([{names}]) AS rows\n" + _PAGE_TAIL)
        positions = [columns.index(c) for c in count_by if c in columns]
        try:
            records = self._read(statement, {**(params or {}), "__offset": offset,
                                             "__limit": limit, "__positions": positions})
        except (TransientError, ClientError) as exc:
            if not past_memory(exc):
                raise
            log.info("the answer exceeds the server's transaction memory as one list: "
                     "streaming its rows to cut the page")
            return page_of(self.stream(cypher, params), offset, limit,
                           [columns[i] for i in positions])
        record = records[0]
        counts: dict[str, list[tuple[Any, int]]] = {columns[i]: [] for i in positions}
        for position, value, n in record["counts"]:
            counts[columns[position]].append((to_plain(value), n))
        rows = [dict(zip(columns, (to_plain(v) for v in row))) for row in record["page"]]
        return Page(rows, record["total"], offset, counts)

    def close(self) -> None:
        self.driver.close()

    def __enter__(self) -> "Graph":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
