// name: link/existing
// purpose: The links lineage link has written (SAME_ACTIVITY, RAN_WITHIN), with their rule and evidence.
// param rule: string, optional (default null = every rule). Only links made by this rule. Example: "scheduler_job"
// returns: start, type, end, rule, confidence, matched, evidence, skew
MATCH (a:Lineage)-[r:SAME_ACTIVITY|RAN_WITHIN]->(b:Lineage)
WHERE $rule IS NULL OR r.rule = $rule
RETURN a.uid AS start, type(r) AS type, b.uid AS end, r.rule AS rule,
       r.confidence AS confidence, r.matched AS matched, r.evidence AS evidence, r.skew AS skew
ORDER BY start, type, end
