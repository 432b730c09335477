"""Gather what a report shows (through the API's templates) and hand it to the renderer.

>>> "Workflow" in SECTIONS
True
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import LineageError
from .render import render

#: Per run kind: (section title, template, parameter name) tables shown beside the graph.
SECTIONS = {
    "Workflow": [
        ("Summary", "pegasus/statistics", "workflow"),
        ("Failed jobs", "pegasus/failed_jobs", "workflow"),  # with decoded stderr / stdout
        ("Retry history", "pegasus/attempts", "workflow"),
        ("Sub-workflows", "pegasus/subworkflows", "workflow"),
        ("Jobs", "pegasus/workflow_jobs", "workflow"),
    ],
}

MAX_DRAWN = int(os.environ.get("LINEAGE_REPORT_MAX_NODES", "2000"))


def _kind(lin, uid: str) -> dict:
    rows = lin.query("nodes", uids=[uid])
    if not rows:
        raise LineageError(f"no node with uid {uid!r} in the graph (see `lineage query runs`)")
    return rows[0]


def _workflow_graph(lin, uid: str) -> tuple[list[dict], list[dict]]:
    jobs = lin.query("pegasus/workflow_jobs", workflow=uid)
    nodes = [
        {"uid": j["uid"], "kind": "Job", "name": j["job_id"], "status": j["status"],
         "properties": {k: v for k, v in j.items() if k not in ("uid", "parents")}}
        for j in jobs
    ]
    edges = [
        {"source": j["uid"], "type": "WAS_INFORMED_BY", "target": p}
        for j in jobs for p in j["parents"]
    ]
    return nodes, edges


def _neighbourhood(lin, uid: str, depth: int) -> tuple[list[dict], list[dict]]:
    up = lin.query("ancestors", uid=uid, max_depth=depth)
    down = lin.query("descendants", uid=uid, max_depth=depth)
    uids = [uid] + [r["uid"] for r in up] + [r["uid"] for r in down]
    uids = list(dict.fromkeys(uids))
    nodes = list(lin.query("nodes", uids=uids))
    edges = list(lin.query("edges_among", uids=uids))
    return nodes, edges


def write_report(lin, uid: str, output: str | os.PathLike, depth: int = 3,
                 max_nodes: int = MAX_DRAWN) -> str:
    """Write the report of node ``uid`` (a run gets its run view) to ``output``."""
    root = _kind(lin, uid)
    kind = root["kind"]
    if kind == "Workflow":
        nodes, edges = _workflow_graph(lin, uid)
        title = f"Pegasus workflow {root['name']}"
    else:
        nodes, edges = _neighbourhood(lin, uid, depth)
        title = f"Lineage of {kind} {root['name']}"
    tables = []
    for title_, template, param in SECTIONS.get(kind, []):
        rows = lin.query(template, **{param: uid})
        tables.append({"title": title_, "rows": list(rows), "columns": rows.columns})
    collapsed = 0
    if len(nodes) > max_nodes:
        collapsed = len(nodes) - max_nodes
        kept = {n["uid"] for n in nodes[:max_nodes]}
        nodes = nodes[:max_nodes]
        edges = [e for e in edges if e["source"] in kept and e["target"] in kept]
    html = render(
        title=title, root=root, nodes=nodes, edges=edges, tables=tables,
        collapsed=collapsed, hierarchical=True,
    )
    path = Path(output)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(html, encoding="utf-8")
    return str(path)
