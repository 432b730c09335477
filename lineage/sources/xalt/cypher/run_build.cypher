// name: xalt/run_build
// purpose: How the program of one XALT run was built: its executable, the build's compiler, link line, user, host, date and modules, and how many files it linked.
// param run: string, required. The execution's uid. Example: "xalt:run:acc1af54-6d3c-4ada-8cac-4c8f6aad8bb5"
// returns: executable, path, sha1, compiler, compiler_path, build_user, build_host, build_date, build_modules, link_line, linked_count
// note: no row when XALT recorded no build for the executable (no link record, no watermark).
MATCH (:Lineage:Execution {uid: $run})-[:USED]->(e:Executable)-[:WAS_GENERATED_BY]->(b:Build)
OPTIONAL MATCH (b)-[:USED]->(x:Entity)
RETURN e.uid AS executable, e.path AS path, e.sha1 AS sha1, b.compiler AS compiler,
       b.compiler_path AS compiler_path, b.build_user AS build_user,
       b.build_host AS build_host, b.build_date AS build_date,
       b.build_modules AS build_modules, b.link_line AS link_line, count(x) AS linked_count
ORDER BY executable
