"""The graph model page (docs/model.md), filled in from the model's declarations.

Run by mkdocs-gen-files at build time: the hand-written page keeps its prose and its marker
lines, which become the tables of every node kind, relationship type, status and ``:Load``
property. Reads only the model's public declarations (``lineage.model``).
"""

from __future__ import annotations

import mkdocs_gen_files

from lineage import model

PAGE = "model.md"
KINDS_MARKER = "<!-- generated: node kinds -->"
RELS_MARKER = "<!-- generated: relationship types -->"
STATUS_MARKER = "<!-- generated: statuses -->"
LOAD_MARKER = "<!-- generated: load properties -->"

SOURCE_TITLES = {"common": "Shared by every source", "pegasus": "Pegasus", "swift": "Swift",
                 "chimbuko": "Chimbuko", "xalt": "XALT", "prov": "W3C PROV documents"}
COMMON = ("uid", "kind", "name", "loads")


def uid_shape(kind) -> str:
    """``pegasus:job:<xwf_id>:<job_id>``; a part that may be empty ends in ``?``."""
    return kind.prefix + "".join(f":<{name}>" for name in kind.uid_parts)


def kind_anchor(kind) -> str:
    return f"kind-{kind.label.lower()}"


def rel_anchor(rel) -> str:
    return f"rel-{rel.name.lower()}"


def _labels(kind) -> str:
    extra = [x for x in kind.extra_labels if x not in kind.labels]
    return " ".join(f"`:{x}`" for x in (*kind.labels, *extra))


def _props(kind) -> str:
    own = sorted((n, t) for n, t in kind.props.items() if n not in COMMON)
    text = ", ".join(f"`{n}` {t}" for n, t in own) or "none of its own"
    families = ", ".join(f"`{prefix}*` {t}" for prefix, t in sorted(kind.prop_families.items()))
    return text + (f"; families {families}" if families else "")


def kinds_text() -> str:
    kinds = list(model.NODE_KINDS.values())
    sources = list(dict.fromkeys(k.source for k in kinds))
    lines = ["| kind | source | PROV role | uid |", "|---|---|---|---|"]
    lines += [f"| [{k.label}](#{kind_anchor(k)}) | {SOURCE_TITLES.get(k.source, k.source)} "
              f"| {k.role.value} | `{uid_shape(k)}` |" for k in kinds]
    lines.append("")
    for source in sources:
        lines += [f"### {SOURCE_TITLES.get(source, source)}", ""]
        for k in (k for k in kinds if k.source == source):
            lines += [f"#### {k.label} {{#{kind_anchor(k)}}}", "", k.doc or k.display, ""]
            lines += [f"| labels | {_labels(k)} |", "|---|---|",
                      f"| PROV role | {k.role.value} |",
                      f"| uid | `{uid_shape(k)}` |",
                      f"| properties | {_props(k)} |"]
            if k.indexed:
                lines.append(f"| indexed | {', '.join(f'`{p}`' for p in k.indexed)} |")
            if k.identity:
                lines.append("| must agree across inputs | "
                             f"{', '.join(f'`{p}`' for p in k.identity)} |")
            out = [r for r in model.RELATIONS if r.start is k]
            if out:
                lines.append("| relationships out | " + "<br>".join(
                    f"[`{r.rel.name}`](#{rel_anchor(r.rel)}) → {r.end.label}" for r in out) + " |")
            lines.append("")
    return "\n".join(lines)


def rels_text() -> str:
    rels = list(model.REL_TYPES.values())
    lines = ["| type | PROV lineage | what it says |", "|---|---|---|"]
    lines += [f"| [`{r.name}`](#{rel_anchor(r)}) | {'yes' if r.prov else ''} "
              f"| {r.doc.replace('|', chr(92) + '|')} |" for r in rels]
    lines.append("")
    for rel in rels:
        lines += [f"### {rel.name} {{#{rel_anchor(rel)}}}", "", rel.doc, ""]
        props = ", ".join(f"`{n}` {t}" for n, t in rel.props.items() if n != "loads")
        if props:
            lines += [f"Properties: {props}.", ""]
        lines += [f"- [{r.start.label}](#{kind_anchor(r.start)}) → "
                  f"[{r.end.label}](#{kind_anchor(r.end)})" + (f": {r.doc}" if r.doc else "")
                  for r in model.relations_of(rel)]
        lines.append("")
    return "\n".join(lines)


def statuses_text() -> str:
    return ", ".join(f"`{s}`" for s in model.STATUSES)


def load_text() -> str:
    return ", ".join(f"`{n}` {t}" for n, t in model.LOAD_PROPS.items())


def page(prose: str) -> str:
    for marker in (KINDS_MARKER, RELS_MARKER, STATUS_MARKER, LOAD_MARKER):
        if marker not in prose:
            raise ValueError(f"{PAGE} lost its marker line {marker!r}")
    return (prose.replace(KINDS_MARKER, kinds_text()).replace(RELS_MARKER, rels_text())
            .replace(STATUS_MARKER, statuses_text()).replace(LOAD_MARKER, load_text()))


with mkdocs_gen_files.open(PAGE, "r") as source:
    text = source.read()
with mkdocs_gen_files.open(PAGE, "w") as out:
    out.write(page(text))
