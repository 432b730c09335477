"""A Neo4j Browser guide (``:play``) listing every Cypher template, served by Neo4j itself.

Neo4j's web server serves Browser from a zip when ``internal.dbms.web_dir_path`` names a
folder holding ``neo4j-browser*.zip`` (otherwise from the neo4j-browser jar on the class
path). :func:`install` writes such a zip: the jar's ``browser/`` files plus
``browser/guides/lineage.html``, so the guide is served at
``http://127.0.0.1:<http port>/browser/guides/lineage.html``, same origin as Browser. The
managed server's config then allows that host for remote content and runs
``:play <that URL>`` after login (``browser.post_connect_cmd``).

Each template is a slide with its purpose, parameters, returned columns and one clickable
example: ``:param`` lines, then the query. A uid parameter is filled, when the example is
run, with a uid of the same kind from the loaded graph (the header's example otherwise).

>>> from lineage import templates
>>> expr = example_expression(templates.get("ancestors").params[0])
>>> expr.startswith('coalesce(head(COLLECT { MATCH (n:Lineage) WHERE n.uid STARTS WITH "pegasus:job:"')
True
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import zipfile
from functools import lru_cache
from pathlib import Path

from jinja2 import Environment, PackageLoader, select_autoescape

from .. import templates as _templates

GUIDE_PATH = "guides/lineage.html"  # under /browser/
ARCHIVE_NAME = "neo4j-browser.zip"  # matches Neo4j's internal.dbms.browser_artefact_pattern
_UID = re.compile(r"^([a-z]+:[A-Za-z_]+:)")


def guide_url(http_port: int) -> str:
    """Where the managed server serves the guide."""
    return f"http://127.0.0.1:{http_port}/browser/{GUIDE_PATH}"


def uid_prefix(example) -> str | None:
    """The ``<source>:<kind>:`` prefix of an example uid, or None.

    >>> uid_prefix("pegasus:workflow:ea17"), uid_prefix(3)
    ('pegasus:workflow:', None)
    """
    if isinstance(example, str):
        m = _UID.match(example)
        return m.group(1) if m else None
    return None


def _uid_lookup(prefix: str, fallback: str) -> str:
    return ("coalesce(head(COLLECT { MATCH (n:Lineage) WHERE n.uid STARTS WITH "
            f"{json.dumps(prefix)} RETURN n.uid ORDER BY n.uid LIMIT 1 }}), {json.dumps(fallback)})")


def example_expression(param) -> str:
    """The right-hand side of ``:param name => ...`` for a guide example."""
    value = param.example if param.example is not None else param.default
    prefix = uid_prefix(value)
    if prefix:
        return _uid_lookup(prefix, value)
    if isinstance(value, list) and value and len({uid_prefix(v) for v in value} - {None}) == 1 \
            and all(uid_prefix(v) for v in value):
        prefix = json.dumps(uid_prefix(value[0]))
        return (f"CASE WHEN EXISTS {{ MATCH (n:Lineage) WHERE n.uid STARTS WITH {prefix} }} "
                f"THEN COLLECT {{ MATCH (n:Lineage) WHERE n.uid STARTS WITH {prefix} "
                f"RETURN n.uid ORDER BY n.uid LIMIT {len(value)} }} ELSE {json.dumps(value)} END")
    return json.dumps(value)


def example_text(template) -> str:
    """A template as a runnable Browser example: ``:param`` lines, then the query."""
    lines = [f":param {p.name} => {example_expression(p)};" for p in template.params]
    body = "\n".join(line for line in template.text.splitlines() if not line.startswith("//"))
    return "\n".join(lines + [body.strip()])


@lru_cache(maxsize=1)
def _env() -> Environment:
    return Environment(loader=PackageLoader("lineage.report", "templates"),
                       autoescape=select_autoescape(default=True, default_for_string=True))


def guide_html(all_templates=None) -> str:
    """The guide page (every value escaped)."""
    all_templates = all_templates if all_templates is not None else _templates.all_templates()
    slides = [{"t": t, "example": example_text(t)} for t in all_templates]
    return _env().get_template("guide.html.j2").render(slides=slides)


def _browser_jar(lib: Path) -> Path:
    jars = sorted(lib.glob("neo4j-browser-*.jar"))
    if not jars:
        raise FileNotFoundError(f"no neo4j-browser jar in {lib}")
    return jars[-1]


def install(lib: Path, web_dir: Path) -> Path:
    """Write ``web_dir/neo4j-browser.zip`` (Browser plus the guide) unless it is up to date;
    returns the zip's path."""
    jar = _browser_jar(lib)
    page = guide_html().encode("utf-8")
    stamp = hashlib.sha256(page + jar.name.encode()).hexdigest()
    archive = web_dir / ARCHIVE_NAME
    stamp_file = web_dir / (ARCHIVE_NAME + ".sha256")
    if archive.exists() and stamp_file.exists() and stamp_file.read_text().strip() == stamp:
        return archive
    old_umask = os.umask(0o077)  # the state directory stays private (shared login nodes)
    try:
        web_dir.mkdir(parents=True, exist_ok=True)
        os.chmod(web_dir, 0o700)
        _write_archive(jar, archive, page)
        stamp_file.write_text(stamp + "\n")
    finally:
        os.umask(old_umask)
    return archive


def _write_archive(jar: Path, archive: Path, page: bytes) -> None:
    tmp = archive.with_suffix(".tmp")
    # Neo4j serves the zip's first entry (a folder) as /browser: write "browser/" first
    with zipfile.ZipFile(jar) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as out:
        out.writestr("browser/", b"")
        for info in src.infolist():
            if info.filename.startswith("browser/") and info.filename != "browser/":
                out.writestr(info.filename, b"" if info.is_dir() else src.read(info))
        out.writestr("browser/guides/", b"")  # Neo4j extracts entries in order, folders first
        out.writestr(f"browser/{GUIDE_PATH}", page)
    tmp.replace(archive)
