// name: pegasus/link_invocations
// purpose: Every process a Pegasus job attempt ran (kickstart invocation) as lineage link compares it: program, host of its attempt and times.
// returns: uid, attempt, host, exec_path, argv, start_time, end_time
MATCH (i:Invocation)
OPTIONAL MATCH (i)-[:PART_OF]->(j:JobInstance)
RETURN i.uid AS uid, j.uid AS attempt, j.hostname AS host, i.executable AS exec_path,
       i.argv AS argv, i.start_time AS start_time, i.end_time AS end_time
