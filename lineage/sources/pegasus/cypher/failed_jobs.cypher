// name: pegasus/failed_jobs
// purpose: The failed, held and never-submitted jobs of a Pegasus workflow (and, on request, of its sub-workflows), each with its attempts, last state, exit code or signal, host, decoded output and, for a job that never ran, the nearest failed or held upstream job that explains why.
// param workflow: string, required. The workflow's uid. Example: "pegasus:workflow:f84f05fc-a8d0-42b5-bac5-52d6f41a77e3"
// param recursive: boolean, optional (default false). Also list the jobs of every sub-workflow below it. Example: true
// pick workflow: MATCH (w:Workflow)<-[:PART_OF]-(:Job:Failed) RETURN w.uid ORDER BY w.uid LIMIT 1
// param status: map, from the model. The statuses (lineage.model.status) by name, the lists failures and problems, and each problem's rank.
// returns: job_uid, job_id, type, status, held, attempts, last_state, exitcode, signal, host, stderr, stdout, held_reason, workflow, blocked_by, blocked_by_uid
// note: the exit code or signal is the first failing task invocation's of the last attempt (DAGMan's post script comes
//       after the task), else the attempt's own; never both. held is true when the last attempt was held at some
//       point (pegasus-analyzer's held list), so a job held, released and then run also appears, with its status.
//       A job is unsubmitted when it has no attempt. blocked_by is the nearest failed or held job upstream
//       (WAS_INFORMED_BY): one pruning breadth-first search downstream from each failed or held job (`min(length(p))` over `*1..`, PROFILE shows VarLengthExpand(Pruning,BFS)), so the cost is (failed + held jobs) x (jobs + edges) and never grows with the number of paths or of unsubmitted jobs.
MATCH (top:Lineage:Workflow {uid: $workflow})
MATCH (wf:Workflow)-[:PART_OF*0..]->(top)
WHERE wf = top OR $recursive
// every job below a failed or held one, found breadth-first from the few bad jobs
CALL (wf) {
  MATCH (wf)<-[:PART_OF]-(up:Job) WHERE up.status IN $status.failures + $status.held
  MATCH (up)<-[:WAS_INFORMED_BY*1..]-(down:Job)
  RETURN collect(DISTINCT down) AS blocked
}
// one row per job, with its nearest failed or held upstream job when it has one
CALL (wf, blocked) {
  MATCH (wf)<-[:PART_OF]-(up:Job) WHERE up.status IN $status.failures + $status.held
  MATCH p = (up)<-[:WAS_INFORMED_BY*1..]-(down:Job)
  WITH up, down, min(length(p)) AS dist
  ORDER BY dist, up.job_id
  RETURN down AS job, collect(up)[0] AS blocker
  UNION ALL
  MATCH (wf)<-[:PART_OF]-(job:Job)
  WHERE NOT job IN blocked
  RETURN job, null AS blocker
}
OPTIONAL MATCH (attempt:JobInstance)-[:INSTANCE_OF]->(job)
WITH wf, job, blocker, attempt ORDER BY attempt.submit_seq DESC
WITH wf, job, blocker, collect(attempt) AS attempts
WITH wf, job, blocker, attempts, attempts[0] AS last,
     CASE WHEN size(attempts) = 0 THEN $status.unsubmitted ELSE coalesce(job.status, attempts[0].status) END AS status
WITH wf, job, blocker, attempts, last, status, 'JOB_HELD' IN coalesce(last.states, []) OR status = $status.held AS held
WHERE status IN $status.problems OR held
OPTIONAL MATCH (last)<-[:PART_OF]-(inv:Invocation)
WHERE inv.exitcode <> 0 OR inv.signal IS NOT NULL
WITH wf, job, blocker, attempts, last, status, held, inv
ORDER BY CASE WHEN inv.inv_id >= 0 THEN 0 ELSE 1 END, inv.inv_id
WITH wf, job, blocker, attempts, last, status, held, collect(inv) AS bad
RETURN job.uid AS job_uid,
       job.job_id AS job_id,
       job.type_desc AS type,
       status,
       held,
       size(attempts) AS attempts,
       last.last_state AS last_state,
       CASE WHEN bad[0] IS NULL THEN last.exitcode ELSE bad[0].exitcode END AS exitcode,
       CASE WHEN bad[0] IS NULL THEN last.signal ELSE bad[0].signal END AS signal,
       coalesce(last.hostname, job.host) AS host,
       last.stderr_text AS stderr,
       last.stdout_text AS stdout,
       coalesce(last.held_reason, job.held_reason) AS held_reason,
       wf.uid AS workflow,
       CASE WHEN status = $status.unsubmitted THEN blocker.job_id END AS blocked_by,
       CASE WHEN status = $status.unsubmitted THEN blocker.uid END AS blocked_by_uid
ORDER BY coalesce($status.rank[status], size($status.problems)), workflow, job_id
