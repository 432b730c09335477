"""PROV-JSON and PROV-N documents written as the rows stream in (memory holds one batch):
each batch of records is encoded by the ``prov`` package (:mod:`.export`) and its entries
spooled on disk, by bundle and section; the document is assembled from the spool at the end
(a JSON object's sections, and a document's prefixes, cannot be interleaved). An export of
nodes of this project's own kinds alone is signed (:mod:`.trust`), so ``lineage load``
reads it back as those nodes.

PROV-N statements are written as the package writes each record, byte for byte (a value's
blank lines and lines that begin with ``prefix`` stay what they are).

>>> import tempfile, os, prov.model
>>> path = os.path.join(tempfile.mkdtemp(), "x.provn")
>>> write_prov_n([{"uid": "host:a", "kind": "Host", "properties": {"name": "a\\n\\nprefix b"}}],
...              [], path)
>>> text = prov.model.ProvDocument.deserialize(path, format="provn").get_records()[0]
>>> [v for k, v in text.attributes if str(k) == "lineage:name"]
['a\\n\\nprefix b']
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from pathlib import Path
from typing import Iterable

from ...errors import LineageError
from . import trust
from .export import Records, write_all


class _Spool:
    """Entries ``(bundle URI or "", section, key, text)`` on disk, read back grouped."""

    def __init__(self, directory: str):
        self.db = sqlite3.connect(Path(directory) / "spool.db")
        self.db.execute("CREATE TABLE entry (scope TEXT, section TEXT, seq INTEGER PRIMARY KEY, "
                        "key TEXT, value TEXT)")
        self.db.execute("CREATE INDEX entry_place ON entry (scope, section, seq)")
        self.scopes: dict[str, None] = {}
        self.blank = 0

    def add(self, scope: str, section: str, key: str, value: str) -> None:
        self.scopes.setdefault(scope, None)
        if key.startswith("_:"):  # relations' blank keys, unique across batches
            self.blank += 1
            key = f"_:id{self.blank}"
        self.db.execute("INSERT INTO entry (scope, section, key, value) VALUES (?, ?, ?, ?)",
                        (scope, section, key, value))

    def sections(self, scope: str) -> list[str]:
        return [s for (s,) in self.db.execute(
            "SELECT DISTINCT section FROM entry WHERE scope = ? ORDER BY section", (scope,))]

    def entries(self, scope: str, section: str | None = None):
        if section is None:
            return self.db.execute("SELECT key, value FROM entry WHERE scope = ? ORDER BY seq",
                                   (scope,))
        return self.db.execute("SELECT key, value FROM entry WHERE scope = ? AND section = ? "
                               "ORDER BY seq", (scope, section))

    def close(self) -> None:
        self.db.close()


def _sign(out, path: str | Path, records: Records, mark) -> None:
    """End ``out`` (open on ``path``) with the signature of everything written so far, when
    the export is signed (:func:`_signed`)."""
    if _signed(records):
        secret = trust.key(create=True)
        if secret is None:
            raise LineageError(f"{trust.key_path()}: the export key is damaged (expected 64 "
                               "hex digits): move it away to make a new one (exports signed "
                               "with it will then read back as another tool's documents)")
        out.flush()
        out.write(mark(trust.sign(secret, path=path)))


def write_prov_json(nodes: Iterable[dict], edges: Iterable[dict], path: str | Path,
                    roots: Iterable[str] = ()) -> None:
    """PROV-JSON, streamed. Relations get document-wide ``_:idN`` keys."""
    from prov.serializers.provjson import encode_json_document

    with tempfile.TemporaryDirectory(prefix="lineage-export-") as spool_dir:
        spool = _Spool(spool_dir)

        def emit(doc) -> None:
            encoded = encode_json_document(doc)
            bundles = encoded.pop("bundle", {})
            containers = [("", encoded)] + [(b.identifier.uri, bundles.get(str(b.identifier), {}))
                                            for b in doc.bundles]
            for scope, container in containers:
                spool.scopes.setdefault(scope, None)
                for section, entries in container.items():
                    if section != "prefix":
                        for key, value in entries.items():
                            spool.add(scope, section, key, json.dumps(value, ensure_ascii=False))

        records = Records(emit, roots)
        try:
            write_all(records, nodes, edges)
            with open(path, "w", encoding="utf-8") as out:
                _json_document(out, spool, records)
                _sign(out, path, records, trust.json_signature)
                out.write(trust.JSON_END)
        finally:
            spool.close()


def _signed(records: Records) -> bool:
    """Whether an export is signed: it holds nodes of our kinds and nothing imported (an
    imported record could spell ``lineage:kind``: signing it would vouch for it)."""
    return records.ours and not records.imported


def _entries(out, rows) -> int:
    """Write ``"key": value`` entries one by one; how many."""
    n = 0
    for key, value in rows:
        out.write(("" if n == 0 else ",\n") + f"{json.dumps(key, ensure_ascii=False)}: {value}")
        n += 1
    return n


def _section(out, name: str, rows) -> None:
    out.write(f", {json.dumps(name)}: {{\n")
    _entries(out, rows)
    out.write("}")


def _json_document(out, spool: _Spool, records: Records) -> None:
    """Everything but the end of the top level's ``entity`` section, which comes last (a
    signature ends it)."""
    def prefixes(scope: str | None) -> str:
        return json.dumps(records.namespaces.get(scope, {}), ensure_ascii=False)

    out.write('{"prefix": ' + prefixes(None))
    for section in spool.sections(""):
        if section != "entity":
            _section(out, section, spool.entries("", section))
    bundles = [scope for scope in spool.scopes if scope]
    if bundles:
        out.write(', "bundle": {')
        for n, scope in enumerate(bundles):
            name = records.bundle_names.get(scope, scope)
            out.write(("," if n else "") + f"\n{json.dumps(name, ensure_ascii=False)}: "
                      f'{{"prefix": {prefixes(scope)}')
            for section in spool.sections(scope):
                _section(out, section, spool.entries(scope, section))
            out.write("}")
        out.write("}")
    out.write(', "entity": {\n')
    if _entries(out, spool.entries("", "entity")) and _signed(records):
        out.write(",\n")


def write_prov_n(nodes: Iterable[dict], edges: Iterable[dict], path: str | Path,
                 roots: Iterable[str] = ()) -> None:
    """PROV-N, streamed: each record as the ``prov`` package writes it."""
    with tempfile.TemporaryDirectory(prefix="lineage-export-") as spool_dir:
        spool = _Spool(spool_dir)

        def emit(doc) -> None:
            for scope, bundle in [("", doc), *((b.identifier.uri, b) for b in doc.bundles)]:
                spool.scopes.setdefault(scope, None)
                for record in bundle.get_records():
                    spool.add(scope, "", "", record.get_provn())

        records = Records(emit, roots)
        try:
            write_all(records, nodes, edges)
            with open(path, "w", encoding="utf-8") as out:
                out.write("document\n" + _provn_prefixes(records.namespaces.get(None, {}), 1)
                          + "\n")
                for _, statement in spool.entries(""):
                    out.write(f"  {statement}\n")
                for scope in [s for s in spool.scopes if s]:
                    out.write(f"  bundle {records.bundle_names.get(scope, scope)}\n"
                              + _provn_prefixes(records.namespaces.get(scope, {}), 2) + "\n")
                    for _, statement in spool.entries(scope):
                        out.write(f"    {statement}\n")
                    out.write("  endBundle\n")
                _sign(out, path, records, trust.provn_signature)
                out.write(trust.PROVN_END)
        finally:
            spool.close()


def _provn_prefixes(namespaces: dict[str, str], level: int) -> str:
    indent = "  " * level
    return "".join(f"{indent}default <{uri}>\n" if prefix == "default"
                   else f"{indent}prefix {prefix} <{uri}>\n"
                   for prefix, uri in namespaces.items())
