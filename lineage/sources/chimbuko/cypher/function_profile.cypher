// name: chimbuko/function_profile
// purpose: Runtime statistics per Chimbuko function: from the normal executions in the graph (count, mean, min, max, standard deviation of the inclusive runtime; mean exclusive runtime where known) next to the global statistics the parameter server wrote (func_stats), and anomaly counts.
// param run: string, optional (default null = every program run). Only this Chimbuko program run (its uid). Example: "chimbuko:run:chimbuko-0a1b2c3d:0"
// param function: string, optional (default null = all). Only functions whose name contains this text. Example: "MPI_"
// param limit: integer, optional (default 100). How many rows. Example: 20
// returns: uid, function, pid, fid, normal_count, normal_mean, normal_min, normal_max, normal_stddev, normal_exclusive_count, normal_exclusive_mean, global_count, global_mean, global_stddev, global_exclusive_mean, global_anomalies, anomalies_seen
// note: one population for every normal_* column: the executions in the graph that have exited (a runtime) and were not flagged (is_anomaly = false), each once, whether a normalexecs record or a call-stack / window entry of an anomaly (tests/test_load_chimbuko.py recomputes count, mean and max from the JSON). The exclusive runtime is known only for executions that are records of their own (call-stack and window entries carry entry and exit, not exclusive time): normal_exclusive_mean is over normal_exclusive_count of them, null when none. global_* are the parameter server's own statistics over every execution it saw. Runtimes in microseconds.
MATCH (f:Function)
WHERE ($run IS NULL OR EXISTS { (f)-[:PART_OF]->(:Lineage:ProgramRun {uid: $run}) }) AND ($function IS NULL OR f.name CONTAINS $function)
OPTIONAL MATCH (e:FunctionExecution)-[:EXECUTES]->(f)
WHERE e.is_anomaly = false AND e.runtime_inclusive IS NOT NULL
WITH f, count(e) AS normal_count, avg(e.runtime_inclusive) AS normal_mean,
     min(e.runtime_inclusive) AS normal_min, max(e.runtime_inclusive) AS normal_max,
     stDev(e.runtime_inclusive) AS normal_stddev,
     count(e.runtime_exclusive) AS normal_exclusive_count,
     avg(e.runtime_exclusive) AS normal_exclusive_mean
OPTIONAL MATCH (x:Anomaly)-[:EXECUTES]->(f)
WITH f, normal_count, normal_mean, normal_min, normal_max, normal_stddev,
     normal_exclusive_count, normal_exclusive_mean, count(x) AS anomalies_seen
RETURN f.uid AS uid,
       f.name AS function,
       f.pid AS pid,
       f.fid AS fid,
       normal_count, normal_mean, normal_min, normal_max, normal_stddev,
       normal_exclusive_count, normal_exclusive_mean,
       f.incl_count AS global_count,
       f.incl_mean AS global_mean,
       f.incl_stddev AS global_stddev,
       f.excl_mean AS global_exclusive_mean,
       f.anomaly_count AS global_anomalies,
       anomalies_seen
ORDER BY coalesce(f.incl_mean * f.incl_count, normal_mean * normal_count, 0) DESC, uid
LIMIT $limit
