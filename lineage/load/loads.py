"""Loads are lineage too: which load wrote each fact, and removing what a load alone wrote.

Every input (a file by its absolute path, or a database URL without its password) has one
``:Load`` node, found by the input's *identity*. Each time the input is written, the load
gets a new *version* and a *tag* ``<load id>:<version>``; the writer appends that tag to the
``loads`` list of every node and relationship the input states. After a successful write of
a new version, the tags of older versions are taken off and whatever no load states any
more is deleted: reloading a changed file replaces its facts, and facts shared with other
inputs stay. ``unload`` takes a load's tags off and deletes what only it stated.

Statements are fixed strings; tags and ids travel as parameters. Every property a load
record gets goes through :func:`lineage.secrets.redact_props` (an error quoting a URL with
its password, a warning quoting a value).

>>> load_id("pegasus-bp", "/data/run1.bp") == load_id("pegasus-bp", "/data/run1.bp")
True
>>> tag_of("3f2a9c0d1e2b4a5f", 2)
'3f2a9c0d1e2b4a5f:2'
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neo4j import Driver

from ..errors import LineageError
from ..secrets import redact_props
from . import claims

BATCH_ROWS = 10000


def load_id(format_name: str, identity: str) -> str:
    """The stable id of the load of one input (16 hex digits of a SHA-256)."""
    digest = hashlib.sha256(f"{format_name}\0{identity}".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:16]


def load_uid(lid: str) -> str:
    """The uid of the ``:Load`` node with id ``lid``.

    >>> load_uid("3f2a9c0d1e2b4a5f")
    'load:3f2a9c0d1e2b4a5f'
    """
    return f"load:{lid}"


def tag_of(lid: str, version: int) -> str:
    """The tag written on every element of version ``version`` of load ``lid``."""
    return f"{lid}:{version}"


@dataclass(frozen=True)
class Previous:
    """What the graph remembers of an input's earlier loads."""

    version: int = 0
    sha256: str | None = None
    status: str | None = None
    options: str | None = None
    #: a write mark is on its record: a writer is writing it, or was stopped while it did
    marked: bool = False

    @property
    def left_nothing(self) -> bool:
        """Whether the graph holds nothing of an earlier version: none was loaded, or the
        last one was unloaded (an unload takes its tag off every element). Such a version
        is written as a first one: nothing to release, its changes asked by its uids.

        >>> Previous().left_nothing, Previous(2, status="unloaded").left_nothing
        (True, True)
        >>> Previous(2, status="loaded").left_nothing
        False
        """
        return self.version == 0 or self.status == "unloaded"


def previous(driver: Driver, database: str | None, lid: str) -> Previous:
    """The last version, content digest and status recorded for load ``lid``."""
    records, _, _ = driver.execute_query(
        "MATCH (l:Load {uid: $uid}) RETURN l.version AS version, l.sha256 AS sha256, "
        "l.status AS status, l.options AS options, l.writing IS NOT NULL AS marked",
        uid=load_uid(lid), database_=database)
    if not records:
        return Previous()
    row = records[0]
    return Previous(row["version"] or 0, row["sha256"], row["status"], row["options"],
                    row["marked"])


def record(driver: Driver, database: str | None, lid: str, props: dict[str, Any]) -> None:
    """Create or update the ``:Load`` node of ``lid`` (``None`` values are left out)."""
    props = redact_props({k: v for k, v in props.items() if v is not None})
    driver.execute_query(
        "MERGE (l:Load {uid: $uid}) SET l += $props, l.id = $id, "
        "l.times_loaded = coalesce(l.times_loaded, 0) + 1",
        uid=load_uid(lid), id=lid, props=props, database_=database)


def mark(driver: Driver, database: str | None, lid: str, props: dict[str, Any]) -> None:
    """Update properties of an existing ``:Load`` node (no attempt is counted)."""
    driver.execute_query("MATCH (l:Load {uid: $uid}) SET l += $props",
                         uid=load_uid(lid), props=redact_props(props), database_=database)


_COUNT_TAGGED = """
CALL () {
  MATCH (n:Lineage) WHERE any(t IN n.loads WHERE t STARTS WITH $prefix AND t <> $keep AND ($only = '' OR t = $only))
  RETURN count(n) AS nodes
}
CALL () {
  MATCH ()-[r]->() WHERE any(t IN r.loads WHERE t STARTS WITH $prefix AND t <> $keep AND ($only = '' OR t = $only))
  RETURN count(r) AS edges
}
RETURN nodes, edges
"""

_UNTAG_EDGES = """
MATCH ()-[r]->() WHERE any(t IN r.loads WHERE t STARTS WITH $prefix AND t <> $keep AND ($only = '' OR t = $only))
CALL (r) {
  WITH r, [t IN r.loads WHERE NOT (t STARTS WITH $prefix AND t <> $keep AND ($only = '' OR t = $only))] AS rest
  FOREACH (_ IN CASE WHEN size(rest) = 0 THEN [1] ELSE [] END | DELETE r)
  FOREACH (_ IN CASE WHEN size(rest) > 0 THEN [1] ELSE [] END | SET r.loads = rest)
} IN TRANSACTIONS OF $batch ROWS
"""

_UNTAG_NODES = """
MATCH (n:Lineage) WHERE any(t IN n.loads WHERE t STARTS WITH $prefix AND t <> $keep AND ($only = '' OR t = $only))
CALL (n) {
  WITH n, [t IN n.loads WHERE NOT (t STARTS WITH $prefix AND t <> $keep AND ($only = '' OR t = $only))] AS rest
  FOREACH (_ IN CASE WHEN size(rest) = 0 THEN [1] ELSE [] END | DETACH DELETE n)
  FOREACH (_ IN CASE WHEN size(rest) > 0 THEN [1] ELSE [] END | SET n.loads = rest)
} IN TRANSACTIONS OF $batch ROWS
"""


def _count(driver: Driver, database: str | None, prefix: str, keep: str,
           only: str) -> tuple[int, int]:
    records, _, _ = driver.execute_query(_COUNT_TAGGED, prefix=prefix, keep=keep, only=only,
                                         database_=database, routing_="r")
    return records[0]["nodes"], records[0]["edges"]


def release(driver: Driver, database: str | None, lid: str, keep: str = "",
            only: str = "") -> dict[str, int]:
    """Take every tag of load ``lid`` off the graph, except ``keep`` (or only the tag
    ``only``); delete the nodes and relationships no load states any more, and recompute
    from the claims left the elements other loads state too (:mod:`.claims`). Returns how
    many elements were released and removed."""
    prefix = f"{lid}:"
    nodes_before, edges_before = _count(driver, database, prefix, keep, only)
    retraction = claims.Retraction(driver, database, prefix, keep, only)
    retraction.drop()
    with driver.session(database=database) as session:
        # CALL ... IN TRANSACTIONS needs an auto-commit transaction (session.run)
        before = _total(session)
        for statement in (_UNTAG_EDGES, _UNTAG_NODES):
            session.run(statement, prefix=prefix, keep=keep, only=only,
                        batch=BATCH_ROWS).consume()
        after = _total(session)
    retraction.refold()
    return {"nodes_released": nodes_before, "edges_released": edges_before,
            "nodes_removed": before["nodes"] - after["nodes"],
            "edges_removed": before["edges"] - after["edges"]}


def _total(session) -> dict[str, int]:
    row = session.run("CALL () { MATCH (n:Lineage) RETURN count(n) AS nodes } "
                      "CALL () { MATCH (:Lineage)-[r]->(:Lineage) RETURN count(r) AS edges } "
                      "RETURN nodes, edges").single()
    return {"nodes": row["nodes"], "edges": row["edges"]}


def changes(driver: Driver, database: str | None, lid: str, tag: str,
            released: dict[str, int]) -> dict[str, int]:
    """What a new version changed: elements it added, and elements of older versions that
    no load states any more (removed)."""
    records, _, _ = driver.execute_query(
        "CALL () { MATCH (n:Lineage) WHERE $tag IN n.loads RETURN count(n) AS nodes } "
        "CALL () { MATCH ()-[r]->() WHERE $tag IN r.loads RETURN count(r) AS edges } "
        "RETURN nodes, edges", tag=tag, database_=database, routing_="r")
    row = records[0]
    return {"nodes": row["nodes"], "edges": row["edges"],
            "nodes_removed": released.get("nodes_removed", 0),
            "edges_removed": released.get("edges_removed", 0)}


_FIRST_CHANGES = """
CALL () {
  UNWIND $uids AS uid
  MATCH (n:Lineage {uid: uid}) WHERE $tag IN n.loads
  RETURN count(n) AS nodes
}
CALL () {
  UNWIND $starts AS uid
  MATCH (:Lineage {uid: uid})-[r]->() WHERE $tag IN r.loads
  RETURN count(r) AS edges
}
RETURN nodes, edges
"""


def first_changes(driver: Driver, database: str | None, tag: str, uids: list[str],
                  starts: list[str]) -> dict[str, int]:
    """As :func:`changes`, for the first version of a load (nothing released), found from
    what it stated instead of over the whole graph: ``uids`` its nodes, ``starts`` the start
    nodes of its relationships (each uid once)."""
    records, _, _ = driver.execute_query(_FIRST_CHANGES, tag=tag, uids=uids, starts=starts,
                                         database_=database, routing_="r")
    row = records[0]
    return {"nodes": row["nodes"], "edges": row["edges"], "nodes_removed": 0,
            "edges_removed": 0}


def find(driver: Driver, database: str | None, load_or_path: str) -> list[dict]:
    """The loads named by a load uid or id, or by an input's path (every format of that
    path, and the increments ``lineage watch`` read of it that are not unloaded): a path is
    resolved as the load stored it (absolute, links followed), and a name
    no load's path is (a file named from another directory) names the loads whose paths end
    in it (unloaded ones aside). Raises :class:`LineageError` when that name ends the paths of two inputs."""
    records, _, _ = driver.execute_query(
        "MATCH (l:Load) WHERE l.uid = $key OR l.id = $key OR l.path = $key OR l.path = $path "
        "OR (any(p IN $parts WHERE l.path STARTS WITH p) "
        "AND coalesce(l.status, '') <> 'unloaded') "
        "RETURN l.uid AS uid, l.id AS id, l.path AS path, l.format AS format, "
        "l.version AS version, l.status AS status ORDER BY l.uid", key=load_or_path,
        path=resolved(load_or_path),
        parts=[f"file://{resolved(load_or_path)}{part}" for part in claims.PARTS],
        database_=database, routing_="r")
    if records:
        return [dict(r) for r in records]
    name = load_or_path.removeprefix("./").rstrip("/")
    records, _, _ = driver.execute_query(
        "MATCH (l:Load) WHERE l.path ENDS WITH $tail AND coalesce(l.status, '') <> 'unloaded' "
        "RETURN l.uid AS uid, l.id AS id, l.path AS path, l.format AS format, "
        "l.version AS version, l.status AS status ORDER BY l.uid", tail=f"/{name}",
        database_=database, routing_="r")
    found = [dict(r) for r in records]
    paths = sorted({row["path"] for row in found})
    if len(paths) > 1:
        listed = "; ".join(f"{row['path']} ({row['format']}, {row['status']}, load {row['id']})"
                           for row in sorted(found, key=lambda r: (r["path"], r["uid"])))
        raise LineageError(f"{load_or_path!r} names {len(paths)} inputs: {listed}. Name one "
                           "by its full path or its load id")
    return found


def resolved(path: str) -> str:
    """A path as loads store it (absolute, links followed; it need not exist any more); a
    URL or a load uid as it is.

    >>> resolved("/tmp/../tmp/x.bp"), resolved("postgresql://db/swift")
    ('/tmp/x.bp', 'postgresql://db/swift')
    """
    if "://" in path or path.startswith("load:"):
        return path
    return str(Path(path).resolve())


def begin_write(driver: Driver, database: str | None, lid: str, tag: str, path: str,
                format_name: str) -> None:
    """Mark load ``lid`` of input ``path`` as being written (version ``tag``, by this host
    and process): ``reset`` and ``unload`` refuse while the mark stands and its process
    lives. Raises :class:`BusyError` (the mark taken back, nothing written) while an unload
    is taking facts off the graph: a load written meanwhile could lose nodes the unload
    deletes. As :func:`begin_writes`."""
    begin_writes(driver, database, [{"lid": lid, "tag": tag, "path": path,
                                     "format": format_name}])


_UNLOADING = ("MATCH (l:Load) WHERE l.unloading IS NOT NULL "
              "RETURN l.path AS path, l.format AS format, l.unloading AS writer, "
              "l.unloading_since AS since ORDER BY l.unloading_since")


def unloads_in_progress(driver: Driver, database: str | None) -> list[dict]:
    """The loads being unloaded now by a process that lives (``{path, format, writer,
    since}``): what a load that has marked itself looks for before it writes."""
    records, _, _ = driver.execute_query(_UNLOADING, database_=database)
    return [u for u in (dict(r) for r in records) if _alive(u["writer"])]


def end_write(driver: Driver, database: str | None, lid: str, tag: str,
              props: dict[str, Any] | None = None) -> bool:
    """Take off the mark of :func:`begin_write` and record ``props`` on the load, in one
    transaction; False (nothing recorded) when the mark was no longer there: a forced
    reset or another writer took it while this one wrote."""
    props = redact_props({k: v for k, v in (props or {}).items() if v is not None})
    records, _, _ = driver.execute_query(
        "MATCH (l:Load {uid: $uid}) WHERE l.writing = $tag "
        "REMOVE l.writing, l.writing_since, l.writer "
        "SET l += $props, l.times_loaded = coalesce(l.times_loaded, 0) + "
        "CASE WHEN size(keys($props)) > 0 THEN 1 ELSE 0 END "
        "RETURN count(l) AS held",
        uid=load_uid(lid), tag=tag, props=props, database_=database)
    return records[0]["held"] > 0


def this_writer() -> str:
    """``host:pid`` of this process, as written on the loads it is writing."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _alive(writer: str | None) -> bool:
    """Whether the process named by ``writer`` may still be writing: any process on another
    host (it cannot be checked from here), a live process on this one.

    >>> _alive(this_writer()), _alive(f"{socket.gethostname()}:999999999")
    (True, False)
    """
    host, _, pid = (writer or "").rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def being_written(driver: Driver, database: str | None, lid: str | None = None) -> list[dict]:
    """The loads (all, or ``lid``) whose writer is writing now: ``{path, format, writer,
    since}``. A mark left by a process of this host that has gone (a killed load) does not
    count."""
    records, _, _ = driver.execute_query(
        "MATCH (l:Load) WHERE l.writing IS NOT NULL AND ($uid IS NULL OR l.uid = $uid) "
        "RETURN l.path AS path, l.format AS format, l.writer AS writer, "
        "l.writing_since AS since ORDER BY l.writing_since",
        uid=load_uid(lid) if lid else None, database_=database, routing_="r")
    return [dict(r) for r in records if _alive(r["writer"])]


def interrupt_writes(driver: Driver, database: str | None, why: str) -> int:
    """Take the write marks off every load (first step of a forced reset): each writer finds
    its mark gone when it finishes, removes what it wrote and reports ``why``."""
    records, _, _ = driver.execute_query(
        "MATCH (l:Load) WHERE l.writing IS NOT NULL "
        "REMOVE l.writing, l.writing_since, l.writer SET l.interrupted = $why "
        "RETURN count(l) AS n", why=why, database_=database)
    return records[0]["n"]


def _utc(seconds: float | None) -> str:
    """ISO 8601 UTC, ``?`` when unknown.

    >>> _utc(0), _utc(None)
    ('1970-01-01T00:00:00Z', '?')
    """
    return "?" if seconds is None else time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


class BusyError(LineageError):
    """A reset or unload refused because a load is writing."""


def _names(busy: list[dict]) -> str:
    """The loads of :func:`being_written` (or being unloaded), for a message.

    >>> _names([{"path": "/d/a.bp", "format": "pegasus-bp", "writer": "h:1", "since": 0}])
    '/d/a.bp (pegasus-bp, by process h:1 since 1970-01-01T00:00:00Z)'
    """
    return "; ".join(f"{b['path']} ({b['format']}, by process {b['writer']} since "
                     f"{_utc(b['since'])})" for b in busy)


def refuse_if_written(driver: Driver, database: str | None, action: str,
                      lid: str | None = None) -> None:
    """Raise :class:`BusyError` naming each load being written now."""
    busy = being_written(driver, database, lid)
    if busy:
        raise BusyError(f"cannot {action} while a load is writing: {_names(busy)}. Wait for "
                        "it to "
                        "finish, or stop it first; --force interrupts it (the load then "
                        "removes what it wrote and fails)")


def unload(driver: Driver, database: str | None, load_or_path: str) -> list[dict]:
    """Remove what only the named load(s) stated, and take back their claims on what other
    loads state too; each ``:Load`` keeps its history with status ``unloaded``. Raises
    :class:`LineageError` when nothing matches, :class:`BusyError` while any load is
    writing (a load writing an overlapping input could lose nodes the unload deletes);
    loads that begin meanwhile are refused (:func:`begin_write`)."""
    found = find(driver, database, load_or_path)
    if not found:
        raise LineageError(f"no load {load_or_path!r} in the graph "
                           "(see `lineage stats` for the loads and their paths)")
    out = []
    for entry in found:
        lid = entry["id"] or entry["uid"].removeprefix("load:")
        mark(driver, database, lid, {"unloading": this_writer(),
                                     "unloading_since": time.time()})
        try:
            refuse_if_written(driver, database, f"unload {entry['path']}")
            removed = release(driver, database, lid)
        finally:
            driver.execute_query("MATCH (l:Load {uid: $uid}) REMOVE l.unloading, "
                                 "l.unloading_since", uid=load_uid(lid), database_=database)
        mark(driver, database, lid, {"status": "unloaded", "unloaded_at": time.time(),
                                     "changes": json.dumps(removed, sort_keys=True)})
        out.append({**entry, **removed, "status": "unloaded"})
    return out


# ------------------------------------------------------------------ many loads at once
# The bookkeeping of :mod:`.fleet` (many small inputs written in one transaction): the same
# steps as :func:`previous`, :func:`begin_write`, :func:`end_write` and :func:`record`, one
# statement for all the inputs of a batch, a row each.

_PREVIOUS_MANY = """
UNWIND $uids AS uid
MATCH (l:Load {uid: uid})
RETURN l.uid AS uid, l.version AS version, l.sha256 AS sha256, l.status AS status,
       l.options AS options, l.writing IS NOT NULL AS marked
"""

_BEGIN_MANY = """
UNWIND $rows AS row
MERGE (l:Load {uid: row.uid})
SET l.id = row.id, l.path = row.path, l.format = row.format, l.writing = row.tag,
    l.writing_since = $now, l.writer = $writer
"""

_END_MANY = """
UNWIND $rows AS row
MATCH (l:Load {uid: row.uid}) WHERE l.writing = row.tag
REMOVE l.writing, l.writing_since, l.writer
SET l += row.props, l.times_loaded = coalesce(l.times_loaded, 0) + 1
RETURN count(l) AS held
"""

_UNMARK_MANY = """
UNWIND $rows AS row
MATCH (l:Load {uid: row.uid}) WHERE l.writing = row.tag
REMOVE l.writing, l.writing_since, l.writer
WITH l WHERE l.status IS NULL AND l.times_loaded IS NULL  // the mark made the record
DELETE l
"""

_RECORD_MANY = """
UNWIND $rows AS row
MERGE (l:Load {uid: row.uid})
SET l += row.props, l.id = row.id, l.times_loaded = coalesce(l.times_loaded, 0) + 1
"""


def previous_many(driver: Driver, database: str | None, lids: list[str]) -> dict[str, Previous]:
    """:func:`previous` of every load in ``lids``, in one question.

    >>> previous_many(driver, None, ["3f2a9c0d1e2b4a5f"])["3f2a9c0d1e2b4a5f"]  # doctest: +SKIP
    Previous(version=0, sha256=None, status=None, options=None)
    """
    records, _, _ = driver.execute_query(_PREVIOUS_MANY, uids=[load_uid(x) for x in lids],
                                         database_=database, routing_="r")
    found = {r["uid"]: Previous(r["version"] or 0, r["sha256"], r["status"], r["options"],
                                r["marked"]) for r in records}
    return {lid: found.get(load_uid(lid), Previous()) for lid in lids}


def begin_writes(driver: Driver, database: str | None, marks: list[dict]) -> None:
    """Mark many loads as being written, in one transaction: ``marks`` are ``{lid, tag,
    path, format}``. Raises :class:`BusyError` (the marks taken back, nothing written)
    while an unload is taking facts off the graph.

    The marks are committed first, and the unloads looked for after: an unload marks its
    load first and looks for writes after (:func:`unload`), so of a load and an unload
    that start together at least one sees the other and refuses; a look and then a mark
    could let both go on."""
    rows = [{"uid": load_uid(m["lid"]), "id": m["lid"], "tag": m["tag"],
             "path": redact_props({"path": m["path"]})["path"], "format": m["format"]}
            for m in marks]
    driver.execute_query(_BEGIN_MANY, rows=rows, now=time.time(), writer=this_writer(),
                         database_=database)
    busy = unloads_in_progress(driver, database)
    if busy:
        unmark(driver, database, marks)
        what = rows[0]["path"] if len(rows) == 1 else f"{len(rows)} inputs"
        raise BusyError(f"cannot load {what} while {_names(busy)} is being unloaded: load "
                        f"{'it' if len(rows) == 1 else 'them'} again when the unload has "
                        f"finished (nothing of {'it' if len(rows) == 1 else 'them'} was "
                        "written)")


def end_writes(tx, finished: list[dict]) -> int:
    """In the batch's write transaction ``tx``: :func:`end_write` of every ``{lid, tag,
    props}``; returns how many marks were still there (fewer: a forced reset took some)."""
    rows = [{"uid": load_uid(f["lid"]), "tag": f["tag"], "props": _stored(f["props"])}
            for f in finished]
    return tx.run(_END_MANY, rows=rows).single()["held"] if rows else 0


def unmark(driver: Driver, database: str | None, marks: list[dict]) -> None:
    """Take off the marks of :func:`begin_writes` (``{lid, tag}``) after a batch that did
    not commit, and the records the marks made (a load never recorded before)."""
    rows = [{"uid": load_uid(m["lid"]), "tag": m["tag"]} for m in marks]
    driver.execute_query(_UNMARK_MANY, rows=rows, database_=database)


def record_many(tx, records: list[dict]) -> None:
    """In transaction ``tx``: :func:`record` of every ``{lid, props}``."""
    rows = [{"uid": load_uid(r["lid"]), "id": r["lid"], "props": _stored(r["props"])}
            for r in records]
    if rows:
        tx.run(_RECORD_MANY, rows=rows).consume()


def _stored(props: dict[str, Any]) -> dict[str, Any]:
    """A load's properties as they are stored: ``None`` left out, secrets redacted."""
    return redact_props({k: v for k, v in props.items() if v is not None})


_SUMMARY = """
MATCH (l:Load)
WITH coalesce(l.source, '?') AS source,
     CASE WHEN l.writing IS NOT NULL THEN 'writing' ELSE coalesce(l.status, 'unfinished') END
       AS status, CASE WHEN l.writing IS NOT NULL THEN l.writer END AS writer, l
RETURN source, status, writer, count(l) AS inputs,
       sum(coalesce(l.node_records, 0) + coalesce(l.edge_records, 0)) AS elements,
       max(l.finished_at) AS last_finished_at
"""
#: the status :func:`summary` gives a load whose writer was stopped while it wrote
STOPPED = "stopped while writing"



def summary(driver: Driver, database: str | None) -> list[dict]:
    """The loads counted by source and status: ``{source, status, inputs, elements (node
    and relationship records they stated), last_finished_at (epoch seconds)}``, the most
    inputs first.

    >>> summary(driver, None)[0]                                     # doctest: +SKIP
    {'source': 'xalt', 'status': 'loaded', 'inputs': 1000, 'elements': 13000, ...}
    """
    records, _, _ = driver.execute_query(_SUMMARY, database_=database, routing_="r")
    rows: dict[tuple[str, str], dict] = {}
    for r in records:
        status = r["status"]
        if status == "writing" and not _alive(r["writer"]):
            status = STOPPED  # its mark stands, its process is gone: load it again
        row = rows.setdefault((r["source"], status), {
            "source": r["source"], "status": status, "inputs": 0, "elements": 0,
            "last_finished_at": None})
        row["inputs"] += r["inputs"]
        row["elements"] += r["elements"]
        if r["last_finished_at"] is not None:
            row["last_finished_at"] = max(row["last_finished_at"] or 0, r["last_finished_at"])
    return sorted(rows.values(), key=lambda x: (-x["inputs"], x["source"], x["status"]))
