// name: cross/explain_output
// purpose: Where a result came from, across systems: the output, the task, job or call that made it, each attempt, the process XALT saw (executable path and sha1, its build's compiler and link line, the libraries loaded and linked) and the anomalies Chimbuko found in that run, most severe first (an unknown severity last). Needs `lineage link`.
// param uid: string, required. A Pegasus file or Swift dataset (or the task, job, call, attempt or XALT run itself). Example: "swift:dataset:001-echo-20090316-1711-i7icnjl1:dataset:20090316-1711-yw5z2th7:720000000001"
// param top: integer, optional (default 5). How many anomalies to list per run. Example: 5
// pick uid: MATCH (o:Entity)-[:WAS_GENERATED_BY]->(:Activity) RETURN o.uid ORDER BY o.uid LIMIT 1
// returns: output, producer, producer_kind, attempt, attempt_host, process, how, link_rules, execution, executable_path, executable_sha1, compiler, link_line, libraries_loaded, libraries_linked, anomaly_count, top_anomalies
// note: one row per XALT run linked to an attempt of the producer (how: "same process" when XALT saw the producer's own process, "ran within" for another program of the attempt), or one row with a null execution when nothing is linked.
// note: a Pegasus file known only from wf.map.file (direction unknown) is explained by the tasks that touched it.
MATCH (o:Lineage {uid: $uid})
CALL (o) {
  MATCH (o)-[:WAS_GENERATED_BY]->(p:Activity) RETURN p
  UNION
  MATCH (p:Task)-[:USED {direction: 'unknown'}]->(o) WHERE NOT (o)-[:WAS_GENERATED_BY]->() RETURN p
  UNION
  MATCH (p:Activity) WHERE p = o RETURN p
}
CALL (p) {
  MATCH (p:Task)<-[:RUNS_TASK]-(:Job)<-[:INSTANCE_OF]-(a:JobInstance) RETURN a
  UNION
  MATCH (p:Job)<-[:INSTANCE_OF]-(a:JobInstance) RETURN a
  UNION
  MATCH (p:FunctionCall)<-[:INSTANCE_OF]-(a:AppExecution) RETURN a
  UNION
  MATCH (p)-[:RAN_WITHIN]->(a:JobInstance) WHERE p:Execution RETURN a
  UNION
  MATCH (a:Activity) WHERE a = p AND (a:JobInstance OR a:AppExecution OR a:Invocation OR a:Execution)
  RETURN a
}
OPTIONAL CALL (p, a) {
  // the producer's own process, seen by XALT
  MATCH (proc)-[l:SAME_ACTIVITY]->(x:Execution)
  WHERE proc = a OR ((proc)-[:PART_OF]->(a) AND (p:Job OR (proc)-[:RUNS_TASK]->(p)))
  RETURN x, proc, 'same process' AS how, [l.rule] AS rules
  UNION
  // other programs the attempt ran
  MATCH (x:Execution)-[l:RAN_WITHIN]->(a)
  WHERE NOT EXISTS { MATCH (q)-[:SAME_ACTIVITY]->(x) WHERE q = a OR (q)-[:PART_OF]->(a) }
  RETURN x, null AS proc, 'ran within' AS how, [l.rule] AS rules
  UNION
  MATCH (x:Execution) WHERE x = a
  RETURN x, null AS proc, 'the run itself' AS how, [] AS rules
}
OPTIONAL MATCH (x)-[:USED]->(exe:Executable)
OPTIONAL MATCH (exe)-[:WAS_GENERATED_BY]->(b:Build)
CALL (x) {
  OPTIONAL MATCH (x)-[:USED]->(lib:Library)
  WITH lib ORDER BY lib.path
  RETURN collect(CASE WHEN lib IS NOT NULL THEN {path: lib.path, sha1: lib.sha1} END)
         AS libraries_loaded
}
CALL (b) {
  OPTIONAL MATCH (b)-[:USED]->(lib:Library)
  WITH lib ORDER BY lib.path
  RETURN collect(CASE WHEN lib IS NOT NULL THEN {path: lib.path, sha1: lib.sha1} END)
         AS libraries_linked
}
CALL (x, a) {
  OPTIONAL MATCH (c:ProgramRun)-[:RAN_WITHIN]->(t)
  WHERE t = x OR (t:Invocation AND (t)-[:PART_OF]->(a))
  OPTIONAL MATCH (e:FunctionExecution)-[:PART_OF]->(:Rank)-[:PART_OF]->(c)
  WHERE e.is_anomaly
  // most severe first; an unknown severity (null, NaN) last, whatever the sign of the others
  WITH DISTINCT e
  WITH e ORDER BY CASE WHEN e.outlier_severity IS NULL OR isNaN(e.outlier_severity) THEN 1 ELSE 0 END,
                  e.outlier_severity DESC, e.runtime_exclusive DESC, e.uid
  WITH collect(e) AS found
  RETURN size(found) AS anomaly_count,
         [e IN found[0..$top] | {uid: e.uid, function: e.function, rank: e.rank,
          severity: e.outlier_severity, score: e.outlier_score,
          runtime_us: e.runtime_exclusive, entry_us: e.entry}] AS top_anomalies
}
RETURN o.uid AS output, p.uid AS producer, p.kind AS producer_kind, a.uid AS attempt,
       coalesce(a.hostname, a.site) AS attempt_host, proc.uid AS process, how, rules AS link_rules,
       x.uid AS execution, coalesce(x.exec_path, exe.path) AS executable_path,
       coalesce(exe.sha1, x.sha1) AS executable_sha1, b.compiler AS compiler,
       b.link_line AS link_line, libraries_loaded, libraries_linked, anomaly_count,
       top_anomalies
ORDER BY attempt, how DESC, execution
