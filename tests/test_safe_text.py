"""What the terminal shows of provenance text: the escaped characters are exactly Unicode's
format characters and separators (and the controls), checked against Python's own data."""

import json
import sys
import unicodedata

from lineage.safe_text import FORMAT_RANGES, json_text, safe_text


def test_the_escaped_ranges_are_unicodes_format_characters():
    listed = {c for a, b in FORMAT_RANGES for c in range(a, b + 1)}
    actual = {c for c in range(sys.maxunicode + 1)
              if unicodedata.category(chr(c)) in ("Cf", "Zl", "Zp")}
    assert listed == actual, sorted(actual ^ listed)[:10]


def test_every_format_and_control_character_is_escaped_and_json_keeps_it():
    unsafe = [chr(c) for a, b in FORMAT_RANGES for c in range(a, b + 1)]
    unsafe += [chr(c) for c in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]]
    for ch in unsafe:
        shown = safe_text(f"a{ch}b")
        assert shown.isascii() and shown.startswith("a\\") and shown.endswith("b"), ascii(ch)
        written = json_text([f"a{ch}b"])
        assert written.isascii() and json.loads(written) == [f"a{ch}b"], ascii(ch)
    assert safe_text("Ünïcödé ☃ 𝔘 ا\tx") == "Ünïcödé ☃ 𝔘 ا\tx"  # printable text stays
