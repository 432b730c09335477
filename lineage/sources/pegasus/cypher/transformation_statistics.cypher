// name: pegasus/transformation_statistics
// purpose: pegasus-statistics' breakdown by transformation: how often each ran, how often it succeeded or failed, and the min / max / mean / total of its runtime (kickstart duration of each invocation).
// param workflow: string, required. The workflow's uid. Example: "pegasus:workflow:48f759a4-165f-47d6-8c32-571649ce311b"
// param recursive: boolean, optional (default false). Include the invocations of every sub-workflow below it. Example: true
// returns: transformation, count, succeeded, failed, min, max, mean, total
MATCH (top:Lineage:Workflow {uid: $workflow})
MATCH (wf:Workflow)-[:PART_OF*0..]->(top)
WHERE wf = top OR $recursive
MATCH (wf)<-[:PART_OF]-(:Job)<-[:INSTANCE_OF]-(:JobInstance)<-[:PART_OF]-(inv:Invocation)
WITH coalesce(inv.transformation, inv.name) AS transformation, inv
RETURN transformation,
       count(inv) AS count,
       count(CASE WHEN inv.exitcode = 0 THEN 1 END) AS succeeded,
       count(CASE WHEN inv.exitcode <> 0 OR inv.signal IS NOT NULL THEN 1 END) AS failed,
       min(inv.duration) AS min,
       max(inv.duration) AS max,
       avg(inv.duration) AS mean,
       sum(inv.duration) AS total
ORDER BY transformation
