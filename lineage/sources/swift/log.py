"""Swift run logs (written with ``provenance.log=true``) into lineage records.

The rules are those of the original importer (swift-provenancedb's
``prepare-provenance-chart`` and ``prov-to-sql.sh``):

- ``PARAM thread= direction= variable= provenanceid=``: the call ``<run id>:<thread>``
  used (input) or produced (output) the dataset, as parameter ``variable``;
- ``CONTAINMENT parent= child=``: the collection holds the member (``HAD_MEMBER``); each
  collection also gets a ``constructor`` call that used its members (parameter ``element``)
  and produced it (parameter ``collection``);
- ``FILENAME dataset= filename=`` / ``VALUE dataset= VALUE=``: a mapped or primitive dataset;
- ``PROCEDURE thread= name=``: the name of the procedure a call invoked;
- ``OPERATOR``, ``FUNCTION``, ``FUNCTIONPARAMETER``, ``SCOPE`` (later Swift versions):
  operator, built-in function and scope calls;
- ``vdl:execute START|END_* thread= tr=``: an application call (type ``execute``);
- ``vdl:execute2 <EVENT> jobid= ...``: one execution attempt of it (``THREAD_ASSOCIATION``
  gives its thread, whose parent thread is the call; ``JOB_START`` the host);
- the script source between ``BEGIN SWIFTSCRIPT`` and ``END SWIFTSCRIPT``;
- the run: ``RUNID``, the Swift and CoG versions, start and duration (first and last log
  entry); it succeeded when the log says ``Swift finished with no errors``.

A log entry starts with a timestamp; lines that do not are the continuation of the entry
before (a multi-line message) and never start a provenance fact of their own. A log without
``PARAM`` lines was written without provenance logging: it yields nothing, with a warning
(as the importer, which skipped logs without ``provenanceid``).

>>> from lineage.sources.base import LoadReport
>>> lines = ["2009-03-16 17:11:31,599+0100 INFO  unknown RUNID id=tag:x,2007:swift:run:R1",
...          "2009-03-16 17:11:31,697+0100 INFO  vdl:parameterlog PARAM thread=0 "
...          "direction=output variable=t provenanceid=tag:x:dataset:D1"]
>>> prov = read_lines(lines, LoadReport("x.log", "swift-log"), "x.log")
>>> sorted(prov.calls), sorted(prov.datasets), sorted(prov.dataset_out)
(['R1:0', 'R1:R'], ['tag:x:dataset:D1'], [('R1:0', 'tag:x:dataset:D1', 't')])
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Iterator

from ...records import Record
from . import mapping as sp
from ..base import Format, LoadReport

MAX_LINE = 4 * 1024 * 1024
MAX_SCRIPT = 16 * 1024 * 1024

_ENTRY = re.compile(
    r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:[,.]\d+)?)([+-]\d\d:?\d\d|Z)?\s+"
    r"(TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL)\s+(\S+)\s?(.*)$"
)
_KV = re.compile(r"(\w+)=(\S*)")
_HEAD_MARKERS = (b"RUNID id=", b" vdl:execute", b"swift:dataset:", b"Swift svn swift-r",
                 b" PARAM thread=", b".swift: source file")


def parse_time(stamp: str, zone: str | None) -> float:
    """Seconds since the epoch of a log4j timestamp.

    >>> parse_time("2009-03-16 17:11:28,723", "+0100")
    1237219888.723
    """
    whole, _, fraction = stamp.replace(",", ".").partition(".")
    base = _second(whole, zone or "")
    return round(base + (float("0." + fraction) if fraction else 0.0), 3)


@lru_cache(maxsize=4096)
def _second(whole: str, zone: str) -> float:
    """Epoch seconds of ``YYYY-MM-DD HH:MM:SS`` in a zone (cached: logs repeat seconds)."""
    moment = datetime.strptime(whole, "%Y-%m-%d %H:%M:%S")
    if zone == "Z":
        moment = moment.replace(tzinfo=timezone.utc)
    elif zone:
        moment = datetime.strptime(whole + zone.replace(":", ""), "%Y-%m-%d %H:%M:%S%z")
    return moment.timestamp()


@dataclass
class _Execute:
    """One ``vdl:execute`` call: its episodes (a thread may run an app more than once)."""

    tr: str | None = None
    start: float | None = None
    end: float | None = None
    state: str | None = None
    starts: int = 0


@dataclass
class _Job:
    thread: str | None = None
    host: str | None = None
    tr: str | None = None
    arguments: str | None = None
    tmpdir: str | None = None
    replication_group: str | None = None
    events: list = field(default_factory=list)
    times: list = field(default_factory=list)
    stage_in: list = field(default_factory=list)
    stage_out: list = field(default_factory=list)


@dataclass
class SwiftProvenance:
    """Everything one log says, keyed as the provenance database keys it."""

    run: sp.Run | None = None
    calls: dict = field(default_factory=dict)          # call id -> Call
    execs: dict = field(default_factory=dict)          # exec id -> AppExec
    datasets: dict = field(default_factory=dict)       # dataset id -> Dataset
    containment: dict = field(default_factory=dict)    # (out, in) -> None, in order
    dataset_in: dict = field(default_factory=dict)     # (call, dataset, parameter) -> None
    dataset_out: dict = field(default_factory=dict)
    script: str | None = None
    provenance_lines: int = 0

    def records(self) -> Iterator[Record]:
        """Graph records: nodes first (run, script, calls, executions, datasets), then edges."""
        if self.run is None:
            return
        yield from sp.run_records(self.run)
        if self.script is not None and self.run.script_hash:
            yield from sp.script_records(self.run.script_hash, self.script,
                                         self.run.script_filename)
        for call in self.calls.values():
            yield from sp.call_records(call)
        for ex in self.execs.values():
            yield from sp.exec_records(ex)
        for ds in self.datasets.values():
            yield from sp.dataset_records(ds)
        for out_id, in_id in self.containment:
            yield from sp.containment_records(out_id, in_id)
        for call_id, ds_id, param in self.dataset_in:
            yield from sp.io_records(call_id, ds_id, param, "input")
        for call_id, ds_id, param in self.dataset_out:
            yield from sp.io_records(call_id, ds_id, param, "output")


class _Reader:
    """Reads one log's entries in order and builds a :class:`SwiftProvenance`."""

    def __init__(self, report: LoadReport, path: str):
        self.report = report
        self.path = path
        self.prov = SwiftProvenance()
        self.runid_tag: str | None = None
        self.script_file: str | None = None
        self.swift_version: str | None = None
        self.cog_version: str | None = None
        self.first_time: float | None = None
        self.last_time: float | None = None
        self.finished_ok = False
        self.executes: dict[str, _Execute] = {}
        self.jobs: dict[str, _Job] = {}
        self.procedures: dict[str, str] = {}
        self.param_threads: dict[str, None] = {}
        self.constructors: dict[str, str] = {}  # collection id -> constructor id suffix
        self.operators: list = []
        self.functions: list = []
        self.function_inputs: list = []
        self.scopes: dict[str, None] = {}
        self.script_lines: list[str] | None = None
        self.script_size = 0
        self.in_script = False

    # ------------------------------------------------------------------ entries
    def dataset(self, ds_id: str) -> sp.Dataset:
        ds = self.prov.datasets.get(ds_id)
        if ds is None:
            ds = self.prov.datasets[ds_id] = sp.Dataset(ds_id)
        return ds

    def need(self, kv: dict, keys: tuple[str, ...], event: str, lineno: int, text: str) -> bool:
        missing = [k for k in keys if not kv.get(k)]
        if missing:
            self.report.skip(self.path, lineno,
                             f"{event} with {' '.join(k + '=' for k in keys)}", text[:200])
            return False
        return True

    def entry(self, lineno: int, when: float, cls: str, message: str, more: list[str]) -> None:
        if self.first_time is None:
            self.first_time = when
        self.last_time = when
        word, _, rest = message.partition(" ")
        if cls == "vdl:execute":
            self.execute(lineno, when, word, rest, message)
        elif cls == "vdl:execute2":
            self.execute2(lineno, when, word, rest, message)
        elif word == "PARAM":
            kv = dict(_KV.findall(rest))
            keys = ("thread", "direction", "variable", "provenanceid")
            if self.need(kv, keys, "PARAM", lineno, message):
                if kv["direction"] not in ("input", "output"):
                    self.report.skip(self.path, lineno, "PARAM direction=input|output",
                                     kv["direction"])
                    return
                self.prov.provenance_lines += 1
                self.param_threads.setdefault(kv["thread"], None)
                self.dataset(kv["provenanceid"])
                inputs = kv["direction"] == "input"
                table = self.prov.dataset_in if inputs else self.prov.dataset_out
                table[(kv["thread"], kv["provenanceid"], kv["variable"])] = None
        elif word == "CONTAINMENT":
            kv = dict(_KV.findall(rest))
            if self.need(kv, ("parent", "child"), "CONTAINMENT", lineno, message):
                self.dataset(kv["parent"]).collection = True
                self.dataset(kv["child"])
                self.prov.containment[(kv["parent"], kv["child"])] = None
        elif word == "FILENAME":
            kv = dict(_KV.findall(rest))
            if self.need(kv, ("dataset", "filename"), "FILENAME", lineno, message):
                ds = self.dataset(kv["dataset"])
                if ds.filename is None:
                    ds.filename = kv["filename"]
                elif ds.filename != kv["filename"]:
                    self.report.warn(f"{self.path}:{lineno}: dataset {kv['dataset']} mapped to "
                                     f"{ds.filename!r} and {kv['filename']!r}; kept the first")
        elif word == "VALUE":
            m = re.match(r"dataset=(\S+) VALUE=(.*)$", rest, re.S)
            if m is None:
                self.report.skip(self.path, lineno, "VALUE dataset= VALUE=", message[:200])
                return
            value = m.group(2) if not more else "\n".join([m.group(2), *more])
            ds = self.dataset(m.group(1))
            if ds.value is None:
                ds.value = value
        elif word == "PROCEDURE":
            kv = dict(_KV.findall(rest))
            if self.need(kv, ("thread", "name"), "PROCEDURE", lineno, message):
                self.procedures.setdefault(kv["thread"], kv["name"])
        elif word == "OPERATOR":
            m = re.match(r'thread=(\S+) operator="?(.*?)"? lhs=(\S+) rhs=(\S+) result=(\S+)', rest)
            if m is None:
                self.report.skip(self.path, lineno, "OPERATOR thread= operator= lhs= rhs= result=",
                                 message[:200])
                return
            self.operators.append(m.groups())
        elif word == "FUNCTION":
            kv = dict(_KV.findall(rest))
            if self.need(kv, ("id", "name", "result"), "FUNCTION", lineno, message):
                self.functions.append((kv["id"], kv["name"], kv["result"]))
        elif word == "FUNCTIONPARAMETER":
            kv = dict(_KV.findall(rest))
            if self.need(kv, ("id", "input"), "FUNCTIONPARAMETER", lineno, message):
                self.function_inputs.append((kv["id"], kv["input"]))
        elif word == "SCOPE":
            kv = dict(_KV.findall(rest))
            if self.need(kv, ("thread",), "SCOPE", lineno, message):
                self.scopes.setdefault(kv["thread"], None)
        elif word == "RUNID":
            kv = dict(_KV.findall(rest))
            self.runid_tag = kv.get("id") or self.runid_tag
        elif "Swift finished with no errors" in message:
            self.finished_ok = True
        elif cls == "Loader" and ": source file" in message and self.script_file is None:
            self.script_file = message.split(":", 1)[0].strip()
        elif self.swift_version is None and (m := re.search(r"swift-r(\d+)", message)):
            self.swift_version = m.group(1)
            cog = re.search(r"cog-r(\d+)", message)
            self.cog_version = cog.group(1) if cog else None
        elif cls == "vdl:dostagein" and "Staging in files" in message:
            kv = dict(_KV.findall(message))
            files = message.split("Staging in files", 1)[1]
            names = [f.strip("[], ") for f in files.split() if f.strip("[], ")]
            if kv.get("jobid") and names:
                self.jobs.setdefault(kv["jobid"], _Job()).stage_in.extend(names)
        elif word == "FILE_STAGE_OUT_START":
            kv = dict(_KV.findall(rest))
            if kv.get("jobid") and kv.get("srcname"):
                name = f"file://{kv.get('desthost', 'localhost')}/{kv['srcname']}"
                self.jobs.setdefault(kv["jobid"], _Job()).stage_out.append(name)

    def execute(self, lineno, when, word, rest, message):
        kv = dict(_KV.findall(rest))
        if not self.need(kv, ("thread",), f"vdl:execute {word}", lineno, message):
            return
        ex = self.executes.setdefault(kv["thread"], _Execute())
        ex.tr = ex.tr or kv.get("tr")
        if word == "START":
            ex.starts += 1
            if ex.start is None:
                ex.start = when
        elif word.startswith("END_") or word in ("FAILURE", "EXCEPTION"):
            ex.end, ex.state = when, word
        else:
            self.report.unknown_item(f"vdl:execute {word}")

    def execute2(self, lineno, when, word, rest, message):
        kv = dict(_KV.findall(rest))
        if not self.need(kv, ("jobid",), f"vdl:execute2 {word}", lineno, message):
            return
        job = self.jobs.setdefault(kv["jobid"], _Job())
        job.events.append(word)
        job.times.append(when)
        if kv.get("thread"):
            job.thread = kv["thread"]
        job.host = kv.get("host") or job.host
        job.tr = kv.get("tr") or job.tr
        job.tmpdir = kv.get("tmpdir") or job.tmpdir
        job.replication_group = kv.get("replicationGroup") or job.replication_group
        if word == "JOB_START":
            m = re.search(r"arguments=(\[.*?\]) tmpdir=", rest)
            job.arguments = m.group(1) if m else job.arguments

    # ------------------------------------------------------------------ script source
    def raw_line(self, text: str) -> bool:
        """Handle the SWIFTSCRIPT block; True when the line belonged to it."""
        if self.in_script:
            if "END SWIFTSCRIPT" in text:
                self.in_script = False
            elif self.script_size < MAX_SCRIPT:
                self.script_lines.append(text)
                self.script_size += len(text) + 1
            return True
        if "BEGIN SWIFTSCRIPT" in text:
            self.in_script = True
            self.script_lines = [] if self.script_lines is None else self.script_lines
            return True
        return False

    # ------------------------------------------------------------------ the run
    def run_id(self) -> str:
        stem = Path(self.path).name
        stem = stem[:-4] if stem.endswith(".log") else stem
        if self.runid_tag:
            tail = self.runid_tag.rsplit(":", 1)[-1]
            prefix = self.script_file[:-6] if (self.script_file or "").endswith(".swift") else None
            return f"{prefix}-{tail}" if prefix else tail
        return stem

    def finish(self) -> SwiftProvenance:
        prov = self.prov
        if not prov.provenance_lines:
            return prov
        run_id = self.run_id()
        script_hash = None
        if self.script_lines is not None:
            prov.script = "".join(line + "\n" for line in self.script_lines)
            script_hash = hashlib.sha1(prov.script.encode("utf-8")).hexdigest()
        duration = (round(self.last_time - self.first_time, 3)
                    if self.first_time is not None else None)
        prov.run = sp.Run(
            run_id, log_filename=str(self.path), swift_version=self.swift_version,
            cog_version=self.cog_version, final_state="SUCCESS" if self.finished_ok else "FAIL",
            start_time=self.first_time, duration=duration, script_filename=self.script_file,
            script_hash=script_hash,
        )

        def cid(suffix: str) -> str:
            return f"{run_id}:{suffix}"

        def add_call(call: sp.Call) -> sp.Call:
            return prov.calls.setdefault(call.id, call)

        add_call(sp.Call(cid("R"), run_id, "rootthread", name=run_id))
        for thread, ex in self.executes.items():
            duration = (round(ex.end - ex.start, 3)
                        if ex.end is not None and ex.start is not None else None)
            add_call(sp.Call(cid(thread), run_id, "execute", name=self.procedures.get(thread),
                             app_name=ex.tr, start_time=ex.start, duration=duration,
                             final_state=ex.state))
        for out_id in dict.fromkeys(o for o, _ in prov.containment):
            # the importer names a constructor after the collection's id (its last part)
            suffix = out_id.rsplit("-", 1)[-1]
            self.constructors[out_id] = cid(suffix)
            add_call(sp.Call(cid(suffix), run_id, "constructor", name="constructor"))
        for thread, name, lhs, rhs, result in self.operators:
            op = add_call(sp.Call(cid(f"operator:{thread}"), run_id, "operator", name=name))
            for ds_id, param, table in ((lhs, "lhs", prov.dataset_in),
                                        (rhs, "rhs", prov.dataset_in),
                                        (result, "result", prov.dataset_out)):
                self.dataset(ds_id)
                table[(op.id, ds_id, param)] = None
        for fid, name, result in self.functions:
            fn = add_call(sp.Call(cid(fid), run_id, "function", name=name))
            self.dataset(result)
            prov.dataset_out[(fn.id, result, "result")] = None
        for fid, value in self.function_inputs:
            self.dataset(value)
            add_call(sp.Call(cid(fid), run_id, "function"))
            prov.dataset_in[(cid(fid), value, "undefined")] = None
        for thread in self.scopes:
            add_call(sp.Call(cid(thread), run_id, "scope", name="scope"))
        for thread in [*self.param_threads, *self.procedures]:
            if cid(thread) not in prov.calls:
                # known only from PARAM/PROCEDURE lines: a call of no declared type
                add_call(sp.Call(cid(thread), run_id, None, name=self.procedures.get(thread)))
                self.report.extra["untyped_calls"] = self.report.extra.get("untyped_calls", 0) + 1
        # constructors: members in, collection out
        for out_id, in_id in prov.containment:
            prov.dataset_in[(self.constructors[out_id], in_id, "element")] = None
            prov.dataset_out[(self.constructors[out_id], out_id, "collection")] = None
        # PARAM lines name threads; the tables hold call ids
        prov.dataset_in = {(k[0] if k[0] in prov.calls else cid(k[0]), k[1], k[2]): None
                           for k in prov.dataset_in}
        prov.dataset_out = {(k[0] if k[0] in prov.calls else cid(k[0]), k[1], k[2]): None
                            for k in prov.dataset_out}
        for job_id, job in self.jobs.items():
            self.add_exec(run_id, job_id, job)
        for ex in prov.execs.values():
            if ex.call_id:
                call = prov.calls[ex.call_id]
                call.attempts = (call.attempts or 0) + 1
        return prov

    def add_exec(self, run_id: str, job_id: str, job: _Job) -> None:
        call_id = None
        attempt = None
        if job.thread:
            parent, _, last = job.thread.rpartition("-")
            attempt = int(last) if last.isdigit() else None
            if parent and f"{run_id}:{parent}" in self.prov.calls:
                call_id = f"{run_id}:{parent}"
        if call_id is None:
            self.report.warn(f"{self.path}: execution {job_id} (thread {job.thread}) has no "
                             f"vdl:execute call; attached to the run")
        start = job.times[0] if job.times else None
        duration = round(job.times[-1] - job.times[0], 3) if job.times else None
        self.prov.execs[f"{run_id}:{job_id}"] = sp.AppExec(
            f"{run_id}:{job_id}", call_id, run_id, start_time=start, duration=duration,
            final_state=job.events[-1] if job.events else None, site=job.host,
            stage_in=job.stage_in, stage_out=job.stage_out,
            extra={"job_id": job_id, "thread": job.thread, "attempt": attempt,
                   "app_name": job.tr, "arguments": job.arguments, "scratch": job.tmpdir,
                   "replication_group": job.replication_group, "states": list(job.events)},
        )


def read_lines(lines: Iterable[str], report: LoadReport, path: str = "<log>") -> SwiftProvenance:
    """Read a log's lines (without newlines) into a :class:`SwiftProvenance`."""
    reader = _Reader(report, path)
    pending: tuple | None = None  # (lineno, time, class, message, continuation lines)
    for lineno, text in enumerate(lines, 1):
        if len(text) > MAX_LINE:
            report.skip(path, lineno, f"a log line shorter than {MAX_LINE} bytes",
                        f"{len(text)} bytes")
            continue
        if reader.raw_line(text):
            continue
        m = _ENTRY.match(text)
        if m is None:
            if pending is not None:
                pending[4].append(text)
            continue
        if pending is not None:
            reader.entry(*pending)
        try:
            when = parse_time(m.group(1), m.group(2))
        except ValueError:
            report.skip(path, lineno, "a valid timestamp", m.group(1))
            pending = None
            continue
        pending = (lineno, when, m.group(4), m.group(5), [])
    if pending is not None:
        reader.entry(*pending)
    prov = reader.finish()
    if not prov.provenance_lines:
        report.warn(f"{path}: no provenance lines (PARAM ... provenanceid=); the run was not "
                    f"logged with provenance.log=true, nothing to load")
        report.extra["provenance"] = "none"
    return prov


def _file_lines(path: Path) -> Iterator[str]:
    with open(path, "rb") as fh:
        for raw in fh:
            yield raw.decode("utf-8", errors="replace").rstrip("\r\n")


def read_log(path: Path, report: LoadReport) -> SwiftProvenance:
    """Read one log file (streamed line by line)."""
    return read_lines(_file_lines(Path(path)), report, str(path))


def detect(path: Path, head: bytes) -> bool:
    """A log4j-style log whose head carries a Swift marker (RUNID, vdl:execute, ...)."""
    first = head.split(b"\n", 1)[0].decode("utf-8", errors="replace")
    if _ENTRY.match(first) is None:
        return False
    return any(marker in head for marker in _HEAD_MARKERS)


def parse(path: Path, report: LoadReport) -> Iterator[Record]:
    prov = read_log(path, report)
    report.extra["provenance_lines"] = prov.provenance_lines
    yield from prov.records()


FORMATS = [
    Format("swift-log", "swift", detect, parse,
           description="Swift run log with provenance lines (provenance.log=true)"),
]
