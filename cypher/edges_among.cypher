// name: edges_among
// purpose: The relationships between the nodes of a given set (to draw a subgraph, e.g. a node's lineage neighbourhood).
// param uids: list, required. The uids of the nodes. Example: ["pegasus:job:ea17e8ac-02ac-4909-b5e3-16e367392556:analyze_j4", "pegasus:job:ea17e8ac-02ac-4909-b5e3-16e367392556:findrange_j2"]
// returns: source, type, target
MATCH (a:Lineage)-[r]->(b:Lineage)
WHERE a.uid IN $uids AND b.uid IN $uids
RETURN a.uid AS source, type(r) AS type, b.uid AS target
ORDER BY source, type, target
