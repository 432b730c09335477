// name: link/remove
// purpose: Remove links lineage link no longer finds (each link a map {start, type, end}).
// param links: list, required. The links to remove. Example: [{"start": "xalt:run:r1", "type": "RAN_WITHIN", "end": "pegasus:job_instance:wf:j1:1"}]
// returns: removed
UNWIND $links AS link
MATCH (a:Lineage {uid: link.start})-[r:SAME_ACTIVITY|RAN_WITHIN]->(b:Lineage {uid: link.end})
WHERE type(r) = link.type
DELETE r
RETURN count(*) AS removed
