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
//       The branches bound the search at max_depth (up to 100), as in `ancestors`.
MATCH (start:Lineage {uid: $uid})
CALL (start) {
  WITH start WHERE $max_depth IS NULL OR $max_depth > 100
  MATCH p = (start)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 0 < $max_depth <= 1
  MATCH p = (start)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..1]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 1 < $max_depth <= 2
  MATCH p = (start)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..2]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 2 < $max_depth <= 3
  MATCH p = (start)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..3]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 3 < $max_depth <= 4
  MATCH p = (start)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..4]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 4 < $max_depth <= 5
  MATCH p = (start)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..5]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 5 < $max_depth <= 6
  MATCH p = (start)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..6]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 6 < $max_depth <= 8
  MATCH p = (start)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..8]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 8 < $max_depth <= 10
  MATCH p = (start)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..10]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 10 < $max_depth <= 12
  MATCH p = (start)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..12]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 12 < $max_depth <= 16
  MATCH p = (start)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..16]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 16 < $max_depth <= 24
  MATCH p = (start)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..24]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 24 < $max_depth <= 32
  MATCH p = (start)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..32]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 32 < $max_depth <= 48
  MATCH p = (start)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..48]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 48 < $max_depth <= 64
  MATCH p = (start)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..64]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 64 < $max_depth <= 100
  MATCH p = (start)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..100]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
}
UNWIND found AS pair
WITH pair[0] AS ancestor, pair[1] AS depth
WHERE depth <= $max_depth
WITH ancestor ORDER BY depth, ancestor.uid LIMIT $limit
WITH collect(ancestor) AS found
MATCH (start:Lineage {uid: $uid})
WITH found + start AS kept
UNWIND kept AS x
MATCH path = (x)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER]->(y:Lineage)
WHERE y IN kept
RETURN path
