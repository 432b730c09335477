// name: descendants_paths
// purpose: The descendants of a node as a graph for Neo4j Browser: the nearest descendants (at most max_depth hops, at most limit nodes) and every lineage edge among them and the start node, each returned as a one-hop path.
// param uid: string, required. The uid of the start node. Example: "pegasus:job:ea17e8ac-02ac-4909-b5e3-16e367392556:preprocess_j1"
// param max_depth: integer, optional (default 4). Keep only descendants at most this many hops away. Example: 4
// param limit: integer, optional (default 200). At most this many descendants, nearest first. Example: 200
// pick uid: MATCH (n:Lineage)<-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER]-()<-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER]-() RETURN n.uid ORDER BY n.uid LIMIT 1
// returns: path
// note: the graph form of `descendants` (the same relations followed inward), bounded as `ancestors_paths` is.
MATCH (start:Lineage {uid: $uid})
CALL (start) {
  WITH start WHERE $max_depth IS NULL OR $max_depth > 100
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 0 < $max_depth <= 1
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..1]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 1 < $max_depth <= 2
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..2]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 2 < $max_depth <= 3
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..3]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 3 < $max_depth <= 4
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..4]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 4 < $max_depth <= 5
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..5]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 5 < $max_depth <= 6
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..6]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 6 < $max_depth <= 8
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..8]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 8 < $max_depth <= 10
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..10]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 10 < $max_depth <= 12
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..12]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 12 < $max_depth <= 16
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..16]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 16 < $max_depth <= 24
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..24]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 24 < $max_depth <= 32
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..32]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 32 < $max_depth <= 48
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..48]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 48 < $max_depth <= 64
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..64]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 64 < $max_depth <= 100
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..100]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
}
UNWIND found AS pair
WITH pair[0] AS descendant, pair[1] AS depth
WHERE depth <= $max_depth
WITH descendant ORDER BY depth, descendant.uid LIMIT $limit
WITH collect(descendant) AS found
MATCH (start:Lineage {uid: $uid})
WITH found + start AS kept
UNWIND kept AS x
MATCH path = (x)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER]->(y:Lineage)
WHERE y IN kept
RETURN path
