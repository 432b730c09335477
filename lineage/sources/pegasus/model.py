"""The Pegasus part of the graph model: workflows, tasks, jobs, attempts, invocations, files.

Names follow the Stampede schema (``xwf.id`` is ``xwf_id``, ``job_inst.id`` the attempt's
``submit_seq``). Task and job dependencies are ``WAS_INFORMED_BY`` from child to parent; an
attempt is ``INSTANCE_OF`` its job; parts are ``PART_OF`` their workflow or attempt.

>>> JOB.uid("ea17e8ac", "analyze_j4")
'pegasus:job:ea17e8ac:analyze_j4'
>>> JOB_INSTANCE.uid("ea17e8ac", "analyze_j4", 3)
'pegasus:job_instance:ea17e8ac:analyze_j4:3'
"""

from __future__ import annotations

from ...model.common import HOST, USER
from ...model.core import NodeKind, Relation, RelType, Role
from ...model.prov import (INSTANCE_OF, PART_OF, USED, WAS_ASSOCIATED_WITH, WAS_GENERATED_BY,
                           WAS_INFORMED_BY, WAS_STARTED_BY)

SOURCE = "pegasus"
_TIMES = {"start_time": "float", "end_time": "float", "duration": "float"}
_EXIT = {"exitcode_raw": "integer", "exitcode": "integer", "signal": "integer"}

WORKFLOW = NodeKind(
    "Workflow", Role.ACTIVITY, SOURCE, uid_parts=("xwf_id",), run=True,
    props={
        "xwf_id": "string", "label": "string", "index": "integer", "root_xwf_id": "string",
        "parent_xwf_id": "string", "is_root": "boolean", "planner_version": "string",
        "submit_dir": "string", "submit_hostname": "string", "argv": "string",
        "user": "string", "grid_dn": "string", "dax_file": "string", "dax_version": "string",
        "dag_file": "string", "plan_time": "float", "states": "string[]",
        "state_times": "float[]", "restart_count": "integer", "starts": "integer",
        "exit_status": "integer", "status": "status", "end_reason": "string",
        "wall_time": "float", "db_url": "string", "archived": "boolean", **_TIMES,
    },
    prop_families={"meta_": "string"}, indexed=("label",), display="workflow",
    colour="#9467bd", caption=("label", "name"),
    outcome="running until the workflow's last start has its end, then succeeded when that "
            "end's status is 0, else failed (mapping.workflow_outcome)",
    doc="One planned and run Pegasus workflow (a root or a sub-workflow).")
TASK = NodeKind(
    "Task", Role.ACTIVITY, SOURCE, uid_parts=("xwf_id", "task_id"),
    props={"task_id": "string", "type": "integer", "type_desc": "string",
           "transformation": "string", "argv": "string"},
    prop_families={"meta_": "string"}, indexed=("task_id",), display="task",
    colour="#17becf", caption=("transformation", "name"), group_by=("transformation",),
    doc="An abstract task of the workflow description (DAX).")
JOB = NodeKind(
    "Job", Role.ACTIVITY, SOURCE, uid_parts=("xwf_id", "job_id"),
    props={
        "job_id": "string", "xwf_id": "string", "submit_file": "string", "type": "integer",
        "type_desc": "string", "clustered": "boolean", "max_retries": "integer",
        "task_count": "integer", "executable": "string", "argv": "string",
        "attempts": "integer", "retries": "integer", "last_submit_seq": "integer",
        "last_state": "string", "status": "status", "held_reason": "string",
        "host": "string", **_EXIT,
    },
    indexed=("job_id", "status"), display="job", colour="#1f77b4",
    outcome="its last attempt's status; unsubmitted when it has no attempt "
            "(mapping.job_status)",
    group_by=("type_desc", "transformation"),
    doc="An executable job of the planned workflow (one or more attempts).")
JOB_INSTANCE = NodeKind(
    "JobInstance", Role.ACTIVITY, SOURCE, uid_parts=("xwf_id", "job_id", "submit_seq"),
    prefix="pegasus:job_instance",
    props={
        "job_id": "string", "xwf_id": "string", "submit_seq": "integer",
        "sched_id": "string", "site": "string", "user": "string", "work_dir": "string",
        "hostname": "string", "cluster_start": "float", "cluster_duration": "float",
        "local_duration": "float", "multiplier_factor": "integer", "status_code": "integer",
        "pre_exitcode": "integer", "post_exitcode": "integer",
        "stdin_file": "string", "stdout_file": "string", "stderr_file": "string",
        "stdout_text": "string", "stderr_text": "string", "states": "string[]",
        "state_times": "float[]", "last_state": "string", "status": "status",
        "held_reason": "string", "abort_reason": "string", "submit_time": "float",
        "image_size": "integer", "tag": "string", "tag_count": "integer",
        **_TIMES, **_EXIT,
    },
    prop_families={"meta_": "string", "integrity_": "float"}, display="job attempt",
    colour="#aec7e8",
    outcome="its exit code decides (0 succeeded, else failed); without one, held when its "
            "last state is JOB_HELD, incomplete when that state ended it, else running "
            "(mapping.attempt_status)",
    doc="One attempt (submission) of a job, with its time-ordered states.")
INVOCATION = NodeKind(
    "Invocation", Role.ACTIVITY, SOURCE,
    uid_parts=("xwf_id", "job_id", "submit_seq", "inv_id"),
    props={
        "inv_id": "integer", "phase": "string", "remote_cpu_time": "float",
        "transformation": "string", "executable": "string", "argv": "string",
        "task_id": "string", "maxrss": "integer", "avg_cpu": "float", **_TIMES, **_EXIT,
    },
    indexed=("transformation",), display="invocation", colour="#7f7f7f",
    caption=("transformation", "name"), group_by=("transformation",),
    doc="One process an attempt ran (kickstart record): the task, or DAGMan's pre/post script.")
FILE = NodeKind(
    "File", Role.ENTITY, SOURCE, uid_parts=("xwf_id", "lfn"),
    props={"lfn": "string", "pfn": "string", "site": "string", "pfns": "string[]",
           "pfn_sites": "string[]", "checksum": "string", "size": "integer"},
    prop_families={"meta_": "string"}, indexed=("lfn",), display="file", colour="#bcbd22",
    caption=("lfn", "name"),
    doc="A logical file (LFN) a workflow's tasks read or write.")

KINDS = (WORKFLOW, TASK, JOB, JOB_INSTANCE, INVOCATION, FILE)

RUNS_TASK = RelType("RUNS_TASK", doc="(job or invocation)-[:RUNS_TASK]->(task): wf.map.task_job")
REL_TYPES = (RUNS_TASK,)

RELATIONS = (
    Relation(PART_OF, WORKFLOW, WORKFLOW, "a sub-workflow is part of its parent"),
    Relation(PART_OF, TASK, WORKFLOW), Relation(PART_OF, JOB, WORKFLOW),
    Relation(PART_OF, FILE, WORKFLOW),
    Relation(PART_OF, INVOCATION, JOB_INSTANCE, "a process belongs to its attempt"),
    Relation(INSTANCE_OF, JOB_INSTANCE, JOB, "an attempt of the job"),
    Relation(WAS_INFORMED_BY, TASK, TASK, "child task depends on parent task"),
    Relation(WAS_INFORMED_BY, JOB, JOB, "child job depends on parent job"),
    Relation(RUNS_TASK, JOB, TASK), Relation(RUNS_TASK, INVOCATION, TASK),
    Relation(WAS_STARTED_BY, WORKFLOW, JOB, "a sub-workflow was planned and run by a job"),
    Relation(WAS_STARTED_BY, WORKFLOW, JOB_INSTANCE, "... by that job's attempt"),
    Relation(USED, TASK, FILE, "the task reads the file (direction unknown for wf.map.file)"),
    Relation(WAS_GENERATED_BY, FILE, TASK, "the task writes the file"),
    Relation(WAS_ASSOCIATED_WITH, WORKFLOW, USER, "the submitting user"),
    Relation(WAS_ASSOCIATED_WITH, JOB_INSTANCE, HOST, "the attempt ran on the host"),
)
