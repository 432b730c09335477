"""OpenLineage run events for a loaded run, so Marquez or any OpenLineage consumer can take
HPC runs: ``lineage export UID --format openlineage -o events.jsonl``.

The events are built with the official client's classes (``openlineage-python``, generated
from the OpenLineage JSON schema, which check run ids, times and event types as they are
made) and written one per line, as the client's file transport writes them:

- the run (a Pegasus workflow, a Swift script run, an XALT execution, a Chimbuko program
  run): ``START`` at its start, then ``COMPLETE`` or ``FAIL`` at its end (nothing more while
  it runs or is held); inputs are the files it read and did not make, outputs the files it
  made;
- each of its parts of the kinds its source names (``views.export_children``: Pegasus jobs,
  from their first attempt's start to their last attempt's end; Swift calls), the same, with
  a ``parent`` run facet naming the run, and the files of the part (or of what it runs,
  ``views.export_through``: a Pegasus job's task) as inputs and outputs.

A Chimbuko program run starts when its first rank started (TAU's ``Starting Timestamp`` of
each rank); Chimbuko records no end or outcome of a program, so its run has a ``START``
alone. A run whose start is not known at all gets no events: the export stops with an error
naming it, and writes no file.

Run ids are UUIDs derived from the uid (UUID 5), so exporting twice gives the same ids.
Jobs are named in the namespace ``<source>://<submit host or system>``; files in
``file://<site or system>`` by logical file name (Pegasus) or file name (Swift).

>>> run_id("pegasus:workflow:x") == run_id("pegasus:workflow:x")
True
>>> outcome({"status": "failed"}), outcome({"status": "succeeded"}), outcome({})
('FAIL', 'COMPLETE', None)
"""

from __future__ import annotations

import datetime as dt
import uuid
from pathlib import Path
from typing import Iterator

from ..errors import LineageError
from ..model.status import run_state
from ..private_file import create_private
from ..sources import registry

PRODUCER = "https://github.com/lineage-explorer/lineage-explorer"
#: UUID 5 namespace of run ids (the uid of a node names its run)
RUN_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "lineage-explorer:run")


def run_id(uid: str) -> str:
    """A stable UUID for a node's run."""
    return str(uuid.uuid5(RUN_NAMESPACE, uid))


def outcome(props: dict) -> str | None:
    """COMPLETE, FAIL, or None for a run that has not ended (or whose end is unknown): the
    model's reading of its status (:func:`lineage.model.status.run_state`)."""
    return run_state(props.get("status"))


def _time(seconds) -> str | None:
    if not isinstance(seconds, (int, float)):
        return None
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).isoformat().replace("+00:00", "Z")


def _namespace(node: dict) -> str:
    props = node.get("properties") or {}
    place = (props.get("submit_hostname") or props.get("syshost") or props.get("site")
             or props.get("hostname") or "local")
    source = (node.get("uid") or "lineage").split(":", 1)[0]
    return f"{source}://{place}"


def _dataset_name(node: dict) -> str | None:
    props = node.get("properties") or {}
    return props.get("lfn") or props.get("filename") or props.get("path")


def _files(nodes: dict[str, dict], edges: list[dict]) -> tuple[dict, dict]:
    """For each activity uid: the file uids it used, and those it generated (itself, or
    through what it runs: a Pegasus job through its task)."""
    used: dict[str, set[str]] = {}
    made: dict[str, set[str]] = {}
    runs: dict[str, set[str]] = {}
    through = registry.views().export_through
    for e in edges:
        if e["type"] == "USED" and _dataset_name(nodes.get(e["target"], {})):
            used.setdefault(e["source"], set()).add(e["target"])
        elif e["type"] == "WAS_GENERATED_BY" and _dataset_name(nodes.get(e["source"], {})):
            made.setdefault(e["target"], set()).add(e["source"])
        elif e["type"] in through:
            runs.setdefault(e["source"], set()).add(e["target"])
    for part, ran in runs.items():
        for other in ran:
            used.setdefault(part, set()).update(used.get(other, ()))
            made.setdefault(part, set()).update(made.get(other, ()))
    return used, made


def events(nodes: list[dict], edges: list[dict], root_uid: str) -> Iterator:
    """The run events of the run ``root_uid`` from its subgraph (``Lineage.subgraph_rows``)."""
    from openlineage.client.event_v2 import (InputDataset, Job, OutputDataset, Run, RunEvent,
                                             RunState)
    from openlineage.client.generated import parent_run

    by_uid = {n["uid"]: n for n in nodes}
    root = by_uid[root_uid]
    used, made = _files(by_uid, edges)
    children = registry.views().export_children
    parts = [by_uid[e["source"]] for e in edges
             if e["type"] == "PART_OF" and e["target"] == root_uid and e["source"] in by_uid
             and by_uid[e["source"]].get("kind") in children]
    namespace = _namespace(root)

    def datasets(uids, cls):
        out = []
        for uid in sorted(uids):
            node = by_uid[uid]
            props = node.get("properties") or {}
            place = props.get("site") or (root.get("properties") or {}).get("syshost") or "local"
            out.append(cls(namespace=f"file://{place}", name=_dataset_name(node)))
        return out

    attempts: dict[str, list[dict]] = {}
    for e in edges:  # a Pegasus job's times are its attempts'
        if e["type"] == "INSTANCE_OF" and e["source"] in by_uid:
            attempts.setdefault(e["target"], []).append(by_uid[e["source"]]["properties"] or {})

    def times(node) -> dict:
        props = dict(node.get("properties") or {})
        tries = attempts.get(node["uid"], [])
        starts = [a["start_time"] for a in tries if isinstance(a.get("start_time"), (int, float))]
        ends = [a["end_time"] for a in tries if isinstance(a.get("end_time"), (int, float))]
        if props.get("start_time") is None and starts:
            props["start_time"] = min(starts)
        if props.get("end_time") is None and ends:
            props["end_time"] = max(ends)
        run_start = registry.views().run_starts.get(node.get("kind"))
        if props.get("start_time") is None and run_start is not None:
            props["start_time"] = run_start(by_uid, edges, node["uid"])
        return props

    def pair(node, inputs, outputs, facets):
        props = times(node)
        job = Job(namespace=namespace, name=node.get("name") or node["uid"])
        run = Run(runId=run_id(node["uid"]), facets=facets)
        start, end, state = _time(props.get("start_time")), _time(props.get("end_time")), \
            outcome(props)
        if start:
            yield RunEvent(eventType=RunState.START, eventTime=start, run=run, job=job,
                           producer=PRODUCER, inputs=inputs, outputs=[])
        if state and (end or start):
            yield RunEvent(eventType=getattr(RunState, state), eventTime=end or start,
                           run=run, job=job, producer=PRODUCER, inputs=inputs,
                           outputs=outputs)

    all_used = set().union(*used.values()) if used else set()
    all_made = set().union(*made.values()) if made else set()
    yield from pair(root, datasets((all_used - all_made) | used.get(root_uid, set()),
                                   InputDataset),
                    datasets(all_made | made.get(root_uid, set()), OutputDataset), {})
    parent = {"parent": parent_run.ParentRunFacet(
        run=parent_run.Run(runId=run_id(root_uid)),
        job=parent_run.Job(namespace=namespace, name=root.get("name") or root_uid))}
    for part in sorted(parts, key=lambda n: ((n.get("properties") or {}).get("start_time")
                                             or 0, n["uid"])):
        yield from pair(part, datasets(used.get(part["uid"], ()), InputDataset),
                        datasets(made.get(part["uid"], ()), OutputDataset), parent)


def write(nodes: list[dict], edges: list[dict], root_uids: list[str], path: str | Path) -> str:
    """Write the run events of each run as JSON Lines (one event per line); returns the
    path. A run with no events (its start is not known) is an error naming it, and nothing is
    written."""
    from openlineage.client.serde import Serde

    lines = []
    for root in root_uids:
        found = [Serde.to_json(event) for event in events(nodes, edges, root)]
        if not found:
            raise LineageError(f"{root}: its start is not known (the graph holds no start time "
                               "for it or its parts), and OpenLineage run events begin with "
                               "a START at that time: nothing written")
        lines += found
    out = create_private(path)  # 0600, as reports: events can quote command lines
    with open(out, "w", encoding="utf-8") as fh:
        fh.writelines(line + "\n" for line in lines)
    return str(out)
