// name: structure_of
// purpose: The nodes one relationship away from a node, whatever the relationship (its run, attempts, task, host, user, executable, libraries, caller, callees, function, rank): the structural neighbours a report draws beside a node's lineage or a run's parts.
// param uid: string, required. The node's uid. Example: "pegasus:job:f84f05fc-a8d0-42b5-bac5-52d6f41a77e3:ls_ID0000001"
// param limit: integer, optional (default 200). At most this many neighbours per relationship type and direction (a shared library or host can have thousands of runs; a workflow thousands of jobs). Example: 50
// pick uid: MATCH (j:Job:Failed) RETURN j.uid ORDER BY j.uid LIMIT 1
// returns: uid, type, direction
// note: direction is "out" for (node)-[type]->(neighbour), "in" for the other way; a neighbour linked by two types is listed once per type.
MATCH (n:Lineage {uid: $uid})-[r]-(m:Lineage)
WITH type(r) AS type, CASE WHEN startNode(r) = n THEN 'out' ELSE 'in' END AS direction, m.uid AS uid
ORDER BY uid
WITH type, direction, collect(DISTINCT uid)[..$limit] AS uids
UNWIND uids AS uid
RETURN uid, type, direction
ORDER BY type, direction, uid
