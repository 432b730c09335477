"""Pegasus BP streams loaded into the real Neo4j."""

import pytest

from lineage.errors import ParseError

from . import graphcheck
from .conftest import SAMPLES
from .corpus import needs_corpus

BD = SAMPLES / "pegasus" / "blackdiamond-4.0.bp"
BD_WF = "pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556"


def count(lin, cypher, **params):
    return lin.query(cypher, params)[0]["n"]


def graph_fingerprint(lin):
    """(nodes, relationships, content checksum) of the lineage graph (tests/graphcheck.py)."""
    fp = graphcheck.of(lin)
    return fp.nodes, fp.rels, fp.checksum


@needs_corpus
def test_blackdiamond_oracle_counts_in_the_graph(lin):
    [result] = lin.load([BD])
    assert result.status == "loaded" and result.write.unresolved_edges == 0
    assert count(lin, "MATCH (n:Task) RETURN count(n) AS n") == 4
    assert count(lin, "MATCH (:Task)-[r:WAS_INFORMED_BY]->(:Task) RETURN count(r) AS n") == 4
    assert count(lin, "MATCH (n:Job) RETURN count(n) AS n") == 14
    assert count(lin, "MATCH (:Job)-[r:WAS_INFORMED_BY]->(:Job) RETURN count(r) AS n") == 25
    assert count(lin, "MATCH (:Job)-[r:RUNS_TASK]->(:Task) RETURN count(r) AS n") == 4
    assert count(lin, "MATCH (n:Invocation) RETURN count(n) AS n") == 26
    assert count(lin, "MATCH (n:Workflow:Run:Activity:Lineage) RETURN count(n) AS n") == 1
    assert count(lin, "MATCH (j:Job {status: 'succeeded'}) RETURN count(j) AS n") == 14


@needs_corpus
def test_every_node_has_one_prov_role_and_a_kind(lin):
    lin.load([SAMPLES / "pegasus"], lenient=True)
    bad = lin.query(
        "MATCH (n:Lineage) WITH n, [l IN labels(n) WHERE l IN ['Entity','Activity','Agent']] AS roles "
        "WHERE size(roles) <> 1 OR size(labels(n)) < 3 OR n.uid IS NULL RETURN n.uid AS uid LIMIT 5")
    assert bad == []


@needs_corpus
def test_loading_twice_changes_nothing(lin):
    lin.load([BD])
    first = graph_fingerprint(lin)
    loads = count(lin, "MATCH (l:Load) RETURN count(l) AS n")
    lin.load([BD])
    assert graph_fingerprint(lin) == first
    assert count(lin, "MATCH (l:Load) RETURN count(l) AS n") == loads
    [row] = lin.query("MATCH (l:Load) RETURN l.times_loaded AS t, l.last_attempt AS last, "
                      "l.version AS version")
    assert (row["t"], row["last"], row["version"]) == (2, "unchanged", 1)


@needs_corpus
def test_load_is_recorded(lin):
    [result] = lin.load([BD])
    [row] = lin.query("MATCH (l:Load) RETURN l.source AS source, l.format AS format, "
                      "l.path AS path, l.sha256 AS sha, l.node_records AS nodes, l.status AS status")
    assert row["source"] == "pegasus" and row["format"] == "pegasus-bp"
    assert row["path"] == str(BD) and row["sha"] == result.sha256 and len(row["sha"]) == 64
    assert row["nodes"] == sum(result.nodes.values()) and row["status"] == "loaded"


@needs_corpus
def test_triana_loads_with_its_inconsistencies_reported(lin):
    [result] = lin.load([SAMPLES / "pegasus" / "triana-messy.bp"])
    assert result.status == "loaded"
    assert result.report["inconsistencies"] > 0
    assert result.write.unresolved_edges > 0
    assert result.write.unresolved_examples
    assert count(lin, "MATCH (n:Job) RETURN count(n) AS n") == 4


@needs_corpus
def test_malformed_line_fails_with_file_and_line_and_writes_nothing(lin, tmp_path):
    lin.load([BD])
    before = graph_fingerprint(lin)
    bad = tmp_path / "broken.bp"
    lines = (SAMPLES / "pegasus" / "process_wf_failure.static.bp").read_text().splitlines()
    bad.write_text("\n".join(lines[:8] + ['ts=1 event=job.info xwf.id="x'] + lines[8:]) + "\n")
    with pytest.raises(ParseError) as err:
        lin.load([bad])
    assert f"{bad}:9:" in str(err.value)
    assert graph_fingerprint(lin) == before
    [failed] = lin.query("MATCH (l:Load {status: 'failed'}) RETURN l.path AS path, l.error AS error")
    assert failed["path"] == str(bad) and ":9:" in failed["error"]


@needs_corpus
def test_lenient_load_skips_and_counts(lin, tmp_path):
    bad = tmp_path / "broken.bp"
    lines = BD.read_text().splitlines()
    bad.write_text("\n".join(lines[:3] + ["\x00\x01 binary junk"] + lines[3:]) + "\n")
    [result] = lin.load([bad], lenient=True)
    assert result.status == "loaded" and sum(result.report["skipped"].values()) == 1
    assert count(lin, "MATCH (n:Job) RETURN count(n) AS n") == 14


@needs_corpus
def test_directory_walk_detects_formats(lin, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "wf.bp").write_bytes(BD.read_bytes())
    (tmp_path / "README.txt").write_text("not provenance\n")
    results = lin.load([tmp_path])
    assert {r.status for r in results} == {"loaded", "unrecognised"}
    assert count(lin, "MATCH (n:Job) RETURN count(n) AS n") == 14


def test_failed_jobs_template(lin):
    lines = [
        "ts=1 event=stampede.wf.plan xwf.id=w dax.label=demo",
        "ts=1 event=stampede.job.info xwf.id=w job.id=a type=1",
        "ts=1 event=stampede.job.info xwf.id=w job.id=b type=1",
        "ts=2 event=stampede.job_inst.main.start xwf.id=w job.id=a job_inst.id=1",
        "ts=3 event=stampede.job_inst.main.end xwf.id=w job.id=a job_inst.id=1 status=-1 exitcode=256 site=local stderr.text=\"boom%0Aline2\"",
        "ts=4 event=stampede.job_inst.main.start xwf.id=w job.id=a job_inst.id=2",
        "ts=5 event=stampede.job_inst.main.end xwf.id=w job.id=a job_inst.id=2 status=-1 exitcode=768 site=local",
        "ts=6 event=stampede.job_inst.main.end xwf.id=w job.id=b job_inst.id=3 status=0 exitcode=0 site=local",
    ]
    from lineage.sources.base import LoadReport
    from lineage.sources.pegasus.bp import parse_lines
    from lineage.load.writer import Writer, ensure_schema

    writer = Writer(lin.graph.driver, lin.graph.database)
    ensure_schema(writer.driver)
    recs = list(parse_lines(lines, LoadReport("x", "pegasus-bp")))
    from lineage.model.records import Node
    writer.write_nodes(r for r in recs if isinstance(r, Node))
    writer.write_edges(r for r in recs if not isinstance(r, Node))
    rows = lin.query("pegasus/failed_jobs", workflow="pegasus:workflow:w")
    assert [r["job_id"] for r in rows] == ["a"]
    assert rows[0]["attempts"] == 2 and rows[0]["exitcode"] == 3
    assert rows[0]["last_state"] == "JOB_FAILURE"
