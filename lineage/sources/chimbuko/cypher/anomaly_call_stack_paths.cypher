// name: chimbuko/anomaly_call_stack_paths
// purpose: The call stack of a Chimbuko function execution as a graph for Neo4j Browser: the chain of CALLED_BY edges from the execution up to the root of its thread (at most max_depth frames), and each frame's EXECUTES edge to its function.
// param uid: string, required. The execution's uid. Example: "chimbuko:event:chimbuko-0a1b2c3d:0:1:0:11291"
// param max_depth: integer, optional (default 64). At most this many caller frames. Example: 64
// pick uid: MATCH (a:Anomaly)-[:CALLED_BY]->(:FunctionExecution) RETURN a.uid ORDER BY a.outlier_severity DESC, a.uid LIMIT 1
// returns: path
// note: a call stack is a chain (each frame has one caller), so the stack is one path; anomalous frames have the Anomaly label (red in the guide's style).
MATCH (start:Lineage:FunctionExecution {uid: $uid})
MATCH p = (start)-[:CALLED_BY*0..]->(frame:FunctionExecution)
WITH start, frame, min(length(p)) AS depth
WHERE depth <= $max_depth
WITH start, collect(frame) AS frames
CALL (start, frames) {
  MATCH path = (start)-[:CALLED_BY*0..]->(top:FunctionExecution)
  WHERE top IN frames AND NOT EXISTS { MATCH (top)-[:CALLED_BY]->(up) WHERE up IN frames }
  RETURN path LIMIT 1
  UNION
  UNWIND frames AS frame
  MATCH path = (frame)-[:EXECUTES]->(:Function)
  RETURN path
}
RETURN path
