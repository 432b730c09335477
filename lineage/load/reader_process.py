"""Reading a large input in a forked child process while this one checks and keeps its records.

A format's reader is pure Python on one core, and checking each record against the model and
spooling it is more than half as much work again (a Pegasus BP stream: 2.3-2.6 s against
1.3-1.8 s per 200,000 events); on a machine with a second core the two can overlap.
For a file input of at least ``LoadOptions.reader_process_bytes`` (16 MiB by default), the
reader runs in a child process made with ``fork`` (it inherits the reader, the load options
and the report, nothing is imported again) that sends its records in pickled chunks; this
process checks and keeps them exactly as it does the records of a reader it runs itself.
What the child's report gathered (skips, unknown items, warnings, the reader's counters) is
merged back into this process's report at the end; an exception the reader raised is raised
here, after the records it sent before it.

>>> from lineage.sources.registry import formats
>>> bp = next(f for f in formats() if f.name == "pegasus-bp")
>>> from lineage.sources.options import LoadOptions
>>> worth_a_process(bp, __file__, LoadOptions(reader_process_bytes=0))  # every file
True
>>> worth_a_process(bp, __file__, LoadOptions())  # 16 MiB and more
False
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
from collections import Counter
from pathlib import Path
from collections.abc import Iterator
from typing import Any

from .. import model
from ..errors import LineageError
from ..model.records import Edge, Node
from ..sources.options import LoadOptions
from ..sources.base import MAX_MESSAGES, Format, LoadReport

#: records per message from the child (big enough that pickling a list pays, small enough
#: that the parent starts at once and memory stays flat)
CHUNK_RECORDS = 2000


def worth_a_process(fmt: Format, path: Any, options: LoadOptions) -> bool:
    """Whether ``path`` is read in a child process: a local file of at least
    ``options.reader_process_bytes`` (``None``: never) in a format that does not read in a
    process of its own already, with a second core to run on and ``fork`` available.

    >>> from lineage.sources.registry import formats
    >>> worth_a_process(formats()[0], __file__, LoadOptions(reader_process_bytes=None))
    False
    """
    limit = options.reader_process_bytes
    if limit is None or fmt.own_process or "fork" not in multiprocessing.get_all_start_methods():
        return False
    try:
        if len(os.sched_getaffinity(0)) < 2 and limit > 0:
            return False
        return Path(path).is_file() and Path(path).stat().st_size >= limit
    except (OSError, TypeError, ValueError):
        return False


class ReaderProcessError(LineageError):
    """The child process reading an input ended without saying why (killed, out of memory)."""


def records(parse, source: Any, report: LoadReport) -> Iterator[tuple]:
    """``parse(source, report)``'s records as rows, read in a forked child: ``(kind, uid,
    props, extra labels)`` for a node (``kind`` a :class:`~lineage.model.NodeKind`) and
    ``(rel, start, end, props, key)`` for a relationship (``rel`` a
    :class:`~lineage.model.RelType`); anything else the reader yields comes as it is (the
    caller refuses it). The child's report is merged into ``report`` when the reader is done.
    """
    ctx = multiprocessing.get_context("fork")
    receiver, sender = ctx.Pipe(duplex=False)
    # a daemon: ended at exit, should anything keep this generator open (readers that start
    # a process of their own cannot run in it: Format.own_process keeps them here)
    child = ctx.Process(target=_read, args=(parse, source, report, sender), daemon=True)
    before = _state(report)
    child.start()
    sender.close()
    try:
        while True:
            try:
                message = pickle.loads(receiver.recv_bytes())
            except (EOFError, OSError):
                child.join(5)
                raise ReaderProcessError(
                    f"{report.path}: the process reading it ended without finishing "
                    f"(exit code {child.exitcode}: killed, or out of memory?)") from None
            what = message[0]
            if what == "rows":
                report.bytes_read = message[1]
                yield from _rows(message[2])
            elif what == "done":
                _merge(report, before, message[1])
                return
            else:  # "error": the reader's exception, after the records it yielded before it
                _merge(report, before, message[1])
                raise message[2]
    finally:
        receiver.close()
        if child.is_alive():
            child.terminate()
        child.join(5)


_NODE_KINDS, _REL_TYPES = model.NODE_KINDS, model.REL_TYPES


def _rows(chunk: list) -> Iterator[tuple]:
    kinds, rels = _NODE_KINDS, _REL_TYPES
    for row in chunk:
        if type(row) is not tuple:
            yield row  # a whole Node or Edge, or what stands for a record the spool refuses
        elif len(row) == 4:
            yield (kinds[row[0]], *row[1:])
        else:
            yield (rels[row[0]], *row[1:])


def _other(record: Any) -> Any:
    """A record that is not a Node or Edge of the model's own kinds: another Node or Edge
    as it is; anything else as a :class:`Refused` naming its type (the spool refuses it as
    it refuses such a record read in this process)."""
    if isinstance(record, (Node, Edge)):
        return record
    return Refused(f"a loader yielded {type(record).__name__}, not a Node or Edge")


class Refused:
    """Stands for a record the child cannot send as a row; ``refusal`` says why (the spool
    raises it as the TypeError it raises for such a record read in this process)."""

    def __init__(self, refusal: str):
        self.refusal = refusal


def _read(parse, source: Any, report: LoadReport, sender) -> None:
    """The child: run the reader, send its records in chunks, then its report."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    report.on_progress = None  # the parent shows progress
    chunk: list = []
    # the model's own kinds and types go by name (written out here: a function call per
    # record costs the child, the busier of the two processes, a fifth of its time)
    node_kinds = {id(k) for k in _NODE_KINDS.values()}
    rel_types = {id(r) for r in _REL_TYPES.values()}
    try:
        try:
            for record in parse(source, report):
                kind = type(record)
                if kind is Node and id(record.kind) in node_kinds:
                    chunk.append((record.kind.label, record.uid, record.props,
                                  record.extra_labels))
                elif kind is Edge and id(record.rel) in rel_types:
                    chunk.append((record.rel.name, record.start, record.end, record.props,
                                  record.key))
                else:
                    chunk.append(_other(record))
                if len(chunk) >= CHUNK_RECORDS:
                    _send(sender, ("rows", report.bytes_read, chunk))
                    chunk = []
        except Exception as exc:  # noqa: BLE001 - raised in the parent, after the records
            if chunk:
                _send(sender, ("rows", report.bytes_read, chunk))
            _send(sender, ("error", _summary(report), _portable(exc)))
            return
        if chunk:
            _send(sender, ("rows", report.bytes_read, chunk))
        _send(sender, ("done", _summary(report)))
    except (BrokenPipeError, EOFError, OSError):
        pass  # the parent stopped listening (it failed or was interrupted)
    finally:
        sender.close()
        os._exit(0)  # no atexit handlers or buffered output of the parent run twice


def _send(sender, message: tuple) -> None:
    try:
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # a value pickle cannot carry: send the records one by one
        if message[0] != "rows":
            raise
        data = pickle.dumps(("rows", message[1], [_picklable(r) for r in message[2]]),
                            protocol=pickle.HIGHEST_PROTOCOL)
    sender.send_bytes(data)


def _picklable(row: Any) -> Any:
    try:
        pickle.dumps(row, protocol=pickle.HIGHEST_PROTOCOL)
        return row
    except Exception as exc:  # noqa: BLE001 - the spool refuses the record, saying why
        return Refused(f"a record holding a value that cannot be stored "
                       f"({type(exc).__name__}: {exc})")


def _portable(exc: BaseException) -> BaseException:
    """``exc`` if it survives pickling as itself, else a :class:`LineageError` saying it."""
    try:
        back = pickle.loads(pickle.dumps(exc, protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:  # noqa: BLE001 - any failure to carry it: send its text
        back = None
    if type(back) is type(exc) and str(back) == str(exc):
        return exc
    return LineageError(f"{type(exc).__name__}: {exc}")


def _state(report: LoadReport) -> dict:
    return {"skipped": Counter(report.skipped), "unknown": Counter(report.unknown),
            "warnings": len(report.warnings), "warning_count": report.warning_count}


def _summary(report: LoadReport) -> dict:
    return {"skipped": report.skipped, "unknown": report.unknown, "warnings": report.warnings,
            "warning_count": report.warning_count, "extra": report.extra,
            "bytes_read": report.bytes_read}


def _merge(report: LoadReport, before: dict, child: dict) -> None:
    """The child's report (which began as ``report`` did at the fork) with what this process
    added since (its own skips while checking records)."""
    added_warnings = report.warnings[before["warnings"]:]
    report.skipped = child["skipped"] + (report.skipped - before["skipped"])
    report.unknown = child["unknown"] + (report.unknown - before["unknown"])
    report.warning_count = child["warning_count"] + report.warning_count - before["warning_count"]
    report.warnings = (child["warnings"] + added_warnings)[:MAX_MESSAGES]
    report.extra.update(child["extra"])
    report.bytes_read = child["bytes_read"]
