// name: xalt/run_packages
// purpose: The packages one XALT run imported (XALT pkg records: Python, R, MATLAB).
// param run: string, required. The execution's uid. Example: "xalt:run:acc1af54-6d3c-4ada-8cac-4c8f6aad8bb5"
// returns: program, package, version, path
MATCH (:Lineage:Execution {uid: $run})-[:IMPORTED]->(p:Package)
RETURN p.program AS program, p.name AS package, p.version AS version, p.path AS path
ORDER BY program, package, version
