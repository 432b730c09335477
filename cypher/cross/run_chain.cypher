// name: cross/run_chain
// purpose: A Pegasus workflow or Swift script run across systems: each job attempt or app execution with the program XALT saw it run (path, sha1, compiler), the libraries that program loaded, and how many anomalies Chimbuko found in it. Needs `lineage link`.
// param run: string, required. A workflow or script run uid. Example: "pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556"
// returns: job, attempt, host, how, rule, execution, executable_path, executable_sha1, compiler, libraries, anomaly_count
// note: lists only attempts and executions that lineage link connected to an XALT run; how is "same process" (XALT saw the job's own process) or "ran within" (another program of the attempt).
MATCH (r:Lineage:Run {uid: $run})
CALL (r) {
  MATCH (j:Job)-[:PART_OF]->(r), (a:JobInstance)-[:INSTANCE_OF]->(j) RETURN j, a
  UNION
  MATCH (j:FunctionCall)-[:PART_OF]->(r), (a:AppExecution)-[:INSTANCE_OF]->(j) RETURN j, a
}
CALL (a) {
  MATCH (p)-[l:SAME_ACTIVITY]->(x:Execution) WHERE p = a OR (p)-[:PART_OF]->(a)
  RETURN x, 'same process' AS how, l.rule AS rule
  UNION
  MATCH (x:Execution)-[l:RAN_WITHIN]->(a)
  WHERE NOT EXISTS { MATCH (q)-[:SAME_ACTIVITY]->(x) WHERE q = a OR (q)-[:PART_OF]->(a) }
  RETURN x, 'ran within' AS how, l.rule AS rule
}
OPTIONAL MATCH (x)-[:USED]->(exe:Executable)
OPTIONAL MATCH (exe)-[:WAS_GENERATED_BY]->(b:Build)
CALL (x) {
  OPTIONAL MATCH (x)-[:USED]->(lib:Library)
  WITH lib ORDER BY lib.path
  RETURN collect(lib.path) AS libraries
}
CALL (x, a) {
  OPTIONAL MATCH (c:ProgramRun)-[:RAN_WITHIN]->(t)
  WHERE t = x OR (t:Invocation AND (t)-[:PART_OF]->(a))
  OPTIONAL MATCH (e:FunctionExecution)-[:PART_OF]->(:Rank)-[:PART_OF]->(c)
  WHERE e.is_anomaly
  RETURN count(DISTINCT e) AS anomaly_count
}
RETURN coalesce(j.name, j.uid) AS job, a.uid AS attempt, coalesce(a.hostname, a.site) AS host,
       how, rule, x.uid AS execution, coalesce(x.exec_path, exe.path) AS executable_path,
       coalesce(x.sha1, exe.sha1) AS executable_sha1, b.compiler AS compiler, libraries,
       anomaly_count
ORDER BY job, attempt, how DESC, execution
