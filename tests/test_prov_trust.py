"""A PROV import never changes what another load stated (issue 41's attacks, replayed).

A short PROV-JSON document that spelled ``lineage:kind`` / ``lineage:uid`` of an existing node
was trusted as this tool's own export: it turned a failed Pegasus job into ``succeeded``,
rewrote an XALT run's user, job id and host, and planted a link edge at confidence 1.0, also
from inside a bundle. Now only an export this installation signed is read back into its
kinds (lineage.sources.prov.trust), and even then only onto nodes whose values agree; any
other document's elements are PROV elements of its own. Each attack is checked twice: the
facts of the other sources are what they were (every node and relationship outside the
``prov:`` namespace, byte for byte), and after unloading the attack the whole graph is.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from urllib.parse import quote

import pytest

from .conftest import SAMPLES
from .corpus import first, needs_corpus
from .graphcheck import canonical, fingerprint

pytestmark = needs_corpus

FAIL_DB = SAMPLES / "pegasus" / "process_wf_failure.stampede.db"
FAIL_WF = "pegasus:workflow:f84f05fc-a8d0-42b5-bac5-52d6f41a77e3"
XALT_RUN = first("xalt", "run.*.json")
XALT_UID = "xalt:run:acc1af54-6d3c-4ada-8cac-4c8f6aad8bb5"


@pytest.fixture(autouse=True)
def export_key_home(tmp_path_factory, monkeypatch):
    """The export key of a home of the test's own."""
    monkeypatch.setenv("LINEAGE_HOME", str(tmp_path_factory.mktemp("home")))


def others(lin) -> str:
    """Every node and relationship of the other sources (outside ``prov:``), canonical."""
    nodes = lin.query("MATCH (n:Lineage) WHERE NOT n.uid STARTS WITH 'prov:' "
                      "RETURN n.uid AS uid, labels(n) AS labels, properties(n) AS p "
                      "ORDER BY uid")
    rels = lin.query("MATCH (a:Lineage)-[r]->(b:Lineage) WHERE NOT a.uid STARTS WITH 'prov:' "
                     "AND NOT b.uid STARTS WITH 'prov:' "
                     "RETURN a.uid AS a, type(r) AS t, b.uid AS b, properties(r) AS p")
    return canonical([[n["uid"], sorted(n["labels"]), n["p"]] for n in nodes]
                     + sorted(canonical([r["a"], r["t"], r["b"], r["p"]]) for r in rels))


def graph_state(lin) -> tuple[dict, set]:
    """Each node's properties but ``loads``, by uid, and the relationships as triples."""
    nodes = {r["uid"]: {k: v for k, v in r["p"].items() if k != "loads"} for r in lin.query(
        "MATCH (n:Lineage) RETURN n.uid AS uid, properties(n) AS p")}
    edges = {(r["a"], r["t"], r["b"]) for r in lin.query(
        "MATCH (a:Lineage)-[r]->(b:Lineage) RETURN a.uid AS a, type(r) AS t, b.uid AS b")}
    return nodes, edges


@pytest.fixture
def victims(lin):
    """A failed Pegasus workflow and an XALT run, and what the attacks aim at."""
    lin.load([FAIL_DB, XALT_RUN])
    [job] = lin.query("MATCH (j:Job:Failed)-[:PART_OF]->(:Workflow {uid: $wf}) "
                      "RETURN j.uid AS uid, j.name AS name ORDER BY uid LIMIT 1", wf=FAIL_WF)
    [attempt] = lin.query("MATCH (i:JobInstance)-[:INSTANCE_OF]->(:Job {uid: $job}) "
                          "RETURN i.uid AS uid LIMIT 1", job=job["uid"])
    [run] = lin.query("MATCH (e:Execution {uid: $uid}) RETURN properties(e) AS p", uid=XALT_UID)
    assert {"user", "job_id", "syshost"} <= set(run["p"])
    return {"job": job, "attempt": attempt["uid"], "run": run["p"]}


def _id(uid: str) -> str:
    return "lineage:" + quote(uid, safe="")


def forged(victims: dict, in_bundle: bool = False) -> dict:
    """The attacks, as a document another tool could write: the job succeeded, the XALT run
    was someone else's, and ran within the failed job's attempt (a link at confidence 1)."""
    job = victims["job"]["uid"]
    records = {
        "activity": {
            _id(job): {"lineage:kind": "Job", "lineage:uid": job, "lineage:status": "succeeded"},
            _id(XALT_UID): {"lineage:kind": "Execution", "lineage:uid": XALT_UID,
                            "lineage:user": "mallory", "lineage:job_id": "666",
                            "lineage:syshost": "evil-host"},
            _id(victims["attempt"]): {"lineage:kind": "JobInstance",
                                      "lineage:uid": victims["attempt"]},
        },
        "wasInfluencedBy": {"_:l1": {
            "prov:influencee": _id(XALT_UID), "prov:influencer": _id(victims["attempt"]),
            "lineage:type": "RAN_WITHIN", "lineage:confidence": 1.0,
            "lineage:rule": "job_id_host"}},
    }
    prefix = {"lineage": "urn:lineage-explorer:"}
    if in_bundle:
        return {"prefix": {**prefix, "ex": "http://example.org/"},
                "bundle": {"ex:b": {"prefix": prefix, **records}}}
    return {"prefix": prefix, **records}


def assert_untouched(lin, victims: dict, before: str) -> None:
    [job] = lin.query("MATCH (j:Job {uid: $uid}) RETURN j.status AS s, labels(j) AS l",
                      uid=victims["job"]["uid"])
    assert job["s"] == "failed" and "Failed" in job["l"]
    assert victims["job"]["name"] in {p["name"] for p in lin.why(FAIL_WF)["problems"]
                                      if p["status"] == "failed"}
    [run] = lin.query("MATCH (e:Execution {uid: $uid}) RETURN properties(e) AS p", uid=XALT_UID)
    assert run["p"] == victims["run"]
    assert lin.query("MATCH ()-[r:RAN_WITHIN|SAME_ACTIVITY]->() RETURN count(r) AS n")[0]["n"] == 0
    assert others(lin) == before


@pytest.mark.parametrize("in_bundle", [False, True], ids=["top level", "inside a bundle"])
def test_a_forged_document_changes_no_other_source(lin, victims, tmp_path, in_bundle):
    before, whole = others(lin), fingerprint(lin.graph.driver, lin.graph.database, True)
    attack = tmp_path / "attack.json"
    attack.write_text(json.dumps(forged(victims, in_bundle), indent=1))
    [result] = lin.load([attack])  # strict: valid PROV, of another tool
    assert result.status == "loaded"
    assert_untouched(lin, victims, before)
    # its claims are kept, as what they are: attributes of PROV elements of its own
    [claim] = lin.query("MATCH (a:ProvActivity {identifier: $uri}) "
                        "RETURN a.attr_lineage_status AS status",
                        uri="urn:lineage-explorer:" + quote(victims["job"]["uid"], safe=""))
    assert claim["status"] == "succeeded"
    lin.unload(attack)
    assert fingerprint(lin.graph.driver, lin.graph.database, True) == whole


def test_a_tampered_export_is_another_tools_document(lin, victims, tmp_path):
    """A real, signed export with one value changed no longer verifies."""
    before = others(lin)
    export = lin.export(FAIL_WF, tmp_path / "wf.json")
    text = open(export).read()
    assert '"lineage:status": "failed"' in text
    tampered = tmp_path / "tampered.json"
    tampered.write_text(text.replace('"lineage:status": "failed"', '"lineage:status": "succeeded"'))
    lin.load([tampered])
    assert_untouched(lin, victims, before)


def test_a_signed_export_does_not_overwrite_what_changed_since(lin, tmp_path):
    """Our own export, replayed after the input changed: the nodes whose values differ keep
    today's (warned, counted); the others are as they are."""
    db = tmp_path / "wf.stampede.db"
    shutil.copy(FAIL_DB, db)
    lin.load([db])
    old = lin.export(FAIL_WF, tmp_path / "old.json")
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE workflow SET user = 'carol'")
    lin.load([db])
    [wf] = lin.query("MATCH (w:Workflow {uid: $uid}) RETURN w.user AS user", uid=FAIL_WF)
    assert wf["user"] == "carol"
    nodes, edges = graph_state(lin)
    [result] = lin.load([old])
    assert result.report["nodes_stated_otherwise_by_other_inputs"] == 1
    assert any(FAIL_WF in w and "carol" in w for w in result.report["warnings"])
    # no node that was there changed, no relationship was added to one; what the export
    # states that the graph lacks (the old user's node) it may add
    nodes_after, edges_after = graph_state(lin)
    assert {uid: nodes_after[uid] for uid in nodes} == nodes
    assert not [e for e in edges_after - edges if e[0] in nodes or e[2] in nodes]
    assert set(nodes_after) - set(nodes) == {"user:mzalam"}
    # and into a graph without those nodes, the same export is read back as what it was
    lin.reset()
    lin.load([old])
    assert lin.query("MATCH (w:Workflow {uid: $uid}) RETURN w.user AS user",
                     uid=FAIL_WF)[0]["user"] != "carol"
