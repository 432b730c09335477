"""Gather what a report shows (through the API's templates) and hand it to the renderer.

A report is either a *run view* (the node has the ``:Run`` label: a Pegasus workflow, a Swift
script run, a Chimbuko program run, an XALT execution) or a *neighbourhood view* (any other
node: its ancestors and descendants up to a depth). The graph comes from the generic
templates (``run_members``, ``ancestors``, ``descendants``, ``nodes``, ``edges_among``); what
is shown beside it comes from the views each source declares for its kinds
(:class:`lineage.sources.source.Views`, collected by :func:`lineage.sources.registry.views`):
the tables of a run (``run_sections``, else :data:`GENERIC_SECTIONS`) or of a node
(``node_sections``), the nodes a node's drawing adds (``node_structure``), whether a run's
view draws its lineage (``run_lineage``) or another template's nodes instead of its parts
(``run_graphs``: a Swift run's data flow), the panels of a kind (``panels``: a Pegasus
workflow's attempts for the timeline, a Chimbuko program run's anomaly details) and the short
labels of drawn nodes (``labels``).

Over ``max_nodes`` nodes the graph is collapsed into groups (by run, by kind and
transformation / job type / function, by kind: the finest level that fits; failed and
anomalous nodes always stay on their own), and the page says what was collapsed. The drawn
graph gets a layered left-to-right layout in data-flow direction (:func:`place`,
:mod:`.layout`).

>>> sections("Workflow", True)[0].title
'Across systems (lineage link)'
>>> group_label({"kind": "Job", "name": "findrange_j12", "properties": {}})
'findrange_j#'
"""

from __future__ import annotations

import os
import re
from collections import Counter, defaultdict

from .. import model
from ..errors import LineageError
from ..model.status import is_failed
from ..private_file import write_private
from ..sources import registry
from ..sources.source import Section
from .layout import layered
from ..sources.outcome import generic_outcome
from .render import PROV_TYPES as RENDER_PROV_TYPES, render
from .view import ReportView

#: Direct neighbours (any relationship) a report draws at most per relationship type and
#: direction: a shared library or host can have thousands of runs; the tables list them.
MAX_NEIGHBOURS = 200

#: Tables of a run whose kind has no sections of its own: its parts, through PART_OF.
GENERIC_SECTIONS = [Section("Parts of the run", "run_members", "run")]


def sections(kind: str, is_run: bool) -> list[Section]:
    """The tables beside a node of ``kind`` (a run's or a node's), as its source declares."""
    views = registry.views()
    if is_run:
        return list(views.run_sections.get(kind, GENERIC_SECTIONS))
    return list(views.node_sections.get(kind, []))

#: Per node kind: the properties naming a node's group when a big graph is collapsed (first
#: one present wins, as the model declares); kinds without group the name with digit runs
#: replaced by '#'.
GROUP_BY = {k.label: k.group_by for k in model.NODE_KINDS.values() if k.group_by}

#: Defaults of the report limits; the connection's settings (LINEAGE_REPORT_MAX_NODES /
#: LINEAGE_REPORT_MAX_ROWS) decide, read when the report is made.
MAX_DRAWN = 500
MAX_ROWS = 1000
MAX_MEMBERS = 100000  # parts of a run fetched at most


def _root(lin, uid: str) -> dict:
    rows = lin.query("nodes", uids=[uid])
    if not rows:
        raise LineageError(f"no node with uid {uid!r} in the graph (see `lineage query runs`)")
    return rows[0]


def _is_run(lin, uid: str) -> bool:
    rows = lin.query("node", uid=uid)
    return bool(rows) and model.RUN_LABEL in rows[0]["labels"]


def run_graph(lin, uid: str, depth: int = 3) -> tuple[list[dict], list[dict]]:
    """The parts of run ``uid`` (PART_OF, up to ``depth`` hops), its direct neighbours (user,
    host, executable, libraries, script: at most MAX_NEIGHBOURS per relationship type), for
    ``run_lineage`` kinds its ancestors, and the edges among them all; a run kind with a
    ``run_graphs`` template draws that template's nodes instead (``depth`` unused).

    A part's PART_OF edge to the run itself is drawn only when the part has no other edge
    (so a run with thousands of parts is not drawn as a star)."""
    root = _root(lin, uid)
    views = registry.views()
    drawn_by = views.run_graphs.get(root["kind"])
    if drawn_by is not None:
        members = lin.query(drawn_by[0], run=uid, limit=MAX_MEMBERS)
    else:
        members = lin.query("run_members", run=uid, max_depth=depth, limit=MAX_MEMBERS)
    nodes = [root] + [_drawn_node(m) for m in members]
    if drawn_by is None:  # drawn by its parts: its neighbours too
        known = {n["uid"] for n in nodes}
        extra = [r["uid"] for r in lin.query("structure_of", uid=uid, limit=MAX_NEIGHBOURS)]
        if root["kind"] in views.run_lineage:
            extra += [r["uid"] for r in lin.query("ancestors", uid=uid, max_depth=depth)]
        extra = [u for u in dict.fromkeys(extra) if u not in known]
        if extra:
            nodes += list(lin.query("nodes", uids=extra))
    overview = views.run_overview.get(root["kind"])
    if overview is not None and len(nodes) > overview.above:
        nodes = [n for n in nodes if n["kind"] in overview.kinds]
    uids = [n["uid"] for n in nodes]
    edges = list(lin.query("edges_among", uids=uids))
    if overview is not None and len(uids) == len(nodes) and \
            all(n["kind"] in overview.kinds for n in nodes):
        edges = tree_edges(edges, overview)
    linked = Counter()
    for e in edges:
        if not (e["type"] == "PART_OF" and e["target"] == uid):
            linked[e["source"]] += 1
            linked[e["target"]] += 1
    edges = [e for e in edges
             if not (e["type"] == "PART_OF" and e["target"] == uid and linked[e["source"]])]
    return nodes, edges


def tree_edges(edges: list[dict], overview) -> list[dict]:
    """The edges of an overview drawing: only its ``types``; a node with an outgoing edge of
    an earlier type keeps none of a later one; ``flip`` types drawn target first.

    >>> from lineage.sources.source import Overview
    >>> ov = Overview(frozenset(), ("CALLED_BY", "PART_OF"), 0, frozenset({"CALLED_BY"}))
    >>> tree_edges([{"source": "f", "type": "CALLED_BY", "target": "main"},
    ...             {"source": "f", "type": "PART_OF", "target": "rank"},
    ...             {"source": "main", "type": "PART_OF", "target": "rank"}], ov)
    [{'source': 'main', 'type': 'CALLED_BY', 'target': 'f'}, {'source': 'main', 'type': 'PART_OF', 'target': 'rank'}]
    """
    rank = {t: i for i, t in enumerate(overview.types)}
    first: dict[str, int] = {}
    for e in edges:
        if e["type"] in rank:
            first[e["source"]] = min(first.get(e["source"], len(rank)), rank[e["type"]])
    out = []
    for e in edges:
        if e["type"] not in rank or rank[e["type"]] > first[e["source"]]:
            continue
        if e["type"] in overview.flip:
            e = {**e, "source": e["target"], "target": e["source"]}
        out.append(e)
    return out


def _drawn_node(row) -> dict:
    """A template row as a node to draw (its short ``label`` kept when it has one).

    >>> _drawn_node({"uid": "d", "kind": "Dataset", "name": "file://h/a.txt", "status": None,
    ...              "properties": {}, "label": "a.txt", "role": "input"})["label"]
    'a.txt'
    """
    node = {k: row[k] for k in ("uid", "kind", "name", "status", "properties")}
    label = row.get("label")
    if label not in (None, "", node["name"]):
        node["label"] = str(label)
    return node


def neighbourhood_graph(lin, uid: str, depth: int = 3,
                        kind: str | None = None) -> tuple[list[dict], list[dict]]:
    """Node ``uid`` with its ancestors and descendants up to ``depth`` hops, its structural
    neighbours (one relationship away, any type: its run, attempts, task, caller, function;
    at most MAX_NEIGHBOURS) and, by ``kind``, the nodes its ``node_structure`` templates
    give (a call stack); and
    the edges among them all."""
    up = lin.query("ancestors", uid=uid, max_depth=depth)
    down = lin.query("descendants", uid=uid, max_depth=depth)
    near = lin.query("structure_of", uid=uid, limit=MAX_NEIGHBOURS)
    extra = [r["uid"] for template, param in registry.views().node_structure.get(kind, ())
             for r in lin.query(template, **{param: uid})]
    uids = list(dict.fromkeys([uid] + [r["uid"] for r in up] + [r["uid"] for r in down]
                              + [r["uid"] for r in near] + extra))
    nodes = list(lin.query("nodes", uids=uids))
    edges = list(lin.query("edges_among", uids=uids))
    return nodes, edges


# ------------------------------------------------------------------ collapsing big graphs
def stands_out(node: dict) -> bool:
    """True for a node a collapsed graph never hides in a group: failed, or an anomaly.

    >>> stands_out({"status": "failed"}), stands_out({"properties": {"is_anomaly": True}})
    (True, True)
    >>> stands_out({"status": "succeeded", "properties": {"is_anomaly": False}})
    False
    """
    props = node.get("properties") or {}
    return is_failed(node.get("status")) or props.get("is_anomaly") is True


def group_label(node: dict) -> str:
    """The transformation / job type / function a node is grouped under."""
    props = node.get("properties") or {}
    for prop in GROUP_BY.get(node.get("kind"), ()):
        if props.get(prop) not in (None, ""):
            return str(props[prop])
    return re.sub(r"\d+", "#", str(node.get("name") or "?"))


def collapse(nodes: list[dict], edges: list[dict], max_nodes: int, keep: str | None = None,
             runs: dict[str, str] | None = None) -> tuple[list[dict], list[dict], dict | None]:
    """Group ``nodes`` so that at most ``max_nodes`` are drawn; returns (nodes, edges, note).

    Levels, finest first: (run, kind, group label), (run, kind), (kind); the first level whose
    group count fits wins. Node ``keep`` (the report's root) and failed or anomalous nodes
    (:func:`stands_out`) are never grouped, even when that draws more than ``max_nodes``; a
    group of one stays the node itself. ``note`` says what was collapsed (None when nothing was).

    >>> ns = [{"uid": f"j{i}", "kind": "Job", "name": f"a{i}"} for i in range(5)]
    >>> out, _, note = collapse(ns, [], 2)
    >>> [(n["name"], n["count"]) for n in out], note["level"]
    ([('Job a# (5)', 5)], 'kind and transformation / type / function')
    """
    if len(nodes) <= max_nodes:
        return nodes, edges, None
    runs = runs or {}
    levels = [
        ("run, kind and transformation / type / function",
         lambda n: (runs.get(n["uid"]), n.get("kind"), group_label(n))),
        ("kind and transformation / type / function",
         lambda n: (None, n.get("kind"), group_label(n))),
        ("run and kind", lambda n: (runs.get(n["uid"]), n.get("kind"), None)),
        ("kind", lambda n: (None, n.get("kind"), None)),
    ]
    if not any(runs.values()):
        levels = [lv for lv in levels if "run" not in lv[0]]
    others = [n for n in nodes if n["uid"] != keep]
    kept = [n for n in nodes if n["uid"] == keep]
    for level, key in levels:  # noqa: B007 - the level that fits is used after the loop
        buckets: dict[tuple, list[dict]] = defaultdict(list)
        for n in others:
            buckets[key(n)].append(n)
        if len(buckets) + len(kept) <= max_nodes:
            break
    # failed and anomalous nodes are always drawn on their own (even over the limit); what is
    # left of the budget opens up the smallest groups
    single = [n for n in others if stands_out(n)]
    alone = {n["uid"] for n in single}
    buckets = {k: [m for m in v if m["uid"] not in alone] for k, v in buckets.items()}
    buckets = {k: v for k, v in buckets.items() if v}
    budget = max(0, max_nodes - len(kept) - len(single) - len(buckets))
    for k, members in sorted(buckets.items(), key=lambda kv: len(kv[1])):
        if len(members) - 1 > budget:
            break
        budget -= len(members) - 1
        single.extend(members)
        buckets[k] = []
    out = list(kept)
    group_of: dict[str, str] = {n["uid"]: n["uid"] for n in kept}
    for n in single:
        out.append(n)
        group_of[n["uid"]] = n["uid"]
    groups_note = []
    for i, ((run, kind, label), members) in enumerate(
            sorted(buckets.items(), key=lambda kv: (-len(kv[1]), str(kv[0])))):
        if not members:
            continue
        if len(members) == 1:
            out.append(members[0])
            group_of[members[0]["uid"]] = members[0]["uid"]
            continue
        gid = f"group:{i}"
        statuses = Counter(m.get("status") for m in members if m.get("status"))
        failed = [s for s in statuses if is_failed(s)]
        status = failed[0] if failed else (statuses.most_common(1)[0][0] if statuses else None)
        name = " ".join(str(x) for x in (kind, label) if x) + f" ({len(members)})"
        run_name = runs.get(members[0]["uid"]) if run else None
        out.append({
            "uid": gid, "kind": kind, "name": name, "status": status, "group": True,
            "count": len(members), "run": run_name,
            "status_counts": dict(statuses),
            "members": [[m["uid"], m.get("name"), m.get("status")] for m in members],
            "properties": {},
        })
        groups_note.append({"name": name, "count": len(members), "run": run_name})
        for m in members:
            group_of[m["uid"]] = gid
    counted: Counter = Counter()
    for e in edges:
        a, b = group_of.get(e["source"]), group_of.get(e["target"])
        if a is None or b is None or a == b:
            continue
        counted[(a, e["type"], b)] += 1
    new_edges = [{"source": a, "type": t, "target": b, "count": c}
                 for (a, t, b), c in counted.items()]
    note = {
        "level": level,
        "total_nodes": len(nodes),
        "total_edges": len(edges),
        "drawn_nodes": len(out),
        "groups": groups_note,
        "grouped_nodes": sum(g["count"] for g in groups_note),
        "max_nodes": max_nodes,
        "standing_out": len(alone),
    }
    return out, new_edges, note


# ------------------------------------------------------------------ the report
#: Relationship types drawn against their stored direction by default: the W3C PROV relations
#: point from effect to cause ((job)-[:USED]->(file)); the page draws data flow (file -> job)
#: and offers PROV direction as a toggle.
PROV_TYPES = frozenset(RENDER_PROV_TYPES)

def data_flow(edge: dict) -> tuple[str, str]:
    """An edge as (from, to) in data-flow direction.

    >>> data_flow({"source": "job", "type": "USED", "target": "file"})
    ('file', 'job')
    >>> data_flow({"source": "job", "type": "RUNS_TASK", "target": "task"})
    ('job', 'task')
    """
    if edge["type"] in PROV_TYPES:
        return edge["target"], edge["source"]
    return edge["source"], edge["target"]


def place(nodes: list[dict], edges: list[dict], dag: bool) -> str:
    """Give the nodes ``x`` / ``y`` of a layered left-to-right drawing (data flowing from
    left to right; a cycle is drawn with one edge pointing back); returns the page's layout
    mode, ``layered``. Fixed positions: a focused lineage never overlaps (a force layout
    moved nodes onto each other)."""
    pos = layered([n["uid"] for n in nodes], [data_flow(e) for e in edges])
    for n in nodes:
        n["x"], n["y"] = pos[n["uid"]]
    return "layered"


def is_dag(nodes: list[dict], edges: list[dict]) -> bool:
    """True when the drawn graph has no cycle (a small graph with one gets the force layout).

    >>> is_dag([{"uid": "a"}, {"uid": "b"}], [{"source": "a", "target": "b"}])
    True
    """
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_nodes_from(n["uid"] for n in nodes)
    graph.add_edges_from((e["source"], e["target"]) for e in edges)
    return nx.is_directed_acyclic_graph(graph)


def _status_from_tables(nodes: list[dict], tables: list[dict]) -> None:
    """Give drawn nodes without a status the status a table row reports for the same uid."""
    status = {}
    for t in tables:
        if "uid" in t["all_columns"] and "status" in t["all_columns"]:
            for row in t["rows"]:
                if row.get("status"):
                    status.setdefault(row["uid"], row["status"])
    for n in nodes:
        if not n.get("status") and n["uid"] in status:
            n["status"] = status[n["uid"]]


def _limits(lin) -> tuple[int, int]:
    settings = getattr(lin, "settings", None)
    if settings is None:
        return MAX_DRAWN, MAX_ROWS
    return settings.report_max_nodes, settings.report_max_rows


def report_data(lin, uid: str, depth: int = 3, max_nodes: int | None = None) -> dict:
    """Everything a report page shows, as plain data (the renderer's keyword arguments)."""
    max_nodes = max_nodes or _limits(lin)[0]
    root = _root(lin, uid)
    kind = root["kind"]
    is_run = _is_run(lin, uid)
    if is_run:
        nodes, edges = run_graph(lin, uid, depth)
        title = f"{kind} {root['name']}"
        overview = registry.views().run_overview.get(kind)
        if overview is not None and all(n["kind"] in overview.kinds for n in nodes):
            drawn_kinds = ", ".join(sorted(overview.kinds - {kind}))
            overview_scope = f"an overview: its {drawn_kinds} nodes only (the tables list the rest)"
        else:
            overview_scope = None
        tables_of = sections(kind, True)
    else:
        nodes, edges = neighbourhood_graph(lin, uid, depth, kind)
        title = f"Lineage of {kind} {root['name']}"
        overview_scope = None
        tables_of = sections(kind, False)
    tables = []
    for title_, template, param, key in tables_of:
        rows = lin.query(template, **{param: uid})
        every = [c for c in rows.columns if c != "properties"]
        shown = [c for c in key if c in every] or every
        tables.append({"title": title_, "rows": list(rows[:_limits(lin)[1]]), "total": len(rows),
                       "columns": shown, "all_columns": every})
    _status_from_tables(nodes, tables)
    counts = Counter(n.get("kind") or "?" for n in nodes)
    runs = None
    if len(nodes) > max_nodes and not is_run:
        runs = {r["uid"]: r["run_name"] for r in
                lin.query("member_runs", uids=[n["uid"] for n in nodes]) if r["run"]}
    drawn, drawn_edges, collapsed = collapse(nodes, edges, max_nodes, keep=uid, runs=runs)
    views = registry.views()
    panel = views.panels.get(kind)
    panels = panel(lin, uid, is_run) if panel is not None else {}
    labels = views.labels(drawn, drawn_edges)
    for n in drawn:
        if n["uid"] in labels:
            n["label"] = labels[n["uid"]]
    dag = is_dag(drawn, drawn_edges)
    layout = place(drawn, drawn_edges, dag)
    make = views.outcomes.get(kind)
    answer = make(lin, uid, is_run) if make is not None else generic_outcome(root)
    return dict(
        outcome=answer,
        title=title, root=root, nodes=drawn, edges=drawn_edges, tables=tables,
        collapsed=collapsed, hierarchical=dag, kind_counts=dict(counts.most_common()),
        view="run" if is_run else "neighbourhood", depth=depth, layout=layout,
        scope=views.run_graphs[kind][1] if is_run and kind in views.run_graphs
        else overview_scope,
        **{"attempts": None, "details": None, **panels},
    )


def build_report(lin, uid: str, depth: int = 3, max_nodes: int | None = None) -> str:
    """The report page of node ``uid`` as one self-contained HTML string."""
    return render(**report_data(lin, uid, depth, max_nodes))


def view_report(lin, uid: str, depth: int = 3, max_nodes: int | None = None) -> ReportView:
    """The report of node ``uid`` as an object Jupyter shows inline (``.save(path)`` too)."""
    data = report_data(lin, uid, depth, max_nodes)
    return ReportView(render(**data), data["title"])


def write_report(lin, uid: str, output: str | os.PathLike, depth: int = 3,
                 max_nodes: int | None = None) -> str:
    """Write the report of node ``uid`` (a run gets its run view) to ``output``."""
    return write_private(output, build_report(lin, uid, depth, max_nodes))
