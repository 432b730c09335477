"""Read a Workflow Run RO-Crate: its ``ro-crate-metadata.json`` (the file itself, the folder
holding it, or a zip of the crate).

What is read: the run (the ``CreateAction`` whose instrument is the crate's main workflow),
the executions of its steps (``CreateAction`` objects of the ``ControlAction`` of each
``HowToStep``), with their start, end and status (``actionStatus``) and error, and the files
they read (``object``) and wrote (``result``).

- A crate this project wrote (its context defines the ``lineage`` terms) names the graph's
  nodes (``lineage:uid``): they are read back as those nodes, with the values the crate
  holds exactly (status, start and end seconds, names), and their relations wherever the
  model declares them (a step PART_OF its run, an execution INSTANCE_OF its step, files
  USED by and WAS_GENERATED_BY the node that holds a step's files, files PART_OF the run).
  The format is an ``agree`` format: a value another load stated otherwise is not written.
- Any other crate gets nodes of its own (:mod:`.model`), named by the SHA-256 of its metadata.

>>> seconds("2024-05-14T09:03:04.620+00:00")
1715677384.62
>>> status_of("http://schema.org/FailedActionStatus"), status_of("CompletedActionStatus")
('failed', 'succeeded')
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import zipfile
from pathlib import Path
from typing import Iterator

from ... import model
from ...model.prov import INSTANCE_OF, PART_OF, USED, WAS_GENERATED_BY
from ...model.records import Edge, Node, Record
from ..base import Format, LoadReport
from ..crate import METADATA, NAMESPACE, PREFIX, term
from .model import CRATE_ACTION, CRATE_FILE, CRATE_RUN

#: schema.org action statuses and the graph's statuses
STATUSES = {"CompletedActionStatus": "succeeded", "FailedActionStatus": "failed",
            "ActiveActionStatus": "running", "PotentialActionStatus": "planned"}
#: the largest metadata file read (a crate's metadata is read whole)
MAX_BYTES = 256 * 1024 * 1024


def seconds(text) -> float | None:
    """An ISO 8601 time as seconds since the epoch (None for none; a time with no zone is
    taken as UTC)."""
    if not isinstance(text, str) or not text:
        return None
    when = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    return when.timestamp()


def status_of(action_status) -> str | None:
    """The graph's status of a schema.org ``actionStatus`` (a URL, a name, or ``{"@id"}``)."""
    if isinstance(action_status, dict):
        action_status = action_status.get("@id")
    if not isinstance(action_status, str):
        return None
    return STATUSES.get(action_status.rsplit("/", 1)[-1].rsplit(":", 1)[-1])


def detect(path: Path, head: bytes) -> bool:
    """A crate's metadata file, or a zip holding one at its top."""
    if path.name == METADATA:
        return b"@graph" in head
    if head.startswith(b"PK\x03\x04") and zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as box:
            return METADATA in box.namelist()
    return False


def _read(path: Path) -> bytes:
    if path.name == METADATA:
        return path.read_bytes()
    with zipfile.ZipFile(path) as box:
        info = box.getinfo(METADATA)
        if info.file_size > MAX_BYTES:
            raise ValueError(f"its {METADATA} is {info.file_size} bytes (at most {MAX_BYTES})")
        return box.read(info)


def _ids(value) -> list[str]:
    """The ``@id`` of each reference of a property (one or a list)."""
    values = value if isinstance(value, list) else [value]
    return [v["@id"] for v in values if isinstance(v, dict) and isinstance(v.get("@id"), str)]


def _types(entity: dict) -> set[str]:
    kinds = entity.get("@type", [])
    return set(kinds if isinstance(kinds, list) else [kinds])


def _ours(document: dict) -> bool:
    context = document.get("@context")
    contexts = context if isinstance(context, list) else [context]
    return any(isinstance(c, dict) and c.get(PREFIX) == NAMESPACE for c in contexts)


class Crate:
    """One crate's entities by ``@id``, and the parts of its run."""

    def __init__(self, path: Path, document: dict, report: LoadReport):
        graph = document.get("@graph")
        if not isinstance(graph, list):
            report.skip(str(path), "@graph", "a JSON-LD @graph list of entities")
            graph = []
        self.entities: dict[str, dict] = {}
        for n, entity in enumerate(graph):
            if not isinstance(entity, dict) or not isinstance(entity.get("@id"), str):
                report.skip(str(path), f"@graph[{n}]", "an entity with an @id", str(entity))
                continue
            self.entities[entity["@id"]] = entity
        descriptor = self.entities.get(METADATA)
        if descriptor is None:
            report.skip(str(path), "@graph", f"the metadata descriptor ({METADATA})")
            descriptor = {}
        root = self.entities.get((_ids(descriptor.get("about")) or ["./"])[0], {})
        self.workflow = (_ids(root.get("mainEntity")) or [None])[0]
        actions = [e for e in self.entities.values() if "CreateAction" in _types(e)]
        self.run = next((a for a in actions if self.workflow in _ids(a.get("instrument"))), None)
        if self.run is None:
            report.skip(str(path), "@graph", "a CreateAction whose instrument is the crate's "
                                             "mainEntity (the run)")
        #: (step entity or None, action entity) of each execution of a step
        self.executions: list[tuple[dict | None, dict]] = []
        for control in self.entities.values():
            if "ControlAction" not in _types(control):
                continue
            step = self.entities.get((_ids(control.get("instrument")) or [""])[0])
            for action_id in _ids(control.get("object")):
                if action_id in self.entities:
                    self.executions.append((step, self.entities[action_id]))

    def files(self, action: dict, prop: str) -> list[dict]:
        return [self.entities[i] for i in _ids(action.get(prop)) if i in self.entities]


def _graph_node(uid, props: dict, report: LoadReport) -> Node | None:
    kind = model.kind_of_uid(uid) if isinstance(uid, str) else None
    if kind is None:
        report.unknown_item(f"{term('uid')} of no known kind")
        return None
    return Node(kind, uid, {k: v for k, v in props.items() if v is not None})


def _declared(rel, start: str, end: str) -> bool:
    a, b = model.kind_of_uid(start), model.kind_of_uid(end)
    return a is not None and b is not None and any(
        r.rel is rel and r.start is a and r.end is b for r in model.RELATIONS)


def _ours_records(crate: Crate, report: LoadReport) -> Iterator[Record]:
    """The graph's own nodes and relations, from a crate this project wrote."""
    uid = term("uid")
    run_uid = crate.run.get(uid) if crate.run else None
    seen: set[str] = set()

    def node(entity: dict, **props) -> str | None:
        found = entity.get(uid)
        if not isinstance(found, str) or found in seen:
            return found if found in seen else None
        made = _graph_node(found, props, report)
        if made is None:
            return None
        seen.add(found)
        records.append(made)
        return found

    def edge(rel, start, end) -> None:
        if start and end and _declared(rel, start, end):
            records.append(Edge(rel, start, end))
        elif start and end:
            report.unknown_item(f"{rel.name} between kinds the model does not join")

    def action_props(action: dict) -> dict:
        return {"status": action.get(term("status")),
                "start_time": action.get(term("startSeconds")),
                "end_time": action.get(term("endSeconds"))}

    records: list[Record] = []
    if crate.run is not None:
        node(crate.run, **action_props(crate.run))
    for step, action in crate.executions:
        step_uid = node(step, name=step.get("name"), status=step.get(term("status"))) \
            if step else None
        action_uid = node(action, **action_props(action))
        holder = step.get(term("filesOf")) if step else None
        holder = node({uid: holder}) if isinstance(holder, str) else None
        edge(PART_OF, step_uid, run_uid)
        if holder != step_uid:
            edge(PART_OF, holder, run_uid)
        edge(INSTANCE_OF, action_uid, step_uid)
        for prop, rel in (("object", USED), ("result", WAS_GENERATED_BY)):
            for f in crate.files(action, prop):
                file_uid = node(f, name=f.get("name"))
                if file_uid is None:
                    continue
                edge(PART_OF, file_uid, run_uid)
                user = next((u for u in (holder, step_uid, action_uid)
                             if u and (_declared(USED, u, file_uid) if rel is USED
                                       else _declared(rel, file_uid, u))), None)
                if user is not None:
                    records.append(Edge(USED, user, file_uid) if rel is USED
                                   else Edge(rel, file_uid, user))
    yield from records


def _foreign_records(crate: Crate, digest: str) -> Iterator[Record]:
    """Nodes of the crate's own, from another producer's crate."""
    if crate.run is None:
        return
    workflow = crate.entities.get(crate.workflow or "", {})

    def action_props(action: dict) -> dict:
        props = {"crate": digest, "identifier": action["@id"], "name": action.get("name"),
                 "start_time": seconds(action.get("startTime")),
                 "end_time": seconds(action.get("endTime")),
                 "status": status_of(action.get("actionStatus")),
                 "error": action.get("error") if isinstance(action.get("error"), str) else None}
        return {k: v for k, v in props.items() if v is not None}

    run_uid = CRATE_RUN.uid(digest, crate.run["@id"])
    language = crate.entities.get((_ids(workflow.get("programmingLanguage")) or [""])[0], {})
    yield Node(CRATE_RUN, run_uid, {**action_props(crate.run), "workflow": workflow.get("name"),
                                    "language": language.get("name")})
    files: set[str] = set()

    def file(entity: dict) -> str:
        uid = CRATE_FILE.uid(digest, entity["@id"])
        if uid not in files:
            files.add(uid)
            records.append(Node(CRATE_FILE, uid, {"crate": digest, "identifier": entity["@id"],
                                                  "name": entity.get("name") or entity["@id"]}))
            records.append(Edge(PART_OF, uid, run_uid))
        return uid

    records: list[Record] = []
    for step, action in crate.executions:
        uid = CRATE_ACTION.uid(digest, action["@id"])
        tool = crate.entities.get((_ids(action.get("instrument")) or [""])[0], {})
        records.append(Node(CRATE_ACTION, uid, {
            **action_props(action), "step": (step or {}).get("name"), "tool": tool.get("name")}))
        records.append(Edge(PART_OF, uid, run_uid))
        records.extend(Edge(USED, uid, file(f)) for f in crate.files(action, "object"))
        records.extend(Edge(WAS_GENERATED_BY, file(f), uid) for f in crate.files(action, "result"))
    records.extend(Edge(USED, run_uid, file(f)) for f in crate.files(crate.run, "object"))
    records.extend(Edge(WAS_GENERATED_BY, file(f), run_uid)
                   for f in crate.files(crate.run, "result"))
    yield from records


def parse(path: Path, report: LoadReport) -> Iterator[Record]:
    """The records of one crate (its metadata file, or a zip of the crate)."""
    path = Path(path)
    try:
        data = _read(path)
        document = json.loads(data)
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
        report.skip(str(path), None, f"a Workflow Run RO-Crate's {METADATA} (JSON-LD)",
                    str(exc))
        return
    if not isinstance(document, dict):
        report.skip(str(path), None, "a JSON-LD object with @context and @graph", str(document))
        return
    crate = Crate(path, document, report)
    ours = _ours(document)
    report.extra["crate"] = "lineage export" if ours else "another producer"
    report.extra["crate_executions"] = len(crate.executions)
    if ours:
        yield from _ours_records(crate, report)
    else:
        yield from _foreign_records(crate, hashlib.sha256(data).hexdigest()[:16])


FORMATS = [
    Format("ro-crate", "rocrate", detect, parse, agree=True, fallback=True,
           description="Workflow Run RO-Crates (ro-crate-metadata.json, or a zip of a crate)"),
]
