// name: chimbuko/run_anomalies
// purpose: The anomalies of one Chimbuko program run, most severe first: one row per anomalous execution with its severity, score, function, rank, thread, entry and exit time and runtime. The first table of a program run's report.
// param run: string, required. The Chimbuko program run (its uid). Example: "chimbuko:run:chimbuko-0a1b2c3d:0"
// param limit: integer, optional (default 1000). How many rows. Example: 20
// pick run: MATCH (:Anomaly)-[:PART_OF]->(:Rank)-[:PART_OF]->(r:ProgramRun) RETURN r.uid ORDER BY r.uid LIMIT 1
// returns: uid, severity, score, function, rank, thread, entry, exit, runtime, event_id
// note: severity is the record's outlier_severity, or the exclusive runtime for the oldest records (as in chimbuko/top_anomalies); entry and exit are microseconds since the epoch, runtime the inclusive runtime in microseconds. Anomalies without a severity come last, longest runtime first.
MATCH (run:Lineage {uid: $run})<-[:PART_OF]-(r:Rank)<-[:PART_OF]-(a:Anomaly) WHERE run:ProgramRun
OPTIONAL MATCH (a)-[:EXECUTES]->(f:Function)
WITH a, r, f, coalesce(a.outlier_severity, a.runtime_exclusive) AS severity
RETURN a.uid AS uid,
       severity,
       a.outlier_score AS score,
       coalesce(f.name, a.function) AS function,
       coalesce(a.rank, r.rank) AS rank,
       a.thread AS thread,
       a.entry AS entry,
       a.exit AS exit,
       a.runtime_inclusive AS runtime,
       a.event_id AS event_id
ORDER BY severity IS NULL, severity DESC, runtime DESC, uid
LIMIT $limit
