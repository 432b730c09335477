"""A Swift script run's report draws its data flow: the calls, the datasets they USED and that
WAS_GENERATED_BY them, and those datasets' containment (HAD_MEMBER), left to right."""

from collections import Counter

import pytest

from lineage import model
from lineage.model.records import Edge, Node
from lineage.report.build import report_data

from .browser import chromium, external_requests, screenshot
from .conftest import SAMPLES
from .report_graphs import _writer
from .test_report_browser import _open
from .corpus import needs_corpus

FMRI = "swift:run:130-fmri-20090316-1729-mxxea3a1"

#: What the graph says a run's data flow is, counted straight from the stored edges.
FLOW_CYPHER = """
MATCH (:ScriptRun {uid: $run})<-[:PART_OF]-(c:FunctionCall)
CALL (c) {
  MATCH (c)-[:USED]->(d:Dataset) RETURN d
  UNION
  MATCH (d:Dataset)-[:WAS_GENERATED_BY]->(c) RETURN d
}
RETURN collect(DISTINCT d.uid) AS datasets, collect(DISTINCT c.uid) AS calls
"""
USED_CYPHER = """
MATCH (:ScriptRun {uid: $run})<-[:PART_OF]-(c:FunctionCall)-[u:USED]->(:Dataset)
RETURN count(u) AS n
"""
GENERATED_CYPHER = """
MATCH (:ScriptRun {uid: $run})<-[:PART_OF]-(c:FunctionCall)<-[g:WAS_GENERATED_BY]-(:Dataset)
RETURN count(g) AS n
"""
MEMBER_CYPHER = """
MATCH (a:Dataset)-[h:HAD_MEMBER]->(b:Dataset) WHERE a.uid IN $uids AND b.uid IN $uids
RETURN count(h) AS n
"""


@pytest.fixture
def swift_graph(session_lineage):
    """The graph of the ten Swift sample logs (loaded again when a test emptied it)."""
    if not session_lineage.query("nodes", uids=[FMRI]) or \
            len(session_lineage.query("runs")) != 10:
        session_lineage.reset(force=True)
        session_lineage.load(sorted((SAMPLES / "swift").glob("*.log")))
    return session_lineage


def _count(lin, cypher, **params):
    return lin.query(cypher, **params)[0]["n"]


@needs_corpus
def test_every_sample_run_draws_its_calls_and_datasets(swift_graph):
    lin = swift_graph
    runs = [r["uid"] for r in lin.query("runs", kind="ScriptRun")]
    assert len(runs) == 10
    with_data = 0
    for run in runs:
        data = report_data(lin, run, max_nodes=10000)
        [flow] = lin.query(FLOW_CYPHER, run=run)
        drawn = {n["uid"] for n in data["nodes"]}
        datasets = {n["uid"] for n in data["nodes"] if n["kind"] == "Dataset"}
        assert datasets == set(flow["datasets"]), run
        assert set(flow["calls"]) <= drawn
        types = Counter(e["type"] for e in data["edges"])
        assert types["USED"] == _count(lin, USED_CYPHER, run=run), run
        assert types["WAS_GENERATED_BY"] == _count(lin, GENERATED_CYPHER, run=run), run
        assert types["HAD_MEMBER"] == _count(lin, MEMBER_CYPHER, uids=list(datasets)), run
        with_data += bool(datasets)
        assert "data flow" in data["scope"]
    assert with_data == 9  # 0026-function-param's one call reads and writes no dataset


@needs_corpus
def test_fmri_reads_left_to_right(swift_graph):
    """Inputs left of the call that used them, outputs right of the call that made them."""
    data = report_data(swift_graph, FMRI, max_nodes=10000)
    assert data["layout"] == "layered" and data["collapsed"] is None
    x = {n["uid"]: n["x"] for n in data["nodes"]}
    kinds = Counter(n["kind"] for n in data["nodes"])
    assert kinds["Dataset"] == 48 and kinds["FunctionCall"] == 28
    flow = [e for e in data["edges"] if e["type"] in ("USED", "WAS_GENERATED_BY")]
    assert len(flow) == 85
    for e in flow:  # PROV edges point from effect to cause: drawn reversed
        assert x[e["target"]] < x[e["source"]], e
    labels = {n.get("label") for n in data["nodes"] if n["kind"] == "Dataset"}
    assert {"130-fmri.0000.jpeg", "z"} <= labels  # a file by its name, a value by its value


@needs_corpus
def test_datasets_table_says_who_made_and_used_each(swift_graph):
    lin = swift_graph
    data = report_data(lin, FMRI)
    [table] = [t for t in data["tables"] if t["title"].startswith("Datasets of the run")]
    [flow] = lin.query(FLOW_CYPHER, run=FMRI)
    assert table["total"] == len(flow["datasets"]) == 48
    roles = Counter(r["role"] for r in table["rows"])
    assert roles == {"input": 26, "intermediate": 17, "output": 5}
    made = {r["dataset"]: r for r in table["rows"]}
    jpeg = made["130-fmri.0000.jpeg"]
    producers = lin.query("""MATCH (d:Dataset {uid: $d})-[g:WAS_GENERATED_BY]->(c)
                             RETURN c.name + ' (' + g.parameter + ')' AS p""", d=jpeg["uid"])
    assert jpeg["produced_by"] == ", ".join(r["p"] for r in producers) != ""
    for r in table["rows"]:  # a dataset used by no call of the run is an output, and so on
        assert (r["role"] == "input") == (r["produced_by"] == "")
        assert (r["role"] == "output") == (r["used_by"] == "")


def _write_run(lin, run, calls, failed=(), members=0):
    """A script run whose call i used dataset i and produced dataset i+1 (a chain); with
    ``members``, the last output is a collection of that many datasets no call touches."""
    nodes = [Node(model.kind("ScriptRun"), run, {"name": "synthetic.swift"})]
    edges = []
    for i in range(calls + 1):
        nodes.append(Node(model.kind("Dataset"), f"{run}:d{i}",
                          {"name": f"d{i}", "filename": f"file://localhost/out/d{i}.txt",
                           "dataset_type": "mapped"}))
    for i in range(calls):
        uid = f"{run}:c{i}"
        nodes.append(Node(model.kind("FunctionCall"), uid, {
            "name": f"step{i % 3}", "start_time": float(i),
            "status": "failed" if i in failed else "succeeded"}))
        edges += [Edge(model.PART_OF, uid, run),
                  Edge(model.USED, uid, f"{run}:d{i}", {"parameter": "i"}, key="i"),
                  Edge(model.WAS_GENERATED_BY, f"{run}:d{i + 1}", uid, {"parameter": "o"},
                       key="o")]
    for m in range(members):
        nodes.append(Node(model.kind("Dataset"), f"{run}:m{m}",
                          {"name": f"m{m}", "value": f"v{m}", "dataset_type": "primitive"}))
        edges.append(Edge(model.HAD_MEMBER, f"{run}:d{calls}", f"{run}:m{m}"))
    w = _writer(lin)
    w.write_nodes(nodes)
    w.write_edges(edges)


def test_members_of_a_collection_are_drawn_and_listed(lin):
    run = "swift:run:synthetic-members"
    _write_run(lin, run, calls=2, members=3)
    data = report_data(lin, run)
    members = {f"{run}:m{m}" for m in range(3)}
    assert members <= {n["uid"] for n in data["nodes"]}
    assert sum(e["type"] == "HAD_MEMBER" for e in data["edges"]) == 3
    [table] = [t for t in data["tables"] if t["title"].startswith("Datasets of the run")]
    assert {r["uid"] for r in table["rows"] if r["role"] == "member"} == members
    [collection] = [r for r in table["rows"] if r["uid"] == f"{run}:d2"]
    assert collection["members"] == 3 and collection["role"] == "output"


def test_a_big_flow_is_collapsed_and_failed_calls_stay(lin):
    run = "swift:run:synthetic-big"
    failed = {17, 301}
    _write_run(lin, run, calls=400, failed=failed)
    data = report_data(lin, run, max_nodes=50)
    note = data["collapsed"]
    assert note["total_nodes"] == 1 + 400 + 401
    assert len(data["nodes"]) <= 50 + len(failed)
    singles = {n["uid"] for n in data["nodes"] if not n.get("group")}
    assert {f"{run}:c{i}" for i in failed} <= singles
    grouped = sum(n["count"] for n in data["nodes"] if n.get("group"))
    assert grouped + len(singles) == note["total_nodes"]


@needs_corpus
def test_the_page_draws_the_flow(swift_graph, tmp_path):
    lin = swift_graph
    out = tmp_path / "fmri.html"
    lin.report(FMRI, out)
    used = _count(lin, USED_CYPHER, run=FMRI)
    generated = _count(lin, GENERATED_CYPHER, run=FMRI)
    [flow] = lin.query(FLOW_CYPHER, run=FMRI)
    with chromium() as context:
        page, errors, dialogs = _open(context, out)
        report = "window.lineageReport"
        n = page.evaluate(f"{report}.data.nodes.length")
        assert page.evaluate(f"{report}.view.drawnNodes()") == n
        kinds = page.evaluate(f"{report}.data.nodes.map(n => n.kind)")
        assert kinds.count("Dataset") == len(flow["datasets"])
        types = Counter(page.evaluate(f"{report}.data.edges.map(e => e.type)"))
        assert types["USED"] == used and types["WAS_GENERATED_BY"] == generated
        # vis-network holds every edge, data-flow arrows: a USED edge points at the call
        assert page.evaluate(f"{report}.edges.length") == sum(types.values())
        edge = page.evaluate(f"{report}.data.edges.find(e => e.type === 'USED')")
        assert page.evaluate(f"{report}.view.arrowsTo(%s)" % _js(edge)) == edge["source"]
        assert "data flow: its calls" in page.inner_text("#summary")
        assert "Datasets of the run" in page.inner_text("#side")
        shot = screenshot(page, "report-swift-flow.png")
        # a click on the average call: its input datasets on the left, its output on the right
        [average] = [c for c in flow["calls"] if c.endswith(":0-5")]
        page.evaluate(f"{report}.focus(%s)" % _js(average))
        assert "average" in page.inner_text("#details")
        screenshot(page, "report-swift-flow-focused.png")
        assert errors == [] and dialogs == [] and external_requests(context) == []
    assert shot.stat().st_size > 10000


def _js(value) -> str:
    import json

    return json.dumps(value)
