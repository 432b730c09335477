"""W3C PROV-JSON documents (``*.json``, ``*.provjson``), read record by record: ``ijson``
streams the document (:mod:`.jsonstream`), the ``prov`` package decodes each record alone
(its typed values, language tags and qualified names), so memory holds one record, not the
document.

Three passes over the file, each streamed: the prefixes (the document's and each bundle's)
and the identifiers ``wasInfluencedBy`` names; when there are such identifiers, the kinds
the document declares them as (PROV does not type a ``wasInfluencedBy``'s ends); then the
records. Detected by a JSON object whose first key is a PROV-JSON section (``prefix``,
``entity``, ``used``, ``wasEndedBy``, ``bundle``, ...); tried after every other source's
formats.

>>> detect_provjson(Path("doc.json"), b'{"prefix": {"ex": "http://x/"}, "entity": {}}')
True
>>> detect_provjson(Path("doc.json"), b'{"mentionOf": {}}')
True
>>> detect_provjson(Path("run.json"), b'{"userT": {}, "xalt_run_uuid": "u"}')
False
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Iterator

from ...model.records import Record
from ..base import Format, LoadReport
from . import stored, trust
from .jsonstream import Malformed, items
from .mapping import Document, sha256_of
from .vocabulary import ELEMENT_KINDS, RELATION_TYPES

SECTIONS = {"prefix", "bundle", *ELEMENT_KINDS, *RELATION_TYPES}
_FIRST_KEY = re.compile(rb'^\s*\{\s*"([A-Za-z]+)"\s*:')
#: PROV-JSON records the prov package decodes at once (see :func:`_decoded`)
DECODE_BATCH = 500
#: prefixes every PROV document may use undeclared
_PREDEFINED = {"prov": "http://www.w3.org/ns/prov#", "xsd": "http://www.w3.org/2001/XMLSchema#"}


def detect_provjson(path: Path, head: bytes) -> bool:
    match = _FIRST_KEY.match(head)
    return bool(match) and match.group(1).decode() in SECTIONS


def _uri(name: object, prefixes: dict[str, str]) -> str | None:
    """The URI a qualified name in PROV-JSON text stands for (None: not one)."""
    if not isinstance(name, str):
        return None
    prefix, colon, local = name.partition(":")
    if not colon:
        return prefixes["default"] + name if "default" in prefixes else None
    base = prefixes.get(prefix) or _PREDEFINED.get(prefix)
    return base + local if base else None


def _prefixes_and_influences(path: Path) -> tuple[dict, set[str]]:
    """The prefixes of the document (key None) and of each bundle, and the URIs the
    ``wasInfluencedBy`` records name."""
    prefixes: dict[str | None, dict] = {None: {}}
    ends: list[tuple[str | None, object]] = []
    with open(path, "rb") as fh:
        for bundle, section, _, body in items(fh, lambda b, s: s == "wasInfluencedBy"):
            if section == "prefix":
                if not isinstance(body, dict):
                    raise Malformed("prefix" if bundle is None else f"bundle {bundle!r} prefix",
                                    "an object of prefixes", type(body).__name__)
                prefixes.setdefault(bundle, {}).update(body)
            elif section == "wasInfluencedBy" and isinstance(body, dict):
                ends += [(bundle, body.get(k)) for k in ("prov:influencee", "prov:influencer")]
    uris = {_uri(name, _scope(prefixes, bundle)) for bundle, name in ends}
    return prefixes, uris - {None}


def _scope(prefixes: dict, bundle: str | None) -> dict[str, str]:
    return {**prefixes[None], **(prefixes.get(bundle) or {})} if bundle else prefixes[None]


def _declared_roles(path: Path, prefixes: dict, wanted: set[str]) -> dict:
    """The kind the document declares each of the ``wanted`` URIs as (the first wins)."""
    roles: dict = {}
    with open(path, "rb") as fh:
        for bundle, section, key, _ in items(fh, lambda b, s: s in ELEMENT_KINDS):
            if section in ELEMENT_KINDS:
                uri = _uri(key, _scope(prefixes, bundle))
                if uri in wanted:
                    roles.setdefault(uri, ELEMENT_KINDS[section])
    return roles


def _records_of(text: str) -> list[tuple[object, str]]:
    """The ``prov`` records of one PROV-JSON record with their stored forms (several when it
    gives a formal argument several values); ValueError naming what the package could not
    read or dropped."""
    try:
        with warnings.catch_warnings(record=True) as dropped:
            warnings.simplefilter("always")
            records = stored.records_of(text)
            pairs = ([(records[0], text)] if len(records) == 1
                     else [(record, stored.from_record(record)) for record in records])
    except Exception as exc:  # the prov package raises many kinds for invalid records
        raise ValueError(f"{type(exc).__name__}: {exc}") from None
    if dropped:
        raise ValueError("; ".join(str(w.message) for w in dropped))
    return pairs


def parse_provjson(path: Path, report: LoadReport) -> Iterator[Record]:
    from prov.model import ProvDocument

    from ijson import JSONError

    try:
        prefixes, influenced = _prefixes_and_influences(path)
        roles = _declared_roles(path, prefixes, influenced) if influenced else {}
    except (Malformed, JSONError, UnicodeDecodeError) as exc:
        report.skip(str(path), None, "a W3C PROV-JSON document", f"{type(exc).__name__}: {exc}")
        return
    top = ProvDocument()  # resolves bundle identifiers with the document's prefixes
    for prefix, uri in prefixes[None].items():
        if prefix == "default":
            top.set_default_namespace(uri)
        else:
            top.add_namespace(prefix, uri)
    reader = Document(sha256_of(path), Path(path).name, report,
                      verified=trust.verified_file(path), role_of=roles.get)
    try:
        yield from _records(path, report, reader, top, prefixes)
    except (Malformed, JSONError) as exc:  # the file changed between the passes
        report.skip(str(path), None, "a W3C PROV-JSON document", f"{type(exc).__name__}: {exc}")
        return
    reader.finish()


def _records(path: Path, report: LoadReport, reader: Document, top, prefixes: dict
             ) -> Iterator[Record]:
    """The third pass: every record, decoded a batch at a time, mapped."""
    bundles: dict[str, object] = {}
    pending: list[tuple] = []
    pending_scope = None

    def flush() -> Iterator[Record]:
        for where, found, text in _decoded(pending, _scope(prefixes, pending_scope)):
            if isinstance(found, ValueError):
                report.skip(str(path), where, "a W3C PROV-JSON record", str(found))
                continue
            yield from reader.records(found, bundles.get(pending_scope), lambda t=text: t, where)
        pending.clear()

    with open(path, "rb") as fh:
        for bundle, section, key, body in items(fh):
            if bundle is not None and bundle not in bundles:
                bundles[bundle] = top.valid_qualified_name(bundle)
                if bundles[bundle] is None:
                    report.skip(str(path), f"bundle {bundle!r}",
                                "a bundle named by a qualified name of a declared prefix")
            if section == "prefix" or (bundle is not None and bundles[bundle] is None):
                continue
            if bundle != pending_scope or len(pending) >= DECODE_BATCH:
                yield from flush()
                pending_scope = bundle
            if section == "bundle":
                yield from reader.bundle(bundles[bundle])
                continue
            where = f"{section} {key!r}" if bundle is None else \
                f"bundle {bundle!r}, {section} {key!r}"
            pending.append((section, key, body, where,
                            stored.from_json(section, key, body, _scope(prefixes, bundle))))
        yield from flush()


def _decoded(pending: list[tuple], prefixes: dict) -> Iterator[tuple]:
    """``(where, record or ValueError, stored form)`` for each pending ``(section, key, body,
    where, stored form)``: decoded by the ``prov`` package as one document (a record alone
    costs it twice as much); when that fails, warns, or gives other than one record each,
    one by one again, so each problem is named where it is."""
    from prov.model import ProvDocument
    from prov.serializers.provjson import decode_json_container

    container: dict = {}
    order: list[int] = []
    slots: dict[tuple[str, str], list[int]] = {}
    for n, (section, key, body, _, _) in enumerate(pending):
        key = f"_:b{n}" if key.startswith("_:") else key
        slots.setdefault((section, key), []).append(n)
        entries = container.setdefault(section, {})
        entries[key] = [*entries[key], body] if key in entries else [body]
    for section, entries in container.items():
        for key in entries:
            order += slots[section, key]
    try:
        with warnings.catch_warnings(record=True) as dropped:
            warnings.simplefilter("always")
            document = ProvDocument()
            decode_json_container({**container, "prefix": dict(prefixes)}, document)
            records = document.get_records()
        whole = not dropped and len(records) == len(order)
    except Exception:  # the prov package raises many kinds for invalid records
        whole = False
    if whole:
        for n, record in zip(order, records):
            yield pending[n][3], record, pending[n][4]
        return
    for _, _, _, where, text in pending:
        try:
            for record, one in _records_of(text):
                yield where, record, one
        except ValueError as exc:
            yield where, exc, text


FORMATS = [
    Format("prov-json", "prov", detect_provjson, parse_provjson,
           description="W3C PROV-JSON documents (another tool's provenance, lineage export)",
           fallback=True, agree=True),
]
