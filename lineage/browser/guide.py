"""A Neo4j Browser guide (``:play``) listing every Cypher template, served by Neo4j itself.

Neo4j's web server serves Browser from a zip when ``internal.dbms.web_dir_path`` names a
folder holding ``neo4j-browser*.zip`` (otherwise from the neo4j-browser jar on the class
path). :func:`install` writes such a zip: the jar's ``browser/`` files plus
``browser/guides/lineage.html`` and the GraSS stylesheet ``browser/guides/lineage.grass``
(:mod:`lineage.browser.grass`), so both are served at
``http://127.0.0.1:<http port>/browser/guides/...``, same origin as Browser. The managed
server's config allows that host for remote content and runs ``:style <stylesheet URL>`` and
``:play <guide URL>`` after login (``browser.post_connect_cmd``); the guide's first slide has
the ``:style`` command too.

The first slide is the contents, grouped by the question each template answers
(:data:`QUESTIONS`), each template with its slide number (one click on that number in the
carousel reaches it); the slides follow in that order. Each template is a slide with its purpose, parameters, returned columns and its example as
two one-click commands (Browser 5 puts a run button on every ``pre.runnable``): one sets every
parameter (:func:`params_command`), one runs the query, each a single statement with one
result. A uid parameter is filled when the command runs: with the answer of the template's
``// pick`` query (a value that fits, e.g. a workflow with failed jobs), else the header's
example uid when the graph has it, else a uid of the same kind. The ``*_paths`` templates
return paths, which Browser draws as a graph.

>>> from lineage.query import templates
>>> expr = example_expression(templates.get("ancestors").params[0])
>>> expr.startswith('coalesce(head(COLLECT { MATCH (n:Lineage {uid: "pegasus:job:')
True
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from functools import lru_cache
from pathlib import Path

from jinja2 import Environment, PackageLoader, select_autoescape

from ..query import templates as _templates
from ..query.templates import uid_prefix
from . import grass

GUIDE_PATH = "guides/lineage.html"  # under /browser/
STYLE_PATH = "guides/lineage.grass"
ARCHIVE_NAME = "neo4j-browser.zip"  # matches Neo4j's internal.dbms.browser_artefact_pattern


def guide_url(http_port: int) -> str:
    """Where the managed server serves the guide."""
    return f"http://127.0.0.1:{http_port}/browser/{GUIDE_PATH}"


def _lit(value) -> str:
    """A Cypher literal of a header value."""
    return _templates.cypher_literal(value)


def _first_of(query: str) -> str:
    return f"head(COLLECT {{ {query} }})"


def _uid_lookup(value: str, pick: str | None) -> str:
    """The pick's answer, else the uid itself when the graph has it, else the first uid of its
    kind, else the uid as written."""
    tries = [_first_of(pick)] if pick else []
    tries += [_first_of(f"MATCH (n:Lineage {{uid: {_lit(value)}}}) RETURN n.uid"),
              _first_of(f"MATCH (n:Lineage) WHERE n.uid STARTS WITH {_lit(uid_prefix(value))} "
                        "RETURN n.uid ORDER BY n.uid LIMIT 1"),
              _lit(value)]
    return f"coalesce({', '.join(tries)})"


def example_expression(param, pick: str | None = None) -> str:
    """A Cypher expression for a guide example's value of ``param``: for a uid, the template's
    ``pick`` query's answer first (a value that fits, such as a failed workflow), then the
    header's example uid when the graph has it, then a uid of the same kind; else the header's
    example or default."""
    value = param.example if param.example is not None else param.default
    if uid_prefix(value):
        return _uid_lookup(value, pick)
    if isinstance(value, list) and value and all(uid_prefix(v) for v in value) \
            and len({uid_prefix(v) for v in value}) == 1:
        listed = _lit(value)
        tries = [f"COLLECT {{ {pick} }}"] if pick else []
        tries += [f"CASE WHEN COUNT {{ MATCH (n:Lineage) WHERE n.uid IN {listed} }} = {len(value)} "
                  f"THEN {listed} END",
                  f"COLLECT {{ MATCH (n:Lineage) WHERE n.uid STARTS WITH "
                  f"{_lit(uid_prefix(value[0]))} RETURN n.uid ORDER BY n.uid LIMIT {len(value)} }}"]
        return f"coalesce({', '.join(f'nullif({t}, [])' for t in tries)}, {listed})"
    if pick:
        return f"coalesce({_first_of(pick)}, {_lit(value)})"
    return _lit(value)


def params_command(template) -> str | None:
    """One Browser command setting every parameter of ``template`` (None when it has none):
    ``:param [{a, b}] => { RETURN ... AS a, ... AS b }``, Browser's form that sets several
    parameters from one Cypher query's first row. One line, no ``;``: Browser runs it as one
    command (several ``:param`` lines are a multi-statement run that shows no result).

    >>> from lineage.query import templates
    >>> params_command(templates.get("path_between"))[:32]
    ':param [{from, to, max_hops, pat'
    """
    if not template.params:
        return None
    names = ", ".join(p.name for p in template.params)
    values = ", ".join(f"{example_expression(p, template.picks.get(p.name))} AS `{p.name}`"
                       for p in template.params)
    return f":param [{{{names}}}] => {{ RETURN {values} }}"


def query_text(template) -> str:
    """The template's query as one Browser statement: the header and comment lines dropped."""
    body = "\n".join(line for line in template.text.splitlines()
                     if not line.lstrip().startswith("//"))
    return body.strip().rstrip(";").strip()


#: The guide's chapters, in order: a question a user asks, and the words of the names of the
#: templates that answer it (the first chapter whose words a name holds takes it; the last
#: takes the rest; a word ``=name`` takes that name only). The contents slide lists them; slides follow in this order.
QUESTIONS = (
    ("What runs are there, and what failed?", ("=runs", "failed", "why", "statistics",
                                               "attempts", "subworkflows", "workflow_jobs")),
    ("Did it misbehave? (Chimbuko's anomalies)", ("chimbuko/",)),
    ("Which binary and libraries ran? (XALT)", ("xalt/", "library")),
    ("Across systems (after `lineage link`)", ("cross/", "link")),
    ("Where did this come from, what did it make?", ("ancestors", "descendants", "lineage",
                                                     "path", "file", "data", "dependencies",
                                                     "swift/")),
    ("How do two runs compare?", ("compare", "profile", "correlate", "host_", "transformation_")),
    ("The graph itself (building blocks)", ()),
)


def chapter_of(template) -> int:
    """The index in :data:`QUESTIONS` of the chapter a template belongs to.

    >>> from lineage.query import templates
    >>> QUESTIONS[chapter_of(templates.get("pegasus/failed_jobs"))][0]
    'What runs are there, and what failed?'
    >>> QUESTIONS[chapter_of(templates.get("edges_among"))][0]
    'The graph itself (building blocks)'
    """
    for i, (_, words) in enumerate(QUESTIONS):
        if any(template.name == w[1:] if w.startswith("=") else w in template.name
               for w in words):
            return i
    return len(QUESTIONS) - 1


def ordered(all_templates=None) -> list:
    """The templates in the guide's order: by chapter, then by name."""
    all_templates = all_templates if all_templates is not None else _templates.all_templates()
    return sorted(all_templates, key=lambda t: (chapter_of(t), t.name))


def style_url(http_port: int) -> str:
    """Where the managed server serves the GraSS stylesheet (next to the guide)."""
    return f"http://127.0.0.1:{http_port}/browser/{STYLE_PATH}"


def is_path_template(template) -> bool:
    """True for the templates that return paths (Browser draws them as a graph)."""
    return template.returns == ["path"]


@lru_cache(maxsize=1)
def _env() -> Environment:
    return Environment(loader=PackageLoader("lineage.browser", "templates"),
                       autoescape=select_autoescape(default=True, default_for_string=True))


def guide_html(all_templates=None, http_port: int | None = None) -> str:
    """The guide page (every value escaped); with ``http_port``, its first slide applies the
    stylesheet served at :func:`style_url`."""
    slides = [{"t": t, "params": params_command(t), "query": query_text(t),
               "paths": is_path_template(t), "number": i + 2, "chapter": chapter_of(t),
               "question": QUESTIONS[chapter_of(t)][0]}
              for i, t in enumerate(ordered(all_templates))]
    chapters = [{"question": q, "slides": [s for s in slides if s["chapter"] == i]}
                for i, (q, _) in enumerate(QUESTIONS)]
    style = f":style {style_url(http_port)}" if http_port else None
    return _env().get_template("guide.html.j2").render(
        slides=slides, chapters=[c for c in chapters if c["slides"]], style=style)


def _browser_jar(lib: Path) -> Path:
    jars = sorted(lib.glob("neo4j-browser-*.jar"))
    if not jars:
        raise FileNotFoundError(f"no neo4j-browser jar in {lib}")
    return jars[-1]


def install(lib: Path, web_dir: Path, http_port: int | None = None) -> Path:
    """Write ``web_dir/neo4j-browser.zip`` (Browser plus the guide and the stylesheet) unless
    it is up to date; returns the zip's path."""
    jar = _browser_jar(lib)
    page = guide_html(http_port=http_port).encode("utf-8")
    style = grass.stylesheet().encode("utf-8")
    stamp = hashlib.sha256(page + style + jar.name.encode()).hexdigest()
    archive = web_dir / ARCHIVE_NAME
    stamp_file = web_dir / (ARCHIVE_NAME + ".sha256")
    if archive.exists() and stamp_file.exists() and stamp_file.read_text().strip() == stamp:
        return archive
    old_umask = os.umask(0o077)  # the state directory stays private (shared login nodes)
    try:
        web_dir.mkdir(parents=True, exist_ok=True)
        os.chmod(web_dir, 0o700)
        _write_archive(jar, archive, page, style)
        stamp_file.write_text(stamp + "\n")
    finally:
        os.umask(old_umask)
    return archive


def _write_archive(jar: Path, archive: Path, page: bytes, style: bytes) -> None:
    tmp = archive.with_suffix(".tmp")
    # Neo4j serves the zip's first entry (a folder) as /browser: write "browser/" first
    with zipfile.ZipFile(jar) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as out:
        out.writestr("browser/", b"")
        for info in src.infolist():
            if info.filename.startswith("browser/") and info.filename != "browser/":
                out.writestr(info.filename, b"" if info.is_dir() else src.read(info))
        out.writestr("browser/guides/", b"")  # Neo4j extracts entries in order, folders first
        out.writestr(f"browser/{GUIDE_PATH}", page)
        out.writestr(f"browser/{STYLE_PATH}", style)
    tmp.replace(archive)
