// name: xalt/link_runs
// purpose: Every XALT run as lineage link compares it: scheduler job id, execution host, program, owner, times and whether its record's crc held.
// returns: uid, job_id, host, syshost, exec_path, sha1, cmdline, user, crc_status, start_time, end_time
// note: end_time is null for a run whose end record is missing; crc_status is ok, bad, missing or unchecked.
MATCH (x:Execution)
RETURN x.uid AS uid, x.job_id AS job_id, x.hostname AS host, x.syshost AS syshost,
       x.exec_path AS exec_path, x.sha1 AS sha1, x.cmdline AS cmdline, x.user AS user,
       x.crc_status AS crc_status, x.start_time AS start_time, x.end_time AS end_time
