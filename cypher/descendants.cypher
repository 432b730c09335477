// name: descendants
// purpose: Everything downstream of a node (what used it, was generated from it, or depends on it), on any source, with each descendant's shortest distance.
// param uid: string, required. The uid of the start node. Example: "pegasus:job:ea17e8ac-02ac-4909-b5e3-16e367392556:preprocess_j1"
// param max_depth: integer, optional (default null = no limit). Keep only descendants at most this many hops away. Example: 2
// returns: uid, kind, name, depth, status
// note: the mirror of ancestors (the same relations followed inward); PROFILE shows VarLengthExpand(Pruning,BFS).
MATCH (start:Lineage {uid: $uid})
MATCH p = (start)<-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..]-(descendant:Lineage)
WITH descendant, min(length(p)) AS depth
WHERE $max_depth IS NULL OR depth <= $max_depth
RETURN descendant.uid AS uid,
       descendant.kind AS kind,
       coalesce(descendant.name, descendant.uid) AS name,
       depth,
       descendant.status AS status
ORDER BY depth, uid
