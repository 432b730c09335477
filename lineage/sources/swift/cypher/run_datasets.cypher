// name: swift/run_datasets
// purpose: The datasets of one Swift script run, for its report's table: every dataset its calls used or produced, and their members and collections (HAD_MEMBER), each with its value or file name, the calls that produced it and the calls that used it (with the parameter).
// param run: string, required. The script run's uid. Example: "swift:run:130-fmri-20090316-1729-mxxea3a1"
// param limit: integer, optional (default 100000). At most this many rows. Example: 100
// pick run: MATCH (r:ScriptRun)<-[:PART_OF]-(:FunctionCall)-[:USED]->(:Dataset) RETURN r.uid ORDER BY r.uid LIMIT 1
// returns: uid, role, dataset, value, filename, type, produced_by, used_by, members, member_of
// note: role as in swift/run_data (input, intermediate, output, member, collection); produced_by and used_by name the run's calls as "call (parameter)", in start order; members / member_of count HAD_MEMBER edges. Rows: inputs first, then intermediates, outputs, members and collections.
MATCH (run:Lineage {uid: $run})<-[:PART_OF]-(c:FunctionCall) WHERE run:ScriptRun
WITH collect(c) AS calls
CALL (calls) {
  UNWIND calls AS c
  MATCH (c)-[:USED]->(d:Dataset)
  RETURN d, 0 AS via
  UNION
  UNWIND calls AS c
  MATCH (d:Dataset)-[:WAS_GENERATED_BY]->(c)
  RETURN d, 0 AS via
}
WITH calls, collect(DISTINCT d) AS flow
OPTIONAL CALL (flow) {
  UNWIND flow AS f
  MATCH (f)-[:HAD_MEMBER*1..]->(m:Dataset)
  WITH DISTINCT m
  RETURN m, 'member' AS how
  UNION
  UNWIND flow AS f
  MATCH (f)<-[:HAD_MEMBER*1..]-(m:Dataset)
  WITH DISTINCT m
  RETURN m, 'collection' AS how
}
WITH calls, flow, collect(CASE WHEN m IS NOT NULL AND NOT m IN flow THEN {d: m, how: how} END) AS contained
UNWIND [d IN flow | {d: d, how: null}] + contained AS x
WITH calls, x.d AS d, collect(x.how)[0] AS how
CALL (d, calls) {
  OPTIONAL MATCH (d)-[g:WAS_GENERATED_BY]->(p:FunctionCall) WHERE p IN calls
  WITH g, p ORDER BY p.start_time, p.uid
  WITH collect(p.name + coalesce(' (' + g.parameter + ')', '')) AS names
  RETURN reduce(s = '', x IN names | s + CASE WHEN s = '' THEN '' ELSE ', ' END + x) AS produced_by,
         size(names) AS producers
}
CALL (d, calls) {
  OPTIONAL MATCH (u:FunctionCall)-[r:USED]->(d) WHERE u IN calls
  WITH r, u ORDER BY u.start_time, u.uid
  WITH collect(u.name + coalesce(' (' + r.parameter + ')', '')) AS names
  RETURN reduce(s = '', x IN names | s + CASE WHEN s = '' THEN '' ELSE ', ' END + x) AS used_by,
         size(names) AS users
}
WITH d, produced_by, used_by,
     CASE WHEN how IS NOT NULL THEN how
          WHEN producers > 0 AND users > 0 THEN 'intermediate'
          WHEN producers > 0 THEN 'output' ELSE 'input' END AS role
RETURN d.uid AS uid,
       role,
       coalesce(d.value, last([x IN split(d.filename, '/') WHERE x <> '']), d.name) AS dataset,
       d.value AS value,
       d.filename AS filename,
       d.dataset_type AS type,
       produced_by,
       used_by,
       COUNT { (d)-[:HAD_MEMBER]->(:Dataset) } AS members,
       COUNT { (d)<-[:HAD_MEMBER]-(:Dataset) } AS member_of
ORDER BY CASE role WHEN 'input' THEN 0 WHEN 'intermediate' THEN 1 WHEN 'output' THEN 2
         WHEN 'member' THEN 3 ELSE 4 END, dataset, uid
LIMIT $limit
