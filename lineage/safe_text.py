"""Provenance text made safe to show: characters that drive the terminal or disguise text are
shown as escapes.

Escaped: C0 and C1 control characters and DEL (escape sequences, NUL, bells; newline and
tab are the table's and CSV's business), and every Unicode *format* character (category
Cf) and line or paragraph separator (Zl, Zp): the bidirectional controls (U+202A-U+202E,
U+2066-U+2069, U+200E, U+200F, U+061C) that reorder what follows them (a file name
``report\\u202efdp.exe`` shows as ``reportexe.pdf``), zero-width spaces and joiners, the
soft hyphen, the byte order mark, tag characters. Tables and CSV (a spreadsheet is a
display too) show them as ``\\u202e``; JSON keeps the data exactly, written with JSON's own
``\\u202e`` escapes, which every JSON reader turns back into the character.

>>> safe_text("ok\\x1b]0;owned\\x07 \\x00")
'ok\\\\x1b]0;owned\\\\x07 \\\\x00'
>>> safe_text("report\\u202efdp.exe")
'report\\\\u202efdp.exe'
>>> json_text({"name": "report\\u202efdp.exe"})
'{"name": "report\\\\u202efdp.exe"}'
"""

from __future__ import annotations

import json
import re

#: Unicode's format characters and line/paragraph separators (Cf, Zl, Zp; Unicode 14, as
#: Python 3.11's unicodedata; tests/test_safe_text.py checks the list against it)
FORMAT_RANGES = (
    (0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD),
    (0x070F, 0x070F), (0x0890, 0x0891), (0x08E2, 0x08E2), (0x180E, 0x180E),
    (0x200B, 0x200F), (0x2028, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F),
    (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD),
    (0x13430, 0x13438), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
)
_FORMAT_CLASS = "".join(f"{chr(a)}-{chr(b)}" if a != b else chr(a) for a, b in FORMAT_RANGES)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_UNSAFE = re.compile(f"[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f{_FORMAT_CLASS}]")
#: what JSON (written without ensure_ascii) leaves raw and a terminal would act on
_JSON_UNSAFE = re.compile(f"[\\x7f-\\x9f{_FORMAT_CLASS}]")


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def safe_text(text: str) -> str:
    """``text`` with control and format characters shown as escapes (``\\x1b``,
    ``\\u202e``), so a provenance string can neither drive the terminal nor reorder or hide
    what is shown."""
    return _UNSAFE.sub(_escape, text)


def _json_escape(match: re.Match) -> str:
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # JSON writes a character beyond the BMP as a surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def json_text(value, **options) -> str:
    """``json.dumps(value, ensure_ascii=False, ...)`` with C1 controls and format characters
    written as JSON ``\\u`` escapes: the same data for a program, nothing raw for a terminal.
    (They can only stand inside JSON strings, where any character may be escaped.)

    >>> json.loads(json_text(["a\\u2066b\\U000e0041"])) == ["a\\u2066b\\U000e0041"]
    True
    """
    return _JSON_UNSAFE.sub(_json_escape, json.dumps(value, ensure_ascii=False, **options))
