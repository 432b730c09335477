// name: pegasus/statistics
// purpose: The summary pegasus-statistics prints for a workflow (optionally with its sub-workflows): jobs, tasks and sub-workflows by outcome with retries, workflow wall time, cumulative job wall time (kickstart and submit side) and badput.
// param workflow: string, required. The workflow's uid. Example: "pegasus:workflow:48f759a4-165f-47d6-8c32-571649ce311b"
// param recursive: boolean, optional (default false). Count the jobs of every sub-workflow below it too. Example: true
// param status: map, from the model. The statuses (lineage.model.status) by name, and the lists failures and problems.
// returns: workflow, label, status, workflows, jobs_total, jobs_succeeded, jobs_failed, jobs_held, jobs_running, jobs_unsubmitted, jobs_incomplete, job_retries, tasks_total, tasks_succeeded, tasks_failed, tasks_incomplete, task_retries, subworkflows_total, subworkflows_succeeded, subworkflows_failed, subworkflows_incomplete, subworkflow_retries, workflow_wall_time, restarts, cumulative_job_wall_time, cumulative_job_wall_time_submit_side, cumulative_badput
// note: the numbers of pegasus-statistics (Pegasus.statistics, Pegasus.db.workflow.stampede_statistics), checked
//       against pegasus-wms 5.1.3 by tests/test_pegasus_oracle.py. Jobs and tasks exclude sub-workflow jobs
//       (type dax/dag) and their tasks; those are the sub-workflows, counted by their job's outcome (a dax job
//       that failed to plan is a failed sub-workflow), with their retries (the extra attempts of those jobs:
//       "Sub-Workflows Retries"). incomplete = total - succeeded - failed (pegasus-analyzer calls those
//       unsubmitted). Tasks count by the invocations of their job's last attempt, a task killed by a signal (no
//       exit code) failed; task retries are the extra invocations of a task over all attempts. jobs_held counts jobs whose last attempt was ever
//       held (pegasus-analyzer's held list, which includes held-then-released jobs), so it overlaps the other
//       counts. Workflow wall time sums each start/end pair (restarts), and is null while starts and ends do
//       not pair up. Cumulative job wall time sums kickstart durations x multiplier of task invocations (not
//       DAGMan pre/post scripts, not condor::dagman); the submit side sums the attempts' local durations x
//       multiplier, leaving out, when recursive, the attempts that ran a sub-workflow (counted inside it). Like
//       pegasus-statistics' sums, these times are null when there is nothing to sum (no task invocation, no
//       local duration).
MATCH (top:Lineage:Workflow {uid: $workflow})
MATCH (wf:Workflow)-[:PART_OF*0..]->(top)
WHERE wf = top OR $recursive
WITH top, collect(wf) AS wfs
CALL (wfs) {
    UNWIND wfs AS wf
    MATCH (wf)<-[:PART_OF]-(job:Job)
    OPTIONAL MATCH (a:JobInstance)-[:INSTANCE_OF]->(job)
    WITH job, count(a) AS tries, max(a.submit_seq) AS last_seq, collect(a) AS attempts
    WITH job, tries, [x IN attempts WHERE x.submit_seq = last_seq][0] AS last
    WITH coalesce(job.type_desc, '') IN ['dax', 'dag'] AS subwf, tries,
         'JOB_HELD' IN coalesce(last.states, []) AS held,
         CASE WHEN tries = 0 THEN $status.unsubmitted ELSE coalesce(job.status, last.status) END AS status
    RETURN count(CASE WHEN NOT subwf THEN 1 END) AS jobs_total,
           count(CASE WHEN NOT subwf AND status = $status.succeeded THEN 1 END) AS jobs_succeeded,
           count(CASE WHEN NOT subwf AND status IN $status.failures THEN 1 END) AS jobs_failed,
           count(CASE WHEN held THEN 1 END) AS jobs_held,
           count(CASE WHEN NOT subwf AND status = $status.running THEN 1 END) AS jobs_running,
           count(CASE WHEN NOT subwf AND status = $status.unsubmitted THEN 1 END) AS jobs_unsubmitted,
           sum(CASE WHEN NOT subwf AND tries > 1 THEN tries - 1 ELSE 0 END) AS job_retries,
           count(CASE WHEN subwf THEN 1 END) AS subworkflows_total,
           count(CASE WHEN subwf AND status = $status.succeeded THEN 1 END) AS subworkflows_succeeded,
           count(CASE WHEN subwf AND status IN $status.failures THEN 1 END) AS subworkflows_failed,
           sum(CASE WHEN subwf AND tries > 1 THEN tries - 1 ELSE 0 END) AS subworkflow_retries
}
CALL (wfs) {
    UNWIND wfs AS wf
    OPTIONAL MATCH (wf)<-[:PART_OF]-(task:Task)<-[:RUNS_TASK]-(job:Job)
    WHERE NOT coalesce(task.type_desc, '') IN ['dax', 'dag']
    OPTIONAL MATCH (a:JobInstance)-[:INSTANCE_OF]->(job)
    WITH task, job, max(a.submit_seq) AS last_seq
    OPTIONAL MATCH (inv:Invocation)-[:RUNS_TASK]->(task)
    WITH task, collect(inv) AS runs,
         collect(CASE WHEN EXISTS { (inv)-[:PART_OF]->(:JobInstance {submit_seq: last_seq})-[:INSTANCE_OF]->(job) }
                      THEN inv END) AS final
    RETURN count(task) AS tasks_total,
           count(CASE WHEN any(inv IN final WHERE inv.exitcode = 0) THEN 1 END) AS tasks_succeeded,
           count(CASE WHEN any(inv IN final WHERE inv.exitcode <> 0 OR inv.signal IS NOT NULL)
                       AND none(inv IN final WHERE coalesce(inv.exitcode = 0, false)) THEN 1 END)
               AS tasks_failed,
           sum(CASE WHEN size(runs) > 1 THEN size(runs) - 1 ELSE 0 END) AS task_retries
}
CALL (wfs) {
    UNWIND wfs AS wf
    OPTIONAL MATCH (wf)<-[:PART_OF]-(job:Job)<-[:INSTANCE_OF]-(a:JobInstance)<-[:PART_OF]-(inv:Invocation)
    WHERE inv.inv_id >= 0 AND coalesce(inv.transformation, '') <> 'condor::dagman'
    WITH inv, coalesce(inv.duration, 0.0) * coalesce(a.multiplier_factor, 1) AS wall
    RETURN CASE WHEN count(inv) > 0 THEN sum(wall) END AS cumulative_job_wall_time,
           CASE WHEN count(inv) > 0
                THEN sum(CASE WHEN inv.exitcode > 0 OR inv.signal IS NOT NULL THEN wall ELSE 0.0 END)
           END AS cumulative_badput
}
CALL (wfs) {
    UNWIND wfs AS wf
    OPTIONAL MATCH (wf)<-[:PART_OF]-(:Job)<-[:INSTANCE_OF]-(a:JobInstance)
    WHERE NOT ($recursive AND EXISTS { (:Workflow)-[:WAS_STARTED_BY]->(a) })
    RETURN CASE WHEN count(a.local_duration) > 0
                THEN sum(a.local_duration * coalesce(a.multiplier_factor, 1)) END
           AS cumulative_job_wall_time_submit_side
}
WITH top, wfs, jobs_total, jobs_succeeded, jobs_failed, jobs_held, jobs_running, jobs_unsubmitted, job_retries,
     subworkflows_total, subworkflows_succeeded, subworkflows_failed, subworkflow_retries, tasks_total, tasks_succeeded, tasks_failed,
     task_retries, cumulative_job_wall_time, cumulative_badput, cumulative_job_wall_time_submit_side,
     [i IN range(0, size(coalesce(top.states, [])) - 1)
        | CASE top.states[i] WHEN 'WORKFLOW_STARTED' THEN -top.state_times[i] ELSE top.state_times[i] END] AS signed,
     size([s IN coalesce(top.states, []) WHERE s = 'WORKFLOW_STARTED']) AS starts
RETURN top.uid AS workflow, top.label AS label, top.status AS status, size(wfs) AS workflows,
       jobs_total, jobs_succeeded, jobs_failed, jobs_held, jobs_running, jobs_unsubmitted,
       jobs_total - jobs_succeeded - jobs_failed AS jobs_incomplete, job_retries,
       tasks_total, tasks_succeeded, tasks_failed, tasks_total - tasks_succeeded - tasks_failed AS tasks_incomplete,
       task_retries, subworkflows_total, subworkflows_succeeded, subworkflows_failed,
       subworkflows_total - subworkflows_succeeded - subworkflows_failed AS subworkflows_incomplete,
       subworkflow_retries,
       CASE WHEN top.states IS NULL THEN coalesce(top.wall_time, top.end_time - top.start_time)
            WHEN starts > 0 AND 2 * starts = size(top.states) THEN reduce(t = 0.0, x IN signed | t + x)
       END AS workflow_wall_time,
       top.restart_count AS restarts,
       cumulative_job_wall_time, cumulative_job_wall_time_submit_side, cumulative_badput
