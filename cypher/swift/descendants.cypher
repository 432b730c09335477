// name: swift/descendants
// purpose: Every dataset and function call downstream of a Swift dataset or function call (what used it, what it produced, transitively), with each descendant's shortest distance: the mirror of swift/ancestors.
// param uid: string, required. The uid of the start node (a Swift dataset or function call). Example: "swift:dataset:tag:benc@ci.uchicago.edu,2008:swift:dataset:20090316-1729-x8j87htb:720000000013"
// param max_depth: integer, optional (default null = no limit). Keep only descendants at most this many hops away. Example: 2
// returns: uid, id, kind, name, depth
// note: pruning breadth-first expand, as swift/ancestors.
MATCH (start:Lineage {uid: $uid})
MATCH p = (start)<-[:USED|WAS_GENERATED_BY*1..]-(descendant:Lineage)
WITH descendant, min(length(p)) AS depth
WHERE $max_depth IS NULL OR depth <= $max_depth
RETURN descendant.uid AS uid,
       coalesce(descendant.call_id, descendant.dataset_id) AS id,
       CASE WHEN descendant:Dataset THEN 'Dataset' ELSE 'FunctionCall' END AS kind,
       coalesce(descendant.name, descendant.uid) AS name,
       depth
ORDER BY depth, uid
