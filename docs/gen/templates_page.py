"""The template reference (docs/reference/templates.md), filled in from the template headers.

Run by mkdocs-gen-files at build time: the hand-written page keeps its introduction and the
marker line, which becomes one section per template (purpose, parameters with example
values, what it returns, how to run it). Reads only the template registry's public
functions (``lineage.query.templates.all_templates``).
"""

from __future__ import annotations

import json
import re
import shlex

import mkdocs_gen_files

from lineage.query import templates

PAGE = "reference/templates.md"
MARKER = "<!-- generated: every template -->"

#: Section titles for the first part of a template's name (others are capitalised).
GROUPS = {
    "": "Any source",
    "pegasus": "Pegasus",
    "swift": "Swift",
    "chimbuko": "Chimbuko",
    "xalt": "XALT",
    "prov": "W3C PROV",
    "cross": "Across systems (after `lineage link`)",
    "link": "What `lineage link` compares",
}


def anchor(name: str) -> str:
    """The page anchor of a template: ``pegasus/failed_jobs`` -> ``pegasus-failed_jobs``."""
    return name.replace("/", "-")


def _group(name: str) -> str:
    return name.rpartition("/")[0]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _value(value) -> str:
    return "" if value is None else f"`{_cell(json.dumps(value))}`"


def _param_row(param) -> str:
    """One row: name, type, required or default, example, what it is."""
    text = re.sub(r"\s*Example:.*$", "", param.doc)
    head, _, what = text.partition(". ")
    found = re.search(r"\(default\s+(.+)\)", head)
    need = "required" if param.required else (f"default {found.group(1)}" if found else
                                              "optional")
    return (f"| `{param.name}` | {_cell(param.type)} | {_cell(need)} | {_value(param.example)} "
            f"| {_cell(what.strip())} |")


def _command(t) -> str:
    """``lineage query NAME -p ...`` with the required parameters' example values."""
    words = ["lineage", "query", t.name]
    for p in t.params:
        if p.required and p.example is not None:
            value = p.example if isinstance(p.example, str) else json.dumps(p.example)
            words += ["-p", shlex.quote(f"{p.name}={value}")]
    return " ".join(words)


def section(t) -> list[str]:
    """The Markdown of one template."""
    lines = [f"### `{t.name}` {{#{anchor(t.name)}}}", "", t.purpose, ""]
    if t.params:
        lines += ["| parameter | type | default | example | what it is |", "|---|---|---|---|---|"]
        lines += [_param_row(p) for p in t.params] + [""]
    else:
        lines += ["No parameters.", ""]
    lines += [f"**Returns**: {', '.join(f'`{c}`' for c in t.returns)}", ""]
    lines += ["```bash", _command(t), f"lineage cypher show {t.name}    # for Neo4j Browser",
              "```", ""]
    if t.notes:
        lines += ['??? note "How it works"', ""]
        lines += [f"    {note}" for note in t.notes] + [""]
    return lines


def page(intro: str) -> str:
    """The whole page: the introduction with the marker replaced by every template."""
    every = templates.all_templates()
    groups: dict[str, list] = {}
    for t in every:
        groups.setdefault(_group(t.name), []).append(t)
    order = [g for g in GROUPS if g in groups] + sorted(set(groups) - set(GROUPS))
    lines = [f"{len(every)} templates.", ""]
    for g in order:
        lines += [f"## {GROUPS.get(g, g.capitalize())}", ""]
        lines += [" · ".join(f"[`{t.name}`](#{anchor(t.name)})" for t in groups[g]), ""]
        for t in groups[g]:
            lines += section(t)
    if MARKER not in intro:
        raise ValueError(f"{PAGE} lost its marker line {MARKER!r}")
    return intro.replace(MARKER, "\n".join(lines))


with mkdocs_gen_files.open(PAGE, "r") as source:
    text = source.read()
with mkdocs_gen_files.open(PAGE, "w") as out:
    out.write(page(text))
