"""Query results and subgraphs as networkx graphs with typed edges, on real samples."""

import networkx as nx
import pytest

from lineage.api import Rows

from .conftest import SAMPLES
from .corpus import needs_corpus

BD = SAMPLES / "pegasus" / "blackdiamond-4.0.bp"
BD_WF = "pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556"
ANALYZE = "pegasus:job:ea17e8ac-02ac-4909-b5e3-16e367392556:analyze_j4"
PREPROCESS = "pegasus:job:ea17e8ac-02ac-4909-b5e3-16e367392556:preprocess_j1"
LINEAGE_TYPES = {"USED", "WAS_GENERATED_BY", "WAS_INFORMED_BY", "WAS_DERIVED_FROM", "HAD_MEMBER"}


def lineage_view(graph):
    """The graph with only the relations ancestry follows."""
    return nx.subgraph_view(graph, filter_edge=lambda a, b, k: graph[a][b][k]["type"]
                            in LINEAGE_TYPES)


def count_edges(lin, uids):
    return lin.query("MATCH (a:Lineage)-[r]->(b:Lineage) WHERE a.uid IN $uids AND b.uid IN "
                     "$uids RETURN type(r) AS type, count(*) AS n", uids=uids)


@needs_corpus
@pytest.mark.parametrize("name", ["ancestors", "descendants"])
def test_ancestry_rows_become_the_start_node_its_lineage_and_typed_edges(lin, name):
    lin.load([BD])
    start = ANALYZE if name == "ancestors" else PREPROCESS
    rows = lin.query(name, uid=start)
    assert len(rows) > 1
    graph = rows.to_networkx()
    uids = {r["uid"] for r in rows}
    assert set(graph) == uids | {start} and graph.number_of_nodes() == len(rows) + 1
    by_type = {r["type"]: r["n"] for r in count_edges(lin, list(uids | {start}))}
    assert graph.number_of_edges() == sum(by_type.values()) > 0
    for t, n in by_type.items():
        assert sum(1 for *_, d in graph.edges(data="type") if d == t) == n
    # the graph answers the same question: what is reachable along the lineage relations,
    # at the depth the template computed
    view = lineage_view(graph) if name == "ancestors" else lineage_view(graph).reverse()
    assert nx.descendants(view, start) == uids
    lengths = nx.single_source_shortest_path_length(view, start)
    assert all(graph.nodes[r["uid"]]["depth"] == lengths[r["uid"]] for r in rows)
    assert graph.nodes[start]["depth"] == 0
    # nodes carry labels and properties, rows' columns on top
    job = graph.nodes[start]
    assert job["kind"] == "Job" and "Job" in job["labels"] and job["uid"] == start
    stored = lin.query("node", uid=start)[0]["properties"]
    assert {k: job[k] for k in stored} == stored


@needs_corpus
def test_edge_rows_become_a_multigraph_keyed_by_type(lin):
    lin.load([BD])
    uids = [r["uid"] for r in lin.query("run_member_uids", run=BD_WF, max_depth=2)]
    edges = lin.query("edges_among", uids=uids)
    graph = edges.to_networkx()
    assert isinstance(graph, nx.MultiDiGraph)
    assert sorted((a, t, b) for a, b, t in graph.edges(data="type")) == sorted(
        (e["source"], e["type"], e["target"]) for e in edges)
    some = edges[0]["source"]
    assert graph.nodes[some]["kind"] == lin.query("node", uid=some)[0]["properties"]["kind"]


def test_two_types_between_one_pair_stay_two_edges():
    rows = Rows([{"source": "a", "type": "USED", "target": "b", "properties": {"key": "x"}},
                 {"source": "a", "type": "USED", "target": "b", "properties": {"key": "y"}},
                 {"source": "a", "type": "WAS_INFORMED_BY", "target": "b", "properties": {}}])
    graph = rows.to_networkx()
    assert graph.number_of_edges("a", "b") == 3
    assert set(graph["a"]["b"]) == {"USED:x", "USED:y", "WAS_INFORMED_BY"}
    assert graph["a"]["b"]["USED:y"]["key"] == "y"


@needs_corpus
def test_subgraph_is_a_typed_networkx_graph_and_rows_remain(lin):
    lin.load([BD])
    graph = lin.subgraph(BD_WF, depth=3)
    nodes, edges = lin.subgraph_rows(BD_WF, depth=3)
    assert isinstance(graph, nx.MultiDiGraph) and graph.graph["start"] == BD_WF
    assert set(graph) == {n["uid"] for n in nodes}
    assert sorted((a, t, b) for a, b, t in graph.edges(data="type")) == sorted(
        (e["source"], e["type"], e["target"]) for e in edges)
    assert "Run" in graph.nodes[BD_WF]["labels"] and graph.nodes[BD_WF]["kind"] == "Workflow"
    for n in nodes[:20]:
        assert {k: graph.nodes[n["uid"]][k] for k in n["properties"]} == n["properties"]
    # a job's subgraph: its ancestry and descendants up to depth
    job = lin.subgraph(ANALYZE, depth=1)
    near = {r["uid"] for r in lin.query("ancestors", uid=ANALYZE, max_depth=1)} | {
        r["uid"] for r in lin.query("descendants", uid=ANALYZE, max_depth=1)}
    assert set(job) == near | {ANALYZE}


def test_hand_made_rows_keep_the_plain_graph():
    graph = Rows([{"uid": "a", "depth": 1}]).to_networkx()
    assert type(graph) is nx.DiGraph and dict(graph.nodes["a"]) == {"depth": 1}
