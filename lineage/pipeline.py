"""Loading: inputs -> formats -> records -> spool -> writer -> graph, plus a Load record.

Each input is read completely before anything of it is written: records go to a temporary
spool on disk (memory stays flat for inputs of any size), so a malformed input raises its
:class:`~lineage.errors.ParseError` with nothing of that input in the graph. The spool is
then written nodes first, edges second, in batched managed transactions. Every input is
recorded as a ``:Load`` node (source, format, path, sha256, counts, time); reloading the
same content updates that node and leaves the lineage graph as it was.

>>> sha256_of(__file__) == sha256_of(__file__)
True
"""

from __future__ import annotations

import hashlib
import os
import pickle
import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

from . import loaders, model
from .errors import LineageError, ParseError, UnknownFormatError
from .loaders.base import Format, LoadReport
from .records import Edge, Node, as_json, clean_props
from .writer import WriteStats, Writer, ensure_schema

Progress = Callable[[str, dict], None]
_CHUNK = 1000


@dataclass
class LoadResult:
    """The outcome of loading one input."""

    path: str
    format: str | None
    source: str | None
    status: str  # loaded | failed | unrecognised | empty
    sha256: str | None = None
    nodes: dict[str, int] = field(default_factory=dict)
    edges: dict[str, int] = field(default_factory=dict)
    write: WriteStats = field(default_factory=WriteStats)
    report: dict = field(default_factory=dict)
    seconds: float = 0.0
    error: str | None = None

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
            "seconds": round(self.seconds, 3),
            "error": self.error,
        }


def sha256_of(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# ------------------------------------------------------------------ inputs
@dataclass(frozen=True)
class Input:
    """One thing to load: a file (or database URL) and the format that reads it."""

    path: str
    format: Format | None
    explicit: bool  # named by the user (not found by walking a directory)


def is_url(text: str) -> bool:
    return "://" in text and not Path(text).exists()


_URL_PASSWORD = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*://[^:/@]*):[^@]*@")


def redact_url(text: str) -> str:
    """A database URL without its password, for messages and the :Load record.

    >>> redact_url("postgresql://alice:s3cret@db:5432/provdb")
    'postgresql://alice:***@db:5432/provdb'
    """
    return _URL_PASSWORD.sub(r"\1:***@", text)


def expand(paths: Iterable[str | os.PathLike], source: str = "auto") -> Iterator[Input]:
    """Inputs from files, directories (walked in sorted order) and database URLs."""
    for raw in paths:
        text = str(raw)
        if is_url(text):
            yield Input(text, loaders.for_url(text, source), True)
            continue
        path = Path(text)
        if not path.exists():
            raise LineageError(f"{path}: no such file or directory")
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if name.startswith("."):
                        continue
                    child = Path(root) / name
                    yield Input(str(child), loaders.detect(child, source), False)
        else:
            fmt = loaders.detect(path, source)
            if fmt is None:
                what = "any known format" if source == "auto" else f"a {source} format"
                raise UnknownFormatError(
                    f"{path}: not recognised as {what}; "
                    f"use --source to force one (pegasus, swift, chimbuko, xalt)"
                )
            yield Input(str(path), fmt, True)


# ------------------------------------------------------------------ spool
class _Spool:
    """Records parsed from one input, kept on disk until the input is known to be good."""

    def __init__(self, directory: str | None = None):
        self.nodes = tempfile.TemporaryFile(dir=directory)
        self.edges = tempfile.TemporaryFile(dir=directory)
        self._node_buf: list[tuple] = []
        self._edge_buf: list[tuple] = []
        self.node_counts: dict[str, int] = {}
        self.edge_counts: dict[str, int] = {}

    def add(self, record: Node | Edge) -> None:
        if isinstance(record, Node):
            clean_props(record.props)  # unstorable values fail here, before anything is written
            self._node_buf.append((record.kind.label, record.uid, record.props, record.extra_labels))
            self.node_counts[record.kind.label] = self.node_counts.get(record.kind.label, 0) + 1
            if len(self._node_buf) >= _CHUNK:
                self._flush_nodes()
        elif isinstance(record, Edge):
            clean_props(record.props)
            self._edge_buf.append((record.rel.name, record.start, record.end, record.props, record.key))
            self.edge_counts[record.rel.name] = self.edge_counts.get(record.rel.name, 0) + 1
            if len(self._edge_buf) >= _CHUNK:
                self._flush_edges()
        else:
            raise TypeError(f"a loader yielded {type(record).__name__}, not a Node or Edge")

    def _flush_nodes(self) -> None:
        pickle.dump(self._node_buf, self.nodes, protocol=pickle.HIGHEST_PROTOCOL)
        self._node_buf = []

    def _flush_edges(self) -> None:
        pickle.dump(self._edge_buf, self.edges, protocol=pickle.HIGHEST_PROTOCOL)
        self._edge_buf = []

    def seal(self) -> None:
        if self._node_buf:
            self._flush_nodes()
        if self._edge_buf:
            self._flush_edges()

    @staticmethod
    def _chunks(fh) -> Iterator[list[tuple]]:
        fh.seek(0)
        while True:
            try:
                yield pickle.load(fh)
            except EOFError:
                return

    def iter_nodes(self) -> Iterator[Node]:
        kinds = model.NODE_KINDS
        for chunk in self._chunks(self.nodes):
            for label, uid, props, extra in chunk:
                yield Node(kinds[label], uid, props, extra)

    def iter_edges(self) -> Iterator[Edge]:
        rels = model.REL_TYPES
        for chunk in self._chunks(self.edges):
            for rel, start, end, props, key in chunk:
                yield Edge(rels[rel], start, end, props, key)

    def close(self) -> None:
        self.nodes.close()
        self.edges.close()


def parse_to_spool(item: Input, report: LoadReport) -> _Spool:
    """Parse one input completely into a spool (raises on malformed input in strict mode)."""
    spool = _Spool()
    try:
        assert item.format is not None
        for record in item.format.parse(Path(item.path) if not is_url(item.path) else item.path,
                                        report):
            try:
                spool.add(record)
            except TypeError as exc:  # a loader bug: say so, and write nothing of the input
                raise LineageError(f"{item.path}: the {item.format.name} loader produced "
                                   f"a record Neo4j cannot store: {exc}") from exc
        spool.seal()
    except BaseException:
        spool.close()
        raise
    return spool


# ------------------------------------------------------------------ load records
LOAD_STATEMENT = """
MERGE (l:Load {uid: $uid})
SET l += $props, l.times_loaded = coalesce(l.times_loaded, 0) + 1
"""


def _record_load(writer: Writer, result: LoadResult, started: float) -> None:
    uid = f"load:{result.format}:{result.sha256 or result.path}"
    props = {
        "source": result.source,
        "format": result.format,
        "path": result.path,
        "sha256": result.sha256,
        "status": result.status,
        "started_at": started,
        "finished_at": time.time(),
        "seconds": round(result.seconds, 3),
        "node_records": sum(result.nodes.values()),
        "edge_records": sum(result.edges.values()),
        "unresolved_edges": result.write.unresolved_edges,
        "counts": as_json({"nodes": result.nodes, "edges": result.edges}),
        "skipped": as_json(result.report.get("skipped", {})),
        "unknown": as_json(result.report.get("unknown", {})),
        "warnings": as_json(result.report.get("warnings", [])[:20]),
        "error": result.error,
    }
    props = {k: v for k, v in props.items() if v is not None}
    writer.driver.execute_query(LOAD_STATEMENT, uid=uid, props=props, database_=writer.database)


def load_input(writer: Writer, item: Input, lenient: bool = False) -> LoadResult:
    """Parse one input fully, then write it; on a parse error nothing of it is written."""
    started = time.time()
    t0 = time.perf_counter()
    fmt = item.format
    result = LoadResult(redact_url(item.path), fmt.name if fmt else None,
                        fmt.source if fmt else None, "unrecognised")
    if fmt is None:
        return result
    if not is_url(item.path):
        result.sha256 = sha256_of(item.path)
    report = LoadReport(item.path, fmt.name, lenient=lenient)
    try:
        spool = parse_to_spool(item, report)
    except ParseError as exc:
        result.status, result.error = "failed", str(exc)
        result.report = report.summary()
        result.seconds = time.perf_counter() - t0
        _record_load(writer, result, started)
        raise
    try:
        result.nodes, result.edges = spool.node_counts, spool.edge_counts
        result.report = report.summary()
        if not result.nodes and not result.edges:
            result.status = "empty"
        else:
            result.write.add(writer.write_nodes(spool.iter_nodes()))
            result.write.add(writer.write_edges(spool.iter_edges()))
            result.status = "loaded"
    finally:
        spool.close()
    result.seconds = time.perf_counter() - t0
    _record_load(writer, result, started)
    return result


def load(
    writer: Writer,
    paths: Iterable[str | os.PathLike],
    source: str = "auto",
    lenient: bool = False,
    progress: Progress | None = None,
) -> list[LoadResult]:
    """Load every input under ``paths``; stops at the first malformed input unless lenient.

    Files found by walking a directory that no format recognises are reported with status
    ``unrecognised`` and not loaded; a file named explicitly must be recognised.
    """
    ensure_schema(writer.driver, writer.database)
    results: list[LoadResult] = []
    for item in expand(paths, source):
        if progress:
            progress("start", {"path": item.path, "format": item.format.name if item.format else None})
        result = load_input(writer, item, lenient=lenient)
        results.append(result)
        if progress:
            progress("done", result.as_dict())
    return results
