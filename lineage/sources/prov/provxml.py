"""W3C PROV-XML documents (``*.provx``, ``*.xml``), read with the ``prov`` package.

Detected by a root element ``document`` in the PROV namespace.

>>> detect_provxml(Path("a.xml"), b'<?xml version="1.0"?>\\n<prov:document '
...                b'xmlns:prov="http://www.w3.org/ns/prov#">')
True
>>> detect_provxml(Path("a.xml"), b'<?xml version="1.0"?><adag xmlns="http://pegasus.isi.edu">')
False
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from ...model.records import Record
from ..base import Format, LoadReport
from .whole import parse_whole

_ROOT = re.compile(rb"\A(?:\xef\xbb\xbf)?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--.*?-->\s*)*"
                   rb"<(?:[A-Za-z_][\w.-]*:)?document\b[^>]*http://www\.w3\.org/ns/prov#", re.S)


def detect_provxml(path: Path, head: bytes) -> bool:
    return _ROOT.match(head) is not None


def parse_provxml(path: Path, report: LoadReport) -> Iterator[Record]:
    yield from parse_whole(path, report, "xml", "PROV-XML")


FORMATS = [
    Format("prov-xml", "prov", detect_provxml, parse_provxml,
           description="W3C PROV-XML documents (another tool's provenance)", agree=True),
]
