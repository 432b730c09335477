"""Lineage that leaves the tool: W3C PROV-JSON / PROV-N the prov package reads back, GraphML,
PROV-JSON import (other tools' documents and round trips of our own, signed)."""

import json

import networkx as nx
import pytest
from click.testing import CliRunner
from prov.model import ProvDocument

from lineage import cli
from lineage.errors import ParseError

from .conftest import SAMPLES
from .corpus import derived, first, needs_corpus

BD = SAMPLES / "pegasus" / "blackdiamond-4.0.bp"
BD_WF = "pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556"
XALT_RUN = first("xalt", "run.*.json")
SWIFT = SAMPLES / "swift" / "130-fmri-20090316-1729-mxxea3a1.log"

#: A W3C PROV-JSON document as other tools write it (the PROV primer's example, abridged).
PRIMER = {
    "prefix": {"ex": "http://example.org/", "foaf": "http://xmlns.com/foaf/0.1/"},
    "entity": {"ex:article": {"prov:label": "Crime rises in cities", "prov:type": "ex:Article"},
               "ex:dataSet1": {}, "ex:chart1": {}},
    "activity": {"ex:compose": {"prov:startTime": "2012-03-31T09:21:00+00:00"},
                 "ex:illustrate": {}},
    "agent": {"ex:derek": {"prov:type": "prov:Person", "foaf:givenName": "Derek"}},
    "used": {"_:u1": {"prov:activity": "ex:compose", "prov:entity": "ex:dataSet1"}},
    "wasGeneratedBy": {"_:g1": {"prov:entity": "ex:chart1", "prov:activity": "ex:illustrate"}},
    "wasInformedBy": {"_:i1": {"prov:informed": "ex:illustrate", "prov:informant": "ex:compose"}},
    "wasDerivedFrom": {"_:d1": {"prov:generatedEntity": "ex:article",
                                "prov:usedEntity": "ex:dataSet1"}},
    "wasAssociatedWith": {"_:a1": {"prov:activity": "ex:compose", "prov:agent": "ex:derek"}},
}


@pytest.fixture(autouse=True)
def export_key_home(tmp_path_factory, monkeypatch):
    """The export key (lineage.sources.prov.trust) of a home of the test's own."""
    monkeypatch.setenv("LINEAGE_HOME", str(tmp_path_factory.mktemp("home")))


def subgraph_content(lin, nodes, edges):
    """Nodes and relationships of a subgraph, without which load wrote them."""
    def plain(props):
        return tuple(sorted((k, json.dumps(v)) for k, v in props.items() if k != "loads"))
    return (sorted((n["uid"], n["kind"], plain(n["properties"])) for n in nodes),
            sorted((e["source"], e["type"], e["target"], plain(e["properties"])) for e in edges))


@needs_corpus
@pytest.mark.parametrize("sample,run", [
    (BD, BD_WF),
    (XALT_RUN, "xalt:run:acc1af54-6d3c-4ada-8cac-4c8f6aad8bb5"),
    (SWIFT, "swift:run:130-fmri-20090316-1729-mxxea3a1"),
])
def test_export_then_import_gives_the_same_subgraph(lin, tmp_path, sample, run):
    lin.load([sample])
    nodes, edges = lin.subgraph_rows(run)
    assert len(nodes) > 1 and len(edges) > 0
    before = subgraph_content(lin, nodes, edges)
    doc = tmp_path / "run.json"
    lin.export(run, doc)
    read = ProvDocument.deserialize(source=str(doc), format="json")  # the prov package reads it
    assert len(read.get_records()) >= len(nodes) + len(edges)
    lin.reset()
    [result] = lin.load([doc])
    assert result.format == "prov-json" and result.status == "loaded"
    assert result.write.unresolved_edges == 0
    nodes2, edges2 = lin.subgraph_rows(run)
    assert subgraph_content(lin, nodes2, edges2) == before


@needs_corpus
def test_prov_n_and_graphml(lin, tmp_path):
    lin.load([BD])
    provn = tmp_path / "wf.provn"
    lin.export(BD_WF, provn, fmt="prov-n")
    text = provn.read_text()
    assert text.startswith("document") and "wasInformedBy(" in text
    assert "wasAssociatedWith(" in text and 'lineage:type="PART_OF"' in text
    graphml = tmp_path / "wf.graphml"
    lin.export(BD_WF, graphml, fmt="graphml")
    graph = nx.read_graphml(graphml)
    nodes, edges = lin.subgraph_rows(BD_WF)
    assert graph.number_of_nodes() == len(nodes) and graph.number_of_edges() == len(edges)
    assert graph.nodes[BD_WF]["kind"] == "Workflow"


def test_another_tools_document_imports_as_prov_kinds(lin, tmp_path):
    doc = tmp_path / "primer.json"
    doc.write_text(json.dumps(PRIMER))
    [result] = lin.load([doc])
    assert result.format == "prov-json" and result.status == "loaded"
    kinds = {r["k"]: r["n"] for r in lin.query(
        "MATCH (n:Lineage) RETURN n.kind AS k, count(*) AS n")}
    assert kinds == {"ProvEntity": 3, "ProvActivity": 2, "ProvAgent": 1, "ProvDocument": 1}
    [article] = lin.query("MATCH (n:ProvEntity {identifier: 'http://example.org/article'}) "
                          "RETURN n.label AS label, n.prov_type AS types, n.name AS name")
    assert article == {"label": "Crime rises in cities", "types": ["ex:Article"],
                       "name": "ex:article"}
    # lineage questions work on it: the chart's ancestry runs through both activities
    up = {r["uid"] for r in lin.query("ancestors", uid="prov:entity:http://example.org/chart1")}
    assert {"prov:activity:http://example.org/illustrate",
            "prov:activity:http://example.org/compose",
            "prov:entity:http://example.org/dataSet1"} <= up
    [derek] = lin.query("MATCH (a:ProvAgent) RETURN a.attr_foaf_givenName AS name")
    assert derek["name"] == "Derek"


def test_a_record_the_prov_package_cannot_read_is_named(lin, tmp_path):
    """A reference to an element the document does not declare is valid PROV (it names an
    element); a qualified name of an undeclared prefix is not: the record is named."""
    bad = dict(PRIMER, used={"_:u1": {"prov:activity": "ex:compose", "prov:entity": "zz:data"}})
    doc = tmp_path / "bad.json"
    doc.write_text(json.dumps(bad))
    with pytest.raises(ParseError, match=r"bad.json:used '_:u1': expected a W3C PROV-JSON "
                                         r"record.*zz:data"):
        lin.load([doc])
    assert lin.query("MATCH (n:Lineage) RETURN count(n) AS n")[0]["n"] == 0
    [result] = lin.load([doc], lenient=True)  # lenient: that record skipped, counted
    assert result.status == "loaded"
    assert result.report["skipped"] == {"expected a W3C PROV-JSON record": 1}
    assert lin.query("MATCH ()-[r:USED]->() RETURN count(r) AS n")[0]["n"] == 0
    broken = tmp_path / "broken.json"
    broken.write_text('{"entity": {"ex:a": {}}, "prefix": 3}')
    with pytest.raises(ParseError, match="broken.json.*PROV-JSON.*prefix"):
        lin.load([broken])


@needs_corpus
@pytest.mark.parametrize("attribute", ["lineage:", "lineage:list__"])
def test_a_damaged_export_is_another_tools_document(lin, tmp_path, attribute):
    """Found by test_fuzz_parsers on a random draw: a damaged export whose
    ``"lineage:name"`` lost its local part gave a node a property with an empty name. A
    damaged export no longer verifies: it is read as another tool's document (its
    ``lineage:*`` claims are attributes of elements of its own), and no property is nameless.
    """
    good = derived() / "prov" / "blackdiamond-4.0.prov.json"
    text = good.read_text()
    assert text.count('"lineage:name": ') > 1
    damaged = tmp_path / "damaged.prov.json"
    value = '"[]"' if attribute.endswith("__") else '"x"'
    damaged.write_text(text.replace('"lineage:name": ', f'"{attribute}": {value}, "lineage:name": ',
                                    1))
    [result] = lin.load([damaged])
    assert result.status == "loaded"
    kinds = {r["k"] for r in lin.query("MATCH (n:Lineage) RETURN DISTINCT n.kind AS k")}
    assert {"ProvActivity", "ProvAgent", "ProvDocument"} <= kinds  # nothing of Pegasus's
    assert kinds <= {"ProvEntity", "ProvActivity", "ProvAgent", "ProvDocument"}
    assert lin.query("MATCH (n:Lineage) WHERE '' IN keys(n) RETURN count(n) AS n")[0]["n"] == 0


@needs_corpus
def test_export_command(lin, tmp_path, cli_env):
    lin.load([BD])
    out = tmp_path / "wf.json"
    result = CliRunner(env=cli_env).invoke(cli.main, ["export", BD_WF, "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["prefix"]["lineage"] == "urn:lineage-explorer:"


@needs_corpus
def test_lineage_import_reads_prov_json_back(lin, tmp_path, cli_env):
    from click.testing import CliRunner

    from lineage import cli

    lin.load([SAMPLES / "pegasus" / "blackdiamond-4.0.bp"])
    wf = "pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556"
    lin.export(wf, tmp_path / "wf.json")
    lin.reset()
    out = CliRunner(env=cli_env).invoke(cli.main, ["import", str(tmp_path / "wf.json"),
                                                   "--format", "json"])
    assert out.exit_code == 0, out.output
    assert [r["format"] for r in json.loads(out.output)] == ["prov-json"]
    assert "Workflow" in lin.query("node", uid=wf)[0]["labels"]
    bad = tmp_path / "run.bp"
    bad.write_text((SAMPLES / "pegasus" / "blackdiamond-4.0.bp").read_text())
    out = CliRunner(env=cli_env).invoke(cli.main, ["import", str(bad)])
    assert out.exit_code == 3, out.output


@needs_corpus
def test_a_diffs_two_sides_export_as_one_document(lin, tmp_path, cli_env):
    import shutil
    import sqlite3

    second = tmp_path / "second.stampede.db"
    shutil.copy(SAMPLES / "pegasus" / "process_wf_failure.stampede.db", second)
    with sqlite3.connect(second) as conn:
        conn.execute("UPDATE workflow SET wf_uuid = 'f84f05fc-0000-0000-0000-000000000002'")
    lin.load([SAMPLES / "pegasus" / "process_wf_failure.stampede.db", second])
    a = "pegasus:workflow:f84f05fc-a8d0-42b5-bac5-52d6f41a77e3"
    b = "pegasus:workflow:f84f05fc-0000-0000-0000-000000000002"
    out = CliRunner(env=cli_env).invoke(cli.main, ["export", a, b, "-o", str(tmp_path / "ab.json")])
    assert out.exit_code == 0, out.output
    doc = ProvDocument.deserialize(str(tmp_path / "ab.json"), format="json")
    ids = {str(r.identifier) for r in doc.get_records()}
    one_a = {str(r.identifier) for r in ProvDocument.deserialize(
        lin.export(a, tmp_path / "a.json"), format="json").get_records()}
    assert one_a < ids and any("f84f05fc-0000" in i for i in ids - one_a)
    events = tmp_path / "ab.jsonl"
    lin.export([a, b], events, fmt="openlineage")
    run_ids = {json.loads(line)["run"]["runId"] for line in events.read_text().splitlines()}
    from lineage.answers.openlineage import run_id
    assert {run_id(a), run_id(b)} <= run_ids


def without_signature(document: ProvDocument) -> ProvDocument:
    """The document without the record that signs it (lineage.sources.prov.trust)."""
    out = ProvDocument()
    for record in document.get_records():
        if str(record.identifier) != "lineage:export":
            out.add_record(record)
    return out


@needs_corpus
def test_streamed_exports_equal_the_documents_built_whole(lin, tmp_path, monkeypatch):
    """Exports stream in batches (here 7 elements, so many batches and spooled sections): the
    documents equal those the ``prov`` package and networkx build from the whole subgraph,
    but for the signature that ends them."""
    from lineage.sources.prov import export

    lin.load([BD])
    nodes, edges = lin.subgraph_rows(BD_WF)
    monkeypatch.setattr(export, "BATCH", 7)
    whole = export.to_prov(list(nodes), list(edges))
    streamed = ProvDocument.deserialize(lin.export(BD_WF, tmp_path / "wf.json"), format="json")
    assert len(streamed.get_records()) == len(nodes) + len(edges) + 1 > 7 * 10
    assert without_signature(streamed) == whole
    provn = (tmp_path / "wf.provn")
    lin.export(BD_WF, provn, fmt="prov-n")
    lines = provn.read_text().splitlines()
    assert lines[0] == "document" and lines[-1] == "endDocument"
    assert lines[-2].startswith("  entity(lineage:export, [lineage:signature=")
    assert without_signature(ProvDocument.deserialize(str(provn), format="provn")) == whole
    graph = nx.read_graphml(lin.export(BD_WF, tmp_path / "wf.graphml", fmt="graphml"),
                            force_multigraph=True)
    for node in nodes:
        props = {k: json.dumps(v, ensure_ascii=False) if isinstance(v, list) else v
                 for k, v in node["properties"].items() if v is not None}
        assert graph.nodes[node["uid"]] == {**props, "kind": node["kind"]}
    read_edges = sorted((a, b, d["type"]) for a, b, d in graph.edges(data=True))
    assert read_edges == sorted((e["source"], e["target"], e["type"]) for e in edges)


def test_prov_n_keeps_text_byte_for_byte(lin, tmp_path):
    """Blank lines, and lines that begin with ``prefix `` inside a multi-line value, were
    deleted from PROV-N exports; each record is now written as the prov package writes it,
    and its parser reads every value back unchanged (PROV-JSON too)."""
    from lineage.answers import exchange

    text = "line one\n\n  prefix ex <http://evil/>\nprefix b\n\n\tend \"quoted\" \\ done\n"
    nodes = [{"uid": "host:a", "kind": "Host", "properties": {"name": "a", "uname": text}},
             {"uid": "user:b", "kind": "User", "properties": {"name": text}}]
    for fmt, prov_format in (("prov-n", "provn"), ("prov-json", "json")):
        path = exchange.write(iter(nodes), iter([]), tmp_path / f"x.{fmt}", fmt)
        read = ProvDocument.deserialize(str(path), format=prov_format)
        values = sorted(str(v) for r in read.get_records() for k, v in r.attributes
                        if str(k) in ("lineage:uname", "lineage:name") and "line one" in str(v))
        assert values == [text, text], fmt
        [result] = lin.load([path])  # and it is still our own, signed export
        assert lin.query("MATCH (h:Host {uid: 'host:a'}) RETURN h.uname AS u")[0]["u"] == text
        lin.reset()


def test_the_export_key_is_private_made_once_and_a_damaged_one_named(tmp_path):
    """Exports of our kinds are signed with a key of this installation (0600, made by the
    first export); a damaged key stops the export with its path, it is never replaced."""
    import os
    import stat

    from lineage.answers import exchange
    from lineage.errors import LineageError
    from lineage.sources.prov import trust

    nodes = [{"uid": "host:a", "kind": "Host", "properties": {"name": "a"}}]
    assert not trust.key_path().exists()
    first = exchange.write(iter(nodes), iter([]), tmp_path / "a.json", "prov-json")
    key = trust.key_path().read_text()
    assert stat.S_IMODE(os.stat(trust.key_path()).st_mode) == 0o600 and len(key.strip()) == 64
    exchange.write(iter(nodes), iter([]), tmp_path / "b.json", "prov-json")
    assert trust.key_path().read_text() == key
    assert trust.verified_file(first) and trust.verified_file(tmp_path / "b.json")
    trust.key_path().write_text("not hex\n")
    with pytest.raises(LineageError, match="export-key: the export key is damaged"):
        exchange.write(iter(nodes), iter([]), tmp_path / "c.json", "prov-json")
    assert trust.key_path().read_text() == "not hex\n" and not trust.verified_file(first)


def test_graphml_keeps_value_types_and_shows_control_characters_as_escapes(tmp_path):
    from lineage.answers import exchange

    nodes = [
        {"uid": "a<&\">'", "kind": "Host", "properties": {
            "n": 3, "x": 1.5, "ok": True, "tags": ["p", "q"], "mixed": 1,
            "text": "red \x1b[31m nul \x00 tab\tok <b>&amp;</b>"}},
        {"uid": "b", "kind": "Host", "properties": {"n": 4, "x": 2, "ok": False, "mixed": "one"}},
    ]
    edges = [{"source": "a<&\">'", "target": "b", "type": "USED", "properties": {"weight": 0.5}}]
    path = exchange.write(iter(nodes), iter(edges), tmp_path / "g.graphml", "graphml")
    graph = nx.read_graphml(path, force_multigraph=True)
    a, b = graph.nodes["a<&\">'"], graph.nodes["b"]
    assert (a["n"], a["x"], a["ok"], b["n"], b["x"], b["ok"]) == (3, 1.5, True, 4, 2.0, False)
    assert a["tags"] == '["p", "q"]' and (a["mixed"], b["mixed"]) == ("1", "one")
    assert a["text"] == "red \\x1b[31m nul \\x00 tab\tok <b>&amp;</b>"
    [(_, _, data)] = graph.edges(data=True)
    assert data == {"type": "USED", "weight": 0.5}


def test_an_export_that_fails_midway_leaves_no_file(tmp_path):
    from lineage.answers import exchange

    def rows():
        yield {"uid": "a", "kind": "Host", "properties": {"name": "a"}}
        raise ConnectionError("the server went away")

    for fmt in exchange.FORMATS:
        out = tmp_path / f"x.{fmt}"
        with pytest.raises(ConnectionError):
            exchange.write(rows(), iter([]), out, fmt)
        assert list(tmp_path.iterdir()) == [], fmt


@needs_corpus
@pytest.mark.parametrize("fmt", ["prov-json", "prov-n", "graphml", "openlineage"])
def test_exports_are_readable_by_their_owner_only(lin, tmp_path, fmt):
    """Exports quote command lines and, for XALT runs loaded with --env all, environments:
    mode 0600 as reports, also over an existing world-readable file."""
    import os
    import stat

    lin.load([XALT_RUN], xalt_env="all")
    out = tmp_path / f"run.{fmt}"
    out.write_text("old")
    out.chmod(0o644)
    lin.export("xalt:run:acc1af54-6d3c-4ada-8cac-4c8f6aad8bb5", out, fmt=fmt)
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600
    assert out.read_text() != "old" and [p.name for p in tmp_path.iterdir()] == [out.name]
