"""XALT JSON record files (``run.*.json``, ``link.*.json``, ``pkg.*.json``) into lineage
records, plus the registry entries of both XALT formats (files and syslog).

XALT writes each record to its own file: ``run.<syshost>.<date>.<user>.<aaa|zzz>.<uuid>.json``
(older versions leave out the user), ``link.<syshost>.<date>.<uuid>.json`` and
``pkg.<syshost>.<date>.<user>.<run uuid>.<id>.json``. A directory tree of them loads with
``lineage load DIR``. The kind of a record is read from its keys, not from its name.

How bad input is handled: a file that is not JSON, or JSON that is not a run, link or pkg
record, is malformed (an error, or skipped and counted with ``--lenient``). A crc that does
not match is *reported*, not fatal, in both modes: a warning, the ``crc_bad`` counter and
``crc_status = 'bad'`` on the node; XALT's own loaders do not reject such records either,
and a record re-serialized by a tool (pretty-printed, say) keeps a crc that no longer fits.

The environment is kept as the JSON property ``env`` of the execution, as
the load's ``xalt_env`` option (``lineage load --env``) says: ``filtered`` (default: values
of secret-looking names such as ``*TOKEN*``, ``*PASSWORD*``, ``*SECRET*``, ``*KEY*``
redacted), ``all`` or ``none``.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> f = d / "pkg.s2.2020_01_01.alice.u1.abc.json"
>>> _ = f.write_text('{"program":"python","xalt_run_uuid":"u1","package_name":"numpy"}')
>>> detect_json(f, f.read_bytes())
True
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

from ...model.records import Record
from ..base import Format, LoadReport
from .mapping import file_kind, record_to_graph
from .syslog import detect_syslog, parse_syslog

MAX_RECORD_BYTES = 256 * 1024 * 1024  # one XALT record file; larger is not a record
_KEY_MARKERS = (
    (b'"resultT"', b'"linkA"'),
    (b'"resultT"', b'"link_line"'),
    (b'"userT"', b'"userDT"'),
    (b'"userT"', b'"cmdlineA"'),
    (b'"xalt_run_uuid"', b'"package_name"'),
    (b'"userT"', b'"xaltLinkT"'),        # XALT 0.x run records (no userDT, no cmdlineA)
    (b'"linkA"', b'"build_epoch"'),      # XALT 0.x flat link records (no resultT)
)


def detect_json(path: Path, head: bytes) -> bool:
    """A JSON object whose keys are an XALT record's, or an XALT file name with a JSON
    object in it. Chimbuko and other JSON files carry none of these keys."""
    body = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not body.startswith(b"{"):
        return False
    if body.startswith(b'{"crc":"0x') and file_kind(path):
        return True
    if any(a in head and b in head for a, b in _KEY_MARKERS):
        return True
    # a run record's envT can push userT past the first 64 KiB: trust the XALT file name
    return file_kind(path) == "run" and (b'"envT"' in head or b'"cmdlineA"' in head
                                         or b'"XALT_measureT"' in head)


def parse_json(path: Path, report: LoadReport) -> Iterator[Record]:
    """One XALT record file (a JSON object; a JSON array of records is also read)."""
    size = path.stat().st_size
    if size > MAX_RECORD_BYTES:
        report.skip(str(path), None, f"an XALT record file under {MAX_RECORD_BYTES} bytes",
                    f"{size} bytes")
        return
    raw = path.read_bytes()
    text = raw.decode("utf-8", errors="surrogateescape")
    try:
        value = json.loads(text)
    except RecursionError:  # thousands of nested brackets: no XALT record nests so deep
        report.skip(str(path), None, "a JSON XALT record nested a few levels deep", "deeper")
        return
    except ValueError as exc:
        report.skip(str(path), f"byte {getattr(exc, 'pos', '?')}", "a JSON XALT record",
                    str(exc)[:200])
        return
    if isinstance(value, list):  # records gathered into one array by some tool
        for i, rec in enumerate(value, 1):
            yield from record_to_graph(rec, None, report, f"record {i}")
        return
    yield from record_to_graph(value, raw, report, "record")


FORMATS = [
    Format(
        name="xalt-json",
        source="xalt",
        detect=detect_json,
        parse=parse_json,
        description="XALT run / link / pkg JSON record files (as XALT's file transmission "
                    "writes them)",
    ),
    Format(
        name="xalt-syslog",
        source="xalt",
        detect=detect_syslog,
        parse=parse_syslog,
        description="XALT records sent through syslog (XALT_LOGGING_<syshost> lines, V:1-4, "
                    "plain or zlib+base64 chunks)",
    ),
]
