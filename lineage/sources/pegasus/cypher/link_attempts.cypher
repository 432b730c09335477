// name: pegasus/link_attempts
// purpose: Every Pegasus job attempt as lineage link compares it: scheduler id, host, times and owners (the attempt's user and its workflow's submitting user).
// returns: uid, sched_id, host, user, workflow_user, start_time, end_time
MATCH (j:JobInstance)
OPTIONAL MATCH (j)-[:INSTANCE_OF]->(:Job)-[:PART_OF]->(w:Workflow)
RETURN j.uid AS uid, j.sched_id AS sched_id, j.hostname AS host, j.user AS user,
       w.user AS workflow_user, j.start_time AS start_time, j.end_time AS end_time
