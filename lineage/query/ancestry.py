"""The ancestry family of templates, generated from the model's lineage relations
(:data:`lineage.model.LINEAGE_RELS`): the bounded searches of ``ancestors``, ``descendants``
and their ``_paths`` forms, and the relation lists of every template of the family.

Cypher takes no parameter as a pattern's length, so a search bounded by ``$max_depth`` is
unrolled into one branch per bound (:data:`BOUNDS`); the files in ``cypher/`` keep that text
(runnable as it is in Neo4j Browser), written by this module:
``python -m lineage.query.ancestry`` rewrites them from the model, and
tests/test_template_rules.py fails when a file differs from what it would write.

>>> relations()
'USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER'
>>> print(search("ancestor").splitlines()[2])
  MATCH p = (start)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..]->(ancestor:Lineage)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from ..model import LINEAGE_RELS
from .templates import cypher_dir

#: The depths a bounded search is unrolled into: ``$max_depth`` runs the branch of the
#: smallest bound at or above it; above the last one (or null) the search is unbounded.
BOUNDS = (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 24, 32, 48, 64, 100)

#: The templates whose ``CALL (start) { ... }`` block is the bounded search, by the name of
#: the node it finds (``ancestor`` upstream: outward; ``descendant`` downstream: inward).
SEARCHES = {"ancestors": "ancestor", "ancestors_paths": "ancestor",
            "descendants": "descendant", "descendants_paths": "descendant"}
#: Every template of the family: each relationship list in it is :func:`relations`.
FAMILY = (*SEARCHES, "lineage_step", "lineage_steps")

_BLOCK = re.compile(r"CALL \(start\) \{\n.*?\n\}\n", re.S)
_LIST = re.compile(r"\[\w*:([A-Z_|]+)")


def relations() -> str:
    """The lineage relations as a Cypher relationship-type list."""
    return "|".join(rel.name for rel in LINEAGE_RELS)


def search(found: str) -> str:
    """The ``CALL (start) { ... }`` block of a bounded search finding ``found`` nodes
    (``ancestor``: outward, ``descendant``: inward), every row handed over as one list."""
    arrow = ("-[", "]->") if found == "ancestor" else ("<-[", "]-")
    branches = []
    lower = None
    for bound in (None, *BOUNDS):
        guard = ("$max_depth IS NULL OR $max_depth > 100" if bound is None
                 else f"{lower} < $max_depth <= {bound}")
        length = "1.." if bound is None else f"1..{bound}"
        branches.append(
            f"  WITH start WHERE {guard}\n"
            f"  MATCH p = (start){arrow[0]}:{relations()}*{length}{arrow[1]}({found}:Lineage)\n"
            f"  WITH {found}, min(length(p)) AS depth\n"
            f"  RETURN collect([{found}, depth]) AS found\n")
        lower = bound if bound is not None else 0
    return "CALL (start) {\n" + "  UNION ALL\n".join(branches) + "}\n"


def generated(name: str, text: str) -> str:
    """``text`` of template ``name`` with its search block and relation lists as the model
    says (the text itself when it is not of the family)."""
    if name in SEARCHES:
        text = _BLOCK.sub(lambda _: search(SEARCHES[name]), text, count=1)
    if name in FAMILY:
        text = _LIST.sub(lambda m: m.group(0).replace(m.group(1), relations()), text)
    return text


def write(folder: Path | None = None) -> list[str]:
    """Rewrite the family's files in ``folder`` (default: ``cypher/``) from the model; the
    names of those that changed."""
    folder = folder or cypher_dir()
    changed = []
    for name in FAMILY:
        path = folder / f"{name}.cypher"
        text = path.read_text(encoding="utf-8")
        new = generated(name, text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(name)
    return changed


if __name__ == "__main__":  # pragma: no cover - python -m lineage.query.ancestry
    print("\n".join(write(Path(sys.argv[1]) if sys.argv[1:] else None)) or "unchanged")
