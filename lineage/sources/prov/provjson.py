"""W3C PROV-JSON documents (``*.json``, ``*.provjson``), read with the ``prov`` package.

Detected by a JSON object whose top-level keys are PROV-JSON's (``prefix``, ``entity``,
``activity``, ``agent``, ``wasGeneratedBy``, ...); tried after every other source's formats.

>>> detect_provjson(Path("doc.json"), b'{"prefix": {"ex": "http://x/"}, "entity": {}}')
True
>>> detect_provjson(Path("run.json"), b'{"userT": {}, "xalt_run_uuid": "u"}')
False
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from typing import Iterator

from ...model.records import Record
from ..base import Format, LoadReport
from .mapping import document_records

#: Largest PROV-JSON document read (the prov package holds a document in memory whole).
MAX_BYTES = 256 * 1024 * 1024
_KEYS = {"prefix", "entity", "activity", "agent", "used", "wasGeneratedBy", "wasInformedBy",
         "wasDerivedFrom", "wasAssociatedWith", "hadMember", "wasInfluencedBy", "bundle"}
_FIRST_KEY = re.compile(rb'^\s*\{\s*"([A-Za-z]+)"\s*:')


def detect_provjson(path: Path, head: bytes) -> bool:
    match = _FIRST_KEY.match(head)
    return bool(match) and match.group(1).decode() in _KEYS


def parse_provjson(path: Path, report: LoadReport) -> Iterator[Record]:
    from prov.model import ProvDocument

    size = Path(path).stat().st_size
    if size > MAX_BYTES:
        report.skip(str(path), None, f"a PROV-JSON document of at most {MAX_BYTES} bytes",
                    f"{size} bytes")
        return
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        report.skip(str(path), None, "UTF-8 text", f"byte {exc.start + 1}: {exc.reason}")
        return
    try:
        json.loads(text)
        with warnings.catch_warnings(record=True) as dropped:
            warnings.simplefilter("always")
            document = ProvDocument.deserialize(content=text, format="json").flattened()
    except Exception as exc:  # the prov package raises many kinds for invalid documents
        report.skip(str(path), None, "a W3C PROV-JSON document", f"{type(exc).__name__}: {exc}")
        return
    for warning in dropped:  # e.g. a qualified name without a declared prefix, dropped
        report.skip(str(path), None, "a W3C PROV-JSON document the prov package reads whole",
                    str(warning.message))
    yield from document_records(document, report, str(path))


FORMATS = [
    Format("prov-json", "prov", detect_provjson, parse_provjson,
           description="W3C PROV-JSON documents (other tools' provenance, lineage export)",
           fallback=True),
]
