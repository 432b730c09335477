// name: swift/runs_touching_file
// purpose: The Swift script runs that produced or consumed a file: runs with a call that used, or produced, a dataset mapped to that file name (given whole, e.g. file://localhost/x.out, or as its last part, e.g. x.out).
// param filename: string, required. The file name or its last path part. Example: "130-fmri.0001.jpeg"
// returns: uid, run_id, script, start_time, status, consumed, produced, files
MATCH (d:Dataset)
WHERE d.filename = $filename OR d.filename ENDS WITH '/' + $filename
MATCH (run:ScriptRun)<-[:PART_OF]-(:FunctionCall)-[io:USED|WAS_GENERATED_BY]-(d)
WITH run, collect(DISTINCT d.filename) AS files,
     sum(CASE WHEN type(io) = 'USED' THEN 1 ELSE 0 END) > 0 AS consumed,
     sum(CASE WHEN type(io) = 'WAS_GENERATED_BY' THEN 1 ELSE 0 END) > 0 AS produced
RETURN run.uid AS uid,
       run.run_id AS run_id,
       run.name AS script,
       run.start_time AS start_time,
       run.status AS status,
       consumed,
       produced,
       files
ORDER BY start_time, uid
