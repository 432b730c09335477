// name: pegasus/subworkflows
// purpose: The sub-workflows of a Pegasus workflow, at every depth, each with its parent, the job (and attempt) that started it, its status and its job counts.
// param workflow: string, required. The uid of the (root) workflow. Example: "pegasus:workflow:48f759a4-165f-47d6-8c32-571649ce311b"
// param status: map, from the model. The statuses (lineage.model.status) by name, and the lists failures and problems.
// returns: uid, label, depth, parent, started_by_job, started_by_attempt, status, jobs, jobs_succeeded, jobs_failed, wall_time
MATCH p = (sub:Workflow)-[:PART_OF*1..]->(top:Lineage:Workflow {uid: $workflow})
WITH sub, min(length(p)) AS depth
OPTIONAL MATCH (sub)-[:PART_OF]->(parent:Workflow)
OPTIONAL MATCH (sub)-[:WAS_STARTED_BY]->(job:Job)
OPTIONAL MATCH (sub)-[:WAS_STARTED_BY]->(attempt:JobInstance)
WITH sub, depth, parent, job, attempt
RETURN sub.uid AS uid, sub.label AS label, depth, parent.uid AS parent,
       job.job_id AS started_by_job, attempt.submit_seq AS started_by_attempt, sub.status AS status,
       COUNT { (sub)<-[:PART_OF]-(:Job) } AS jobs,
       COUNT { (sub)<-[:PART_OF]-(j:Job) WHERE j.status = $status.succeeded } AS jobs_succeeded,
       COUNT { (sub)<-[:PART_OF]-(j:Job) WHERE j.status IN $status.failures } AS jobs_failed,
       sub.wall_time AS wall_time
ORDER BY depth, label, uid
