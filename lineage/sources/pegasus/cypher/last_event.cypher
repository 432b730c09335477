// name: pegasus/last_event
// purpose: When a workflow's stream last said something: the latest time among its own start and end and the states of the attempts of its jobs (for "last event 3 s ago" while it runs).
// param workflow: string, required. The workflow's uid. Example: "pegasus:workflow:48f759a4-165f-47d6-8c32-571649ce311b"
// returns: workflow, last_event
MATCH (w:Lineage:Workflow {uid: $workflow})
OPTIONAL MATCH (w)<-[:PART_OF]-(:Job)<-[:INSTANCE_OF]-(a:JobInstance)
WITH w, max(a.state_times[-1]) AS attempts
WITH w, [t IN [attempts, w.start_time, w.end_time] WHERE t IS NOT NULL] AS times
RETURN w.uid AS workflow, reduce(last = null, t IN times |
       CASE WHEN last IS NULL OR t > last THEN t ELSE last END) AS last_event
