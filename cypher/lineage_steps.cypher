// name: lineage_steps
// purpose: Up to three breadth-first steps of ancestry or descent in one query: the nodes at most `levels` lineage relations away from a set of nodes (upstream or downstream), each with its shortest distance from the set (`steps`), kind, name and status. Repeated from the nodes reached at the last level, it walks a set's lineage a few levels at a time.
// param uids: list, required. The frontier's uids. Example: ["pegasus:job:ea17e8ac-02ac-4909-b5e3-16e367392556:analyze_j4"]
// param upstream: boolean, optional (default true). Follow the relations outward (ancestors) or inward (descendants). Example: true
// param levels: integer, optional (default 3). How many steps, 1 to 3. Example: 2
// returns: uid, kind, name, status, steps
// note: each frontier node's search is the planner's pruning breadth-first expand (`min(length(p))` over `*1..3`), so
//       the cost follows the nodes reached, not the number of paths; a node reached from several frontier nodes keeps
//       its shortest distance.
UNWIND $uids AS u
MATCH (n:Lineage {uid: u})
CALL (n) {
  WITH n WHERE $upstream
  MATCH p = (n)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..3]->(m:Lineage)
  RETURN m, min(length(p)) AS steps
  UNION
  WITH n WHERE NOT $upstream
  MATCH p = (n)<-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..3]-(m:Lineage)
  RETURN m, min(length(p)) AS steps
}
WITH m, min(steps) AS steps
WHERE steps <= $levels
RETURN m.uid AS uid, m.kind AS kind, coalesce(m.name, m.uid) AS name, m.status AS status, steps
