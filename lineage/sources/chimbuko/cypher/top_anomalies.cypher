// name: chimbuko/top_anomalies
// purpose: Chimbuko anomalies ranked the way Chimbuko's views rank them: one row per anomaly, per function or per rank, by total (and largest) severity or by score.
// param by: string, optional (default "severity"). "severity" or "score". Severity is the record's outlier_severity; the oldest records (no severity) use the exclusive runtime, which is what Chimbuko's severity measures. Example: "severity"
// param group: string, optional (default "none"). "none" (each anomaly), "function" or "rank". Example: "function"
// param run: string, optional (default null = every program run). Only anomalies of this Chimbuko program run (its uid). Example: "chimbuko:run:chimbuko-0a1b2c3d:0"
// param limit: integer, optional (default 10). How many rows. Example: 5
// returns: key, name, anomalies, total_severity, max_severity, max_score, top_uid
// note: a group's rank is its summed severity (its best score when by = "score"); top_uid is its worst anomaly.
MATCH (a:Anomaly)
WHERE $run IS NULL OR EXISTS { (a)-[:PART_OF]->(:Rank)-[:PART_OF]->(:Lineage:ProgramRun {uid: $run}) }
OPTIONAL MATCH (a)-[:EXECUTES]->(f:Function)
OPTIONAL MATCH (a)-[:PART_OF]->(r:Rank)
WITH a, f, r,
     coalesce(a.outlier_severity, a.runtime_exclusive) AS severity,
     a.outlier_score AS score
WITH a, severity, score,
     CASE $group WHEN 'function' THEN f.uid WHEN 'rank' THEN r.uid ELSE a.uid END AS key,
     CASE $group WHEN 'function' THEN f.name WHEN 'rank' THEN r.name
          ELSE coalesce(a.name, a.event_id) END AS name
ORDER BY CASE $by WHEN 'score' THEN score ELSE severity END DESC, a.uid
WITH key, name,
     count(a) AS anomalies,
     sum(severity) AS total_severity,
     max(severity) AS max_severity,
     max(score) AS max_score,
     collect(a.uid)[0] AS top_uid
RETURN key, name, anomalies, total_severity, max_severity, max_score, top_uid
ORDER BY CASE $by WHEN 'score' THEN max_score ELSE total_severity END DESC, anomalies DESC, key
LIMIT $limit
