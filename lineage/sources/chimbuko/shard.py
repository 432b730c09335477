"""The records of a Chimbuko provenance database shard (an UnQLite file), collection by
collection, read by a child process.

The child asks UnQLite's own script engine (Jx9) for a chunk of records at a time, each as
the JSON text Jx9 writes of it (``json_encode``), and the parent decodes the chunk with
:func:`json.loads`: three times as fast as fetching each record as Python values, the way
the ``unqlite`` package's ``Collection.fetch`` does (a script compiled per record, then a
conversion of every value). The two give the same records, type for type (checked on the
shard stand-in's 8,568 records), except where the JSON text cannot say what the database
holds; such a record is fetched as Python values instead:

- a string that is not UTF-8 (the ``unqlite`` package gives it as ``bytes``);
- the integer -2**63, which Jx9 writes as -2**63 + 1.

A number with a fraction is the one Jx9 stored: Jx9 itself keeps 15 significant digits of
a JSON number it parses (as Chimbuko's records arrive), and writes them back as it read
them.

>>> import unqlite
>>> db = unqlite.UnQLite(":mem:")
>>> metadata = db.collection("metadata")
>>> metadata.create(), metadata.store({"descr": "rank", "value": 3})
(True, 0)
>>> list(collection_chunks(db, "metadata"))
[('texts', '[{"descr":"rank","value":3,"__id":0}]')]
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

from ..base import LoadReport

UNQLITE_MAGIC = b"unqlite"
_OPEN_READONLY = 0x00000001  # UNQLITE_OPEN_READONLY of unqlite.h
_OPEN_MMAP = 0x00000100  # UNQLITE_OPEN_MMAP
UNQLITE_PAGE = 4096  # UNQLITE_DEFAULT_PAGE_SIZE: the page size of the files Chimbuko writes
#: records asked for in one run of the chunk script (about 3 MB of JSON on the stand-in)
CHUNK_RECORDS = 500
#: a chunk ends early once its JSON texts reach this many bytes (a shard of huge records)
CHUNK_BYTES = 8 << 20

#: A chunk of a collection's records as JSON texts, with their ids, in id order; ``$next``
#: the id to go on from (``$stop``, or less when the texts reached ``$budget`` bytes).
_CHUNK_SCRIPT = """
$texts = [];
$ids = [];
$size = 0;
$next = $stop;
for ($i = $first; $i < $stop; $i++) {
  $rec = db_fetch_by_id($collection, $i);
  if ($rec != NULL) {
    $text = json_encode($rec);
    array_push($texts, $text);
    array_push($ids, $i);
    $size += strlen($text);
    if ($size >= $budget) {
      $next = $i + 1;
      break;
    }
  }
}
"""
#: how Jx9 writes -2**63 (one more than it is): a record holding it is fetched as values
_INT64_MIN_AS_JX9_WRITES_IT = "-9223372036854775807"


def _exact(text) -> bool:
    """Whether a record's JSON text says exactly what the database holds (see the module
    docstring).

    >>> _exact('{"a":1}'), _exact(b'{"a":"\\xff"}'), _exact('{"a":-9223372036854775807}')
    (True, False, False)
    """
    return isinstance(text, str) and _INT64_MIN_AS_JX9_WRITES_IT not in text


def collection_chunks(db, name: str, chunk_bytes: int = CHUNK_BYTES) -> Iterator[tuple[str, object]]:
    """One collection's records in id order, as messages for the parent: ``("texts", json
    array text)`` for a run of records given as JSON (at most :data:`CHUNK_RECORDS`
    records, or ``chunk_bytes`` bytes and one record more), ``("records", [record])`` for
    one fetched as Python values."""
    coll = db.collection(name)
    if not coll.exists():
        return
    last = coll.last_record_id()
    if last is None:
        return
    first, stop = 0, int(last) + 1
    while first < stop:
        texts, ids, first = _chunk(db, name, first, min(first + CHUNK_RECORDS, stop),
                                   chunk_bytes)
        run: list[str] = []
        for record_id, text in zip(ids, texts):
            if _exact(text):
                run.append(text)
                continue
            if run:
                yield "texts", "[" + ",".join(run) + "]"
                run = []
            yield "records", [coll.fetch(record_id)]
        if run:
            yield "texts", "[" + ",".join(run) + "]"


def _chunk(db, name: str, first: int, stop: int, budget: int) -> tuple[list, list, int]:
    """The JSON texts and ids of the records ``first`` to ``stop - 1`` of collection
    ``name`` (fewer once the texts reach ``budget`` bytes), and the id to go on from; by a
    script engine of their own: one kept for every chunk holds on to the memory of all of
    them (500 MB for the stand-in's collections, against 190 MB)."""
    vm = db.vm(_CHUNK_SCRIPT)
    try:
        vm.compile()
        vm.set_values({"collection": name, "first": first, "stop": stop, "budget": budget})
        vm.execute()
        going_on = int(vm.get_value("next"))
        if going_on <= first:  # the script always gets past ``first``: else a damaged engine
            raise RuntimeError(f"collection {name}: the chunk script did not get past record {first}")
        return vm.get_value("texts") or [], vm.get_value("ids") or [], going_on
    finally:
        vm.close()


def _read_into(path: str, names: tuple[str, ...], conn) -> None:
    """Read the collections ``names`` of a shard once, in a child process, sending their
    records to the parent in chunks: ``("collections", those present)``, then per
    collection its chunks (see :func:`collection_chunks`) and ``("end", count)`` (the
    collection's own record count), then ``("done",)``; or ``("error", text)``."""
    import unqlite

    try:
        db = unqlite.UnQLite(path, flags=_OPEN_READONLY | _OPEN_MMAP)
        try:
            present = [c for c in names if db.collection(c).exists()]
            conn.send(("collections", present))
            for name in present:
                for message in collection_chunks(db, name):
                    conn.send(message)
                conn.send(("end", len(db.collection(name))))
        finally:
            db.close()
        conn.send(("done",))
    except Exception as exc:  # the parent reports it as a malformed shard
        conn.send(("error", repr(exc)))
    finally:
        conn.close()


def probe_seconds(path: Path, base: float = 30.0) -> float:
    """How long the reader may take to read a shard through: ``base`` seconds (the load's
    ``unqlite_probe_seconds`` option) plus 1 s per MiB."""
    return base + path.stat().st_size / (1 << 20)


class ShardReader:
    """The records of a shard, read once by a child process: the unqlite C library can loop
    forever on a damaged file (found by fuzzing), so a shard the child cannot read within
    :func:`probe_seconds` (time spent waiting for it; parsing here does not count) is
    reported as malformed instead of hanging the load."""

    def __init__(self, path: Path, report: LoadReport, names: tuple[str, ...]):
        import multiprocessing

        self.path, self.report = path, report
        self.budget = probe_seconds(path, report.options.unqlite_probe_seconds)
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(target=_read_into, args=(str(path), names, child), daemon=True)
        self.proc.start()
        child.close()
        self.failed = False

    def next(self) -> tuple | None:
        """The child's next message; None (reported) when it failed or took too long."""
        if self.failed:
            return None
        started = time.monotonic()
        ready = self.conn.poll(max(self.budget, 0))
        try:
            message = self.conn.recv() if ready else None
        except (EOFError, OSError):
            message = ("error", f"the reader process ended (exit code {self.proc.exitcode})")
        self.budget -= time.monotonic() - started
        if message is None:
            self.failed = True
            self.report.skip(str(self.path), None,
                             "an UnQLite database the reader can read through",
                             f"no answer within "
                             f"{probe_seconds(self.path, self.report.options.unqlite_probe_seconds):.0f} s "
                             "(a damaged file?)")
        elif message[0] == "error":
            self.failed = True
            self.report.skip(str(self.path), None, "a readable UnQLite database", message[1])
            return None
        return message

    def records(self, counted: list) -> Iterator[dict]:
        """One collection's records; ``counted[0]`` their number, ``counted[1]`` the
        collection's own count (from the ``end`` message)."""
        while True:
            message = self.next()
            if message is None:
                return
            if message[0] == "end":
                counted[1] = message[1]
                return
            chunk = json.loads(message[1], strict=False) if message[0] == "texts" else message[1]
            counted[0] += len(chunk)
            yield from chunk

    def close(self) -> None:
        if self.proc.is_alive():
            self.proc.terminate()
        self.proc.join(5)
        self.conn.close()


def collections(path: Path, report: LoadReport,
                names: tuple[str, ...]) -> Iterator[tuple[str, Iterator[dict]]]:
    """``(name, records)`` of each collection of ``names`` the shard at ``path`` holds, in
    turn (the child started, and ended at the end); a collection that gave fewer records than its
    own count is reported (a truncated or damaged file), and so is a shard with none of the
    collections, or a file that is not whole pages."""
    reader = ShardReader(Path(path), report, names)
    try:
        message = reader.next()
        if message is None:
            return
        present = message[1]
        if not present:
            report.skip(str(path), None, "an UnQLite provenance database with collections "
                        + ", ".join(names), "none of them")
            return
        report.extra["collections"] = present
        for name in present:
            counted = [0, None]
            yield name, reader.records(counted)
            if reader.failed:
                return
            if counted[0] != counted[1]:  # a truncated or damaged file loses records, not the count
                report.skip(str(path), f"collection {name}",
                            f"its {counted[1]} records (the collection's own count)",
                            f"{counted[0]} readable: the file is truncated or damaged")
        if Path(path).stat().st_size % UNQLITE_PAGE:
            report.warn(f"{path}: {Path(path).stat().st_size} bytes is not a whole number of "
                        f"{UNQLITE_PAGE}-byte UnQLite pages: the file may be truncated")
    finally:
        reader.close()
