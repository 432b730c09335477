"""The graph model: every label, relationship type, key and constraint, declared once.

Loaders build records with the kinds and relationship types named here; the writer turns a
kind into its labels; nothing else in the package spells a label as a string literal.

Every node carries ``:Lineage`` and a globally unique ``uid``, one W3C PROV role label
(``:Entity``, ``:Activity`` or ``:Agent``) and a kind label; a top-level execution also
carries ``:Run``.

>>> JOB.labels
('Lineage', 'Activity', 'Job')
>>> WORKFLOW.labels
('Lineage', 'Activity', 'Workflow', 'Run')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

BASE_LABEL = "Lineage"
RUN_LABEL = "Run"
LOAD_LABEL = "Load"  # bookkeeping of loads; deliberately not :Lineage (not provenance data)


class Role(str, Enum):
    """The W3C PROV role of a node."""

    ENTITY = "Entity"
    ACTIVITY = "Activity"
    AGENT = "Agent"


@dataclass(frozen=True)
class NodeKind:
    """One kind of node: its kind label, PROV role, source and indexed properties.

    >>> NodeKind("Job", Role.ACTIVITY, "pegasus").labels
    ('Lineage', 'Activity', 'Job')
    """

    label: str
    role: Role
    source: str
    run: bool = False
    extra_labels: tuple[str, ...] = ()  # labels a record of this kind may add, e.g. Anomaly
    indexed: tuple[str, ...] = ()  # properties with a range index on the kind label

    @property
    def labels(self) -> tuple[str, ...]:
        base = (BASE_LABEL, self.role.value, self.label)
        return base + ((RUN_LABEL,) if self.run else ())


@dataclass(frozen=True)
class RelType:
    """One relationship type; ``prov`` marks the generic lineage relations."""

    name: str
    prov: bool = False
    doc: str = ""


# ---------------------------------------------------------------- PROV relations
USED = RelType("USED", True, "(activity)-[:USED]->(entity): the activity read the entity")
WAS_GENERATED_BY = RelType(
    "WAS_GENERATED_BY", True, "(entity)-[:WAS_GENERATED_BY]->(activity): made by it"
)
WAS_INFORMED_BY = RelType(
    "WAS_INFORMED_BY", True, "(activity)-[:WAS_INFORMED_BY]->(activity): child depends on parent"
)
WAS_DERIVED_FROM = RelType(
    "WAS_DERIVED_FROM", True, "(entity)-[:WAS_DERIVED_FROM]->(entity)"
)
HAD_MEMBER = RelType("HAD_MEMBER", True, "(collection)-[:HAD_MEMBER]->(member)")
WAS_ASSOCIATED_WITH = RelType(
    "WAS_ASSOCIATED_WITH", False, "(activity)-[:WAS_ASSOCIATED_WITH]->(agent): ran on / by"
)
WAS_STARTED_BY = RelType(
    "WAS_STARTED_BY", False, "(activity)-[:WAS_STARTED_BY]->(activity): e.g. sub-workflow by job"
)

#: The relations an ancestry query follows outward (upstream) and inward (downstream).
LINEAGE_RELS = (USED, WAS_GENERATED_BY, WAS_INFORMED_BY, WAS_DERIVED_FROM, HAD_MEMBER)

# ---------------------------------------------------------------- structure
PART_OF = RelType("PART_OF", doc="(part)-[:PART_OF]->(run or parent activity)")
INSTANCE_OF = RelType("INSTANCE_OF", doc="(attempt)-[:INSTANCE_OF]->(job or call)")
RUNS_TASK = RelType("RUNS_TASK", doc="(:Job)-[:RUNS_TASK]->(:Task) (Pegasus wf.map.task_job)")
CALLED_BY = RelType("CALLED_BY", doc="(callee)-[:CALLED_BY]->(caller) (Chimbuko call stack)")
FOLLOWED_BY = RelType("FOLLOWED_BY", doc="(execution)-[:FOLLOWED_BY]->(next in window)")
SENT_MESSAGE = RelType("SENT_MESSAGE", doc="(sender)-[:SENT_MESSAGE]->(receiver), MPI")
EXECUTES = RelType("EXECUTES", doc="(:FunctionExecution)-[:EXECUTES]->(:Function)")
IMPORTED = RelType("IMPORTED", doc="(:Execution)-[:IMPORTED]->(:Package) (XALT pkg)")
LAUNCHED_ON = RelType("LAUNCHED_ON", doc="(GPU execution)-[:LAUNCHED_ON]->(CPU parent)")
HAS_SCRIPT = RelType("HAS_SCRIPT", doc="(:ScriptRun)-[:HAS_SCRIPT]->(:Script)")

REL_TYPES: dict[str, RelType] = {
    r.name: r
    for r in (
        USED, WAS_GENERATED_BY, WAS_INFORMED_BY, WAS_DERIVED_FROM, HAD_MEMBER,
        WAS_ASSOCIATED_WITH, WAS_STARTED_BY, PART_OF, INSTANCE_OF, RUNS_TASK, CALLED_BY,
        FOLLOWED_BY, SENT_MESSAGE, EXECUTES, IMPORTED, LAUNCHED_ON, HAS_SCRIPT,
    )
}

# ---------------------------------------------------------------- kinds shared by sources
HOST = NodeKind("Host", Role.AGENT, "common", indexed=("name",))
USER = NodeKind("User", Role.AGENT, "common", indexed=("name",))

# ---------------------------------------------------------------- Pegasus (Stampede)
WORKFLOW = NodeKind("Workflow", Role.ACTIVITY, "pegasus", run=True, indexed=("label",))
TASK = NodeKind("Task", Role.ACTIVITY, "pegasus", indexed=("task_id",))
JOB = NodeKind("Job", Role.ACTIVITY, "pegasus", indexed=("job_id", "status"))
JOB_INSTANCE = NodeKind("JobInstance", Role.ACTIVITY, "pegasus")
INVOCATION = NodeKind("Invocation", Role.ACTIVITY, "pegasus", indexed=("transformation",))
FILE = NodeKind("File", Role.ENTITY, "pegasus", indexed=("lfn",))

# ---------------------------------------------------------------- Swift
SCRIPT_RUN = NodeKind("ScriptRun", Role.ACTIVITY, "swift", run=True)
FUNCTION_CALL = NodeKind("FunctionCall", Role.ACTIVITY, "swift", indexed=("name",))
APP_EXECUTION = NodeKind("AppExecution", Role.ACTIVITY, "swift")
DATASET = NodeKind("Dataset", Role.ENTITY, "swift", indexed=("filename",))
SCRIPT = NodeKind("Script", Role.ENTITY, "swift")

# ---------------------------------------------------------------- Chimbuko
PROGRAM_RUN = NodeKind("ProgramRun", Role.ACTIVITY, "chimbuko", run=True)
RANK = NodeKind("Rank", Role.ACTIVITY, "chimbuko")
FUNCTION = NodeKind("Function", Role.ENTITY, "chimbuko", indexed=("name",))
FUNCTION_EXECUTION = NodeKind(
    "FunctionExecution", Role.ACTIVITY, "chimbuko", extra_labels=("Anomaly",)
)

# ---------------------------------------------------------------- XALT
EXECUTION = NodeKind("Execution", Role.ACTIVITY, "xalt", run=True, indexed=("job_id",))
EXECUTABLE = NodeKind("Executable", Role.ENTITY, "xalt", indexed=("path", "sha1"))
LIBRARY = NodeKind("Library", Role.ENTITY, "xalt", indexed=("path", "sha1", "name"))
OBJECT_FILE = NodeKind("ObjectFile", Role.ENTITY, "xalt", indexed=("path",))
PACKAGE = NodeKind("Package", Role.ENTITY, "xalt", indexed=("name",))
BUILD = NodeKind("Build", Role.ACTIVITY, "xalt")

NODE_KINDS: dict[str, NodeKind] = {
    k.label: k
    for k in (
        HOST, USER,
        WORKFLOW, TASK, JOB, JOB_INSTANCE, INVOCATION, FILE,
        SCRIPT_RUN, FUNCTION_CALL, APP_EXECUTION, DATASET, SCRIPT,
        PROGRAM_RUN, RANK, FUNCTION, FUNCTION_EXECUTION,
        EXECUTION, EXECUTABLE, LIBRARY, OBJECT_FILE, PACKAGE, BUILD,
    )
}

ALL_LABELS: frozenset[str] = frozenset(
    {BASE_LABEL, RUN_LABEL, LOAD_LABEL, *(r.value for r in Role)}
    | set(NODE_KINDS)
    | {x for k in NODE_KINDS.values() for x in k.extra_labels}
)


@dataclass(frozen=True)
class Schema:
    """Constraints and indexes as (name, label, property) triples, created idempotently."""

    unique: tuple[tuple[str, str, str], ...] = field(default=())
    ranges: tuple[tuple[str, str, str], ...] = field(default=())


def schema() -> Schema:
    """The constraints and indexes the graph needs.

    >>> ("lineage_uid", "Lineage", "uid") in schema().unique
    True
    """
    unique = (("lineage_uid", BASE_LABEL, "uid"), ("load_uid", LOAD_LABEL, "uid"))
    ranges = tuple(
        (f"{k.label.lower()}_{prop}", k.label, prop)
        for k in NODE_KINDS.values()
        for prop in k.indexed
    )
    return Schema(unique=unique, ranges=ranges)


def host_uid(name: str) -> str:
    """The uid of a host, shared by every source that names it.

    >>> host_uid("nid00042")
    'host:nid00042'
    """
    return f"host:{name}"


def user_uid(name: str) -> str:
    """The uid of a user account.

    >>> user_uid("alice")
    'user:alice'
    """
    return f"user:{name}"
