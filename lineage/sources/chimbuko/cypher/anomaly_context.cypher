// name: chimbuko/anomaly_context
// purpose: The window around a Chimbuko execution: the executions just before and after it on its thread, its caller and callees, and the ranks its window exchanged MPI messages with.
// param uid: string, required. The execution's uid. Example: "chimbuko:event:chimbuko-0a1b2c3d:0:1:0:3969"
// param steps: integer, optional (default 5). How many executions before and after to show (at most 50). Example: 3
// pick uid: MATCH (a:Anomaly)-[:CALLED_BY]->(:FunctionExecution) RETURN a.uid ORDER BY a.outlier_severity DESC, a.uid LIMIT 1
// returns: relation, offset, uid, name, rank, entry, exit, is_anomaly, message_type, bytes, tag, timestamp
// note: relation is before, after, caller, callee, sent_to or received_from; offset counts executions away on the window (0 for the others).
MATCH (a:Lineage:FunctionExecution {uid: $uid})
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
RETURN relation,
       offset,
       n.uid AS uid,
       coalesce(n.name, n.event_id) AS name,
       n.rank AS rank,
       n.entry AS entry,
       n.exit AS exit,
       n:Anomaly AS is_anomaly,
       m.type AS message_type,
       m.bytes AS bytes,
       m.tag AS tag,
       m.timestamp AS timestamp
ORDER BY CASE relation WHEN 'caller' THEN 0 WHEN 'before' THEN 1 WHEN 'after' THEN 2
         WHEN 'callee' THEN 3 ELSE 4 END, offset, timestamp, uid
