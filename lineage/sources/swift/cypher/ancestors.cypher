// name: swift/ancestors
// purpose: SPQL ancestors(): every dataset and function call upstream of a Swift dataset or function call, following what calls used and what produced datasets (dataset_in / dataset_out, constructors included), with each ancestor's shortest distance.
// param uid: string, required. The uid of the start node (a Swift dataset or function call). Example: "swift:dataset:tag:benc@ci.uchicago.edu,2008:swift:dataset:20090316-1729-x8j87htb:720000000020"
// param max_depth: integer, optional (default null = no limit). Keep only ancestors at most this many hops away (up to 100, the search itself stops there). Example: 4
// pick uid: MATCH (d:Dataset)-[:WAS_GENERATED_BY]->(:FunctionCall) RETURN d.uid ORDER BY d.uid LIMIT 1
// returns: uid, id, kind, name, depth
// note: `min(length(p))` over a variable-length pattern lets the planner prune (VarLengthExpand(Pruning,BFS)): cost
//       follows nodes and edges, not paths. The branches bound the search at max_depth, as in `ancestors`.
MATCH (start:Lineage {uid: $uid})
CALL (start) {
  WITH start WHERE $max_depth IS NULL OR $max_depth > 100
  MATCH p = (start)-[:USED|WAS_GENERATED_BY*1..]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 0 < $max_depth <= 1
  MATCH p = (start)-[:USED|WAS_GENERATED_BY*1..1]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 1 < $max_depth <= 2
  MATCH p = (start)-[:USED|WAS_GENERATED_BY*1..2]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 2 < $max_depth <= 3
  MATCH p = (start)-[:USED|WAS_GENERATED_BY*1..3]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 3 < $max_depth <= 4
  MATCH p = (start)-[:USED|WAS_GENERATED_BY*1..4]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 4 < $max_depth <= 5
  MATCH p = (start)-[:USED|WAS_GENERATED_BY*1..5]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 5 < $max_depth <= 6
  MATCH p = (start)-[:USED|WAS_GENERATED_BY*1..6]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 6 < $max_depth <= 8
  MATCH p = (start)-[:USED|WAS_GENERATED_BY*1..8]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 8 < $max_depth <= 10
  MATCH p = (start)-[:USED|WAS_GENERATED_BY*1..10]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 10 < $max_depth <= 12
  MATCH p = (start)-[:USED|WAS_GENERATED_BY*1..12]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 12 < $max_depth <= 16
  MATCH p = (start)-[:USED|WAS_GENERATED_BY*1..16]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 16 < $max_depth <= 24
  MATCH p = (start)-[:USED|WAS_GENERATED_BY*1..24]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 24 < $max_depth <= 32
  MATCH p = (start)-[:USED|WAS_GENERATED_BY*1..32]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 32 < $max_depth <= 48
  MATCH p = (start)-[:USED|WAS_GENERATED_BY*1..48]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 48 < $max_depth <= 64
  MATCH p = (start)-[:USED|WAS_GENERATED_BY*1..64]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
  UNION ALL
  WITH start WHERE 64 < $max_depth <= 100
  MATCH p = (start)-[:USED|WAS_GENERATED_BY*1..100]->(ancestor:Lineage)
  WITH ancestor, min(length(p)) AS depth
  RETURN collect([ancestor, depth]) AS found
}
UNWIND found AS pair
WITH pair[0] AS ancestor, pair[1] AS depth
WHERE $max_depth IS NULL OR depth <= $max_depth
RETURN ancestor.uid AS uid,
       coalesce(ancestor.call_id, ancestor.dataset_id) AS id,
       CASE WHEN ancestor:Dataset THEN 'Dataset' ELSE 'FunctionCall' END AS kind,
       coalesce(ancestor.name, ancestor.uid) AS name,
       depth
ORDER BY depth, uid
