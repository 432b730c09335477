// name: xalt/library_users
// purpose: Every run and executable that used a library, found by path, file name, stem or sha1: loaded at run time, or linked into the executable at build time. The question after a library is found broken. The same content (sha1) at other paths counts too.
// param library: string, required. A library path, file name (libmpi.so.12), stem (libmpi), sha1 or uid. Example: "libmpi"
// returns: library_path, library_sha1, how, executable, executable_path, run, user, job_id, syshost, start_time
// note: how is 'loaded' (the run's libA) or 'linked' (the build's linkA); run is null for an executable linked against the library that XALT never saw run.
MATCH (l:Library)
WHERE l.path = $library OR l.name = $library OR l.stem = $library OR l.sha1 = $library
   OR l.uid = $library
OPTIONAL MATCH (same:Library)
  WHERE l.sha1 IS NOT NULL AND same.sha1 = l.sha1
WITH collect(DISTINCT l) + collect(DISTINCT same) AS found
UNWIND found AS lib
WITH DISTINCT lib
CALL (lib) {
  MATCH (r:Execution)-[:USED {role: 'loaded'}]->(lib)
  OPTIONAL MATCH (r)-[:USED {role: 'executable'}]->(e:Executable)
  RETURN r, e, 'loaded' AS how
  UNION
  MATCH (b:Build)-[:USED]->(lib)
  MATCH (e:Executable)-[:WAS_GENERATED_BY]->(b)
  OPTIONAL MATCH (r:Execution)-[:USED {role: 'executable'}]->(e)
  RETURN r, e, 'linked' AS how
}
RETURN DISTINCT lib.path AS library_path, lib.sha1 AS library_sha1, how,
       e.uid AS executable, e.path AS executable_path,
       r.uid AS run, r.user AS user, r.job_id AS job_id, r.syshost AS syshost,
       r.start_time AS start_time
ORDER BY library_path, how, start_time, run, executable
