"""The XALT part of the graph model: executions, executables, libraries, object files,
packages and builds.

An execution ``USED`` its executable and the shared libraries it loaded and ``IMPORTED``
packages (XALT ``pkg`` records); the executable ``WAS_GENERATED_BY`` its build (link step),
which ``USED`` the object files and libraries it linked.

>>> EXECUTION.uid("acc1af54")
'xalt:run:acc1af54'
>>> LIBRARY.uid("0", "/usr/lib64/libm.so.6")
'xalt:library:0:/usr/lib64/libm.so.6'
>>> PACKAGE.uid("python", "numpy", None, None)
'xalt:package:python:numpy'
>>> EXECUTABLE.uid("3eae", None, None), EXECUTABLE.uid(None, "s2", "/x/hello")
('xalt:executable:3eae', 'xalt:executable::s2:/x/hello')
"""

from __future__ import annotations

from ...model.common import HOST, USER
from ...model import status
from ...model.core import NodeKind, Relation, RelType, Role
from ...model.prov import USED, WAS_ASSOCIATED_WITH, WAS_GENERATED_BY

SOURCE = "xalt"

#: What two records of one run uuid must agree on (where both state it) to be one run: its
#: owner, host, scheduler job, program and start; a record differing in any is another run
#: reusing the uuid (a duplicate or a forgery), never merged onto the first.
RUN_IDENTITY = ("user", "syshost", "hostname", "job_id", "exec_path", "sha1", "start_time")

EXECUTION = NodeKind(
    "Execution", Role.ACTIVITY, SOURCE, uid_parts=("uuid",), prefix="xalt:run", run=True,
    props={"uuid": "string", "start_time": "float", "end_time": "float", "run_time": "float",
           "exit_status": "integer", "status": "status", "has_start_record": "boolean",
           "has_end_record": "boolean", "cores": "integer", "nodes": "integer",
           "tasks": "integer", "threads": "integer", "gpus": "integer", "job_id": "string",
           "queue": "string", "account": "string", "scheduler": "string", "cwd": "string",
           "syshost": "string", "hostname": "string", "submit_host": "string", "user": "string",
           "exec_path": "string", "exec_type": "string", "sha1": "string",
           "build_uuid": "string", "cmdline": "string[]", "env": "json", "end_env": "json", "env_mode": "string",
           "end_modules": "string[]",
           "modules": "string[]", "parent_processes": "string[]", "process_tree": "json",
           "xalt_version": "string", "crc_status": "string", "probability": "float"},
    indexed=("job_id",), display="execution", colour="#9467bd", group_by=("exec_path",),
    identity=RUN_IDENTITY,
    outcome="its end record's exit status: 0 (or none recorded, as XALT's own loader reads "
            "it) succeeded, else failed; no status while only its start record is loaded "
            "(`why` reports the missing end) (model.execution_status)",
    doc="One run of a program recorded by XALT (start and end records of one run uuid).")
EXECUTABLE = NodeKind(
    "Executable", Role.ENTITY, SOURCE, uid_parts=("sha1?", "syshost?", "path?"),
    props={"path": "string", "sha1": "string", "syshost": "string", "type": "string"},
    indexed=("path", "sha1"), display="executable", colour="#ff7f0e",
    caption=("path", "name"),
    doc="A program file, by its SHA-1 (or host and path when XALT recorded no SHA-1).")
LIBRARY = NodeKind(
    "Library", Role.ENTITY, SOURCE, uid_parts=("sha1", "path"),
    props={"path": "string", "sha1": "string", "stem": "string", "type": "string"},
    indexed=("path", "sha1", "name"), display="library", colour="#bcbd22",
    group_by=("stem",), doc="A shared library, by SHA-1 (``0`` when unknown) and path.")
OBJECT_FILE = NodeKind(
    "ObjectFile", Role.ENTITY, SOURCE, uid_parts=("sha1", "path"), prefix="xalt:object",
    props={"path": "string", "sha1": "string", "stem": "string"},
    indexed=("path",), display="object file", colour="#dbdb8d", group_by=("stem",),
    doc="An object file a build linked.")
PACKAGE = NodeKind(
    "Package", Role.ENTITY, SOURCE, uid_parts=("program", "name", "version?", "path?"),
    props={"program": "string", "version": "string", "path": "string"},
    indexed=("name",), display="package", colour="#98df8a", caption=("name",),
    doc="A package a program imported (XALT ``pkg`` record: Python, R, MATLAB...).")
BUILD = NodeKind(
    "Build", Role.ACTIVITY, SOURCE, uid_parts=("uuid",),
    props={"uuid": "string", "compiler": "string", "compiler_path": "string",
           "build_user": "string", "build_host": "string", "build_epoch": "float",
           "build_date": "string", "build_os": "string", "build_modules": "string[]",
           "wd": "string", "exec_path": "string", "link_line": "string[]",
           "functions": "string[]", "has_link_record": "boolean", "crc_status": "string",
           "xalt_version": "string"},
    display="build", colour="#c5b0d5", caption=("compiler", "name"),
    doc="The link step that made an executable (XALT link record).")

KINDS = (EXECUTION, EXECUTABLE, LIBRARY, OBJECT_FILE, PACKAGE, BUILD)

IMPORTED = RelType("IMPORTED", doc="(:Execution)-[:IMPORTED]->(:Package): XALT pkg record",
                   props={"crc_status": "string"})
REL_TYPES = (IMPORTED,)

RELATIONS = (
    Relation(USED, EXECUTION, EXECUTABLE, "the program the run executed"),
    Relation(USED, EXECUTION, LIBRARY, "a shared library the run loaded"),
    Relation(USED, BUILD, LIBRARY, "a library the link step linked"),
    Relation(USED, BUILD, OBJECT_FILE, "an object file the link step linked"),
    Relation(WAS_GENERATED_BY, EXECUTABLE, BUILD, "the executable the link step wrote"),
    Relation(IMPORTED, EXECUTION, PACKAGE),
    Relation(WAS_ASSOCIATED_WITH, EXECUTION, HOST), Relation(WAS_ASSOCIATED_WITH, EXECUTION, USER),
    Relation(WAS_ASSOCIATED_WITH, BUILD, HOST), Relation(WAS_ASSOCIATED_WITH, BUILD, USER),
)


def execution_status(exit_status: int | None) -> str:
    """The status of an XALT run from its end record's exit status (the rule of
    :data:`EXECUTION`; a start record states none).

    >>> execution_status(0), execution_status(1), execution_status(None)
    ('succeeded', 'failed', 'succeeded')
    """
    return status.SUCCEEDED if exit_status in (None, 0) else status.FAILED
