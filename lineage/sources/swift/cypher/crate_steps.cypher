// name: swift/crate_steps
// purpose: The app calls of a Swift script run as a Workflow Run RO-Crate shows them: every call with its app, its executions (attempts) in order, and the datasets it read and wrote.
// param run: string, required. The script run's uid. Example: "swift:run:130-fmri-20090316-1729-mxxea3a1"
// returns: uid, procedure, app, status, final_state, start, end, attempts, inputs, outputs
// note: attempts are maps (uid, attempt, start, end, status, final_state, host); inputs and outputs are maps (uid, name, filename, parameter). Calls that ran no app (the script's own procedures) are left out.
MATCH (run:Lineage:ScriptRun {uid: $run})<-[:PART_OF]-(call:FunctionCall)
WHERE call.app_name IS NOT NULL
CALL (call) {
  OPTIONAL MATCH (ex:AppExecution)-[:INSTANCE_OF]->(call)
  WITH ex ORDER BY ex.attempt, ex.start_time
  RETURN collect(CASE WHEN ex IS NULL THEN NULL ELSE
           {uid: ex.uid, attempt: ex.attempt, start: ex.start_time, end: ex.end_time,
            status: ex.status, final_state: ex.final_state, host: ex.site} END) AS attempts
}
CALL (call) {
  OPTIONAL MATCH (call)-[u:USED]->(d:Dataset)
  WITH d, u ORDER BY u.parameter, d.uid
  RETURN collect(CASE WHEN d IS NULL THEN NULL ELSE
           {uid: d.uid, name: d.name, filename: d.filename, parameter: u.parameter} END) AS inputs
}
CALL (call) {
  OPTIONAL MATCH (d:Dataset)-[g:WAS_GENERATED_BY]->(call)
  WITH d, g ORDER BY g.parameter, d.uid
  RETURN collect(CASE WHEN d IS NULL THEN NULL ELSE
           {uid: d.uid, name: d.name, filename: d.filename, parameter: g.parameter} END) AS outputs
}
RETURN call.uid AS uid, call.procedure AS procedure, call.app_name AS app,
       call.status AS status, call.final_state AS final_state, call.start_time AS start,
       call.end_time AS end, attempts, inputs, outputs
ORDER BY call.start_time, call.uid
