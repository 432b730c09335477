// name: swift/compare_run
// purpose: SPQL compare_run(): one row per Swift script run with the values of the named parameters (primitive values the run's calls used or produced under that parameter name) and of the named annotation keys (numeric or text, on the run, its calls, the datasets they used or produced, and those datasets' members); as SPQL's inner join, only runs that have a value for every name.
// param parameters: list of strings, optional (default []). Parameter names. Example: ["m"]
// param annotation_keys: list of strings, optional (default []). Annotation keys (stored as annot_<key> properties). Example: ["temperature"]
// returns: uid, run_id, script, start_time, status, parameters, annotations
// note: parameters and annotations are lists of {name, values}, in the order asked; values are distinct, numbers stay numbers.
MATCH (run:ScriptRun)
WITH run,
     [name IN coalesce($parameters, []) | {name: name, values: reduce(acc = [], v IN
        [(run)<-[:PART_OF]-(:FunctionCall)-[io:USED|WAS_GENERATED_BY]-(d:Dataset)
         WHERE io.parameter = name AND d.value IS NOT NULL | d.value]
        | CASE WHEN v IN acc THEN acc ELSE acc + v END)}] AS parameters,
     [key IN coalesce($annotation_keys, []) | {name: key, values: reduce(acc = [], v IN
        [run['annot_' + key]]
        + [(run)<-[:PART_OF]-(c:FunctionCall) WHERE c['annot_' + key] IS NOT NULL | c['annot_' + key]]
        + [(run)<-[:PART_OF]-(:FunctionCall)-[:USED|WAS_GENERATED_BY]-(d:Dataset)
           WHERE d['annot_' + key] IS NOT NULL | d['annot_' + key]]
        + [(run)<-[:PART_OF]-(:FunctionCall)-[:USED|WAS_GENERATED_BY]-(:Dataset)-[:HAD_MEMBER]->(m:Dataset)
           WHERE m['annot_' + key] IS NOT NULL | m['annot_' + key]]
        | CASE WHEN v IS NULL OR v IN acc THEN acc ELSE acc + v END)}] AS annotations
WHERE all(column IN parameters + annotations WHERE size(column.values) > 0)
RETURN run.uid AS uid,
       run.run_id AS run_id,
       run.name AS script,
       run.start_time AS start_time,
       run.status AS status,
       parameters,
       annotations
ORDER BY start_time, uid
