"""One PROV record as the graph keeps it: a PROV-JSON document holding that record alone,
with the prefixes it uses, so its typed values, language tags and qualified names come back
exactly; and its digest, which keys its relationship.

>>> text = from_json("entity", "ex:e1", {"ex:size": 3},
...                  {"ex": "http://example.org/", "foaf": "http://xmlns.com/foaf/0.1/"})
>>> text
'{"prefix":{"ex":"http://example.org/"},"entity":{"ex:e1":{"ex:size":3}}}'
>>> record = record_of(text)
>>> str(record.identifier), record.identifier.uri
('ex:e1', 'http://example.org/e1')
>>> len(digest(None, text)), digest(None, text) != digest("http://example.org/b", text)
(32, True)
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

#: The key a relation without an identifier gets in its stored document (PROV-JSON's blank
#: ``_:`` keys name nothing: two documents' ``_:u1`` and ``_:id7`` of one relation agree).
BLANK = "_:r"


#: the prefix of a qualified name that begins a JSON string (a key or a value)
_PREFIXED = re.compile(r'"([^"\\:\s]+):')


def from_json(section: str, key: str, body: Any, prefixes: dict[str, str]) -> str:
    """The stored form of one record as PROV-JSON states it: its section (``entity``,
    ``used``, ...), its key, its body, and the prefixes declared where it stands (only
    those it uses are kept, and ``default``)."""
    if key.startswith("_:"):
        key = BLANK
    record = json.dumps({section: {key: body}}, sort_keys=True, separators=(",", ":"),
                        ensure_ascii=False)
    used = set(_PREFIXED.findall(record))
    kept = {p: uri for p, uri in prefixes.items() if p in used or p == "default"}
    return ('{"prefix":' + json.dumps(kept, sort_keys=True, separators=(",", ":"),
                                      ensure_ascii=False) + "," + record[1:])


def from_record(record) -> str:
    """The stored form of a ``prov`` record (read from PROV-N or PROV-XML), encoded by the
    ``prov`` package in a document of its own with its bundle's namespaces."""
    from prov.model import ProvDocument
    from prov.serializers.provjson import encode_json_document

    bundle = record.bundle
    alone = ProvDocument()
    for source in (getattr(bundle, "document", None), bundle):
        if source is not None:
            for namespace in source.namespaces:
                alone.add_namespace(namespace)
            if source.default_ns_uri:
                alone.set_default_namespace(source.default_ns_uri)
    alone.add_record(record)
    encoded = encode_json_document(alone)
    prefixes = encoded.pop("prefix", {})
    [(section, entries)] = encoded.items()
    [(key, body)] = entries.items()
    return from_json(section, key, body, prefixes)


def records_of(text: str) -> list:
    """The ``prov`` records a PROV-JSON text holds (in a document of their own): one for a
    stored form; several for a record PROV-JSON gives several values of a formal argument
    (a ``hadMember`` of two entities is two memberships)."""
    from prov.model import ProvDocument
    from prov.serializers.provjson import decode_json_document

    document = ProvDocument()
    decode_json_document(json.loads(text), document)
    return document.get_records()


def record_of(text: str):
    """The ``prov`` record a stored form holds."""
    [record] = records_of(text)
    return record


def digest(scope: str | None, text: str) -> str:
    """What tells one stored record from another in the graph: 128 bits of the SHA-256 of
    its bundle (None: the document's top level) and its stored form."""
    return hashlib.sha256(f"{scope or ''}\n{text}".encode("utf-8", "surrogatepass")
                          ).hexdigest()[:32]
