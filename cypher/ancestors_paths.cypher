// name: ancestors_paths
// purpose: The ancestors of a node as a graph for Neo4j Browser: the nearest ancestors (at most max_depth hops, at most limit nodes) and every lineage edge among them and the start node, each returned as a one-hop path.
// param uid: string, required. The uid of the start node. Example: "pegasus:job:ea17e8ac-02ac-4909-b5e3-16e367392556:analyze_j4"
// param max_depth: integer, optional (default 4). Keep only ancestors at most this many hops away. Example: 4
// param limit: integer, optional (default 200). At most this many ancestors, nearest first. Example: 200
// pick uid: MATCH (n:Lineage)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER]->()-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER]->() RETURN n.uid ORDER BY n.uid LIMIT 1
// returns: path
// note: the graph form of `ancestors`: the same pruning breadth-first search (`min(length(p))`), then the edges among the
//       nodes kept, so Browser gets at most limit + 1 nodes and their edges, never one path per route (a DAG with heavy
//       fan-in has far more routes than nodes). Nearest first, so every ancestor kept has an edge to a nearer one.
MATCH (start:Lineage {uid: $uid})
MATCH p = (start)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..]->(ancestor:Lineage)
WITH ancestor, min(length(p)) AS depth
WHERE depth <= $max_depth
WITH ancestor ORDER BY depth, ancestor.uid LIMIT $limit
WITH collect(ancestor) AS found
MATCH (start:Lineage {uid: $uid})
WITH found + start AS kept
UNWIND kept AS x
MATCH path = (x)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER]->(y:Lineage)
WHERE y IN kept
RETURN path
