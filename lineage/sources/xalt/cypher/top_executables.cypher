// name: xalt/top_executables
// purpose: The executables XALT saw run most, by number of runs, distinct users or core-hours (cores times run time of the runs that ended), like XALT's usage report.
// param order_by: string, optional (default "runs"). What to rank by: runs, users or core_hours. Example: "core_hours"
// param syshost: string, optional (default null = every system). Only runs on this XALT syshost. Example: "stampede2"
// param limit: integer, optional (default 20). At most this many executables. Example: 10
// returns: uid, name, path, sha1, runs, users, core_hours, first_run, last_run
// note: an executable is one binary content (sha1); a run with no end record counts as a run with 0 core-hours.
MATCH (r:Execution)-[:USED {role: 'executable'}]->(e:Executable)
WHERE $syshost IS NULL OR r.syshost = $syshost
WITH e,
     count(DISTINCT r) AS runs,
     count(DISTINCT r.user) AS users,
     sum(coalesce(r.cores, 1) * coalesce(r.run_time, 0.0)) / 3600.0 AS core_hours,
     min(r.start_time) AS first_run,
     max(r.start_time) AS last_run
RETURN e.uid AS uid, e.name AS name, e.path AS path, e.sha1 AS sha1,
       runs, users, core_hours, first_run, last_run
ORDER BY CASE $order_by
           WHEN 'users' THEN toFloat(users)
           WHEN 'core_hours' THEN core_hours
           ELSE toFloat(runs)
         END DESC, runs DESC, uid
LIMIT $limit
