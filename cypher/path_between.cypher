// name: path_between
// purpose: How two nodes are connected through lineage, structure and cross-system link edges (not through shared hosts or users): the shortest paths first, at most max_hops long.
// param from: string, required. One node's uid. Example: "swift:exec:001-echo-20090316-1711-i7icnjl1:echo-17kp918j"
// param to: string, required. The other node's uid. Example: "swift:run:001-echo-20090316-1711-i7icnjl1"
// param max_hops: integer, optional (default 8). The longest path considered (at most 15). Example: 6
// param paths: integer, optional (default 3). How many paths to return. Example: 3
// returns: hops, nodes, relationships
// note: relationships lists each hop as {type, from, to} in its stored direction.
MATCH (a:Lineage {uid: $from}), (b:Lineage {uid: $to})
MATCH p = SHORTEST 10 (a)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER|PART_OF|INSTANCE_OF|RUNS_TASK|WAS_STARTED_BY|SAME_ACTIVITY|RAN_WITHIN|EXECUTES|CALLED_BY|IMPORTED|HAS_SCRIPT|LAUNCHED_ON]-{1,15}(b)
WITH p WHERE length(p) <= $max_hops
WITH p ORDER BY length(p) LIMIT $paths
RETURN length(p) AS hops,
       [n IN nodes(p) | {uid: n.uid, kind: n.kind, name: coalesce(n.name, n.uid)}] AS nodes,
       [r IN relationships(p) | {type: type(r), from: startNode(r).uid, to: endNode(r).uid}]
         AS relationships
