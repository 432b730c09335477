// name: uids_like
// purpose: Sample uids of one kind, by uid prefix (e.g. "pegasus:workflow:"), best connected first: real example values for the other templates' parameters.
// param prefix: string, required. The start of the uids, usually "<source>:<kind>:". Example: "pegasus:workflow:"
// param limit: integer, optional (default 5). At most this many uids. Example: 3
// returns: uid, kind, name, degree
// note: looks at the first 500 matches of the uid index only, so it stays cheap on a big graph.
MATCH (n:Lineage)
WHERE n.uid STARTS WITH $prefix
WITH n LIMIT 500
WITH n, COUNT { (n)--() } AS degree
RETURN n.uid AS uid,
       n.kind AS kind,
       coalesce(n.name, n.uid) AS name,
       degree
ORDER BY degree DESC, uid
LIMIT $limit
