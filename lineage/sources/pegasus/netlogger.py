"""NetLogger "Best Practices" (BP) lines: ``key=value`` pairs separated by spaces.

The rules (as pegasus-monitord and the NetLogger toolkit write and read them): a value is
either a bare word or a double-quoted string in which ``\\"`` and ``\\\\`` are escapes; a
repeated key keeps its last value; ``ts`` is ISO-8601 (``2012-03-13T12:35:36.000000Z``) or
seconds since the epoch.

>>> parse_line('ts=2012-03-13T12:35:36Z event=x argv="-a \\\\"b c\\\\"" n=1 n=2')
{'ts': '2012-03-13T12:35:36Z', 'event': 'x', 'argv': '-a "b c"', 'n': '2'}
>>> parse_timestamp("2012-03-13T12:35:36.5Z")
1331642136.5
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timezone
from functools import lru_cache

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.:\-]*")


class BPSyntaxError(ValueError):
    """A line that is not a sequence of key=value pairs; ``column`` is 1-based."""

    def __init__(self, message: str, column: int):
        super().__init__(f"{message} at column {column}")
        self.column = column


#: One ``key=value`` pair and the blanks after it: the fast path of :func:`parse_line`. A
#: line it does not match whole is read again by :func:`parse_line_exactly`, which names the
#: column and the fault (the two agree on every line: tests/test_fuzz_parsers.py).
_PAIR = re.compile(r'([A-Za-z_][A-Za-z0-9_.:\-]*)=(?:"((?:[^"\\]|\\.)*)"|([^ \t\r\n"]*))'
                   r'(?:[ \t]+|(?=[\r\n])|\Z)')
_BLANKS = re.compile(r"[ \t]*")
_ESCAPE = re.compile(r'\\(["\\])')


def parse_line(line: str) -> dict[str, str]:
    """Split one BP line into its key/value pairs (values stay strings).

    >>> parse_line('a=1 b="x y"')
    {'a': '1', 'b': 'x y'}
    """
    out: dict[str, str] = {}
    pos, n = _BLANKS.match(line).end(), len(line)
    while pos < n and line[pos] not in "\r\n":
        m = _PAIR.match(line, pos)
        if m is None:
            return parse_line_exactly(line)  # raises, naming the column and the fault
        key, quoted, bare = m.group(1, 2, 3)
        if quoted is None:
            out[key] = bare
        else:
            out[key] = _ESCAPE.sub(r"\1", quoted) if "\\" in quoted else quoted
        pos = m.end()
    return out


def parse_line_exactly(line: str) -> dict[str, str]:
    """:func:`parse_line` one character at a time: the reference the fast path is tested
    against, and the reader of lines the fast path does not match (its errors name the
    column).

    >>> parse_line_exactly('a=1 b="x')
    Traceback (most recent call last):
    ...
    lineage.sources.pegasus.netlogger.BPSyntaxError: unterminated quoted value of 'b' at column 7
    """
    out: dict[str, str] = {}
    i, n = 0, len(line)
    while True:
        while i < n and line[i] in " \t":
            i += 1
        if i >= n or line[i] in "\r\n":
            return out
        m = _KEY.match(line, i)
        if m is None:
            raise BPSyntaxError(f"expected a key, found {line[i:i + 20]!r}", i + 1)
        key = m.group()
        i = m.end()
        if i >= n or line[i] != "=":
            raise BPSyntaxError(f"expected '=' after key {key!r}", i + 1)
        i += 1
        if i < n and line[i] == '"':
            start = i
            i += 1
            chars: list[str] = []
            while True:
                j = i
                while j < n and line[j] not in '"\\':
                    j += 1
                chars.append(line[i:j])
                if j >= n:
                    raise BPSyntaxError(f"unterminated quoted value of {key!r}", start + 1)
                if line[j] == '"':
                    i = j + 1
                    break
                # backslash escape: \" and \\ stand for themselves, others are kept verbatim
                if j + 1 < n and line[j + 1] in '"\\':
                    chars.append(line[j + 1])
                    i = j + 2
                else:
                    chars.append("\\")
                    i = j + 1
            value = "".join(chars)
            if i < n and line[i] not in " \t\r\n":
                raise BPSyntaxError(f"expected a space after the quoted value of {key!r}", i + 1)
        else:
            j = i
            while j < n and line[j] not in " \t\r\n":
                j += 1
            value = line[i:j]
            if '"' in value:
                raise BPSyntaxError(f"stray quote in the value of {key!r}", i + 1)
            i = j
        out[key] = value


@lru_cache(maxsize=1 << 14)  # events of one second share their stamp: most calls are repeats
def parse_timestamp(text: str) -> float:
    """Seconds since the epoch (UTC) from an ISO-8601 or numeric NetLogger timestamp.

    >>> parse_timestamp("1331642164")
    1331642164.0
    >>> parse_timestamp("2023-03-03T23:09:21-08:00")
    1677913761.0
    """
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        if not math.isfinite(seconds):
            raise ValueError(f"not a finite timestamp: {text!r}")
        return seconds
    iso = text.strip()
    if iso.endswith(("Z", "z")):
        iso = iso[:-1] + "+00:00"
    try:
        stamp = datetime.fromisoformat(iso)
        if stamp.tzinfo is None:
            stamp = stamp.replace(tzinfo=timezone.utc)
        return stamp.timestamp()
    except (ValueError, OverflowError) as exc:
        raise ValueError(f"not an ISO-8601 or epoch timestamp: {text!r}") from exc
