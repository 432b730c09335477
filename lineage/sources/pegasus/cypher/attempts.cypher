// name: pegasus/attempts
// purpose: The retry history of a Pegasus workflow: every attempt of every job that was tried more than once (or of every job), in order, with its states, exit code or signal, host and held reason.
// param workflow: string, required. The workflow's uid. Example: "pegasus:workflow:f84f05fc-a8d0-42b5-bac5-52d6f41a77e3"
// param all: boolean, optional (default false). List the attempts of jobs tried only once too. Example: true
// returns: job_id, attempt, submit_seq, status, last_state, exitcode, signal, attempt_exitcode, attempt_signal, host, start_time, end_time, held_reason, states
// note: exitcode / signal are what pegasus-statistics' job breakdown (jobs.txt) shows: the highest raw exit status
//       of the attempt's task and pre-script invocations (so a task's exit code 2, not DAGMan's post script's 1),
//       else the attempt's own. attempt_exitcode / attempt_signal are the attempt's own (DAGMan's view, after its
//       post script), which decide its status.
MATCH (wf:Lineage:Workflow {uid: $workflow})<-[:PART_OF]-(job:Job)<-[:INSTANCE_OF]-(a:JobInstance)
WITH job, a ORDER BY a.submit_seq
WITH job, collect(a) AS attempts
WHERE size(attempts) > 1 OR $all
UNWIND range(0, size(attempts) - 1) AS i
WITH job, i, attempts[i] AS a
OPTIONAL MATCH (a)<-[:PART_OF]-(inv:Invocation)
WHERE inv.inv_id >= -1 AND inv.exitcode_raw IS NOT NULL
WITH job, i, a, inv ORDER BY inv.exitcode_raw DESC
WITH job, i, a, collect(inv)[0] AS worst
RETURN job.job_id AS job_id, i + 1 AS attempt, a.submit_seq AS submit_seq, a.status AS status,
       a.last_state AS last_state,
       CASE WHEN worst IS NULL THEN a.exitcode ELSE worst.exitcode END AS exitcode,
       CASE WHEN worst IS NULL THEN a.signal ELSE worst.signal END AS signal,
       a.exitcode AS attempt_exitcode, a.signal AS attempt_signal, a.hostname AS host,
       a.start_time AS start_time, a.end_time AS end_time, a.held_reason AS held_reason,
       a.states AS states
ORDER BY job_id, attempt
