"""Templates: headers, binding, and ancestry that does not explode on fan-in DAGs."""

import re

import pytest

from lineage.query import templates
from lineage.errors import TemplateError

from .conftest import SAMPLES
from .corpus import needs_corpus

BD_WF = "ea17e8ac-02ac-4909-b5e3-16e367392556"


def test_every_template_has_a_header_and_runs_in_browser_form():
    names = [t.name for t in templates.all_templates()]
    assert {"ancestors", "descendants", "pegasus/failed_jobs"} <= set(names)
    for t in templates.all_templates():
        assert t.purpose and t.returns
        text = t.browser_text()
        if t.params:  # one command sets them all (Browser runs it as one, with one result)
            first = text.splitlines()[0]
            assert first.startswith(":param [{") and ";" not in first
            for p in t.params:
                assert f" AS `{p.name}`" in first


def test_binding_checks_names_and_fills_defaults():
    t = templates.get("ancestors")
    assert t.bind({"uid": "x"}) == {"uid": "x", "max_depth": None}
    assert t.bind({"uid": "x", "max_depth": "2"})["max_depth"] == 2
    with pytest.raises(TemplateError):
        t.bind({"max_depth": 1})
    with pytest.raises(TemplateError):
        t.bind({"uid": "x", "nope": 1})
    with pytest.raises(TemplateError):
        templates.get("../../etc/passwd")


@needs_corpus
def test_ancestors_and_descendants_on_blackdiamond(lin):
    lin.load([SAMPLES / "pegasus" / "blackdiamond-4.0.bp"])
    up = lin.query("ancestors", uid=f"pegasus:job:{BD_WF}:analyze_j4")
    up_jobs = {r["name"] for r in up if r["kind"] == "Job"}
    assert {"findrange_j2", "findrange_j3", "preprocess_j1"} <= up_jobs
    assert all(r["depth"] >= 1 for r in up)
    near = lin.query("ancestors", uid=f"pegasus:job:{BD_WF}:analyze_j4", max_depth=1)
    assert {"findrange_j2", "findrange_j3"} <= {r["name"] for r in near}
    assert "preprocess_j1" not in {r["name"] for r in near}
    down = lin.query("descendants", uid=f"pegasus:job:{BD_WF}:preprocess_j1")
    assert "analyze_j4" in {r["name"] for r in down}


def _profile_hits(plan):
    return plan.get("dbHits", 0) + sum(_profile_hits(c) for c in plan.get("children", []))


def _operators(plan):
    return [plan["operatorType"]] + [o for c in plan.get("children", []) for o in _operators(c)]


def test_ancestry_is_proportional_on_a_wide_diamond(lin):
    """A 12-layer, 10-wide fully connected DAG has 10**11 paths but 121 nodes: the template
    must reach every node with database hits in proportion to nodes and edges."""
    width, layers = 10, 12
    rows = [{"uid": f"d:{layer}:{i}"} for layer in range(layers) for i in range(width)] + [{"uid": "d:top"}]
    lin.graph.run("UNWIND $rows AS r CREATE (:Lineage:Activity:Job {uid: r.uid, name: r.uid})",
                  {"rows": rows}, write=True)
    edges = [{"a": f"d:{layer}:{i}", "b": f"d:{layer + 1}:{j}"}
             for layer in range(layers - 1) for i in range(width) for j in range(width)]
    edges += [{"a": "d:top", "b": f"d:0:{i}"} for i in range(width)]
    lin.graph.run("UNWIND $rows AS r MATCH (a:Lineage {uid: r.a}), (b:Lineage {uid: r.b}) "
                  "CREATE (a)-[:WAS_INFORMED_BY]->(b)", {"rows": edges}, write=True)
    t = templates.get("ancestors")
    result = lin.graph.driver.execute_query("PROFILE " + t.text, t.bind({"uid": "d:top"}))
    assert len(result.records) == width * layers
    assert max(r["depth"] for r in result.records) == layers
    plan = result.summary.profile
    assert any("Pruning" in op and "BFS" in op for op in _operators(plan)), _operators(plan)
    assert _profile_hits(plan) < 20 * (len(rows) + len(edges))


#: A node looked up by uid under a label other than :Lineage: (n:Job {uid: $job}). The uid's
#: unique index is on :Lineage, so such a lookup scans every node of the label (0.2-0.35 s per
#: call on a 141,000-node Chimbuko graph, against 2 ms through the index).
_UID_LOOKUP = re.compile(r"\(\s*\w*((?::\w+)+)\s*\{\s*uid\s*:\s*\$\w+\s*\}\s*\)")


def test_every_uid_lookup_can_use_the_uid_index():
    import lineage.sources.pegasus.report as attempts

    texts = [(t.path, t.text) for t in templates.all_templates()]
    texts.append(("lineage/sources/pegasus/report.py", attempts.ATTEMPTS_CYPHER))
    slow = [(str(path), m.group(0)) for path, text in texts for m in _UID_LOOKUP.finditer(text)
            if ":Lineage" not in m.group(1) and ":Load" not in m.group(1)]
    assert slow == []
    assert _UID_LOOKUP.search("MATCH (j:Job {uid: $job})")  # the guard sees the slow form


def test_uid_lookups_seek_the_index(lin):
    plan = lin.graph.driver.execute_query(
        "EXPLAIN " + templates.get("pegasus/job_attempts").text, job="x",
        database_=lin.graph.database).summary.plan

    def operators(p):
        return [p["operatorType"].split("@")[0]] + [o for c in p.get("children", ())
                                                    for o in operators(c)]
    ops = operators(plan)
    assert "NodeUniqueIndexSeek" in ops and "NodeByLabelScan" not in ops, ops
