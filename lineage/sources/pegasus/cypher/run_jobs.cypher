// name: pegasus/run_jobs
// purpose: Every job of a Pegasus workflow with what a diff compares: its transformation, task arguments, inputs and outputs, the executable and arguments of its last attempt's task, its outcome, host and duration, and its depth in the job graph (its position).
// param workflow: string, required. The workflow's uid. Example: "pegasus:workflow:f84f05fc-a8d0-42b5-bac5-52d6f41a77e3"
// param status: map, from the model. The statuses (lineage.model.status) by name.
// returns: job_id, type, transformation, task_id, arguments, inputs, outputs, executable, command, status, exitcode, host, duration, attempts, depth
// note: depth is the longest chain of jobs above it (WAS_INFORMED_BY), found by one breadth-first walk per job (a workflow's job graph is small); the executable and command are the last attempt's task invocation's (inv_id >= 0), else the job's.
MATCH (wf:Lineage:Workflow {uid: $workflow})<-[:PART_OF]-(job:Job)
OPTIONAL MATCH (job)-[:RUNS_TASK]->(task:Task)
WITH job, collect(task) AS tasks
OPTIONAL MATCH (attempt:JobInstance)-[:INSTANCE_OF]->(job)
WITH job, tasks, attempt ORDER BY attempt.submit_seq DESC
WITH job, tasks, collect(attempt) AS attempts
WITH job, tasks, attempts, attempts[0] AS last
OPTIONAL MATCH (last)<-[:PART_OF]-(inv:Invocation) WHERE inv.inv_id >= 0
WITH job, tasks, attempts, last, inv ORDER BY inv.inv_id
WITH job, tasks, attempts, last, collect(inv)[0] AS main
CALL (job) {
  OPTIONAL MATCH p = (job)-[:WAS_INFORMED_BY*1..]->(:Job)
  RETURN coalesce(max(length(p)), 0) AS depth
}
RETURN job.job_id AS job_id, job.type_desc AS type,
       [t IN tasks | t.transformation][0] AS transformation,
       [t IN tasks | t.task_id][0] AS task_id,
       [t IN tasks | t.argv][0] AS arguments,
       COLLECT { UNWIND tasks AS t MATCH (t)-[:USED]->(f:File) RETURN DISTINCT f.lfn AS lfn ORDER BY lfn } AS inputs,
       COLLECT { UNWIND tasks AS t MATCH (f:File)-[:WAS_GENERATED_BY]->(t) RETURN DISTINCT f.lfn AS lfn ORDER BY lfn } AS outputs,
       coalesce(main.executable, job.executable) AS executable,
       coalesce(main.argv, job.argv) AS command,
       CASE WHEN size(attempts) = 0 THEN $status.unsubmitted ELSE coalesce(job.status, last.status) END AS status,
       coalesce(main.exitcode, last.exitcode) AS exitcode,
       coalesce(last.hostname, job.host) AS host,
       coalesce(last.duration, last.end_time - last.start_time) AS duration,
       size(attempts) AS attempts,
       depth
ORDER BY depth, job_id
