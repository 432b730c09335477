// name: chimbuko/anomaly_details
// purpose: For a list of Chimbuko executions (usually anomalies) in one query: each one's call stack (as chimbuko/anomaly_call_stack) and its execution window (as chimbuko/anomaly_context): what a report ships so that a click on an anomaly shows both without a server.
// param uids: list, required. The executions' uids. Example: ["chimbuko:event:chimbuko-0a1b2c3d:0:0:27:0"]
// param steps: integer, optional (default 5). How many executions before and after each to show (at most 50). Example: 3
// pick uids: MATCH (a:Anomaly) RETURN a.uid ORDER BY a.outlier_severity DESC, a.uid LIMIT 5
// returns: uid, stack, window
// note: one row per uid found, in the order given. stack: frames root first, each {level, uid, function, fid, event_id, entry, exit, runtime, is_anomaly}; window: entries {relation, offset, uid, name, function, rank, entry, exit, runtime, is_anomaly, message_type, bytes, tag, timestamp} in anomaly_context's order (caller, before, after, callees, messages). One round trip instead of two per execution.
UNWIND range(0, size($uids) - 1) AS i
MATCH (a:Lineage {uid: $uids[i]}) WHERE a:FunctionExecution
CALL (a) {
  MATCH p = (a)-[:CALLED_BY*0..]->(frame:FunctionExecution)
  WITH frame, min(length(p)) AS depth
  OPTIONAL MATCH (frame)-[:EXECUTES]->(fn:Function)
  WITH frame, depth, fn ORDER BY depth DESC
  WITH collect({depth: depth, uid: frame.uid, function: coalesce(fn.name, frame.function),
                fid: frame.fid, event_id: frame.event_id, entry: frame.entry, exit: frame.exit,
                runtime: frame.runtime_inclusive, is_anomaly: frame:Anomaly}) AS frames,
       max(depth) AS deepest
  RETURN [f IN frames | f {.uid, .function, .fid, .event_id, .entry, .exit, .runtime, .is_anomaly,
                           level: deepest - f.depth}] AS stack
}
CALL (a) {
  CALL (a) {
    MATCH p = (n:FunctionExecution)-[:FOLLOWED_BY*1..50]->(a)
    WITH n, min(length(p)) AS d WHERE d <= $steps
    RETURN n, 'before' AS relation, -d AS offset, null AS m
    UNION ALL
    MATCH p = (a)-[:FOLLOWED_BY*1..50]->(n:FunctionExecution)
    WITH n, min(length(p)) AS d WHERE d <= $steps
    RETURN n, 'after' AS relation, d AS offset, null AS m
    UNION ALL
    MATCH (a)-[:CALLED_BY]->(n:FunctionExecution)
    RETURN n, 'caller' AS relation, 0 AS offset, null AS m
    UNION ALL
    MATCH (n:FunctionExecution)-[:CALLED_BY]->(a)
    RETURN n, 'callee' AS relation, 0 AS offset, null AS m
    UNION ALL
    MATCH p = (w:FunctionExecution)-[:FOLLOWED_BY*0..50]-(a)
    WITH DISTINCT w, min(length(p)) AS d WHERE d <= $steps
    MATCH (w)-[m:SENT_MESSAGE]->(n:Rank)
    RETURN n, 'sent_to' AS relation, 0 AS offset, m
    UNION ALL
    MATCH p = (w:FunctionExecution)-[:FOLLOWED_BY*0..50]-(a)
    WITH DISTINCT w, min(length(p)) AS d WHERE d <= $steps
    MATCH (n:Rank)-[m:SENT_MESSAGE]->(w)
    RETURN n, 'received_from' AS relation, 0 AS offset, m
  }
  WITH n, relation, offset, m
  ORDER BY CASE relation WHEN 'caller' THEN 0 WHEN 'before' THEN 1 WHEN 'after' THEN 2
           WHEN 'callee' THEN 3 ELSE 4 END, offset, m.timestamp, n.uid
  RETURN collect({relation: relation, offset: offset, uid: n.uid,
                  name: coalesce(n.name, n.event_id), function: n.function, rank: n.rank,
                  entry: n.entry, exit: n.exit, runtime: n.runtime_inclusive,
                  is_anomaly: n:Anomaly, message_type: m.type, bytes: m.bytes, tag: m.tag,
                  timestamp: m.timestamp}) AS window
}
RETURN a.uid AS uid, stack, window
ORDER BY i
