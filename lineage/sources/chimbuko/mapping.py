"""Chimbuko's provenance database into lineage records: JSON exports, the file tree written
without a database, and the UnQLite shards themselves.

What is read (the record schema of CODARcode/PerformanceAnalysis, ``provdb_schema.rst``):

- ``anomalies`` / ``normalexecs`` records: one function execution each, with its call
  stack, the execution window (executions with parent links, in entry order) and the
  communication window (MPI sends and receives) on the same thread, counter events, GPU
  location and CPU parent, node state and the detection parameters. Three generations:
  ``func_stats`` inside the event (oldest), ``algo_params`` without ``version``, and
  ``version: 2``; histogram keys ``Histogram Bin Counts``/``Histogram Bin Edges`` or
  ``Bin Counts``/``First edge``/``Bin width``/``Min``/``Max``.
- ``metadata`` records (``descr``, ``rid``, ``tid``, ``value``; ``pid`` when recent).
- The global database: ``func_stats`` (per-function runtime profile and anomaly metrics),
  ``counter_stats`` and ``ad_model``.

An event label ``rank:io_step:idx`` is unique only within a program of one run, so an
execution's uid is ``chimbuko:event:<run>:<pid>:<label>`` (the run named by :func:`run_key`);
the same execution seen in many records is one node.

>>> from lineage.sources.base import LoadReport
>>> rec = {"pid": 0, "rid": 1, "tid": 0, "event_id": "1:0:7", "fid": 3, "func": "f",
...        "entry": 10, "exit": 20, "runtime_total": 10, "runtime_exclusive": 10,
...        "io_step": 0, "call_stack": [{"event_id": "1:0:7", "fid": 3, "func": "f",
...        "entry": 10, "exit": 20, "is_anomaly": True},
...        {"event_id": "1:0:1", "fid": 1, "func": "main", "entry": 1, "exit": 0}]}
>>> recs = list(parse_records([rec], LoadReport("/runs/xgc/x.json", "chimbuko-json")))
>>> sorted({r.uid for r in recs if hasattr(r, "uid")})[:2]
['chimbuko:event:xgc-bafe488e:0:1:0:1', 'chimbuko:event:xgc-bafe488e:0:1:0:7']
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

from ... import model
from . import model as chimbuko_model
from . import shard
from .spellings import generation, stack_of_names
from ...model.records import Edge, Node, Record, as_json
from ...secrets import redact_command_line
from ..base import Format, LoadReport

EVENT_COLLECTIONS = ("anomalies", "normalexecs")
MAIN_COLLECTIONS = ("anomalies", "normalexecs", "metadata")
GLOBAL_COLLECTIONS = ("func_stats", "counter_stats", "ad_model")
GLOBAL_FILES = {
    "global_func_stats.json": "func_stats",
    "global_counter_stats.json": "counter_stats",
    "ad_model.json": "ad_model",
}
_TREE_FILE = re.compile(r"^(\d+)\.(anomalies|normalexecs|metadata)\.json$")
_SEEN_LIMIT = 500_000  # bounded de-duplication memory (repeats are harmless, just slower)

#: Metadata descriptions copied to flat Rank properties (all of them stay in ``metadata``).
RANK_METADATA = {
    "Hostname": "hostname",
    "Command Line": "command_line",
    "Executable": "executable",
    "CWD": "cwd",
    "MPI Comm World Size": "mpi_world_size",
    "TAU Version": "tau_version",
    "OS Name": "os_name",
    "OS Release": "os_release",
    "CPU Type": "cpu_type",
    "Memory Size": "memory_size",
    "Starting Timestamp": "start_timestamp",
    "Local Time": "local_time",
}
RUNSTATS_KEYS = ("accumulate", "count", "mean", "stddev", "skewness", "kurtosis",
                 "minimum", "maximum")


class _Bad(Exception):
    """A record that does not follow the schema."""

    def __init__(self, expected: str, found: Any = ""):
        super().__init__(expected)
        self.expected = expected
        self.found = found if isinstance(found, str) else repr(found)


# ---------------------------------------------------------------- uids and small helpers
def run_key(path: Path, options=None) -> str:
    """The name of the Chimbuko run an input belongs to: the load option ``chimbuko_run``
    when given, else the run's directory (the folder of the provDB files or JSON exports;
    the root of a ``<root>/<pid>/<rank>/<step>.<collection>.json`` tree) by its name and the
    first 8 hex digits of the SHA-256 of its absolute path. Chimbuko records no run identity
    of its own, so this keeps two runs (both ``pid`` 0) from merging; the same files moved
    elsewhere are another run unless named.

    >>> run_key(Path("/data/xgc/provdb/provdb.0.unqlite"))
    'provdb-cb863580'
    >>> run_key(Path("/data/xgc/prov/0/3/12.anomalies.json"))
    'prov-77512939'
    >>> from lineage.sources.options import LoadOptions
    >>> run_key(Path("a.json"), LoadOptions(chimbuko_run="xgc-june"))
    'xgc-june'
    """
    named = getattr(options, "chimbuko_run", None)
    if named:
        return named
    folder = run_folder(path)
    digest = hashlib.sha256(str(folder).encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"{folder.name or 'root'}-{digest}"


def run_folder(path: Path) -> Path:
    """The absolute folder of a Chimbuko run's files (see :func:`run_key`)."""
    folder = Path(os.path.abspath(path)).parent
    if _TREE_FILE.match(path.name) and folder.name.isdigit() and folder.parent.name.isdigit():
        folder = folder.parent.parent
    return folder


# uid makers remembering recent uids: a record names its executions, rank and function in
# every edge it states
_RUN_UID = model.remembering_uid(chimbuko_model.PROGRAM_RUN)
_RANK_UID = model.remembering_uid(chimbuko_model.RANK)
_FUNCTION_UID = model.remembering_uid(chimbuko_model.FUNCTION)
_EVENT_UID = model.remembering_uid(chimbuko_model.FUNCTION_EXECUTION)


def run_uid(run: str, pid: int) -> str:
    """The uid.

    >>> run_uid("r", 0)
    'chimbuko:run:r:0'
    """
    return _RUN_UID(run, pid)


def rank_uid(run: str, pid: int, rid: int) -> str:
    """The uid.

    >>> rank_uid("r", 0, 3)
    'chimbuko:rank:r:0:3'
    """
    return _RANK_UID(run, pid, rid)


def function_uid(run: str, pid: int, fid: int) -> str:
    """The uid.

    >>> function_uid("r", 0, 42)
    'chimbuko:function:r:0:42'
    """
    return _FUNCTION_UID(run, pid, fid)


def event_uid(run: str, pid: int, label: str) -> str:
    """The uid.

    >>> event_uid("r", 1, "0:12:225")
    'chimbuko:event:r:1:0:12:225'
    """
    return _EVENT_UID(run, pid, label)


def parse_label(label: Any) -> tuple[int, int, int]:
    """The rank, io step and index of an event label (``rank:step:idx``, or
    ``rank-eid:step:idx`` as Chimbuko's ``generate_event_id(rank, step, idx, eid)`` writes).

    >>> parse_label("0:12:225"), parse_label("3-1:12:225")
    ((0, 12, 225), (3, 12, 225))
    """
    try:
        rank, step, idx = label.split(":")
        rank, sep, eid = rank.partition("-")
        if sep and not eid.isdigit():
            raise ValueError(eid)
        out = int(rank), int(step), int(idx)
    except (AttributeError, ValueError):
        raise _Bad("an event label 'rank:io_step:idx'", label) from None
    if min(out) < 0:
        raise _Bad("an event label 'rank:io_step:idx'", label)
    return out


def _int(rec: dict, key: str, required: bool = True) -> int | None:
    value = rec.get(key)
    if value is None:
        if required:
            raise _Bad(f"an integer {key!r}", "nothing")
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
        if isinstance(value, str) and value.lstrip("-").isdigit():
            return int(value)
        raise _Bad(f"an integer {key!r}", value)
    return int(value)


def _num(value: Any) -> int | float | None:
    kind = type(value)
    return value if kind is int or kind is float else None


def _time(value: Any) -> int | None:
    """A timestamp in microseconds; 0 means "not yet" in Chimbuko and becomes unknown."""
    value = _num(value)
    return int(value) if value else None


def _runstats(prefix: str, stats: Any) -> dict:
    """Flat properties of a RunStats object.

    >>> _runstats("excl_", {"mean": 2.0, "count": 3})
    {'excl_count': 3, 'excl_mean': 2.0}
    """
    if not isinstance(stats, dict):
        return {}
    return {f"{prefix}{k}": _num(stats.get(k)) for k in RUNSTATS_KEYS if _num(stats.get(k)) is not None}


def detection_params(params: Any) -> dict:
    """Flat properties of detection parameters (SSTD statistics or a histogram, either spelling).

    >>> p = detection_params({"histogram": {"Bin Counts": [2, 1], "First edge": 1.0,
    ...     "Bin width": 0.5, "Min": 1, "Max": 2}, "internal_global_threshold": 2.3})
    >>> p["algo_kind"], p["hist_edges"], p["algo_threshold"]
    ('histogram', [1.0, 1.5, 2.0], 2.3)
    >>> detection_params({"histogram": {"Histogram Bin Counts": [1],
    ...     "Histogram Bin Edges": [0, 4]}})["hist_edges"]
    [0.0, 4.0]
    """
    if not isinstance(params, dict):
        return {}
    out: dict[str, Any] = {}
    hist = params.get("histogram")
    if isinstance(hist, dict):
        counts = hist.get("Histogram Bin Counts", hist.get("Bin Counts"))
        edges = hist.get("Histogram Bin Edges")
        first, width = _num(hist.get("First edge")), _num(hist.get("Bin width"))
        if edges is None and isinstance(counts, list) and first is not None and width is not None:
            edges = [first + i * width for i in range(len(counts) + 1)]
        out["algo_kind"] = "histogram"
        if isinstance(counts, list):
            out["hist_counts"] = [int(c) for c in counts if _num(c) is not None]
        if isinstance(edges, list):
            out["hist_edges"] = [float(e) for e in edges if _num(e) is not None]
        out["hist_min"] = _num(hist.get("Min"))
        out["hist_max"] = _num(hist.get("Max"))
        out["hist_bin_width"] = width
        out["algo_threshold"] = _num(params.get("internal_global_threshold"))
    elif "mean" in params or "stddev" in params:
        out["algo_kind"] = "sstd"
        out.update(_runstats("algo_", params))
    else:
        out["algo_kind"] = "other"
        out["algo_threshold"] = _num(params.get("internal_global_threshold"))
    out["algo_params"] = as_json(params)
    return out


def record_version(rec: dict) -> int:
    """The record generation (lineage/sources/chimbuko/spellings.py, GENERATIONS): -2 and
    -1 (2019: call stacks of names), 0 (``func_stats`` inside), 1 (``algo_params``, no
    version), 2+.

    >>> record_version({"event_id": "0:0:1", "func_stats": {}}), record_version({"algo_params": {}})
    (0, 1)
    >>> record_version({"algo_params": {}, "version": 2})
    2
    """
    return generation(rec)


def classify(rec: Any) -> str | None:
    """Which collection a record belongs to, from its keys (None: not a Chimbuko record).

    ``anomalies`` and ``normalexecs`` records look alike; both come back as ``event``.

    >>> classify({"descr": "Hostname", "rid": 0, "tid": 0, "value": "n1"})
    'metadata'
    >>> classify({"app": 0, "fid": 1, "fname": "f", "runtime_profile": {}})
    'func_stats'
    """
    if not isinstance(rec, dict):
        return None
    if "event_id" in rec and "fid" in rec and ("call_stack" in rec or "rid" in rec):
        return "event"
    if "func" in rec and "func_stats" in rec and "call_stack" in rec and "rid" in rec:
        return "event"  # generation -2: no event_id, 'func' holds the event label
    if "descr" in rec and "value" in rec and "rid" in rec:
        return "metadata"
    if "fid" in rec and ("runtime_profile" in rec or "anomaly_metrics" in rec):
        return "func_stats"
    if "counter" in rec and "stats" in rec:
        return "counter_stats"
    if "fid" in rec and "model" in rec:
        return "ad_model"
    return None


@dataclass(frozen=True)
class Hints:
    """What a file's name and place say: collection, program index, rank and io step."""

    collection: str | None = None
    pid: int | None = None
    rank: int | None = None
    step: int | None = None


def path_hints(path: Path) -> Hints:
    """Hints from the file tree ``<dir>/<pid>/<rank>/<step>.<collection>.json`` or a name.

    >>> path_hints(Path("prov/0/3/12.anomalies.json"))
    Hints(collection='anomalies', pid=0, rank=3, step=12)
    >>> path_hints(Path("out/global_func_stats.json")).collection
    'func_stats'
    >>> path_hints(Path("provdb_v0_normalexecs.json")).collection
    'normalexecs'
    """
    name = path.name
    m = _TREE_FILE.match(name)
    if m:
        rank_dir, pid_dir = path.parent.name, path.parent.parent.name
        if rank_dir.isdigit() and pid_dir.isdigit():
            return Hints(m.group(2), int(pid_dir), int(rank_dir), int(m.group(1)))
        return Hints(m.group(2), step=int(m.group(1)))
    if name in GLOBAL_FILES:
        return Hints(GLOBAL_FILES[name])
    for coll in MAIN_COLLECTIONS:
        if coll in name:
            return Hints(coll)
    return Hints()


# ---------------------------------------------------------------- records to graph records
class _Builder:
    """Turns Chimbuko records into nodes and edges, remembering what it already emitted."""

    def __init__(self, report: LoadReport, hints: Hints = Hints()):
        self.report = report
        self.hints = hints
        self.run = run_key(Path(report.path), report.options)
        # the folder that names the run (none when the run was named by the load option)
        self.run_dir = None if getattr(report.options, "chimbuko_run", None) else str(
            run_folder(Path(report.path)))
        self.seen: set = set()
        self.meta: dict[tuple[int, int], dict] = {}
        self.counter_stats: dict[int, dict] = {}
        self.counts = report.extra.setdefault(
            "records", {"anomalies": 0, "normalexecs": 0, "metadata": 0, "func_stats": 0,
                        "counter_stats": 0, "ad_model": 0})
        self.pid_missing_warned = False

    # ------------------------------------------------------------ de-duplication
    def _first(self, key) -> bool:
        seen = self.seen
        if key in seen:
            return False
        if len(seen) >= _SEEN_LIMIT:
            seen.clear()
        seen.add(key)
        return True

    def _run(self, pid: int) -> Iterator[Record]:
        if self._first(("run", pid)):
            yield Node(chimbuko_model.PROGRAM_RUN, run_uid(self.run, pid), {
                "name": f"chimbuko program {pid} of {self.run}", "pid": pid, "run": self.run,
                "run_dir": self.run_dir})

    def _rank(self, pid: int, rid: int, props: dict | None = None) -> Iterator[Record]:
        if props or self._first(("rank", pid, rid)):
            yield from self._run(pid)
            yield Node(chimbuko_model.RANK, rank_uid(self.run, pid, rid),
                       {"name": f"rank {rid} of program {pid}", "pid": pid, "rank": rid,
                        **(props or {})})
            if self._first(("rank-run", pid, rid)):
                yield Edge(model.PART_OF, rank_uid(self.run, pid, rid), run_uid(self.run, pid))

    def _function(self, pid: int, fid: int, name: Any, props: dict | None = None) -> Iterator[Record]:
        key = ("func", pid, fid)
        if props or self._first(key):
            yield from self._run(pid)
            yield Node(chimbuko_model.FUNCTION, function_uid(self.run, pid, fid),
                       {"name": name if isinstance(name, str) else None, "fid": fid, "pid": pid,
                        **(props or {})})
            if self._first(("func-run", pid, fid)):
                yield Edge(model.PART_OF, function_uid(self.run, pid, fid), run_uid(self.run, pid))

    def _pid(self, rec: dict) -> int:
        pid = _int(rec, "pid", required=False)
        if pid is None:
            pid = self.hints.pid
        if pid is None:
            if not self.pid_missing_warned:
                self.report.warn(f"{self.report.path}: records without 'pid': program 0 assumed")
                self.pid_missing_warned = True
            pid = 0
        return pid

    # ------------------------------------------------------------ executions
    def _execution(self, pid: int, entry: dict, tid: int | None, extra: dict | None = None,
                   labels: tuple[str, ...] = ()) -> Iterator[Record]:
        """One execution as seen in a call stack or a window (or the record's own)."""
        label = entry.get("event_id")
        rid, step, idx = parse_label(label)
        uid = event_uid(self.run, pid, label)
        fid = _int(entry, "fid", required=False)
        start, end = _time(entry.get("entry")), _time(entry.get("exit"))
        anomalous = entry.get("is_anomaly")
        light = extra is None
        if light and not self._first(("exec", uid, end is not None)):
            return
        func = entry.get("func")
        props = {
            "name": f"{func} [{label}]" if isinstance(func, str) else label,
            "event_id": label, "pid": pid, "rank": rid, "io_step": step, "idx": idx,
            "fid": fid, "function": func if isinstance(func, str) else None,
            "entry": start, "exit": end, "thread": tid,
            "runtime_inclusive": end - start if start and end and end >= start else None,
        }
        # is_anomaly is final only once the execution has exited (0 means "not yet")
        if end is not None and isinstance(anomalous, bool):
            props["is_anomaly"] = anomalous
            if anomalous:
                labels = labels or ("Anomaly",)
        if extra:
            props.update(extra)
        if ("rank", pid, rid) not in self.seen:
            yield from self._rank(pid, rid)
        yield Node(chimbuko_model.FUNCTION_EXECUTION, uid, props, labels)
        if self._first(("exec-rank", uid)):
            yield Edge(model.PART_OF, uid, rank_uid(self.run, pid, rid))
        if fid is not None:
            if ("func", pid, fid) not in self.seen:
                yield from self._function(pid, fid, func)
            if self._first(("exec-func", uid)):
                yield Edge(chimbuko_model.EXECUTES, uid, function_uid(self.run, pid, fid))

    def _stub(self, pid: int, label: Any, tid: int | None = None) -> Iterator[Record]:
        """An execution known only by its label (a parent outside the window, a GPU parent)."""
        rid, step, idx = parse_label(label)
        uid = event_uid(self.run, pid, label)
        if ("exec", uid, True) in self.seen or ("exec", uid, False) in self.seen:
            if tid is None:
                return
        if not self._first(("stub", uid, tid)):
            return
        yield from self._rank(pid, rid)
        # no name here: a stub read after the full execution (another file) must not replace
        # its "function [label]" name; templates fall back to event_id
        yield Node(chimbuko_model.FUNCTION_EXECUTION, uid,
                   {"event_id": label, "pid": pid, "rank": rid, "io_step": step,
                    "idx": idx, "thread": tid})
        if self._first(("exec-rank", uid)):
            yield Edge(model.PART_OF, uid, rank_uid(self.run, pid, rid))

    def _call_stack(self, pid: int, stack: Any, tid: int | None) -> Iterator[Record]:
        if stack is None:
            return
        if not isinstance(stack, list):
            raise _Bad("a list 'call_stack'", stack)
        previous = None
        for entry in stack:
            if not isinstance(entry, dict):
                raise _Bad("a call stack entry object", entry)
            yield from self._execution(pid, entry, tid)
            uid = event_uid(self.run, pid, entry.get("event_id"))
            if previous is not None and self._first(("called", previous, uid)):
                yield Edge(chimbuko_model.CALLED_BY, previous, uid)
            previous = uid

    def _window(self, pid: int, window: Any, tid: int | None) -> Iterator[Record]:
        if window is None:
            return
        if not isinstance(window, dict):
            raise _Bad("an object 'event_window'", window)
        execs = window.get("exec_window") or []
        comms = window.get("comm_window") or []
        if not isinstance(execs, list) or not isinstance(comms, list):
            raise _Bad("lists 'exec_window' and 'comm_window'", window)
        previous = None
        for entry in execs:
            if not isinstance(entry, dict):
                raise _Bad("an execution window entry object", entry)
            yield from self._execution(pid, entry, tid)
            uid = event_uid(self.run, pid, entry.get("event_id"))
            parent = entry.get("parent_event_id")
            if isinstance(parent, str) and parent != "root":
                yield from self._stub(pid, parent)
                parent_uid = event_uid(self.run, pid, parent)
                if self._first(("called", uid, parent_uid)):
                    yield Edge(chimbuko_model.CALLED_BY, uid, parent_uid)
            if previous is not None and self._first(("followed", previous, uid)):
                yield Edge(chimbuko_model.FOLLOWED_BY, previous, uid)
            previous = uid
        for msg in comms:
            yield from self._message(pid, msg, tid)

    def _message(self, pid: int, msg: Any, tid: int | None) -> Iterator[Record]:
        """A SEND goes from the execution to the target rank, a RECV from the source rank."""
        if not isinstance(msg, dict):
            raise _Bad("a communication window entry object", msg)
        kind = msg.get("type")
        src, tar = _int(msg, "src"), _int(msg, "tar")
        label = msg.get("execdata_key")
        if kind not in ("SEND", "RECV"):
            raise _Bad("a message type SEND or RECV", kind)
        msg_pid = _int(msg, "pid", required=False)
        msg_pid = pid if msg_pid is None else msg_pid
        yield from self._stub(msg_pid, label, _int(msg, "tid", required=False) if tid is None else tid)
        execution = event_uid(self.run, msg_pid, label)
        props = {"type": kind, "bytes": _num(msg.get("bytes")), "tag": _num(msg.get("tag")),
                 "timestamp": _time(msg.get("timestamp")), "src_rank": src, "tar_rank": tar}
        key = f"{kind}:{props['timestamp']}:{props['tag']}:{src}:{tar}"
        if kind == "SEND":
            yield from self._rank(msg_pid, tar)
            start, end = execution, rank_uid(self.run, msg_pid, tar)
        else:
            yield from self._rank(msg_pid, src)
            start, end = rank_uid(self.run, msg_pid, src), execution
        if self._first(("msg", start, end, key)):
            yield Edge(chimbuko_model.SENT_MESSAGE, start, end, props, key)

    def event(self, rec: dict, collection: str | None) -> Iterator[Record]:
        """One ``anomalies`` or ``normalexecs`` record."""
        pid = self._pid(rec)
        version = record_version(rec)
        func = rec.get("func")
        stack = rec.get("call_stack")
        names = stack if stack_of_names(stack) else None  # generations -2, -1
        if version == -2:  # 'func' holds the label; the stack starts with the function
            label, func = func, names[0] if names else None
        else:
            label = rec.get("event_id")
        rid, step, _idx = parse_label(label)
        tid = _int(rec, "tid", required=False)
        _int(rec, "fid", required=version != -2)  # generation -2 wrote no fid
        if names is not None:
            stack = None
        if collection is None:
            own = stack[0] if isinstance(stack, list) and stack and isinstance(stack[0], dict) else {}
            if own.get("event_id") == label and isinstance(own.get("is_anomaly"), bool):
                collection = "anomalies" if own["is_anomaly"] else "normalexecs"
            else:
                collection = "anomalies" if _num(rec.get("outlier_severity")) else "normalexecs"
        anomalous = collection == "anomalies"
        self.counts[collection] += 1
        extra: dict[str, Any] = {
            "provdb_collection": collection,
            "record_version": version,
            "call_stack_functions": names,
            "runtime_inclusive": _num(rec.get("runtime_total")),
            "runtime_exclusive": _num(rec.get("runtime_exclusive")),
            "io_step": _int(rec, "io_step", required=False) if rec.get("io_step") is not None else step,
            "io_step_tstart": _time(rec.get("io_step_tstart")),
            "io_step_tend": _time(rec.get("io_step_tend")),
            "hostname": rec.get("hostname") if isinstance(rec.get("hostname"), str) else None,
            "is_gpu_event": rec.get("is_gpu_event") if isinstance(rec.get("is_gpu_event"), bool) else None,
            "outlier_score": _num(rec.get("outlier_score")),
            "outlier_severity": _num(rec.get("outlier_severity")),
            "is_anomaly": anomalous,
        }
        params = rec.get("algo_params", rec.get("func_stats"))
        extra.update(detection_params(params))
        counters = rec.get("counter_events")
        if isinstance(counters, list) and counters:
            extra["counter_events"] = as_json(counters)
            extra["counter_names"] = sorted({c.get("counter_name") for c in counters
                                             if isinstance(c, dict) and isinstance(c.get("counter_name"), str)})
        state = rec.get("node_state")
        if isinstance(state, dict):
            data = state.get("data")
            if isinstance(data, list):
                extra["node_state"] = as_json({d.get("field"): d.get("value") for d in data
                                               if isinstance(d, dict)})
            extra["node_state_timestamp"] = _time(state.get("timestamp"))
        gpu = rec.get("gpu_location")
        if isinstance(gpu, dict):
            extra.update({"gpu_device": _num(gpu.get("device")), "gpu_context": _num(gpu.get("context")),
                          "gpu_stream": _num(gpu.get("stream")), "gpu_thread": _num(gpu.get("thread"))})
        own_entry = {"event_id": label, "fid": rec.get("fid"), "func": func,
                     "entry": rec.get("entry"), "exit": rec.get("exit")}
        if extra["hostname"] and self._first(("rank-host", pid, rid, extra["hostname"])):
            yield from self._rank(pid, rid, {"hostname": extra["hostname"]})
            yield from self._host(pid, rid, extra["hostname"])
        yield from self._execution(pid, own_entry, tid, {k: v for k, v in extra.items() if v is not None},
                                   ("Anomaly",) if anomalous else ())
        yield from self._call_stack(pid, stack, tid)
        yield from self._window(pid, rec.get("event_window"), tid)
        yield from self._gpu_parent(pid, label, rec.get("gpu_parent"), gpu)

    def _gpu_parent(self, pid: int, label: str, parent: Any, gpu: Any) -> Iterator[Record]:
        if parent is None:
            return
        uid = event_uid(self.run, pid, label)
        if isinstance(parent, str):  # Chimbuko writes an error text when the correlation is lost
            yield Node(chimbuko_model.FUNCTION_EXECUTION, uid, {"gpu_parent_error": parent})
            return
        if not isinstance(parent, dict):
            raise _Bad("an object or text 'gpu_parent'", parent)
        parent_label = parent.get("event_id")
        parent_tid = _int(parent, "tid", required=False)
        yield from self._stub(pid, parent_label, parent_tid)
        yield from self._call_stack(pid, parent.get("call_stack"), parent_tid)
        gpu = gpu if isinstance(gpu, dict) else {}
        props = {"device": _num(gpu.get("device")), "context": _num(gpu.get("context")),
                 "stream": _num(gpu.get("stream")), "gpu_thread": _num(gpu.get("thread"))}
        yield Edge(chimbuko_model.LAUNCHED_ON, uid, event_uid(self.run, pid, parent_label), props)

    def _host(self, pid: int, rid: int, hostname: str) -> Iterator[Record]:
        if self._first(("host", pid, rid, hostname)):
            yield Node(model.HOST, model.HOST.uid(hostname), {"name": hostname})
            yield Edge(model.WAS_ASSOCIATED_WITH, rank_uid(self.run, pid, rid), model.HOST.uid(hostname))

    # ------------------------------------------------------------ metadata and globals
    def metadata(self, rec: dict) -> Iterator[Record]:
        """Collected per rank and written by :meth:`finish` (a rank repeats it every step)."""
        pid = self._pid(rec)
        rid = _int(rec, "rid")
        tid = _int(rec, "tid", required=False) or 0
        descr = rec.get("descr")
        if not isinstance(descr, str):
            raise _Bad("a text 'descr'", descr)
        value = rec.get("value")
        self.counts["metadata"] += 1
        if descr == "Command Line":  # kept in the rank's metadata and on the program run
            value = redact_command_line(value, counts=self.counts)
        entry = self.meta.setdefault((pid, rid), {"main": {}, "threads": {}})
        if tid == 0:
            entry["main"][descr] = value
        else:
            entry["threads"].setdefault(str(tid), {})[descr] = value
        return iter(())

    def func_stats(self, rec: dict) -> Iterator[Record]:
        pid = _int(rec, "app", required=False)
        pid = self._pid(rec) if pid is None else pid
        fid = _int(rec, "fid")
        self.counts["func_stats"] += 1
        props: dict[str, Any] = {}
        profile = rec.get("runtime_profile")
        if isinstance(profile, dict):
            props.update(_runstats("excl_", profile.get("exclusive_runtime")))
            props.update(_runstats("incl_", profile.get("inclusive_runtime")))
            props["runtime_profile"] = as_json(profile)
        metrics = rec.get("anomaly_metrics")
        if isinstance(metrics, dict):
            count = metrics.get("anomaly_count") if isinstance(metrics.get("anomaly_count"), dict) else {}
            props["anomaly_count"] = _num(count.get("accumulate"))
            props["anomaly_steps"] = _num(count.get("count"))
            props["anomaly_first_io_step"] = _num(metrics.get("first_io_step"))
            props["anomaly_last_io_step"] = _num(metrics.get("last_io_step"))
            props["anomaly_min_timestamp"] = _time(metrics.get("min_timestamp"))
            props["anomaly_max_timestamp"] = _time(metrics.get("max_timestamp"))
            props.update(_runstats("severity_", metrics.get("severity")))
            props.update(_runstats("score_", metrics.get("score")))
            props["anomaly_metrics"] = as_json(metrics)
        elif "anomaly_metrics" in rec:
            props["anomaly_count"] = 0
        yield from self._function(pid, fid, rec.get("fname"), props or {"has_global_stats": True})

    def counter_stats_rec(self, rec: dict) -> Iterator[Record]:
        pid = _int(rec, "app", required=False)
        pid = self._pid(rec) if pid is None else pid
        name = rec.get("counter")
        if not isinstance(name, str):
            raise _Bad("a text 'counter'", name)
        self.counts["counter_stats"] += 1
        self.counter_stats.setdefault(pid, {})[name] = rec.get("stats")
        return iter(())

    def ad_model(self, rec: dict) -> Iterator[Record]:
        pid = self._pid(rec)
        fid = _int(rec, "fid")
        self.counts["ad_model"] += 1
        params = detection_params(rec.get("model"))
        props = {("model" + k[4:] if k.startswith("algo") else "model_" + k): v
                 for k, v in params.items()}
        yield from self._function(pid, fid, rec.get("func_name"), props)

    def feed(self, records: Iterable[Any], default: str | None,
             named: bool = False) -> Iterator[Record]:
        """The lineage records of ``records`` (``default``: their collection, when known;
        ``named``: a bad record is named by it, as in ``collection anomalies, record 3``)."""
        report = self.report
        where = f"collection {default}, record " if named else "record "
        for index, rec in enumerate(records):
            kind = classify(rec)
            try:
                if kind == "event":
                    yield from self.event(rec, default if default in EVENT_COLLECTIONS else None)
                elif kind == "metadata":
                    yield from self.metadata(rec)
                elif kind == "func_stats":
                    yield from self.func_stats(rec)
                elif kind == "counter_stats":
                    yield from self.counter_stats_rec(rec)
                elif kind == "ad_model":
                    yield from self.ad_model(rec)
                elif isinstance(rec, dict):
                    report.unknown_item(f"record with keys {','.join(sorted(rec)[:6])}")
                else:
                    report.skip(report.path, f"{where}{index}",
                                "a JSON object (a provenance record)", repr(rec)[:80])
            except _Bad as bad:
                report.skip(report.path, f"{where}{index}", bad.expected, bad.found)

    def finish(self) -> Iterator[Record]:
        """Ranks with their metadata, programs with their counter statistics."""
        for (pid, rid), entry in sorted(self.meta.items()):
            main = entry["main"]
            props: dict[str, Any] = {prop: main.get(descr) for descr, prop in RANK_METADATA.items()}
            props = {k: (v if isinstance(v, (str, int, float, bool)) else None) for k, v in props.items()}
            host = props.get("hostname") or main.get("MPI Host Name") or main.get("Node Name")
            props["hostname"] = host if isinstance(host, str) else None
            props["metadata"] = as_json(main)
            if entry["threads"]:
                props["gpu_threads"] = as_json(entry["threads"])
                props["gpu_thread_ids"] = sorted(int(t) for t in entry["threads"])
            yield from self._rank(pid, rid, props)
            if props["hostname"]:
                yield from self._host(pid, rid, props["hostname"])
            if rid == min(r for (p, r) in self.meta if p == pid):
                run_props = {"executable": props.get("executable"),
                             "command_line": props.get("command_line")}
                if any(run_props.values()):
                    yield from self._run(pid)
                    yield Node(chimbuko_model.PROGRAM_RUN, run_uid(self.run, pid), run_props)
        for pid, stats in sorted(self.counter_stats.items()):
            yield from self._run(pid)
            yield Node(chimbuko_model.PROGRAM_RUN, run_uid(self.run, pid),
                       {"counter_stats": as_json(stats), "counter_names": sorted(stats)})


def parse_records(records: Iterable[Any], report: LoadReport, hints: Hints = Hints(),
                  collection: str | None = None) -> Iterator[Record]:
    """Lineage records from Chimbuko records of any collection (one stream may mix them).

    ``collection`` (or the hints) says whether event records are anomalies or normal
    executions; without it the record's own call-stack entry decides.
    """
    builder = _Builder(report, hints)
    yield from builder.feed(records, collection or hints.collection)
    yield from builder.finish()


def parse_collections(collections: Iterable[tuple[str, Iterable[Any]]],
                      report: LoadReport) -> Iterator[Record]:
    """:func:`parse_records` of several collections of one shard, ``(name, records)`` in
    turn, through one builder: an execution that the anomalies' windows and the normal
    executions' windows both hold is stated once, as it is within one collection (a shard's
    two event collections share most of their windows' executions)."""
    builder = _Builder(report, Hints())
    for name, records in collections:
        yield from builder.feed(records, name, named=True)
    yield from builder.finish()


def _first_char(fh) -> bytes:
    while True:
        ch = fh.read(1)
        if not ch or not ch.isspace():
            return ch


def json_records(path: Path, report: LoadReport) -> Iterator[Any]:
    """The records of a JSON export, one at a time: a top-level array is streamed item by
    item; a file of one or more top-level objects (JSON Lines too) yields each object.
    """
    import ijson

    with open(path, "rb") as fh:
        first = _first_char(fh)
        fh.seek(0)
        if not first:
            return
        if first not in (b"[", b"{"):
            report.skip(str(path), 1, "a JSON array or object of Chimbuko records", first.decode("latin-1"))
            return
        base, multiple = (1, False) if first == b"[" else (0, True)
        index = 0
        try:
            for index, rec in enumerate(_shallow_items(fh, base, multiple)):
                if rec is _TOO_DEEP:
                    report.skip(str(path), f"record {index + 1}",
                                f"JSON nested at most {MAX_NESTING} levels deep", "deeper")
                    continue
                yield rec
        except (ijson.JSONError, UnicodeDecodeError) as exc:  # ijson's C backend: bad UTF-8
            report.skip(str(path), f"record {index + 1} (byte {fh.tell()})",
                        "well-formed JSON in UTF-8", str(exc)[:120])


#: Deepest nesting a record may have (real records nest about 6 levels). ijson's own item
#: builder keeps a prefix string per level, so 200,000 nested brackets cost it O(depth^2)
#: memory (20 GB); the builder below never builds a record past this depth.
MAX_NESTING = 256
_TOO_DEEP = object()


def _shallow_items(fh, base: int, multiple: bool) -> Iterator[Any]:
    """The values at depth ``base`` (1: the items of a top-level array; 0: each top-level
    value), built from ijson's prefix-free events; a value nested deeper than
    :data:`MAX_NESTING` is skipped (its events swallowed) and yields :data:`_TOO_DEEP`.

    >>> import io
    >>> list(_shallow_items(io.BytesIO(b'[{"a": [1, 2]}, 3]'), 1, False))
    [{'a': [1, 2]}, 3]
    """
    import ijson
    from ijson.common import ObjectBuilder

    depth, builder, too_deep = 0, None, False
    for event, value in ijson.basic_parse(fh, use_float=True, multiple_values=multiple):
        if builder is None and not too_deep and depth == base and event not in _NOT_A_START:
            builder = ObjectBuilder()
        if event in _OPENERS:
            depth += 1
            if depth - base > MAX_NESTING and builder is not None:
                builder, too_deep = None, True
        elif event in _CLOSERS:
            depth -= 1
        if builder is not None:
            builder.event(event, value)
        if depth == base and (builder is not None or too_deep) and event != "map_key":
            yield _TOO_DEEP if too_deep else builder.value
            builder, too_deep = None, False


_OPENERS = frozenset({"start_map", "start_array"})
_CLOSERS = frozenset({"end_map", "end_array"})
_NOT_A_START = _CLOSERS | {"map_key"}


def parse_json(path: Path, report: LoadReport) -> Iterator[Record]:
    """Records of one JSON export (query-tool output or one file of the tree)."""
    path = Path(path)
    yield from parse_records(json_records(path, report), report, path_hints(path))


_EVENT_MARKS = (b'"event_id"', b'"fid"')
_EVENT_ANY = (b'"call_stack"', b'"exec_window"', b'"is_anomaly"', b'"io_step"')


def detect_json(path: Path, head: bytes) -> bool:
    """A Chimbuko JSON export: a file of the tree by its name and place, or JSON whose first
    record has the keys of a provenance record (XALT and other JSON lack them).
    """
    text = head.lstrip()
    if text[:1] not in (b"[", b"{"):
        return False
    hints = path_hints(path)
    if hints.pid is not None or (path.name in GLOBAL_FILES and text[:1] == b"["):
        return True
    if all(m in head for m in _EVENT_MARKS) and any(m in head for m in _EVENT_ANY):
        return True
    if all(m in head for m in (b'"func_stats"', b'"call_stack"', b'"runtime_total"')):
        return True  # generation -2 (2019): no event_id, no fid
    if b'"descr"' in head and b'"rid"' in head and b'"tid"' in head and b'"value"' in head:
        return True
    if b'"fid"' in head and b'"fname"' in head and (b'"runtime_profile"' in head or b'"anomaly_metrics"' in head):
        return True
    if b'"fid"' in head and b'"func_name"' in head and b'"model"' in head:
        return True
    return b'"counter"' in head and b'"stats"' in head and b'"app"' in head and b'"accumulate"' in head


# ---------------------------------------------------------------- UnQLite shards
def parse_unqlite(path: Path, report: LoadReport) -> Iterator[Record]:
    """Records of a provenance database shard or of the global database (read by
    :mod:`.shard`)."""
    yield from parse_collections(shard.collections(Path(path), report,
                                                   MAIN_COLLECTIONS + GLOBAL_COLLECTIONS), report)


def detect_unqlite(path: Path, head: bytes) -> bool:
    """An UnQLite database file (the provenance database's shards and its global database)."""
    return head.startswith(shard.UNQLITE_MAGIC)


FORMATS = [
    Format(
        name="chimbuko-json",
        source="chimbuko",
        detect=detect_json,
        parse=parse_json,
        description="Chimbuko provenance records as JSON (provdb query exports, the per-rank "
                    "file tree, global_func_stats/global_counter_stats/ad_model.json)",
    ),
    Format(
        name="chimbuko-unqlite",
        source="chimbuko",
        detect=detect_unqlite,
        parse=parse_unqlite,
        own_process=True,  # shard.ShardReader
        description="Chimbuko provenance database UnQLite files (provdb.<n>.unqlite, "
                    "provdb.global.unqlite)",
    ),
]
