"""NetLogger BP line syntax (no database)."""

import pytest

from lineage.sources.pegasus.netlogger import BPSyntaxError, parse_line, parse_timestamp


def test_quoted_values_with_escapes_and_spaces():
    ev = parse_line(r'ts=1 event=x argv="-a \"b c\" \\d" empty=""')
    assert ev == {"ts": "1", "event": "x", "argv": '-a "b c" \\d', "empty": ""}


def test_repeated_key_keeps_last_value():
    assert parse_line("a=1 b=2 a=3")["a"] == "3"


def test_unknown_backslash_sequences_are_kept_verbatim():
    assert parse_line(r'p="C:\temp\x"')["p"] == r"C:\temp\x"


@pytest.mark.parametrize("line, column", [
    ('a="unterminated', 3),
    ("=novalue", 1),
    ("a=1 b", 6),
    ('a="x"y', 6),
    ('a=b"c', 3),
])
def test_malformed_lines_name_the_column(line, column):
    with pytest.raises(BPSyntaxError) as err:
        parse_line(line)
    assert err.value.column == column


@pytest.mark.parametrize("text, expected", [
    ("2012-03-13T12:35:36.000000Z", 1331642136.0),
    ("2012-03-13T13:35:36+01:00", 1331642136.0),
    ("1331642164", 1331642164.0),
    ("1331642164.25", 1331642164.25),
    ("2012-03-13T12:35:36", 1331642136.0),
])
def test_timestamps_iso_and_epoch(text, expected):
    assert parse_timestamp(text) == expected


def test_bad_timestamp_is_an_error():
    with pytest.raises(ValueError):
        parse_timestamp("yesterday")
