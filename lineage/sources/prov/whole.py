"""PROV documents the ``prov`` package reads whole (PROV-N, PROV-XML): read, checked for what
the package dropped, and mapped (see :mod:`.mapping`).

The package holds the whole document in memory, several hundred bytes per byte of input
(measured by ``bench/bench_prov_memory.py``, see docs/performance.md): a document larger
than :data:`MAX_BYTES` is refused, naming the limit. PROV-JSON is read record by record
instead (:mod:`.provjson`), with no such limit.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Iterator

from ...model.records import Record
from ..base import LoadReport
from . import trust
from .mapping import Document, declared_roles, document_records, sha256_of

#: Largest PROV-N or PROV-XML document read (the prov package holds it whole).
MAX_BYTES = 8 * 1024 * 1024


def parse_whole(path: Path, report: LoadReport, prov_format: str, what: str
                ) -> Iterator[Record]:
    """The records of a PROV-N (``prov_format`` ``provn``) or PROV-XML (``xml``) document."""
    from prov.model import ProvDocument

    size = Path(path).stat().st_size
    if size > MAX_BYTES:
        report.skip(str(path), None, f"a {what} document of at most {MAX_BYTES} bytes (the "
                    "prov package reads it whole; PROV-JSON has no such limit)",
                    f"{size} bytes")
        return
    try:
        with warnings.catch_warnings(record=True) as dropped:
            warnings.simplefilter("always")
            document = ProvDocument.deserialize(source=str(path), format=prov_format)
    except Exception as exc:  # the prov package raises many kinds for invalid documents
        report.skip(str(path), None, f"a W3C {what} document", f"{type(exc).__name__}: {exc}")
        return
    for warning in dropped:  # what the package read past (a qualified name it cannot resolve)
        report.skip(str(path), None, f"a W3C {what} document the prov package reads whole",
                    str(warning.message))
    reader = Document(sha256_of(path), Path(path).name, report,
                      verified=trust.verified_file(path), role_of=declared_roles(document).get)
    yield from document_records(document, reader)
