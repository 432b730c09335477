// name: neighbours
// purpose: The nodes one relationship away (either direction) from a set of nodes, e.g. the hosts, users, executables and files of a run's parts.
// param uids: list, required. The uids of the nodes. Example: ["xalt:run:acc1af54-6d3c-4ada-8cac-4c8f6aad8bb5"]
// returns: uid
MATCH (n:Lineage)--(m:Lineage)
WHERE n.uid IN $uids
RETURN DISTINCT m.uid AS uid
ORDER BY uid
