"""Render report data into one self-contained HTML file.

Jinja2 with autoescaping writes every provenance string as text; the graph data travels
as JSON inside ``<script type="application/json">`` (``tojson`` escapes ``<``, ``>``, ``&``
and quotes), and the page's script builds tooltips with ``textContent``. The renderer is
inlined, so the file makes no network request: vis-network (read from the pyvis package)
for graphs up to CANVAS_MIN_NODES drawn nodes, the page's own 2D canvas drawing above.

>>> page = render(title="<script>", root={}, nodes=[], edges=[], tables=[])
>>> "<script>" in page.split("</title>")[0], "&lt;script&gt;" in page
(False, True)
"""

from __future__ import annotations

import json
import re
import time
from functools import lru_cache
from importlib import resources

from jinja2 import Environment, PackageLoader, select_autoescape

from .. import model
from ..humanize import human

#: Colours by outcome and by kind, as the model declares them.
STATUS_COLOURS = dict(model.STATUSES)
KIND_COLOURS = {k.label: k.colour for k in model.NODE_KINDS.values()}
OTHER_STATUS = model.OTHER_STATUS_COLOUR
OTHER_KIND = "#7f7f7f"


@lru_cache(maxsize=1)
def vis_network_js() -> str:
    """vis-network's standalone build, as shipped inside the pyvis package."""
    root = resources.files("pyvis") / "lib"
    versions = sorted(p.name for p in root.iterdir() if p.name.startswith("vis-"))
    text = (root / versions[-1] / "vis-network.min.js").read_text(encoding="utf-8")
    # no source-map comment: developer tools would fetch the map from next to the page
    text = re.sub(r"//# sourceMappingURL=\S*\s*$", "", text)
    if re.search(r"</script|<!--", text, re.IGNORECASE):  # would end the inline <script>
        raise RuntimeError("vis-network.min.js cannot be inlined as it is")
    return text


#: Above this many drawn nodes (with the layered layout) the page draws on a plain 2D canvas
#: instead of vis-network: bench/bench_report.py measures why (vis-network needs seconds to
#: set up 10,000 nodes; sigma.js on WebGL is software-rendered, and slow, without a GPU).
CANVAS_MIN_NODES = 2000


@lru_cache(maxsize=1)
def _env() -> Environment:
    env = Environment(
        loader=PackageLoader("lineage.report", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
    )
    env.filters["show"] = _show
    env.globals["human"] = human  # epoch times as ISO 8601 UTC, durations with units
    return env


def _plain(value):
    """A value as JSON can carry it (anything else as its text).

    >>> _plain([1, "a"]), _plain(object.__new__(type("X", (), {"__str__": lambda s: "x"})))
    ([1, 'a'], 'x')
    """
    return json.loads(json.dumps(value, default=str))


def _show(value) -> str:
    """A cell value as text: lists and maps as JSON, nothing as an empty cell."""
    if value is None:
        return ""
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def render_diff(result: dict, first: dict, second: dict) -> str:
    """The side-by-side page of a ``lineage diff`` result (every value escaped).

    >>> page = render_diff({"kind": "Execution", "differences": [{"aspect": "cwd",
    ...     "name": "cwd", "first": "<b>", "second": None}]}, {"uid": "a", "properties": {}},
    ...     {"uid": "b", "properties": {}})
    >>> "<b>" in page, "&lt;b&gt;" in page
    (False, True)
    """
    groups: dict[str, list[dict]] = {}
    for row in result["differences"]:  # first appearance order: most telling first
        groups.setdefault(row["aspect"], []).append(row)
    keys = [k for k in ("status", "exit_status", "start_time", "end_time", "wall_time",
                        "duration", "run_time", "user", "syshost", "exec_path")
            if k in (first.get("properties") or {}) or k in (second.get("properties") or {})]
    return _env().get_template("diff.html.j2").render(
        title=f"{result['kind']} diff: {first.get('name') or first['uid']} vs "
              f"{second.get('name') or second['uid']}",
        first=first, second=second, summary_keys=keys, differences=result["differences"],
        groups=[{"aspect": a, "rows": rows} for a, rows in groups.items()],
        generated=time.strftime("%Y-%m-%d %H:%M:%S %Z"))


#: Relationship types that point from effect to cause (drawn reversed: data flow).
PROV_TYPES = sorted(name for name, r in model.REL_TYPES.items() if r.prov)

#: Layout modes: ``layered`` (positions precomputed by :mod:`.layout`), ``physics`` (force
#: layout in the page, small graphs with a cycle), ``vis`` (vis-network's own hierarchical
#: layout: what reports used before, kept for bench/bench_report.py's comparison).
LAYOUTS = ("layered", "physics", "vis")


def render(title: str, root: dict, nodes: list[dict], edges: list[dict], tables: list[dict],
           collapsed: dict | None = None, hierarchical: bool = True,
           kind_counts: dict | None = None, view: str = "neighbourhood", depth: int = 3,
           layout: str | None = None, attempts: list[dict] | None = None,
           focus_depth: int = 2, renderer: str | None = None, scope: str | None = None,
           details: dict | None = None, outcome: dict | None = None) -> str:
    """The report page as a string (every value escaped; see the module docstring).

    ``layout`` is one of LAYOUTS (default: ``layered`` when every node has ``x`` / ``y``,
    else ``vis`` for a DAG, else ``physics``); ``attempts`` (rows of ``job``, ``host``,
    ``start_time``, ``end_time``, ``status``, ... : a Pegasus workflow's, from its source's
    panel) adds the timeline and a clicked job's attempts; a click on a node shows
    its lineage ``focus_depth`` hops up and down ("expand" adds one). ``renderer``: ``vis``
    (vis-network) or ``canvas`` (the page's own 2D canvas drawing; the default above
    CANVAS_MIN_NODES nodes with the layered layout). ``scope`` says what a run view draws when
    it is not the run's PART_OF parts (a Swift run's data flow); ``details`` (``{"total",
    "limit", "steps", "anomalies": {uid: {..., "stack", "window"}}}``: a Chimbuko program
    run's, from its source's panel) adds a clicked anomaly's stack and window. ``outcome``
    (:func:`lineage.sources.outcome.outcome`) fills the "what happened" box on top."""
    placed = bool(nodes) and all("x" in n and "y" in n for n in nodes)
    if layout is None:
        layout = "layered" if placed else ("vis" if hierarchical else "physics")
    if layout not in LAYOUTS or (layout == "layered" and not placed):
        raise ValueError(f"layout {layout!r}: one of {', '.join(LAYOUTS)}; layered needs x, y")
    if renderer is None:
        renderer = "canvas" if layout == "layered" and len(nodes) > CANVAS_MIN_NODES else "vis"
    if renderer not in ("vis", "canvas") or (renderer == "canvas" and layout != "layered"):
        raise ValueError(f"renderer {renderer!r}: vis, or canvas with the layered layout")
    nodes_json, edges_json = compact(nodes, edges)
    kinds = sorted({n.get("kind") or "?" for n in nodes})
    statuses = sorted({n["status"] for n in nodes if n.get("status")}
                      | {a["status"] for a in attempts or () if a.get("status")})
    return _env().get_template("report.html.j2").render(
        title=title,
        root=root,
        graph={"nodes": nodes_json, "edges": edges_json, "hierarchical": hierarchical,
               "status_colours": STATUS_COLOURS, "kind_colours": KIND_COLOURS,
               "root": root.get("uid"), "layout": layout, "prov_types": PROV_TYPES,
               "attempts": [{k: v for k, v in a.items() if v is not None} for a in attempts]
               if attempts is not None else None,
               "focus_depth": focus_depth, "renderer": renderer, "details": details,
               "failed_statuses": sorted(model.FAILED_STATUSES),
               "succeeded": model.status.SUCCEEDED},
        attempts=attempts,
        tables=tables,
        table_rows=[[{c: _plain(human(c, v)) for c, v in row.items() if c != "properties"}
                     for row in t["rows"]] for t in tables],
        outcome=outcome,
        collapsed=collapsed,
        generated=time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        renderer_js="" if renderer == "canvas" else vis_network_js(),
        renderer=renderer,
        status_colours={s: STATUS_COLOURS.get(s, OTHER_STATUS) for s in statuses},
        kinds=kinds,
        kind_colours={k: KIND_COLOURS.get(k, OTHER_KIND) for k in kinds},
        kind_counts=kind_counts or {},
        view=view,
        scope=scope,
        depth=depth,
        root_times=[(k, v) for k, v in _summary_properties(root.get("properties") or {})
                    if k in TIME_KEYS],
    )


#: Properties of the load's own bookkeeping, never shown (which loads stated a node).
INTERNAL = frozenset({"loads"})


def compact(nodes: list[dict], edges: list[dict]) -> tuple[list[dict], list[list]]:
    """The graph as the page reads it: nodes without the properties that repeat their own
    fields, property values as people read them (times in ISO 8601 UTC, durations with their
    unit: :func:`lineage.humanize.human`), edges as ``[source index, target index, type,
    count]`` (uids are long; a 10,000 node page is megabytes smaller).

    >>> compact([{"uid": "a", "properties": {"uid": "a", "x": 1, "start_time": 1331642943,
    ...                                      "loads": ["l:1"]}},
    ...          {"uid": "b"}], [{"source": "a", "type": "USED", "target": "b"}])
    ([{'uid': 'a', 'properties': {'x': 1, 'start_time': '2012-03-13T12:49:03.000Z'}}, {'uid': 'b'}], [[0, 1, 'USED', None]])
    """
    index = {n["uid"]: i for i, n in enumerate(nodes)}
    out = []
    for n in nodes:
        props = n.get("properties")
        if props:
            n = dict(n, properties={k: human(k, v) for k, v in props.items()
                                    if k not in INTERNAL and (k not in ("uid", "kind", "name")
                                                              or v != n.get(k))})
        out.append(n)
    return out, [[index[e["source"]], index[e["target"]], e["type"], e.get("count")]
                 for e in edges]


#: The root's properties the summary line shows: when it ran and for how long.
TIME_KEYS = ("start_time", "end_time", "duration", "wall_time", "run_time")


def _summary_properties(props: dict) -> list[tuple[str, str]]:
    """The root's properties worth a line in the summary (short scalars, common keys first)."""
    first = ("status", "start_time", "end_time", "duration", "user", "hostname", "exit_status",
             "exitcode", "label", "job_id", "exec_path", "cmdline", "argv")
    keys = [k for k in first if k in props] + sorted(k for k in props if k not in first)
    out = []
    for k in keys:
        v = props[k]
        if k in ("uid", "name") or k in INTERNAL or v is None or isinstance(v, (list, dict)):
            continue
        text = str(human(k, v))
        out.append((k, text if len(text) <= 160 else text[:160] + "..."))
    return out[:12]
