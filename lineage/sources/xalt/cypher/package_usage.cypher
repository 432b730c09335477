// name: xalt/package_usage
// purpose: The Python, R and MATLAB packages tracked programs imported (XALT pkg records): runs and users per package version.
// param program: string, optional (default null = every program). Only packages of this program (python, R, MATLAB). Example: "python"
// param package: string, optional (default null = every package). Only this package name. Example: "numpy"
// returns: program, package, version, runs, users, paths
MATCH (r:Execution)-[:IMPORTED]->(p:Package)
WHERE ($program IS NULL OR p.program = $program) AND ($package IS NULL OR p.name = $package)
RETURN p.program AS program, p.name AS package, p.version AS version,
       count(DISTINCT r) AS runs,
       count(DISTINCT r.user) AS users,
       collect(DISTINCT p.path)[..5] AS paths
ORDER BY runs DESC, program, package, version
