// name: swift/run_data
// purpose: The data flow of one Swift script run, as nodes for its report: its function calls, the datasets they used and produced, and the members and collections of those datasets (HAD_MEMBER, any depth). Draw them with `edges_among` to read input datasets -> call -> output datasets -> next call.
// param run: string, required. The script run's uid. Example: "swift:run:130-fmri-20090316-1729-mxxea3a1"
// param limit: integer, optional (default 100000). At most this many nodes: the calls first (in start order), then the datasets. Example: 1000
// pick run: MATCH (r:ScriptRun)<-[:PART_OF]-(:FunctionCall)-[:USED]->(:Dataset) RETURN r.uid ORDER BY r.uid LIMIT 1
// returns: uid, kind, name, label, status, role, properties
// note: role is call, input (used, not produced in the run), output (produced, not used), intermediate (both), or member / collection (reached by containment only). label is short: a dataset's value, else the last part of its file name. Datasets are not PART_OF a run; they are reached through its calls, each once (pruning expand over HAD_MEMBER).
MATCH (run:Lineage {uid: $run})<-[:PART_OF]-(c:FunctionCall) WHERE run:ScriptRun
WITH collect(c) AS calls
CALL (calls) {
  UNWIND calls AS c
  RETURN c AS n, 0 AS rank, 'call' AS role
  UNION
  UNWIND calls AS c
  MATCH (c)-[:USED]->(d:Dataset)
  WITH DISTINCT d, calls
  RETURN d AS n, 1 AS rank,
         CASE WHEN EXISTS { (d)-[:WAS_GENERATED_BY]->(p) WHERE p IN calls }
              THEN 'intermediate' ELSE 'input' END AS role
  UNION
  UNWIND calls AS c
  MATCH (d:Dataset)-[:WAS_GENERATED_BY]->(c)
  WITH DISTINCT d, calls
  WHERE NOT EXISTS { (u)-[:USED]->(d) WHERE u IN calls }
  RETURN d AS n, 1 AS rank, 'output' AS role
}
WITH calls, collect({n: n, rank: rank, role: role}) AS flow
OPTIONAL CALL (flow) {
  UNWIND flow AS f
  WITH f.n AS d WHERE d:Dataset
  MATCH p = (d)-[:HAD_MEMBER*1..]->(m:Dataset)
  WITH DISTINCT m
  RETURN m AS n, 2 AS rank, 'member' AS role
  UNION
  UNWIND flow AS f
  WITH f.n AS d WHERE d:Dataset
  MATCH p = (d)<-[:HAD_MEMBER*1..]-(m:Dataset)
  WITH DISTINCT m
  RETURN m AS n, 2 AS rank, 'collection' AS role
}
WITH flow, collect({n: n, rank: rank, role: role}) AS contained
UNWIND flow + contained AS f
WITH f WHERE f.n IS NOT NULL
ORDER BY f.rank
WITH f.n AS n, min(f.rank) AS rank, collect(f.role)[0] AS role
RETURN n.uid AS uid,
       n.kind AS kind,
       coalesce(n.name, n.uid) AS name,
       CASE WHEN n:Dataset
            THEN coalesce(n.value, last([x IN split(n.filename, '/') WHERE x <> '']), n.name)
            ELSE n.name END AS label,
       n.status AS status,
       role,
       properties(n) AS properties
ORDER BY rank, n.start_time, uid
LIMIT $limit
