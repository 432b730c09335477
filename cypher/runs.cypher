// name: runs
// purpose: Every top-level execution in the graph (Pegasus workflows, Swift script runs, Chimbuko program runs, XALT executions), newest first.
// param kind: string, optional (default null = all kinds). Only runs of this kind label. Example: "Workflow"
// returns: uid, kind, name, status, start_time, end_time
MATCH (r:Run)
WITH r, r.kind AS kind
WHERE $kind IS NULL OR kind = $kind
RETURN r.uid AS uid, kind, coalesce(r.name, r.uid) AS name, r.status AS status,
       r.start_time AS start_time, r.end_time AS end_time
ORDER BY start_time DESC, uid
