"""Rules every template keeps: the ancestry family follows the model's lineage relations
(and is the text ``python -m lineage.query.ancestry`` writes), and no template builds a uid
(uids are built by the model only)."""

from __future__ import annotations

import re

import pytest

from lineage import model
from lineage.model.prov import HAD_MEMBER
from lineage.query import ancestry, templates

_COMMENT = re.compile(r"//[^\n]*")


@pytest.mark.parametrize("name", ancestry.FAMILY)
def test_the_ancestry_family_is_what_the_model_generates(name):
    text = templates.get(name).path.read_text(encoding="utf-8")
    assert ancestry.generated(name, text) == text, (
        f"{name}: run `python -m lineage.query.ancestry` (the model's LINEAGE_RELS changed?)")
    lists = re.findall(r"\[\w*:([A-Z_|]+)", _COMMENT.sub("", text))
    assert lists and set(lists) == {ancestry.relations()}


def test_a_relation_added_to_the_model_changes_the_family(monkeypatch):
    """The pin can fail: with one more lineage relation the files are no longer current."""
    monkeypatch.setattr(ancestry, "LINEAGE_RELS", (*model.LINEAGE_RELS, model.PART_OF))
    text = templates.get("ancestors").path.read_text(encoding="utf-8")
    assert "HAD_MEMBER|PART_OF*1..4]" in ancestry.generated("ancestors", text)
    monkeypatch.setattr(ancestry, "LINEAGE_RELS",
                        tuple(r for r in model.LINEAGE_RELS if r is not HAD_MEMBER))
    assert ancestry.generated("lineage_step", templates.get("lineage_step").text) != \
        templates.get("lineage_step").text


def test_the_bounded_search_has_a_branch_per_bound():
    block = ancestry.search("descendant")
    assert block.count("UNION ALL") == len(ancestry.BOUNDS)
    assert "*1..100]-(descendant:Lineage)" in block and "*1..]-(descendant:Lineage)" in block


_STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


def test_no_template_builds_a_uid():
    """No string in a template's query holds a uid scheme's head (``'swift:call:'``)."""
    prefixes = {f"{kind.prefix}:" for kind in model.NODE_KINDS.values()}
    built = [(t.name, text) for t in templates.all_templates()
             for text in _STRING.findall(_COMMENT.sub("", t.text))
             if any(prefix in text for prefix in prefixes)]
    assert built == []
    assert _STRING.findall("WHERE x STARTS WITH 'swift:call:'") == ["'swift:call:'"]
