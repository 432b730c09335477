"""Text lines of a file, read in bounded memory and checked for a cut-short end.

Every line-oriented reader (NetLogger BP, monitord JSON lines, Swift logs, XALT syslog) reads
through :func:`bounded_lines`, so the same three promises hold for all of them:

- a line longer than ``max_line`` bytes is never held whole: it is drained in 1 MiB pieces and
  reported (strict: an error naming file and line; lenient: skipped and counted);
- a last line without its newline means the file was cut short (a copy interrupted, a log
  still being written): its values may be truncated, so it is reported the same way instead of
  becoming nodes under truncated uids;
- undecodable bytes are reported (``errors="strict"``) or decoded with the given handler.

A reported line is yielded as ``""`` so that line numbers stay aligned.

>>> import tempfile, pathlib
>>> from lineage.sources.base import LoadReport
>>> path = pathlib.Path(tempfile.mkdtemp()) / "x.log"
>>> _ = path.write_bytes(b"one\\ntwo\\nthr")
>>> report = LoadReport(str(path), "example", lenient=True)
>>> list(bounded_lines(path, report, max_line=100))
['one\\n', 'two\\n', '']
>>> dict(report.skipped)
{'expected a last line ending in a newline (the stream looks cut short: a file still being written?)': 1}
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from .base import LoadReport

DRAIN_BYTES = 1 << 20
CUT_SHORT = ("a last line ending in a newline (the stream looks cut short: a file still being "
             "written?)")


def bounded_lines(path: Path, report: LoadReport, max_line: int,
                  errors: str = "strict") -> Iterator[str]:
    """Decoded lines of ``path`` (newline kept), at most ``max_line`` bytes each."""
    with open(path, "rb") as raw:
        lineno = 0
        while True:
            data = raw.readline(max_line + 1)
            if not data:
                return
            lineno += 1
            if lineno % 1024 == 0:
                report.bytes_read = raw.tell()  # for the progress bar
            if lineno == 1 and data.startswith(b"\xef\xbb\xbf"):
                data = data[3:]  # a UTF-8 byte order mark
            if len(data) > max_line and not data.endswith(b"\n"):
                head = data[:60]
                while data and not data.endswith(b"\n"):  # drain the rest of the line
                    data = raw.readline(DRAIN_BYTES)
                report.skip(str(path), lineno, f"a line of at most {max_line} bytes",
                            head.decode("utf-8", errors="replace"))
                yield ""
                continue
            if not data.endswith(b"\n") and data.strip():
                report.skip(str(path), lineno, CUT_SHORT, data[-60:].decode("utf-8", "replace"))
                yield ""
                continue
            if errors != "strict":
                yield data.decode("utf-8", errors=errors)
                continue
            try:
                yield data.decode("utf-8")
            except UnicodeDecodeError as exc:
                report.skip(str(path), lineno, "UTF-8 text", f"byte {exc.start + 1}: {exc.reason}")
                yield ""
