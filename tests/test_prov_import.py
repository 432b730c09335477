"""Other tools' PROV documents (PROV-JSON, PROV-N, PROV-XML): identity by full URI, bundles,
every relation with its optional arguments and attributes, multi-valued attributes, what a
document may not change, and what malformed input gets."""

from __future__ import annotations

import json
import warnings

import pytest
from prov.model import ProvDocument

from lineage.errors import ParseError

EX = "http://example.org/"


def prov_json(path, doc: dict):
    path.write_text(json.dumps(doc))
    return path


def read_back(path, fmt: str = "json") -> ProvDocument:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return ProvDocument.deserialize(str(path), format=fmt)


def test_identity_is_the_full_uri_not_the_prefix(lin, tmp_path):
    """``ex`` naming two namespaces gives two nodes; one namespace under two prefixes, one."""
    a = prov_json(tmp_path / "a.json", {"prefix": {"ex": EX}, "entity": {"ex:e": {}}})
    b = prov_json(tmp_path / "b.json", {"prefix": {"ex": "http://other.org/"},
                                         "entity": {"ex:e": {}}})
    c = prov_json(tmp_path / "c.json", {"prefix": {"exo": EX}, "entity": {"exo:f": {}},
                                         "wasDerivedFrom": {"_:d": {
                                             "prov:generatedEntity": "exo:f",
                                             "prov:usedEntity": "exo:e"}}})
    lin.load([a, b, c])
    rows = lin.query("MATCH (e:ProvEntity) RETURN e.identifier AS id ORDER BY id")
    assert [r["id"] for r in rows] == [EX + "e", EX + "f", "http://other.org/e"]
    # c's exo:e is a's ex:e: its derivation reaches a's entity
    [up] = lin.query("MATCH (:ProvEntity {identifier: $f})-[:WAS_DERIVED_FROM]->(e) "
                     "RETURN e.uid AS uid", f=EX + "f")
    assert up["uid"] == "prov:entity:" + EX + "e"


def test_attributes_relations_and_ends_left_out(lin, tmp_path):
    doc = prov_json(tmp_path / "d.json", {
        "prefix": {"ex": EX},
        "entity": {"ex:e": {"ex:tag": ["red", "blue"], "ex:size": {"$": "3", "type": "xsd:int"},
                            "prov:label": {"$": "une étiquette", "lang": "fr"}}},
        "activity": {"ex:a": {"prov:startTime": "2024-01-02T03:04:05Z"}},
        "agent": {"ex:ag": {}},
        "used": {"ex:u": {"prov:activity": "ex:a", "prov:entity": "ex:e",
                          "prov:time": "2024-01-02T03:04:06Z", "ex:note": "first pass"}},
        "wasAssociatedWith": {"_:w": {"prov:activity": "ex:a"}},  # agent and plan left out
        "wasAttributedTo": {"_:t": {"prov:entity": "ex:e", "prov:agent": "ex:ag"}},
        "actedOnBehalfOf": {"_:b": {"prov:delegate": "ex:ag", "prov:responsible": "ex:boss"}},
        "wasEndedBy": {"_:n": {"prov:activity": "ex:a", "prov:trigger": "ex:e"}},
        "wasInvalidatedBy": {"_:i": {"prov:entity": "ex:e", "prov:activity": "ex:a"}},
        "alternateOf": {"_:al": {"prov:alternate1": "ex:e", "prov:alternate2": "ex:e2"}},
        "specializationOf": {"_:s": {"prov:specificEntity": "ex:e2",
                                     "prov:generalEntity": "ex:e"}},
        "wasInfluencedBy": {"_:f": {"prov:influencee": "ex:a", "prov:influencer": "ex:ag"}},
    })
    [result] = lin.load([doc])
    assert result.status == "loaded" and not result.report["skipped"]
    [e] = lin.query("MATCH (e:ProvEntity {identifier: $id}) RETURN properties(e) AS p",
                    id=EX + "e")
    assert e["p"]["attr_ex_tag"] == ["red", "blue"] and e["p"]["label"] == "une étiquette"
    [used] = lin.query("MATCH (:ProvActivity)-[u:USED]->(:ProvEntity) RETURN properties(u) AS p")
    assert used["p"]["prov_id"] == EX + "u" and used["p"]["time"] == 1704164646.0
    assert "first pass" in used["p"]["prov_record"]  # kept exactly, with every attribute
    types = {r["t"]: (r["a"], r["b"]) for r in lin.query(
        "MATCH (a)-[r]->(b) WHERE type(r) <> 'PART_OF' "
        "RETURN type(r) AS t, a.kind AS a, b.kind AS b")}
    assert types == {
        "USED": ("ProvActivity", "ProvEntity"),
        "WAS_ASSOCIATED_WITH": ("ProvActivity", "ProvAgent"),
        "WAS_ATTRIBUTED_TO": ("ProvEntity", "ProvAgent"),
        "ACTED_ON_BEHALF_OF": ("ProvAgent", "ProvAgent"),
        "WAS_ENDED_BY": ("ProvActivity", "ProvEntity"),
        "WAS_INVALIDATED_BY": ("ProvEntity", "ProvActivity"),
        "ALTERNATE_OF": ("ProvEntity", "ProvEntity"),
        "SPECIALIZATION_OF": ("ProvEntity", "ProvEntity"),
        "WAS_INFLUENCED_BY": ("ProvActivity", "ProvAgent"),  # the roles the document declares
    }
    # the association's agent, left out, is an element of its own ("-"), not a shared hub
    [nobody] = lin.query("MATCH (:ProvActivity)-[:WAS_ASSOCIATED_WITH]->(g) "
                         "RETURN g.name AS name, g.identifier AS id")
    assert nobody["name"] == "-" and nobody["id"].startswith("_:")
    out = lin.export(f"prov:document:{result.sha256}", tmp_path / "out.json")
    assert read_back(out) == read_back(doc)
    # the document is a run: listed, and its report takes it whole
    assert f"prov:document:{result.sha256}" in {r["uid"] for r in lin.query("runs")}
    html = open(lin.report(f"prov:document:{result.sha256}", tmp_path / "r.html")).read()
    assert "Parts of the run (6)" in html and "une \\u00e9tiquette" in html


def test_prov_n_and_prov_xml_give_the_graph_prov_json_gives(lin, tmp_path):
    source = ProvDocument()
    source.add_namespace("ex", EX)
    source.entity("ex:data", {"ex:size": 12, "prov:label": "input"})
    source.activity("ex:run")
    source.used("ex:run", "ex:data", other_attributes={"prov:role": "ex:input"})
    bundle = source.bundle("ex:b")
    bundle.wasGeneratedBy("ex:out", "ex:run")

    def graph():
        nodes = sorted(r["uid"] for r in lin.query(
            "MATCH (n:Lineage) WHERE NOT n:ProvDocument AND NOT n:ProvBundle "
            "RETURN n.uid AS uid"))
        edges = sorted((r["a"], r["t"], r["b"]) for r in lin.query(
            "MATCH (a)-[r]->(b) WHERE type(r) <> 'PART_OF' "
            "RETURN a.uid AS a, type(r) AS t, b.uid AS b"))
        return nodes, edges

    shapes = {}
    for fmt, name in (("json", "doc.json"), ("provn", "doc.provn"), ("xml", "doc.provx")):
        path = tmp_path / name
        source.serialize(str(path), format=fmt)
        [result] = lin.load([path])
        assert result.format == {"json": "prov-json", "provn": "prov-n", "xml": "prov-xml"}[fmt]
        shapes[fmt] = graph()
        assert read_back(lin.export(f"prov:document:{result.sha256}", tmp_path / "o.json")) \
            == source, fmt
        lin.reset()
    assert shapes["json"] == shapes["provn"] == shapes["xml"]
    assert ("prov:entity:" + EX + "out", "WAS_GENERATED_BY", "prov:activity:" + EX + "run") \
        in shapes["json"][1]


def test_a_document_may_not_change_what_another_document_said(lin, tmp_path):
    """Two documents describe one URI differently: the first description stays (the second
    load says so), the second's relations are loaded, and each exports as itself."""
    first = prov_json(tmp_path / "first.json", {"prefix": {"ex": EX},
                                                 "entity": {"ex:e": {"ex:v": 1}}})
    second = prov_json(tmp_path / "second.json", {
        "prefix": {"ex": EX}, "entity": {"ex:e": {"ex:v": 2}}, "activity": {"ex:a": {}},
        "used": {"_:u": {"prov:activity": "ex:a", "prov:entity": "ex:e"}}})
    lin.load([first])
    [result] = lin.load([second])
    assert result.report["nodes_stated_otherwise_by_other_inputs"] == 1
    assert [w for w in result.report["warnings"] if "attr_ex_v 1 there, 2 here" in w]
    assert lin.query("MATCH (e:ProvEntity) RETURN e.attr_ex_v AS v")[0]["v"] == 1
    assert lin.query("MATCH (:ProvActivity)-[:USED]->(e:ProvEntity) RETURN count(e) AS n"
                     )[0]["n"] == 1
    for doc in (first, second):
        uid = "prov:document:" + result.sha256 if doc is second else None
        uid = uid or lin.query("MATCH (d:ProvDocument {name: 'first.json'}) RETURN d.uid AS u"
                               )[0]["u"]
        assert read_back(lin.export(uid, tmp_path / "o.json")) == read_back(doc), doc.name


@pytest.mark.parametrize("content,where", [
    ('{"entity": {"ex:a": {}}, "prefix": {"ex": "http://e/"}, "wasFoundBy": {"_:x": {}}}',
     r"wasFoundBy '_:x': expected a W3C PROV-JSON record.*not a recognised"),
    ('{"prefix": {"ex": "http://e/"}, "entity": {"ex:a": {"ex:v": 1}', r"PROV-JSON document"),
    ('{"prefix": {"ex": "http://e/"}, "entity": {"ex:a": 5}}',
     r"entity 'ex:a': expected a W3C PROV-JSON record.*must be a JSON object"),
])
def test_malformed_prov_json_is_named(lin, tmp_path, content, where):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ParseError, match=f"bad.json.*{where}"):
        lin.load([path])
    assert lin.query("MATCH (n:Lineage) RETURN count(n) AS n")[0]["n"] == 0


def test_size_limits_are_named(lin, tmp_path, monkeypatch):
    """A PROV-JSON record larger than the limit, and a PROV-N document larger than the one
    the prov package reads whole, are refused with the limit named."""
    from lineage.sources.prov import jsonstream, whole

    monkeypatch.setattr(jsonstream, "MAX_RECORD_CHARS", 1000)
    big = prov_json(tmp_path / "big.json", {"prefix": {"ex": EX}, "entity": {
        "ex:small": {}, "ex:big": {"ex:v": "x" * 2000}}})
    with pytest.raises(ParseError, match="entity 'ex:big': expected a record of at most 1000"):
        lin.load([big])
    monkeypatch.setattr(whole, "MAX_BYTES", 100)
    provn = tmp_path / "doc.provn"
    provn.write_text("document\n  prefix ex <http://example.org/>\n" + "  entity(ex:e)\n" * 20
                     + "endDocument\n")
    with pytest.raises(ParseError, match="doc.provn.*PROV-N document of at most 100 bytes"):
        lin.load([provn])
    assert lin.query("MATCH (n:Lineage) RETURN count(n) AS n")[0]["n"] == 0
