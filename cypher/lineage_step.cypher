// name: lineage_step
// purpose: One breadth-first step of ancestry or descent: the nodes one lineage relation away from a set of nodes (upstream or downstream), with their kind, name and status, one search over the whole set. Repeated from the nodes it found, it walks a set's lineage level by level (`lineage_steps` takes up to three levels at once).
// param uids: list, required. The frontier's uids. Example: ["pegasus:job:ea17e8ac-02ac-4909-b5e3-16e367392556:analyze_j4"]
// param upstream: boolean, optional (default true). Follow the relations outward (ancestors) or inward (descendants). Example: true
// returns: uid, kind, name, status
UNWIND $uids AS u
MATCH (n:Lineage {uid: u})
CALL (n) {
  WITH n WHERE $upstream
  MATCH (n)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER]->(m:Lineage)
  RETURN m
  UNION
  WITH n WHERE NOT $upstream
  MATCH (n)<-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER]-(m:Lineage)
  RETURN m
}
WITH DISTINCT m
RETURN m.uid AS uid, m.kind AS kind, coalesce(m.name, m.uid) AS name, m.status AS status
