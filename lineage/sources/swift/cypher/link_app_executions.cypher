// name: swift/link_app_executions
// purpose: Every Swift app execution as lineage link compares it: app name, site and times.
// returns: uid, app_name, site, job_id, start_time, end_time
MATCH (a:AppExecution)
RETURN a.uid AS uid, a.app_name AS app_name, a.site AS site, a.job_id AS job_id,
       a.start_time AS start_time, coalesce(a.end_time, a.start_time + a.duration) AS end_time
