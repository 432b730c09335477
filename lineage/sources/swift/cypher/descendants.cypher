// name: swift/descendants
// purpose: Every dataset and function call downstream of a Swift dataset or function call (what used it, what it produced, transitively), with each descendant's shortest distance: the mirror of swift/ancestors.
// param uid: string, required. The uid of the start node (a Swift dataset or function call). Example: "swift:dataset:tag:benc@ci.uchicago.edu,2008:swift:dataset:20090316-1729-x8j87htb:720000000013"
// param max_depth: integer, optional (default null = no limit). Keep only descendants at most this many hops away (up to 100, the search itself stops there). Example: 2
// pick uid: MATCH (d:Dataset)<-[:USED]-(:FunctionCall) RETURN d.uid ORDER BY d.uid LIMIT 1
// returns: uid, id, kind, name, depth
// note: pruning breadth-first expand, as swift/ancestors.
MATCH (start:Lineage {uid: $uid})
CALL (start) {
  WITH start WHERE $max_depth IS NULL OR $max_depth > 100
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY*1..]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 0 < $max_depth <= 1
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY*1..1]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 1 < $max_depth <= 2
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY*1..2]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 2 < $max_depth <= 3
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY*1..3]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 3 < $max_depth <= 4
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY*1..4]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 4 < $max_depth <= 5
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY*1..5]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 5 < $max_depth <= 6
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY*1..6]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 6 < $max_depth <= 8
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY*1..8]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 8 < $max_depth <= 10
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY*1..10]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 10 < $max_depth <= 12
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY*1..12]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 12 < $max_depth <= 16
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY*1..16]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 16 < $max_depth <= 24
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY*1..24]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 24 < $max_depth <= 32
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY*1..32]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 32 < $max_depth <= 48
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY*1..48]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 48 < $max_depth <= 64
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY*1..64]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
  UNION ALL
  WITH start WHERE 64 < $max_depth <= 100
  MATCH p = (start)<-[:USED|WAS_GENERATED_BY*1..100]-(descendant:Lineage)
  WITH descendant, min(length(p)) AS depth
  RETURN collect([descendant, depth]) AS found
}
UNWIND found AS pair
WITH pair[0] AS descendant, pair[1] AS depth
WHERE $max_depth IS NULL OR depth <= $max_depth
RETURN descendant.uid AS uid,
       coalesce(descendant.call_id, descendant.dataset_id) AS id,
       CASE WHEN descendant:Dataset THEN 'Dataset' ELSE 'FunctionCall' END AS kind,
       coalesce(descendant.name, descendant.uid) AS name,
       depth
ORDER BY depth, uid
