// name: ancestors
// purpose: Everything upstream of a node (what it was derived from, used, or informed by), on any source, with each ancestor's shortest distance.
// param uid: string, required. The uid of the start node. Example: "pegasus:job:ea17e8ac-02ac-4909-b5e3-16e367392556:analyze_j4"
// param max_depth: integer, optional (default null = no limit). Keep only ancestors at most this many hops away (up to 100, the search itself stops there). Example: 3
// returns: uid, kind, name, depth, status
// note: follows USED, WAS_GENERATED_BY, WAS_INFORMED_BY, WAS_DERIVED_FROM and HAD_MEMBER outward. The planner turns
//       `min(length(p))` over a variable-length pattern into a pruning breadth-first expand (PROFILE shows
//       VarLengthExpand(Pruning,BFS)), so the cost follows the nodes and edges reached, not the number of paths.
//       Cypher takes no parameter as a pattern's length, so each branch of the CALL has a literal one (`*1..k`) and a
//       guard on $max_depth: one branch runs, the one with the smallest bound at or above max_depth (the whole search
//       when it is null or over 100), and the filter after it drops what that bound reaches past max_depth. Each
//       branch hands over its rows as one list: a row leaving the 16 branches one by one crosses a Union operator per
//       branch after its own (1.5 ms more per 1,000 rows from the first branch).
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
WHERE $max_depth IS NULL OR depth <= $max_depth
RETURN ancestor.uid AS uid,
       ancestor.kind AS kind,
       coalesce(ancestor.name, ancestor.uid) AS name,
       depth,
       ancestor.status AS status
ORDER BY depth, uid
