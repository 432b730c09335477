// name: pegasus/host_statistics
// purpose: Per host (and site) usage of a workflow: how many job attempts ran there, how many succeeded or failed, their summed kickstart runtime and the time span the host was in use.
// param workflow: string, required. The workflow's uid. Example: "pegasus:workflow:48f759a4-165f-47d6-8c32-571649ce311b"
// param recursive: boolean, optional (default false). Include the attempts of every sub-workflow below it. Example: true
// param status: map, from the model. The statuses (lineage.model.status) by name, and the lists failures and problems.
// returns: host, site, attempts, succeeded, failed, runtime, first_start, last_end
MATCH (top:Lineage:Workflow {uid: $workflow})
MATCH (wf:Workflow)-[:PART_OF*0..]->(top)
WHERE wf = top OR $recursive
MATCH (wf)<-[:PART_OF]-(:Job)<-[:INSTANCE_OF]-(a:JobInstance)-[:WAS_ASSOCIATED_WITH]->(h:Host)
OPTIONAL MATCH (a)<-[:PART_OF]-(inv:Invocation)
WHERE inv.inv_id >= 0
WITH h, a, sum(coalesce(inv.duration, 0.0)) AS runtime
RETURN h.name AS host,
       a.site AS site,
       count(a) AS attempts,
       count(CASE WHEN a.status = $status.succeeded THEN 1 END) AS succeeded,
       count(CASE WHEN a.status IN $status.failures THEN 1 END) AS failed,
       sum(runtime) AS runtime,
       min(a.start_time) AS first_start,
       max(a.end_time) AS last_end
ORDER BY host, site
