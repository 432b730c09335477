// name: chimbuko/anomaly_call_stack
// purpose: The call stack of a Chimbuko function execution (usually an anomaly), from the root of the thread down to the execution itself, each frame with its function, times and whether it was anomalous.
// param uid: string, required. The execution's uid. Example: "chimbuko:event:chimbuko-0a1b2c3d:0:1:0:11291"
// pick uid: MATCH (a:Anomaly)-[:CALLED_BY]->(:FunctionExecution) RETURN a.uid ORDER BY a.outlier_severity DESC, a.uid LIMIT 1
// returns: level, uid, function, fid, event_id, entry, exit, runtime, is_anomaly
// note: follows CALLED_BY (callee -> caller) outward; a call stack is a chain, so the cost is its depth.
MATCH (start:Lineage:FunctionExecution {uid: $uid})
MATCH p = (start)-[:CALLED_BY*0..]->(frame:FunctionExecution)
WITH frame, min(length(p)) AS depth
WITH collect({frame: frame, depth: depth}) AS frames, max(depth) AS deepest
UNWIND frames AS f
WITH f.frame AS frame, deepest - f.depth AS level
OPTIONAL MATCH (frame)-[:EXECUTES]->(fn:Function)
RETURN level,
       frame.uid AS uid,
       coalesce(fn.name, frame.function) AS function,
       frame.fid AS fid,
       frame.event_id AS event_id,
       frame.entry AS entry,
       frame.exit AS exit,
       frame.runtime_inclusive AS runtime,
       frame:Anomaly AS is_anomaly
ORDER BY level
