"""The RO-Crate part of the graph model: the run, the executions and the files of a Workflow
Run RO-Crate another tool wrote (a crate of this project's own names the graph's nodes
instead). Every uid holds the crate's SHA-256 (``crate``) and the entity's ``@id``.

>>> CRATE_ACTION.uid("0f3a", "#step-1")
'rocrate:action:0f3a:#step-1'
"""

from __future__ import annotations

from ...model.core import NodeKind, Relation, Role
from ...model.prov import PART_OF, USED, WAS_GENERATED_BY

SOURCE = "rocrate"
_ACTION = {"crate": "string", "identifier": "string", "start_time": "float",
           "end_time": "float", "status": "status", "error": "string", "tool": "string",
           "step": "string"}
_RULE = ("its actionStatus: CompletedActionStatus is succeeded, FailedActionStatus failed, "
         "ActiveActionStatus running, PotentialActionStatus planned")

CRATE_RUN = NodeKind(
    "CrateRun", Role.ACTIVITY, SOURCE, uid_parts=("crate", "identifier"), prefix="rocrate:run",
    run=True, props={**_ACTION, "workflow": "string", "language": "string"},
    outcome=_RULE, display="crate run", colour="#17becf", caption=("name",),
    doc="The run a Workflow Run RO-Crate of another tool describes (its CreateAction whose "
        "instrument is the crate's workflow).")
CRATE_ACTION = NodeKind(
    "CrateAction", Role.ACTIVITY, SOURCE, uid_parts=("crate", "identifier"),
    prefix="rocrate:action", props=_ACTION, outcome=_RULE, display="crate action",
    colour="#9edae5", caption=("name",), group_by=("step",),
    doc="One execution of a step in a Workflow Run RO-Crate of another tool.")
CRATE_FILE = NodeKind(
    "CrateFile", Role.ENTITY, SOURCE, uid_parts=("crate", "identifier"),
    prefix="rocrate:file", props={"crate": "string", "identifier": "string"},
    display="crate file", colour="#dbdb8d", caption=("name", "identifier"),
    doc="A file (or dataset) a Workflow Run RO-Crate of another tool names.")

KINDS = (CRATE_RUN, CRATE_ACTION, CRATE_FILE)
REL_TYPES = ()
RELATIONS = (
    Relation(PART_OF, CRATE_ACTION, CRATE_RUN, "an execution of a step of the run"),
    Relation(PART_OF, CRATE_FILE, CRATE_RUN, "a file the crate names"),
    Relation(USED, CRATE_ACTION, CRATE_FILE, "its object"),
    Relation(USED, CRATE_RUN, CRATE_FILE, "its object"),
    Relation(WAS_GENERATED_BY, CRATE_FILE, CRATE_ACTION, "its result"),
    Relation(WAS_GENERATED_BY, CRATE_FILE, CRATE_RUN, "its result"),
)
