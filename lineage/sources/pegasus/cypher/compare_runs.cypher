// name: pegasus/compare_runs
// purpose: Compare two runs of one workflow (two Workflow nodes, normally with the same label): jobs added or removed, and jobs whose status, duration or host changed, matched by job id.
// param first: string, required. The uid of the earlier (reference) run. Example: "pegasus:workflow:f84f05fc-a8d0-42b5-bac5-52d6f41a77e3"
// param second: string, required. The uid of the later run. Example: "pegasus:workflow:f84f05fc-a8d0-42b5-bac5-52d6f41a77e4"
// param min_change: float, optional (default 0.0). Report a duration change only when it is larger than this many seconds. Example: 5.0
// param all: boolean, optional (default false). Also list the jobs that did not change. Example: true
// param status: map, from the model. The statuses (lineage.model.status) by name, and the lists failures and problems.
// returns: job_id, change, status_first, status_second, duration_first, duration_second, duration_change, host_first, host_second, same_label
// note: change is one of added, removed, changed (status, duration and/or host differ; see the columns) or same.
MATCH (a:Lineage:Workflow {uid: $first}), (b:Lineage:Workflow {uid: $second})
CALL (a) {
    MATCH (a)<-[:PART_OF]-(job:Job)
    OPTIONAL MATCH (x:JobInstance)-[:INSTANCE_OF]->(job)
    WITH job, x ORDER BY x.submit_seq DESC
    WITH job, collect(x) AS xs
    RETURN collect({id: job.job_id,
                    status: CASE WHEN size(xs) = 0 THEN $status.unsubmitted ELSE coalesce(job.status, xs[0].status) END,
                    duration: coalesce(xs[0].duration, xs[0].end_time - xs[0].start_time),
                    host: coalesce(xs[0].hostname, job.host)}) AS first_jobs
}
CALL (b) {
    MATCH (b)<-[:PART_OF]-(job:Job)
    OPTIONAL MATCH (x:JobInstance)-[:INSTANCE_OF]->(job)
    WITH job, x ORDER BY x.submit_seq DESC
    WITH job, collect(x) AS xs
    RETURN collect({id: job.job_id,
                    status: CASE WHEN size(xs) = 0 THEN $status.unsubmitted ELSE coalesce(job.status, xs[0].status) END,
                    duration: coalesce(xs[0].duration, xs[0].end_time - xs[0].start_time),
                    host: coalesce(xs[0].hostname, job.host)}) AS second_jobs
}
WITH a, b, first_jobs, second_jobs,
     [j IN first_jobs | j.id] + [j IN second_jobs WHERE NOT j.id IN [k IN first_jobs | k.id] | j.id] AS ids
UNWIND ids AS id
WITH a, b, id, [j IN first_jobs WHERE j.id = id][0] AS x, [j IN second_jobs WHERE j.id = id][0] AS y
WITH a, b, id, x, y,
     CASE WHEN x IS NOT NULL AND y IS NOT NULL THEN y.duration - x.duration END AS delta
WITH a, b, id, x, y, delta,
     CASE
       WHEN x IS NULL THEN 'added'
       WHEN y IS NULL THEN 'removed'
       WHEN x.status <> y.status
            OR (delta IS NOT NULL AND abs(delta) > $min_change)
            OR coalesce(x.host, '') <> coalesce(y.host, '') THEN 'changed'
       ELSE 'same'
     END AS change
WHERE change <> 'same' OR $all
RETURN id AS job_id, change,
       x.status AS status_first, y.status AS status_second,
       x.duration AS duration_first, y.duration AS duration_second, delta AS duration_change,
       x.host AS host_first, y.host AS host_second,
       a.label = b.label AS same_label
ORDER BY CASE change WHEN 'added' THEN 0 WHEN 'removed' THEN 1 WHEN 'changed' THEN 2 ELSE 3 END, job_id
