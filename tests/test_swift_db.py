"""The Swift provenance database (real PostgreSQL) gives the same graph as the logs."""

import psycopg
import pytest

from lineage.errors import ParseError
from lineage.sources.swift import db as swift_db
from lineage.sources.swift import log as swift_log
from lineage.sources.base import LoadReport

from .conftest import SAMPLES
from .swift_oracle import importer_counts
from .swift_pg import export, postgres  # noqa: F401  (the session fixture)
from .corpus import needs_corpus

LOGS = sorted((SAMPLES / "swift").glob("*.log"))
KEY_PROPS = {
    "ScriptRun": ("run_id", "name", "swift_version", "cog_version", "final_state", "status",
                  "start_time", "duration", "script_filename", "script_hash"),
    "FunctionCall": ("call_id", "run_id", "type", "name", "app_name", "thread", "attempts",
                     "start_time", "duration", "final_state", "status"),
    "AppExecution": ("exec_id", "call_id", "run_id", "name", "start_time", "duration",
                     "final_state", "site"),
    "Dataset": ("dataset_id", "name", "filename", "value", "dataset_type"),
    "Script": ("hash", "source", "name"),
}
LATER_FORMAT = """\
2012-05-02 07:37:10,001-0500 INFO  Loader later.swift: source file is new. Recompiling.
2012-05-02 07:37:10,002-0500 INFO  Loader BEGIN SWIFTSCRIPT:
int a = 1 + 1;
trace(strcat("x", a));
END SWIFTSCRIPT:
2012-05-02 07:37:11,003-0500 INFO  unknown Swift trunk swift-r5700 cog-r3400
2012-05-02 07:37:11,004-0500 INFO  unknown RUNID id=run:20120502-0737-later01
2012-05-02 07:37:11,005-0500 INFO  vdl:operators OPERATOR thread=0-1 operator="+" \
lhs=dataset:L:1 rhs=dataset:L:1 result=dataset:L:2
2012-05-02 07:37:11,006-0500 INFO  AbstractDataNode VALUE dataset=dataset:L:1 VALUE=1
2012-05-02 07:37:11,007-0500 INFO  vdl:functions FUNCTION id=strcat-1 name=strcat result=dataset:L:3
2012-05-02 07:37:11,008-0500 INFO  vdl:functions FUNCTIONPARAMETER id=strcat-1 input=dataset:L:2
2012-05-02 07:37:11,009-0500 INFO  vdl:scope SCOPE thread=0-2
2012-05-02 07:37:11,010-0500 INFO  vdl:parameterlog PARAM thread=0-2 direction=input \
variable=s provenanceid=dataset:L:3
2012-05-02 07:37:12,011-0500 DEBUG Loader Swift finished with errors
"""


def key_graph(lin):
    nodes = {}
    for row in lin.query("MATCH (n:Lineage) RETURN n.uid AS uid, labels(n) AS labels, "
                         "properties(n) AS p"):
        kind = next(k for k in KEY_PROPS if k in row["labels"])
        nodes[row["uid"]] = (sorted(row["labels"]),
                             {k: row["p"].get(k) for k in KEY_PROPS[kind]})
    edges = sorted(tuple(r.values()) for r in lin.query(
        "MATCH (a:Lineage)-[r]->(b:Lineage) RETURN a.uid AS a, type(r) AS t, b.uid AS b, "
        "r.key AS k, r.parameter AS p"))
    return nodes, edges


@pytest.fixture
def later_log(tmp_path):
    path = tmp_path / "later-20120502-0737-later01.log"
    path.write_text(LATER_FORMAT.replace("\\\n", ""))
    return path


@needs_corpus
def test_database_and_logs_give_the_same_graph(lin, postgres, later_log):  # noqa: F811
    url = postgres.create_database("provdb")
    logs = [p for p in LOGS if importer_counts(p)["runs"]] + [later_log]
    with psycopg.connect(url) as conn:
        for path in logs:
            export(conn, swift_log.read_log(path, LoadReport(str(path), "swift-log")))
    results = lin.load(logs)
    assert all(r.status == "loaded" for r in results)
    from_logs = key_graph(lin)
    lin.reset()
    [result] = lin.load([url])
    assert result.status == "loaded" and result.format == "swift-db"
    assert result.write.unresolved_edges == 0
    from_db = key_graph(lin)
    assert len(from_db[0]) == len(from_logs[0]) and len(from_db[1]) == len(from_logs[1])
    assert from_db == from_logs
    # and the counts are the importer's, summed over the sample logs
    want = [importer_counts(p) for p in LOGS]
    n = lambda q: lin.query(q)[0]["n"]  # noqa: E731
    assert n("MATCH (r:ScriptRun) RETURN count(r) AS n") == sum(w["runs"] for w in want) + 1
    assert n("MATCH (e:AppExecution) RETURN count(e) AS n") == sum(w["executions"] for w in want)
    assert n("MATCH (:Dataset)-[r:HAD_MEMBER]->() RETURN count(r) AS n") == \
        sum(w["containment"] for w in want)
    [later] = lin.query("MATCH (r:ScriptRun {run_id: 'later-20120502-0737-later01'})"
                        "-[:HAS_SCRIPT]->(s:Script) RETURN r.status AS st, s.source AS src")
    assert later == {"st": "failed", "src": 'int a = 1 + 1;\ntrace(strcat("x", a));\n'}
    ops = lin.query("MATCH (c:FunctionCall {type: 'operator'})-[u:USED]->(d:Dataset) "
                    "RETURN u.key AS k, d.value AS v ORDER BY k")
    assert ops == [{"k": "lhs", "v": "1"}, {"k": "rhs", "v": "1"}]


@needs_corpus
def test_annotations_resources_staging_in_the_importer_schema(lin, postgres):  # noqa: F811
    url = postgres.create_database("provdb_importer", id_style="entity")
    fmri = SAMPLES / "swift" / "130-fmri-20090316-1729-mxxea3a1.log"
    prov = swift_log.read_log(fmri, LoadReport(str(fmri), "swift-log"))
    run = prov.run.id
    exec_id = f"{run}:touch-3tdga18j"
    ds = "tag:benc@ci.uchicago.edu,2008:swift:dataset:20090316-1729-x8j87htb:720000000052"
    with psycopg.connect(url) as conn:
        export(conn, prov)
        conn.execute("INSERT INTO annot_script_run_num VALUES (%s, 'temperature', 21.5)", (run,))
        conn.execute("INSERT INTO annot_script_run_text VALUES (%s, 'operator', 'alice')", (run,))
        conn.execute("INSERT INTO annot_function_call_text VALUES (%s, 'note', '<b>x')",
                     (f"{run}:0-4-1",))
        conn.execute("INSERT INTO annot_dataset_num VALUES (%s, 'quality', 3)", (ds,))
        conn.execute("INSERT INTO annot_app_exec_text VALUES (%s, 'node', 'n1')", (exec_id,))
        conn.execute("UPDATE app_exec SET real_secs = 1.5, max_rss = 2048, exit_status = 0 "
                     "WHERE id = %s", (exec_id,))
        conn.execute("INSERT INTO stage_in VALUES (%s, 'file://localhost/in.img')", (exec_id,))
        conn.execute("INSERT INTO stage_out VALUES (%s, 'file://localhost/out.img')", (exec_id,))
        conn.execute("INSERT INTO rt_info VALUES (%s, 10, 0.5, 100, 200, 1, 2), "
                     "(%s, 11, 0.7, 110, 210, 3, 4)", (exec_id, exec_id))
    [result] = lin.load([url])
    assert result.report["annotations"] == 5
    [r] = lin.query("MATCH (r:ScriptRun {run_id: $r}) RETURN r.annot_temperature AS t, "
                    "r.annot_operator AS o", r=run)
    assert r == {"t": 21.5, "o": "alice"}
    [c] = lin.query("MATCH (c:FunctionCall {call_id: $c}) RETURN c.annot_note AS n",
                    c=f"{run}:0-4-1")
    assert c["n"] == "<b>x"
    [d] = lin.query("MATCH (d:Dataset {dataset_id: $d}) RETURN d.annot_quality AS q", d=ds)
    assert d["q"] == 3
    [e] = lin.query("MATCH (e:AppExecution {exec_id: $e}) RETURN e.real_secs AS r, "
                    "e.max_rss AS m, e.exit_status AS x, e.stage_in AS si, e.stage_out AS so, "
                    "e.rt_cpu_usage AS cpu, e.annot_node AS node", e=exec_id)
    assert e == {"r": 1.5, "m": 2048, "x": 0, "si": ["file://localhost/in.img"],
                 "so": ["file://localhost/out.img"], "cpu": [0.5, 0.7], "node": "n1"}


def test_connection_is_read_only(postgres):  # noqa: F811
    url = postgres.create_database("provdb_ro")
    conn = swift_db.connect(url)
    try:
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            conn.execute("INSERT INTO ds VALUES ('x')")
    finally:
        conn.close()


def test_a_database_without_the_swift_tables_is_refused(postgres):  # noqa: F811
    with pytest.raises(ParseError) as err:
        list(swift_db.parse(postgres.url("postgres"), LoadReport("db", "swift-db")))
    assert "run, fun_call, ds" in str(err.value)
