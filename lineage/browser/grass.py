"""Neo4j Browser's graph style (GraSS) for the lineage graph, built from the model.

Browser styles a node by its labels only: every rule whose selector's labels the node has
applies, in the stylesheet's order, later rules winning. So the stylesheet lists the generic
labels first (``Lineage``, the PROV roles, ``Run``), then one rule per kind label with the
kind's colour from the model, then ``Anomaly`` (a Chimbuko execution found anomalous) in the
failure colour. Without it, Browser colours a node by its alphabetically first label, which
is ``Activity`` for most of the graph.

Limits of GraSS: a colour can follow a label, never a property, so the loaders keep a
``Failed`` label on every node whose ``status`` is ``failed`` (:mod:`lineage.load.status_labels`)
and its rule comes last: failed jobs, attempts and executions are filled in the failure
colour (their kind is in their labels); the caption is one property template, ``{name}``, with no fallback (a
node without ``name`` has no caption; every kind the loaders write sets one).

The shipped copy is ``lineage/report/lineage.grass`` (a test checks it equals
:func:`stylesheet`); the managed server serves it next to the guide, and the guide's first
slide applies it with ``:style <url>``.

>>> text = stylesheet()
>>> "node.Job {" in text and "color: #1f77b4;" in text
True
>>> rules = parse(text); rules["node.Anomaly"]["color"]
'#d62728'
"""

from __future__ import annotations

from pathlib import Path

from .. import model
from ..model.status import FAILURE_COLOUR

SHIPPED = Path(__file__).with_name("lineage.grass")
ANOMALY_LABEL = "Anomaly"
CAPTION = "{name}"

#: Circles big enough, and captions small enough, for a name of about 30 characters (Browser
#: cuts a caption that does not fit its circle: at 50 px and 10 px it kept about 7).
_BASE_NODE = {
    "diameter": "80px",
    "color": "#A5ABB6",
    "border-color": "#9AA1AC",
    "border-width": "2px",
    "text-color-internal": "#FFFFFF",
    "font-size": "8px",
    "caption": CAPTION,
}
_BASE_REL = {
    "color": "#A5ABB6",
    "shaft-width": "1px",
    "font-size": "8px",
    "padding": "3px",
    "text-color-external": "#000000",
    "text-color-internal": "#FFFFFF",
    "caption": "<type>",
}


def _darker(colour: str, factor: float = 0.75) -> str:
    """A border colour a little darker than the fill.

    >>> _darker("#ffffff")
    '#bfbfbf'
    """
    rgb = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{int(c * factor):02x}" for c in rgb)


def _text_colour(colour: str) -> str:
    """Black on light fills, white on dark ones.

    >>> _text_colour("#ffffff"), _text_colour("#1f77b4")
    ('#000000', '#FFFFFF')
    """
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 160 else "#FFFFFF"


def _kind_rule(colour: str) -> dict[str, str]:
    return {"color": colour, "border-color": _darker(colour),
            "text-color-internal": _text_colour(colour), "caption": CAPTION}


def rules() -> dict[str, dict[str, str]]:
    """``{selector: {property: value}}`` in the order Browser applies them."""
    out: dict[str, dict[str, str]] = {"node": dict(_BASE_NODE), "relationship": dict(_BASE_REL)}
    out[f"node.{model.BASE_LABEL}"] = {"caption": CAPTION}
    for kind in model.NODE_KINDS.values():
        out[f"node.{kind.label}"] = _kind_rule(kind.colour)
    out[f"node.{ANOMALY_LABEL}"] = _kind_rule(FAILURE_COLOUR)
    out[f"node.{model.FAILED_LABEL}"] = _kind_rule(FAILURE_COLOUR)
    return out


def colour_of(labels) -> str:
    """The fill Browser gives a node with these labels under :func:`stylesheet`.

    >>> colour_of(["Lineage", "Activity", "FunctionExecution", "Anomaly"])
    '#d62728'
    """
    colour = ""
    for selector, props in rules().items():
        tag, _, label = selector.partition(".")
        if tag == "node" and (not label or label in labels) and "color" in props:
            colour = props["color"]
    return colour


def stylesheet() -> str:
    """The GraSS text (Browser's own ``:style`` format)."""
    lines = []  # no comment line: Browser's GraSS parser reads comments as selectors
    for selector, props in rules().items():
        lines.append(selector + " {")
        for key, value in props.items():
            quoted = f"'{value}'" if key == "caption" else value
            lines.append(f"  {key}: {quoted};")
        lines.append("}")
    return "\n".join(lines) + "\n"


def parse(text: str) -> dict[str, dict[str, str]]:
    """Read GraSS as Neo4j Browser 5's own parser does (a port of its ``parseGrass``): quotes
    are dropped, a brace inside quotes is text, whitespace outside quotes is dropped, an entry
    is ``key: value`` with exactly one colon. It knows no comments, so the stylesheet has none.

    >>> parse("node.A { color: #fff; caption: '{name}'; }")
    {'node.A': {'color': '#fff', 'caption': '{name}'}}
    """
    in_quote = in_block = nested = False
    selector, body, blocks = "", "", {}
    for ch in text:
        handled = True
        if ch == "{":
            if in_quote:
                handled = False
            elif in_block:
                nested = True
            else:
                in_block = True
        elif ch == "}":
            if in_quote:
                handled = False
            elif nested:
                nested = False
            else:
                in_block = False
                blocks[selector] = body
                selector, body = "", ""
        elif ch in "'\"":
            in_quote = not in_quote
        else:
            handled = False
        if not handled:
            if in_block:
                body += ch
            elif not ch.isspace():
                selector += ch
    out = {}
    for name, block in blocks.items():
        entries = {}
        for item in block.split(";"):
            parts = item.split(":")
            if len(parts) == 2:
                entries[parts[0].strip()] = parts[1].strip()
        out[name] = entries
    return out
