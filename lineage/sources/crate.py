"""What a source tells of a run for a Workflow Run RO-Crate (``lineage export RUN --format
ro-crate``): plain records that its views return and :mod:`lineage.answers.runcrate` turns
into the crate. A source declares them in its :class:`~.source.Views`:

- ``crate_runs``: run kind -> ``describe(lin, uid)`` -> :class:`CrateRun`: the workflow, the
  run, its steps (each with one :class:`CrateAction` per attempt) and their files;
- ``crate_parts``: kind -> ``describe(lin, uids)`` -> :class:`CrateSoftware` and
  :class:`CrateAnomaly` records of the nodes of that kind ``lineage link`` joined to a run
  (an XALT execution's binary, build, libraries, modules and environment; a Chimbuko
  program run's anomalies). Each names the node it is about (``about``); the crate puts it on
  the action that node was linked to.

>>> CrateAction("pegasus:job_instance:w:j:1", "j", status="failed").outcome
'FAIL'
>>> CrateAction("x:1", "x").outcome is None
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..model.status import run_state

#: the crate's metadata file
METADATA = "ro-crate-metadata.json"
#: this project's terms in a crate, for what no profile has a term for (sha1, build,
#: anomalies, the graph's uids): ``lineage:<name>``, documented in docs/guide/exchange.md
NAMESPACE = "https://github.com/lineage-explorer/lineage-explorer/blob/main/docs/guide/exchange.md#"
PREFIX = "lineage"


def term(name: str) -> str:
    """This project's term ``name`` as a crate spells it.

    >>> term("sha1")
    'lineage:sha1'
    """
    return f"{PREFIX}:{name}"


@dataclass
class CrateFile:
    """A file a step read or wrote: its uid, name and where it was (a URI or a path; None
    when the run did not record it)."""

    uid: str
    name: str
    location: str | None = None


@dataclass
class CrateAction:
    """One execution: the run, or one attempt of a step. ``status`` is the graph's (see
    :mod:`lineage.model.status`); ``inputs`` and ``outputs`` are file uids; ``members`` the
    uids of the other nodes that are this execution (a Pegasus attempt's invocations), so
    what ``lineage link`` joined to them is put on it."""

    uid: str
    name: str
    start: float | None = None
    end: float | None = None
    status: str | None = None
    error: str | None = None
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    host: str | None = None
    command: str | None = None
    exit_code: int | None = None
    members: tuple[str, ...] = ()

    @property
    def outcome(self) -> str | None:
        """COMPLETE, FAIL, or None (still running, or not known)."""
        return run_state(self.status)


@dataclass
class CrateStep:
    """A step of the workflow (a Pegasus job, a Swift app call): the tool it runs, its
    executions in order, its status (the graph's), and the node whose relations to files say what the step read and
    wrote (``data_uid``: a Pegasus job's task; a Swift call itself)."""

    uid: str
    name: str
    tool: str
    actions: list[CrateAction] = field(default_factory=list)
    tool_path: str | None = None
    data_uid: str | None = None
    status: str | None = None


@dataclass
class CrateRun:
    """A run as a crate shows it: the workflow (its name, where its description was, its
    language and the engine that ran it), the run's own action, its steps and files, and
    the user who ran it."""

    workflow: str
    language: str
    action: CrateAction
    steps: list[CrateStep]
    files: list[CrateFile]
    location: str | None = None
    language_url: str | None = None
    engine: str | None = None
    engine_version: str | None = None
    user: str | None = None


@dataclass
class CrateSoftware:
    """One process as XALT saw it (``about``: the execution's uid): the binary it ran (path
    and sha1), how that was built, the libraries it loaded (path, sha1), its modules and its
    environment as filtered at load, when and where it ran."""

    about: str
    path: str
    sha1: str | None = None
    compiler: str | None = None
    compiler_path: str | None = None
    link_line: str | None = None
    build_user: str | None = None
    build_host: str | None = None
    build_date: str | None = None
    build_modules: tuple[str, ...] = ()
    libraries: tuple[tuple[str, str | None], ...] = ()
    modules: tuple[str, ...] = ()
    environment: dict = field(default_factory=dict)
    start: float | None = None
    end: float | None = None
    host: str | None = None
    command: str | None = None
    status: str | None = None


@dataclass
class CrateAnomaly:
    """An anomalous function execution Chimbuko flagged (``about``: its program run's uid)."""

    about: str
    uid: str
    function: str
    severity: float | None = None
    score: float | None = None
    rank: int | None = None
    thread: int | None = None
    start: float | None = None
    end: float | None = None


class StepFiles:
    """The files of a run's steps, each once, gathered step by step from template rows
    (``make(row)`` -> :class:`CrateFile`); what the run read is what no step made.

    >>> book = StepFiles(lambda row: CrateFile(row["uid"], row["uid"]))
    >>> book.add([{"uid": "a"}], [{"uid": "b"}]), book.add([{"uid": "b"}], [{"uid": "c"}])
    ((('a',), ('b',)), (('b',), ('c',)))
    >>> book.read_by_run(), [f.uid for f in book.files()]
    (('a',), ['a', 'b', 'c'])
    """

    def __init__(self, make: Callable[[dict], CrateFile]):
        self.make = make
        self.by_uid: dict[str, CrateFile] = {}
        self.made: set[str] = set()

    def add(self, inputs: list[dict], outputs: list[dict]) -> tuple[tuple, tuple]:
        """One step's input and output rows: their uids, (inputs, outputs)."""
        for row in inputs + outputs:
            self.by_uid.setdefault(row["uid"], self.make(row))
        made = tuple(r["uid"] for r in outputs)
        self.made.update(made)
        return tuple(r["uid"] for r in inputs), made

    def read_by_run(self) -> tuple[str, ...]:
        """The files no step made: what the run read."""
        return tuple(uid for uid in self.by_uid if uid not in self.made)

    def files(self) -> list[CrateFile]:
        return list(self.by_uid.values())


def made_by(steps: list[CrateStep]) -> tuple[str, ...]:
    """The files the steps' executions made, each once, in order."""
    return tuple(dict.fromkeys(f for s in steps for a in s.actions for f in a.outputs))
