// name: pegasus/workflow_jobs_paths
// purpose: The job graph of a Pegasus workflow for Neo4j Browser: its jobs (at most limit) and their dependencies (WAS_INFORMED_BY, child to parent), each dependency a one-hop path and each job without one a zero-length path.
// param workflow: string, required. The workflow's uid. Example: "pegasus:workflow:f84f05fc-a8d0-42b5-bac5-52d6f41a77e3"
// param limit: integer, optional (default 300). At most this many jobs (by job id). Example: 300
// pick workflow: MATCH (w:Workflow)<-[:PART_OF]-(:Job)-[:WAS_INFORMED_BY]->(:Job) RETURN w.uid ORDER BY w.uid LIMIT 1
// returns: path
// note: Browser colours nodes by label only, so a job's status is in its properties (click a node), not its colour.
MATCH (wf:Lineage:Workflow {uid: $workflow})<-[:PART_OF]-(job:Job)
WITH job ORDER BY job.job_id LIMIT $limit
WITH collect(job) AS jobs
UNWIND jobs AS job
CALL (job, jobs) {
  MATCH path = (job)-[:WAS_INFORMED_BY]->(parent:Job)
  WHERE parent IN jobs
  RETURN path
  UNION
  MATCH path = (job)
  WHERE NOT EXISTS { MATCH (job)-[:WAS_INFORMED_BY]-(other:Job) WHERE other IN jobs }
  RETURN path
}
RETURN path
