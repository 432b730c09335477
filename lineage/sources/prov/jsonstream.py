"""A PROV-JSON document read record by record with ``ijson`` (the whole document is never in
memory): its prefixes, and each record with where it stands.

A document is a JSON object of sections (``prefix``, ``entity``, ``used``, ...,
``bundle``); a section maps record keys to a record (an object) or to several records of
one key (a list of objects); ``bundle`` maps bundle identifiers to objects of the same
sections. :func:`items` yields ``(bundle key or None, section, record key, record)``;
``want(bundle, section)`` says which records are built (the others are skipped unread).

>>> import io
>>> doc = b'{"prefix": {"ex": "http://e/"}, "entity": {"ex:a": {}, "ex:b": [{}, {"ex:n": 1}]}}'
>>> for item in items(io.BytesIO(doc)):
...     print(item)
(None, 'prefix', None, {'ex': 'http://e/'})
(None, 'entity', 'ex:a', {})
(None, 'entity', 'ex:b', {})
(None, 'entity', 'ex:b', {'ex:n': 1})
"""

from __future__ import annotations

from typing import BinaryIO, Callable, Iterator

#: The most characters (keys and strings) one record may hold: a record is built whole, so
#: this bounds the memory one record takes (about 30 bytes per character at worst).
MAX_RECORD_CHARS = 16 * 1024 * 1024


class Malformed(ValueError):
    """The document is not PROV-JSON's shape; ``where`` names the place."""

    def __init__(self, where: str, expected: str, found: str = ""):
        super().__init__(f"{where}: expected {expected}" + (f", found {found}" if found else ""))
        self.where, self.expected, self.found = where, expected, found


def _build(events: Iterator[tuple[str, object]], first: tuple[str, object], where: str):
    """The JSON value that starts with event ``first`` (its characters counted)."""
    event, value = first
    if event not in ("start_map", "start_array"):
        return value
    chars = 0
    stack: list = [{} if event == "start_map" else []]
    keys: list = [None]
    for event, value in events:
        if event == "map_key":
            chars += len(value)
            keys[-1] = value
            continue
        if event in ("start_map", "start_array"):
            item = {} if event == "start_map" else []
        elif event in ("end_map", "end_array"):
            item = stack.pop()
            keys.pop()
            if not stack:
                return item
            continue  # added to its container when it opened
        else:
            item = value
            if isinstance(value, str):
                chars += len(value)
        if chars > MAX_RECORD_CHARS:
            raise Malformed(where, f"a record of at most {MAX_RECORD_CHARS} characters",
                            "a larger one")
        container = stack[-1]
        if isinstance(container, dict):
            container[keys[-1]] = item
        else:
            container.append(item)
        if event in ("start_map", "start_array"):
            stack.append(item)
            keys.append(None)
    raise Malformed(where, "the end of the value", "the end of the file")


def _skip(events: Iterator[tuple[str, object]], first: tuple[str, object], where: str) -> None:
    """Read past the value that starts with ``first`` (its characters counted too: a record
    too large is found on any pass)."""
    if first[0] not in ("start_map", "start_array"):
        return
    depth, chars = 1, 0
    for event, value in events:
        if event in ("start_map", "start_array"):
            depth += 1
        elif event in ("end_map", "end_array"):
            depth -= 1
            if depth == 0:
                return
        elif isinstance(value, str):
            chars += len(value)
            if chars > MAX_RECORD_CHARS:
                raise Malformed(where, f"a record of at most {MAX_RECORD_CHARS} characters",
                                "a larger one")


def _expect_map(events, where: str) -> None:
    event, _ = next(events, ("end of file", None))
    if event != "start_map":
        raise Malformed(where, "a JSON object", event.replace("start_", "a JSON "))


def _sections(events, bundle: str | None, want) -> Iterator[tuple]:
    """The records of one container (the document, or a bundle's object), its opening
    ``{`` read already."""
    for event, section in events:
        if event == "end_map":
            return
        where = section if bundle is None else f"bundle {bundle!r}, {section}"
        if section == "prefix":
            yield bundle, "prefix", None, _build(events, next(events), where)
            continue
        if section == "bundle" and bundle is None:
            _expect_map(events, where)
            for event, key in events:
                if event == "end_map":
                    break
                _expect_map(events, f"bundle {key!r}")
                yield key, "bundle", None, None  # the bundle opens
                yield from _sections(events, key, want)
            continue
        _expect_map(events, where)
        for event, key in events:
            if event == "end_map":
                break
            first = next(events)
            if not want(bundle, section):
                _skip(events, first, f"{where} {key!r}")
                continue
            value = _build(events, first, f"{where} {key!r}")
            for one in value if isinstance(value, list) else [value]:
                yield bundle, section, key, one


def items(stream: BinaryIO, want: Callable[[str | None, str], bool] = lambda b, s: True
          ) -> Iterator[tuple]:
    """``(bundle key or None, section, record key, record)`` for every record of the
    document (a bundle's opening as ``(key, "bundle", None, None)``, a ``prefix`` section
    as ``(bundle, "prefix", None, {prefix: uri})``). Raises :class:`Malformed` (or
    ``ijson``'s ``JSONError``) where the document is not PROV-JSON's shape."""
    import ijson

    events = iter(ijson.basic_parse(stream, use_float=True))
    _expect_map(events, "the document")
    yield from _sections(events, None, want)
