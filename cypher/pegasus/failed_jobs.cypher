// name: pegasus/failed_jobs
// purpose: The failed jobs of a Pegasus workflow, each with its last attempt, its last state and the exit code (or signal) of that attempt.
// param workflow: string, required. The workflow's uid. Example: "pegasus:workflow:f84f05fc-a8d0-42b5-bac5-52d6f41a77e3"
// returns: job_uid, job_id, type, attempts, last_state, exitcode, signal, host, stderr
MATCH (wf:Workflow {uid: $workflow})<-[:PART_OF]-(job:Job)
MATCH (attempt:JobInstance)-[:INSTANCE_OF]->(job)
WITH job, attempt ORDER BY attempt.submit_seq DESC
WITH job, collect(attempt) AS attempts
WITH job, attempts, attempts[0] AS last
WHERE last.status = 'failed'
OPTIONAL MATCH (last)<-[:PART_OF]-(inv:Invocation)
WITH job, attempts, last, [i IN collect(inv) WHERE i.exitcode <> 0 OR i.signal IS NOT NULL] AS bad
RETURN job.uid AS job_uid,
       job.job_id AS job_id,
       job.type_desc AS type,
       size(attempts) AS attempts,
       last.last_state AS last_state,
       coalesce(bad[0].exitcode, last.exitcode) AS exitcode,
       coalesce(bad[0].signal, last.signal) AS signal,
       last.hostname AS host,
       last.stderr_text AS stderr
ORDER BY job_id
