// name: swift/failed_executions
// purpose: The failed app executions of a Swift script run, each with its call, app, site, job id and arguments (what `lineage why` lists for a Swift run).
// param run: string, required. The script run's uid. Example: "swift:run:130-fmri-20090316-1729-mxxea3a1"
// param status: map, from the model. The statuses (lineage.model.status) by name, and the lists failures and problems.
// returns: exec_uid, call_uid, app_name, site, job_id, arguments, final_state, start_time, duration, attempt
MATCH (run:Lineage:ScriptRun {uid: $run})
CALL (run) {
  MATCH (run)<-[:PART_OF]-(:FunctionCall)<-[:INSTANCE_OF]-(x:AppExecution) RETURN x
  UNION
  MATCH (run)<-[:PART_OF]-(x:AppExecution) RETURN x
}
WITH x WHERE x.status IN $status.failures
OPTIONAL MATCH (x)-[:INSTANCE_OF]->(call:FunctionCall)
RETURN x.uid AS exec_uid, call.uid AS call_uid, coalesce(x.app_name, call.app_name) AS app_name,
       x.site AS site, x.job_id AS job_id, x.arguments AS arguments, x.final_state AS final_state,
       x.start_time AS start_time, x.duration AS duration, x.attempt AS attempt
ORDER BY start_time, exec_uid
