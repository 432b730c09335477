// name: pegasus/job_attempts
// purpose: Every attempt of one Pegasus job, oldest first, with its host, times, status, exit code or signal, last state and the end of its stdout and stderr: what a job's report lists and draws on its timeline.
// param job: string, required. The job's uid. Example: "pegasus:job:f84f05fc-a8d0-42b5-bac5-52d6f41a77e3:ls_ID0000001"
// pick job: MATCH (j:Job:Failed)<-[:INSTANCE_OF]-(:JobInstance) RETURN j.uid ORDER BY j.uid LIMIT 1
// returns: job, job_id, submit_seq, status, host, start_time, end_time, exitcode, signal, last_state, stdout, stderr
// note: the same columns as the workflow timeline's query (lineage/sources/pegasus/report.py), for one job.
MATCH (job:Lineage:Job {uid: $job})<-[:INSTANCE_OF]-(a:JobInstance)
RETURN job.uid AS job, job.job_id AS job_id, a.submit_seq AS submit_seq, a.status AS status,
       a.hostname AS host, a.start_time AS start_time, a.end_time AS end_time,
       a.exitcode AS exitcode, a.signal AS signal, a.last_state AS last_state,
       a.stdout_text AS stdout, a.stderr_text AS stderr
ORDER BY submit_seq
