"""Workflow Run RO-Crates (``lineage export RUN --format ro-crate``) of the demo campaign: the
official validator (roc-validator) finds no REQUIRED issue in the Provenance Run Crate of a
Pegasus workflow, a Swift script run and an XALT execution; the crate shows the failed
attempt's error, the sha1 of the binary each attempt ran and Chimbuko's anomalies; ``lineage
load`` reads it back, into an empty graph and into the graph that holds the original (where it
changes nothing)."""

from __future__ import annotations

import json
import stat
import zipfile

import pytest
from click.testing import CliRunner

from lineage import cli
from lineage.demo import campaign
from lineage.errors import ParseError

from . import crate_validation as validation
from . import demo_scenario as demo

FIRST_WF = demo.workflow(demo.FIRST)
#: the first run's findrange_ID0000003: its first attempt (c102, an old build) fails
FAILED = demo.attempts(demo.FIRST, "findrange_ID0000003")[0]
ANALYZE = demo.attempts(demo.FIRST, campaign.ANA)[0]
XALT_RUN = demo.xalt(ANALYZE.process)


def graph_snapshot(lin):
    """Every node's labels and values and every relationship, without which loads wrote
    them (the ``loads`` bookkeeping)."""
    def clean(props):
        return json.dumps({k: v for k, v in props.items() if k != "loads"}, sort_keys=True,
                          default=str)
    nodes = lin.query("MATCH (n:Lineage) RETURN n.uid AS uid, labels(n) AS labels, "
                      "properties(n) AS p ORDER BY uid")
    rels = lin.query("MATCH (a:Lineage)-[r]->(b:Lineage) RETURN a.uid AS a, type(r) AS t, "
                     "b.uid AS b, properties(r) AS p")
    return ([(n["uid"], sorted(n["labels"]), clean(n["p"])) for n in nodes],
            sorted((r["a"], r["t"], r["b"], clean(r["p"])) for r in rels))


@pytest.fixture(scope="module")
def crates(session_lineage, tmp_path_factory):
    """The demo campaign loaded and linked, and the crates of its runs: the first workflow
    with what was linked to it (a directory and a zip), the Swift run, an XALT execution."""
    lin = session_lineage
    lin.reset(force=True)
    out = tmp_path_factory.mktemp("crates")
    demo.load(lin, out / "files")
    lin.link()
    made = {"workflow": lin.export(FIRST_WF, out / "workflow", fmt="ro-crate", links=True),
            "zip": lin.export(FIRST_WF, out / "workflow.zip", fmt="ro-crate", links=True),
            "swift": lin.export(demo.SWIFT_RUN, out / "swift", fmt="ro-crate", links=True),
            "xalt": lin.export(XALT_RUN, out / "xalt", fmt="ro-crate")}
    return {name: type(out)(path) for name, path in made.items()}


@pytest.mark.parametrize("name", ["workflow", "zip", "swift", "xalt"])
def test_the_validator_finds_no_required_issue(crates, tmp_path, name):
    result = validation.validate(crates[name], tmp_path / "cache")
    assert result.passed(), validation.issues(result)
    assert validation.issues(result) == []


#: the RECOMMENDED checks the workflow's crate does not meet, each for a reason the docs give
#: (docs/guide/exchange.md, "What the RO-Crate validator says")
RECOMMENDED_LEFT = {
    "SoftwareApplication id", "Application url", "version or softwareVersion", "version",
    "Main Workflow Bioschemas compliance", "Action result",
    "File Data Entity: RECOMMENDED `encodingFormat` property",
    "Data Entity: RECOMMENDED resource availability", "Root Data Entity: `author` property",
    "Root Data Entity: `publisher` property", "README.md encodingFormat", "README.md about",
}


def test_the_recommended_issues_left_are_those_the_docs_explain(crates, tmp_path):
    result = validation.validate(crates["workflow"], tmp_path / "cache", "RECOMMENDED")
    left = {i.check.name for i in result.get_issues()}
    assert left <= RECOMMENDED_LEFT, left - RECOMMENDED_LEFT
    assert {i.severity.name for i in result.get_issues()} == {"RECOMMENDED"}


def test_the_crate_shows_the_failed_attempt_its_binary_and_the_anomalies(crates):
    crate = validation.metadata(crates["workflow"])
    by_id = {e["@id"]: e for e in crate["@graph"]}
    by_uid = {e["lineage:uid"]: e for e in crate["@graph"] if "lineage:uid" in e}
    root = by_id["./"]
    assert {c["@id"] for c in root["conformsTo"]} >= {"https://w3id.org/ro/wfrun/provenance/0.5"}
    workflow = by_id[root["mainEntity"]["@id"]]
    assert "ComputationalWorkflow" in workflow["@type"] and len(workflow["step"]) == 7

    failed = by_uid[demo.attempt(demo.FIRST, FAILED)]
    assert failed["actionStatus"] == "http://schema.org/FailedActionStatus"
    assert "invalid option -- 'T'" in failed["error"] and failed["lineage:exitCode"] == 1
    retry = by_uid[demo.attempt(demo.FIRST, demo.attempts(demo.FIRST, "findrange_ID0000003")[1])]
    assert retry["actionStatus"] == "http://schema.org/CompletedActionStatus"
    assert "error" not in retry
    # the binary each attempt ran: the old build on c102, the current one on c103
    ran = {}
    for attempt in (failed, retry):
        process = by_id[attempt["lineage:process"]["@id"]]
        binary = by_id[process["lineage:executable"]["@id"]]
        ran[attempt["@id"]] = binary["lineage:sha1"]
        assert process["lineage:uid"] == demo.xalt(
            FAILED.process if attempt is failed else demo.attempts(
                demo.FIRST, "findrange_ID0000003")[1].process)
    assert ran[failed["@id"]] == FAILED.process.binary.sha1
    assert ran[failed["@id"]] != ran[retry["@id"]]
    binary = by_id[by_id[failed["lineage:process"]["@id"]]["lineage:executable"]["@id"]]
    libraries = {by_id[r["@id"]]["lineage:path"]: by_id[r["@id"]]["lineage:sha1"]
                 for r in binary["softwareRequirements"]}
    assert libraries == {lib.path: lib.sha1 for lib in FAILED.process.binary.libraries}
    assert binary["lineage:compiler"] == FAILED.process.binary.build.compiler
    # Chimbuko's anomalies of the analyze program, on the attempt it ran in
    analyze = by_uid[demo.attempt(demo.FIRST, ANALYZE)]
    anomalies = [by_id[a["@id"]] for a in analyze["lineage:anomaly"]]
    assert sorted((a["lineage:rank"], a["lineage:function"]) for a in anomalies) == sorted(
        (s.rank, s.function) for s in demo.INSTRUMENTED.slow_calls)
    assert all(a["lineage:score"] > 0 for a in anomalies)
    # the environment as filtered at load, the modules
    process = by_id[analyze["lineage:process"][0]["@id"]] \
        if isinstance(analyze["lineage:process"], list) else by_id[analyze["lineage:process"]["@id"]]
    names = {by_id[e["@id"]]["name"] for e in process["environment"]}
    assert "HOME" in names and process["lineage:modules"]


def test_crates_are_private(crates):
    for name in ("workflow", "swift", "xalt"):
        folder = crates[name]
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        for path in folder.rglob("*"):
            if path.is_file():
                assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert stat.S_IMODE(crates["zip"].stat().st_mode) == 0o600
    assert "ro-crate-metadata.json" in zipfile.ZipFile(crates["zip"]).namelist()


def test_lineage_export_writes_a_crate_and_refuses_a_node_that_is_no_run(crates, cli_env,
                                                                         tmp_path):
    runner = CliRunner(env=cli_env)
    out = runner.invoke(cli.main, ["export", XALT_RUN, "--format", "ro-crate",
                                   "-o", str(tmp_path / "x.zip")])
    assert out.exit_code == 0, out.output
    assert "ro-crate-metadata.json" in zipfile.ZipFile(tmp_path / "x.zip").namelist()
    out = runner.invoke(cli.main, ["export", demo.file(demo.FIRST, "f.a"), "--format",
                                   "ro-crate", "-o", str(tmp_path / "y")])
    assert out.exit_code != 0 and "is not a run a crate describes" in out.output
    assert not (tmp_path / "y").exists()


def test_loading_the_crate_changes_nothing_and_fills_an_empty_graph(crates, session_lineage):
    lin = session_lineage
    before = graph_snapshot(lin)
    [result] = lin.load([crates["zip"]])
    assert result.status == "loaded", result
    assert graph_snapshot(lin) == before  # nothing new, nothing changed
    values = {uid: json.loads(props) for uid, _, props in before[0]}

    lin.reset(force=True)
    lin.load([crates["workflow"] / "ro-crate-metadata.json"])
    run = lin.query("node", uid=FIRST_WF)[0]["properties"]
    assert run["status"] == "succeeded" and run["start_time"] == values[FIRST_WF]["start_time"]
    failed = lin.query("node", uid=demo.attempt(demo.FIRST, FAILED))[0]
    assert failed["properties"]["status"] == "failed" and "Failed" in failed["labels"]
    steps = lin.query("MATCH (j:Job)-[:PART_OF]->(:Workflow {uid: $w}) RETURN j.uid AS uid, "
                      "j.status AS status ORDER BY uid", w=FIRST_WF)
    assert len(steps) == 7 and all(s["status"] == values[s["uid"]]["status"] for s in steps)
    files = lin.query("MATCH (f:File)-[:PART_OF]->(:Workflow {uid: $w}) RETURN f.uid AS uid, "
                      "f.name AS name ORDER BY uid", w=FIRST_WF)
    assert [f["uid"] for f in files] == sorted(demo.file(demo.FIRST, lfn) for lfn in
                                               ("f.a", "f.b1", "f.b2", "f.c1", "f.c2", "f.d"))
    made = lin.query("MATCH (f:File {uid: $f})-[:WAS_GENERATED_BY]->(t:Task) RETURN t.uid AS t",
                     f=demo.file(demo.FIRST, "f.c2"))
    assert made == [{"t": demo.task(demo.FIRST, "ID0000003")}]
    # every value read back is the original's
    for uid, _, props in graph_snapshot(lin)[0]:
        for key, value in json.loads(props).items():
            assert values[uid][key] == value, (uid, key)


def test_another_producers_crate_gets_its_own_nodes(crates, lin, tmp_path):
    document = validation.metadata(crates["swift"])
    document["@context"] = document["@context"][0]  # no lineage terms: another producer's
    for entity in document["@graph"]:
        for key in [k for k in entity if k.startswith("lineage:")]:
            del entity[key]
    (tmp_path / "ro-crate-metadata.json").write_text(json.dumps(document))
    [result] = lin.load([tmp_path])
    assert result.status == "loaded"
    runs = lin.query("MATCH (r:CrateRun) RETURN r.uid AS uid, r.status AS status, "
                     "r.workflow AS workflow, r.language AS language")
    assert len(runs) == 1 and runs[0]["status"] == "succeeded"
    assert runs[0]["language"] == "SwiftScript" and runs[0]["uid"].startswith("rocrate:run:")
    actions = lin.query("MATCH (a:CrateAction)-[:PART_OF]->(:CrateRun) RETURN a.status AS s, "
                        "a.tool AS tool ORDER BY tool")
    assert [a["tool"] for a in actions] == sorted(c.app for c in demo.SCRIPT.calls)
    assert all(a["s"] == "succeeded" for a in actions)
    assert lin.query("MATCH (n) WHERE n.uid STARTS WITH 'swift:' RETURN count(n) AS n")[0]["n"] == 0


def test_a_broken_crate_is_named_and_nothing_is_written(lin, tmp_path):
    (tmp_path / "ro-crate-metadata.json").write_text('{"@context": "x", "@graph": [1]}')
    with pytest.raises(ParseError, match=r"ro-crate-metadata.json:@graph\[0\]: expected an entity"):
        lin.load([tmp_path / "ro-crate-metadata.json"], fail_fast=True)
    assert lin.query("MATCH (n:Lineage) RETURN count(n) AS n")[0]["n"] == 0
