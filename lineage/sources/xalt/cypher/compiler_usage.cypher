// name: xalt/compiler_usage
// purpose: Which compilers (link programs) built the executables XALT saw: builds, executables, build users, and the runs of what they built.
// param compiler: string, optional (default null = every compiler). Only this compiler name (icc, gcc, mpicc, ...). Example: "icc"
// returns: compiler, builds, executables, build_users, runs, run_users, compiler_paths
MATCH (b:Build)
WHERE b.compiler IS NOT NULL AND ($compiler IS NULL OR b.compiler = $compiler)
OPTIONAL MATCH (e:Executable)-[:WAS_GENERATED_BY]->(b)
OPTIONAL MATCH (r:Execution)-[:USED {role: 'executable'}]->(e)
RETURN b.compiler AS compiler,
       count(DISTINCT b) AS builds,
       count(DISTINCT e) AS executables,
       count(DISTINCT b.build_user) AS build_users,
       count(DISTINCT r) AS runs,
       count(DISTINCT r.user) AS run_users,
       collect(DISTINCT b.compiler_path)[..5] AS compiler_paths
ORDER BY builds DESC, runs DESC, compiler
