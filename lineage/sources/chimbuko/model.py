"""The Chimbuko part of the graph model: programs, ranks, functions and the function
executions (anomalies and normal executions) of its provenance database.

A call stack is ``CALLED_BY`` from callee to caller; the executions of one window are
``FOLLOWED_BY`` in time; MPI messages are ``SENT_MESSAGE``; a GPU kernel is ``LAUNCHED_ON``
its CPU parent.

Chimbuko records no run identity (a program id ``pid`` restarts at 0 in every run), so
every uid starts with the run's name (see :func:`..mapping.run_key`): two runs never merge.

>>> RANK.uid("xgc-1a2b3c4d", 0, 3)
'chimbuko:rank:xgc-1a2b3c4d:0:3'
>>> FUNCTION_EXECUTION.uid("xgc-1a2b3c4d", 1, "0:12:225")
'chimbuko:event:xgc-1a2b3c4d:1:0:12:225'
"""

from __future__ import annotations

from ...model.common import HOST
from ...model.core import NodeKind, Relation, RelType, Role
from ...model.prov import PART_OF, WAS_ASSOCIATED_WITH

SOURCE = "chimbuko"
#: Run statistics (Chimbuko's ``RunStats``) appear under several prefixes.
_RUNSTATS = {p: "float" for p in ("excl_", "incl_", "severity_", "score_")}

PROGRAM_RUN = NodeKind(
    "ProgramRun", Role.ACTIVITY, SOURCE, uid_parts=("run", "pid"), prefix="chimbuko:run", run=True,
    props={"run": "string", "run_dir": "string", "pid": "integer", "executable": "string", "command_line": "string",
           "counter_stats": "json", "counter_names": "string[]"},
    display="program run", colour="#9467bd", caption=("executable", "name"),
    doc="One program (Chimbuko ``pid``) of a monitored run.")
RANK = NodeKind(
    "Rank", Role.ACTIVITY, SOURCE, uid_parts=("run", "pid", "rank"),
    props={"pid": "integer", "rank": "integer", "hostname": "string", "command_line": "string",
           "executable": "string", "cwd": "string", "mpi_world_size": "string",
           "tau_version": "string", "os_name": "string", "os_release": "string",
           "cpu_type": "string", "memory_size": "string", "start_timestamp": "string",
           "local_time": "string", "metadata": "json", "gpu_threads": "json",
           "gpu_thread_ids": "integer[]"},
    display="rank", colour="#8c564b", group_by=("hostname",),
    doc="One MPI rank of a program, with its metadata.")
FUNCTION = NodeKind(
    "Function", Role.ENTITY, SOURCE, uid_parts=("run", "pid", "fid"),
    props={"pid": "integer", "fid": "integer", "runtime_profile": "json",
           "anomaly_metrics": "json", "has_global_stats": "boolean"},
    prop_families={**_RUNSTATS, "anomaly_": "float", "model_": "any"},
    indexed=("name",), display="function", colour="#17becf",
    doc="A function of a program, with its global profile and anomaly model.")
FUNCTION_EXECUTION = NodeKind(
    "FunctionExecution", Role.ACTIVITY, SOURCE, uid_parts=("run", "pid", "event_id"),
    prefix="chimbuko:event", extra_labels=("Anomaly",),
    props={"event_id": "string", "pid": "integer", "rank": "integer", "thread": "integer",
           "io_step": "integer", "idx": "integer", "fid": "integer", "function": "string",
           "entry": "integer", "exit": "integer", "runtime_inclusive": "integer",
           "runtime_exclusive": "integer", "provdb_collection": "string",
           "record_version": "integer", "call_stack_functions": "string[]",
           "io_step_tstart": "integer", "io_step_tend": "integer",
           "is_gpu_event": "boolean", "is_anomaly": "boolean", "counter_events": "json",
           "counter_names": "string[]", "hostname": "string", "outlier_score": "float",
           "outlier_severity": "float", "node_state": "string",
           "node_state_timestamp": "integer", "hist_counts": "integer[]",
           "hist_edges": "float[]", "hist_min": "float", "hist_max": "float",
           "hist_bin_width": "float"},
    prop_families={"algo_": "any", "gpu_": "integer"}, display="function execution",
    colour="#1f77b4", group_by=("function", "name"),
    doc="One execution of a function (an anomaly, or a normal one kept for comparison).")

KINDS = (PROGRAM_RUN, RANK, FUNCTION, FUNCTION_EXECUTION)

CALLED_BY = RelType("CALLED_BY", doc="(callee)-[:CALLED_BY]->(caller): the call stack")
FOLLOWED_BY = RelType("FOLLOWED_BY", doc="(execution)-[:FOLLOWED_BY]->(next in its window)")
SENT_MESSAGE = RelType(
    "SENT_MESSAGE", doc="(sender)-[:SENT_MESSAGE]->(receiver): an MPI message",
    props={"bytes": "integer", "src_rank": "integer", "tag": "integer",
           "tar_rank": "integer", "timestamp": "integer", "type": "string", "key": "string"})
EXECUTES = RelType("EXECUTES", doc="(:FunctionExecution)-[:EXECUTES]->(:Function)")
LAUNCHED_ON = RelType(
    "LAUNCHED_ON", doc="(GPU execution)-[:LAUNCHED_ON]->(its CPU parent)",
    props={"device": "integer", "context": "integer", "stream": "integer",
           "gpu_thread": "integer"})
REL_TYPES = (CALLED_BY, FOLLOWED_BY, SENT_MESSAGE, EXECUTES, LAUNCHED_ON)

RELATIONS = (
    Relation(PART_OF, RANK, PROGRAM_RUN), Relation(PART_OF, FUNCTION, PROGRAM_RUN),
    Relation(PART_OF, FUNCTION_EXECUTION, RANK),
    Relation(CALLED_BY, FUNCTION_EXECUTION, FUNCTION_EXECUTION),
    Relation(FOLLOWED_BY, FUNCTION_EXECUTION, FUNCTION_EXECUTION),
    Relation(SENT_MESSAGE, FUNCTION_EXECUTION, RANK, "a message sent to a rank"),
    Relation(SENT_MESSAGE, RANK, FUNCTION_EXECUTION, "a message received from a rank"),
    Relation(EXECUTES, FUNCTION_EXECUTION, FUNCTION),
    Relation(LAUNCHED_ON, FUNCTION_EXECUTION, FUNCTION_EXECUTION),
    Relation(WAS_ASSOCIATED_WITH, RANK, HOST, "the rank ran on the host"),
)
