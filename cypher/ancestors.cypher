// name: ancestors
// purpose: Everything upstream of a node (what it was derived from, used, or informed by), on any source, with each ancestor's shortest distance.
// param uid: string, required. The uid of the start node. Example: "pegasus:job:ea17e8ac-02ac-4909-b5e3-16e367392556:analyze_j4"
// param max_depth: integer, optional (default null = no limit). Keep only ancestors at most this many hops away. Example: 3
// returns: uid, kind, name, depth, status
// note: follows USED, WAS_GENERATED_BY, WAS_INFORMED_BY, WAS_DERIVED_FROM and HAD_MEMBER outward. The planner turns
//       `min(length(p))` over `*1..` into a pruning breadth-first expand (PROFILE shows VarLengthExpand(Pruning,BFS)),
//       so the cost follows the nodes and edges reached, not the number of paths.
MATCH (start:Lineage {uid: $uid})
MATCH p = (start)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..]->(ancestor:Lineage)
WITH ancestor, min(length(p)) AS depth
WHERE $max_depth IS NULL OR depth <= $max_depth
RETURN ancestor.uid AS uid,
       ancestor.kind AS kind,
       coalesce(ancestor.name, ancestor.uid) AS name,
       depth,
       ancestor.status AS status
ORDER BY depth, uid
