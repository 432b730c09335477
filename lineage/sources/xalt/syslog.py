"""XALT records sent through syslog: ``XALT_LOGGING_<syshost>`` lines carrying a record in
chunks, reassembled by key and index (in any order) and decoded.

What XALT's ``transmit`` writes, by interface version (``V:n`` after the tag):

- ``V:4``: ``V:4 kind:run syshost:s2 key:run_strt_<uuid> crcStr:0xABCD nb:02 idx:00 value:<text>``
- ``V:3``: ``V:3 kind:run idx:0 nb:2 syshost:s2 key:run_strt_<uuid> value:<text>`` (no crc)
- ``V:2``: like V:3, but the record is zlib-compressed and base64-encoded before it is cut
- no ``V:`` (syslogv1): ``run:<base64 record>`` in one line (``kind:syshost:base64`` in
  some versions)

Chunks of one record share ``key`` (and ``crcStr``); they are joined in ``idx`` order once
all ``nb`` have arrived. Syslog drops trailing blanks, so a chunk shorter than its siblings
(other than the last) is padded back with spaces, as XALT's own ``xalt_syslog_to_db`` does.
Records still missing chunks at the end of the file are reported (a warning each and the
``incomplete_records`` counter), not loaded: when a record straddles a log rotation,
concatenate the files and load the result. Other lines are ignored and counted.

A damaged line or record (a chunk line without its fields, a V:2 payload that does not
inflate or inflates past the cap, broken JSON, a run record without its uuid, an unknown
record kind) is skipped, counted and warned about with its line, in strict mode too: XALT's
own ``xalt_syslog_to_db`` skips it, and the syslog's other records are whole. Only a cut-short
last line stops a strict load (the file is still being written).

>>> from lineage.sources.base import LoadReport
>>> rec = '{"program":"R","xalt_run_uuid":"u9","package_name":"dplyr"}'
>>> lines = [f"Jan 1 00:00:00 n1 XALT_LOGGING_s2: V:3 kind:pkg idx:1 nb:2 syshost:s2 "
...          f"key:pkg_u9 value:{rec[30:]}",
...          f"Jan 1 00:00:00 n1 XALT_LOGGING_s2: V:3 kind:pkg idx:0 nb:2 syshost:s2 "
...          f"key:pkg_u9 value:{rec[:30]}"]
>>> r = LoadReport("syslog", "xalt-syslog")
>>> [x.uid for x in parse_syslog_lines(lines, r) if hasattr(x, "uid")]
['xalt:package:R:dplyr', 'xalt:run:u9']
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from ...model.records import Record
from ..base import LoadReport
from ..lines import bounded_lines
from .mapping import record_to_graph

TAG = "XALT_LOGGING"
_VERSION = re.compile(r"(?:^|[\s:])V:(\d+)(?=\s)")
_V1_KIND = re.compile(r"\b(run|link|pkg):")
MAX_LINE = 1 << 20  # a syslog line longer than this is not XALT's
_REMEMBER_DONE = 100_000
_MAX_INCOMPLETE_WARNINGS = 20


def detect_syslog(path: Path, head: bytes) -> bool:
    """A text file with ``XALT_LOGGING`` lines (a syslog file, or a slice of one)."""
    if head.lstrip().startswith((b"{", b"[")):
        return False
    for line in head.splitlines()[:2000]:
        if TAG.encode() in line and (b" V:" in line or re.search(rb"(run|link|pkg):", line)):
            return True
    return False


#: Largest record a compressed XALT record may inflate to (real run records are a few
#: hundred KB; a zlib bomb of 680 KB inflates to 1.65 GB).
MAX_INFLATED = 64 * 1024 * 1024


def inflate(data: bytes, limit: int = MAX_INFLATED) -> bytes:
    """zlib-decompress ``data``, refusing (``ValueError``) to produce more than ``limit`` bytes.

    >>> inflate(zlib.compress(b"x" * 10))
    b'xxxxxxxxxx'
    >>> inflate(zlib.compress(b"x" * 1000), limit=100)
    Traceback (most recent call last):
    ...
    ValueError: a compressed record inflating to more than 100 bytes (a zlib bomb?)
    """
    inflater, out, tail = zlib.decompressobj(), bytearray(), data
    while tail and not inflater.eof:
        out += inflater.decompress(tail, 1 << 20)  # a MiB at a time: never far past the cap
        tail = inflater.unconsumed_tail
        if len(out) > limit:
            raise ValueError(f"a compressed record inflating to more than {limit} bytes "
                             "(a zlib bomb?)")
    return bytes(out + inflater.flush())


@dataclass
class _Partial:
    """The chunks of one record seen so far."""

    nb: int
    version: int
    first_line: int
    chunks: dict[int, str] = field(default_factory=dict)


class _Assembler:
    """Collects chunks by (syshost, key, crc) and yields records as they complete."""

    def __init__(self, report: LoadReport):
        self.report = report
        self.partial: dict[tuple[str, str, str], _Partial] = {}
        self.done: OrderedDict[tuple[str, str, str], None] = OrderedDict()
        self.counts = report.extra.setdefault("xalt_syslog", {})

    def count(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n

    # -------------------------------------------------------- one line
    def line(self, text: str, lineno: int) -> Iterator[Record]:
        at = text.find(TAG)
        if at < 0:
            self.count("other_lines")
            return
        if text.startswith(TAG + "_ERROR", at):
            self.report.unknown_item("XALT_LOGGING_ERROR line")
            return
        text = text.rstrip("\r\n")
        after_tag = text[at + len(TAG):]
        host_from_tag = re.match(r"_([^\s:\[]+)", after_tag)
        version = _VERSION.search(after_tag)
        if version is None:
            yield from self.v1(after_tag, lineno)
            return
        self.count("chunk_lines")
        rest = after_tag[version.end():]
        cut = rest.find("value:")
        if cut < 0:
            self.skip(lineno, "a 'value:' field in an XALT_LOGGING line", text[:200])
            return
        value = rest[cut + len("value:"):]
        fields: dict[str, str] = {}
        for token in rest[:cut].split():
            name, sep, val = token.partition(":")
            if sep:
                fields[name] = val
        try:
            idx, nb = int(fields["idx"]), int(fields["nb"])
            key = fields["key"]
        except (KeyError, ValueError):
            self.skip(lineno, "key, idx and nb fields (integers)", rest[:cut][:200])
            return
        if not 0 <= idx < nb:
            self.skip(lineno, "0 <= idx < nb", f"idx {idx}, nb {nb}")
            return
        syshost = fields.get("syshost") or (host_from_tag.group(1) if host_from_tag else "")
        ident = (syshost, key, fields.get("crcStr", fields.get("crc", "")))
        if ident in self.done:
            self.count("duplicate_chunks")
            return
        part = self.partial.get(ident)
        if part is None:
            part = self.partial[ident] = _Partial(nb, int(version.group(1)), lineno)
        elif part.nb != nb:
            self.skip(lineno, f"nb:{part.nb} like the record's other chunks (key {key})",
                      f"nb:{nb}")
            return
        if idx in part.chunks:
            self.count("duplicate_chunks")
            if part.chunks[idx] != value:
                self.report.warn(f"{self.report.path}:{lineno}: chunk {idx} of {key} seen twice "
                                 f"with different text; the first is kept")
            return
        part.chunks[idx] = value
        if len(part.chunks) == nb:
            del self.partial[ident]
            self.remember(ident)
            yield from self.complete(ident, part)

    def skip(self, where: int | str, expected: str, found: str = "") -> None:
        """One damaged line or record: skipped and counted, strict too (the other records
        of the syslog are whole; XALT's own loader skips it as well)."""
        self.report.skip_record(self.report.path, where, expected, found)

    def remember(self, ident: tuple[str, str, str]) -> None:
        self.done[ident] = None
        if len(self.done) > _REMEMBER_DONE:
            for _ in range(_REMEMBER_DONE // 2):
                self.done.popitem(last=False)

    # -------------------------------------------------------- a whole record
    def complete(self, ident: tuple[str, str, str], part: _Partial) -> Iterator[Record]:
        chunks = [part.chunks[i] for i in range(part.nb)]
        where = f"line {part.first_line} (key {ident[1]})"
        if part.version == 2:
            try:
                text = inflate(base64.b64decode("".join(chunks))).decode(
                    "utf-8", errors="surrogateescape")
            except (binascii.Error, zlib.error, ValueError) as exc:
                self.skip(where, "a zlib-compressed, base64-encoded XALT record (V:2)",
                          str(exc)[:200])
                return
            self.count("compressed_records")
        else:
            if part.nb > 1:  # syslog drops trailing blanks: pad inner chunks back
                width = max(len(c) for c in chunks[:-1])
                chunks = [c.ljust(width) for c in chunks[:-1]] + [chunks[-1]]
            text = "".join(chunks)
        yield from self.decode(text, where)

    def decode(self, text: str, where: str) -> Iterator[Record]:
        try:
            value = json.loads(text)
        except RecursionError:  # nested thousands deep: damaged, skipped like one
            self.skip(where, "a JSON XALT record nested a few levels deep", "deeper")
            return
        except ValueError as exc:  # one damaged record: XALT's loader skips it too
            self.skip(where, "a JSON XALT record", str(exc)[:200])
            return
        self.count("records")
        raw = text.encode("utf-8", errors="surrogateescape")
        yield from record_to_graph(value, raw, self.report, where, one_of_many=True)

    def v1(self, after_tag: str, lineno: int) -> Iterator[Record]:
        """``syslogv1``: a whole record in one line, base64 (sometimes ``kind:host:b64``)."""
        m = _V1_KIND.search(after_tag)
        if m is None:
            self.skip(lineno, "'V:n' or 'run:'/'link:'/'pkg:' after XALT_LOGGING",
                      after_tag[:200])
            return
        payload = after_tag[m.end():].strip()
        self.count("v1_lines")
        if payload.startswith("{"):
            yield from self.decode(payload, f"line {lineno}")
            return
        data = payload.rsplit(":", 1)[-1]
        try:
            raw = base64.b64decode(data)
            try:
                raw = inflate(raw)
            except zlib.error:
                pass
            text = raw.decode("utf-8", errors="surrogateescape")
        except (binascii.Error, ValueError) as exc:
            self.skip(lineno, "a base64 XALT record (syslogv1)", str(exc)[:200])
            return
        yield from self.decode(text, f"line {lineno}")

    # -------------------------------------------------------- end of input
    def finish(self) -> None:
        self.counts["incomplete_records"] = len(self.partial)
        for n, ((host, key, crc), part) in enumerate(sorted(self.partial.items(),
                                                            key=lambda kv: kv[1].first_line)):
            if n >= _MAX_INCOMPLETE_WARNINGS:
                self.report.warn(f"{self.report.path}: ... and {len(self.partial) - n} more "
                                 f"incomplete XALT records")
                break
            missing = [i for i in range(part.nb) if i not in part.chunks]
            self.report.warn(
                f"{self.report.path}:{part.first_line}: incomplete XALT record key {key} "
                f"(syshost {host}{', crc ' + crc if crc else ''}): has {len(part.chunks)} of "
                f"{part.nb} chunks, missing idx {missing[:20]}; not loaded")


def parse_syslog_lines(lines: Iterable[str], report: LoadReport) -> Iterator[Record]:
    """Records from syslog lines (already decoded text)."""
    stream = SyslogStream()
    yield from stream.records(enumerate(lines, 1), report, report.path)
    if stream.assembler is not None:
        stream.assembler.finish()
    else:
        _Assembler(report).finish()


class SyslogStream:
    """A syslog file read piece by piece (``lineage watch``: the lines it grew by): the
    chunks of a record still missing some wait for the next pieces, so a record cut across
    two increments is loaded whole by the one that completes it.

    >>> rec = '{"program":"R","xalt_run_uuid":"u9","package_name":"dplyr"}'
    >>> head = "Jan 1 00:00:00 n1 XALT_LOGGING_s2: V:3 kind:pkg syshost:s2 key:pkg_u9 nb:2 "
    >>> stream = SyslogStream()
    >>> list(stream.records([(1, head + f"idx:0 value:{rec[:30]}")], LoadReport("s", "x"), "s"))
    []
    >>> [x.uid for x in stream.records([(2, head + f"idx:1 value:{rec[30:]}")],
    ...                                 LoadReport("s", "x"), "s") if hasattr(x, "uid")]
    ['xalt:package:R:dplyr', 'xalt:run:u9']
    """

    def __init__(self) -> None:
        self.assembler: _Assembler | None = None

    def records(self, lines: Iterable[tuple[int, str]], report: LoadReport,
                path: str) -> Iterator[Record]:
        """The records the next lines complete (``(line number, text)`` pairs)."""
        if self.assembler is None:
            self.assembler = _Assembler(report)
        assembler = self.assembler
        assembler.report = report
        assembler.counts = report.extra.setdefault("xalt_syslog", {})
        for lineno, line in lines:
            if len(line) > MAX_LINE:
                report.skip(report.path, lineno, f"a syslog line under {MAX_LINE} characters",
                            f"{len(line)} characters")
                continue
            yield from assembler.line(line, lineno)


def parse_syslog(path: Path, report: LoadReport) -> Iterator[Record]:
    """A syslog file, streamed line by line (undecodable bytes survive as ``\\xNN``)."""
    lines = bounded_lines(Path(path), report, MAX_LINE, errors="surrogateescape")
    yield from parse_syslog_lines(lines, report)
