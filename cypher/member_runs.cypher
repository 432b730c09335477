// name: member_runs
// purpose: For each node of a given set, the run it belongs to (through PART_OF and INSTANCE_OF, at most 4 hops), or null: groups a big lineage neighbourhood by run.
// param uids: list, required. The uids of the nodes. Example: ["pegasus:job:ea17e8ac-02ac-4909-b5e3-16e367392556:analyze_j4"]
// returns: uid, run, run_name
UNWIND $uids AS wanted
MATCH (n:Lineage {uid: wanted})
OPTIONAL MATCH (n)-[:PART_OF|INSTANCE_OF*0..4]->(r:Run)
WITH wanted, r ORDER BY r.uid
WITH wanted, head(collect(r)) AS run
RETURN wanted AS uid, run.uid AS run, coalesce(run.name, run.uid) AS run_name
ORDER BY uid
