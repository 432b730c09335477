"""The Swift part of the graph model: script runs, function calls, app executions, datasets.

Names follow Swift's provenance database (``run``, ``fun_call``, ``app_exec``, ``ds``): a
call ``USED`` the datasets it read (``dataset_in``) and they ``WAS_GENERATED_BY`` the call
that wrote them (``dataset_out``); an app execution is ``INSTANCE_OF`` its call; containment
(``dataset_containment``) is ``HAD_MEMBER``.

>>> SCRIPT_RUN.uid("20090316-1711-i7icnjl1")
'swift:run:20090316-1711-i7icnjl1'
>>> APP_EXECUTION.uid("20090316-1711-i7icnjl1:echo-h4fgen4j")
'swift:exec:20090316-1711-i7icnjl1:echo-h4fgen4j'
"""

from __future__ import annotations

from ...model.core import NodeKind, Relation, RelType, Role
from ...model.prov import HAD_MEMBER, INSTANCE_OF, PART_OF, USED, WAS_GENERATED_BY

SOURCE = "swift"
_TIMES = {"start_time": "float", "end_time": "float", "duration": "float"}
_OUTCOME = {"final_state": "string", "status": "status"}
#: how a Swift final state becomes a status (mapping.status_of)
_RULE = ("its final state: failed when it names a failure (FAIL, EXCEPTION, ERROR), succeeded "
         "when it names a success (SUCCESS, END_SUCCESS, JOB_END, COMPLETED), incomplete when "
         "it was cancelled, else running (mapping.status_of)")
_ANNOTATED = {"annot_": "scalar"}

#: ``app_exec`` resource-usage columns of the provenance database (kickstart-style numbers).
RESOURCE_COLUMNS = (
    "real_secs", "kernel_secs", "user_secs", "percent_cpu", "max_rss", "avg_rss",
    "avg_tot_vm", "avg_priv_data", "avg_priv_stack", "avg_shared_text", "page_size",
    "major_pgfaults", "minor_pgfaults", "swaps", "invol_context_switches", "vol_waits",
    "fs_reads", "fs_writes", "sock_recv", "sock_send", "signals", "exit_status",
)

SCRIPT_RUN = NodeKind(
    "ScriptRun", Role.ACTIVITY, SOURCE, uid_parts=("run_id",), prefix="swift:run", run=True,
    props={"run_id": "string", "log_filename": "string", "swift_version": "string",
           "cog_version": "string", "script_filename": "string", "script_hash": "string",
           **_TIMES, **_OUTCOME},
    prop_families=_ANNOTATED, display="script run", colour="#9467bd", outcome=_RULE,
    caption=("script_filename", "name"),
    doc="One run of a SwiftScript program (a log file, or a row of the ``run`` table).")
FUNCTION_CALL = NodeKind(
    "FunctionCall", Role.ACTIVITY, SOURCE, uid_parts=("call_id",), prefix="swift:call",
    props={"call_id": "string", "run_id": "string", "type": "string", "procedure": "string",
           "app_name": "string", "thread": "string", "attempts": "integer",
           **_TIMES, **_OUTCOME},
    prop_families=_ANNOTATED, indexed=("name", "call_id"), display="function call",
    colour="#1f77b4",
    outcome=_RULE,
    caption=("name",), group_by=("name",),
    doc="One call of a procedure or app in the script (``fun_call``).")
APP_EXECUTION = NodeKind(
    "AppExecution", Role.ACTIVITY, SOURCE, uid_parts=("exec_id",), prefix="swift:exec",
    props={"exec_id": "string", "call_id": "string", "run_id": "string", "site": "string",
           "job_id": "string", "thread": "string", "attempt": "integer", "app_name": "string",
           "arguments": "string", "scratch": "string", "replication_group": "string",
           "states": "string[]", "stage_in": "string[]", "stage_out": "string[]",
           **{c: "float" for c in RESOURCE_COLUMNS}, **_TIMES, **_OUTCOME},
    prop_families={**_ANNOTATED, "rt_": "float[]"}, display="app execution", outcome=_RULE,
    colour="#aec7e8", group_by=("name",),
    doc="One execution attempt of an app call on a site (``app_exec``).")
DATASET = NodeKind(
    "Dataset", Role.ENTITY, SOURCE, uid_parts=("dataset_id",), prefix="swift:dataset",
    props={"dataset_id": "string", "value": "string", "dataset_type": "string",
           "filename": "string"},
    prop_families=_ANNOTATED, indexed=("filename", "dataset_id"), display="dataset",
    colour="#bcbd22",
    caption=("filename", "value", "name"), group_by=("dataset_type",),
    doc="A value or file a call read or wrote (``ds``), possibly a collection.")
SCRIPT = NodeKind(
    "Script", Role.ENTITY, SOURCE, uid_parts=("hash",),
    props={"hash": "string", "source": "string", "lines": "integer"},
    display="script", colour="#dbdb8d",
    doc="The SwiftScript source a run executed, by its SHA-1.")

KINDS = (SCRIPT_RUN, FUNCTION_CALL, APP_EXECUTION, DATASET, SCRIPT)

HAS_SCRIPT = RelType("HAS_SCRIPT", doc="(:ScriptRun)-[:HAS_SCRIPT]->(:Script)")
REL_TYPES = (HAS_SCRIPT,)

RELATIONS = (
    Relation(PART_OF, FUNCTION_CALL, SCRIPT_RUN), Relation(PART_OF, APP_EXECUTION, SCRIPT_RUN),
    Relation(INSTANCE_OF, APP_EXECUTION, FUNCTION_CALL, "an execution of the app call"),
    Relation(USED, FUNCTION_CALL, DATASET, "dataset_in"),
    Relation(WAS_GENERATED_BY, DATASET, FUNCTION_CALL, "dataset_out"),
    Relation(HAD_MEMBER, DATASET, DATASET, "dataset_containment"),
    Relation(HAS_SCRIPT, SCRIPT_RUN, SCRIPT),
)
