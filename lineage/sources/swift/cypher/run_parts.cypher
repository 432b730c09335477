// name: swift/run_parts
// purpose: The calls of one Swift script run in start order, each with its app executions and the datasets it used and produced (by parameter, value and file name): what `lineage diff` matches between two runs.
// param run: string, required. The script run's uid. Example: "swift:run:001-echo-20090316-1711-i7icnjl1"
// param status: map, from the model. The statuses (lineage.model.status) by name, and the lists failures and problems.
// returns: call, name, status, start_time, duration, executions, failed_executions, arguments, inputs, outputs
// note: inputs and outputs are lists of {parameter, value, file}, sorted.
MATCH (:Lineage:ScriptRun {uid: $run})<-[:PART_OF]-(c:FunctionCall)
CALL (c) {
  OPTIONAL MATCH (e:AppExecution)-[:INSTANCE_OF]->(c)
  WITH e ORDER BY e.start_time
  RETURN count(e) AS executions,
         count(CASE WHEN e.status IN $status.failures THEN 1 END) AS failed_executions,
         collect(e.arguments) AS arguments
}
CALL (c) {
  OPTIONAL MATCH (c)-[u:USED]->(d:Dataset)
  WITH u, d ORDER BY u.parameter, d.value, d.filename
  RETURN collect(CASE WHEN d IS NOT NULL
                 THEN {parameter: u.parameter, value: d.value, file: d.filename} END) AS inputs
}
CALL (c) {
  OPTIONAL MATCH (d:Dataset)-[g:WAS_GENERATED_BY]->(c)
  WITH g, d ORDER BY g.parameter, d.value, d.filename
  RETURN collect(CASE WHEN d IS NOT NULL
                 THEN {parameter: g.parameter, value: d.value, file: d.filename} END) AS outputs
}
RETURN c.uid AS call, c.name AS name, c.status AS status, c.start_time AS start_time,
       c.duration AS duration, executions, failed_executions, arguments, inputs, outputs
ORDER BY start_time, call
