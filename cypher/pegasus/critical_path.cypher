// name: pegasus/critical_path
// purpose: The critical path of a Pegasus workflow: the chain of dependent jobs (WAS_INFORMED_BY) whose summed durations (last attempt, end - start) is the largest, in execution order with the running total.
// param workflow: string, required. The workflow's uid. Example: "pegasus:workflow:f84f05fc-a8d0-42b5-bac5-52d6f41a77e3"
// returns: step, job_uid, job_id, type, status, duration, start_time, end_time, cumulative, total
// note: longest path by dynamic programming over the jobs in start-time order (a topological order for jobs that ran;
//       jobs that never ran count 0 and come last). Pure Cypher without procedures: the cost grows with jobs x edges,
//       fine for workflows up to a few thousand jobs.
MATCH (wf:Workflow {uid: $workflow})<-[:PART_OF]-(job:Job)
OPTIONAL MATCH (a:JobInstance)-[:INSTANCE_OF]->(job)
WITH job, a ORDER BY a.submit_seq DESC
WITH job, collect(a)[0] AS last
WITH job, last, coalesce(last.duration, last.end_time - last.start_time, 0.0) AS duration
ORDER BY last.start_time, last.end_time, job.job_id
WITH collect({job: job, last: last, duration: duration}) AS jobs
UNWIND range(0, size(jobs) - 1) AS i
WITH jobs, i, jobs[i].job AS job
OPTIONAL MATCH (job)-[:WAS_INFORMED_BY]->(parent:Job)
WITH jobs, i, collect(parent) AS parents
WITH jobs, i, [k IN range(0, i - 1) WHERE jobs[k].job IN parents] AS before
ORDER BY i
WITH jobs, collect(before) AS preds
WITH jobs, preds,
     reduce(acc = {best: [], prev: []}, i IN range(0, size(jobs) - 1) |
       CASE
         WHEN size(preds[i]) = 0 THEN {best: acc.best + [jobs[i].duration], prev: acc.prev + [-1]}
         ELSE {best: acc.best + [jobs[i].duration + reduce(b = acc.best[preds[i][0]], k IN preds[i] |
                                    CASE WHEN acc.best[k] > b THEN acc.best[k] ELSE b END)],
               prev: acc.prev + [reduce(p = preds[i][0], k IN preds[i] |
                                    CASE WHEN acc.best[k] > acc.best[p] THEN k ELSE p END)]}
       END) AS dp
WITH jobs, dp, reduce(e = 0, i IN range(0, size(jobs) - 1) | CASE WHEN dp.best[i] > dp.best[e] THEN i ELSE e END) AS finish
WITH jobs, dp, finish,
     reduce(path = [finish], x IN range(1, size(jobs)) |
       CASE WHEN dp.prev[path[0]] = -1 THEN path ELSE [dp.prev[path[0]]] + path END) AS path
UNWIND range(0, size(path) - 1) AS step
WITH jobs, dp, path, step, jobs[path[step]] AS row
RETURN step + 1 AS step,
       row.job.uid AS job_uid,
       row.job.job_id AS job_id,
       row.job.type_desc AS type,
       row.job.status AS status,
       row.duration AS duration,
       row.last.start_time AS start_time,
       row.last.end_time AS end_time,
       dp.best[path[step]] AS cumulative,
       dp.best[path[size(path) - 1]] AS total
ORDER BY step
