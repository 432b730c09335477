"""``reset`` empties a graph whose nodes are hubs (a Chimbuko rank or an XALT host links to
every execution): deleting a node with its relationships in one batch put all of a hub's
relationships into one transaction, past the managed server's transaction memory."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.neo4j

HUBS, LEAVES = 4, 75_000  # 4 hubs, each linked to all 75,000 leaves: 300,000 edges


def test_reset_empties_a_graph_of_hubs(lin):
    with lin.graph.driver.session(database=lin.graph.database) as session:
        session.run("UNWIND range(1, $n) AS i CREATE (:Lineage {uid: 'hub:' + i})",
                    n=HUBS).consume()
        session.run("UNWIND range(1, $n) AS i CALL (i) { CREATE (:Lineage {uid: 'leaf:' + i}) } "
                    "IN TRANSACTIONS OF 20000 ROWS", n=LEAVES).consume()
        session.run("MATCH (h:Lineage) WHERE h.uid STARTS WITH 'hub:' "
                    "MATCH (l:Lineage) WHERE l.uid STARTS WITH 'leaf:' "
                    "CALL (h, l) { CREATE (h)-[:PART_OF]->(l) } IN TRANSACTIONS OF 50000 ROWS"
                    ).consume()
        edges = session.run("MATCH ()-[r]->() RETURN count(r) AS n").single()["n"]
    assert edges == HUBS * LEAVES
    assert lin.reset(force=True) == HUBS + LEAVES
    assert lin.graph.run("MATCH (n) RETURN count(n) AS n")[0]["n"] == 0
