"""Neo4j Browser, served by the managed server, opens the templates guide after login."""

import time
import urllib.request

from lineage import server, templates
from lineage.report import guide

from .browser import chromium, screenshot


def _wait_for(page, predicate, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.5)
    return False


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
    assert f"browser.post_connect_cmd=play {url}" in conf

    password = server.password(test_state_dir)
    with chromium(offline=False) as context:
        # Browser may ask the internet for fonts: keep the test hermetic, loopback only
        context.route("**/*", lambda route: route.continue_()
                      if route.request.url.startswith("http://127.0.0.1") else route.abort())
        page = context.new_page()
        page.goto(info["browser_url"] + "?dbms=" + info["uri"])
        page.wait_for_selector('[data-testid="password"]', timeout=120000)
        page.fill('[data-testid="username"]', server.USER)
        page.fill('[data-testid="password"]', password)
        page.click('[data-testid="connect"]')
        title = "lineage-explorer: the Cypher templates"
        shown = _wait_for(page, lambda: title in page.inner_text("body"))
        screenshot(page, "browser-guide.png")
        assert shown, "the guide did not show after login"
        assert f":play {url}" in page.inner_text("body")
        # the guide's first slide lists every template with its purpose
        text = page.inner_text("body")
        for t in templates.all_templates():
            assert f"{t.name}: {t.purpose}" in " ".join(text.split())
        # an example is clickable: it lands in the editor
        page.locator("pre", has_text="MATCH (r:Run)").first.click()
        editor = page.locator(".view-lines").first
        assert _wait_for(page, lambda: "MATCH (r:Run)" in editor.inner_text().replace("\xa0", " "), 20)
        assert f"1 / {len(names) + 1}" in text  # a slide per template after the first
