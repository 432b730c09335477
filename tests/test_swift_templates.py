"""The SPQL built-ins as Cypher templates: each gives the rows the SPQL function gives.

The oracle is SQL over a real Swift provenance database filled from the same sample logs:
SPQL's provenance graph (``dataset_out``: call -> dataset, ``dataset_in``: dataset -> call),
walked with a recursive query as SPQL's ``ancestors()`` does, and its joins for the others.
"""

from collections import Counter

import psycopg
import pytest

from lineage.query import templates
from lineage.sources.swift import log as swift_log
from lineage.sources.base import LoadReport

from .conftest import SAMPLES
from .swift_oracle import importer_counts
from .swift_pg import export, postgres  # noqa: F401  (the session fixture)
from .corpus import needs_corpus

pytestmark = needs_corpus

LOGS = [p for p in sorted((SAMPLES / "swift").glob("*.log")) if importer_counts(p)["runs"]]
FMRI = "130-fmri-20090316-1729-mxxea3a1"
SPQL_VIEWS = """
CREATE VIEW dataset_io AS
  SELECT function_call_id, dataset_id, parameter, 'I' AS type FROM dataset_in
  UNION ALL SELECT function_call_id, dataset_id, parameter, 'O' FROM dataset_out;
CREATE VIEW provenance_graph_edge AS
  SELECT function_call_id AS parent, dataset_id AS child FROM dataset_out
  UNION ALL SELECT dataset_id AS parent, function_call_id AS child FROM dataset_in;
"""
ANCESTORS = """
WITH RECURSIVE anc(ancestor) AS (
    SELECT parent FROM provenance_graph_edge WHERE child = %(id)s
  UNION
    SELECT e.parent FROM anc JOIN provenance_graph_edge e ON e.child = anc.ancestor)
SELECT ancestor FROM anc
"""
DESCENDANTS = """
WITH RECURSIVE des(descendant) AS (
    SELECT child FROM provenance_graph_edge WHERE parent = %(id)s
  UNION
    SELECT e.child FROM des JOIN provenance_graph_edge e ON e.parent = des.descendant)
SELECT descendant FROM des
"""


@pytest.fixture(scope="module")
def spql(postgres):  # noqa: F811
    url = postgres.create_database("provdb_spql")
    conn = psycopg.connect(url, autocommit=True)
    for path in LOGS:
        export(conn, swift_log.read_log(path, LoadReport(str(path), "swift-log")))
    conn.execute(SPQL_VIEWS)
    yield conn
    conn.close()


@pytest.fixture
def graph(lin):
    results = lin.load(LOGS)
    assert all(r.status == "loaded" for r in results)
    return lin


def sql(conn, query, **params):
    return conn.execute(query, params).fetchall()


def test_ancestors_and_descendants_match_spql_for_every_fmri_node(graph, spql):
    ids = [r[0] for r in sql(spql, "SELECT id FROM fun_call WHERE run_id = %(r)s", r=FMRI)]
    ids += [r[0] for r in sql(spql, "SELECT DISTINCT dataset_id FROM dataset_io io JOIN fun_call f "
                                    "ON f.id = io.function_call_id WHERE f.run_id = %(r)s", r=FMRI)]
    assert len(ids) == 28 + 48  # every call of the run and every dataset it touched
    nontrivial = 0
    for entity in ids:
        uid = f"swift:call:{entity}" if entity.startswith(FMRI) else f"swift:dataset:{entity}"
        for name, query in (("swift/ancestors", ANCESTORS), ("swift/descendants", DESCENDANTS)):
            want = {r[0] for r in sql(spql, query, id=entity)}
            got = graph.query(name, uid=uid)
            assert {r["id"] for r in got} == want, (name, entity)
            nontrivial += len(want) > 3
    assert nontrivial > 50
    # depths are shortest distances: a dataset's producer is one hop up
    out = "tag:benc@ci.uchicago.edu,2008:swift:dataset:20090316-1729-x8j87htb:720000000081"
    rows = graph.query("swift/ancestors", uid=f"swift:dataset:{out}", max_depth=2)
    assert {(r["id"], r["depth"]) for r in rows} == {
        (f"{FMRI}:0-10-1", 1),
        ("tag:benc@ci.uchicago.edu,2008:swift:dataset:20090316-1729-x8j87htb:720000000032", 2)}


def test_data_and_function_call_dependencies_match_spql(graph, spql):
    datasets = {r[0] for r in sql(spql, "SELECT id FROM ds")}
    calls = {r[0] for r in sql(spql, "SELECT id FROM fun_call")}
    final = "tag:benc@ci.uchicago.edu,2008:swift:dataset:20090316-1729-x8j87htb:720000000020"
    want = {r[0] for r in sql(spql, ANCESTORS, id=final)}
    got = graph.query("swift/data_dependencies", dataset=final)
    assert {r["id"] for r in got} == want & datasets and len(got) > 20
    assert graph.query("swift/data_dependencies", dataset=f"swift:dataset:{final}") == got
    call = f"{FMRI}:0-10-1"
    want = {r[0] for r in sql(spql, ANCESTORS, id=call)} & calls
    got = graph.query("swift/function_call_dependencies", call=call)
    assert {r["id"] for r in got} == want
    assert {f"{FMRI}:0-7-3", f"{FMRI}:0-5", f"{FMRI}:0-4-1"} <= want
    assert {r["type"] for r in got} == {"execute", "constructor"}


def test_compare_run_matches_spql_by_parameter(graph, spql):
    rows = sql(spql, "SELECT f.run_id, p.value FROM dataset_io io JOIN fun_call f "
                     "ON f.id = io.function_call_id JOIN primitive p ON p.id = io.dataset_id "
                     "WHERE io.parameter = 'm'")
    want = {}
    for run_id, value in rows:
        want.setdefault(run_id, set()).add(value)
    got = graph.query("swift/compare_run", parameters=["m"])
    assert {r["run_id"]: set(r["parameters"][0]["values"]) for r in got} == want
    assert len(want) == 5 and want["0024-compound-20090316-1711-3xnznbk1"] == {"s", "f"}
    # an inner join: 't' never holds a primitive value, so no run has both
    assert graph.query("swift/compare_run", parameters=["m", "t"]) == []


def test_compare_run_with_annotation_keys(graph):
    graph.write("MATCH (r:ScriptRun) WHERE r.run_id STARTS WITH '002-param' "
                "SET r.annot_temperature = 21.5")
    graph.write("MATCH (r:ScriptRun) WHERE r.run_id STARTS WITH '0053-toint' "
                "SET r.annot_temperature = 19")
    graph.write("MATCH (d:Dataset {value: '109'}) SET d.annot_quality = 'good'")
    rows = graph.query("swift/compare_run", parameters=["m"], annotation_keys=["temperature"])
    assert [(r["run_id"][:9], r["parameters"][0]["values"], r["annotations"][0]["values"])
            for r in rows] == [("002-param", ["hi"], [21.5]), ("0053-toin", ["109"], [19])]
    rows = graph.query("swift/compare_run", annotation_keys=["quality"])
    assert [(r["run_id"][:9], r["annotations"]) for r in rows] == [
        ("0053-toin", [{"name": "quality", "values": ["good"]}])]


def test_correlate_parameter_runtime_matches_spql(graph, spql):
    for parameter in ("m", "t"):
        rows = sql(spql, "SELECT r.id, r.start_time, r.duration, io.parameter, p.value "
                         "FROM dataset_io io JOIN fun_call f ON f.id = io.function_call_id "
                         "JOIN run r ON r.id = f.run_id LEFT JOIN primitive p "
                         "ON p.id = io.dataset_id WHERE io.parameter = %(p)s", p=parameter)
        want = Counter((r[0], float(r[1]), float(r[2]), r[3], r[4]) for r in rows)
        got = graph.query("swift/correlate_parameter_runtime", parameter=parameter)
        assert Counter((r["run_id"], r["start_time"], r["duration"], r["parameter"], r["value"])
                       for r in got) == want
        assert len(got) == sum(want.values()) > 0
    starts = [r["start_time"] for r in got]
    assert starts == sorted(starts)


def test_runs_touching_file_match_spql(graph, spql):
    query = ("SELECT DISTINCT f.run_id, io.type FROM mapped m JOIN dataset_io io "
             "ON io.dataset_id = m.id JOIN fun_call f ON f.id = io.function_call_id "
             "WHERE m.filename = %(n)s OR m.filename LIKE '%%/' || %(n)s")
    for name in ("130-fmri.0001.jpeg", "file://localhost/001-echo.out", "nothing.txt",
                 "_concurrent/slices-37a24e6f-1434-4b0d-badd-5ab2f94d6844--array//elt-1"):
        want = {}
        for run_id, kind in sql(spql, query, n=name):
            want.setdefault(run_id, set()).add(kind)
        got = graph.query("swift/runs_touching_file", filename=name)
        assert {r["run_id"]: {k for k, on in (("I", r["consumed"]), ("O", r["produced"])) if on}
                for r in got} == want
    slice_1 = "_concurrent/slices-37a24e6f-1434-4b0d-badd-5ab2f94d6844--array//elt-1"
    [fmri] = graph.query("swift/runs_touching_file", filename=slice_1)
    assert fmri["consumed"] and fmri["produced"] and fmri["script"] == "130-fmri.swift"


def _operators(plan):
    return [plan["operatorType"]] + [o for c in plan.get("children", []) for o in _operators(c)]


@pytest.mark.parametrize("name,param", [("swift/ancestors", "uid"),
                                        ("swift/data_dependencies", "dataset"),
                                        ("swift/function_call_dependencies", "call")])
def test_dependency_templates_prune(graph, name, param):
    value = {"uid": f"swift:call:{FMRI}:0-10-1", "call": f"{FMRI}:0-10-1",
             "dataset": "tag:benc@ci.uchicago.edu,2008:swift:dataset:20090316-1729-x8j87htb:"
                        "720000000020"}[param]
    t = templates.get(name)
    result = graph.graph.driver.execute_query("PROFILE " + t.text, t.bind({param: value}))
    assert result.records
    assert any("Pruning" in op for op in _operators(result.summary.profile)), \
        _operators(result.summary.profile)
