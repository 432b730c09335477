// name: xalt/module_usage
// purpose: The environment modules loaded when tracked programs ran (from LOADEDMODULES in the run's environment): runs, users and core-hours per module.
// param module: string, optional (default null = every module). One module (intel/17.0.4) or every version of one (intel). Example: "intel"
// param syshost: string, optional (default null = every system). Only runs on this XALT syshost. Example: "stampede2"
// returns: module, name, runs, users, core_hours
// note: runs loaded with --env none carry no modules. A run known only from its end record has its modules in end_modules.
MATCH (r:Execution)
WHERE coalesce(r.modules, r.end_modules) IS NOT NULL
  AND ($syshost IS NULL OR r.syshost = $syshost)
UNWIND coalesce(r.modules, r.end_modules) AS module
WITH r, module
WHERE $module IS NULL OR module = $module OR module STARTS WITH $module + '/'
RETURN module,
       split(module, '/')[0] AS name,
       count(DISTINCT r) AS runs,
       count(DISTINCT r.user) AS users,
       sum(coalesce(r.cores, 1) * coalesce(r.run_time, 0.0)) / 3600.0 AS core_hours
ORDER BY runs DESC, module
