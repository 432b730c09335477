// name: pegasus/job_dag
// purpose: The job dependency graph of a Pegasus workflow with each job's last attempt (the input of the critical path, which lineage computes in Python with networkx).
// param workflow: string, required. The workflow's uid. Example: "pegasus:workflow:f84f05fc-a8d0-42b5-bac5-52d6f41a77e3"
// returns: job_uid, job_id, type, status, duration, start_time, end_time, parents
MATCH (wf:Lineage:Workflow {uid: $workflow})<-[:PART_OF]-(job:Job)
OPTIONAL MATCH (a:JobInstance)-[:INSTANCE_OF]->(job)
WITH job, a ORDER BY a.submit_seq DESC
WITH job, collect(a)[0] AS last
OPTIONAL MATCH (job)-[:WAS_INFORMED_BY]->(parent:Job)
WITH job, last, collect(parent.uid) AS parents
RETURN job.uid AS job_uid, job.job_id AS job_id, job.type_desc AS type, job.status AS status,
       coalesce(last.duration, last.end_time - last.start_time, 0.0) AS duration,
       last.start_time AS start_time, last.end_time AS end_time, parents
ORDER BY start_time, end_time, job_id
