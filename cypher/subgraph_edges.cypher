// name: subgraph_edges
// purpose: The relationships among a set of nodes with their properties (what an export writes).
// param uids: list, required. The uids of the nodes. Example: ["pegasus:job:ea17e8ac-02ac-4909-b5e3-16e367392556:analyze_j4", "pegasus:job:ea17e8ac-02ac-4909-b5e3-16e367392556:findrange_j2"]
// returns: source, type, target, properties
MATCH (a:Lineage)-[r]->(b:Lineage)
WHERE a.uid IN $uids AND b.uid IN $uids
RETURN a.uid AS source, type(r) AS type, b.uid AS target, properties(r) AS properties
ORDER BY source, type, target, r.key
