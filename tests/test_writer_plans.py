"""The writer's statements plan without ``Eager`` (which would buffer every batch before
writing it), and a load into an empty graph (CREATE) equals one into a graph that is not
(MERGE) except for that other node."""

from __future__ import annotations

import pytest

from lineage import model
from lineage.load import node_ids, statements, writer
from lineage.model.records import Node

from . import graphcheck
from .conftest import SAMPLES
from .corpus import needs_corpus


def _operators(lin, statement: str, **params) -> list[str]:
    records, summary, _ = lin.graph.driver.execute_query("EXPLAIN " + statement, **params,
                                                         database_=lin.graph.database)
    found = []

    def walk(op):
        found.append(op["operatorType"].split("@")[0])
        for child in op.get("children", []):
            walk(child)
    walk(summary.plan)
    return found


WRITES = ([("nodes MERGE", statements.NODE_STATEMENT), ("nodes CREATE", statements.NODE_CREATE_STATEMENT)]
          + [(f"{rel} MERGE", statements.EDGE_STATEMENTS[rel]) for rel in model.REL_TYPES]
          + [(f"{rel} keyed MERGE", statements.KEYED_EDGE_STATEMENTS[rel]) for rel in model.REL_TYPES]
          + [(f"{rel}{' keyed' if keyed else ''} MERGE by id", statement)
             for (rel, keyed), statement in node_ids.ID_EDGE_STATEMENTS.items()])


@pytest.mark.parametrize("name,statement", WRITES, ids=[w[0] for w in WRITES])
def test_write_statements_have_no_eager_step(session_lineage, name, statement):
    ops = _operators(session_lineage, statement, rows=[], labels=["Job"], tag="a:2",
                     prefix="a:", loads=["a:2"])
    assert "Eager" not in ops, (name, ops)
    assert ops, name


@pytest.mark.parametrize("keyed", [False, True])
def test_ends_by_id_are_found_by_id_not_by_the_uid_index(session_lineage, keyed):
    """The relationship statements by id seek each end by its element id (a label on the
    ends would make the planner seek the uid index instead, checked below)."""
    statement = node_ids.ID_EDGE_STATEMENTS["PART_OF", keyed]
    ops = _operators(session_lineage, statement, rows=[], tag="a:2", prefix="a:")
    assert ops.count("NodeByElementIdSeek") == 2, ops
    assert not [op for op in ops if "Index" in op or "Scan" in op], ops
    labelled = statement.replace("MATCH (a) WHERE", "MATCH (a:Lineage) WHERE")
    ops = _operators(session_lineage, labelled, rows=[], tag="a:2", prefix="a:")
    assert any("Index" in op for op in ops), ops


def test_the_old_statement_had_one(session_lineage):
    """The check above can fail: ``SET n += row.props`` after a MERGE plans an Eager."""
    ops = _operators(session_lineage, "UNWIND $rows AS row MERGE (n:Lineage {uid: row.uid}) "
                     "SET n += row.props", rows=[])
    assert "Eager" in ops


@needs_corpus
def test_create_into_an_empty_graph_equals_merge(lin):
    """The same input loaded into an empty graph (nodes CREATEd) and into a graph holding an
    unrelated node (every node MERGEd) gives the same elements."""
    inputs = [SAMPLES / "pegasus" / "blackdiamond-4.0.bp", SAMPLES / "xalt"]
    lin.load(inputs)
    created = graphcheck.of(lin, with_loads=True)
    lin.reset(force=True)
    host = model.kind("Host")
    other = Node(host, host.uid("zz-unrelated-host"), {"name": "zz-unrelated-host"})
    writer.Writer(lin.graph.driver, lin.graph.database).write_nodes([other])
    lin.load(inputs)
    lin.graph.run("MATCH (n:Lineage {uid: $uid}) DETACH DELETE n", {"uid": other.uid},
                  write=True)
    assert graphcheck.of(lin, with_loads=True) == created
    assert created.nodes > 50
