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
import itertools
import logging
import operator
import os
import pickle
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import AbstractSet, Any, Iterable, NamedTuple

from . import loads, server
from .bulk_fold import _FoldingSpool, _Graph
from .bulk_partitions import Partitions, partitions_for
from .collector import fewer_collections
from .errors import LineageError, ParseError
from .pipeline import (LoadResult, Progress, _load_props, expand, first_result,
                       identity, is_url, parse_to_spool, raise_failures, sha256_of)
from .records import as_json, scalar_type
from .redact import redact_url
from .settings import LoadOptions
from .sources.base import LoadReport
from .writer import ensure_schema

log = logging.getLogger("lineage.bulk")

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


# ------------------------------------------------------------------ CSV
#: Rows of one shape (property names and value types) that get a file of their own; the rows
#: of rarer shapes share one file (neo4j-admin takes ~0.17 s per input file whatever its
#: size, and a row costs it more the more columns its file has: both measured, README)
SHAPE_FILE_ROWS = 5000


class _Shape:
    """The rows of one shape: kept in memory until there are SHAPE_FILE_ROWS of them, then
    written to a file of their own (its header first), and the later ones straight after."""

    __slots__ = ("fh", "multiline", "names", "path", "rows", "types")

    def __init__(self, names: list[str], types: list[str]):
        self.names, self.types = names, types
        self.rows: list[list[str]] | None = []
        self.fh = None
        self.path: Path | None = None  # of its own file
        self.multiline = False  # a field of a row in its own file holds a line break


def _breaks(line: str) -> bool:
    """Whether a row's text holds a line break inside a field (neo4j-admin reads such
    files only with --multiline-fields, which slows its reading of them).

    >>> _breaks('1,"a b"'), _breaks('1,"a\\nb"'), _breaks('1,"a\\rb"')
    (False, True, True)
    """
    return "\n" in line or "\r" in line


class _Shapes:
    """The CSV files of one element kind (nodes or relationships)."""

    def __init__(self, directory: Path, stem: str, columns: tuple[str, ...]):
        self.directory, self.stem, self.columns = directory, stem, columns
        self.shapes: dict[tuple, _Shape] = {}
        self.files: list[Path] = []
        #: the files with a line break inside a field (known once :meth:`close` returned)
        self.multiline: list[Path] = []

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
            line = ",".join(fields)
            if not shape.multiline and _breaks(line):
                shape.multiline = True
            shape.fh.write(line + "\n")
            return
        shape.rows.append(fields)
        if len(shape.rows) >= SHAPE_FILE_ROWS:
            self.own_file(shape)

    def own_file(self, shape: _Shape) -> None:
        """Give a shape that has reached SHAPE_FILE_ROWS its own file."""
        shape.fh = self._open([*self.columns, *(f"{_name(k)}:{t}"
                                                for k, t in zip(shape.names, shape.types))])
        shape.path = self.files[-1]
        lines = [",".join(row) for row in shape.rows]
        shape.multiline = any(map(_breaks, lines))
        shape.fh.writelines(line + "\n" for line in lines)
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
                if shape.multiline:
                    self.multiline.append(shape.path)
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
            multiline = False
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
                    lines = [",".join(line(row + [""])) for row in shape.rows]
                    multiline = multiline or any(map(_breaks, lines))
                    fh.writelines(text + "\n" for text in lines)
            if multiline:
                self.multiline.append(self.files[-1])
        return self.files


#: Relationships from which write_csv writes them in a forked child while this process
#: writes the nodes (below it, the fork costs more than it saves)
FORK_RELATIONSHIPS = 50_000


class CsvFiles(NamedTuple):
    """What :func:`write_csv` wrote: node files, relationship files, the ``--id-type``
    their ``:ID`` columns need (``integer``: numbered nodes; ``string``: uids), and those of
    the files with a line break inside a field (only these need neo4j-admin's slower
    multi-line reading: 10.0 -> 8.9 s for the import of 10^6 elements, README)."""

    nodes: list[Path]
    relationships: list[Path]
    id_type: str
    multiline: list[Path]


def write_csv(graph: _Graph, directory: Path, numbered: bool = True) -> CsvFiles:
    """The folded graph as neo4j-admin CSV: node files (``:ID``, ``uid:string``, ``:LABEL``,
    typed properties) and relationship files (``:START_ID``, ``:END_ID``, ``:TYPE``, typed
    properties), each with its header first; a file per common row shape, one shared by the
    rarer ones. Nodes are numbered in the graph's order and relationships name their ends by
    those numbers (neo4j-admin maps integers faster than strings, and the relationship files
    are a third the size); ``numbered=False``: ``uid:ID`` and uids at the ends instead. With a
    second core and many relationships, a forked child writes the relationships meanwhile."""
    nodes = _Shapes(directory, "nodes", _NUMBERED_NODE_COLUMNS if numbered else _NODE_COLUMNS)
    rels = _Shapes(directory, "relationships", _REL_COLUMNS)
    id_type = "integer" if numbered else "string"
    if len(graph.edges) >= FORK_RELATIONSHIPS and _second_core():
        written = _write_forked(graph, nodes, rels, numbered)
        if written is not None:
            node_files, rel_files, multiline = written
            return CsvFiles(node_files, rel_files, id_type, multiline)
    try:
        _write_nodes(graph, nodes, numbered)
        _write_edges(graph, rels, _numbers(graph) if numbered else None)
    except BaseException:
        nodes.abandon()
        rels.abandon()
        raise
    return CsvFiles(nodes.close(), rels.close(), id_type, [*nodes.multiline, *rels.multiline])


def _numbers(graph: _Graph) -> dict[str, str]:
    """Each node's number as :func:`_write_nodes` gives it: its place in the graph's order."""
    return {uid: str(number) for number, uid in enumerate(graph.nodes)}


def _second_core() -> bool:
    try:
        return len(os.sched_getaffinity(0)) > 1 and hasattr(os, "fork")
    except (AttributeError, OSError):
        return False


def _write_forked(graph: _Graph, nodes: _Shapes, rels: _Shapes, numbered: bool):
    """:func:`write_csv` with the relationships, and the nodes of some kinds
    (:func:`_child_share`), written by a forked child: it sends back its files and the
    empty lists it found (and which of its files are multi-line), or the error that stopped
    it; None when no child could be made."""
    share = _child_share(graph)
    child_nodes = _Shapes(nodes.directory, "nodes-child", nodes.columns)
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
        graph.empty_lists = []

        def edges() -> tuple:  # the numbers made here: the nodes' writer needs no map
            _write_edges(graph, rels, _numbers(graph) if numbered else None)
            if share:  # (else a pass over every node for none)
                _write_nodes(graph, child_nodes, numbered, share, in_share=True)
            return (rels.close(), child_nodes.close(), graph.empty_lists,
                    [*rels.multiline, *child_nodes.multiline])

        _child(edges, (rels, child_nodes), "writing the relationships' CSV", write_end)
    gc.unfreeze()
    os.close(write_end)
    try:
        try:
            _write_nodes(graph, nodes, numbered, share, in_share=False)
        except BaseException:
            nodes.abandon()
            raise
        node_files = nodes.close()
    finally:
        answer = _answer(read_end, pid)
    rel_files, child_node_files, empty_lists, child_multiline = _checked(
        answer, "writing the relationships' CSV")
    graph.empty_lists.extend(empty_lists)
    return node_files + child_node_files, rel_files, [*nodes.multiline, *child_multiline]


#: every how many elements :func:`_child_share` looks at one (a prime: a reader's records
#: come in repeating patterns, a job's four kinds of node say, which a round stride would
#: sample one kind of)
SHARE_SAMPLE = 61


def _child_share(graph: _Graph) -> set[int]:
    """The label lists (by ``id``: the fold shares one per kind) whose nodes the
    relationships' writer writes too, so that both writers have about as many CSV fields
    (estimated from every :data:`SHARE_SAMPLE`-th node and relationship): the largest kinds
    that still fit in the child's half, never more, and only kinds with rows enough for
    files of their own. A kind goes whole to one writer, so that its rows make no more
    files (neo4j-admin takes ~0.17 s a file).

    >>> g = _Graph()
    >>> jobs, hosts = ["Job"], ["Host"]
    >>> for n in range(SHAPE_FILE_ROWS):
    ...     g.nodes[f"j{n}"] = [jobs, {"a": 1, "b": 2}, []]
    ...     g.nodes[f"h{n}"] = [hosts, {}, []]
    >>> _child_share(g) == {id(hosts)}  # no relationships: the kind that fits in half
    True
    >>> for n in range(3 * SHAPE_FILE_ROWS):
    ...     g.edges["USED", f"j{n % 1000}", f"h{n % 1000}", str(n)] = [{}, []]
    >>> _child_share(g)  # more relationship fields than node fields: no node to the child
    set()
    """
    fields: Counter = Counter()
    seen: Counter = Counter()
    for labels, props, _ in itertools.islice(graph.nodes.values(), 0, None, SHARE_SAMPLE):
        fields[id(labels)] += 4 + len(props)
        seen[id(labels)] += 1
    child = sum(4 + len(props) + (key is not None) for (_, _, _, key), (props, _) in
                itertools.islice(graph.edges.items(), 0, None, SHARE_SAMPLE))
    half = (child + sum(fields.values())) / 2
    share = set()
    for labels, count in fields.most_common():  # the largest kinds first, each one that fits
        if seen[labels] * SHARE_SAMPLE < SHAPE_FILE_ROWS:
            continue  # a rare kind stays in the parent's file of rare rows, not in a new one
        if child + count <= half:
            share.add(labels)
            child += count
    return share


def _child(work, files: tuple[_Shapes, ...], what: str, answer_fd: int) -> None:
    """A forked writer: ``work()``'s results, or the error that stopped it, pickled to
    ``answer_fd`` (its open ``files`` closed); then out at once (no atexit handlers or
    buffered output run twice)."""
    status = 1
    try:
        gc.disable()
        try:
            answer = ("done", *work())
        except BaseException as exc:  # noqa: BLE001 - sent to the parent, raised there
            for shapes in files:
                shapes.abandon()
            answer = ("error", exc if isinstance(exc, LineageError)
                      else LineageError(f"{what}: {type(exc).__name__}: {exc}"))
        with os.fdopen(answer_fd, "wb") as pipe:
            pickle.dump(answer, pipe, protocol=pickle.HIGHEST_PROTOCOL)
        status = 0
    finally:
        os._exit(status)


def _answer(answer_fd: int, pid: int) -> tuple[bytes, int]:
    """What a forked writer sent, read until it ended (or was killed), and its wait status."""
    with os.fdopen(answer_fd, "rb") as pipe:
        data = pipe.read()
    return data, os.waitpid(pid, 0)[1]


def _checked(answer: tuple[bytes, int], what: str) -> list:
    """A forked writer's results; its error raised here, or one saying it died."""
    data, status = answer
    if not data:
        raise LineageError(f"the process {what} ended without an answer (wait status "
                           f"{status}: killed, or out of memory?)")
    answer = pickle.loads(data)
    if answer[0] == "error":
        raise answer[1]
    return answer[1:]


def _write_partitions_forked(parts: Partitions, nodes: _Shapes, rels: _Shapes):
    """The partitions folded and written by two processes: this one the nodes, a forked
    child the relationships (each partition's once this one has folded its nodes: their
    numbers go through a pipe). The child sends back its files and what it gathered (empty
    lists, tag counts, each input's relationship counts), or the error that stopped it;
    None when no child could be made."""
    signal_read, signal_write = os.pipe()
    answer_read, answer_write = os.pipe()
    gc.freeze()  # the child's collector must not touch (and so copy) the parent's objects
    try:
        pid = os.fork()
    except OSError:
        gc.unfreeze()
        for fd in (signal_read, signal_write, answer_read, answer_write):
            os.close(fd)
        return None
    if pid == 0:  # the child: relationships, then its answer, then out (no atexit handlers)
        os.close(signal_write)
        os.close(answer_read)
        signals = os.fdopen(signal_read, "rb")

        def wait_seen(partition: int) -> None:
            if len(signals.read(4)) < 4:
                raise LineageError("the process folding the nodes stopped")

        def edges() -> tuple:
            for graph in parts.edge_graphs(wait_seen):
                _write_edges(graph, rels)
            return (rels.close(), parts.empty_lists, parts.tagged,
                    [found.stats for found in parts.inputs], rels.multiline)

        _child(edges, (rels,), "folding the relationships on disk", answer_write)
    gc.unfreeze()
    os.close(signal_read)
    os.close(answer_write)
    signals = os.fdopen(signal_write, "wb", buffering=0)

    def seen(partition: int) -> None:
        try:
            signals.write(partition.to_bytes(4, "little"))
        except BrokenPipeError:
            pass  # the child has stopped: its answer says why

    try:
        try:
            for graph in parts.node_graphs(seen):
                _write_nodes(graph, nodes)
        except BaseException:
            nodes.abandon()
            raise
        finally:
            signals.close()  # the child, waiting for a partition, learns that none comes
        node_files = nodes.close()
    finally:
        answer = _answer(answer_read, pid)
    rel_files, empty_lists, tagged, stats, rel_multiline = _checked(
        answer, "folding the relationships on disk")
    parts.gathered(empty_lists, tagged)
    for found, edge_stats in zip(parts.inputs, stats):
        found.stats.add(edge_stats)
    return node_files, rel_files, [*nodes.multiline, *rel_multiline]


def _write_nodes(graph: _Graph, nodes: _Shapes, numbered: bool = False,
                 share: AbstractSet[int] = frozenset(), in_share: bool = False) -> None:
    """Each node's row; ``numbered``: its place in the graph's order first and its uid a
    property (else the uid is the ID). Only the nodes whose label list's ``id`` is in
    ``share`` (``in_share``) or is not (the default: all nodes)."""
    field = csv_field
    for number, (uid, (labels, props, tags)) in enumerate(graph.nodes.items()):
        if (id(labels) in share) is not in_share:
            continue
        names = sorted(k for k, v in props.items() if v != [])
        if len(names) < len(props):
            graph.empty_lists.append({"uid": uid, "props": {k: [] for k in props
                                                            if props[k] == []}})
        values = [props[k] for k in names]
        head = [str(number), field(uid)] if numbered else [field(uid)]
        nodes.write(names, values, [*head, field(labels), field(tags), *map(field, values)])


def _write_edges(graph: _Graph, rels: _Shapes, ids: dict[str, str] | None = None) -> None:
    """Each relationship's row; ``ids``: its ends by their numbers (:func:`_numbers`; else
    by uid)."""
    field = csv_field
    end = ids.__getitem__ if ids is not None else field
    for (rel, start, stop, key), (props, tags) in graph.edges.items():
        if key is not None:
            props = {**props, "key": key}
        names = sorted(k for k, v in props.items() if v != [])
        if len(names) < len(props):
            graph.empty_lists.append({"start": start, "end": stop, "type": rel, "key": key,
                                      "props": {k: [] for k in props if props[k] == []}})
        values = [props[k] for k in names]
        rels.write(names, values, [end(start), end(stop), rel, field(tags),
                                   *map(field, values)])


_NODE_COLUMNS = ("uid:ID", ":LABEL", "loads:string[]")
_NUMBERED_NODE_COLUMNS = (":ID", "uid:string", ":LABEL", "loads:string[]")
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
    options, paths = options or LoadOptions(), list(paths)  # read twice: sized, then loaded
    state = refuse_unless_empty_managed(lin)
    _remove_leftovers(server.ServerPaths.under(state))
    # The server is stopped while the inputs are parsed (its stop takes seconds that the
    # import would otherwise wait for), which also keeps any other client from writing into
    # the database the import is about to replace; it is started again whatever happens.
    stopping, graph_before = server.BackgroundStop(state), lin.graph
    failing = False
    try:
        with fewer_collections():  # the fold keeps every element in dicts: see collector
            return _parse_and_import(lin, state, stopping, paths, source, progress, options,
                                     fail_fast)
    except BaseException:
        failing = True
        raise
    finally:
        if not stopping.restarted:
            stopping.restart()
        # the server answered Bolt before its web server was up: the schema and the loads'
        # records were written meanwhile (0.5-0.9 s); the load ends once it is all up
        try:
            stopping.await_started()
        except server.ServerError as exc:
            if not failing:
                raise
            log.warning("%s", exc)  # the error already on its way stays the news
        if lin.graph is graph_before:
            _reconnect(lin, state)


def _remove_leftovers(paths: server.ServerPaths) -> None:
    """The CSV and partition directories a bulk load killed before its cleanup left behind
    (up to the size of its input), unless a live bulk load holds this server."""
    if server.bulk_holder(paths) is not None or not paths.root.is_dir():
        return
    for leftover in paths.root.glob("bulk-*"):
        if leftover.is_dir() and not leftover.is_symlink():
            log.info("removing %s, left by a bulk load that did not end", leftover)
            shutil.rmtree(leftover, ignore_errors=True)


def _parse_and_import(lin, state: Path, stopping: server.BackgroundStop, paths, source: str,
                      progress: Progress | None, options: LoadOptions,
                      fail_fast: bool) -> list[LoadResult]:
    results: list[LoadResult] = []
    failures: list[ParseError] = []
    graph = _Graph()
    fold = _Fold(graph, options.bulk_fold_elements, server.ServerPaths.under(state).root,
                 _input_bytes(paths))
    loaded: list[tuple[LoadResult, str, float]] = []  # result, load id, started
    try:
        for item in expand(paths, source):
            if progress:
                progress("start", {"path": item.path,
                                   "format": item.format.name if item.format else None})
            started, t0 = time.time(), time.perf_counter()
            fmt = item.format
            # pending: its relationships are counted when the partitions are folded
            result, pending = first_result(item), False
            if not item.problem and fmt is not None:
                lid = loads.load_id(fmt.name, identity(item))
                if not is_url(item.path):
                    result.sha256 = sha256_of(item.path)
                report = LoadReport(item.path, fmt.name, lenient=options.lenient,
                                    options=options)
                tag = loads.tag_of(lid, 1)
                # the first input with content folds while it is read (the graph is empty,
                # so there is nothing it could conflict with; a failure just empties it)
                folding = fold.first_spool(tag, f"{lid}:", report)
                try:
                    spool = parse_to_spool(item, report, folding)
                except ParseError as exc:
                    if folding is not None:
                        fold.forget()
                    result.status, result.error = "failed", str(exc)
                    result.report, result.seconds = report.summary(), time.perf_counter() - t0
                    loaded.append((result, lid, started))
                    if fail_fast:
                        _finish(lin, state, fold, loaded, options, stopping, progress)
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
                        pending = fold.add(spool, folding, tag, f"{lid}:", report, result)
                        result.status = "loaded"
                finally:
                    spool.close()
                fold.read(item.path)
                result.report, result.seconds = report.summary(), time.perf_counter() - t0
                loaded.append((result, lid, started))
            results.append(result)
            if progress:
                progress("done", {**result.as_dict(), "pending": pending})
        _finish(lin, state, fold, loaded, options, stopping, progress)
    finally:
        fold.close()
    raise_failures(failures, results)
    return results


class _Fold:
    """The bulk load's fold: in memory (``graph``) until it would pass ``budget`` elements,
    then on disk in partitions (:mod:`lineage.bulk_partitions`) under ``directory``."""

    def __init__(self, graph: _Graph, budget: int | None, directory: Path, total_bytes: int):
        self.graph, self.budget, self.directory = graph, budget, directory
        self.partitions: Partitions | None = None
        self.in_memory: list[tuple] = []  # (tag, prefix, report) of inputs in the graph
        self.total_bytes, self.bytes_done = total_bytes, 0

    def first_spool(self, tag: str, prefix: str, report: LoadReport) -> _FoldingSpool | None:
        """A spool that folds while reading, for the first input with content (else None)."""
        if self.graph.nodes or self.partitions is not None:
            return None

        def spill() -> tuple[Partitions, int]:
            self.in_memory.append((tag, prefix, report))
            self._to_disk(report.bytes_read)
            return self.partitions, len(self.in_memory) - 1

        return _FoldingSpool(self.graph, tag, self.budget, spill)

    def add(self, spool, folding: _FoldingSpool | None, tag: str, prefix: str,
            report: LoadReport, result: LoadResult) -> bool:
        """Fold one input's spool in; its write stats go into ``result`` now (False) or,
        when its rows went to the partitions, as they are folded (True)."""
        if folding is not None:
            result.write.add(spool.stats)
            if folding.partitions is not None:
                self.partitions.inputs[folding.number].result = result
                return True
            self.in_memory.append((tag, prefix, report))
            return False
        records = sum(spool.node_counts.values()) + sum(spool.edge_counts.values())
        if (self.partitions is None and self.budget is not None
                and len(self.graph.nodes) + len(self.graph.edges) + records > self.budget):
            self._to_disk(report.bytes_read, records)
        if self.partitions is None:
            result.write.add(self.graph.add_input(spool, tag, prefix, report)[0])
            self.in_memory.append((tag, prefix, report))
            return False
        number = self.partitions.add_input(tag, prefix, report)
        self.partitions.inputs[number].result = result
        self.partitions.add_nodes(number, spool.node_rows())
        self.partitions.add_edges(number, spool.edge_rows())
        return True

    def _to_disk(self, bytes_read: int, more: int = 0) -> None:
        """From now on, the partitions: numbered for the inputs folded so far, holding what
        the graph folded (sized for the inputs' bytes at the rate read so far)."""
        elements = len(self.graph.nodes) + len(self.graph.edges) + more
        done = self.bytes_done + bytes_read
        expected = elements * max(self.total_bytes / done, 1.0) * 1.25 if done > 0 else \
            elements * 8
        self.partitions = Partitions(Path(tempfile.mkdtemp(prefix="bulk-fold-",
                                                          dir=self.directory)),
                                     partitions_for(int(expected), self.budget), self.budget)
        for tag, prefix, report in self.in_memory:
            self.partitions.add_input(tag, prefix, report)
        self.partitions.add_state(self.graph)
        log.info("bulk load: %d graph elements folded, past the budget of %d: folding on "
                 "in %d partitions on disk", elements, self.budget, self.partitions.count)

    def read(self, path: str) -> None:
        """An input was read (its bytes count towards sizing the partitions)."""
        if not is_url(path):
            try:
                self.bytes_done += os.path.getsize(path)
            except OSError:
                pass

    def forget(self) -> None:
        """The first input failed: nothing was folded."""
        self.graph.clear()
        self.in_memory.clear()
        self.close()
        self.partitions = None

    def empty(self) -> bool:
        return not self.graph.nodes and self.partitions is None

    def write_csv(self, directory: Path) -> CsvFiles:
        """The folded graph as neo4j-admin CSV (see :func:`write_csv`); from the partitions
        (whose nodes keep their uids as IDs: numbering them would take a map of every uid),
        each input's write stats and conflict warnings go into its result."""
        if self.partitions is None:
            return write_csv(self.graph, directory)
        parts = self.partitions
        nodes, rels = (_Shapes(directory, "nodes", _NODE_COLUMNS),
                       _Shapes(directory, "relationships", _REL_COLUMNS))
        written = _write_partitions_forked(parts, nodes, rels) if _second_core() else None
        if written is None:
            try:
                for graph in parts.node_graphs():
                    _write_nodes(graph, nodes)
                for graph in parts.edge_graphs():
                    _write_edges(graph, rels)
            except BaseException:
                nodes.abandon()
                rels.abandon()
                raise
            written = nodes.close(), rels.close(), [*nodes.multiline, *rels.multiline]
        for found in parts.inputs:
            if found.result is not None:
                found.result.write.add(found.stats)
                found.result.report = found.report.summary()
        node_files, rel_files, multiline = written
        return CsvFiles(node_files, rel_files, "string", multiline)

    def folded(self) -> list[LoadResult]:
        """The results whose write counts came from the partitions, in input order."""
        if self.partitions is None:
            return []
        return [found.result for found in self.partitions.inputs if found.result is not None]

    def tagged(self) -> dict[str, list[int]]:
        return self.partitions.tagged if self.partitions is not None else self.graph.tagged()

    def empty_lists(self) -> list[dict]:
        return (self.partitions.empty_lists if self.partitions is not None
                else self.graph.empty_lists)

    def close(self) -> None:
        """Remove the partitions' files (what was gathered from them stays)."""
        if self.partitions is not None:
            self.partitions.close()


def _input_bytes(paths) -> int:
    """The size of every file under ``paths`` (URLs count nothing)."""
    total = 0
    for path in paths:
        if is_url(str(path)):
            continue
        path = Path(path)
        if path.is_file():
            total += path.stat().st_size
        elif path.is_dir():
            for root, _, files in os.walk(path):
                for name in files:
                    try:
                        total += os.path.getsize(os.path.join(root, name))
                    except OSError:
                        pass
    return total


def _finish(lin, state: Path, fold: _Fold, loaded: list, options: LoadOptions,
            stopping: server.BackgroundStop, progress: Progress | None = None) -> None:
    """Import the folded graph (when it holds anything) into the stopped server and start it
    again, then the schema and the loads (each step announced as a "step" event)."""
    def step(message: str) -> None:
        if progress:
            progress("step", {"message": f"bulk load: {message}"})

    if not fold.empty():
        paths = server.ServerPaths.under(state)
        work = Path(tempfile.mkdtemp(prefix="bulk-", dir=paths.root))
        try:
            step("folding on disk and writing neo4j-admin CSV" if fold.partitions is not None
                 else f"writing {len(fold.graph.nodes) + len(fold.graph.edges):,} graph "
                      "elements as neo4j-admin CSV")
            files = fold.write_csv(work)
            fold.close()  # the partitions' files, before the import needs the space
            for result in fold.folded() if progress else ():
                progress("folded", result.as_dict())
            every = (*files.nodes, *files.relationships)
            size = sum(f.stat().st_size for f in every) / 2**20
            step(f"importing {len(every)} CSV files ({size:,.0f} MiB) "
                 "with neo4j-admin, then starting Neo4j again")
            server.import_full(state, files.nodes, files.relationships, ARRAY_DELIMITER,
                               report=work / "import.report", id_type=files.id_type,
                               multiline=files.multiline,
                               stopping=stopping)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    else:
        stopping.restart()
    _reconnect(lin, state)
    driver, database = lin.graph.driver, lin.graph.database
    step("creating the model's constraints and indexes")
    ensure_schema(driver, database)
    empty_lists = fold.empty_lists()
    for i in range(0, len(empty_lists), 1000):
        driver.execute_query(_EMPTY_LISTS, rows=empty_lists[i:i + 1000],
                             database_=database)
    tagged = fold.tagged()
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
