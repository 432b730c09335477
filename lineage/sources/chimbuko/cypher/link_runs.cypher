// name: chimbuko/link_runs
// purpose: Every Chimbuko program run as lineage link compares it: the hosts, executables, command lines and starting timestamps (microseconds) of its ranks.
// returns: uid, hosts, executables, command_lines, first_start_us, first_entry_us, last_exit_us
// note: first_entry_us / last_exit_us are the time range of its recorded function executions.
MATCH (p:ProgramRun)
OPTIONAL MATCH (r:Rank)-[:PART_OF]->(p)
WITH p, collect(DISTINCT r.hostname) AS hosts,
     collect(DISTINCT coalesce(r.executable, p.executable)) AS executables,
     collect(DISTINCT coalesce(r.command_line, p.command_line)) AS command_lines,
     min(toIntegerOrNull(r.start_timestamp)) AS first_start_us
CALL (p) {
  OPTIONAL MATCH (e:FunctionExecution)-[:PART_OF]->(:Rank)-[:PART_OF]->(p)
  WHERE e.entry > 0
  RETURN min(e.entry) AS first_entry_us, max(e.exit) AS last_exit_us
}
RETURN p.uid AS uid, hosts, executables + [p.executable] AS executables,
       command_lines + [p.command_line] AS command_lines, first_start_us, first_entry_us,
       last_exit_us
