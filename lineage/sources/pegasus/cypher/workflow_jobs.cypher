// name: pegasus/workflow_jobs
// purpose: Every job of a Pegasus workflow with its status, attempts, duration and host: the job table of a workflow report.
// param workflow: string, required. The workflow's uid. Example: "pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556"
// param status: map, from the model. The statuses (lineage.model.status) by name, and the lists failures and problems.
// returns: uid, job_id, type, status, attempts, last_state, exitcode, start_time, end_time, duration, host, parents
MATCH (wf:Lineage:Workflow {uid: $workflow})<-[:PART_OF]-(job:Job)
OPTIONAL MATCH (attempt:JobInstance)-[:INSTANCE_OF]->(job)
WITH job, attempt ORDER BY attempt.submit_seq DESC
WITH job, collect(attempt) AS attempts
WITH job, attempts, attempts[0] AS last
OPTIONAL MATCH (job)-[:WAS_INFORMED_BY]->(parent:Job)
WITH job, attempts, last, collect(parent.uid) AS parents
RETURN job.uid AS uid,
       job.job_id AS job_id,
       job.type_desc AS type,
       CASE WHEN last IS NULL THEN $status.unsubmitted ELSE last.status END AS status,
       size(attempts) AS attempts,
       last.last_state AS last_state,
       last.exitcode AS exitcode,
       last.start_time AS start_time,
       last.end_time AS end_time,
       last.end_time - last.start_time AS duration,
       last.hostname AS host,
       parents
ORDER BY start_time, job_id
