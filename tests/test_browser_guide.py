"""Neo4j Browser, served by the managed server, opens the templates guide after login; its
examples are one command each, fit the loaded graph, and the ``*_paths`` ones draw a graph
in the guide's style (checked in the real Browser, in headless Chromium)."""

import time
import urllib.request

import pytest

from lineage import server
from lineage.query import templates
from lineage.query.examples import example_values
from lineage.browser import grass, guide

from .browser import chromium, screenshot
from .conftest import SAMPLES
from .corpus import needs_corpus

PATH_TEMPLATES = {"ancestors_paths", "descendants_paths", "run_members_paths",
                  "pegasus/workflow_jobs_paths", "chimbuko/anomaly_call_stack_paths"}


def _wait_for(page, predicate, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.5)
    return False


GUIDE_TITLE = "lineage-explorer: the Cypher templates"


def _login(context, info, password):
    """Log in to the real Neo4j Browser; returns the page once the guide shows."""
    # Browser may ask the internet for fonts: keep the test hermetic, loopback only
    context.route("**/*", lambda route: route.continue_()
                  if route.request.url.startswith("http://127.0.0.1") else route.abort())
    page = context.new_page()
    page.goto(info["browser_url"] + "?dbms=" + info["uri"])
    page.wait_for_selector('[data-testid="password"]', timeout=120000)
    page.fill('[data-testid="username"]', server.USER)
    page.fill('[data-testid="password"]', password)
    page.click('[data-testid="connect"]')
    page.wait_for_selector(f"text={GUIDE_TITLE}", timeout=120000)
    return page


def test_guide_is_served_by_neo4j_and_shown_after_login(test_state_dir):
    info = server.status(test_state_dir)
    assert info["running"]
    http_port = int(info["browser_url"].split(":")[2].split("/")[0])
    url = guide.guide_url(http_port)
    with urllib.request.urlopen(url, timeout=30) as resp:
        served = resp.read().decode("utf-8")
    names = [t.name for t in templates.all_templates()]
    for name in names:
        assert f'<h3 class="lineage-template-name">{name}</h3>' in served
    conf = (server.ServerPaths.under(test_state_dir).conf_dir / "neo4j.conf").read_text()
    style = guide.style_url(http_port)
    assert f"browser.post_connect_cmd=style {style}; play {url}" in conf
    with urllib.request.urlopen(style, timeout=30) as resp:
        assert resp.read().decode("utf-8") == grass.stylesheet()
    assert f'<pre class="pre-scrollable code runnable lineage-style">:style {style}</pre>' in served

    password = server.password(test_state_dir)
    with chromium(offline=False) as context:
        page = _login(context, info, password)  # waits for the guide's title
        screenshot(page, "browser-guide.png")
        assert GUIDE_TITLE in page.inner_text("body"), "the guide did not show after login"
        assert f":play {url}" in page.inner_text("body")
        # the guide's first slide, the contents, lists every template with its slide number
        # and the start of its purpose, grouped by question
        text = " ".join(page.inner_text("body").split())
        for number, t in enumerate(guide.ordered(), start=2):
            assert f"slide {number}: {t.name}: {t.purpose[:60]}" in text
        assert all(guide.QUESTIONS[guide.chapter_of(t)][0] in text for t in guide.ordered())
        # an example is clickable: it lands in the editor
        page.locator("pre", has_text="MATCH (r:Run)").first.click()
        editor = page.locator(".view-lines").first
        assert _wait_for(page, lambda: "MATCH (r:Run)" in editor.inner_text().replace("\xa0", " "), 20)
        assert f"1 / {len(names) + 1}" in text  # a slide per template after the first


# --- the stylesheet and the examples, without a server -------------------------------------

def test_shipped_stylesheet_is_the_models():
    assert grass.SHIPPED.read_text(encoding="utf-8") == grass.stylesheet()
    rules = grass.parse(grass.stylesheet())  # as Browser's own parser reads it
    assert rules == grass.rules()
    from lineage import model
    for kind in model.NODE_KINDS.values():
        assert rules[f"node.{kind.label}"]["color"] == kind.colour
        assert rules[f"node.{kind.label}"]["caption"] == "{name}"
    # later rules win in Browser: the kind beats its role, Anomaly beats FunctionExecution
    assert grass.colour_of(["Lineage", "Activity", "Job"]) == model.NODE_KINDS["Job"].colour
    assert grass.colour_of(["Lineage", "Activity", "FunctionExecution", "Anomaly"]) == \
        model.STATUSES["failed"] != model.NODE_KINDS["FunctionExecution"].colour


@pytest.mark.parametrize("template", templates.all_templates(), ids=lambda t: t.name)
def test_every_example_is_one_command_per_click(template):
    command = guide.params_command(template)
    query = guide.query_text(template)
    if template.params:
        assert command.startswith(":param [{") and "\n" not in command and ";" not in command
        assert [p.name for p in template.params] == \
            command[len(":param [{"):command.index("}]")].split(", ")
    else:
        assert command is None
    assert ";" not in query and not query.lstrip().startswith(":")
    assert not any(line.lstrip().startswith("//") for line in query.splitlines())
    assert set(template.picks) <= {p.name for p in template.params}, "a pick names no parameter"


def test_guide_slides_hold_one_params_and_one_query_block():
    html = guide.guide_html(http_port=7474)
    all_templates = templates.all_templates()
    assert html.count('class="pre-scrollable code runnable lineage-query"') == len(all_templates)
    assert html.count('class="pre-scrollable code runnable lineage-params"') == \
        sum(1 for t in all_templates if t.params)
    assert PATH_TEMPLATES <= {t.name for t in all_templates if guide.is_path_template(t)}


# --- the examples against the loaded samples ---------------------------------------------

@pytest.fixture(scope="module")
def guide_graph(session_lineage):
    session_lineage.reset(force=True)
    results = session_lineage.load([SAMPLES], lenient=True)
    assert any(r.status == "loaded" for r in results)
    yield session_lineage
    session_lineage.reset(force=True)


def _guide_params(lin, template) -> dict:
    """What the guide's ``:param`` command sets: Browser sends the body of the lambda to
    Neo4j and takes the first row's columns."""
    command = guide.params_command(template)
    if command is None:
        return {}
    body = command[command.index("=>") + 2:].strip()
    assert body.startswith("{") and body.endswith("}")
    records = lin.graph.driver.execute_query(body[1:-1], database_=lin.graph.database).records
    return dict(records[0])


def _run(lin, template, params):
    return lin.graph.driver.execute_query(guide.query_text(template), params,
                                          database_=lin.graph.database)


@needs_corpus
@pytest.mark.parametrize("template", templates.all_templates(), ids=lambda t: t.name)
def test_guide_example_finds_rows_when_the_api_example_does(guide_graph, template):
    params = _guide_params(guide_graph, template)
    assert set(params) == {p.name for p in template.params}
    records, _, keys = _run(guide_graph, template, params)
    assert list(keys) == template.returns
    api = template.bind(example_values(guide_graph, template))
    if guide_graph.graph.driver.execute_query(template.text, api,
                                              database_=guide_graph.graph.database).records:
        assert records, f"the guide's example of {template.name} finds nothing with {params}"


@needs_corpus
def test_failed_jobs_example_is_a_workflow_with_failed_jobs(guide_graph):
    template = templates.get("pegasus/failed_jobs")
    params = _guide_params(guide_graph, template)
    rows = _run(guide_graph, template, params).records
    assert any(r["status"] == "failed" for r in rows), params


@needs_corpus
def test_path_templates_return_bounded_paths(guide_graph):
    from neo4j.graph import Path as Neo4jPath
    for name in sorted(PATH_TEMPLATES):
        template = templates.get(name)
        params = _guide_params(guide_graph, template)
        rows = _run(guide_graph, template, params).records
        assert rows and all(isinstance(r["path"], Neo4jPath) for r in rows), name
        if "limit" in params:  # the limit bounds the nodes drawn
            nodes = {n.element_id for r in rows for n in r["path"].nodes}
            small = _run(guide_graph, template, {**params, "limit": 2}).records
            kept = {n.element_id for r in small for n in r["path"].nodes}
            assert len(kept) <= 3 < len(nodes) or len(nodes) <= 3, name


# --- the real Browser ---------------------------------------------------------------------


def _run_example(page, name: str):
    """Go to the template's slide, click the run button of its ``:param`` command, wait for
    Browser to confirm, click the run button of its query; returns the query's frame."""
    slide = [t.name for t in guide.ordered()].index(name) + 2  # slide 1 = the contents
    page.locator(f'[data-testid="carousel"] li[aria-label="{slide}"]').click()
    page.locator("h3.lineage-template-name:visible", has_text=name).wait_for(timeout=20000)
    frames = page.locator('[data-testid="frame"]')
    before = frames.count()
    if page.locator("pre.lineage-params:visible").count():
        page.locator("pre.lineage-params:visible i").first.click()  # the run button
        assert _wait_for(page, lambda: frames.count() == before + 1, 60)
        frame = frames.first  # Browser puts the newest frame on top
        assert ":param" in frame.locator('[data-testid="frameCommand"]').inner_text()
        frame.get_by_text("Successfully set your parameters").wait_for(timeout=60000)
        before += 1
    page.locator("pre.lineage-query:visible i").first.click()
    assert _wait_for(page, lambda: frames.count() == before + 1, 60)
    frame = frames.first
    assert "MATCH" in frame.locator('[data-testid="frameCommand"]').inner_text()
    return frame


def _drawn(lin, frame) -> list[tuple[list[str], str]]:
    """``(labels, fill)`` of every node Browser drew in a frame (its svg names node ids)."""
    out = []
    for node in frame.locator("g.node").all():
        node_id = int(node.get_attribute("aria-label").removeprefix("graph-node"))
        fill = node.locator("circle.b-outline").get_attribute("fill")
        labels = lin.graph.driver.execute_query(
            "MATCH (n) WHERE id(n) = $id RETURN labels(n) AS labels", {"id": node_id},
            database_=lin.graph.database).records[0]["labels"]
        out.append((labels, fill.lower()))
    return out


@needs_corpus
def test_browser_draws_path_examples_in_the_guide_style(test_state_dir, guide_graph):
    info = server.status(test_state_dir)
    with chromium(offline=False) as context:
        page = _login(context, info, server.password(test_state_dir))
        for name in ("ancestors_paths", "chimbuko/anomaly_call_stack_paths"):
            frame = _run_example(page, name)
            assert _wait_for(page, lambda frame=frame: frame.locator("g.node").count() > 0, 60), \
                f"{name}: Browser drew no graph"
            template = templates.get(name)
            rows = _run(guide_graph, template, _guide_params(guide_graph, template)).records
            expected = {n.element_id for r in rows for n in r["path"].nodes}
            assert _wait_for(page, lambda frame=frame, expected=expected:
                             frame.locator("g.node").count() >= len(expected), 30)
            drawn = _drawn(guide_graph, frame)
            for labels, fill in drawn:  # the stylesheet's colour, not Browser's palette
                assert fill == grass.colour_of(labels).lower(), (labels, fill)
            screenshot(page, f"browser-{name.replace('/', '-')}.png")
            if name.startswith("chimbuko"):
                assert any("Anomaly" in labels for labels, _ in drawn)

        # a table template: one click on each command gives its rows, not a multi-statement run
        template = templates.get("pegasus/failed_jobs")
        rows = _run(guide_graph, template, _guide_params(guide_graph, template)).records
        frame = _run_example(page, "pegasus/failed_jobs")
        failed = next(r["job_id"] for r in rows if r["status"] == "failed")
        shown = _wait_for(page, lambda: failed in frame.inner_text(), 60)
        screenshot(page, "browser-failed-jobs.png")
        assert shown, f"the failed_jobs example shows no row of {failed}"
        assert frame.locator("g.node").count() == 0


# --- bounded on a graph with far more paths than nodes (last: it empties the graph) ----------

def _operators(plan):
    return [plan["operatorType"]] + [o for c in plan.get("children", []) for o in _operators(c)]


def _hits(plan):
    return plan.get("dbHits", 0) + sum(_hits(c) for c in plan.get("children", []))


def test_path_templates_stay_bounded_on_a_wide_diamond(lin):
    """12 layers of 10 fully connected jobs (10**11 paths, 121 nodes): the ``*_paths``
    templates send Browser each kept node's edges once, never a path per route."""
    width, layers = 10, 12
    rows = [{"uid": f"d:{layer}:{i}"} for layer in range(layers) for i in range(width)]
    rows += [{"uid": "d:top"}, {"uid": "d:bottom"}]
    lin.graph.run("UNWIND $rows AS r CREATE (:Lineage:Activity:Job {uid: r.uid, name: r.uid})",
                  {"rows": rows}, write=True)
    edges = [{"a": f"d:{layer}:{i}", "b": f"d:{layer + 1}:{j}"}
             for layer in range(layers - 1) for i in range(width) for j in range(width)]
    edges += [{"a": "d:top", "b": f"d:0:{i}"} for i in range(width)]
    edges += [{"a": f"d:{layers - 1}:{i}", "b": "d:bottom"} for i in range(width)]
    lin.graph.run("UNWIND $rows AS r MATCH (a:Lineage {uid: r.a}), (b:Lineage {uid: r.b}) "
                  "CREATE (a)-[:WAS_INFORMED_BY]->(b)", {"rows": edges}, write=True)
    for name, start in (("ancestors_paths", "d:top"), ("descendants_paths", "d:bottom")):
        t = templates.get(name)
        whole = t.bind({"uid": start, "max_depth": layers + 1, "limit": 1000})
        result = lin.graph.driver.execute_query("PROFILE " + guide.query_text(t), whole)
        assert len(result.records) == len(edges)  # every edge once
        plan = result.summary.profile
        assert any("Pruning" in op and "BFS" in op for op in _operators(plan)), name
        assert _hits(plan) < 50 * (len(rows) + len(edges)), name
        small = lin.graph.driver.execute_query(guide.query_text(t), {**whole, "limit": 15})
        nodes = {n.element_id for r in small.records for n in r["path"].nodes}
        assert len(nodes) == 16  # the start and its 15 nearest
