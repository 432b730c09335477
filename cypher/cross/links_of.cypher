// name: cross/links_of
// purpose: The links `lineage link` made to or from one node (what the same process is called in another system, what it ran within, what ran within it), with their rule and evidence.
// param uid: string, required. Any node's uid. Example: "xalt:run:acc1af54-6d3c-4ada-8cac-4c8f6aad8bb5"
// returns: direction, type, other, other_kind, other_name, rule, confidence, matched
MATCH (n:Lineage {uid: $uid})
CALL (n) {
  MATCH (n)-[r:SAME_ACTIVITY|RAN_WITHIN]->(o) RETURN 'out' AS direction, r, o
  UNION
  MATCH (o)-[r:SAME_ACTIVITY|RAN_WITHIN]->(n) RETURN 'in' AS direction, r, o
}
RETURN direction, type(r) AS type, o.uid AS other, o.kind AS other_kind,
       coalesce(o.name, o.uid) AS other_name, r.rule AS rule, r.confidence AS confidence,
       r.matched AS matched
ORDER BY type, direction, other
