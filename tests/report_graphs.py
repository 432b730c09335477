"""Graphs written through the real writer for the report tests (synthetic runs and hostile
strings), with the facts the tests check derived from how they are built."""

from __future__ import annotations

from lineage import model
from lineage.model.records import Edge, Node
from lineage.load.writer import Writer, ensure_schema

HOSTILE = [
    "<script>alert(1)</script>",
    "</script><script>window.__pwned=1</script>",
    "<img src=x onerror=\"window.__pwned=1\">",
    "quote \" and ' and `back` & ampersand",
    "line one\nline two\r\n<b>three</b>",
    "{{ 7*7 }} ${7*7} \u202e\u00e9\u4e2d",
]
HOSTILE_RUN = "test:workflow:hostile"


def _writer(lin) -> Writer:
    ensure_schema(lin.graph.driver, lin.graph.database)
    return Writer(lin.graph.driver, lin.graph.database)


def write_hostile_run(lin) -> list[str]:
    """A workflow whose jobs carry hostile names, command lines and a hostile status; returns
    the job uids (job i informed by job i-1)."""
    nodes = [Node(model.kind("Workflow"), HOSTILE_RUN, {"name": HOSTILE[0], "argv": HOSTILE[1],
                                               "status": "failed"})]
    edges = []
    uids = []
    for i, text in enumerate(HOSTILE):
        uid = f"test:job:hostile:{i}"
        uids.append(uid)
        nodes.append(Node(model.kind("Job"), uid, {"name": text, "job_id": text, "argv": text,
                                            "cmdline": f"/bin/sh -c '{text}'",
                                            "status": "failed" if i % 2 else "<i>odd</i>"}))
        edges.append(Edge(model.PART_OF, uid, HOSTILE_RUN))
        if i:
            edges.append(Edge(model.WAS_INFORMED_BY, uid, uids[i - 1]))
    w = _writer(lin)
    w.write_nodes(nodes)
    w.write_edges(edges)
    return uids


def write_layered_run(lin, layers: int, width: int, types: int = 5,
                      run: str = "test:workflow:big") -> dict:
    """A workflow of ``layers`` x ``width`` jobs; each job is informed by two jobs of the
    previous layer; job (l, i) has transformation ``t{i % types}`` and fails when
    ``(l * width + i) % 97 == 0``. Returns the counts the tests check."""
    nodes = [Node(model.kind("Workflow"), run, {"name": "big", "status": "failed"})]
    edges = []
    for layer in range(layers):
        for i in range(width):
            uid = f"{run}:job:{layer}:{i}"
            failed = (layer * width + i) % 97 == 0
            nodes.append(Node(model.kind("Job"), uid, {
                "name": f"t{i % types}_{layer}_{i}", "job_id": f"t{i % types}_{layer}_{i}",
                "type_desc": f"t{i % types}", "status": "failed" if failed else "succeeded"}))
            edges.append(Edge(model.PART_OF, uid, run))
            if layer:
                for j in (i, (i + 1) % width):
                    edges.append(Edge(model.WAS_INFORMED_BY, uid, f"{run}:job:{layer - 1}:{j}"))
    w = _writer(lin)
    w.write_nodes(nodes)
    w.write_edges(edges)
    return {"jobs": layers * width, "types": min(types, width), "run": run}
