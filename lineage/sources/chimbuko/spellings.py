"""Every generation and spelling of Chimbuko's provenance records that the mapping reads,
in one table, with where Chimbuko wrote it (CODARcode/PerformanceAnalysis, the provDB
writers: ``src/ad/ADAnomalyProvenance.cpp`` over its history, ``src/ad/ExecData.cpp``,
``src/ad/utils.cpp``, ``sphinx/source/io_schema/provdb_schema.rst``).

Each entry of :data:`VARIANTS` has a test (tests/test_chimbuko_variants.py, guarded by
the table). Records that follow none of them are skipped and counted (``report.skipped``,
``report.unknown``), never guessed.

>>> sorted(GENERATIONS)
[-2, -1, 0, 1, 2]
>>> generation({"version": 2})
2
>>> generation({"event_id": "0:0:1", "func_stats": {}, "call_stack": ["main"]})
-1
"""

from __future__ import annotations

from typing import Any

_PROV = "CODARcode/PerformanceAnalysis src/ad/ADAnomalyProvenance.cpp"

#: Event record generations (``record_version`` on the execution), oldest first.
GENERATIONS: dict[int, str] = {
    -2: f"{_PROV} (its first get_json): pid, rid, tid, 'func' holding the event label, "
        "entry, exit, runtimes, call_stack of function names (the execution's own first), "
        "func_stats; no event_id, no fid",
    -1: f"{_PROV} (the next get_json): adds event_id, fid, func (the name) and "
        "counter_events; call_stack still function names",
    0: f"{_PROV} (the v0 sample, 2020 timestamps): call_stack of objects, func_stats, "
       "event_window, io_step, GPU location and parent (provdb_schema.rst)",
    1: f"{_PROV} getEventProvenance: algo_params instead of func_stats, outlier_score / "
       "severity, node_state, hostname; no version",
    2: f"{_PROV} getEventProvenance (the v2 sample, 2023 timestamps): 'version': 2 "
       "(histogram keys Bin Counts/First edge/...)",
}

#: Every variant, generation or spelling, with its source; one test each.
VARIANTS: dict[str, str] = {
    **{f"generation {g}": text for g, text in GENERATIONS.items()},
    "histogram Histogram Bin Counts / Histogram Bin Edges":
        "CODARcode/PerformanceAnalysis Histogram::get_json (HBOS parameters, older) "
        "and provdb_schema.rst (algo_params)",
    "histogram Bin Counts / First edge / Bin width / Min / Max":
        "CODARcode/PerformanceAnalysis docker/ubuntu18.04/openmpi4.0.4/jupyter_example.ipynb "
        "(the v2 sample)",
    "metadata without pid": "CODARcode/PerformanceAnalysis provdb_schema.rst (descr, rid, "
                            "tid, value): the v0 sample",
    "metadata with pid": "CODARcode/PerformanceAnalysis src/ad/ExecData.cpp MetaData_t::get_json",
    "event label rank:step:idx": "CODARcode/PerformanceAnalysis src/ad/utils.cpp "
                                 "generate_event_id(rank, step, idx)",
    "event label rank-eid:step:idx": "CODARcode/PerformanceAnalysis src/ad/utils.cpp "
                                     "generate_event_id(rank, step, idx, eid)",
    "call stack entry as an object": "provdb_schema.rst: {entry, exit, fid, func, event_id}",
    "call stack entry as a function name":
        f"{_PROV} (generations -2, -1): m_callstack of get_funcname()",
}


def stack_of_names(stack: Any) -> bool:
    """True for a call stack written as function names (generations -2 and -1).

    >>> stack_of_names(["f", "main"]), stack_of_names([{"func": "f"}]), stack_of_names([])
    (True, False, False)
    """
    return isinstance(stack, list) and bool(stack) and all(isinstance(s, str) for s in stack)


def generation(rec: dict) -> int:
    """The generation (a key of :data:`GENERATIONS`) of an event record."""
    version = rec.get("version")
    if isinstance(version, (int, float)) and not isinstance(version, bool):
        return int(version)
    if "func_stats" in rec:
        if "event_id" not in rec:
            return -2
        return -1 if stack_of_names(rec.get("call_stack")) else 0
    return 1
