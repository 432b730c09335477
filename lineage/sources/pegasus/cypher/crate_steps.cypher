// name: pegasus/crate_steps
// purpose: The steps of a Pegasus workflow as a Workflow Run RO-Crate shows them: every job with its task's transformation and arguments, its attempts in submit order (times, status, exit code, host, output, and their invocations' uids), and the files its task read and wrote.
// param workflow: string, required. The workflow's uid. Example: "pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556"
// returns: uid, job_id, type, status, executable, task, transformation, argv, attempts, inputs, outputs
// note: attempts are maps (uid, seq, start, end, status, exitcode, host, stdout, stderr, invocations, executables); inputs and outputs are maps (uid, lfn, pfn). Jobs come in the order of their first attempt, jobs never submitted last.
MATCH (wf:Lineage:Workflow {uid: $workflow})<-[:PART_OF]-(job:Job)
OPTIONAL MATCH (job)-[:RUNS_TASK]->(task:Task)
CALL (job) {
  OPTIONAL MATCH (attempt:JobInstance)-[:INSTANCE_OF]->(job)
  OPTIONAL MATCH (inv:Invocation)-[:PART_OF]->(attempt)
  WITH attempt, inv ORDER BY inv.inv_id
  WITH attempt, collect(inv.uid) AS invocations,
       collect(CASE WHEN inv.inv_id > 0 THEN inv.executable END) AS executables,
       min(inv.start_time) AS inv_start, max(inv.end_time) AS inv_end
  ORDER BY attempt.submit_seq
  RETURN collect(CASE WHEN attempt IS NULL THEN NULL ELSE
           {uid: attempt.uid, seq: attempt.submit_seq,
            start: coalesce(attempt.start_time, inv_start),
            end: coalesce(attempt.end_time, inv_end), status: attempt.status,
            exitcode: attempt.exitcode, host: attempt.hostname,
            stdout: attempt.stdout_text, stderr: attempt.stderr_text,
            invocations: invocations, executables: executables} END) AS attempts
}
CALL (task) {
  OPTIONAL MATCH (task)-[:USED]->(f:File)
  WITH f ORDER BY f.lfn
  RETURN collect(CASE WHEN f IS NULL THEN NULL ELSE {uid: f.uid, lfn: f.lfn, pfn: f.pfn} END) AS inputs
}
CALL (task) {
  OPTIONAL MATCH (f:File)-[:WAS_GENERATED_BY]->(task)
  WITH f ORDER BY f.lfn
  RETURN collect(CASE WHEN f IS NULL THEN NULL ELSE {uid: f.uid, lfn: f.lfn, pfn: f.pfn} END) AS outputs
}
RETURN job.uid AS uid, job.job_id AS job_id, job.type_desc AS type, job.status AS status,
       job.executable AS executable, task.uid AS task, task.transformation AS transformation,
       task.argv AS argv, attempts, inputs, outputs
ORDER BY CASE WHEN size(attempts) = 0 THEN 1 ELSE 0 END, attempts[0].seq, job.job_id
