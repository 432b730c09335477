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
- ``vdl:dostagein START jobid= - Staging in files [..]`` and ``FILE_STAGE_OUT_START``: the
  files an execution staged in and out (a stage-out line names its job, or belongs to the
  open ``vdl:dostageout START jobid=``, see :meth:`_Reader.attach_stage_outs`);
- the script source between ``BEGIN SWIFTSCRIPT`` and ``END SWIFTSCRIPT``;
- the run: ``RUNID``, the Swift and CoG versions, start and duration (first and last log
  entry); it succeeded when the log says ``Swift finished with no errors``.

Each line is read by its spelling in :data:`SPELLINGS` (one entry per Swift vintage), so a
value with spaces (a file name) stays whole. A log entry starts with a timestamp; lines that
do not are the continuation of the entry before (a multi-line message) and never start a
provenance fact of their own. A log without ``PARAM`` lines was written without provenance
logging: it still yields what it holds (datasets, values, containment, app calls and
executions), with a warning; the importer skipped such logs whole. A log of a run without
any such fact (a script that only traced, run without provenance logging) is still that run:
its ``RUNID``, versions, final state and times. Only a log that names no run and holds no
Swift fact yields nothing.

Every line is accounted for in the load report's ``swift_log`` counters (:data:`COUNTERS`):
lines and entries read, the entries and lines read for nothing (benign: counted only), and the
damaged ones (counted, with one warning per reason naming the first: :data:`DAMAGE`).

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

from ...model.records import Record
from ...secrets import redact_command_line
from . import mapping as sp
from ..base import Format, LoadReport
from ..lines import bounded_lines

MAX_LINE = 4 * 1024 * 1024
MAX_SCRIPT = 16 * 1024 * 1024

_ENTRY = re.compile(
    r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:[,.]\d+)?)([+-]\d\d:?\d\d|Z)?\s+"
    r"(TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL)\s+(\S+)\s?(.*)$"
)
#: The ``swift_log`` counters of the load report (a counter appears once it is not zero).
COUNTERS = {
    "lines": "every line read",
    "entries": "timestamped log entries",
    "other_entries": "entries that are neither provenance lines nor run facts",
    "other_stage_events": "vdl:dostagein/vdl:dostageout events not read (their END, ...)",
    "repeated_values": "VALUE or PROCEDURE lines restating an earlier one for the same id",
    "value_continuation_lines": "continuation lines of VALUE lines (part of the value)",
    "other_continuation_lines": "continuation lines of entries that are no provenance lines",
    "script_lines": "lines of the SWIFTSCRIPT block, its markers included",
}
#: Damage: counted in ``swift_log`` too, and one warning per reason names the first example.
DAMAGE = {
    "duplicate_values": "VALUE or PROCEDURE lines give an id a second, different value (the "
                        "first is kept)",
    "provenance_continuation_lines": "continuation lines of provenance lines other than VALUE "
                                     "are not read",
    "lines_without_entry": "lines belong to no log entry (before the first timestamp, or after "
                           "a skipped one) and are not read",
    "script_lines_dropped": f"script lines past {MAX_SCRIPT >> 20} MiB are not kept (the script "
                            f"and its hash are of the first {MAX_SCRIPT >> 20} MiB)",
    "unterminated_script": "BEGIN SWIFTSCRIPT has no END SWIFTSCRIPT: the rest of the log was "
                           "read as script",
}
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


# ---------------------------------------------------------------- line spellings per vintage


@dataclass(frozen=True)
class Spelling:
    """One way a Swift build writes one provenance line.

    ``keys`` are the ``key=`` fields the writer puts on the line, in its order;
    ``required`` the ones the reader needs; ``text`` the ones whose value is free text that
    may hold spaces (a file name, an argument list): Swift's writers concatenate
    ``" key=" + value`` with no quoting, so such a value runs to the next key of the line, or
    to its end. Every other value is an identifier and ends at the first blank.
    """

    vintage: str
    keys: tuple[str, ...]
    required: tuple[str, ...]
    text: tuple[str, ...] = ()

    def describe(self) -> str:
        return f"{' '.join(k + '=' for k in self.required)} ({self.vintage})"


#: Every spelling of every provenance line this reader accepts, per Swift vintage (the
#: writers: ``AbstractDataNode.logContent`` for ROOTPATH/VALUE/FILENAME/CONTAINMENT,
#: ``VDLFunction.logProvenanceResult``/``logProvenanceParameter`` for FUNCTION and
#: FUNCTIONPARAMETER, ``vdl-int.k`` for ``vdl:execute2`` and the stage-in/out lines; the
#: readers: swift-provenancedb's ``prepare-provenance-chart``/``prov-to-sql.sh`` and Swift's
#: ``libexec/log-processing``). A line is read with the first spelling whose required keys
#: it carries; one that fits none is malformed (an error naming file and line, or skipped and
#: counted when lenient).
SPELLINGS: dict[str, tuple[Spelling, ...]] = {
    "PARAM": (Spelling("2008 onwards", ("thread", "direction", "variable", "provenanceid"),
                       ("thread", "direction", "variable", "provenanceid")),),
    "CONTAINMENT": (Spelling("2008 onwards", ("parent", "child"), ("parent", "child")),),
    "FILENAME": (Spelling("2008 onwards", ("dataset", "filename"), ("dataset", "filename"),
                          text=("filename",)),),
    "VALUE": (Spelling("2008 onwards", ("dataset", "VALUE"), ("dataset",), text=("VALUE",)),),
    "PROCEDURE": (Spelling("2008 onwards", ("thread", "name"), ("thread", "name")),),
    "OPERATOR": (Spelling("2009 onwards", ("thread", "operator", "lhs", "rhs", "result"),
                          ("thread", "operator", "lhs", "rhs", "result"),
                          text=("operator",)),),
    "FUNCTION": (
        Spelling("provenance id, late 2009 onwards", ("id", "name", "result"),
                 ("id", "name", "result")),
        Spelling("March 2009, thread only", ("thread", "name", "result"), ("thread", "result")),
    ),
    "FUNCTIONPARAMETER": (
        Spelling("provenance id, late 2009 onwards", ("id", "input", "name"), ("id", "input")),
        Spelling("March 2009, thread only", ("thread", "input"), ("thread", "input")),
    ),
    "SCOPE": (Spelling("2009 onwards", ("thread",), ("thread",)),),
    "RUNID": (Spelling("2007 onwards", ("id",), ()),),
    "FILE_STAGE_OUT_START": (
        Spelling("with the job id (as prov-to-sql.sh reads it)",
                 ("srcname", "srcdir", "srchost", "destdir", "desthost", "provider", "jobid"),
                 ("srcname", "jobid"), text=("srcname", "srcdir", "destdir")),
        Spelling("vdl-int.k 2008-2012: the job is the open vdl:dostageout START jobid=",
                 ("srcname", "srcdir", "srchost", "destdir", "desthost", "provider"),
                 ("srcname",), text=("srcname", "srcdir", "destdir")),
    ),
    "vdl:execute": (Spelling("2007 onwards", ("thread", "tr"), ("thread",)),),
    "vdl:execute2": (Spelling("2008 onwards",
                              ("jobid", "thread", "host", "replicationGroup", "tr", "arguments",
                               "tmpdir"),
                              ("jobid",), text=("arguments", "tmpdir")),),
    "vdl:dostagein": (Spelling("2008 onwards", ("jobid", "host"), ("jobid",)),),
    "vdl:dostageout": (Spelling("2008 onwards", ("jobid", "host"), ("jobid",)),),
}


@lru_cache(maxsize=64)
def _key_markers(keys: tuple[str, ...]) -> re.Pattern:
    return re.compile(r"(?:^|(?<=\s))(" + "|".join(map(re.escape, keys)) + r")=")


def fields(message: str, keys: tuple[str, ...], text: tuple[str, ...] = ()) -> dict:
    """The ``key=value`` fields of a message as Swift writes them (first occurrence wins).

    A ``text`` value runs to the next known key (or the end); any other value to the first
    blank.

    >>> fields("FILENAME dataset=d:1 filename=file://localhost/my data 1.txt",
    ...        ("dataset", "filename"), ("filename",))
    {'dataset': 'd:1', 'filename': 'file://localhost/my data 1.txt'}
    >>> fields("srcname=a b.txt srcdir=x/ destdir= desthost=localhost",
    ...        ("srcname", "srcdir", "destdir", "desthost"), ("srcname", "srcdir", "destdir"))
    {'srcname': 'a b.txt', 'srcdir': 'x/', 'destdir': '', 'desthost': 'localhost'}
    """
    marks = []
    for m in _key_markers(keys).finditer(message):
        if all(m.group(1) != key for key, _, _ in marks):
            marks.append((m.group(1), m.start(), m.end()))
    out = {}
    for i, (key, _, value_start) in enumerate(marks):
        if key in text:
            end = marks[i + 1][1] if i + 1 < len(marks) else len(message)
            value = message[value_start:end]
            out[key] = value[:-1] if i + 1 < len(marks) and value.endswith(" ") else value
        else:
            out[key] = message[value_start:].split(None, 1)[0] if \
                message[value_start:value_start + 1].strip() else ""
    return out


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


@lru_cache(maxsize=None)
def _all_keys(event: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The keys (and free-text keys) of every spelling of an event, in writing order."""
    spellings = SPELLINGS[event]
    keys = tuple(dict.fromkeys(k for s in spellings for k in s.keys))
    text = tuple(dict.fromkeys(k for s in spellings for k in s.text))
    return keys, text


def staged_name(host: str | None, directory: str, name: str) -> str:
    """The URL of a staged file, spelled as Swift's FILENAME lines spell it.

    >>> staged_name("localhost", "", "001-echo.out")
    'file://localhost/001-echo.out'
    >>> staged_name("localhost", "_concurrent/a--array/", "elt-2")
    'file://localhost/_concurrent/a--array//elt-2'
    """
    path = f"{directory}/{name}" if directory else name
    return f"file://{host or 'localhost'}/{path.replace('/./', '/')}"


def same_file_key(url: str) -> str:
    """A file URL with repeated slashes in its path collapsed (for comparing spellings).

    >>> same_file_key("file://localhost/a--array//elt-2")
    'file://localhost/a--array/elt-2'
    """
    scheme, sep, rest = url.partition("://")
    return scheme + sep + re.sub(r"/{2,}", "/", rest) if sep else re.sub(r"/{2,}", "/", url)


def staged_in_names(text: str) -> list[str]:
    """File names of a ``Staging in files [a, b c]`` list (a Java list: ``", "`` between).

    >>> staged_in_names(" [file://localhost/in 1.txt, file://localhost/./b.txt]")
    ['file://localhost/in 1.txt', 'file://localhost/b.txt']
    """
    text = text.strip()
    names = text[1:-1].split(", ") if text.startswith("[") and text.endswith("]") else text.split()
    return [n.strip().replace("/./", "/") for n in names if n.strip()]


def arguments_without_secrets(text: str | None, program: str | None,
                              counts: dict | None = None) -> str | None:
    """A job's ``arguments`` (Java's list text, ``[a, b]``) without its secrets
    (:func:`lineage.secrets.redact_command_line` on its words).

    >>> arguments_without_secrets("[-i, in.txt, --token, s3cr3t]", "fetch")
    '[-i, in.txt, --token, [redacted]]'
    """
    if text and text.startswith("[") and text.endswith("]"):
        return "[" + ", ".join(redact_command_line(text[1:-1].split(", "), program, counts)) + "]"
    return redact_command_line(text, program, counts)


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
        self.functions: list = []  # (call id suffix, name, result)
        self.function_inputs: list = []  # (call id suffix, input)
        self.thread_functions: dict[str, int] = {}  # March 2009: FUNCTION lines per thread
        self.early_inputs: dict[str, list] = {}  # March 2009: inputs before their FUNCTION
        self.open_stageouts: dict[str, None] = {}  # jobs inside vdl:dostageout START..END
        self.stage_outs: list = []  # (file name, candidate jobs, most recent first)
        self.scopes: dict[str, None] = {}
        self.script_lines: list[str] | None = None
        self.script_size = 0
        self.in_script = False
        self.counts = report.extra.setdefault("swift_log", {})
        self.examples: dict[str, str] = {}  # damage reason -> its first example
        self.by_word = {
            "PARAM": self.on_param, "CONTAINMENT": self.on_containment,
            "FILENAME": self.on_filename, "VALUE": self.on_value,
            "PROCEDURE": self.on_procedure, "OPERATOR": self.on_operator,
            "FUNCTION": self.on_function, "FUNCTIONPARAMETER": self.on_function_parameter,
            "SCOPE": self.on_scope, "RUNID": self.on_runid,
            "FILE_STAGE_OUT_START": self.on_stage_out_file,
        }
        self.by_class = {
            "vdl:execute": self.execute, "vdl:execute2": self.execute2,
            "vdl:dostagein": self.on_stage_in, "vdl:dostageout": self.on_stage_out,
        }

    # ------------------------------------------------------------------ accounting
    def count(self, key: str, n: int = 1) -> None:
        """Add to one ``swift_log`` counter of the report."""
        self.counts[key] = self.counts.get(key, 0) + n

    def damaged(self, key: str, example: str, n: int = 1) -> None:
        """Count damage of one reason (:data:`DAMAGE`); the first example is kept for the
        warning :meth:`warn_damage` gives."""
        self.count(key, n)
        self.examples.setdefault(key, example)

    def warn_damage(self) -> None:
        """One warning per reason of damage: how many, and the first example."""
        for key, example in self.examples.items():
            self.report.warn(f"{self.path}: {DAMAGE[key]}: {self.counts[key]} "
                             f"(the first: {example})")

    def continuation(self, lineno: int, cls: str, word: str, more: list[str]) -> None:
        """Account for an entry's continuation lines (only a VALUE's are read)."""
        if word == "VALUE":
            self.count("value_continuation_lines", len(more))
        elif word in self.by_word or cls in self.by_class:
            self.damaged("provenance_continuation_lines",
                         f"line {lineno + 1}, after a {cls} {word} line", len(more))
        else:
            self.count("other_continuation_lines", len(more))

    def restated(self, lineno: int, word: str, key: str, first: str, again: str) -> None:
        """A second VALUE/PROCEDURE line for one id: a repeat, or a conflict (first kept)."""
        if again == first:
            self.count("repeated_values")
        else:
            self.damaged("duplicate_values", f"line {lineno}: {word} of {key} was "
                         f"{first[:200]!r}, then {again[:200]!r}")

    # ------------------------------------------------------------------ entries
    def dataset(self, ds_id: str) -> sp.Dataset:
        ds = self.prov.datasets.get(ds_id)
        if ds is None:
            ds = self.prov.datasets[ds_id] = sp.Dataset(ds_id)
        return ds

    def read(self, event: str, text: str, lineno: int, message: str) -> dict | None:
        """The fields of a line by the first spelling of :data:`SPELLINGS` it fits, or None."""
        kv = fields(text, *_all_keys(event))
        spellings = SPELLINGS[event]
        if any(all(kv.get(k) for k in s.required) for s in spellings):
            return kv
        expected = " or ".join(s.describe() for s in spellings)
        self.report.skip(self.path, lineno, f"{event} with {expected}", message[:200])
        return None

    def entry(self, lineno: int, when: float, cls: str, message: str, more: list[str]) -> None:
        self.count("entries")
        if self.first_time is None:
            self.first_time = when
        self.last_time = when
        word, _, rest = message.partition(" ")
        if more:
            self.continuation(lineno, cls, word, more)
        if word in self.by_word:
            self.by_word[word](lineno, rest, message, more)
        elif cls in self.by_class:
            self.by_class[cls](lineno, when, word, rest, message)
        elif not self.other(cls, message):
            self.count("other_entries")

    def other(self, cls: str, message: str) -> bool:
        """Read a run fact from an entry that is no provenance line; False if it has none."""
        if "Swift finished with no errors" in message:
            self.finished_ok = True
        elif cls == "Loader" and ": source file" in message and self.script_file is None:
            self.script_file = message.split(":", 1)[0].strip()
        elif self.swift_version is None and (m := re.search(r"swift-r(\d+)", message)):
            self.swift_version = m.group(1)
            cog = re.search(r"cog-r(\d+)", message)
            self.cog_version = cog.group(1) if cog else None
        else:
            return False
        return True

    def on_param(self, lineno, rest, message, more):
        if (kv := self.read("PARAM", rest, lineno, message)) is None:
            return
        if kv["direction"] not in ("input", "output"):
            self.report.skip(self.path, lineno, "PARAM direction=input|output", kv["direction"])
            return
        self.prov.provenance_lines += 1
        self.param_threads.setdefault(kv["thread"], None)
        self.dataset(kv["provenanceid"])
        table = self.prov.dataset_in if kv["direction"] == "input" else self.prov.dataset_out
        table[(kv["thread"], kv["provenanceid"], kv["variable"])] = None

    def on_containment(self, lineno, rest, message, more):
        if (kv := self.read("CONTAINMENT", rest, lineno, message)) is not None:
            self.dataset(kv["parent"]).collection = True
            self.dataset(kv["child"])
            self.prov.containment[(kv["parent"], kv["child"])] = None

    def on_filename(self, lineno, rest, message, more):
        if (kv := self.read("FILENAME", rest, lineno, message)) is None:
            return
        ds = self.dataset(kv["dataset"])
        if ds.filename is None:
            ds.filename = kv["filename"]
        elif ds.filename != kv["filename"]:
            self.report.warn(f"{self.path}:{lineno}: dataset {kv['dataset']} mapped to "
                             f"{ds.filename!r} and {kv['filename']!r}; kept the first")

    def on_value(self, lineno, rest, message, more):
        kv = self.read("VALUE", rest, lineno, message)
        if kv is None or "VALUE" not in kv:
            if kv is not None:
                self.report.skip(self.path, lineno, "VALUE dataset= VALUE=", message[:200])
            return
        value = kv["VALUE"] if not more else "\n".join([kv["VALUE"], *more])
        ds = self.dataset(kv["dataset"])
        if ds.value is None:
            ds.value = value
        else:
            self.restated(lineno, "VALUE", kv["dataset"], ds.value, value)

    def on_procedure(self, lineno, rest, message, more):
        if (kv := self.read("PROCEDURE", rest, lineno, message)) is None:
            return
        if kv["thread"] in self.procedures:
            self.restated(lineno, "PROCEDURE", f"thread {kv['thread']}",
                          self.procedures[kv["thread"]], kv["name"])
        else:
            self.procedures[kv["thread"]] = kv["name"]

    def on_operator(self, lineno, rest, message, more):
        if (kv := self.read("OPERATOR", rest, lineno, message)) is not None:
            self.operators.append((kv["thread"], kv["operator"].strip('"'), kv["lhs"], kv["rhs"],
                                   kv["result"]))

    def on_function(self, lineno, rest, message, more):
        if (kv := self.read("FUNCTION", rest, lineno, message)) is None:
            return
        if kv.get("id"):
            self.functions.append((kv["id"], kv.get("name"), kv["result"]))
            return
        # March 2009: no id; the n-th FUNCTION line of a thread is call function:<thread>:<n>
        thread = kv["thread"]
        n = self.thread_functions[thread] = self.thread_functions.get(thread, 0) + 1
        suffix = f"function:{thread}:{n}"
        self.functions.append((suffix, kv.get("name"), kv["result"]))
        for value in self.early_inputs.pop(thread, []):
            self.function_inputs.append((suffix, value))

    def on_function_parameter(self, lineno, rest, message, more):
        if (kv := self.read("FUNCTIONPARAMETER", rest, lineno, message)) is None:
            return
        if kv.get("id"):
            self.function_inputs.append((kv["id"], kv["input"]))
            return
        thread = kv["thread"]
        if thread in self.thread_functions:  # an input of the thread's latest function
            self.function_inputs.append((f"function:{thread}:{self.thread_functions[thread]}",
                                         kv["input"]))
        else:  # logged before its FUNCTION line: it belongs to the thread's next function
            self.early_inputs.setdefault(thread, []).append(kv["input"])

    def on_scope(self, lineno, rest, message, more):
        if (kv := self.read("SCOPE", rest, lineno, message)) is not None:
            self.scopes.setdefault(kv["thread"], None)

    def on_runid(self, lineno, rest, message, more):
        kv = self.read("RUNID", rest, lineno, message)
        self.runid_tag = (kv or {}).get("id") or self.runid_tag

    def on_stage_out_file(self, lineno, rest, message, more):
        if (kv := self.read("FILE_STAGE_OUT_START", rest, lineno, message)) is None:
            return
        name = staged_name(kv.get("desthost"), kv.get("destdir", ""), kv["srcname"])
        if kv.get("jobid"):
            self.stage_outs.append((name, [kv["jobid"]]))
        elif self.open_stageouts:
            self.stage_outs.append((name, list(reversed(self.open_stageouts))))
        else:
            self.report.unknown_item("FILE_STAGE_OUT_START outside vdl:dostageout START..END")

    def on_stage_out(self, lineno, when, word, rest, message):
        if word not in ("START", "END"):
            self.count("other_stage_events")
            return
        if (kv := self.read("vdl:dostageout", rest, lineno, message)) is None:
            return
        if word == "START":
            self.open_stageouts[kv["jobid"]] = None
        else:
            self.open_stageouts.pop(kv["jobid"], None)

    def on_stage_in(self, lineno, when, word, rest, message):
        if word != "START" or "Staging in files" not in message:
            self.count("other_stage_events")
            return
        if (kv := self.read("vdl:dostagein", rest, lineno, message)) is None:
            return
        names = staged_in_names(message.split("Staging in files", 1)[1])
        if names:
            self.jobs.setdefault(kv["jobid"], _Job()).stage_in.extend(names)

    def execute(self, lineno, when, word, rest, message):
        if (kv := self.read("vdl:execute", rest, lineno, message)) is None:
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
        if (kv := self.read("vdl:execute2", rest, lineno, message)) is None:
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
        if word == "JOB_START" and kv.get("arguments"):
            job.arguments = kv["arguments"]

    # ------------------------------------------------------------------ script source
    def raw_line(self, text: str, lineno: int = 0) -> bool:
        """Handle the SWIFTSCRIPT block; True when the line belonged to it."""
        if self.in_script:
            self.count("script_lines")
            if "END SWIFTSCRIPT" in text:
                self.in_script = False
            elif self.script_size < MAX_SCRIPT:
                self.script_lines.append(text)
                self.script_size += len(text) + 1
            else:
                self.damaged("script_lines_dropped", f"line {lineno}")
            return True
        if "BEGIN SWIFTSCRIPT" in text:
            self.count("script_lines")
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

    def holds_run(self) -> bool:
        """Whether the log names a run (its RUNID, Swift version or successful end) or says
        anything else to load (with or without provenance lines)."""
        return bool(self.runid_tag or self.swift_version or self.finished_ok
                    or self.prov.provenance_lines or self.prov.datasets or self.executes
                    or self.jobs or self.procedures or self.functions or self.function_inputs
                    or self.operators or self.scopes)

    def finish(self) -> SwiftProvenance:
        prov = self.prov
        if not self.holds_run():
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
        self.add_calls(run_id)
        self.add_call_io(run_id)
        self.attach_stage_outs(run_id)
        for job_id, job in self.jobs.items():
            self.add_exec(run_id, job_id, job)
        for ex in prov.execs.values():
            if ex.call_id:
                call = prov.calls[ex.call_id]
                call.attempts = (call.attempts or 0) + 1
        return prov

    def add_calls(self, run_id: str) -> None:
        """One call per execute thread, collection, operator, function, scope, other thread."""
        prov = self.prov

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
        for thread, name, *_ in self.operators:
            add_call(sp.Call(cid(f"operator:{thread}"), run_id, "operator", name=name))
        for fid, name, _ in self.functions:
            add_call(sp.Call(cid(fid), run_id, "function", name=name))
        for fid, _ in self.function_inputs:
            add_call(sp.Call(cid(fid), run_id, "function"))
        for thread in self.scopes:
            add_call(sp.Call(cid(thread), run_id, "scope", name="scope"))
        for thread in [*self.param_threads, *self.procedures]:
            if cid(thread) not in prov.calls:
                # known only from PARAM/PROCEDURE lines: a call of no declared type
                add_call(sp.Call(cid(thread), run_id, None, name=self.procedures.get(thread)))
                self.report.extra["untyped_calls"] = self.report.extra.get("untyped_calls", 0) + 1

    def add_call_io(self, run_id: str) -> None:
        """Parameter edges of operators, functions and constructors; thread ids to call ids."""
        prov = self.prov
        for thread, _, lhs, rhs, result in self.operators:
            op_id = f"{run_id}:operator:{thread}"
            for ds_id, param, table in ((lhs, "lhs", prov.dataset_in),
                                        (rhs, "rhs", prov.dataset_in),
                                        (result, "result", prov.dataset_out)):
                self.dataset(ds_id)
                table[(op_id, ds_id, param)] = None
        for fid, _, result in self.functions:
            self.dataset(result)
            prov.dataset_out[(f"{run_id}:{fid}", result, "result")] = None
        for fid, value in self.function_inputs:
            self.dataset(value)
            prov.dataset_in[(f"{run_id}:{fid}", value, "undefined")] = None
        # constructors: members in, collection out
        for out_id, in_id in prov.containment:
            prov.dataset_in[(self.constructors[out_id], in_id, "element")] = None
            prov.dataset_out[(self.constructors[out_id], out_id, "collection")] = None
        # PARAM lines name threads; the tables hold call ids
        prov.dataset_in = {(k[0] if k[0] in prov.calls else f"{run_id}:{k[0]}", k[1], k[2]): None
                           for k in prov.dataset_in}
        prov.dataset_out = {(k[0] if k[0] in prov.calls else f"{run_id}:{k[0]}", k[1], k[2]):
                            None for k in prov.dataset_out}

    def output_files(self) -> dict[str, set]:
        """Call id -> the file names of its outputs and of their members, at any depth."""
        members: dict[str, list] = {}
        for out_id, in_id in self.prov.containment:
            members.setdefault(out_id, []).append(in_id)
        files: dict[str, set] = {}
        for call_id, ds_id, _ in self.prov.dataset_out:
            todo, seen = [ds_id], set()
            while todo:
                current = todo.pop()
                if current in seen:
                    continue
                seen.add(current)
                ds = self.prov.datasets.get(current)
                if ds is not None and ds.filename:
                    files.setdefault(call_id, set()).add(same_file_key(ds.filename))
                todo.extend(members.get(current, ()))
        return files

    def attach_stage_outs(self, run_id: str) -> None:
        """Give each FILE_STAGE_OUT_START to its job.

        A line with ``jobid=`` names it. Otherwise the job is the one whose
        ``vdl:dostageout START`` is open; when several are (parallel jobs), the one whose
        call produced a dataset mapped to that file, else the latest opened (counted and
        warned as ``stage_out_ambiguous``).
        """
        outputs = None
        for name, candidates in self.stage_outs:
            known = [j for j in candidates if j in self.jobs]
            if not known:
                self.report.unknown_item("FILE_STAGE_OUT_START of a job without vdl:execute2")
                continue
            job_id = known[0]
            if len(known) > 1:
                outputs = self.output_files() if outputs is None else outputs
                key = same_file_key(name)
                owners = [j for j in known
                          if key in outputs.get(self.call_of(run_id, self.jobs[j]) or "", ())]
                if len(owners) == 1:
                    job_id = owners[0]
                else:
                    self.report.extra["stage_out_ambiguous"] = \
                        self.report.extra.get("stage_out_ambiguous", 0) + 1
                    self.report.warn(f"{self.path}: stage-out {name} fits jobs {known}; "
                                     f"given to {job_id}, the latest opened")
            stage_out = self.jobs[job_id].stage_out
            if name not in stage_out:
                stage_out.append(name)

    def call_of(self, run_id: str, job: _Job) -> str | None:
        """The execute call of a job: its thread without the last (attempt) part."""
        parent = (job.thread or "").rpartition("-")[0]
        return f"{run_id}:{parent}" if parent and f"{run_id}:{parent}" in self.prov.calls \
            else None

    def add_exec(self, run_id: str, job_id: str, job: _Job) -> None:
        call_id = self.call_of(run_id, job)
        last = (job.thread or "").rpartition("-")[2]
        attempt = int(last) if job.thread and last.isdigit() else None
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
                   "app_name": job.tr, "scratch": job.tmpdir,
                   "arguments": arguments_without_secrets(job.arguments, job.tr,
                                                          self.report.extra),
                   "replication_group": job.replication_group, "states": list(job.events)},
        )


def read_lines(lines: Iterable[str], report: LoadReport, path: str = "<log>") -> SwiftProvenance:
    """Read a log's lines (without newlines) into a :class:`SwiftProvenance`."""
    reader = _Reader(report, path)
    try:
        pending: tuple | None = None  # (lineno, time, class, message, continuation lines)
        for lineno, text in enumerate(lines, 1):
            reader.count("lines")
            if len(text) > MAX_LINE:
                report.skip(path, lineno, f"a log line shorter than {MAX_LINE} bytes",
                            f"{len(text)} bytes")
                continue
            if reader.raw_line(text, lineno):
                continue
            m = _ENTRY.match(text)
            if m is None:
                if pending is not None:
                    pending[4].append(text)
                else:
                    reader.damaged("lines_without_entry", f"line {lineno}: {text[:100]!r}")
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
        if reader.in_script:
            reader.damaged("unterminated_script", f"a script of {len(reader.script_lines or ())} lines")
        reader.warn_damage()
        prov = reader.finish()
        if prov.run is None:
            report.warn(f"{path}: no run (RUNID, Swift version) and no Swift facts (datasets, "
                        f"calls, executions); nothing to load")
            report.extra["provenance"] = "none"
        elif not prov.provenance_lines:
            report.warn(f"{path}: no provenance lines (PARAM ... provenanceid=): the run was not "
                        f"logged with provenance.log=true; loaded what the log holds "
                        f"({len(prov.datasets)} datasets, {len(prov.calls)} calls, "
                        f"{len(prov.execs)} executions), without parameter edges")
            report.extra["provenance"] = "partial"
        return prov
    finally:  # its handler tables hold bound methods: a cycle holding the run's whole state;
        reader.by_word.clear()  # broken, so the state goes when the caller drops it rather
        reader.by_class.clear()  # than at a later full collection


def _file_lines(path: Path, report: LoadReport) -> Iterator[str]:
    for line in bounded_lines(path, report, MAX_LINE, errors="replace"):
        yield line.rstrip("\r\n")


def read_log(path: Path, report: LoadReport) -> SwiftProvenance:
    """Read one log file (streamed line by line, never a line over :data:`MAX_LINE` whole;
    a last line without its newline is reported as cut short)."""
    return read_lines(_file_lines(Path(path), report), report, str(path))


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
