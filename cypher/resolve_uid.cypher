// name: resolve_uid
// purpose: The nodes a uid as a person types it may name: the node with that exact uid, nodes whose uid starts with it, and runs whose short id (the uid's part after "<source>:<kind>:", a uuid's first 8 characters) starts with it or whose name is it; newest run first.
// param text: string, required. A uid, a unique start of one, a run's short uuid or a run's name. Example: "pegasus:workflow:f84f05fc"
// param limit: integer, optional (default 20). At most this many candidates of each way. Example: 10
// returns: uid, kind, name, start_time, how
// note: the prefix search reads the uid index (STARTS WITH); the short-id and name search reads the runs only.
CALL (){
  MATCH (n:Lineage {uid: $text})
  RETURN n, 'uid' AS how
  UNION
  MATCH (n:Lineage) WHERE n.uid STARTS WITH $text AND n.uid <> $text
  WITH n LIMIT $limit
  RETURN n, 'uid prefix' AS how
  UNION
  MATCH (n:Run)
  WHERE n.uid <> $text AND NOT n.uid STARTS WITH $text
    AND (coalesce(n.name, '') = $text
         OR size(split(n.uid, ':')) > 2
            AND substring(n.uid, size(split(n.uid, ':')[0]) + size(split(n.uid, ':')[1]) + 2) STARTS WITH $text)
  WITH n LIMIT $limit
  RETURN n, CASE WHEN coalesce(n.name, '') = $text THEN 'run name' ELSE 'short id' END AS how
}
RETURN n.uid AS uid, n.kind AS kind, coalesce(n.name, n.uid) AS name, n.start_time AS start_time, how
ORDER BY CASE how WHEN 'uid' THEN 0 ELSE 1 END, start_time DESC, uid
