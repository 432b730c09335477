"""Edge records stated more than once within a batch are sent as one row (lineage/writer.py
folds them): the graph and the load's counts are those of one row per record."""

from __future__ import annotations


from lineage import model
from lineage.load import writer as writer_module
from lineage.load.fleet import load
from lineage.model.records import Edge, Node
from lineage.load.writer import Writer

from . import graphcheck
from .writer_spy import rows_sent as _rows_sent
from .corpus import SAMPLES, needs_corpus




@needs_corpus
def test_folded_edge_rows_give_the_graph_and_counts_of_one_row_per_record(lin, monkeypatch):
    pegasus = SAMPLES / "pegasus"
    sent = _rows_sent(monkeypatch)
    w = Writer(lin.graph.driver, lin.graph.database, fold_edges=False, batch_inputs=False)
    unfolded = [r.as_dict() for r in load(w, [pegasus])]
    unfolded_rows = sum(sent)
    expected = graphcheck.fingerprint(lin.graph.driver, lin.graph.database, with_loads=True)
    lin.reset()
    sent.clear()
    folded = [r.as_dict() for r in load(Writer(lin.graph.driver, lin.graph.database,
                                                batch_inputs=False), [pegasus])]
    assert graphcheck.fingerprint(lin.graph.driver, lin.graph.database, with_loads=True) == expected
    assert sum(sent) < unfolded_rows  # the samples state job instances' edges repeatedly
    keys = ("status", "node_records", "edge_records", "edges", "unresolved_edges")
    assert [{k: r[k] for k in keys} for r in folded] == [{k: r[k] for k in keys} for r in unfolded]


def test_a_repeated_edge_with_a_missing_end_counts_once_per_record(lin, monkeypatch):
    part_of = model.REL_TYPES["PART_OF"]
    job, workflow = "pegasus:job:w:j", "pegasus:workflow:w"
    w = Writer(lin.graph.driver, lin.graph.database)
    w.write_nodes([Node(model.kind("Job"), job, {"name": "j"})])
    sent = _rows_sent(monkeypatch)
    stats = w.write_edges([Edge(part_of, job, workflow), Edge(part_of, job, workflow)])
    assert sent == [1]
    assert (stats.edge_rows, stats.edges_written, stats.unresolved_edges) == (2, 0, 2)
    assert stats.unresolved_examples == [f"PART_OF {job} -> {workflow}"]
    w.write_nodes([Node(model.kind("Workflow"), workflow, {"name": "w"})])
    stats = w.write_edges([Edge(part_of, job, workflow, {}), Edge(part_of, job, workflow)])
    assert (stats.edge_rows, stats.edges_written, stats.unresolved_edges) == (2, 2, 0)


def test_folded_rows_reloading_a_changed_input_give_the_unfolded_graph(lin, tmp_path):
    from .bigstream import write_stream

    path = tmp_path / "run.bp"
    graphs = {}
    for fold in (False, True):
        lin.reset()
        write_stream(path, "wf-fold", range(0, 60))
        load(Writer(lin.graph.driver, lin.graph.database, batch_size=25, fold_edges=fold), [path])
        write_stream(path, "wf-fold", range(20, 80))  # version 2 drops and adds jobs
        result = load(Writer(lin.graph.driver, lin.graph.database, batch_size=25,
                             fold_edges=fold), [path])[0]
        assert result.status == "loaded" and result.write.unresolved_edges == 0
        graphs[fold] = graphcheck.fingerprint(lin.graph.driver, lin.graph.database,
                                              with_loads=True)
    assert graphs[True] == graphs[False] and graphs[True].nodes > 0


def test_a_node_whose_labels_change_within_a_batch_is_one_row_of_all_its_labels(lin, monkeypatch):
    """A Chimbuko event stated as an anomaly, then as a comm window's stub without the label
    (real v0 records do this), then again: one row, one transaction for the batch (it used
    to be a transaction each time the labels changed), and the graph of the records written
    one at a time."""
    execution = model.kind("FunctionExecution")
    records = []
    for i in range(40):
        uid = f"chimbuko:event:r:0:1:0:{i}"
        records += [Node(execution, uid, {"name": f"f [{i}]", "idx": i, "is_anomaly": True},
                         ("Anomaly",)),
                    Node(execution, uid, {"idx": i, "thread": 0}),
                    Node(execution, uid, {"runtime_inclusive": i})]
    one_at_a_time = Writer(lin.graph.driver, lin.graph.database, batch_size=1)
    one_at_a_time.write_nodes(records[:1], tag="f00d:1")  # the graph is not empty: MERGE
    for record in records[1:]:
        one_at_a_time.write_nodes([record], tag="f00d:1")
    expected = graphcheck.fingerprint(lin.graph.driver, lin.graph.database, with_loads=True)
    for fresh in (True, False):  # CREATE into an empty graph, MERGE onto the nodes
        if fresh:
            lin.reset()
        sent = _rows_sent(monkeypatch, "_write_nodes")
        stats = Writer(lin.graph.driver, lin.graph.database).write_nodes(records, tag="f00d:1")
        assert sent == [40] and stats.node_rows == 120
        assert graphcheck.fingerprint(lin.graph.driver, lin.graph.database,
                                      with_loads=True) == expected
    anomalies = lin.graph.run("MATCH (n:Anomaly) RETURN count(n) AS n")[0]["n"]
    assert anomalies == 40


def test_relationships_go_in_larger_batches_than_nodes_unless_a_size_is_given(lin, monkeypatch):
    """By default a transaction carries BATCH_ROWS node rows and EDGE_BATCH_ROWS relationship
    rows (small rows: fewer commits); a writer given a batch size uses it for both."""
    execution, follows = model.kind("FunctionExecution"), model.REL_TYPES["FOLLOWED_BY"]
    count = writer_module.EDGE_BATCH_ROWS + 500
    nodes = [Node(execution, f"chimbuko:event:r:0:1:0:{i}", {"idx": i}) for i in range(count + 1)]
    edges = [Edge(follows, nodes[i].uid, nodes[i + 1].uid) for i in range(count)]
    node_rows = _rows_sent(monkeypatch, "_write_nodes")
    edge_rows = _rows_sent(monkeypatch)
    w = Writer(lin.graph.driver, lin.graph.database)
    w.write_nodes(nodes)
    assert w.write_edges(edges).edges_written == count
    assert max(node_rows) == writer_module.BATCH_ROWS
    assert edge_rows == [writer_module.EDGE_BATCH_ROWS, 500]
    node_rows.clear()
    edge_rows.clear()
    w = Writer(lin.graph.driver, lin.graph.database, batch_size=4000)
    w.write_nodes(nodes)
    assert w.write_edges(edges).edges_written == count
    assert max(node_rows) == 4000 and edge_rows == [4000, 4000, 2500]
