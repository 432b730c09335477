// name: swift/correlate_parameter_runtime
// purpose: SPQL correlate_parameter_runtime(): for every use or production of a parameter by a call of a Swift run, the run's start time and duration next to the dataset's value (null when the dataset is a file; its file name is given too).
// param parameter: string, required. The parameter name. Example: "m"
// returns: uid, run_id, start_time, duration, parameter, value, filename, call_id, dataset_id
MATCH (run:ScriptRun)<-[:PART_OF]-(call:FunctionCall)-[io:USED|WAS_GENERATED_BY]-(d:Dataset)
WHERE io.parameter = $parameter
RETURN run.uid AS uid,
       run.run_id AS run_id,
       run.start_time AS start_time,
       run.duration AS duration,
       io.parameter AS parameter,
       d.value AS value,
       d.filename AS filename,
       call.call_id AS call_id,
       d.dataset_id AS dataset_id
ORDER BY start_time, uid, call_id, dataset_id
