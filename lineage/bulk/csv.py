"""The bulk load's graph as neo4j-admin CSV files: a file per common row shape (neo4j-admin
takes ~0.17 s per input file whatever its size, and a row costs it more the more columns its
file has), typed headers, arrays joined by :data:`ARRAY_DELIMITER`, and with a second core a
forked child writing the relationships while this process writes the nodes.

>>> csv_field('5" disk')
'"5"" disk"'
>>> csv_type([1, 2]), csv_type(2.5), csv_type(True), csv_type("x")
('long[]', 'double', 'boolean', 'string')
"""

from __future__ import annotations

import gc
import itertools
import operator
import os
import pickle
from collections import Counter
from pathlib import Path
from typing import AbstractSet, Any, NamedTuple

from ..errors import LineageError
from ..model.records import scalar_type
from .fold import FoldedGraph
from .partitions import Partitions

#: Between the elements of an array value (no loader value holds it: checked while writing).
ARRAY_DELIMITER = "\x1f"


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
            fits = next((i for i, group in enumerate(groups)  # a file whose types agree
                         if all(group.get(name, (t,))[0] == t for name, t in pairs)), None)
            if fits is None:
                groups.append({})
                members.append([])
                fits = -1
            group, shapes = groups[fits], members[fits]
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


def write_csv(graph: FoldedGraph, directory: Path, numbered: bool = True) -> CsvFiles:
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


def _numbers(graph: FoldedGraph) -> dict[str, str]:
    """Each node's number as :func:`_write_nodes` gives it: its place in the graph's order."""
    return {uid: str(number) for number, uid in enumerate(graph.nodes)}


def _second_core() -> bool:
    try:
        return len(os.sched_getaffinity(0)) > 1 and hasattr(os, "fork")
    except (AttributeError, OSError):
        return False


def _write_forked(graph: FoldedGraph, nodes: _Shapes, rels: _Shapes, numbered: bool):
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


def _child_share(graph: FoldedGraph) -> set[int]:
    """The label lists (by ``id``: the fold shares one per kind) whose nodes the
    relationships' writer writes too, so that both writers have about as many CSV fields
    (estimated from every :data:`SHARE_SAMPLE`-th node and relationship): the largest kinds
    that still fit in the child's half, never more, and only kinds with rows enough for
    files of their own. A kind goes whole to one writer, so that its rows make no more
    files (neo4j-admin takes ~0.17 s a file).

    >>> g = FoldedGraph()
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


def _write_nodes(graph: FoldedGraph, nodes: _Shapes, numbered: bool = False,
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


def _write_edges(graph: FoldedGraph, rels: _Shapes, ids: dict[str, str] | None = None) -> None:
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


def write_partitions_csv(parts: Partitions, directory: Path) -> CsvFiles:
    """The graph folded partition by partition (:mod:`.partitions`) as neo4j-admin CSV, its
    nodes keeping their uids as IDs (numbering them would take a map of every uid); with a
    second core a forked child writes the relationships meanwhile."""
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
    node_files, rel_files, multiline = written
    return CsvFiles(node_files, rel_files, "string", multiline)
