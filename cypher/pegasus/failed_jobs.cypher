// name: pegasus/failed_jobs
// purpose: The failed, held and never-submitted jobs of a Pegasus workflow (and, on request, of its sub-workflows), each with its attempts, last state, exit code or signal, host, decoded output and, for a job that never ran, the nearest failed or held upstream job that explains why.
// param workflow: string, required. The workflow's uid. Example: "pegasus:workflow:f84f05fc-a8d0-42b5-bac5-52d6f41a77e3"
// param recursive: boolean, optional (default false). Also list the jobs of every sub-workflow below it. Example: true
// returns: job_uid, job_id, type, status, attempts, last_state, exitcode, signal, host, stderr, stdout, held_reason, workflow, blocked_by, blocked_by_uid
// note: the exit code is the first failing task invocation's of the last attempt (DAGMan's post script comes after the
//       task), else the attempt's own. A job is unsubmitted when it has no attempt. blocked_by follows WAS_INFORMED_BY
//       upstream: a shortestPath (breadth-first, never an enumeration of paths) from the job to each failed or
//       held job of its workflow, the nearest wins; the cost grows with unsubmitted x failed jobs, not with paths.
MATCH (top:Workflow {uid: $workflow})
MATCH (wf:Workflow)-[:PART_OF*0..]->(top)
WHERE wf = top OR $recursive
MATCH (wf)<-[:PART_OF]-(job:Job)
OPTIONAL MATCH (attempt:JobInstance)-[:INSTANCE_OF]->(job)
WITH wf, job, attempt ORDER BY attempt.submit_seq DESC
WITH wf, job, collect(attempt) AS attempts
WITH wf, job, attempts, attempts[0] AS last,
     CASE WHEN size(attempts) = 0 THEN 'unsubmitted' ELSE coalesce(job.status, attempts[0].status) END AS status
WHERE status IN ['failed', 'held', 'unsubmitted']
OPTIONAL MATCH (last)<-[:PART_OF]-(inv:Invocation)
WHERE inv.exitcode <> 0 OR inv.signal IS NOT NULL
WITH wf, job, attempts, last, status, inv
ORDER BY CASE WHEN inv.inv_id >= 0 THEN 0 ELSE 1 END, inv.inv_id
WITH wf, job, attempts, last, status, collect(inv) AS bad
WITH wf, job, attempts, last, status, bad,
     CASE WHEN status = 'unsubmitted' THEN COLLECT {
         MATCH (wf)<-[:PART_OF]-(up:Job) WHERE up.status IN ['failed', 'held']
         MATCH p = shortestPath((job)-[:WAS_INFORMED_BY*1..]->(up))
         RETURN up ORDER BY length(p), up.job_id LIMIT 1
     } ELSE [] END AS blockers
RETURN job.uid AS job_uid,
       job.job_id AS job_id,
       job.type_desc AS type,
       status,
       size(attempts) AS attempts,
       last.last_state AS last_state,
       coalesce(bad[0].exitcode, last.exitcode) AS exitcode,
       coalesce(bad[0].signal, last.signal) AS signal,
       coalesce(last.hostname, job.host) AS host,
       last.stderr_text AS stderr,
       last.stdout_text AS stdout,
       coalesce(last.held_reason, job.held_reason) AS held_reason,
       wf.uid AS workflow,
       blockers[0].job_id AS blocked_by,
       blockers[0].uid AS blocked_by_uid
ORDER BY CASE status WHEN 'failed' THEN 0 WHEN 'held' THEN 1 ELSE 2 END, workflow, job_id
