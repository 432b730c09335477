// name: run_member_uids
// purpose: The uids of a run's parts (every node linked to it by PART_OF, directly or through a parent part), without their properties: what a subgraph or an export of the run takes in.
// param run: string, required. The run's uid. Example: "pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556"
// param max_depth: integer, optional (default 3). Keep only parts at most this many PART_OF hops below the run (at most 6). Example: 2
// returns: uid
// note: run_members gives the same parts with their properties; this one keeps a 100,000-part export's memory to its uids.
MATCH (run:Lineage {uid: $run})
MATCH p = (run)<-[:PART_OF*1..6]-(part:Lineage)
WITH part, min(length(p)) AS depth
WHERE depth <= $max_depth
RETURN part.uid AS uid
ORDER BY depth, uid
