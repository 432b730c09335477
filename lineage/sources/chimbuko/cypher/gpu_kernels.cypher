// name: chimbuko/gpu_kernels
// purpose: Chimbuko GPU executions (kernels, memory copies) with their device, context and stream and the CPU function execution that launched them, slowest first.
// param run: string, optional (default null = every program run). Only this Chimbuko program run (its uid). Example: "chimbuko:run:chimbuko-0a1b2c3d:0"
// param limit: integer, optional (default 100). How many rows. Example: 20
// returns: uid, kernel, device, context, stream, runtime, is_anomaly, cpu_parent_uid, cpu_parent_function, cpu_thread
MATCH (g:FunctionExecution)
WHERE g.is_gpu_event = true
  AND ($run IS NULL OR EXISTS { (g)-[:PART_OF]->(:Rank)-[:PART_OF]->(:Lineage:ProgramRun {uid: $run}) })
OPTIONAL MATCH (g)-[l:LAUNCHED_ON]->(cpu:FunctionExecution)
OPTIONAL MATCH (cpu)-[:EXECUTES]->(cf:Function)
RETURN g.uid AS uid,
       g.function AS kernel,
       coalesce(l.device, g.gpu_device) AS device,
       coalesce(l.context, g.gpu_context) AS context,
       coalesce(l.stream, g.gpu_stream) AS stream,
       g.runtime_inclusive AS runtime,
       g:Anomaly AS is_anomaly,
       cpu.uid AS cpu_parent_uid,
       coalesce(cf.name, cpu.function) AS cpu_parent_function,
       cpu.thread AS cpu_thread
ORDER BY runtime DESC, uid
LIMIT $limit
