// name: descendants_paths
// purpose: The descendants of a node as a graph for Neo4j Browser: the nearest descendants (at most max_depth hops, at most limit nodes) and every lineage edge among them and the start node, each returned as a one-hop path.
// param uid: string, required. The uid of the start node. Example: "pegasus:job:ea17e8ac-02ac-4909-b5e3-16e367392556:preprocess_j1"
// param max_depth: integer, optional (default 4). Keep only descendants at most this many hops away. Example: 4
// param limit: integer, optional (default 200). At most this many descendants, nearest first. Example: 200
// pick uid: MATCH (n:Lineage)<-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER]-()<-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER]-() RETURN n.uid ORDER BY n.uid LIMIT 1
// returns: path
// note: the graph form of `descendants` (the same relations followed inward), bounded as `ancestors_paths` is.
MATCH (start:Lineage {uid: $uid})
MATCH p = (start)<-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..]-(descendant:Lineage)
WITH descendant, min(length(p)) AS depth
WHERE depth <= $max_depth
WITH descendant ORDER BY depth, descendant.uid LIMIT $limit
WITH collect(descendant) AS found
MATCH (start:Lineage {uid: $uid})
WITH found + start AS kept
UNWIND kept AS x
MATCH path = (x)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER]->(y:Lineage)
WHERE y IN kept
RETURN path
