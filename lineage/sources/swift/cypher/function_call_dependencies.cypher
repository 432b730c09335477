// name: swift/function_call_dependencies
// purpose: SPQL function_call_dependencies(): only the function calls a Swift function call depends on (the calls that produced what it used, transitively), with the shortest distance.
// param call: string, required. The call's id ("<run id>:<thread>") or its uid. Example: "130-fmri-20090316-1729-mxxea3a1:0-10-1"
// returns: uid, id, type, name, app_name, depth
// note: pruning breadth-first expand; a call is never its own dependency.
CALL () {
  MATCH (start:Lineage {uid: $call}) RETURN start
  UNION
  MATCH (start:FunctionCall {call_id: $call}) RETURN start
}
MATCH p = (start)-[:USED|WAS_GENERATED_BY*1..]->(dependency:FunctionCall)
WITH start, dependency, min(length(p)) AS depth
WHERE dependency <> start
RETURN dependency.uid AS uid,
       dependency.call_id AS id,
       dependency.type AS type,
       dependency.name AS name,
       dependency.app_name AS app_name,
       depth
ORDER BY depth, uid
