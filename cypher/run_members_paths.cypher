// name: run_members_paths
// purpose: A run of any kind as a graph for Neo4j Browser: its parts (PART_OF, at most max_depth hops below it, at most limit parts) and every edge among the run and those parts (structure, dependencies, data), each returned as a one-hop path.
// param run: string, required. The run's uid. Example: "pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556"
// param max_depth: integer, optional (default 2). Keep only parts at most this many PART_OF hops below the run (at most 6). Example: 2
// param limit: integer, optional (default 200). At most this many parts, nearest first. Example: 200
// returns: path
// note: the graph form of `run_members`; every part kept has its PART_OF edge to a nearer one, so the drawing is connected.
MATCH (run:Lineage {uid: $run})
MATCH p = (run)<-[:PART_OF*1..6]-(part:Lineage)
WITH part, min(length(p)) AS depth
WHERE depth <= $max_depth
WITH part ORDER BY depth, part.uid LIMIT $limit
WITH collect(part) AS found
MATCH (run:Lineage {uid: $run})
WITH found + run AS kept
UNWIND kept AS x
MATCH path = (x)-[]->(y:Lineage)
WHERE y IN kept
RETURN path
