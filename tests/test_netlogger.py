"""NetLogger BP line syntax (no database): every test runs with the compiled reader of the
common case (``_netlogger_c.c``) and without it (pure Python)."""

import sys

import pytest

from lineage.sources.pegasus import netlogger
from lineage.sources.pegasus.netlogger import BPSyntaxError, parse_line, parse_timestamp

from .netlogger_readers import READERS, reading_with


@pytest.fixture(autouse=True, params=READERS)
def reader(request):
    with reading_with(request.param):
        yield request.param


def test_the_compiled_reader_reads_the_common_case(reader):
    line = 'ts=1331642136 event=stampede.job_inst.main.end argv="-n 1" job_inst.id=1\n'
    compiled = netlogger._split_compiled
    if reader == "compiled":
        assert compiled(line) == {"ts": "1331642136", "event": "stampede.job_inst.main.end",
                                  "argv": "-n 1", "job_inst.id": "1"}
        for other in ("a=1  b=2", 'a="x\\"y"', "a=1\tb=2", "a=1 ", " a=1", "", "\n",
                      "a=1 b", 'a="x', 'a="x"b', "é=1", "1=2"):
            assert compiled(other) is None, other  # read in Python
        with pytest.raises(TypeError):
            compiled(b"a=1")
    else:
        assert compiled is None
    interned = sys.intern("".join(["job_inst", ".id"]))
    pairs = parse_line(line)
    assert pairs["argv"] == "-n 1"
    # parse_line reads it in C when it can: the C reader interns its keys, Python's split not
    key = next(k for k in pairs if k == "job_inst.id")
    assert (key is interned) == (reader == "compiled")


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


@pytest.mark.parametrize("line, expected", [
    ("a=1 b=p=q c=", {"a": "1", "b": "p=q", "c": ""}),  # "=" inside a bare value
    ('a="" b="x y" c="1=2"', {"a": "", "b": "x y", "c": "1=2"}),
    ('argv="-n 1" a=1 argv="-n 2"', {"argv": "-n 2", "a": "1"}),  # the last one wins
    ("a=1 b=2\n", {"a": "1", "b": "2"}),
    ('a=1 b="x"\r\n', {"a": "1", "b": "x"}),
    ("a=x\x00y", {"a": "x\x00y"}),
    ("a=C:\\temp", {"a": "C:\\temp"}),  # a bare backslash is kept
    ('a="C:\\temp" b=1', {"a": "C:\\temp", "b": "1"}),  # escapes: the regex reader
    ("a=1  b=2\t", {"a": "1", "b": "2"}),  # odd blanks: the regex reader
])
def test_lines_the_string_split_reads(line, expected):
    assert parse_line(line) == expected


@pytest.mark.parametrize("line, column", [
    ("a=x=b y", 8),     # one token too few '=' and one too many: not two pairs
    ('a=b="x y"', 3),   # a quote inside a bare value
    ('a="x""y"', 6),    # quoted values back to back
    ('a="x"b=1', 6),
    ('a= "x"', 4),
    ('a="x" ="y"', 7),  # a quoted value without a key
    ('é=1 a="x"', 1),
    ('a="x y', 3),      # the quote is never closed
])
def test_lines_the_string_split_refuses_get_the_exact_error(line, column):
    with pytest.raises(BPSyntaxError) as err:
        parse_line(line)
    assert err.value.column == column


@pytest.mark.parametrize("text, expected", [
    ("2012-03-13T12:35:36.000000Z", 1331642136.0),
    ("2012-03-13T13:35:36+01:00", 1331642136.0),
    ("1331642164", 1331642164.0),
    ("1331642164.25", 1331642164.25),
    ("2012-03-13T12:35:36", 1331642136.0),
    ("2012-03-13T12:35:36.000001Z", 1331642136.000001),
    ("1969-12-31T23:59:59.999999Z", -0.000001),
])
def test_timestamps_iso_and_epoch(text, expected):
    assert parse_timestamp(text) == expected


@pytest.mark.parametrize("text", [
    "yesterday",
    "2012-02-30T12:35:36.000000Z",  # no such day
    "2012-03-13T12:35:36.00000\u0665Z",  # an Arabic-Indic digit: int() takes it, ISO does not
])
def test_bad_timestamp_is_an_error(text):
    with pytest.raises(ValueError):
        parse_timestamp(text)
