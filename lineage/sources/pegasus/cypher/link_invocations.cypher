// name: pegasus/link_invocations
// purpose: Every process a Pegasus job attempt ran (kickstart invocation) as lineage link compares it: program, host of its attempt, times and owners (the attempt's user and its workflow's submitting user).
// returns: uid, attempt, host, exec_path, argv, user, workflow_user, start_time, end_time
MATCH (i:Invocation)
OPTIONAL MATCH (i)-[:PART_OF]->(j:JobInstance)
OPTIONAL MATCH (j)-[:INSTANCE_OF]->(:Job)-[:PART_OF]->(w:Workflow)
RETURN i.uid AS uid, j.uid AS attempt, j.hostname AS host, i.executable AS exec_path,
       i.argv AS argv, j.user AS user, w.user AS workflow_user, i.start_time AS start_time,
       i.end_time AS end_time
