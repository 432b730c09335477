// name: pegasus/statistics
// purpose: The summary pegasus-statistics prints for a workflow (optionally with its sub-workflows): jobs, tasks and sub-workflows by outcome with retries, workflow wall time, cumulative job wall time (kickstart and submit side) and badput.
// param workflow: string, required. The workflow's uid. Example: "pegasus:workflow:48f759a4-165f-47d6-8c32-571649ce311b"
// param recursive: boolean, optional (default false). Count the jobs of every sub-workflow below it too. Example: true
// returns: workflow, label, status, workflows, jobs_total, jobs_succeeded, jobs_failed, jobs_held, jobs_running, jobs_unsubmitted, jobs_incomplete, job_retries, tasks_total, tasks_succeeded, tasks_failed, tasks_incomplete, task_retries, subworkflows_total, subworkflows_succeeded, subworkflows_failed, workflow_wall_time, restarts, cumulative_job_wall_time, cumulative_job_wall_time_submit_side, cumulative_badput
// note: incomplete = total - succeeded - failed (pegasus-statistics); pegasus-analyzer reports those as unsubmitted.
//       Cumulative job wall time sums kickstart durations x multiplier of task invocations (not DAGMan pre/post
//       scripts, not condor::dagman); the submit side sums the attempts' local durations.
MATCH (top:Workflow {uid: $workflow})
MATCH (wf:Workflow)-[:PART_OF*0..]->(top)
WHERE wf = top OR $recursive
WITH top, collect(wf) AS wfs
CALL (wfs) {
    UNWIND wfs AS wf
    MATCH (wf)<-[:PART_OF]-(job:Job)
    OPTIONAL MATCH (a:JobInstance)-[:INSTANCE_OF]->(job)
    WITH job, count(a) AS tries, max(a.submit_seq) AS last_seq, collect(a) AS attempts
    WITH job, tries, [x IN attempts WHERE x.submit_seq = last_seq][0] AS last
    WITH CASE WHEN tries = 0 THEN 'unsubmitted' ELSE coalesce(job.status, last.status) END AS status, tries
    RETURN count(*) AS jobs_total,
           count(CASE WHEN status = 'succeeded' THEN 1 END) AS jobs_succeeded,
           count(CASE WHEN status = 'failed' THEN 1 END) AS jobs_failed,
           count(CASE WHEN status = 'held' THEN 1 END) AS jobs_held,
           count(CASE WHEN status = 'running' THEN 1 END) AS jobs_running,
           count(CASE WHEN status = 'unsubmitted' THEN 1 END) AS jobs_unsubmitted,
           sum(CASE WHEN tries > 1 THEN tries - 1 ELSE 0 END) AS job_retries
}
CALL (wfs) {
    UNWIND wfs AS wf
    OPTIONAL MATCH (wf)<-[:PART_OF]-(task:Task)
    OPTIONAL MATCH (inv:Invocation)-[:RUNS_TASK]->(task)
    WITH task, count(inv) AS runs, count(CASE WHEN inv.exitcode = 0 THEN 1 END) AS ok
    RETURN count(task) AS tasks_total,
           count(CASE WHEN ok > 0 THEN 1 END) AS tasks_succeeded,
           count(CASE WHEN runs > 0 AND ok = 0 THEN 1 END) AS tasks_failed,
           sum(CASE WHEN runs > 1 THEN runs - 1 ELSE 0 END) AS task_retries
}
CALL (wfs) {
    UNWIND wfs AS wf
    OPTIONAL MATCH (wf)<-[:PART_OF]-(job:Job)<-[:INSTANCE_OF]-(a:JobInstance)<-[:PART_OF]-(inv:Invocation)
    WHERE inv.inv_id >= 0 AND coalesce(inv.transformation, '') <> 'condor::dagman'
    WITH inv, coalesce(inv.duration, 0.0) * coalesce(a.multiplier_factor, 1) AS wall
    RETURN sum(wall) AS cumulative_job_wall_time,
           sum(CASE WHEN inv.exitcode > 0 OR inv.signal IS NOT NULL THEN wall ELSE 0.0 END) AS cumulative_badput
}
CALL (wfs) {
    UNWIND wfs AS wf
    OPTIONAL MATCH (wf)<-[:PART_OF]-(:Job)<-[:INSTANCE_OF]-(a:JobInstance)
    RETURN sum(coalesce(a.local_duration, a.duration, 0.0)) AS cumulative_job_wall_time_submit_side
}
CALL (top, wfs) {
    OPTIONAL MATCH (sub:Workflow)-[:PART_OF]->(parent:Workflow)
    WHERE parent IN wfs AND (sub IN wfs OR NOT $recursive)
    RETURN count(sub) AS subworkflows_total,
           count(CASE WHEN sub.status = 'succeeded' THEN 1 END) AS subworkflows_succeeded,
           count(CASE WHEN sub.status = 'failed' THEN 1 END) AS subworkflows_failed
}
RETURN top.uid AS workflow, top.label AS label, top.status AS status, size(wfs) AS workflows,
       jobs_total, jobs_succeeded, jobs_failed, jobs_held, jobs_running, jobs_unsubmitted,
       jobs_total - jobs_succeeded - jobs_failed AS jobs_incomplete, job_retries,
       tasks_total, tasks_succeeded, tasks_failed, tasks_total - tasks_succeeded - tasks_failed AS tasks_incomplete,
       task_retries, subworkflows_total, subworkflows_succeeded, subworkflows_failed,
       coalesce(top.wall_time, top.end_time - top.start_time) AS workflow_wall_time,
       top.restart_count AS restarts,
       cumulative_job_wall_time, cumulative_job_wall_time_submit_side, cumulative_badput
