// name: structure_of
// purpose: The nodes one relationship away from a node, whatever the relationship (its run, attempts, task, host, executable, caller, callees, function, rank), nearest kinds first: the structural neighbours a single-node report draws beside its lineage.
// param uid: string, required. The node's uid. Example: "pegasus:job:f84f05fc-a8d0-42b5-bac5-52d6f41a77e3:ls_ID0000001"
// param limit: integer, optional (default 200). At most this many neighbours (a shared library or host can have thousands). Example: 50
// pick uid: MATCH (j:Job {status: 'failed'}) RETURN j.uid ORDER BY j.uid LIMIT 1
// returns: uid, type, direction
// note: direction is "out" for (node)-[type]->(neighbour), "in" for the other way; a neighbour linked twice is listed once per relationship type.
MATCH (n:Lineage {uid: $uid})-[r]-(m:Lineage)
WITH DISTINCT m, type(r) AS type, CASE WHEN startNode(r) = n THEN 'out' ELSE 'in' END AS direction
RETURN m.uid AS uid, type, direction
ORDER BY type, direction, uid
LIMIT $limit
