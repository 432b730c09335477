"""First loads into an empty database: ``neo4j-admin database import`` instead of Cypher.

``lineage load --bulk`` (``LoadOptions(bulk=True)``) checks that the database is empty and
begins stopping the managed server (in a thread: the stop overlaps the parse, and no other
client can write into the database the import will replace), parses every input into its
spool as a normal load does (strict: a malformed input is reported and left out), folds the
records as the writer's MERGEs would (one node per uid, later properties win, ``None`` never
erases, labels add up; one relationship per type, ends and key; each element's ``loads``
lists the tags of the inputs that state it), writes them as neo4j-admin CSV, imports, starts
the server again (whatever happened before), creates the model's constraints and indexes
and records one ``:Load`` per input as a normal first load would, so ``unload``, ``stats``
and reloads work the same afterwards. Only for the managed server, and only into an empty
database.

>>> csv_field('5" disk')
'"5"" disk"'
>>> csv_type([1, 2]), csv_type(2.5), csv_type(True), csv_type("x")
('long[]', 'double', 'boolean', 'string')
"""

from __future__ import annotations

import gc
import operator
import os
import pickle
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from . import loads, model, server
from .collector import fewer_collections
from .errors import LineageError, ParseError
from .pipeline import (LoadResult, Progress, _load_props, _Spool, expand, first_result,
                       identity, is_url, parse_to_spool, raise_failures, sha256_of)
from .records import as_json, scalar_type
from .redact import redact_url
from .settings import LoadOptions
from .sources.base import LoadReport
from .writer import WriteStats, ensure_schema

#: Between the elements of an array value (no loader value holds it: checked while writing).
ARRAY_DELIMITER = "\x1f"


class BulkRefused(LineageError):
    """A bulk load refused: not the managed server, or a database that is not empty."""


def csv_type(value: Any) -> str:
    """The neo4j-admin header type of a property value as the driver would store it."""
    if isinstance(value, list):
        return (csv_type(value[0]) if value else "string") + "[]"
    return scalar_type(value)


def csv_field(value: Any) -> str:
    """One CSV field: strings quoted (quotes doubled), arrays joined by ARRAY_DELIMITER.

    >>> csv_field('5" disk'), csv_field(2.5), csv_field(True), csv_field(None)
    ('"5"" disk"', '2.5', 'true', '')
    """
    exact = _EXACT.get(type(value))  # the common types at one look-up (10^6 fields a load)
    if exact is not None:
        return exact(value)
    if value is None:
        return ""
    if isinstance(value, list):
        return _array(value)
    if isinstance(value, str):
        return _quoted(value)
    return _scalar(value)


def _quoted(value: str) -> str:
    return '"' + value.replace('"', '""') + '"'


def _array(value: list) -> str:
    try:
        joined = ARRAY_DELIMITER.join(value)  # strings: labels and load tags of every row
    except TypeError:
        joined = ARRAY_DELIMITER.join([_scalar(v) for v in value])
    if joined.count(ARRAY_DELIMITER) != max(len(value) - 1, 0):
        raise LineageError("a list value holds the bulk import's array delimiter "
                           "(U+001F): load without --bulk")
    return _quoted(joined)


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


_EXACT = {str: _quoted, int: str, float: repr, bool: _scalar, list: _array}


# ------------------------------------------------------------------ folding records
@dataclass
class _Graph:
    """Every element the inputs state, folded as the writer's MERGEs fold them."""

    nodes: dict[str, list] = field(default_factory=dict)  # uid -> [labels, props, loads]
    edges: dict[tuple, list] = field(default_factory=dict)  # (rel, start, end, key) -> [props, loads]
    #: empty list values (an empty CSV array is no value at all): set after the import
    empty_lists: list[dict] = field(default_factory=list)
    #: lists and dicts many elements share (the labels of a kind, one load's tag, no
    #: properties): never changed in place, replaced when an element's own differs
    #: (about a fifth of the fold's memory at 10^6 elements, README)
    _shared: dict = field(default_factory=dict, repr=False)

    def add_input(self, spool, tag: str, prefix: str, report: LoadReport) -> tuple[WriteStats, set]:
        """Fold one input's spool in, as the writer's MERGEs would store it; the input's
        nodes that another input stated as something else are left out (reported)."""
        duplicates = self._identity_conflicts(spool, prefix, report) if self.nodes else set()
        stats = WriteStats()
        self.fold_nodes(spool.node_rows(), tag, stats, duplicates)
        self.fold_edges(spool.edge_rows(), tag, stats, duplicates)
        return stats, duplicates

    def fold_nodes(self, rows: Iterable[tuple], tag: str, stats: WriteStats,
                   duplicates: set = frozenset()) -> None:
        """Fold node rows ``(kind label, uid, props, extra labels)`` in (later properties
        win, labels add up), except the uids in ``duplicates``. The rows are a spool's:
        their properties checked (no ``None``) and the graph's to keep (not copied)."""
        nodes, kinds, shared = self.nodes, model.NODE_KINDS, self._shared
        tags = shared.setdefault(("tags", tag), [tag])
        for label, uid, props, extra in rows:  # tuples: no Node built for each
            if uid in duplicates:
                continue
            stats.node_rows += 1
            props["kind"] = label
            labels = shared.get((label, extra))
            if labels is None:
                labels = shared[label, extra] = [*kinds[label].labels, *extra]
            have = nodes.get(uid)
            if have is None:
                nodes[uid] = [labels, props, tags]
                continue
            if labels is not have[0]:
                missing = [name for name in labels if name not in have[0]]
                if missing:  # a new list: the one it had may be shared
                    have[0] = have[0] + missing
            have[1].update(props)
            if tag not in have[2]:
                have[2] = have[2] + [tag]

    def fold_edges(self, rows: Iterable[tuple], tag: str, stats: WriteStats,
                   duplicates: set = frozenset()) -> None:
        """Fold relationship rows ``(type, start, end, props, key)`` in (one per type, ends
        and key); one whose end is not a node of the graph is counted as unresolved."""
        nodes, edges, shared = self.nodes, self.edges, self._shared
        tags, no_props = shared.setdefault(("tags", tag), [tag]), shared.setdefault("props", {})
        for rel, start, end, props, key in rows:
            if start in duplicates or end in duplicates:
                continue
            stats.edge_rows += 1
            if start not in nodes or end not in nodes:
                stats.unresolved_edges += 1
                if len(stats.unresolved_examples) < 10:
                    stats.unresolved_examples.append(f"{rel} {start} -> {end}")
                continue
            stats.edges_written += 1  # props: checked, the graph's to keep (see fold_nodes)
            have = edges.get(identity := (rel, start, end, key or None))
            if have is None:
                edges[identity] = [props or no_props, tags]
                continue
            if props:  # the shared empty dict is never updated: replaced by the row's own
                if have[0] is no_props:
                    have[0] = props
                else:
                    have[0].update(props)
            if tag not in have[1]:
                have[1] = have[1] + [tag]

    def _identity_conflicts(self, spool, prefix: str, report: LoadReport) -> set[str]:
        """As :func:`lineage.writer.identity_conflicts`: uids other inputs of this bulk load
        stated with other values of the kind's identity properties (the first one stays)."""
        found: dict[str, list] = {}
        if not any(model.NODE_KINDS[label].identity for label in spool.node_counts):
            return set()
        kinds = model.NODE_KINDS
        for label, uid, props, _ in spool.node_rows():
            have = self.nodes.get(uid)
            if have is None or not kinds[label].identity:
                continue
            if not any(not t.startswith(prefix) for t in have[2]):
                continue
            differ = [[k, have[1].get(k), props.get(k)] for k in kinds[label].identity
                      if props.get(k) is not None and have[1].get(k) is not None
                      and have[1][k] != props[k]]
            if differ:
                found[uid] = differ
        for uid, differ in sorted(found.items())[:20]:
            what = "; ".join(f"{k} {old!r} there, {new!r} here" for k, old, new in differ)
            report.warn(f"{report.path}: {uid} was already loaded from another input as "
                        f"something else ({what}): this input's record is a duplicate and "
                        "was not loaded")
        if found:
            report.extra["duplicate_uids_of_other_inputs"] = len(found)
        return set(found)

    def clear(self) -> None:
        """Forget everything folded (a failed first input)."""
        self.nodes.clear()
        self.edges.clear()
        self.empty_lists.clear()
        self._shared.clear()

    def tagged(self) -> dict[str, list[int]]:
        """Per tag: how many nodes and relationships carry it."""
        counts: dict[str, list[int]] = {}
        for _, _, tags in self.nodes.values():
            for tag in tags:
                counts.setdefault(tag, [0, 0])[0] += 1
        for _, tags in self.edges.values():
            for tag in tags:
                counts.setdefault(tag, [0, 0])[1] += 1
        return counts


class _FoldingSpool(_Spool):
    """The spool of the first input of a bulk load: its records are folded into the (still
    empty) graph while the input is read, not kept on disk and read back after it (the
    reader runs in a child process; this one has time to fold meanwhile). What the input
    stated is the whole graph, so a failed input is undone by emptying the graph.

    A relationship is folded as soon as both its ends are nodes of the graph; one that
    names a node not read yet waits for the end of the input (as do later statements of
    the same relationship, which keeps their order), then is folded or counted unresolved,
    as :meth:`_Graph.add_input` would have.
    """

    def __init__(self, graph: _Graph, tag: str):  # no temporary files: nothing is kept
        assert not graph.nodes and not graph.edges, "only the first input of a bulk load"
        self.graph, self.tag, self.stats = graph, tag, WriteStats()
        self._node_buf, self._edge_buf = [], []
        self.node_counts, self.edge_counts = {}, {}
        self._waiting: list[tuple] = []  # relationships whose ends were not all read yet
        self._waiting_ids: set[tuple] = set()

    def _flush_nodes(self) -> None:
        self.graph.fold_nodes(self._node_buf, self.tag, self.stats)
        self._node_buf = []

    def _flush_edges(self) -> None:
        if self._node_buf:  # every node read so far is in the graph before an edge looks
            self._flush_nodes()
        nodes, waiting, waiting_ids = self.graph.nodes, self._waiting, self._waiting_ids
        ready = []
        for row in self._edge_buf:
            rel, start, end, _, key = row
            if start in nodes and end in nodes and not (
                    waiting_ids and (rel, start, end, key or None) in waiting_ids):
                ready.append(row)
            else:
                waiting.append(row)
                waiting_ids.add((rel, start, end, key or None))
        self.graph.fold_edges(ready, self.tag, self.stats)
        self._edge_buf = []

    def seal(self) -> None:
        super().seal()
        self.graph.fold_edges(self._waiting, self.tag, self.stats)
        self._waiting, self._waiting_ids = [], set()

    def node_rows(self):
        raise TypeError("a folding spool keeps no rows: they are in the graph")

    edge_rows = node_rows

    def close(self) -> None:
        self._node_buf = self._edge_buf = self._waiting = []


# ------------------------------------------------------------------ CSV
#: Rows of one shape (property names and value types) that get a file of their own; the rows
#: of rarer shapes share one file (neo4j-admin takes ~0.17 s per input file whatever its
#: size, and a row costs it more the more columns its file has: both measured, README)
SHAPE_FILE_ROWS = 5000


class _Shape:
    """The rows of one shape: kept in memory until there are SHAPE_FILE_ROWS of them, then
    written to a file of their own (its header first), and the later ones straight after."""

    __slots__ = ("fh", "names", "rows", "types")

    def __init__(self, names: list[str], types: list[str]):
        self.names, self.types = names, types
        self.rows: list[list[str]] | None = []
        self.fh = None


class _Shapes:
    """The CSV files of one element kind (nodes or relationships)."""

    def __init__(self, directory: Path, stem: str, columns: tuple[str, ...]):
        self.directory, self.stem, self.columns = directory, stem, columns
        self.shapes: dict[tuple, _Shape] = {}
        self.files: list[Path] = []

    def shape(self, names: list[str], values: list) -> _Shape:
        """The shape of a row with these property names and values (a load has a few dozen)."""
        key = (*names, *[type(v) if type(v) is not list else (list, type(v[0]))
                         for v in values])
        found = self.shapes.get(key)
        if found is None:
            found = self.shapes[key] = _Shape(names, [csv_type(v) for v in values])
        return found

    def write(self, names: list[str], values: list, fields: list[str]) -> None:
        """One row: its leading ``fields`` and its properties' ``names`` and ``values``
        (formatted already, last in ``fields``)."""
        shape = self.shape(names, values)
        if shape.fh is not None:
            shape.fh.write(",".join(fields) + "\n")
            return
        shape.rows.append(fields)
        if len(shape.rows) >= SHAPE_FILE_ROWS:
            self.own_file(shape)

    def own_file(self, shape: _Shape) -> None:
        """Give a shape that has reached SHAPE_FILE_ROWS its own file."""
        shape.fh = self._open([*self.columns, *(f"{_name(k)}:{t}"
                                                for k, t in zip(shape.names, shape.types))])
        shape.fh.writelines(",".join(row) + "\n" for row in shape.rows)
        shape.rows = None

    def _open(self, columns: list[str]):
        path = self.directory / f"{self.stem}-{len(self.files)}.csv"
        fh = open(path, "w", encoding="utf-8", newline="")
        fh.write(",".join(columns) + "\n")
        self.files.append(path)
        return fh

    def abandon(self) -> None:
        """Close the files (a write that failed: the directory goes)."""
        for shape in self.shapes.values():
            if shape.fh is not None:
                shape.fh.close()

    def close(self) -> list[Path]:
        """Write the rarer shapes' rows into shared files (one unless a property name comes
        with two types: such a name's rows go to another), close, list the files."""
        fixed = len(self.columns)
        groups: list[dict[str, tuple[str, int]]] = []  # per file: name -> (type, column)
        members: list[list[_Shape]] = []
        for shape in self.shapes.values():
            if shape.fh is not None:
                shape.fh.close()
                continue
            pairs = list(zip(shape.names, shape.types))
            for group, shapes in zip(groups, members):
                if all(group.get(name, (t,))[0] == t for name, t in pairs):
                    break
            else:
                group, shapes = {}, []
                groups.append(group)
                members.append(shapes)
            for name, t in pairs:
                group.setdefault(name, (t, fixed + len(group)))
            shapes.append(shape)
        for group, shapes in zip(groups, members):
            # a name's column is its place in the group (names are added in column order)
            with self._open([*self.columns, *(f"{_name(name)}:{t}"
                                              for name, (t, _) in group.items())]) as fh:
                for shape in shapes:  # its fields under the shared columns ("" between)
                    last = fixed + len(shape.names)  # the index of the "" after a row's fields
                    at = list(range(fixed)) + [last] * len(group)
                    for i, name in enumerate(shape.names):
                        at[group[name][1]] = fixed + i
                    while len(at) > fixed and at[-1] == last:
                        del at[-1]  # trailing columns left out: no value
                    line = operator.itemgetter(*at)
                    fh.writelines(",".join(line(row + [""])) + "\n" for row in shape.rows)
        return self.files


#: Relationships from which write_csv writes them in a forked child while this process
#: writes the nodes (below it, the fork costs more than it saves)
FORK_RELATIONSHIPS = 50_000


def write_csv(graph: _Graph, directory: Path) -> tuple[list[Path], list[Path]]:
    """The folded graph as neo4j-admin CSV: node files (``uid:ID``, ``:LABEL``, typed
    properties) and relationship files (``:START_ID``, ``:END_ID``, ``:TYPE``, typed
    properties), each with its header first; a file per common row shape, one shared by the rarer ones. With a second core and many
    relationships, a forked child writes the relationships meanwhile."""
    nodes, rels = (_Shapes(directory, "nodes", _NODE_COLUMNS),
                   _Shapes(directory, "relationships", _REL_COLUMNS))
    if len(graph.edges) >= FORK_RELATIONSHIPS and _second_core():
        written = _write_forked(graph, nodes, rels)
        if written is not None:
            return written
    try:
        _write_nodes(graph, nodes)
        _write_edges(graph, rels)
    except BaseException:
        nodes.abandon()
        rels.abandon()
        raise
    return nodes.close(), rels.close()


def _second_core() -> bool:
    try:
        return len(os.sched_getaffinity(0)) > 1 and hasattr(os, "fork")
    except (AttributeError, OSError):
        return False


def _write_forked(graph: _Graph, nodes: _Shapes, rels: _Shapes):
    """:func:`write_csv` with the relationships written by a forked child: it sends back
    its files and the relationships' empty lists, or the error that stopped it; None when
    no child could be made."""
    read_end, write_end = os.pipe()
    gc.freeze()  # the child's collector must not touch (and so copy) the parent's objects
    try:
        pid = os.fork()
    except OSError:  # no process to be had (a limit, memory): one process writes both
        gc.unfreeze()
        os.close(read_end)
        os.close(write_end)
        return None
    if pid == 0:  # the child: relationships, then its answer, then out (no atexit handlers)
        os.close(read_end)
        status = 1
        try:
            gc.disable()
            graph.empty_lists = []
            try:
                _write_edges(graph, rels)
                answer = ("done", rels.close(), graph.empty_lists)
            except BaseException as exc:  # noqa: BLE001 - sent to the parent, raised there
                rels.abandon()
                answer = ("error", exc if isinstance(exc, LineageError)
                          else LineageError(f"writing the relationships' CSV: "
                                            f"{type(exc).__name__}: {exc}"))
            with os.fdopen(write_end, "wb") as pipe:
                pickle.dump(answer, pipe, protocol=pickle.HIGHEST_PROTOCOL)
            status = 0
        finally:
            os._exit(status)
    gc.unfreeze()
    os.close(write_end)
    try:
        try:
            _write_nodes(graph, nodes)
        except BaseException:
            nodes.abandon()
            raise
        node_files = nodes.close()
    finally:
        with os.fdopen(read_end, "rb") as pipe:
            data = pipe.read()  # until the child ends (or is killed)
        _, status = os.waitpid(pid, 0)
    if not data:
        raise LineageError(f"the process writing the relationships' CSV ended without an "
                           f"answer (wait status {status}: killed, or out of memory?)")
    answer = pickle.loads(data)
    if answer[0] == "error":
        raise answer[1]
    graph.empty_lists.extend(answer[2])
    return node_files, answer[1]


def _write_nodes(graph: _Graph, nodes: _Shapes) -> None:
    field = csv_field
    for uid, (labels, props, tags) in graph.nodes.items():
        names = sorted(k for k, v in props.items() if v != [])
        if len(names) < len(props):
            graph.empty_lists.append({"uid": uid, "props": {k: [] for k in props
                                                            if props[k] == []}})
        values = [props[k] for k in names]
        nodes.write(names, values, [field(uid), field(labels), field(tags), *map(field, values)])


def _write_edges(graph: _Graph, rels: _Shapes) -> None:
    field = csv_field
    for (rel, start, end, key), (props, tags) in graph.edges.items():
        if key is not None:
            props = {**props, "key": key}
        names = sorted(k for k, v in props.items() if v != [])
        if len(names) < len(props):
            graph.empty_lists.append({"start": start, "end": end, "type": rel, "key": key,
                                      "props": {k: [] for k in props if props[k] == []}})
        values = [props[k] for k in names]
        rels.write(names, values, [field(start), field(end), rel, field(tags),
                                   *map(field, values)])


_NODE_COLUMNS = ("uid:ID", ":LABEL", "loads:string[]")
_REL_COLUMNS = (":START_ID", ":END_ID", ":TYPE", "loads:string[]")


def _name(key: str) -> str:
    if not key.isidentifier():
        raise LineageError(f"property name {key!r} cannot go into a bulk import header")
    return key


# ------------------------------------------------------------------ the bulk load
def refuse_unless_empty_managed(lin) -> Path:
    """The managed server's state directory, or :class:`BulkRefused` saying why not."""
    settings = lin.graph.settings
    state = server.state_dir()
    info = server.status(state)
    if settings is None or not settings.managed or not info["running"] or info["uri"] != settings.uri:
        raise BulkRefused("--bulk imports with neo4j-admin into the managed local server only "
                          "(it is stopped and started again); this connection is to "
                          f"{redact_url(settings.uri) if settings else 'another server'}: "
                          "load without --bulk")
    if lin.graph.database not in (None, "neo4j"):
        raise BulkRefused(f"--bulk imports into the database 'neo4j' only, not "
                          f"{lin.graph.database!r}")
    records, _, _ = lin.graph.driver.execute_query(
        "RETURN EXISTS { MATCH (n) } AS any", database_=lin.graph.database)
    if records[0]["any"]:
        raise BulkRefused("--bulk is for a first load into an empty database, and this one "
                          "holds a graph already: load without --bulk, or empty it first "
                          "(`lineage reset`)")
    return state


def bulk_load(lin, paths: Iterable[str | os.PathLike], source: str = "auto",
              progress: Progress | None = None, options: LoadOptions | None = None,
              fail_fast: bool = False) -> list[LoadResult]:
    """Load ``paths`` into the empty database of the managed server with neo4j-admin; one
    result per input, as :func:`lineage.pipeline.load` returns them."""
    options = options or LoadOptions()
    state = refuse_unless_empty_managed(lin)
    # The server is stopped while the inputs are parsed (its stop takes seconds that the
    # import would otherwise wait for), which also keeps any other client from writing into
    # the database the import is about to replace; it is started again whatever happens.
    stopping, graph_before = server.BackgroundStop(state), lin.graph
    try:
        with fewer_collections():  # the fold keeps every element in dicts: see collector
            return _parse_and_import(lin, state, stopping, paths, source, progress, options,
                                     fail_fast)
    finally:
        if not stopping.restarted:
            stopping.restart()
        if lin.graph is graph_before:
            _reconnect(lin, state)


def _parse_and_import(lin, state: Path, stopping: server.BackgroundStop, paths, source: str,
                      progress: Progress | None, options: LoadOptions,
                      fail_fast: bool) -> list[LoadResult]:
    results: list[LoadResult] = []
    failures: list[ParseError] = []
    graph = _Graph()
    loaded: list[tuple[LoadResult, str, float]] = []  # result, load id, started
    for item in expand(paths, source):
        if progress:
            progress("start", {"path": item.path, "format": item.format.name if item.format else None})
        started, t0 = time.time(), time.perf_counter()
        fmt = item.format
        result = first_result(item)
        if not item.problem and fmt is not None:
            lid = loads.load_id(fmt.name, identity(item))
            if not is_url(item.path):
                result.sha256 = sha256_of(item.path)
            report = LoadReport(item.path, fmt.name, lenient=options.lenient, options=options)
            tag = loads.tag_of(lid, 1)
            # the first input with content folds while it is read (the graph is empty, so
            # there is nothing it could conflict with, and a failure just empties it again)
            folding = _FoldingSpool(graph, tag) if not graph.nodes else None
            try:
                spool = parse_to_spool(item, report, folding)
            except ParseError as exc:
                if folding is not None:
                    graph.clear()
                result.status, result.error = "failed", str(exc)
                result.report, result.seconds = report.summary(), time.perf_counter() - t0
                loaded.append((result, lid, started))
                if fail_fast:
                    _finish(lin, state, graph, loaded, options, stopping)
                    raise
                failures.append(exc)
                results.append(result)
                if progress:
                    progress("done", result.as_dict())
                continue
            try:
                result.nodes, result.edges = spool.node_counts, spool.edge_counts
                if not result.nodes and not result.edges:
                    result.status = "empty"
                else:
                    stats = (spool.stats if folding is not None
                             else graph.add_input(spool, tag, f"{lid}:", report)[0])
                    result.write.add(stats)
                    result.status = "loaded"
            finally:
                spool.close()
            result.report, result.seconds = report.summary(), time.perf_counter() - t0
            loaded.append((result, lid, started))
        results.append(result)
        if progress:
            progress("done", result.as_dict())
    _finish(lin, state, graph, loaded, options, stopping)
    raise_failures(failures, results)
    return results


def _finish(lin, state: Path, graph: _Graph, loaded: list, options: LoadOptions,
            stopping: server.BackgroundStop) -> None:
    """Import the folded graph (when it holds anything) into the stopped server and start it
    again, then the schema and the loads."""
    if graph.nodes:
        paths = server.ServerPaths.under(state)
        work = Path(tempfile.mkdtemp(prefix="bulk-", dir=paths.root))
        try:
            node_files, rel_files = write_csv(graph, work)
            server.import_full(state, node_files, rel_files, ARRAY_DELIMITER,
                               report=work / "import.report", stopping=stopping)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    else:
        stopping.restart()
    _reconnect(lin, state)
    driver, database = lin.graph.driver, lin.graph.database
    ensure_schema(driver, database)
    for i in range(0, len(graph.empty_lists), 1000):
        driver.execute_query(_EMPTY_LISTS, rows=graph.empty_lists[i:i + 1000],
                             database_=database)
    tagged = graph.tagged()
    for result, lid, started in loaded:
        props = _load_props(result, started)
        if result.status == "loaded":
            tag = loads.tag_of(lid, 1)
            nodes, edges = tagged.get(tag, (0, 0))
            result.changes = {"nodes": nodes, "edges": edges, "nodes_removed": 0,
                              "edges_removed": 0}
            props.update(sha256=result.sha256, version=1, options=options.as_json(), tag=tag,
                         changes=as_json(result.changes), bulk=True)
        loads.record(driver, database, lid, props)


_EMPTY_LISTS = """
UNWIND $rows AS row
CALL (row) {
  WITH row WHERE row.uid IS NOT NULL
  MATCH (n:Lineage {uid: row.uid}) SET n += row.props
}
CALL (row) {
  WITH row WHERE row.uid IS NULL
  MATCH (:Lineage {uid: row.start})-[r]->(:Lineage {uid: row.end})
  WHERE type(r) = row.type AND (row.key IS NULL OR r.key = row.key)
  SET r += row.props
}
"""


def _reconnect(lin, state: Path) -> None:
    """After the restart: a new driver (the old one's bookmarks name transactions of the
    database the import replaced, which the new one never reaches), on the server's port."""
    from .connection import Graph, Settings

    info = server.status(state)
    old = lin.graph.settings
    lin.graph.driver.close()
    lin.graph = Graph.connect(Settings(info["uri"], old.user, old.password, old.database, True))
