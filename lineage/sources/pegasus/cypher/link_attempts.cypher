// name: pegasus/link_attempts
// purpose: Every Pegasus job attempt as lineage link compares it: scheduler id, host and times.
// returns: uid, sched_id, host, user, start_time, end_time
MATCH (j:JobInstance)
RETURN j.uid AS uid, j.sched_id AS sched_id, j.hostname AS host, j.user AS user,
       j.start_time AS start_time, j.end_time AS end_time
