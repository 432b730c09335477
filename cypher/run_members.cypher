// name: run_members
// purpose: The parts of a run of any kind (Pegasus workflow, Swift script run, Chimbuko program run, XALT execution): every node linked to it by PART_OF, directly or through a parent part, with its hop count. The generic member table of a run report.
// param run: string, required. The run's uid. Example: "pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556"
// param max_depth: integer, optional (default 3). Keep only parts at most this many PART_OF hops below the run (at most 6). Example: 2
// param limit: integer, optional (default 100000). At most this many parts, nearest first. Example: 1000
// returns: uid, kind, name, status, depth, properties
// note: PART_OF forms a tree below a run, so the expansion visits each part once; `min(length(p))` keeps the planner's pruning expand.
MATCH (run:Lineage {uid: $run})
MATCH p = (run)<-[:PART_OF*1..6]-(part:Lineage)
WITH part, min(length(p)) AS depth
WHERE depth <= $max_depth
RETURN part.uid AS uid,
       part.kind AS kind,
       coalesce(part.name, part.uid) AS name,
       part.status AS status,
       depth,
       properties(part) AS properties
ORDER BY depth, uid
LIMIT $limit
