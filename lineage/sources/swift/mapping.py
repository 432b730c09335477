"""The Swift provenance model shared by the log loader and the database loader.

Both sources fill the same plain objects (a run, its function calls, application
executions, datasets and parameter edges) and :func:`records` turns them into graph
records, so a log and the provenance database imported from it give the same graph.

Identifiers follow the original importer (swift-provenancedb): a function call is
``<run id>:<thread>``, an application execution ``<run id>:<job id>``, a dataset its
provenance id. uids add the source and kind: ``swift:call:<run id>:<thread>``.

>>> run = Run("001-echo-20090316-1711-i7icnjl1", final_state="SUCCESS")
>>> [r.uid for r in run_records(run)]
['swift:run:001-echo-20090316-1711-i7icnjl1']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from ... import model
from ...model import status
from . import model as swift_model
from ...model.records import Edge, Node, Record

#: Function call types of the provenance database (fun_call.type).
CALL_TYPES = ("execute", "function", "operator", "compound", "scope", "internal",
              "rootthread", "constructor")
#: Call types whose id ends in a Swift thread id.
THREADED = ("execute", "compound", "scope", "internal")
#: Call types whose name is not a procedure's: the importer names a root thread after the
#: run, a constructor "constructor", a scope "scope", an operator after its symbol.
NOT_PROCEDURES = ("rootthread", "constructor", "scope", "operator")


def procedure_of(call_type: str | None, name: str | None) -> str | None:
    """The procedure (or built-in function) a call invoked, or None when it invoked none.

    >>> procedure_of("execute", "greeting"), procedure_of("rootthread", "run-1")
    ('greeting', None)
    >>> procedure_of("constructor", "constructor"), procedure_of(None, "align")
    (None, 'align')
    """
    return None if call_type in NOT_PROCEDURES else name
#: The 22 resource columns of app_exec (wrapper-log runtime statistics).
RESOURCE_COLUMNS = (
    "real_secs", "kernel_secs", "user_secs", "percent_cpu", "max_rss", "avg_rss",
    "avg_tot_vm", "avg_priv_data", "avg_priv_stack", "avg_shared_text", "page_size",
    "major_pgfaults", "minor_pgfaults", "swaps", "invol_context_switches", "vol_waits",
    "fs_reads", "fs_writes", "sock_recv", "sock_send", "signals", "exit_status",
)
#: Prefix of the graph properties that hold annotations (``annot_<key>``).
ANNOT_PREFIX = "annot_"


def run_uid(run_id: str) -> str:
    return swift_model.SCRIPT_RUN.uid(run_id)


def call_uid(call_id: str) -> str:
    return swift_model.FUNCTION_CALL.uid(call_id)


def exec_uid(exec_id: str) -> str:
    return swift_model.APP_EXECUTION.uid(exec_id)


def dataset_uid(dataset_id: str) -> str:
    return swift_model.DATASET.uid(dataset_id)


def script_uid(sha1: str) -> str:
    return swift_model.SCRIPT.uid(sha1)


def status_of(final_state: str | None) -> str | None:
    """The status (:mod:`lineage.model.status`) of a Swift final state: the one rule of
    every Swift kind with an outcome.

    >>> status_of("END_SUCCESS"), status_of("FAIL"), status_of("JOB_END"), status_of(None)
    ('succeeded', 'failed', 'succeeded', None)
    >>> status_of("END_CANCELED"), status_of("ACTIVE")
    ('incomplete', 'running')
    """
    if not final_state:
        return None
    state = final_state.upper()
    if "FAIL" in state or "EXCEPTION" in state or "ERROR" in state:
        return status.FAILED
    if state in ("SUCCESS", "END_SUCCESS", "JOB_END", "COMPLETED"):
        return status.SUCCEEDED
    if "CANCEL" in state:
        return status.INCOMPLETE
    return status.RUNNING


@dataclass
class Run:
    id: str
    log_filename: str | None = None
    swift_version: str | None = None
    cog_version: str | None = None
    final_state: str | None = None
    start_time: float | None = None
    duration: float | None = None
    script_filename: str | None = None
    script_hash: str | None = None
    annotations: dict = field(default_factory=dict)


@dataclass
class Call:
    id: str
    run_id: str | None
    type: str | None
    name: str | None = None
    app_name: str | None = None  # app_fun_call.name: the transformation (tc.data) name
    start_time: float | None = None
    duration: float | None = None
    final_state: str | None = None
    scratch: str | None = None
    attempts: int | None = None  # application executions (app_exec rows) of this call
    annotations: dict = field(default_factory=dict)

    @property
    def thread(self) -> str | None:
        if self.type in THREADED and self.run_id and self.id.startswith(self.run_id + ":"):
            return self.id[len(self.run_id) + 1:]
        return None


@dataclass
class AppExec:
    id: str
    call_id: str | None
    run_id: str | None = None
    start_time: float | None = None
    duration: float | None = None
    final_state: str | None = None
    site: str | None = None
    resources: dict = field(default_factory=dict)
    stage_in: list = field(default_factory=list)
    stage_out: list = field(default_factory=list)
    extra: dict = field(default_factory=dict)  # what only the log knows (thread, states, ...)
    annotations: dict = field(default_factory=dict)


@dataclass
class Dataset:
    id: str
    filename: str | None = None
    value: str | None = None
    collection: bool = False
    annotations: dict = field(default_factory=dict)

    @property
    def type(self) -> str:
        if self.filename is not None:
            return "mapped"
        if self.value is not None:
            return "primitive"
        return "collection" if self.collection else "other"


def _annotations(annotations: dict) -> dict:
    return {ANNOT_PREFIX + k: v for k, v in annotations.items()}


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def run_records(run: Run) -> Iterator[Record]:
    """The ScriptRun node (and its Script edge) of a run."""
    uid = run_uid(run.id)
    end = end_time(run.start_time, run.duration)
    yield Node(swift_model.SCRIPT_RUN, uid, {
        "run_id": run.id,
        "name": run.script_filename or run.id,
        "log_filename": run.log_filename,
        "swift_version": run.swift_version,
        "cog_version": run.cog_version,
        "final_state": run.final_state,
        "status": status_of(run.final_state),
        "start_time": run.start_time,
        "end_time": end,
        "duration": run.duration,
        "script_filename": run.script_filename,
        "script_hash": run.script_hash,
        **_annotations(run.annotations),
    })
    if run.script_hash:
        yield Node(swift_model.SCRIPT, script_uid(run.script_hash), {"hash": run.script_hash})
        yield Edge(swift_model.HAS_SCRIPT, uid, script_uid(run.script_hash))


def script_records(sha1: str, content: str, filename: str | None = None) -> Iterator[Record]:
    yield Node(swift_model.SCRIPT, script_uid(sha1), {
        "hash": sha1, "source": content, "name": filename or f"script {sha1[:12]}",
        "lines": content.count("\n"),
    })


def end_time(start: float | None, duration: float | None) -> float | None:
    """The end of something that started at ``start`` and lasted ``duration`` seconds.

    >>> end_time(10.0, 2.5), end_time(None, 2.5)
    (12.5, None)
    """
    return start + duration if start is not None and duration is not None else None


def call_records(call: Call) -> Iterator[Record]:
    uid = call_uid(call.id)
    end = end_time(call.start_time, call.duration)
    yield Node(swift_model.FUNCTION_CALL, uid, {
        "call_id": call.id,
        "run_id": call.run_id,
        "type": call.type,
        "name": call.name or call.app_name or call.type or call.id,
        "procedure": procedure_of(call.type, call.name),
        "app_name": call.app_name,
        "thread": call.thread,
        "start_time": call.start_time,
        "end_time": end,
        "duration": call.duration,
        "final_state": call.final_state,
        "status": status_of(call.final_state),
        "scratch": call.scratch,
        "attempts": call.attempts or None,
        **_annotations(call.annotations),
    })
    if call.run_id:
        yield Node(swift_model.SCRIPT_RUN, run_uid(call.run_id), {"run_id": call.run_id})
        yield Edge(model.PART_OF, uid, run_uid(call.run_id))


def exec_records(ex: AppExec) -> Iterator[Record]:
    uid = exec_uid(ex.id)
    end = end_time(ex.start_time, ex.duration)
    yield Node(swift_model.APP_EXECUTION, uid, {
        "exec_id": ex.id,
        "call_id": ex.call_id,
        "run_id": ex.run_id,
        "name": ex.extra.get("job_id") or ex.id,
        "start_time": ex.start_time,
        "end_time": end,
        "duration": ex.duration,
        "final_state": ex.final_state,
        "status": status_of(ex.final_state),
        "site": ex.site,
        "stage_in": list(ex.stage_in) or None,
        "stage_out": list(ex.stage_out) or None,
        **{k: v for k, v in ex.resources.items() if v is not None},
        **ex.extra,
        **_annotations(ex.annotations),
    })
    if ex.call_id:
        yield Node(swift_model.FUNCTION_CALL, call_uid(ex.call_id), {"call_id": ex.call_id})
        yield Edge(model.INSTANCE_OF, uid, call_uid(ex.call_id))
    elif ex.run_id:
        yield Node(swift_model.SCRIPT_RUN, run_uid(ex.run_id), {"run_id": ex.run_id})
        yield Edge(model.PART_OF, uid, run_uid(ex.run_id))


def dataset_records(ds: Dataset) -> Iterator[Record]:
    if ds.filename is not None:
        name = ds.filename
    elif ds.value is not None:
        name = _short(ds.value)
    else:
        name = ds.id.rsplit(":", 1)[-1]
    yield Node(swift_model.DATASET, dataset_uid(ds.id), {
        "dataset_id": ds.id,
        "name": name,
        "filename": ds.filename,
        "value": ds.value,
        "dataset_type": ds.type,
        **_annotations(ds.annotations),
    })


def io_records(call_id: str, dataset_id: str, parameter: str, direction: str) -> Iterator[Record]:
    """``USED`` (input) or ``WAS_GENERATED_BY`` (output), keyed by the parameter name."""
    props = {"parameter": parameter}
    if direction == "input":
        yield Edge(model.USED, call_uid(call_id), dataset_uid(dataset_id), props, key=parameter)
    else:
        yield Edge(model.WAS_GENERATED_BY, dataset_uid(dataset_id), call_uid(call_id), props,
                   key=parameter)


def containment_records(out_id: str, in_id: str) -> Iterator[Record]:
    yield Edge(model.HAD_MEMBER, dataset_uid(out_id), dataset_uid(in_id))
