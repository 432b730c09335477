"""The model holds every fact about the graph: what loaders write and what templates and
reports read must be declared in it, and its uid schemes never give two things one uid."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lineage import model
from lineage.query import templates

from .conftest import SAMPLES
from .corpus import needs_corpus

ROOT = Path(__file__).resolve().parent.parent
_COMMENT = re.compile(r"//[^\n]*")
_STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
_LABEL = re.compile(r"(?<![\w.$])(?:\w+)?:([A-Z][a-z][A-Za-z]*)\b")
_REL = re.compile(r"\[\s*\w*\s*:\s*([A-Z_|:\s]+?)\s*[\]{*]")
_PROP = re.compile(r"(?<![\w$])([a-z_]\w*)\.([a-z_]\w*)\b(?!\s*\()")
_MODEL_PARAM = re.compile(r"\$(\w+)\.(\w+)")

#: names that are not graph properties: map keys of rows, records and parameters
_NOT_ELEMENTS = {"row", "acc", "dp", "e", "x", "m", "entry", "stat", "p", "item", "c", "s",
                 "ev", "t", "pair", "d", "agg", "rec", "cell", "w", "f", "column"}


def declared_properties() -> set[str]:
    props = set(model.LOAD_PROPS)
    for kind in model.NODE_KINDS.values():
        props |= set(kind.props)
    for rel in model.REL_TYPES.values():
        props |= set(rel.props)
    return props


def declared_property(name: str) -> bool:
    if name in declared_properties():
        return True
    return any(kind.declares(name) for kind in model.NODE_KINDS.values())


def cypher_texts():
    for template in templates.all_templates():
        yield template.name, _STRING.sub("''", _COMMENT.sub("", template.text))


@pytest.mark.parametrize("name,text", list(cypher_texts()), ids=lambda v: str(v)[:40])
def test_templates_read_only_what_the_model_declares(name, text):
    labels = set(_LABEL.findall(text))
    assert labels <= model.ALL_LABELS, f"{name}: undeclared labels {labels - model.ALL_LABELS}"
    for group in _REL.findall(text):
        for rel in filter(None, re.split(r"[|:\s]+", group)):
            assert rel in model.REL_TYPES, f"{name}: undeclared relationship type {rel}"
    for var, prop in _PROP.findall(text):
        if var in _NOT_ELEMENTS:
            continue
        assert declared_property(prop), f"{name}: {var}.{prop} is declared by no kind"
    for param, key in _MODEL_PARAM.findall(text):  # $status.failures: the model gives it
        assert key in templates.MODEL_PARAMETERS[param](), f"{name}: ${param}.{key}"


def test_report_and_api_code_spell_no_kind_label():
    """Kind names come from the model: no module outside it spells one as a literal."""
    kinds = set(model.NODE_KINDS) | {model.RUN_LABEL}
    offenders = []
    for path in [*ROOT.joinpath("lineage").glob("*.py"),
                 *ROOT.joinpath("lineage", "report").glob("*.py")]:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in kinds:
                offenders.append(f"{path.name}:{node.lineno} {node.value!r}")
    assert offenders == []


def test_every_relation_joins_declared_kinds():
    for rel in model.RELATIONS:
        assert rel.start.label in model.NODE_KINDS and rel.end.label in model.NODE_KINDS
        assert rel.rel.name in model.REL_TYPES
    used = {r.rel.name for r in model.RELATIONS}
    assert set(model.REL_TYPES) == used, "a relationship type no relation uses"


def test_kind_of_uid_recovers_every_kind():
    for kind in model.NODE_KINDS.values():
        parts = ["x:y" if not p.endswith("?") else "" for p in kind.uid_parts]
        parts[0] = parts[0] or "a"
        assert model.kind_of_uid(kind.uid(*parts)) is kind


_PART = st.one_of(st.text(min_size=1, max_size=8, alphabet=":%ab/ "),
                  st.integers(min_value=0, max_value=99))


@given(st.tuples(_PART, _PART, _PART), st.tuples(_PART, _PART, _PART))
def test_uids_are_injective(a, b):
    package = model.kind("Package")  # four parts, the last two optional
    if a != b:
        assert package.uid(*a, None) != package.uid(*b, None)
        assert package.uid(a[0], a[1], None, a[2]) != package.uid(b[0], b[1], None, b[2])


@needs_corpus
def test_a_loaded_graph_holds_only_declared_labels_types_and_properties(lin):
    lin.load([SAMPLES])
    labels = {r["label"] for r in lin.query("CALL db.labels() YIELD label RETURN label")}
    assert labels <= model.ALL_LABELS
    types = {r["t"] for r in lin.query(
        "CALL db.relationshipTypes() YIELD relationshipType AS t RETURN t")}
    assert types <= set(model.REL_TYPES)
    rows = lin.query("MATCH (n:Lineage) UNWIND keys(n) AS key "
                     "RETURN DISTINCT n.kind AS kind, key")
    for row in rows:
        assert model.kind(row["kind"]).declares(row["key"]), row
    rows = lin.query("MATCH ()-[r]->() UNWIND keys(r) AS key RETURN DISTINCT type(r) AS t, key")
    for row in rows:
        assert row["key"] in model.REL_TYPES[row["t"]].props, row
    # and every relationship joins kinds the model says it joins
    pairs = lin.query("MATCH (a:Lineage)-[r]->(b:Lineage) "
                      "RETURN DISTINCT type(r) AS t, a.kind AS a, b.kind AS b")
    declared = {(r.rel.name, r.start.label, r.end.label) for r in model.RELATIONS}
    assert {(p["t"], p["a"], p["b"]) for p in pairs} <= declared
