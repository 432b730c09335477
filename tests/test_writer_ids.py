"""Relationships whose ends the writer wrote are written by the ends' element ids
(lineage/writer.py NodeIds): the same graph and counts as by uid, and an id that no longer
names the node it was remembered for (a deleted node's id reused, a hash shared by two
uids) writes by uid instead of onto another node."""

from __future__ import annotations

from lineage import model
from lineage.load.fleet import load
from lineage.model.records import Edge, Node
from lineage.load.writer import Writer

from . import graphcheck
from .writer_spy import rows_sent
from .conftest import SAMPLES
from .corpus import needs_corpus


def _by_id_rows(monkeypatch) -> list[int]:
    """How many rows each transaction sends with their ends by id."""
    return rows_sent(monkeypatch, only=lambda key: key[2])


@needs_corpus
def test_ends_by_id_give_the_graph_and_counts_ends_by_uid_give(lin, monkeypatch):
    inputs = [SAMPLES / "pegasus", SAMPLES / "chimbuko", SAMPLES / "xalt"]
    by_uid = [r.as_dict() for r in load(Writer(lin.graph.driver, lin.graph.database,
                                               node_ids=0, batch_inputs=False), inputs)]
    expected = graphcheck.fingerprint(lin.graph.driver, lin.graph.database, with_loads=True)
    lin.reset()
    sent = _by_id_rows(monkeypatch)
    by_id = [r.as_dict() for r in load(Writer(lin.graph.driver, lin.graph.database,
                                              batch_inputs=False), inputs)]
    assert graphcheck.fingerprint(lin.graph.driver, lin.graph.database,
                                  with_loads=True) == expected
    keys = ("status", "node_records", "edge_records", "unresolved_edges")
    assert [{k: r[k] for k in keys} for r in by_id] == [{k: r[k] for k in keys} for r in by_uid]
    assert sum(sent) > 1000  # most rows went by id
    assert expected.rels > 1000


def test_the_ids_remembered_are_those_of_the_nodes_written(lin):
    execution = model.kind("FunctionExecution")
    nodes = [Node(execution, f"chimbuko:event:r:0:1:0:{i}", {"idx": i}) for i in range(300)]
    for fresh in (True, False):  # CREATE, then MERGE onto them
        w = Writer(lin.graph.driver, lin.graph.database, batch_size=70)
        w.write_nodes(nodes[::-1], tag="feed:1")
        stored = {r["uid"]: r["id"] for r in lin.graph.run(
            "MATCH (n:FunctionExecution) RETURN n.uid AS uid, elementId(n) AS id")}
        assert len(stored) == 300
        assert {n.uid: w.ids.get(n.uid) for n in nodes} == stored, fresh


def test_an_id_that_names_another_node_now_writes_by_uid(lin):
    """Node ``a`` is deleted and written again (a new id); the writer still remembers the old
    id, now perhaps another node's, and a third uid is remembered with ``b``'s id: both
    relationships go where their uids say, counted once each."""
    execution, part_of = model.kind("FunctionExecution"), model.REL_TYPES["PART_OF"]
    a, b, c = (f"chimbuko:event:r:0:1:0:{i}" for i in (1, 2, 3))
    w = Writer(lin.graph.driver, lin.graph.database)
    w.write_nodes([Node(execution, uid, {"idx": i}) for i, uid in enumerate((a, b, c))])
    old_a = w.ids.get(a)
    lin.graph.run("MATCH (n:Lineage {uid: $uid}) DETACH DELETE n", {"uid": a}, write=True)
    Writer(lin.graph.driver, lin.graph.database).write_nodes([Node(execution, a, {"idx": 9})])
    filler = Writer(lin.graph.driver, lin.graph.database)  # may take a's old id
    filler.write_nodes([Node(execution, f"chimbuko:event:r:0:1:0:{i}", {"idx": i})
                        for i in range(100, 140)])
    w.ids.remember([c], [w.ids.get(b)])  # c's hash now points at b's node
    assert w.ids.get(a) == old_a
    stats = w.write_edges([Edge(part_of, a, b), Edge(part_of, c, b)], tag="f00d:1")
    assert (stats.edge_rows, stats.edges_written, stats.unresolved_edges) == (2, 2, 0)
    rows = lin.graph.run("MATCH (x)-[:PART_OF]->(y) RETURN x.uid AS x, y.uid AS y ORDER BY x")
    assert [(r["x"], r["y"]) for r in rows] == [(a, b), (c, b)]


def test_a_writer_remembering_no_ids_writes_every_end_by_uid(lin, monkeypatch):
    execution, part_of = model.kind("FunctionExecution"), model.REL_TYPES["PART_OF"]
    w = Writer(lin.graph.driver, lin.graph.database, node_ids=0)
    w.write_nodes([Node(execution, "chimbuko:event:r:0:1:0:1", {}),
                   Node(execution, "chimbuko:event:r:0:1:0:2", {})])
    sent = _by_id_rows(monkeypatch)
    stats = w.write_edges([Edge(part_of, "chimbuko:event:r:0:1:0:1", "chimbuko:event:r:0:1:0:2")])
    assert sent == [0] and stats.edges_written == 1 and w.ids is None
