"""What every loader shares: the format registry entry and the per-file load report.

A loader module exposes ``FORMATS``, a list of :class:`Format`. A format's ``parse`` reads
one input and yields :class:`~lineage.model.records.Node` and :class:`~lineage.model.records.Edge`
records; it never touches Neo4j. Malformed input raises :class:`~lineage.errors.ParseError`
unless ``report.lenient`` is set, in which case the bad line or record is skipped and
counted with :meth:`LoadReport.skip`.

>>> r = LoadReport("x.bp", "pegasus-bp", lenient=True)
>>> r.skip("x.bp", 3, "a key=value pair", "garbage")
>>> dict(r.skipped)
{'expected a key=value pair': 1}
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from .options import LoadOptions
from ..errors import ParseError
from ..model.records import Record

MAX_MESSAGES = 50


@dataclass
class LoadReport:
    """What happened while reading one input: skipped, unknown and inconsistent items."""

    path: str
    format: str
    lenient: bool = False
    skipped: Counter = field(default_factory=Counter)
    unknown: Counter = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)
    warning_count: int = 0
    extra: dict = field(default_factory=dict)  # format-specific counters (e.g. events)
    #: the load's options (the parsers' load context); ``lenient`` above follows them
    options: LoadOptions = field(default_factory=LoadOptions)
    #: what a reader remembers across the records of one input (never in the summary)
    state: dict = field(default_factory=dict, repr=False)
    #: bytes of the input read so far (line readers keep it; for the progress bar)
    bytes_read: int = 0
    #: called as ``on_progress(records, bytes_read)`` while the input is read (see :meth:`tick`)
    on_progress: Callable[[int, int], None] | None = field(default=None, repr=False)
    _last_tick: float = field(default=0.0, repr=False)

    def tick(self, records: int) -> None:
        """Report progress within the input, at most five times a second.

        >>> seen = []
        >>> r = LoadReport("x", "f", on_progress=lambda n, b: seen.append((n, b)))
        >>> r.tick(10); r.tick(20)
        >>> seen
        [(10, 0)]
        """
        if self.on_progress is None:
            return
        now = time.monotonic()
        if now - self._last_tick >= 0.2:
            self._last_tick = now
            self.on_progress(records, self.bytes_read)

    def skip(self, path: str, where: int | str | None, expected: str, found: str = "") -> None:
        """Raise a :class:`ParseError`, or in lenient mode count it and go on."""
        error = ParseError(path, where, expected, found)
        if not self.lenient:
            raise error
        self.skipped[f"expected {expected}"] += 1
        self.warn(str(error))

    def skip_record(self, path: str, where: int | str | None, expected: str,
                    found: str = "") -> None:
        """Count and report one damaged record of a multi-record transport (a syslog line),
        in strict mode too: its producer's loader skips it, and stopping would not keep a
        wrong fact out of the graph (the other records are whole).

        >>> r = LoadReport("x.log", "xalt-syslog")
        >>> r.skip_record("x.log", 3, "a JSON XALT record", "garbage")
        >>> dict(r.skipped), r.warnings
        ({'expected a JSON XALT record': 1}, ["x.log:3: expected a JSON XALT record, found 'garbage'"])
        """
        self.skipped[f"expected {expected}"] += 1
        self.warn(str(ParseError(path, where, expected, found)))

    def unknown_item(self, what: str) -> None:
        """Count an item that is valid but not understood (an unknown event type, say)."""
        self.unknown[what] += 1

    def warn(self, message: str) -> None:
        """Keep a message for the user (the first :data:`MAX_MESSAGES` are kept)."""
        self.warning_count += 1
        if len(self.warnings) < MAX_MESSAGES:
            self.warnings.append(message)

    def summary(self) -> dict:
        """A JSON-ready summary."""
        return {
            "path": self.path,
            "format": self.format,
            "skipped": dict(self.skipped),
            "unknown": dict(self.unknown),
            "warnings": list(self.warnings),
            "warning_count": self.warning_count,
            **self.extra,
        }


@dataclass(frozen=True)
class DemoFiles:
    """What a source's demo writer (``write(campaign, directory)`` in the module its
    package's ``DEMO`` names) wrote: its files, and the load options they are read with
    (``LoadOptions`` field names, such as ``chimbuko_run``).

    >>> DemoFiles((Path("a.bp"),)).load_options
    {}
    """

    paths: tuple[Path, ...]
    load_options: dict = field(default_factory=dict)


Detector = Callable[[Path, bytes], bool]
Parser = Callable[[Path, LoadReport], Iterator[Record]]


@dataclass(frozen=True)
class Format:
    """One input format: its name, source system, how to recognise it and how to parse it.

    ``detect(path, head)`` gets the path and the first 64 KiB of the file; ``parse(path,
    report)`` yields records. ``url_schemes`` lists database URL schemes the format reads
    (for inputs that are not files, such as ``postgresql://``). ``fallback`` marks the one
    format of a source used for a file none of its detectors accepts when the user forces
    that source (``--source``): its parser then says what is wrong where. ``agree`` marks a
    format whose inputs may name nodes other loads wrote (a PROV document) but never change
    them: every node it reads is checked against the graph first, and one whose values differ
    from what another load stated is not written (see ``pipeline._conflicts``).
    """

    name: str
    source: str
    detect: Detector
    parse: Parser
    url_schemes: tuple[str, ...] = ()
    description: str = ""
    fallback: bool = False  # read a file with this format when its source is forced
    url_tables: tuple[str, ...] = ()  # tables a database URL must have to be this format
    #: the parser reads in a process of its own already (a third one would only cost: the
    #: Chimbuko UnQLite reader), so lineage.load.reader_process leaves it in this one
    own_process: bool = False
    #: every node must agree with what other loads stated of it (see above)
    agree: bool = False
