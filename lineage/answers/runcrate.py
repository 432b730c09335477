"""One run as a Workflow Run RO-Crate (the Provenance Run Crate profile, 0.5), built with the
``rocrate`` library: ``lineage export RUN --format ro-crate -o DIR`` (or ``-o FILE.zip``).

What the crate holds (docs/guide/exchange.md lists every entity):

- the workflow (the root's ``mainEntity``: a ComputationalWorkflow of the run's language),
  its steps (``HowToStep``) and their tools (``SoftwareApplication``);
- the run (a ``CreateAction`` whose instrument is the workflow) and each execution of a step
  (a ``CreateAction`` per attempt: instrument, start and end, ``actionStatus``
  ``CompletedActionStatus`` or ``FailedActionStatus``, ``error``, the files it read as
  ``object`` and wrote as ``result``), tied to its step by a ``ControlAction`` and to the
  engine by an ``OrganizeAction``;
- the files (``File``: where the run recorded them, else a local identifier);
- with ``links``, what no crate producer records, from what ``lineage link`` joined to the
  steps: the binary each execution ran (``lineage:executable``) with its sha1, its build
  (compiler, link line, build modules), the libraries it loaded with their sha1s
  (``softwareRequirements``), the modules and the environment (``environment``, as filtered
  and redacted at load), and the Chimbuko anomalies of the program (``lineage:anomaly``).

What a run is made of comes from its source's views (``Views.crate_runs``), what linked nodes
add from theirs (``Views.crate_parts``); this module imports no source. Every entity that is a
node of the graph carries its uid (``lineage:uid``): ``lineage load`` reads the crate back as
those nodes. The crate is written only its owner can read (0600), as other exports.

>>> iso(1715677384.62)
'2024-05-14T09:03:04.620+00:00'
>>> action_status("failed")
'http://schema.org/FailedActionStatus'
"""

from __future__ import annotations

import datetime as dt
import json
import os
import zipfile
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from rocrate.model.contextentity import ContextEntity
from rocrate.rocrate import ROCrate

from .. import model
from ..errors import LineageError
from ..model.links import REL_TYPES
from ..private_file import create_private
from ..sources import registry
from ..sources.crate import (METADATA, NAMESPACE, PREFIX, CrateAction, CrateAnomaly, CrateRun,
                             CrateSoftware, term)

#: the profiles the crate conforms to (the Provenance Run Crate and those it extends)
PROFILES = (
    ("https://w3id.org/ro/wfrun/process/0.5", "Process Run Crate", "0.5"),
    ("https://w3id.org/ro/wfrun/workflow/0.5", "Workflow Run Crate", "0.5"),
    ("https://w3id.org/ro/wfrun/provenance/0.5", "Provenance Run Crate", "0.5"),
    ("https://w3id.org/workflowhub/workflow-ro-crate/1.0", "Workflow RO-Crate", "1.0"),
)
#: the Workflow Run RO-Crate terms the crate uses, defined in its context (no remote context
#: beyond RO-Crate's own, so a validator with no network resolves it)
WFRUN_TERMS = {"environment": "https://w3id.org/ro/terms/workflow-run#environment"}
STATUS = {"COMPLETE": "http://schema.org/CompletedActionStatus",
          "FAIL": "http://schema.org/FailedActionStatus"}


def iso(seconds: float | None) -> str | None:
    """Seconds since the epoch as ISO 8601 in UTC, to the millisecond (the profiles' form;
    the exact seconds go beside it, ``lineage:startSeconds``)."""
    if seconds is None:
        return None
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).isoformat(timespec="milliseconds")


def action_status(status: str | None) -> str | None:
    """The schema.org ``actionStatus`` of a graph status (None: not known, or not ended)."""
    return STATUS.get(CrateAction("", "", status=status).outcome)


@dataclass
class Described:
    """A run as its source describes it, with what the linked nodes add and which step
    execution each part belongs to (``owner``: uid of the part's node -> action uid)."""

    run: CrateRun
    uids: set[str]
    software: list[CrateSoftware] = field(default_factory=list)
    anomalies: list[CrateAnomaly] = field(default_factory=list)
    owner: dict[str, str] = field(default_factory=dict)


def describe(lin, uid: str, links: bool = False, depth: int = 3) -> Described:
    """Ask the run's source for the run, and the sources of the nodes linked to it for what
    they add; tie each added record to the step execution its node was linked to."""
    found = lin.query("node", uid=uid)
    if not found:
        raise LineageError(f"no node with uid {uid!r} in the graph")
    views = registry.views()
    kind = next((label for label in found[0]["labels"] if label in views.crate_runs), None)
    if kind is None or model.RUN_LABEL not in found[0]["labels"]:
        kinds = ", ".join(sorted(views.crate_runs))
        raise LineageError(f"{uid} is not a run a crate describes (a run of kind {kinds})")
    run = views.crate_runs[kind](lin, uid)
    uids = lin.subgraph_uids(uid, depth, links=links)
    out = Described(run, set(uids))
    by_kind: dict[str, list[str]] = {}
    for row in lin.query("nodes", uids=uids):
        if row["kind"] in views.crate_parts:
            by_kind.setdefault(row["kind"], []).append(row["uid"])
    for part_kind, part_uids in by_kind.items():
        for record in views.crate_parts[part_kind](lin, part_uids):
            (out.software if isinstance(record, CrateSoftware) else out.anomalies).append(record)
    out.owner = owners(run, lin.query("subgraph_edges", uids=uids))
    return out


def owners(run: CrateRun, edges: list[dict]) -> dict[str, str]:
    """Which step execution each node belongs to: the execution's own uid and members, and
    whatever ``lineage link`` joined to them, breadth-first (the nearest execution wins).

    >>> from lineage.sources.crate import CrateStep
    >>> run = CrateRun("w", "L", CrateAction("w", "w"),
    ...                [CrateStep("s", "s", "t", [CrateAction("a", "a", members=("i",))])], [])
    >>> owners(run, [{"source": "x", "type": "SAME_ACTIVITY", "target": "i"},
    ...              {"source": "c", "type": "RAN_WITHIN", "target": "x"}])
    {'a': 'a', 'i': 'a', 'x': 'a', 'c': 'a'}
    """
    link_types = {rel.name for rel in REL_TYPES}
    near: dict[str, list[str]] = {}
    for edge in edges:
        if edge["type"] in link_types:
            near.setdefault(edge["source"], []).append(edge["target"])
            near.setdefault(edge["target"], []).append(edge["source"])
    owner: dict[str, str] = {}
    for step in run.steps:
        for action in step.actions:
            for uid in (action.uid, *action.members):
                owner.setdefault(uid, action.uid)
    queue = deque(owner)
    while queue:
        uid = queue.popleft()
        for other in near.get(uid, ()):
            if other not in owner:
                owner[other] = owner[uid]
                queue.append(other)
    return owner


class _Builder:
    """Entities of one crate, named ``#<what>-<n>`` (files and the workflow by where they
    were, when known)."""

    def __init__(self, described: Described, license: str | None):
        self.d = described
        self.crate = ROCrate(version="1.1")
        self.crate.metadata.extra_terms.update({**WFRUN_TERMS, PREFIX: NAMESPACE})
        self.files: dict[str, bytes] = {}  # the crate's files but its metadata, by name
        self.counts: dict[str, int] = {}
        self.actions: list[ContextEntity] = []
        self.ids: dict[tuple, ContextEntity] = {}
        self.license = license

    def add(self, what: str, props: dict, key: tuple | None = None,
            identifier: str | None = None) -> ContextEntity:
        """A new entity (or the one already made for ``key``)."""
        if key is not None and key in self.ids:
            return self.ids[key]
        if identifier is None:
            self.counts[what] = self.counts.get(what, 0) + 1
            identifier = f"#{what}-{self.counts[what]}"
        # single values rather than singleton lists (RO-Crate 1.1's JSON-LD form)
        props = {k: v[0] if isinstance(v, (list, tuple)) and len(v) == 1 and k != "@type"
                 else v for k, v in props.items() if v not in (None, [], (), "")}
        entity = self.crate.add(ContextEntity(self.crate, identifier, properties=props))
        if key is not None:
            self.ids[key] = entity
        return entity

    def uid(self, uid: str) -> dict:
        """The ``lineage:uid`` of an entity that is a node of the graph (none otherwise)."""
        return {term("uid"): uid} if uid in self.d.uids else {}

    def build(self) -> ROCrate:
        run = self.d.run
        root = self.crate.root_dataset
        root["name"] = f"{run.workflow}: {run.action.name}"
        root["description"] = (f"Provenance of {run.language} run {run.action.uid} as "
                               "lineage-explorer holds it: its steps, their executions and files, "
                               "and what lineage link joined to them in other systems.")
        root["datePublished"] = iso(dt.datetime.now(dt.timezone.utc).timestamp())
        root["license"] = self._license()
        self.crate.metadata["conformsTo"] = [
            {"@id": "https://w3id.org/ro/crate/1.1"}, {"@id": PROFILES[-1][0]}]
        self.agent = self.add("person", {"@type": "Person", "name": run.user}) if run.user \
            else None
        root["conformsTo"] = [self.add("profile", {"@type": "CreativeWork", "name": name,
                                                    "version": version}, identifier=url)
                              for url, name, version in PROFILES]
        files = {f.uid: self._file(f) for f in run.files}
        workflow = self._workflow()
        tools = {}
        steps, controls = [], []
        for position, step in enumerate(run.steps, start=1):
            tool = tools.get(step.tool) or self.add("tool", {
                "@type": "SoftwareApplication", "name": step.tool,
                term("path"): step.tool_path})
            tools[step.tool] = tool
            how = self.add("step", {"@type": "HowToStep", "name": step.name,
                                    "position": str(position), "workExample": tool,
                                    **self.uid(step.uid), term("status"): step.status,
                                    term("filesOf"): step.data_uid if step.data_uid in self.d.uids
                                    else None})
            steps.append(how)
            for action in step.actions:
                made = self._action(action, tool, files)
                controls.append(self.add("control", {
                    "@type": "ControlAction", "name": f"orchestrate {action.name}",
                    "instrument": how, "object": made}))
        workflow["hasPart"] = list(tools.values())
        workflow["step"] = steps
        run_action = self._action(run.action, workflow, files)
        engine = self.add("engine", {"@type": "SoftwareApplication",
                                     "name": run.engine or run.language,
                                     "softwareVersion": run.engine_version})
        self.add("engine-run", {"@type": "OrganizeAction",
                                "name": f"{run.engine or run.language} ran {run.workflow}",
                                "instrument": engine, "result": run_action,
                                "object": controls, "startTime": iso(run.action.start),
                                "endTime": iso(run.action.end)})
        root["mentions"] = self.actions
        root["hasPart"] = [workflow, *files.values()]
        self.crate.mainEntity = workflow
        return self.crate

    def _license(self) -> ContextEntity:
        if self.license:
            return self.add("license", {"@type": "CreativeWork", "name": self.license},
                            identifier=self.license)
        return self.add("license", {
            "@type": "CreativeWork", "name": "No license stated",
            "description": "lineage export does not know under which terms the run's owner "
                           "shares this provenance: state a license (--license) before "
                           "publishing the crate."})

    def _workflow(self) -> ContextEntity:
        """The workflow's own description when it can be read where the crate is written,
        else the steps as the graph holds them (``workflow-steps.json``)."""
        run = self.d.run
        language = self.add("language", {"@type": "ComputerLanguage", "name": run.language,
                                         "url": run.language_url})
        original = _readable(run.location)
        if original is not None:
            name = f"workflow/{original.name}"
            self.files[name] = original.read_bytes()
            description = f"The {run.language} workflow, copied from {run.location}."
        else:
            name = "workflow-steps.json"
            self.files[name] = json.dumps(steps_document(run), indent=2,
                                          ensure_ascii=False).encode()
            description = (f"The steps of the {run.language} workflow as lineage-explorer "
                           "recorded them: the workflow's own description"
                           + (f" ({run.location})" if run.location else "")
                           + " could not be read when the crate was written.")
        return self.add("workflow", {
            "@type": ["File", "SoftwareSourceCode", "ComputationalWorkflow", "HowTo"],
            "name": run.workflow, "programmingLanguage": language, "description": description,
            "encodingFormat": None if original else "application/json",
            "url": run.location}, identifier=name)

    def _file(self, f) -> ContextEntity:
        return self.add("file", {"@type": "File", "name": f.name, **self.uid(f.uid)},
                        identifier=f.location if f.location and "://" in f.location else None)

    def _action(self, action: CrateAction, instrument, files: dict) -> ContextEntity:
        props = {
            "@type": "CreateAction", "name": action.name, "instrument": instrument,
            "description": f"{action.name}: " + (
                f"{action.status}" if action.status else "status not recorded")
            + (f" on {action.host}" if action.host else ""), "agent": self.agent,
            "startTime": iso(action.start), "endTime": iso(action.end),
            term("startSeconds"): action.start, term("endSeconds"): action.end,
            "actionStatus": action_status(action.status), "error": action.error,
            "object": [files[f] for f in action.inputs if f in files],
            "result": [files[f] for f in action.outputs if f in files],
            term("status"): action.status, term("host"): action.host,
            term("commandLine"): action.command, term("exitCode"): action.exit_code,
            **self.uid(action.uid)}
        processes = []
        for soft in self.d.software:
            if soft.about == action.uid:  # the execution is the process (an XALT run alone)
                props.update(self._software(soft))
            elif self.d.owner.get(soft.about) == action.uid:
                processes.append(self._process(soft))
        props[term("process")] = processes
        props[term("anomaly")] = [self._anomaly(a) for a in self.d.anomalies
                                  if self.d.owner.get(a.about) == action.uid]
        made = self.add("action", props)
        self.actions.append(made)
        return made

    def _software(self, soft: CrateSoftware) -> dict:
        libraries = [self.add("library", {
            "@type": "SoftwareApplication", "name": os.path.basename(path),
            term("path"): path, term("sha1"): sha1}, key=("library", path, sha1))
            for path, sha1 in soft.libraries]
        binary = self.add("binary", {
            "@type": "SoftwareApplication", "name": os.path.basename(soft.path),
            term("path"): soft.path, term("sha1"): soft.sha1,
            term("compiler"): soft.compiler, term("compilerPath"): soft.compiler_path,
            term("linkLine"): soft.link_line, term("buildUser"): soft.build_user,
            term("buildHost"): soft.build_host, term("buildDate"): soft.build_date,
            term("buildModules"): list(soft.build_modules),
            "softwareRequirements": libraries}, key=("binary", soft.path, soft.sha1))
        environment = [self.add("env", {"@type": "PropertyValue", "name": name,
                                        "value": value}, key=("env", name, value))
                       for name, value in sorted(soft.environment.items())]
        return {term("executable"): binary, term("modules"): list(soft.modules),
                "environment": environment}

    def _process(self, soft: CrateSoftware) -> ContextEntity:
        """A process XALT saw within a step's execution: an action of its own whose
        instrument is the binary it ran."""
        facts = self._software(soft)
        name = f"{os.path.basename(soft.path)} on {soft.host}"
        made = self.add("process", {
            "@type": "CreateAction", "name": name, "agent": self.agent,
            "description": f"A process XALT recorded: {name}, "
                           f"{soft.status or 'status not recorded'}",
            "instrument": facts[term("executable")], "startTime": iso(soft.start),
            "endTime": iso(soft.end), term("startSeconds"): soft.start,
            term("endSeconds"): soft.end, "actionStatus": action_status(soft.status),
            term("status"): soft.status, term("host"): soft.host,
            term("commandLine"): soft.command, **facts, **self.uid(soft.about)})
        self.actions.append(made)
        return made

    def _anomaly(self, a: CrateAnomaly) -> ContextEntity:
        return self.add("anomaly", {
            "@type": term("Anomaly"), "name": a.function, term("function"): a.function,
            term("severity"): a.severity, term("score"): a.score, term("rank"): a.rank,
            term("thread"): a.thread, "startTime": iso(a.start), "endTime": iso(a.end),
            term("programRun"): a.about, **self.uid(a.uid)})


def _readable(location: str | None) -> Path | None:
    """The local file a ``file:`` URI or an absolute path names, when it can be read."""
    if not location:
        return None
    path = Path(location[len("file://"):] if location.startswith("file://") else location)
    return path if path.is_absolute() and path.is_file() and os.access(path, os.R_OK) else None


def steps_document(run: CrateRun) -> dict:
    """What the graph holds of a workflow's steps, for a crate whose workflow description
    could not be read: each step's name, tool and executions' command lines."""
    return {"workflow": run.workflow, "language": run.language, "recorded_at": run.location,
            "steps": [{"name": s.name, "tool": s.tool, "tool_path": s.tool_path,
                       "commands": sorted({a.command for a in s.actions if a.command})}
                      for s in run.steps]}


def files(described: Described, license: str | None = None) -> dict[str, bytes]:
    """The crate's files by name: ``ro-crate-metadata.json`` and the workflow's."""
    builder = _Builder(described, license)
    document = builder.build().metadata.generate()
    text = json.dumps(document, indent=2, ensure_ascii=False, sort_keys=True)
    return {METADATA: text.encode("utf-8"), **builder.files}


def write(lin, uid: str, output: str | os.PathLike, links: bool = False, depth: int = 3,
          license: str | None = None) -> str:
    """Write the crate of run ``uid`` to the directory ``output`` (its
    ``ro-crate-metadata.json``), or as a zip when ``output`` ends in ``.zip``; only its owner
    can read it. An export that fails leaves nothing. Returns the path."""
    content = files(describe(lin, uid, links=links, depth=depth), license)
    target = Path(output)
    if target.suffix.lower() == ".zip":
        partial = create_private(target.with_name(f".{target.name}.part"))
        try:
            with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as box:
                for name, data in content.items():
                    box.writestr(name, data)
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)
        return str(target)
    if target.exists() and not target.is_dir():
        raise LineageError(f"{target}: not a directory (a crate is written into a directory, "
                           "or as FILE.zip)")
    target.mkdir(parents=True, exist_ok=True, mode=0o700)
    # the metadata last: a crate whose export failed is no crate
    for name in sorted(content, key=lambda n: n == METADATA):
        path = target / name
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        partial = path.with_name(f".{path.name}.part")
        try:
            create_private(partial).write_bytes(content[name])
            os.replace(partial, path)
        finally:
            partial.unlink(missing_ok=True)
    return str(target)
