"""Loading: inputs -> formats -> records -> spool -> writer -> graph, plus a Load record.

Each input is read completely before its relationships are written: records go to a spool
(:mod:`.spool`: checked, on disk, memory stays flat for inputs of any size), so a malformed
input raises its :class:`~lineage.errors.ParseError` with nothing of that input in the graph.
The spool is then written nodes first, edges second, in batched managed transactions; the
first load of a large file writes its nodes while it is still being read instead
(:mod:`.early_nodes`), and a malformed record then takes them off again before the error is
raised. Every input is recorded as a ``:Load`` node (source, format, path, sha256, counts,
time); reloading the same content updates that node and leaves the lineage graph as it was.
The loop over the inputs (:func:`each_input`) is the bulk load's too.

>>> first_result(Input("/x/unknown.bin", None, False)).status
'unrecognised'
"""

from __future__ import annotations

import errno
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

from neo4j.exceptions import DriverError, Neo4jError

from .. import model
from ..errors import (InputsFailed, LineageError, LoadInterrupted, ParseError, WholeInputError,
                      WriteFailed)
from ..model.records import as_json
from ..redact import redact_url
from ..sources import registry as loaders
from ..sources.base import LoadReport
from ..sources.options import LoadOptions
from . import claims, loads, reader_process
from .collector import fewer_collections
from .early_nodes import EarlyNodes, EarlyWriteFailed
from .inputs import Input, expand, identity, is_url, sha256_of, shown
from .spool import Spool
from .writer import (Writer, WriteStats, agreement_conflicts, identity_conflicts)

#: ``progress(event, info)``: "start" (an input), "records" (read so far), "done" (its
#: result, ``LoadResult.as_dict()``); in a bulk load past its fold's budget, a "done" with
#: ``pending`` true is followed by "folded" with the input's final write counts; a bulk
#: load announces its steps after the inputs ("step", with a ``message``)
Progress = Callable[[str, dict], None]


@dataclass
class LoadResult:
    """The outcome of loading one input."""

    path: str
    format: str | None
    source: str | None
    status: str  # loaded | unchanged | failed | unrecognised | unreadable | empty
    sha256: str | None = None
    nodes: dict[str, int] = field(default_factory=dict)
    edges: dict[str, int] = field(default_factory=dict)
    write: WriteStats = field(default_factory=WriteStats)
    report: dict = field(default_factory=dict)
    seconds: float = 0.0
    error: str | None = None
    changes: dict = field(default_factory=dict)
    #: what names the input in the graph (``:Load.path``): its absolute path, or its URL
    input: str | None = None

    def as_dict(self) -> dict:
        return {
            "path": self.path,
            "format": self.format,
            "source": self.source,
            "status": self.status,
            "sha256": self.sha256,
            "node_records": sum(self.nodes.values()),
            "edge_records": sum(self.edges.values()),
            "nodes": self.nodes,
            "edges": self.edges,
            "unresolved_edges": self.write.unresolved_edges,
            "unresolved_examples": self.write.unresolved_examples,
            "skipped": self.report.get("skipped", {}),
            "unknown": self.report.get("unknown", {}),
            "warnings": self.report.get("warnings", []),
            "warning_count": self.report.get("warning_count", 0),
            "seconds": round(self.seconds, 3),
            "error": self.error,
            "changes": self.changes,
        }


def parse_to_spool(item: Input, report: LoadReport, spool: Spool | None = None) -> Spool:
    """Parse one input completely into a spool (raises on malformed input in strict mode);
    ``spool`` is one to use instead of a new one (the bulk load's, folding as it goes)."""
    spool = Spool() if spool is None else spool
    try:
        assert item.format is not None
        source = Path(item.path) if not is_url(item.path) else item.path
        with fewer_collections():
            # a large file is read on a second core, in a child process (reader_process)
            if reader_process.worth_a_process(item.format, source, report.options):
                rows = reader_process.records(item.format.parse, source, report)
                add = spool.add_row
            else:
                rows = item.format.parse(source, report)
                add = spool.add
            try:
                for number, record in enumerate(rows, 1):
                    if number % 1000 == 0:
                        report.tick(number)
                    try:
                        add(record)
                    except (TypeError, model.ModelError) as exc:  # strict: nothing of the input
                        report.skip(redact_url(item.path), f"graph record {number}",
                                    "a record the graph model allows", str(exc))
            finally:  # now, not when the traceback holding it goes: a reader process ends
                getattr(rows, "close", lambda: None)()
        spool.seal()
    except model.ModelError as exc:  # a reader could not build a uid: a missing or odd id
        spool.close()
        raise WholeInputError(redact_url(item.path), None,
                              "ids of the kinds the model declares (a required field or column "
                              "is missing or of the wrong type)", str(exc)) from exc
    except OSError as exc:
        spool.close()
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise LineageError(f"{redact_url(item.path)}: no space left for the spool in "
                               f"{tempfile.gettempdir()} (set TMPDIR to a larger disk); "
                               "nothing of this input was written") from exc
        raise
    except (ValueError, TypeError, OverflowError) as exc:  # a value of the wrong type
        spool.close()
        raise WholeInputError(redact_url(item.path), None,
                              f"values of the types a {item.format.name} input holds",
                              f"{type(exc).__name__}: {redact_url(str(exc))}") from exc
    except BaseException:
        spool.close()
        raise
    return spool


# ------------------------------------------------------------------ loading one input
#: LoadReport summary keys stored on :Load as properties of their own, not as counts
_NOT_COUNTS = {"path", "format", "skipped", "unknown", "warnings"}


def load_props(result: LoadResult, started: float) -> dict:
    """The properties of an input's ``:Load`` node after an attempt that began at
    ``started`` (epoch seconds)."""
    return {
        "source": result.source, "format": result.format,
        "path": result.input or result.path,
        "status": result.status, "last_attempt": result.status, "started_at": started,
        "finished_at": time.time(), "seconds": round(result.seconds, 3),
        "node_records": sum(result.nodes.values()),
        "edge_records": sum(result.edges.values()),
        "unresolved_edges": result.write.unresolved_edges,
        # records per kind and relationship, and what the reader counted by reason
        # (duplicate run uuids, records per collection, redacted values, ...)
        "counts": as_json({"nodes": result.nodes, "edges": result.edges,
                           **{k: v for k, v in result.report.items() if k not in _NOT_COUNTS}}),
        "skipped": as_json(result.report.get("skipped", {})),
        "unknown": as_json(result.report.get("unknown", {})),
        "warnings": as_json(result.report.get("warnings", [])[:20]),
        "error": result.error,
    }


def first_result(item: Input) -> LoadResult:
    """An input's result before it is read: ``unrecognised`` (no format), ``unreadable``
    (with the reason), else still ``unrecognised`` until the load says more."""
    fmt = item.format
    result = LoadResult(redact_url(item.path), fmt.name if fmt else None,
                        fmt.source if fmt else None, "unrecognised")
    if item.problem:
        result.status, result.error = "unreadable", item.problem
    elif fmt is not None:
        result.input = identity(item)
    return result


def load_input(writer: Writer, item: Input, lenient: bool = False,
               options: LoadOptions | None = None,
               progress: Progress | None = None) -> LoadResult:
    """Parse one input fully, then write it under a new version of its load.

    On a parse error nothing of it stays written; if the write fails midway, the new
    version's tag is taken off again (what it alone wrote is removed) and the load says
    ``failed``. The first load of a large file writes its nodes while it is still being
    read (:mod:`lineage.load.early_nodes`); a parse error then also takes its tag off again.
    An input whose content is unchanged since its last successful load is not written again
    (status ``unchanged``). After a successful write, what only earlier versions stated is
    removed and the load's ``changes`` say how much.
    """
    started, t0 = time.time(), time.perf_counter()
    fmt = item.format
    result = first_result(item)
    if item.problem or fmt is None:
        return result
    driver, database = writer.driver, writer.database
    lid = loads.load_id(fmt.name, identity(item))
    before = loads.previous(driver, database, lid)
    options = load_options(options, lenient)
    if not is_url(item.path):
        result.sha256 = sha256_of(item.path)
        if ((result.sha256, "loaded", options.as_json())
                == (before.sha256, before.status, before.options)):
            result.status, result.seconds = "unchanged", time.perf_counter() - t0
            loads.record(driver, database, lid, {"last_attempt": "unchanged",
                                                 "finished_at": time.time()})
            return result
    report = LoadReport(item.path, fmt.name, lenient=options.lenient, options=options)
    if progress:
        report.on_progress = lambda records, read: progress(
            "records", {"path": item.path, "records": records, "bytes": read})
    tag = loads.tag_of(lid, before.version + 1)
    if before.marked and not loads.being_written(driver, database, lid):
        loads.release(driver, database, lid, only=tag)  # what a stopped attempt wrote
    early = None
    if overlapping(item, options, before) and not fmt.agree:  # agree: checked before writing
        early = EarlyNodes(writer, tag, lambda: loads.begin_write(
            driver, database, lid, tag, result.input, result.format),
            edges=edges_while_reading(fmt.source))
    try:
        spool = parse_to_spool(item, report, Spool(early=early))
    except BaseException as exc:
        result.report, result.seconds = report.summary(), time.perf_counter() - t0
        if early is not None and early.started:  # nodes may be written: take them off
            early.abort()
            cause = exc.cause if isinstance(exc, EarlyWriteFailed) else exc
            raised = _abandon(driver, database, lid, tag, before, result, cause)
        elif isinstance(exc, ParseError):
            result.status, result.error = "failed", str(exc)
            _record_attempt(driver, database, lid, before, result, started)
            raised = cause = exc
        else:
            raise
        if isinstance(raised, ParseError):
            raised.result = result
        if raised is exc:
            raise
        raise raised from (None if raised is cause else cause)
    try:
        _write_version(writer, lid, before, spool, result, report, early,
                       lambda: _final_props(result, started, t0, options, lid, before),
                       agree=fmt.source if fmt.agree else None)
    finally:
        spool.close()
    if result.status == "empty":
        loads.record(driver, database, lid, _final_props(result, started, t0, options, lid,
                                                         before))
    return result


def _final_props(result: LoadResult, started: float, t0: float, options: LoadOptions,
                 lid: str, before: "loads.Previous") -> dict:
    result.seconds = time.perf_counter() - t0
    props = load_props(result, started)
    if result.status == "loaded":
        props.update(sha256=result.sha256, version=before.version + 1,
                     options=options.as_json(),
                     tag=loads.tag_of(lid, before.version + 1), changes=as_json(result.changes))
    return props


def overlapping(item: Input, options: LoadOptions, before: "loads.Previous") -> bool:
    """Whether ``item``'s nodes are written while it is read: the first version of its load,
    or one after an unload (nothing of an earlier one to clear first), a file of
    ``options.overlap_bytes`` or more.

    >>> item = Input(__file__, None, True)
    >>> overlapping(item, LoadOptions(overlap_bytes=0), loads.Previous())
    True
    >>> overlapping(item, LoadOptions(overlap_bytes=0), loads.Previous(version=1))
    False
    """
    limit = options.overlap_bytes
    if limit is None or not before.left_nothing or is_url(item.path):
        return False
    try:
        return os.stat(item.path).st_size >= limit
    except OSError:
        return False


def edges_while_reading(source: str) -> bool:
    """Whether an overlapping load of ``source`` writes its relationships while reading
    too: unless the source has kinds with identity properties (their nodes, and whatever
    hangs off them, are checked against other loads after the reading).

    >>> edges_while_reading("chimbuko"), edges_while_reading("xalt")
    (True, False)
    """
    return not any(kind.identity for kind in model.NODE_KINDS.values()
                   if kind.source == source)


def load_options(options: LoadOptions | None, lenient: bool) -> LoadOptions:
    """The options of a load, every source option set (its default unless given) and
    checked against its declaration."""
    return loaders.load_options(options, lenient=True if lenient else None)


def _write_version(writer: Writer, lid: str, before: "loads.Previous", spool: Spool,
                   result: LoadResult, report: LoadReport, early: EarlyNodes | None,
                   final_props: Callable[[], dict], agree: str | None = None) -> None:
    """Write the spooled records under a new version (after the nodes ``early`` is
    writing, if it started); the load's final record is written in one transaction with
    taking off the write mark, so a forced reset either comes before it (this load fails
    and removes what it wrote) or deletes it whole. ``agree``: the source of a format whose
    nodes must agree with the graph (see :func:`_conflicts`)."""
    tag = loads.tag_of(lid, before.version + 1)
    began = early is not None and early.started
    result.nodes, result.edges = spool.node_counts, spool.edge_counts
    result.report = report.summary()
    if not began and not result.nodes and not result.edges:  # it states nothing (any more)
        result.status = "empty"
        result.changes = loads.release(writer.driver, writer.database, lid)
        return
    driver, database = writer.driver, writer.database
    def refused() -> tuple[set[str], set[str]]:
        if agree is not None:
            return _conflicts(writer, spool, lid, report, agree)
        found = _duplicates(writer, spool, lid, report)
        only = hanging_off(spool, found)
        if only:
            report.extra["nodes_only_of_duplicates"] = len(only)
        return found | only, found

    if not began:
        duplicates, cut_off = refused()
        loads.begin_write(driver, database, lid, tag, result.input, result.format)
    try:
        if began:
            assert early is not None
            result.write.add(early.finish())
            duplicates, cut_off = refused()
        result.report = report.summary()
        result.write.add(writer.write_nodes(
            (n for n in spool.iter_nodes() if n.uid not in duplicates), tag))
        result.write.add(writer.write_edges(
            (e for e in spool.iter_edges()
             if e.start not in cut_off and e.end not in cut_off), tag))
        _report_conflicts(driver, database, tag, report)
        result.report = report.summary()
        # a first version (or one after an unload) has no earlier one to release, and what
        # it changed is what it wrote, asked by its uids (a watched file's increments into a
        # big graph)
        released = {} if before.left_nothing else loads.release(driver, database, lid, keep=tag)
        claims.collapse(driver, database, tag)
        if before.left_nothing and not began and _small(spool):
            uids = sorted({row[1] for row in spool.node_rows()})
            starts = sorted({row[1] for row in spool.edge_rows()})
            result.changes = loads.first_changes(driver, database, tag, uids, starts)
        else:
            result.changes = loads.changes(driver, database, lid, tag, released)
        result.status = "loaded"
        if not loads.end_write(driver, database, lid, tag, final_props()):
            raise LoadInterrupted(_interrupted(result.path))
    except BaseException as exc:
        if early is not None:
            early.abort()
        cause = exc.cause if isinstance(exc, EarlyWriteFailed) else exc
        raised = _abandon(driver, database, lid, tag, before, result, cause)
        if raised is exc:
            raise
        raise raised from (None if raised is cause else cause)


#: records of a first version whose changes are asked by its uids (more: over the graph)
FIRST_CHANGES_RECORDS = 100_000


def _small(spool: Spool) -> bool:
    return (sum(spool.node_counts.values()) + sum(spool.edge_counts.values())
            <= FIRST_CHANGES_RECORDS)


def _abandon(driver, database, lid: str, tag: str, before: "loads.Previous",
             result: LoadResult, exc: BaseException) -> BaseException:
    """After a write of version ``tag`` began and ``exc`` ended it: take the write mark off,
    remove what this version alone wrote, record the failed attempt. Returns what to raise:
    ``exc``, or a :class:`LoadInterrupted` when a forced reset took the mark meanwhile (a
    parse error stays the news: the input is malformed either way)."""
    raised = exc
    if (not isinstance(exc, LoadInterrupted) and _mark_gone(driver, database, lid, tag)
            and not isinstance(exc, ParseError)):
        raised = LoadInterrupted(_interrupted(result.path))
    if isinstance(raised, LoadInterrupted):  # the graph no longer holds earlier versions
        before = loads.Previous()
    if isinstance(raised, Neo4jError):  # the server's refusal, said as this load's failure
        raised = WriteFailed(f"{result.path}: write failed: {raised.message or raised} "
                             f"({raised.code}); what this load wrote was removed again")
    result.status = "failed"
    result.error = (str(raised) if isinstance(raised, (LoadInterrupted, ParseError, WriteFailed))
                    else f"write failed: {raised}")
    try:  # retract what this version wrote, so no partial input stays in the graph
        loads.release(driver, database, lid, only=tag)
    finally:
        _record_attempt(driver, database, lid, before, result, time.time())
    return raised


def _interrupted(path: str) -> str:
    return (f"{path}: the graph was reset (reset --force) while this input was being "
            "written; what this load wrote was removed again: load it again")


def _mark_gone(driver, database, lid: str, tag: str) -> bool:
    """After a failed write: True when the write mark was taken off (a forced reset), so
    the failure is the reset's doing; else the mark is taken off here."""
    try:
        return not loads.end_write(driver, database, lid, tag)
    except Exception:  # the server is gone: the write error itself is the news
        return False


def _duplicates(writer: Writer, spool: Spool, lid: str, report: LoadReport) -> set[str]:
    """uids this input states that another input already stated as something else (an XALT
    run uuid reused by another program): not written, counted and warned about; the first
    input's node stays, as XALT's own loader keeps the first record of a run uuid."""
    if not any(model.NODE_KINDS[label].identity for label in spool.node_counts):
        return set()
    found = identity_conflicts(writer.driver, writer.database, spool.iter_nodes(), f"{lid}:")
    note_duplicates(report, found)
    return set(found)


def note_duplicates(report: LoadReport, found: dict[str, list]) -> None:
    """Warn of the uids ``found`` (uid -> ``[[property, stored, this input's], ...]``) that
    another input stated as something else, and count them.

    >>> r = LoadReport("/d/b.json", "xalt-json")
    >>> note_duplicates(r, {"xalt:run:u": [["exec_path", "/a", "/b"]]}); r.extra
    {'duplicate_uids_of_other_inputs': 1}
    """
    for uid, differ in sorted(found.items())[:20]:
        what = "; ".join(f"{k} {old!r} there, {new!r} here" for k, old, new in differ)
        report.warn(f"{report.path}: {uid} was already loaded from another input as something "
                    f"else ({what}): this input's record is a duplicate and was not loaded")
    if found:
        report.extra["duplicate_uids_of_other_inputs"] = len(found)


def _report_conflicts(driver, database, tag: str, report: LoadReport) -> None:
    """Warn of the values this version states otherwise than another load (the newest load
    wins: :mod:`.claims`), and count the elements."""
    note_conflicts(report, claims.conflicts(driver, database, tag))


def note_conflicts(report: LoadReport, found: list[dict], elements: int | None = None) -> None:
    """Warn of the conflicts ``found`` (rows of :func:`lineage.load.claims.conflicts` of
    one load version, or the first of them when ``elements`` counts the elements) and count
    the elements."""
    if not found:
        return
    for line in claims.describe(found[:20]):
        report.warn(f"{report.path}: {line}")
    report.extra["conflicting_claims"] = (len({row["of"] for row in found})
                                          if elements is None else elements)


def hanging_off(spool: Spool, refused: set[str]) -> set[str]:
    """The nodes of ``spool`` that hang off refused nodes only (the user, host, program and
    build of a duplicate XALT record): not written either, so a refused record leaves nothing
    of itself in the graph. With the refused nodes taken out, the input's nodes fall into
    connected parts; a part that touched a refused node and holds no run of its own (a
    kind declared ``run``) goes with it. Memory holds the input's uids (only when a node was
    refused)."""
    if not refused:
        return set()
    parent: dict[str, str] = {}

    def root(uid: str) -> str:
        parent.setdefault(uid, uid)
        while parent[uid] != uid:
            parent[uid] = parent[parent[uid]]
            uid = parent[uid]
        return uid

    touched: set[str] = set()
    for edge in spool.iter_edges():
        ends = [u for u in (edge.start, edge.end) if u not in refused]
        if len(ends) == 2:
            parent[root(ends[0])] = root(ends[1])
        elif len(ends) == 1:
            touched.add(ends[0])
    anchored = {root(n.uid) for n in spool.iter_nodes()
                if n.uid not in refused and n.kind.run}
    gone = {root(uid) for uid in touched} - anchored
    return {uid for uid in list(parent) if root(uid) in gone} | {
        uid for uid in touched if root(uid) in gone}


def _conflicts(writer: Writer, spool: Spool, lid: str, report: LoadReport,
               source: str) -> tuple[set[str], set[str]]:
    """For an input that may name nodes other loads wrote but never change them (a PROV
    document): the uids whose values here differ from what another load stated (not
    written, counted and warned about), and of those, the nodes of other sources (their
    relationships from this input are not written either: nothing is stated onto them; a
    node of the input's own source, a PROV element named by its URI, is the same thing
    whatever another document said of it, and keeps this input's relations)."""
    found = agreement_conflicts(writer.driver, writer.database, spool.iter_nodes(), f"{lid}:")
    for uid, differ in sorted(found.items())[:20]:
        what = "; ".join(f"{k} {old!r} there, {new!r} here" for k, old, new in differ[:3])
        more = f" (and {len(differ) - 3} more)" if len(differ) > 3 else ""
        report.warn(f"{report.path}: {uid} was already stated otherwise by another input "
                    f"({what}{more}): this input may not change it, its values here were "
                    "not loaded")
    if found:
        report.extra["nodes_stated_otherwise_by_other_inputs"] = len(found)
    others = {uid for uid in found
              if getattr(model.kind_of_uid(uid), "source", None) != source}
    return set(found), others


def _record_attempt(driver, database, lid: str, before: "loads.Previous", result: LoadResult,
                    started: float) -> None:
    """A failed attempt: the load keeps its last good version's status, sha and tag."""
    props = load_props(result, started)
    if before.status == "loaded":
        props.pop("status")
    loads.record(driver, database, lid, props)


def each_input(paths: Iterable[str | os.PathLike], source: str,
               load_one: Callable[[Input], tuple[LoadResult, dict]],
               progress: Progress | None, fail_fast: bool, failures: list[ParseError],
               ) -> Iterator[LoadResult]:
    """Every input under ``paths`` through ``load_one`` (its result, and what to add to its
    "done" event), with the progress events around each: each result in turn, and the parse
    error of each input that failed appended to ``failures`` (each carrying its result as
    ``.result``; with ``fail_fast``, or without a result, the first is raised at once). Both
    loads walk their inputs here (:func:`load`, :func:`lineage.bulk.bulk_load`)."""
    for item in expand(paths, source):
        if progress:
            progress("start", {"path": item.path,
                               "format": item.format.name if item.format else None})
        result, done, failure = attempt(item, load_one, fail_fast)
        if failure is not None:
            failures.append(failure)
        if progress:
            progress("done", {**result.as_dict(), **done})
        yield result


def attempt(item: Input, load_one: Callable[[Input], tuple[LoadResult, dict]],
            fail_fast: bool) -> tuple[LoadResult, dict, ParseError | None]:
    """``load_one(item)``, its failures sorted: ``(result, what to add to its "done"
    event, the parse error when it failed)``. An input that cannot be read is ``unreadable``;
    a reader that fails on it fails it as a :class:`WholeInputError`; a parse error without
    a result, with ``fail_fast``, or anything else (the server, the graph) is raised."""
    try:
        try:
            result, done = load_one(item)
        except (LineageError, Neo4jError, DriverError, MemoryError):
            raise  # a parse error (below), the server, the graph: not this input's alone
        except OSError as exc:  # it could not be read: reported, the others are loaded
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                raise
            result, done = first_result(item), {}
            result.status = "unreadable"
            result.error = f"cannot be read ({exc.strerror or exc}): not loaded"
        except Exception as exc:  # a reader failed on it: this input fails, not the load
            error = WholeInputError(redact_url(shown(item.path)), None,
                                    "an input its reader can read",
                                    f"{type(exc).__name__}: {shown(str(exc))[:300]}")
            error.result = first_result(item)
            error.result.status, error.result.error = "failed", str(error)
            raise error from exc
    except ParseError as exc:
        if fail_fast or not hasattr(exc, "result"):
            raise
        return exc.result, {}, exc
    return result, done, None


def raise_failures(failures: list[ParseError], results: list[LoadResult]) -> None:
    """After every input was tried: one failure raised as itself, several as
    :class:`InputsFailed`, each carrying every input's result; nothing when none failed."""
    if len(failures) == 1:
        failures[0].results = results
        raise failures[0]
    if failures:
        raise InputsFailed(failures, results)
