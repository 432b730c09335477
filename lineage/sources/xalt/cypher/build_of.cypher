// name: xalt/build_of
// purpose: How an executable was built (compiler, link line, user, host, time, modules loaded at link time) and every object file and library it linked.
// param executable: string, required. The executable's sha1, path, file name or uid. Example: "3eae43c087b90e0672ccdbe7f0d44058491274bf"
// returns: executable, path, sha1, build, compiler, compiler_path, build_user, build_host, build_time, build_date, link_line, build_modules, linked_count, linked
// note: linked is a list of maps {path, sha1, kind} (kind ObjectFile or Library); a build known only from a run's watermark has compiler and modules but no link line or linked files.
MATCH (e:Executable)
WHERE e.uid = $executable OR e.sha1 = $executable OR e.path = $executable OR e.name = $executable
MATCH (e)-[:WAS_GENERATED_BY]->(b:Build)
OPTIONAL MATCH (b)-[:USED]->(x:Entity)
WITH e, b, x ORDER BY x.path
WITH e, b, [i IN collect(x) | {path: i.path, sha1: i.sha1,
                              kind: CASE WHEN i:ObjectFile THEN 'ObjectFile' ELSE 'Library' END}] AS linked
RETURN e.uid AS executable, e.path AS path, e.sha1 AS sha1, b.uid AS build,
       b.compiler AS compiler, b.compiler_path AS compiler_path,
       b.build_user AS build_user, b.build_host AS build_host,
       b.build_epoch AS build_time, b.build_date AS build_date,
       b.link_line AS link_line, b.build_modules AS build_modules,
       size(linked) AS linked_count, linked
ORDER BY build_time, build
