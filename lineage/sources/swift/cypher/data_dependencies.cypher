// name: swift/data_dependencies
// purpose: SPQL data_dependencies(): only the datasets a Swift dataset depends on (transitively, through the calls that produced it and what they used), with the shortest distance.
// param dataset: string, required. The dataset's provenance id or its uid. Example: "tag:benc@ci.uchicago.edu,2008:swift:dataset:20090316-1729-x8j87htb:720000000020"
// returns: uid, id, name, filename, value, depth
// note: pruning breadth-first expand; a dataset is never its own dependency.
CALL () {
  MATCH (start:Lineage {uid: $dataset}) RETURN start
  UNION
  MATCH (start:Dataset {dataset_id: $dataset}) RETURN start
}
MATCH p = (start)-[:USED|WAS_GENERATED_BY*1..]->(dependency:Dataset)
WITH start, dependency, min(length(p)) AS depth
WHERE dependency <> start
RETURN dependency.uid AS uid,
       dependency.dataset_id AS id,
       dependency.name AS name,
       dependency.filename AS filename,
       dependency.value AS value,
       depth
ORDER BY depth, uid
