"""Many small inputs, one stream of writes: XALT writes a file per run, a centre millions.

Each input is still a load of its own (its ``:Load``, version, tag and claims: unloaded,
reloaded and recorded one by one, :mod:`.loads`), but the first loads of small files are
written in batches: up to :data:`BATCH_INPUTS` inputs (:data:`BATCH_BYTES` of files) in one
transaction, each statement carrying the rows of all of them. A batch costs a fixed number
of round trips, whatever its inputs:

- before it: what the graph remembers of the inputs (one question per
  :data:`WINDOW` inputs), and their write marks (one transaction);
- in its transaction: what the graph holds of the elements the batch names (one statement,
  and one per relationship type whose claims it may need), the claims (one), the nodes
  (one per :data:`NODE_ROWS`), the relationships (one per type), the conflicts (one) and
  every input's ``:Load`` record (two).

What the inputs state together is worked out here, input after input in their order, as
the writes one by one would have left it (:class:`Plan`): properties folded (the later
input wins), labels added up, tags appended, claims kept where two loads state an element
differently, relationships whose ends no input before it stated counted unresolved, XALT run
records that another input stated as something else refused. An input whose identity
uids (an XALT run uuid) an earlier input of the batch states starts a new batch, so the
graph answers for it.

Every input is parsed whole before the batch is written, so a malformed one is reported
(its file, the record and what was expected) and the others are written; the batch
commits whole or not at all, each input's writes with its bookkeeping. Reloads of changed
inputs, URLs, PROV documents, large files and a load of a single input go through
:func:`~.pipeline.load_input` one by one, in their place in the order.

>>> batchable(Path(__file__).parent / "missing.json", Previous(), FILE_BYTES)
False
"""

from __future__ import annotations

import os
import time
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from itertools import islice
from pathlib import Path
from typing import Iterable, Iterator

from neo4j.exceptions import Neo4jError

from .. import model
from ..errors import LoadInterrupted, ParseError, WriteFailed
from ..model.records import as_json
from ..sources.base import LoadReport
from ..sources.options import LoadOptions
from . import claims, loads
from .claims import CLAIMED_TYPES, CREATE_CLAIMS
from .collector import fewer_collections
from .inputs import Input, expand, identity, is_url, sha256_of
from .loads import Previous
from .pipeline import (LoadResult, Progress, attempt, each_input, first_result, hanging_off,
                       load_input, load_options, raise_failures,
                       load_props, note_conflicts, note_duplicates, parse_to_spool)
from .spool import Spool
from .statements import (EDGE_BATCH_STATEMENTS, EDGE_STATE_STATEMENTS, NODE_BATCH_STATEMENT,
                         NODE_STATE_STATEMENT, Rows)
from .writer import Writer, WriteStats, ensure_schema

#: Inputs asked about at once (what the graph remembers of their loads)
WINDOW = 512
#: Inputs written in one transaction, at most
BATCH_INPUTS = 256
#: Bytes of input files written in one transaction, at most
BATCH_BYTES = 16 << 20
#: A file this large or larger is loaded on its own (:func:`~.pipeline.load_input`)
FILE_BYTES = 1 << 20
#: Rows per statement of a batch's writes
NODE_ROWS = 5000
CLAIM_ROWS = 2000
EDGE_ROWS = 10000


def batchable(path: Path, before: Previous, limit: int = FILE_BYTES) -> bool:
    """Whether the input at ``path`` may be written in a batch: a file smaller than
    ``limit`` that no load has stated anything of (its first version, or none left) and
    no write mark names (a load stopped while writing it may have left its tag)."""
    if not before.left_nothing or before.marked:
        return False
    try:
        return os.stat(path).st_size < limit
    except OSError:
        return False


class MemoryStore:
    """A spool's store in memory (a small input's rows; see :class:`~.spool.DiskStore`)."""

    def __init__(self):
        self.nodes: list[tuple] = []
        self.edges: list[tuple] = []

    def put_nodes(self, rows: list[tuple]) -> None:
        self.nodes.extend(rows)

    def put_edges(self, rows: list[tuple]) -> None:
        self.edges.extend(rows)

    def seal(self) -> None:
        """Every row was put."""

    def node_rows(self) -> Iterator[tuple]:
        return iter(self.nodes)

    def edge_rows(self) -> Iterator[tuple]:
        return iter(self.edges)

    def close(self) -> None:
        self.nodes, self.edges = [], []


@dataclass
class Entry:
    """One input of a batch: parsed and folded (``nodes``: uid -> [labels, props, records];
    ``edges``: (type, start, end, key) -> [props, records]), or only to be recorded
    (``record``: the props of its ``:Load``, an unchanged or a failed input)."""

    item: Input
    result: LoadResult
    lid: str
    started: float
    seconds: float = 0.0
    before: Previous = field(default_factory=Previous)
    options: LoadOptions | None = None
    report: LoadReport | None = None
    spool: Spool | None = None
    nodes: dict = field(default_factory=dict)
    edges: dict = field(default_factory=dict)
    identities: set = field(default_factory=set)
    size: int = 0
    record: dict | None = None
    done: dict = field(default_factory=dict)

    @property
    def tag(self) -> str:
        return loads.tag_of(self.lid, self.before.version + 1)


def fold(spool: Spool) -> tuple[dict, dict, set]:
    """An input's records as its writes would store them: one row per node uid (labels
    added up, later properties win) and per relationship (its records counted); and the
    uids of kinds with identity properties."""
    kinds, nodes, edges, identities = model.NODE_KINDS, {}, {}, set()
    for label, uid, props, extra in spool.node_rows():
        kind = kinds[label]
        props = {k: v for k, v in props.items() if v is not None}
        props["kind"] = label
        labels = kind.labels + tuple(extra)
        have = nodes.get(uid)
        if have is None:
            nodes[uid] = [labels, props, 1]
        else:
            have[0] = have[0] + tuple(x for x in labels if x not in have[0])
            have[1].update(props)
            have[2] += 1
        if kind.identity:
            identities.add(uid)
    for rel, start, end, props, key in spool.edge_rows():
        props = {k: v for k, v in props.items() if v is not None}
        have = edges.get(ident := (rel, start, end, key or None))
        if have is None:
            edges[ident] = [props, 1]
        else:
            have[0].update(props)
            have[1] += 1
    return nodes, edges, identities


class Plan:
    """What a batch's inputs state together, worked out input after input from what the
    graph held (``node_state``: uid -> {held, props, labels, claimed} of the nodes it
    holds, ``held``: whether loads state them; ``edge_state``: identity -> {held, props,
    claimed}): the rows to write, the claims to create (of the batch's inputs; ``held``:
    the elements whose graph loads' claims the server makes from what it holds), and each
    input's counts and refused uids."""

    def __init__(self, entries: list[Entry], node_state: dict, edge_state: dict,
                 times: list[float]):
        self.node_rows: dict[str, dict] = {}
        self.edge_rows: dict[tuple, dict] = {}
        self.claims: list[dict] = []
        self.held_nodes: list[dict] = []  # {uid, at}
        self.held_edges: dict[tuple[str, bool], list[dict]] = {}  # {start, end, key, of, at}
        self.stats: list[WriteStats] = []
        self.changes: list[dict] = []
        self.refused: list[tuple[dict, set]] = []
        nodes = {uid: {"held": s["held"], "loads": [], "props": dict(s["props"] or ()),
                       "labels": tuple(s["labels"] or ()), "claimed": s["claimed"]}
                 for uid, s in node_state.items()}
        edges = {k: {"held": s["held"], "loads": [], "props": dict(s["props"] or ()),
                     "claimed": s["claimed"]} for k, s in edge_state.items()}
        for entry, at in zip(entries, times):
            self._input(entry, at, nodes, edges)

    def _input(self, entry: Entry, at: float, nodes: dict, edges: dict) -> None:
        tag, stats = entry.tag, WriteStats()
        found = {uid: differ for uid in entry.identities
                 if (differ := _differ(entry.nodes[uid], nodes.get(uid)))}
        only = hanging_off(entry.spool, set(found)) if found else set()
        refused = set(found) | only
        self.refused.append((found, only))
        written = 0
        for uid, (labels, props, records) in entry.nodes.items():
            if uid in refused:
                continue
            state = nodes.setdefault(uid, {"held": False, "loads": [], "props": {},
                                           "labels": (), "claimed": False})
            if (state["held"] or state["loads"]) and (
                    state["claimed"] or not claims.same_statement(
                        state["props"], state["labels"], props, labels)):
                # another load states it otherwise: claims
                if not state["claimed"]:
                    if state["held"]:
                        self.held_nodes.append({"uid": uid, "at": at - 1})
                    self.claims.extend(claims.node_claim(uid, held, at - 1, dict(state["props"]),
                                                         state["labels"])
                                       for held in state["loads"])
                    state["claimed"] = True
                self.claims.append(claims.node_claim(uid, tag, at, dict(props), labels[1:]))
            state["props"].update(props)
            state["labels"] += tuple(x for x in labels if x not in state["labels"])
            state["loads"].append(tag)
            row = self.node_rows.setdefault(uid, {"uid": uid, "props": {}, "labels": [],
                                                  "tags": []})
            row["props"].update(props)
            row["labels"] += [x for x in labels[1:] if x not in row["labels"]]
            row["tags"].append(tag)
            stats.node_rows += records
            written += 1
        edges_written = 0
        for ident, (props, records) in entry.edges.items():
            rel, start, end, key = ident
            if start in found or end in found:
                continue
            stats.edge_rows += records
            if start not in nodes or end not in nodes:
                stats.unresolved_edges += records
                if len(stats.unresolved_examples) < 10:
                    stats.unresolved_examples.append(f"{rel} {start} -> {end}")
                continue
            stats.edges_written += records
            edges_written += 1
            state = edges.get(ident)
            if state is None:
                state = edges[ident] = {"held": False, "loads": [], "props": {},
                                        "claimed": False}
            elif (rel in CLAIMED_TYPES and (state["held"] or state["loads"])
                  and (state["claimed"] or props != state["props"])):
                if not state["claimed"]:
                    if state["held"]:
                        row = {"start": start, "end": end, "key": key, "at": at - 1,
                               "of": claims.edge_of(rel, start, end, key)}
                        self.held_edges.setdefault((rel, bool(key)), []).append(row)
                    self.claims.extend(claims.edge_claim(rel, start, end, key, held, at - 1,
                                                         dict(state["props"]))
                                       for held in state["loads"])
                    state["claimed"] = True
                self.claims.append(claims.edge_claim(rel, start, end, key, tag, at,
                                                     dict(props)))
            state["props"].update(props)
            state["loads"].append(tag)
            row = self.edge_rows.get(ident)
            if row is None:
                row = self.edge_rows[ident] = {"start": start, "end": end, "props": {},
                                               "tags": []}
                if key:
                    row["key"] = key
            row["props"].update(props)
            row["tags"].append(tag)
        self.stats.append(stats)
        self.changes.append({"nodes": written, "edges": edges_written, "nodes_removed": 0,
                             "edges_removed": 0})


def _differ(mine: list, there: dict | None) -> list:
    """The identity values of a node row (``[labels, props, records]``) that the node
    another load stated holds otherwise: ``[[property, stored, this input's], ...]``."""
    if there is None or not (there["held"] or there["loads"]):
        return []
    props = mine[1]
    kind = model.NODE_KINDS[props["kind"]]
    return [[k, there["props"].get(k), props[k]] for k in kind.identity
            if props.get(k) is not None and there["props"].get(k) is not None
            and there["props"][k] != props[k]]


class Interrupted(Exception):
    """A forced reset took the write marks of a batch while it was written."""


class Batch:
    """The inputs waiting to be written together, in their order. A full batch is written
    by a thread of its own while the next one is read (one batch in flight: Neo4j writes
    while Python parses); results are reported here, in their order, once written."""

    def __init__(self, writer, progress: Progress | None):
        self.writer, self.progress = writer, progress
        self.entries: list[Entry] = []
        self.pending: list[tuple[LoadResult, dict]] = []  # every input's result, in order
        self.reported: list[LoadResult] = []  # written and reported, not yet taken
        self.identities: set[str] = set()
        self.size = 0
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lineage-batch")
        self._flight: tuple[Future, list] | None = None  # the batch being written

    def full(self, entry: Entry) -> bool:
        """Whether ``entry`` must start a new batch."""
        written = [e for e in self.entries if e.record is None]
        return (len(written) >= BATCH_INPUTS or self.size + entry.size > BATCH_BYTES
                or not self.identities.isdisjoint(entry.identities))

    def add(self, entry: Entry) -> None:
        if self.full(entry):
            self.flush(wait=False)
        self.entries.append(entry)
        self.identities |= entry.identities
        self.size += entry.size
        self.pending.append((entry.result, entry.done))

    def add_result(self, result: LoadResult, done: dict) -> None:
        """An input's final result (nothing to write): reported in its place."""
        self.pending.append((result, done))

    def flush(self, wait: bool = True) -> None:
        """Write the batch (one transaction, after the one in flight) and report its
        inputs, in their order; ``wait=False``: return while it is written."""
        entries, self.entries = self.entries, []
        self.identities, self.size = set(), 0
        pending, self.pending = self.pending, []
        try:
            self.settle()
        except BaseException:
            _close(entries)
            raise
        self._flight = (self._pool.submit(self._write, entries), pending)
        if wait:
            self.settle()

    def _write(self, entries: list[Entry]) -> None:
        try:
            if entries:
                write_batch(self.writer, entries)
        finally:
            _close(entries)

    def settle(self) -> None:
        """Wait for the batch in flight (its error is raised here) and report it."""
        if self._flight is None:
            return
        future, pending = self._flight
        self._flight = None
        future.result()
        for result, done in pending:
            self.reported.append(result)
            if self.progress:
                self.progress("done", {**result.as_dict(), **done})

    def take(self) -> list[LoadResult]:
        """The results reported since the last call, in their order (then forgotten)."""
        taken, self.reported = self.reported, []
        return taken

    def close(self) -> None:
        """Stop the writing thread once the batch in flight is written (its error, if
        any, raised when nothing else is)."""
        try:
            if self._flight is not None:
                self._flight[0].exception()  # waits: nothing is written after load returns
        finally:
            self._pool.shutdown(wait=True)


def _close(entries: list[Entry]) -> None:
    for entry in entries:
        if entry.spool is not None:
            entry.spool.close()
        entry.spool = None


def write_batch(writer, entries: list[Entry]) -> None:
    """Write the inputs of ``entries`` in one transaction (their results say how it went):
    their write marks first; if the transaction fails on the server's refusal, each input
    is loaded again on its own, so one input's refusal is its own."""
    driver, database = writer.driver, writer.database
    written = [e for e in entries if e.record is None]
    marks = [{"lid": e.lid, "tag": e.tag, "path": e.result.input, "format": e.result.format}
             for e in written]
    if marks:
        loads.begin_writes(driver, database, marks)
    t0 = time.perf_counter()
    try:
        with driver.session(database=database) as session:
            outcome = session.execute_write(_write, entries)
    except Interrupted:
        loads.unmark(driver, database, marks)
        for entry in written:
            entry.result.status = "failed"
            entry.result.error = (f"{entry.result.path}: the graph was reset (reset --force) "
                                  "while this input was being written; nothing of it was "
                                  "written: load it again")
        raise LoadInterrupted(f"{len(written)} inputs were being written when the graph was "
                              f"reset (reset --force); nothing of them was written: load "
                              "them again") from None
    except Neo4jError as exc:
        if marks:
            loads.unmark(driver, database, marks)
        _one_by_one(writer, entries, exc)
        return
    share = (time.perf_counter() - t0) / max(len(entries), 1)
    for entry, (status, stats, changes, report, _) in zip(entries, outcome):
        result = entry.result
        if status is None:
            continue
        result.status, result.write, result.changes = status, stats, changes
        result.report = report
        result.seconds = entry.seconds + share


def _one_by_one(writer, entries: list[Entry], exc: Neo4jError) -> None:
    """After the server refused a batch: each of its inputs on its own, as
    :func:`~.pipeline.load_input` loads them (a refused one says why)."""
    for entry in entries:
        if entry.record is not None:
            loads.record(writer.driver, writer.database, entry.lid, entry.record)
            continue
        try:
            fresh = load_input(writer, entry.item, options=entry.options)
        except (ParseError, WriteFailed) as error:
            fresh = getattr(error, "result", None) or entry.result
            fresh.status, fresh.error = "failed", str(error)
        except Neo4jError as error:
            fresh = entry.result
            fresh.status = "failed"
            fresh.error = (f"{fresh.path}: write failed: {error.message or error} "
                           f"({error.code}); nothing of it was written")
        entry.result.__dict__.update(fresh.__dict__)


def _write(tx, entries: list[Entry]) -> list[tuple]:
    """The batch's transaction (the driver may run it again after a transient error: it
    changes nothing outside the graph). Returns per entry ``(status, write stats, changes,
    report summary, load props)``; status ``None``: only recorded."""
    written = [e for e in entries if e.record is None]
    node_state, edge_state = _state(tx, written)
    now = time.time()
    times = [now + i * 1e-6 for i in range(len(written))]
    plan = Plan(written, node_state, edge_state, times)
    for i in range(0, len(plan.held_nodes), CLAIM_ROWS):
        tx.run(claims.HELD_NODE_CLAIMS, rows=Rows(plan.held_nodes[i:i + CLAIM_ROWS]),
               order=claims.LABEL_ORDER, fixed=claims.FIXED_LABELS).consume()
    for (rel, keyed), rows in plan.held_edges.items():
        for i in range(0, len(rows), CLAIM_ROWS):
            tx.run(claims.HELD_EDGE_CLAIMS[rel, keyed], rows=Rows(rows[i:i + CLAIM_ROWS]),
                   rel=rel).consume()
    found = _conflicts(tx, plan, [e.tag for e in written])
    for i in range(0, len(plan.claims), CLAIM_ROWS):
        tx.run(CREATE_CLAIMS, rows=Rows(plan.claims[i:i + CLAIM_ROWS])).consume()
    rows = list(plan.node_rows.values())
    for i in range(0, len(rows), NODE_ROWS):
        tx.run(NODE_BATCH_STATEMENT, rows=Rows(rows[i:i + NODE_ROWS])).consume()
    groups: dict[tuple[str, bool], list[dict]] = {}
    for (rel, _, _, key), row in plan.edge_rows.items():
        groups.setdefault((rel, bool(key)), []).append(row)
    for (rel, keyed), rows in groups.items():
        rows.sort(key=lambda r: (r["end"], r["start"]))  # each node locked once, in order
        for i in range(0, len(rows), EDGE_ROWS):
            part = rows[i:i + EDGE_ROWS]
            done = tx.run(EDGE_BATCH_STATEMENTS[rel, keyed], rows=Rows(part)).single()["written"]
            if done != len(part):  # the plan found both ends of every row
                raise RuntimeError(f"{rel}: {done} of {len(part)} relationships written")
    outcome, finished, recorded = [], [], []
    stats = iter(zip(plan.stats, plan.changes, plan.refused))
    for entry in entries:
        if entry.record is not None:
            recorded.append({"lid": entry.lid, "props": entry.record})
            outcome.append((None, None, None, None, entry.record))
            continue
        write, changes, (duplicates, only) = next(stats)
        report = replace(entry.report, skipped=Counter(entry.report.skipped),
                         warnings=list(entry.report.warnings), extra=dict(entry.report.extra),
                         state={}, on_progress=None)  # the driver may run this again
        note_duplicates(report, duplicates)
        if only:
            report.extra["nodes_only_of_duplicates"] = len(only)
        conflicting = found.get(entry.tag, {"rows": [], "elements": 0})
        note_conflicts(report, conflicting["rows"], conflicting["elements"])
        result = LoadResult(**{**entry.result.__dict__, "status": "loaded", "write": write,
                               "changes": changes, "report": report.summary(),
                               "seconds": entry.seconds})
        props = load_props(result, entry.started)
        props.update(sha256=result.sha256, version=entry.before.version + 1,
                     options=entry.options.as_json(), tag=entry.tag,
                     changes=as_json(changes))
        finished.append({"lid": entry.lid, "tag": entry.tag, "props": props})
        outcome.append(("loaded", write, changes, result.report, props))
    if loads.end_writes(tx, finished) < len(finished):
        raise Interrupted()
    loads.record_many(tx, recorded)
    return outcome


def _conflicts(tx, plan: Plan, tags: list[str]) -> dict[str, dict]:
    """The conflicts each input of the batch makes (:func:`.claims.batch_conflicts`),
    asked before the batch's claims are written; their rows name the inputs' paths."""
    if not plan.claims:
        return {}
    batch = set(tags)
    ofs = sorted({c["of"] for c in plan.claims if c["tag"] in batch})
    found = claims.batch_conflicts(plan.claims, tags, claims.stated_by_others(tx, ofs))
    if found:
        paths = claims.load_paths(tx, {r["other"] for f in found.values() for r in f["rows"]}
                                  | set(found))
        for f in found.values():
            for row in f["rows"]:
                row.update(path=paths[row["tag"]], other_path=paths[row["other"]])
    return found


def _state(tx, entries: list[Entry]) -> tuple[dict, dict]:
    """What the graph holds of the elements ``entries`` name, before they are written."""
    stated = {uid for e in entries for uid in e.nodes}
    named = stated | {u for e in entries for (_, s, t, _) in e.edges for u in (s, t)}
    node_state = {r["uid"]: dict(r) for r in tx.run(
        NODE_STATE_STATEMENT, rows=Rows({"uid": u, "stated": u in stated} for u in named))}
    asked: dict[tuple[str, bool], list[dict]] = {}
    idents: list[tuple] = []
    for ident in {i for e in entries for i in e.edges}:
        rel, start, end, key = ident
        if rel in CLAIMED_TYPES and start in node_state and end in node_state:
            row = {"i": len(idents), "start": start, "end": end,
                   "of": claims.edge_of(rel, start, end, key)}
            if key:
                row["key"] = key
            asked.setdefault((rel, bool(key)), []).append(row)
            idents.append(ident)
    edge_state = {}
    for (rel, keyed), rows in asked.items():
        for r in tx.run(EDGE_STATE_STATEMENTS[rel, keyed], rows=Rows(rows)):
            edge_state[idents[r["i"]]] = {"held": r["held"], "props": r["props"],
                                          "claimed": r["claimed"]}
    return node_state, edge_state


# ------------------------------------------------------------------ the inputs' loop
def load(
    writer: Writer,
    paths: Iterable[str | os.PathLike],
    source: str = "auto",
    lenient: bool = False,
    progress: Progress | None = None,
    options: LoadOptions | None = None,
    fail_fast: bool = False,
) -> list[LoadResult]:
    """Load every input under ``paths``: each is loaded whole or not at all.

    A malformed input (strict mode) is reported and the load goes on with the next one;
    when all are done, the one :class:`ParseError` (or an :class:`InputsFailed` naming every
    failed input, with every result in ``.results``) is raised. ``fail_fast`` stops at the
    first malformed input instead. Files found by walking a directory that no format
    recognises are reported with status ``unrecognised`` and not loaded; a file named
    explicitly must be recognised. The first loads of small files are written many to a
    transaction, each still a load of its own (:func:`load_many`); the others one by one
    (:func:`~.pipeline.load_input`).
    """
    failures: list[ParseError] = []
    results = list(load_many(writer, paths, source, lenient, progress, options, fail_fast,
                             failures))
    raise_failures(failures, results)
    return results


def load_many(writer, paths: Iterable[str | os.PathLike], source: str, lenient: bool,
              progress: Progress | None, options: LoadOptions | None,
              fail_fast: bool, failures: list[ParseError]) -> Iterator[LoadResult]:
    """Every input under ``paths``, small first loads in batches, the others one by one, in
    their order: each result once its input is written (none is kept here: a fleet of any
    size loads in flat memory), and the parse error of each input that failed appended to
    ``failures`` (as :func:`~.pipeline.each_input`)."""
    ensure_schema(writer.driver, writer.database)
    options = load_options(options, lenient)
    if not writer.batch_inputs:
        yield from each_input(paths, source, lambda item: (load_input(
            writer, item, options=options, progress=progress), {}), progress, fail_fast,
            failures)
        return
    batch = Batch(writer, progress)
    inputs = expand(paths, source)
    seen: set[str] = set()  # an input named twice goes on its own (its first may be in flight)
    try:
        while True:
            stopped = None
            with fewer_collections():  # a window of inputs builds many objects (collector)
                window = list(islice(inputs, WINDOW))
                try:
                    if window:
                        _window(writer, window, seen, options, progress, fail_fast, batch,
                                failures)
                    else:
                        batch.flush()
                except ParseError as exc:  # fail_fast: the inputs done so far are handed over
                    batch.flush()
                    stopped = exc
            yield from batch.take()
            if stopped is not None:
                raise stopped
            if not window:
                break
    finally:
        try:
            batch.flush()  # what was read before an error is written, as the inputs before it
        finally:
            batch.close()


def _window(writer, window: list[Input], seen: set[str], options: LoadOptions, progress,
            fail_fast: bool, batch: Batch, failures: list[ParseError]) -> None:
    """The inputs of one window into ``batch`` (or loaded on their own, in their place)."""
    lids = {id(item): loads.load_id(item.format.name, identity(item))
            for item in window if item.format and not item.problem
            and not is_url(item.path)}
    known = loads.previous_many(writer.driver, writer.database, sorted(set(lids.values())))
    for item in window:
        if progress:
            progress("start", {"path": item.path,
                               "format": item.format.name if item.format else None})
        lid = lids.get(id(item))
        if lid is None or lid in seen or item.format.agree or len(window) == 1:
            batch.flush()
            _alone(writer, item, options, progress, fail_fast, batch, failures)
            continue
        seen.add(lid)
        entry, failure = _prepared(item, lid, known[lid], options, progress)
        if failure is not None:
            failures.append(failure)
            if fail_fast:  # the batch so far is written, this input recorded
                batch.add(entry)
                batch.flush()
                raise failure
        if entry is None:
            batch.flush()
            _alone(writer, item, options, progress, fail_fast, batch, failures)
        elif entry.record is None and entry.spool is None:
            batch.add_result(entry.result, entry.done)
        else:
            batch.add(entry)


def _alone(writer, item: Input, options: LoadOptions, progress, fail_fast: bool,
           batch: Batch, failures: list) -> None:
    """One input through :func:`~.pipeline.load_input`, reported in its place."""
    result, done, failure = attempt(
        item, lambda it: (load_input(writer, it, options=options, progress=progress), {}),
        fail_fast)
    if failure is not None:
        failures.append(failure)
    batch.add_result(result, done)
    batch.flush()


def _prepared(item: Input, lid: str, before: Previous, options: LoadOptions,
              progress: Progress | None) -> tuple[Entry | None, ParseError | None]:
    """An input ready for a batch: parsed and folded, or to be recorded unchanged or
    failed; ``None`` when it is loaded on its own (see :func:`batchable`)."""
    started, t0 = time.time(), time.perf_counter()
    entry = Entry(item, first_result(item), lid, started, before=before, options=options)
    result = entry.result
    path = Path(item.path)

    def parse(_: Input) -> tuple[LoadResult, dict]:
        result.sha256 = sha256_of(item.path)
        if ((result.sha256, "loaded", options.as_json())
                == (before.sha256, before.status, before.options)):
            result.status, result.seconds = "unchanged", time.perf_counter() - t0
            entry.record = {"last_attempt": "unchanged", "finished_at": time.time()}
            return result, {}
        limit = FILE_BYTES if options.overlap_bytes is None else min(FILE_BYTES,
                                                                     options.overlap_bytes)
        if not batchable(path, before, limit):  # large: written while read, on its own
            return result, {"alone": True}
        report = LoadReport(item.path, item.format.name, lenient=options.lenient,
                            options=options)
        if progress:
            report.on_progress = lambda records, read: progress(
                "records", {"path": item.path, "records": records, "bytes": read})
        try:
            spool = parse_to_spool(item, report, Spool(store=MemoryStore()))
        except ParseError as exc:
            result.report, result.seconds = report.summary(), time.perf_counter() - t0
            result.status, result.error = "failed", str(exc)
            props = load_props(result, started)
            if before.status == "loaded":
                props.pop("status")
            entry.record = props
            exc.result = result
            raise
        report.state, report.on_progress = {}, None
        entry.report, entry.spool = report, spool
        entry.nodes, entry.edges, entry.identities = fold(spool)
        entry.size = path.stat().st_size
        result.nodes, result.edges = spool.node_counts, spool.edge_counts
        result.report = report.summary()
        if not entry.nodes and not entry.edges:  # it states nothing
            result.status = "empty"
            result.changes = {"nodes_released": 0, "edges_released": 0, "nodes_removed": 0,
                              "edges_removed": 0}
            spool.close()
            entry.spool = None
            entry.seconds = result.seconds = time.perf_counter() - t0
            entry.record = load_props(result, started)
            return result, {}
        entry.seconds = time.perf_counter() - t0
        return result, {}

    result, done, failure = attempt(item, parse, False)
    if done.get("alone"):
        return None, None
    if failure is not None:
        entry.result = result
        entry.done = {}
        if entry.record is None:  # not read at all (a reader's own failure): recorded
            props = load_props(result, started)
            if before.status == "loaded":
                props.pop("status")
            entry.record = props
        return entry, failure
    entry.result, entry.done = result, done
    return entry, None
