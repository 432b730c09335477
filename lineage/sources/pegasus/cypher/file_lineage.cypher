// name: pegasus/file_lineage
// purpose: Which Pegasus jobs produced and which consumed a file (by logical file name), through the tasks they ran, with the file's checksum and physical location where the data has them (wf.map.file, workflow_files, rc_meta, rc_pfn).
// param lfn: string, required. The logical file name. Example: "f.d"
// param workflow: string, optional (default null = every workflow). Only the file of this workflow uid. Example: "pegasus:workflow:48f759a4-165f-47d6-8c32-571649ce311b"
// returns: file_uid, lfn, workflow, role, job_uid, job_id, task_id, status, checksum, pfn
// note: role is produced (WAS_GENERATED_BY), consumed (USED as input) or used (USED, direction unknown: wf.map.file
//       does not say). A file with no known producer or consumer is returned once with role null. A file is of
//       the workflow it is PART_OF (every reader states it).
MATCH (f:File {lfn: $lfn})
WHERE $workflow IS NULL OR EXISTS { (f)-[:PART_OF]->(:Lineage:Workflow {uid: $workflow}) }
CALL (f) {
    MATCH (f)-[:WAS_GENERATED_BY]->(act:Activity)
    RETURN act, 'produced' AS role
  UNION
    MATCH (act:Activity)-[u:USED]->(f)
    RETURN act, CASE u.direction WHEN 'unknown' THEN 'used' ELSE 'consumed' END AS role
}
OPTIONAL MATCH (job:Job)-[:RUNS_TASK]->(act)
WITH f, role, act, coalesce(job, CASE WHEN act:Job THEN act END) AS job
OPTIONAL MATCH (f)-[:PART_OF]->(wf:Workflow)
WITH f, role, act, job, collect(wf.uid)[0] AS workflow
RETURN f.uid AS file_uid, f.lfn AS lfn, workflow, role,
       job.uid AS job_uid, job.job_id AS job_id,
       CASE WHEN act:Task THEN act.task_id END AS task_id,
       job.status AS status, f.checksum AS checksum, f.pfn AS pfn
UNION
MATCH (f:File {lfn: $lfn})
WHERE ($workflow IS NULL OR EXISTS { (f)-[:PART_OF]->(:Lineage:Workflow {uid: $workflow}) })
  AND NOT EXISTS { (f)-[:WAS_GENERATED_BY]->() } AND NOT EXISTS { ()-[:USED]->(f) }
OPTIONAL MATCH (f)-[:PART_OF]->(wf:Workflow)
RETURN f.uid AS file_uid, f.lfn AS lfn, collect(wf.uid)[0] AS workflow, null AS role,
       null AS job_uid, null AS job_id, null AS task_id, null AS status,
       f.checksum AS checksum, f.pfn AS pfn
