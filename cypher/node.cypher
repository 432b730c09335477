// name: node
// purpose: One node with all its properties, its labels and how many relationships of each type it has.
// param uid: string, required. The node's uid. Example: "pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556"
// returns: uid, labels, properties, degree
MATCH (n:Lineage {uid: $uid})
OPTIONAL MATCH (n)-[r]-()
WITH n, type(r) AS type, count(r) AS count
RETURN n.uid AS uid, labels(n) AS labels, properties(n) AS properties,
       collect(CASE WHEN type IS NULL THEN NULL ELSE {type: type, count: count} END) AS degree
