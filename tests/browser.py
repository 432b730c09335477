"""Headless Chromium for the tests, driven over the DevTools protocol by Playwright's Python
package (no Playwright-downloaded browser: the system's Debian ``chromium`` is used).

``open_offline(path)`` opens a local HTML file with every network request intercepted and
aborted (and a dead proxy as a second fence), and records what the page tried to fetch.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = os.environ.get("LINEAGE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
    "--disable-default-apps", "--disable-extensions",
]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"


@contextmanager
def chromium(offline: bool = True, viewport=(1400, 900)):
    """A fresh Chromium context (new user-data-dir); with ``offline``, every request that is
    not a local file is aborted and listed in ``context.blocked``."""
    from playwright.sync_api import sync_playwright

    profile = tempfile.mkdtemp(prefix="lineage-chromium-")
    args = list(FLAGS)
    if offline:
        args += ["--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>"]
    try:
        with sync_playwright() as p:
            context = p.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, headless=True, args=args,
                ignore_default_args=["--enable-automation"],
                viewport={"width": viewport[0], "height": viewport[1]},
            )
            context.blocked = []
            context.requests = []
            context.on("request", lambda r: context.requests.append(r.url))
            if offline:
                def deny(route):
                    if route.request.url.startswith(("file:", "data:")):
                        route.continue_()
                        return
                    context.blocked.append(route.request.url)
                    route.abort()
                context.route("**/*", deny)
            try:
                yield context
            finally:
                context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def external_requests(context) -> list[str]:
    """Every request the pages made that was not for a local file or inline data."""
    seen = context.requests + context.blocked
    return sorted({u for u in seen if not u.startswith(("file:", "data:", "blob:", "about:"))})


def screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path), full_page=False)
    return path
