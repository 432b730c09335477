"""Render report data into one self-contained HTML file.

Jinja2 with autoescaping writes every provenance string as text; the graph data travels
as JSON inside ``<script type="application/json">`` (``tojson`` escapes ``<``, ``>``, ``&``
and quotes), and the page's script builds tooltips with ``textContent``. vis-network is
read from the pyvis package and inlined, so the file makes no network request.

>>> "<script>" in render(title="<script>", root={}, nodes=[], edges=[], tables=[])
False
"""

from __future__ import annotations

import time
from functools import lru_cache
from importlib import resources

from jinja2 import Environment, PackageLoader, select_autoescape

STATUS_COLOURS = {
    "succeeded": "#2ca02c",
    "failed": "#d62728",
    "held": "#ff7f0e",
    "running": "#1f77b4",
    "unsubmitted": "#c7c7c7",
}
KIND_COLOURS = {
    "Workflow": "#9467bd", "Job": "#1f77b4", "JobInstance": "#aec7e8", "Task": "#17becf",
    "Invocation": "#7f7f7f", "File": "#bcbd22", "Host": "#8c564b", "User": "#e377c2",
    "ScriptRun": "#9467bd", "FunctionCall": "#1f77b4", "AppExecution": "#aec7e8",
    "Dataset": "#bcbd22", "Script": "#dbdb8d", "ProgramRun": "#9467bd", "Rank": "#8c564b",
    "Function": "#17becf", "FunctionExecution": "#1f77b4", "Execution": "#9467bd",
    "Executable": "#ff7f0e", "Library": "#bcbd22", "ObjectFile": "#dbdb8d",
    "Package": "#98df8a", "Build": "#c5b0d5",
}


@lru_cache(maxsize=1)
def vis_network_js() -> str:
    """vis-network's standalone build, as shipped inside the pyvis package."""
    root = resources.files("pyvis") / "lib"
    versions = sorted(p.name for p in root.iterdir() if p.name.startswith("vis-"))
    return (root / versions[-1] / "vis-network.min.js").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _env() -> Environment:
    return Environment(
        loader=PackageLoader("lineage.report", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
    )


def render(title: str, root: dict, nodes: list[dict], edges: list[dict], tables: list[dict],
           collapsed: int = 0, hierarchical: bool = True) -> str:
    """The report page as a string."""
    return _env().get_template("report.html.j2").render(
        title=title,
        root=root,
        graph={"nodes": nodes, "edges": edges, "hierarchical": hierarchical,
               "status_colours": STATUS_COLOURS, "kind_colours": KIND_COLOURS,
               "root": root.get("uid")},
        tables=tables,
        collapsed=collapsed,
        generated=time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        vis_js=vis_network_js(),
        status_colours=STATUS_COLOURS,
        kinds=sorted({n.get("kind") or "?" for n in nodes}),
        kind_colours=KIND_COLOURS,
    )
