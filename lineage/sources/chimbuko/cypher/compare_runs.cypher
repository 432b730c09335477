// name: chimbuko/compare_runs
// purpose: The functions (matched by name) whose mean runtime or anomaly count differ most between two Chimbuko program runs.
// param run_a: string, required. The first Chimbuko program run (its uid). Example: "chimbuko:run:chimbuko-0a1b2c3d:0"
// param run_b: string, required. The second one. Example: "chimbuko:run:chimbuko-0a1b2c3d:1"
// param limit: integer, optional (default 20). How many rows. Example: 10
// returns: function, a_mean_runtime, b_mean_runtime, runtime_ratio, a_anomalies, b_anomalies, anomaly_delta
// note: the mean runtime is the global inclusive mean when func_stats were loaded, else the mean over the executions in the graph; anomaly counts likewise. Ranked by |anomaly_delta|, then by |log(runtime_ratio)|.
MATCH (f:Function)-[:PART_OF]->(run:ProgramRun)
WHERE run.uid IN [$run_a, $run_b]
OPTIONAL MATCH (e:FunctionExecution)-[:EXECUTES]->(f)
WHERE e.runtime_inclusive IS NOT NULL
WITH f, run, avg(e.runtime_inclusive) AS seen_mean
OPTIONAL MATCH (x:Anomaly)-[:EXECUTES]->(f)
WITH f, run, seen_mean, count(x) AS seen_anomalies
WITH f.name AS function, run.uid AS run_uid,
     coalesce(f.incl_mean, seen_mean) AS mean_runtime,
     coalesce(f.anomaly_count, seen_anomalies) AS anomalies
WITH function,
     max(CASE WHEN run_uid = $run_a THEN mean_runtime END) AS a_mean_runtime,
     max(CASE WHEN run_uid = $run_b THEN mean_runtime END) AS b_mean_runtime,
     coalesce(max(CASE WHEN run_uid = $run_a THEN anomalies END), 0) AS a_anomalies,
     coalesce(max(CASE WHEN run_uid = $run_b THEN anomalies END), 0) AS b_anomalies
WITH function, a_mean_runtime, b_mean_runtime, a_anomalies, b_anomalies,
     CASE WHEN a_mean_runtime > 0 AND b_mean_runtime > 0
          THEN toFloat(b_mean_runtime) / a_mean_runtime END AS runtime_ratio
RETURN function, a_mean_runtime, b_mean_runtime, runtime_ratio, a_anomalies, b_anomalies,
       b_anomalies - a_anomalies AS anomaly_delta
ORDER BY abs(b_anomalies - a_anomalies) DESC, coalesce(abs(log(runtime_ratio)), 0) DESC, function
LIMIT $limit
