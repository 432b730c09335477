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

import hashlib
import logging
import math
import os
import re
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from itertools import repeat

log = logging.getLogger(__name__)


def compiled_reader(module, source: str):
    """``module.split_line`` if ``module`` (the compiled ``_netlogger_c``) was built from the
    file ``source`` as it is now (or ``source`` is not there to compare), else None, with a
    warning: a build left from another version of the C would read lines its own way.

    >>> compiled_reader(None, __file__) is None
    True
    """
    if module is None:
        return None
    try:
        with open(source, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()
    except OSError:  # installed without its source: the wheel's own build
        return module.split_line
    if getattr(module, "SOURCE_SHA256", "") != digest:
        log.warning("%s was built from another version of %s; reading NetLogger lines in "
                    "pure Python (reinstall to compile it again: pip install -e .)",
                    module.__file__, source)
        return None
    return module.split_line


try:  # compiled at install when a C compiler is there (hatch_build.py); optional
    from . import _netlogger_c
except ImportError:  # pragma: no cover - a machine without a compiler
    _netlogger_c = None
_split_compiled = compiled_reader(
    _netlogger_c, os.path.join(os.path.dirname(__file__), "_netlogger_c.c"))

#: True when the common case of :func:`parse_line` runs in C (``_netlogger_c.c``)
COMPILED = _split_compiled is not None

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.:\-]*")


class BPSyntaxError(ValueError):
    """A line that is not a sequence of key=value pairs; ``column`` is 1-based."""

    def __init__(self, message: str, column: int):
        super().__init__(f"{message} at column {column}")
        self.column = column


#: One ``key=value`` pair and the blanks after it: the regular-expression reader of
#: :func:`parse_line`, for the lines its string-method path leaves (tabs, carriage returns,
#: backslash escapes, odd blanks). A line it does not match whole is read again by
#: :func:`parse_line_exactly`, which names the column and the fault (all three agree on
#: every line: tests/test_fuzz_parsers.py).
_PAIR = re.compile(r'([A-Za-z_][A-Za-z0-9_.:\-]*)=(?:"((?:[^"\\]|\\.)*)"|([^ \t\r\n"]*))'
                   r'(?:[ \t]+|(?=[\r\n])|\Z)')
_BLANKS = re.compile(r"[ \t]*")
_ESCAPE = re.compile(r'\\(["\\])')
_SPLIT, _EQUALS, _ONCE = str.split, repeat("="), repeat(1)
#: keys already seen to match ``_KEY`` (a stream has a few dozen; bounded all the same)
_GOOD_KEYS: set[str] = set()
_GOOD_KEYS_MAX = 4096


def parse_line(line: str) -> dict[str, str]:
    """Split one BP line into its key/value pairs (values stay strings).

    Most lines (single spaces between pairs, no tabs, no backslash inside quotes) are read
    by the compiled ``split_line`` (``_netlogger_c.c``, when installed: :data:`COMPILED`),
    else split with string methods, which run at C speed (no character-by-character loop);
    any other line, and any line those splits do not take apart cleanly, goes to the
    regular expression reader and, if that fails too, to :func:`parse_line_exactly` for the
    error.

    >>> parse_line('a=1 b="x y" c=p=q')
    {'a': '1', 'b': 'x y', 'c': 'p=q'}
    """
    if _split_compiled is not None:
        ev = _split_compiled(line)
        if ev is not None:
            return ev
    return _parse_line_python(line)


def _parse_line_python(line: str) -> dict[str, str]:
    """:func:`parse_line` without the compiled reader: string methods, then the regular
    expression.

    >>> _parse_line_python('a=1 b="x y"')
    {'a': '1', 'b': 'x y'}
    """
    text = line.rstrip("\r\n")  # the same object when there is no line end
    if "\t" in text or "\r" in text or "\n" in text:
        return _parse_line_regex(line)
    try:
        if '"' in text:
            ev = _split_quoted(text)
        else:
            # one "key=value" per single space; a token without "=" fails dict() (ValueError)
            ev = dict(map(_SPLIT, text.split(" "), _EQUALS, _ONCE))
    except ValueError:
        return _parse_line_regex(line)
    if ev.keys() <= _GOOD_KEYS or _keys_are_good(ev):
        return ev
    return _parse_line_regex(line)


def _split_quoted(text: str) -> dict[str, str]:
    """The pairs of a line with quoted values and no backslash, cut at the quotes; raises
    ValueError for anything else (the caller then reads the line with the regular expression).

    >>> _split_quoted('a=1 b="x y" c=2')
    {'a': '1', 'b': 'x y', 'c': '2'}
    """
    if "\\" in text:
        raise ValueError("escapes")
    parts = text.split('"')  # outside, quoted, outside, ..., outside
    if not len(parts) & 1:
        raise ValueError("unbalanced quotes")
    last = len(parts) - 1
    ev: dict[str, str] = {}
    tokens = parts[0].split(" ")
    for i in range(1, last, 2):
        key, equals, rest = tokens.pop().partition("=")  # the pair the quote opens: 'key='
        if rest or not equals:
            raise ValueError("a quote inside a value")
        ev.update(map(_SPLIT, tokens, _EQUALS, _ONCE))
        ev[key] = parts[i]
        after = parts[i + 1]
        if after[:1] == " ":
            tokens = after[1:].split(" ")
        elif after or i + 1 < last:
            raise ValueError("no space after a quoted value")
        else:
            tokens = []
    ev.update(map(_SPLIT, tokens, _EQUALS, _ONCE))
    return ev


def _keys_are_good(ev: dict[str, str]) -> bool:
    for key in ev:
        if key not in _GOOD_KEYS:
            if _KEY.fullmatch(key) is None:
                return False
            if len(_GOOD_KEYS) < _GOOD_KEYS_MAX:
                _GOOD_KEYS.add(key)
    return True


def _parse_line_regex(line: str) -> dict[str, str]:
    """:func:`parse_line` by regular expression, one pair at a time (handles escapes, tabs
    and odd blanks); a line it cannot match whole goes to :func:`parse_line_exactly`.

    >>> _parse_line_regex('a=1\tb="x \\\\"y\\\\""')
    {'a': '1', 'b': 'x "y"'}
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


def parse_timestamp(text: str) -> float:
    """Seconds since the epoch (UTC) from an ISO-8601 or numeric NetLogger timestamp.

    monitord's own spelling, ``YYYY-MM-DDTHH:MM:SS.ffffffZ``, is read from a cache of whole
    seconds plus the microseconds, to the same float as the general reader: the
    microseconds since the epoch divided by 10**6, as :meth:`datetime.timestamp` computes it.

    >>> parse_timestamp("1331642164")
    1331642164.0
    >>> parse_timestamp("2023-03-03T23:09:21-08:00")
    1677913761.0
    >>> parse_timestamp("2012-03-13T12:35:36.250000Z")
    1331642136.25
    """
    if (len(text) == 27 and text[26] == "Z" and text[19] == "." and text.isascii()
            and text[20:26].isdecimal()):
        seconds = _whole_seconds(text[:19])
        if seconds is not None:
            return (seconds * 1_000_000 + int(text[20:26])) / 1_000_000
    return _parse_timestamp(text)


_ISO_SECONDS = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}")
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


@lru_cache(maxsize=1 << 14)  # events of one second share their stamp: most calls are repeats
def _whole_seconds(prefix: str) -> int | None:
    """Whole seconds since the epoch of ``YYYY-MM-DDTHH:MM:SS`` (UTC), None if not a date."""
    if _ISO_SECONDS.fullmatch(prefix) is None:
        return None
    try:
        return (datetime.fromisoformat(prefix + "+00:00") - _EPOCH) // timedelta(seconds=1)
    except ValueError:
        return None


@lru_cache(maxsize=1 << 14)
def _parse_timestamp(text: str) -> float:
    """:func:`parse_timestamp` for every spelling."""
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
