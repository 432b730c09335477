// name: swift/ancestors
// purpose: SPQL ancestors(): every dataset and function call upstream of a Swift dataset or function call, following what calls used and what produced datasets (dataset_in / dataset_out, constructors included), with each ancestor's shortest distance.
// param uid: string, required. The uid of the start node (a Swift dataset or function call). Example: "swift:dataset:tag:benc@ci.uchicago.edu,2008:swift:dataset:20090316-1729-x8j87htb:720000000020"
// param max_depth: integer, optional (default null = no limit). Keep only ancestors at most this many hops away. Example: 4
// returns: uid, id, kind, name, depth
// note: `min(length(p))` over `*1..` lets the planner prune (VarLengthExpand(Pruning,BFS)): cost follows nodes and edges, not paths.
MATCH (start:Lineage {uid: $uid})
MATCH p = (start)-[:USED|WAS_GENERATED_BY*1..]->(ancestor:Lineage)
WITH ancestor, min(length(p)) AS depth
WHERE $max_depth IS NULL OR depth <= $max_depth
RETURN ancestor.uid AS uid,
       coalesce(ancestor.call_id, ancestor.dataset_id) AS id,
       CASE WHEN ancestor:Dataset THEN 'Dataset' ELSE 'FunctionCall' END AS kind,
       coalesce(ancestor.name, ancestor.uid) AS name,
       depth
ORDER BY depth, uid
