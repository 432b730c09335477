// name: xalt/run_inputs
// purpose: What one XALT execution ran: its executable and every shared library it loaded, each with path and sha1 (what `lineage diff` compares between two runs).
// param run: string, required. The execution's uid. Example: "xalt:run:acc1af54-6d3c-4ada-8cac-4c8f6aad8bb5"
// returns: role, path, sha1
MATCH (run:Lineage:Execution {uid: $run})-[u:USED]->(f:Lineage)
WHERE f:Executable OR f:Library
RETURN u.role AS role, f.path AS path, f.sha1 AS sha1
ORDER BY role, path
