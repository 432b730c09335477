// name: cross/library_impact
// purpose: A bug was found in a library: every run that loaded it or was linked with it, the Pegasus jobs and Swift calls behind those runs (through `lineage link`), their workflows or script runs, and the files and datasets those made.
// param library: string, required. A library path, file name (libkeg.so.1.2), stem (libkeg) or sha1. Example: "libm"
// returns: library, library_path, library_sha1, how, execution, executable_path, user, start_time, job_or_call, run, outputs
// note: how is "loaded" (the run loaded it) or "linked" (its executable's build linked it); job_or_call and run are null for a run no workflow system recorded.
MATCH (lib:Library)
WHERE lib.sha1 = $library OR lib.path = $library OR lib.name = $library OR lib.stem = $library
CALL (lib) {
  MATCH (x:Execution)-[:USED]->(lib) RETURN x, 'loaded' AS how
  UNION
  MATCH (x:Execution)-[:USED]->(:Executable)-[:WAS_GENERATED_BY]->(:Build)-[:USED]->(lib)
  RETURN x, 'linked' AS how
}
OPTIONAL CALL (x) {
  MATCH (x)-[:RAN_WITHIN]->(:JobInstance)-[:INSTANCE_OF]->(j:Job)
  RETURN j AS job
  UNION
  MATCH (i:Invocation)-[:SAME_ACTIVITY]->(x), (i)-[:PART_OF]->(:JobInstance)-[:INSTANCE_OF]->(j:Job)
  RETURN j AS job
  UNION
  MATCH (e:AppExecution)-[:SAME_ACTIVITY]->(x), (e)-[:INSTANCE_OF]->(c:FunctionCall)
  RETURN c AS job
}
OPTIONAL MATCH (job)-[:PART_OF]->(r)
WHERE r:Workflow OR r:ScriptRun
CALL (job) {
  OPTIONAL MATCH (job)-[:RUNS_TASK]->(:Task)<-[:WAS_GENERATED_BY]-(f)
  RETURN f
  UNION
  OPTIONAL MATCH (job)-[:RUNS_TASK]->(t:Task)-[:USED {direction: 'unknown'}]->(f:File)
  WHERE NOT (f)-[:WAS_GENERATED_BY]->()
  RETURN f
  UNION
  OPTIONAL MATCH (d:Dataset)-[:WAS_GENERATED_BY]->(job)
  RETURN d AS f
}
WITH lib, how, x, job, r, collect(DISTINCT coalesce(f.lfn, f.filename, f.value, f.uid)) AS outputs
OPTIONAL MATCH (x)-[:USED]->(exe:Executable)
RETURN lib.uid AS library, lib.path AS library_path, lib.sha1 AS library_sha1, how,
       x.uid AS execution, coalesce(x.exec_path, exe.path) AS executable_path, x.user AS user,
       x.start_time AS start_time, job.uid AS job_or_call, r.uid AS run, outputs
ORDER BY library, start_time, execution, how
