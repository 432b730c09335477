"""Facts recorded from producers' own tools, and the one way tests compare tables with them.

Tools that do not install from a package registry (XALT's database loader, Swift's provenance
importer) cannot run in the test suite; what they gave for each real sample is recorded in
``tests/facts/*.json`` (each file says how it was obtained). A table is recorded as its row
count and a digest of its distinct rows, so a test compares the graph, rendered as that table,
exactly.

>>> table([("a", 1), ("b", None)]) == table([("b", None), ("a", "1")])
True
>>> table([("a",), ("a",)])["rows"]
1
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

FACTS = Path(__file__).with_name("facts")


def table(rows) -> dict:
    """A table as ``{"rows": count, "sha256": digest}`` of its distinct rows: every value as
    text (``None`` stays null), rows in sorted order, so the digest depends on the rows alone."""
    canon = sorted({json.dumps([None if v is None else str(v) for v in row], ensure_ascii=False)
                    for row in rows})
    return {"rows": len(canon), "sha256": hashlib.sha256("\n".join(canon).encode()).hexdigest()}


def recorded(name: str) -> dict:
    """The facts file ``tests/facts/<name>.json``."""
    return json.loads((FACTS / f"{name}.json").read_text())
