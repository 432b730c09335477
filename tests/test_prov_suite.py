"""Every document of the prov package's own test suite (398 PROV-JSON documents written by its
authors to exercise every part of PROV: each element and relation, optional arguments left
out, multi-valued and typed attributes, bundles, namespaces) loads in strict mode, and its
export is a document the prov package finds equal to the original."""

from __future__ import annotations

import hashlib
import warnings
from pathlib import Path

from prov.model import ProvDocument

from lineage.model import prov as prov_rels

from .corpus import PROV_SUITE, needs_prov_suite

pytestmark = needs_prov_suite


def prov_document(path: Path, fmt: str = "json") -> ProvDocument:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the package reads them whole: nothing dropped
        return ProvDocument.deserialize(str(path), format=fmt)


def document_uid(path: Path) -> str:
    return "prov:document:" + hashlib.sha256(path.read_bytes()).hexdigest()


def test_every_document_loads_strict_and_exports_back_equal(lin, tmp_path):
    documents = sorted(PROV_SUITE.glob("*.json"))
    assert len(documents) == 398
    results = lin.load([PROV_SUITE])  # strict: a document it cannot hold would raise
    assert {r.status for r in results} == {"loaded"} and len(results) == 398
    assert not [r.path for r in results if r.report.get("skipped")]
    # all in one graph: documents naming the same URIs share nodes, yet each exports as itself
    differ = []
    for path in documents:
        out = lin.export(document_uid(path), tmp_path / f"{path.stem}.json")
        if prov_document(out) != prov_document(path):
            differ.append(path.name)
    assert differ == []
    # every PROV relation has its relationship type, each relation record its relationship
    types = {r["t"] for r in lin.query(
        "MATCH ()-[r]->() WHERE r.prov_record IS NOT NULL AND type(r) <> 'PART_OF' "
        "RETURN DISTINCT type(r) AS t")}
    assert types == {rel.name for rel in prov_rels.PROV_RELS}


def test_bundles_and_optional_ends_also_export_as_prov_n(lin, tmp_path):
    """PROV-N export of the documents that hold bundles and relations with ends left out:
    the prov package's PROV-N parser reads them back equal to the originals."""
    names = ["bundle1.json", "bundle2.json", "bundle3.json", "bundle4.json",
             "association1.json", "derivation1.json", "end1.json", "start4.json",
             "attr_entity_one_attr44.json", "scruffy-usage1-M.json", "member2.json"]
    lin.load([PROV_SUITE / name for name in names])
    for name in names:
        out = lin.export(document_uid(PROV_SUITE / name), tmp_path / f"{name}.provn",
                         fmt="prov-n")
        assert prov_document(out, "provn") == prov_document(PROV_SUITE / name), name
