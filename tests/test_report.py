"""HTML reports built from the real graph: run views, neighbourhoods, escaping, collapsing."""

import html
import re

import markupsafe

from lineage import model
from lineage.model.records import Edge, Node
from lineage.report import build
from lineage.report.build import collapse, report_data
from lineage.report.render import vis_network_js
from lineage.sources import registry
from lineage.load.writer import Writer

from .conftest import SAMPLES
from .report_graphs import HOSTILE, HOSTILE_RUN, write_hostile_run
from .corpus import needs_corpus

BD = SAMPLES / "pegasus" / "blackdiamond-4.0.bp"
BD_WF = "pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556"
BD_JOB = "pegasus:job:ea17e8ac-02ac-4909-b5e3-16e367392556:analyze_j4"


def _bp_jobs(path):
    """Job ids announced in a BP file (the oracle for the report's job count)."""
    text = path.read_text()
    return set(re.findall(r'event=stampede\.job\.info .*?job\.id="?([^" ]+)', text))


@needs_corpus
def test_workflow_report_draws_parts_and_tables(lin, tmp_path):
    lin.load([BD])
    data = report_data(lin, BD_WF)
    jobs = _bp_jobs(BD)
    assert len(jobs) == 14
    drawn_jobs = {n["name"] for n in data["nodes"] if n["kind"] == "Job"}
    assert drawn_jobs == jobs
    assert data["view"] == "run" and data["collapsed"] is None and data["hierarchical"]
    titles = [t["title"] for t in data["tables"]]
    assert titles == [s.title for s in build.sections("Workflow", True)]
    [job_table] = [t for t in data["tables"] if t["title"] == "Jobs"]
    assert {r["job_id"] for r in job_table["rows"]} == jobs
    # every drawn job got its status from the job table, and the DAG edges are drawn
    assert all(n.get("status") for n in data["nodes"] if n["kind"] == "Job")
    assert {"source": BD_JOB, "type": "WAS_INFORMED_BY",
            "target": BD_JOB.replace("analyze_j4", "findrange_j2")} in data["edges"]
    page = lin.report(BD_WF, tmp_path / "bd.html")
    text = open(page, encoding="utf-8").read()
    assert "analyze_j4" in text and "vis.Network" in text
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)


@needs_corpus
def test_node_report_is_its_neighbourhood(lin):
    lin.load([BD])
    data = report_data(lin, BD_JOB, depth=1)
    names = {n["name"] for n in data["nodes"]}
    up = {r["name"] for r in lin.query("ancestors", uid=BD_JOB, max_depth=1)}
    down = {r["name"] for r in lin.query("descendants", uid=BD_JOB, max_depth=1)}
    # and its structural neighbours: attempts, task, workflow (any relationship, one hop)
    near = {r["name"] for r in lin.query(
        "MATCH (:Job {uid: $uid})--(m:Lineage) RETURN DISTINCT m.name AS name", uid=BD_JOB)}
    assert {"JobInstance", "Task", "Workflow"} <= {n["kind"] for n in data["nodes"]}
    assert names == up | down | near | {"analyze_j4"}
    assert data["view"] == "neighbourhood" and data["tables"] == []


def test_generic_run_kind_gets_its_parts_table(lin, monkeypatch):
    """A run kind whose source declares no tables for it (here a Chimbuko program run, its
    tables taken away: every run kind has some now) lists its parts."""
    monkeypatch.delitem(registry.views().run_sections, "ProgramRun")
    run = "test:programrun:1"
    parts = [f"test:rank:1:{i}" for i in range(3)]
    calls = [f"test:fexec:1:{i}" for i in range(4)]
    w = Writer(lin.graph.driver, lin.graph.database)
    w.write_nodes([Node(model.kind("ProgramRun"), run, {"name": "prog"})]
                  + [Node(model.kind("Rank"), u, {"name": u[-1]}) for u in parts]
                  + [Node(model.kind("FunctionExecution"), u, {"name": "MPI_Send"}) for u in calls])
    w.write_edges([Edge(model.PART_OF, u, run) for u in parts]
                  + [Edge(model.PART_OF, u, parts[0]) for u in calls])
    assert "ProgramRun" not in registry.views().run_sections
    data = report_data(lin, run)
    assert [t["title"] for t in data["tables"]] == [build.GENERIC_SECTIONS[0][0]]
    assert data["tables"][0]["total"] == len(parts) + len(calls)
    assert {n["uid"] for n in data["nodes"]} == {run, *parts, *calls}
    # parts with an edge of their own are not also tied to the run (no star)
    assert not any(e["target"] == run for e in data["edges"]
                   if e["source"] in parts[:1])
    assert data["kind_counts"] == {"FunctionExecution": 4, "Rank": 3, "ProgramRun": 1}


def test_hostile_strings_are_text(lin):
    write_hostile_run(lin)
    page = build.build_report(lin, HOSTILE_RUN).replace(vis_network_js(), "VIS")
    own_scripts = 4  # the graph's and the tables' JSON data blocks, vis-network, the page's script
    assert page.count("<script") == own_scripts and page.count("</script") == own_scripts
    for text in HOSTILE:
        if "<" in text:
            assert text not in page
    # the job table shows each string escaped, as text
    for text in HOSTILE[:3]:
        assert str(markupsafe.escape(text)) in page
    assert "<img" not in page


def test_collapse_groups_by_kind_and_type_and_says_so():
    nodes = [{"uid": f"j{i}", "kind": "Job", "name": f"j{i}", "status": "failed" if i == 7 else "ok",
              "properties": {"type_desc": f"t{i % 3}"}} for i in range(30)]
    nodes.append({"uid": "root", "kind": "Workflow", "name": "wf", "properties": {}})
    edges = [{"source": f"j{i}", "type": "WAS_INFORMED_BY", "target": f"j{i - 1}"}
             for i in range(1, 30)]
    drawn, drawn_edges, note = collapse(nodes, edges, max_nodes=6, keep="root")
    assert len(drawn) <= 6
    groups = [n for n in drawn if n.get("group")]
    assert sorted(g["name"] for g in groups) == ["Job t0 (10)", "Job t1 (9)", "Job t2 (10)"]
    assert {"j7", "root"} <= {n["uid"] for n in drawn}  # failed and root stay on their own
    assert note["total_nodes"] == 31 and note["grouped_nodes"] == 29
    assert sum(e["count"] for e in drawn_edges) == 29  # every edge ends up counted once
    small, _, none = collapse(nodes, edges, max_nodes=100)
    assert small == nodes and none is None


def test_view_shows_inline_in_jupyter(lin):
    write_hostile_run(lin)
    view = lin.view(HOSTILE_RUN)
    frame = view._repr_html_()
    assert frame.startswith("<iframe") and frame.endswith("</iframe>")
    assert frame.count("<") == 2  # the whole page sits escaped inside srcdoc
    assert html.unescape(frame.split('srcdoc="', 1)[1].rsplit('"', 1)[0]) == view.html


def test_collapse_groups_by_run_when_runs_are_known():
    nodes = [{"uid": f"n{i}", "kind": "Job", "name": f"job{i}", "properties": {}}
             for i in range(40)]
    runs = {f"n{i}": ("wf-a" if i < 25 else "wf-b") for i in range(40)}
    drawn, _, note = collapse(nodes, [], max_nodes=5, runs=runs)
    assert note["level"] == "run, kind and transformation / type / function"
    assert sorted((g["run"], g["count"]) for g in drawn) == [("wf-a", 25), ("wf-b", 15)]


@needs_corpus
def test_reports_are_readable_by_their_owner_only(lin, tmp_path):
    import os

    lin.load([SAMPLES / "pegasus" / "blackdiamond-4.0.bp"])
    path = tmp_path / "wf.html"
    path.write_text("old")
    os.chmod(path, 0o644)  # an existing, world-readable file becomes private too
    lin.report("pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556", path)
    assert oct(path.stat().st_mode & 0o777) == "0o600" and "vis.Network" in path.read_text()


@needs_corpus
def test_times_and_durations_in_reports_are_for_people(lin, tmp_path):
    """The summary and the tables show epoch times as ISO 8601 UTC and durations with units
    (the graph's tooltips and exports keep the stored numbers)."""
    lin.load([BD])
    page = (tmp_path / "wf.html")
    lin.report(BD_WF, page)
    text = page.read_text()
    visible = text.split("<script", 1)[0]  # summary and tables, before the graph's data
    assert "2012-03-13T12:35:38.000Z" in visible  # the workflow's start
    assert not re.search(r">\s*13316\d{5}(\.\d+)?\s*<", visible)  # no raw epoch cell
    assert re.search(r">\s*\d+(\.\d+)? s\s*<", visible)  # a duration with its unit
