"""W3C PROV-N documents (``*.provn``), read with the ``prov`` package's PROV-N parser.

Detected by the keyword ``document`` first (after any comments).

>>> detect_provn(Path("a.provn"), b"// made by hand\\ndocument\\n  prefix ex <http://e/>")
True
>>> detect_provn(Path("a.txt"), b"documentation")
False
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from ...model.records import Record
from ..base import Format, LoadReport
from .whole import parse_whole

_HEAD = re.compile(rb"\A(?:\xef\xbb\xbf)?(?:\s+|//[^\n]*\n|/\*.*?\*/)*document\b", re.S)


def detect_provn(path: Path, head: bytes) -> bool:
    return _HEAD.match(head) is not None


def parse_provn(path: Path, report: LoadReport) -> Iterator[Record]:
    yield from parse_whole(path, report, "provn", "PROV-N")


FORMATS = [
    Format("prov-n", "prov", detect_provn, parse_provn,
           description="W3C PROV-N documents (another tool's provenance, lineage export)",
           agree=True),
]
