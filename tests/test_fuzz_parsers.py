"""Property-based tests (hypothesis) for every parser in the format registry.

Any input, random bytes or a damaged real sample, either parses into storable records or
raises the project's own error (a :class:`lineage.errors.LineageError`), strict or lenient;
never an unhandled exception. For NetLogger BP, what parses round-trips its values: key/value
maps serialised with BP quoting and escaping parse back equal, and ids, names and command
lines of generated Pegasus events come back verbatim in the records.
"""

from __future__ import annotations

import math
import os
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from lineage import model
from lineage.sources import registry as loaders
from lineage.errors import LineageError
from lineage.sources.pegasus import mapping as pc
from lineage.sources.base import LoadReport
from lineage.sources.pegasus import netlogger
from lineage.sources.pegasus.netlogger import BPSyntaxError, parse_line, parse_timestamp
from lineage.sources.pegasus.bp import parse_lines
from lineage.model.records import Edge, Node, clean_props

from .conftest import SAMPLES
from .netlogger_readers import READERS, needs_compiled, reading_with
from .corpus import derived, needs_corpus

#: LINEAGE_FUZZ_EXAMPLES=5000 searches deeper (a run before a release; CI keeps 200)
EXAMPLES = int(os.environ.get("LINEAGE_FUZZ_EXAMPLES", "200"))
FUZZ = settings(max_examples=EXAMPLES,
                deadline=None, derandomize=False,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
INT64 = (-(2**63), 2**63 - 1)
SAMPLE_LIMIT = 1 << 20


DERIVED = derived()  # real samples in other transports, written for this run


def samples_of(fmt) -> list[Path]:
    """The sample files of the format's source that the format recognises: the real ones,
    and the derived ones (real samples re-encoded in this run, tests.corpus.derived, in
    transports of which no real file is at hand: monitord JSON lines, XALT syslog)."""
    out = []
    files = sorted((SAMPLES / fmt.source).rglob("*")) + sorted((DERIVED / fmt.source).rglob("*"))
    for path in files:
        if path.is_file() and path.stat().st_size <= SAMPLE_LIMIT:
            with open(path, "rb") as fh:
                if fmt.detect(path, fh.read(loaders.HEAD_BYTES)):
                    out.append(path)
    return out


FILE_FORMATS = [f for f in loaders.formats() if samples_of(f)]


def check_record(record) -> None:
    """A record the writer can store: known kind, uid strings, Neo4j-storable properties."""
    if isinstance(record, Node):
        assert record.kind in model.NODE_KINDS.values()
        assert isinstance(record.uid, str) and record.uid
        props = record.props
    else:
        assert isinstance(record, Edge), type(record)
        assert record.rel in model.REL_TYPES.values()
        assert isinstance(record.start, str) and record.start
        assert isinstance(record.end, str) and record.end
        assert isinstance(record.key, str)
        props = record.props
    for key, value in clean_props(props).items():
        assert isinstance(key, str) and key
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, int) and not isinstance(v, bool):
                assert INT64[0] <= v <= INT64[1], (key, v)
            if isinstance(v, str):
                v.encode("utf-8")  # no lone surrogates


def run_parser(fmt, path: Path, lenient: bool) -> None:
    report = LoadReport(str(path), fmt.name, lenient=lenient)
    try:
        for record in fmt.parse(path, report):
            check_record(record)
    except LineageError:
        pass


def mutate(data: bytes, draw) -> bytes:
    """Damage a real sample the ways files get damaged."""
    for _ in range(draw(st.integers(1, 4))):
        if not data:
            break
        op = draw(st.sampled_from(["truncate", "flip", "insert", "delete", "duplicate"]))
        at = draw(st.integers(0, len(data) - 1))
        if op == "truncate":
            data = data[:at]
        elif op == "flip":
            data = data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1:]
        elif op == "insert":
            data = data[:at] + draw(st.binary(min_size=1, max_size=64)) + data[at:]
        elif op == "delete":
            data = data[:at] + data[at + draw(st.integers(1, 256)):]
        else:
            end = data.find(b"\n", at)
            end = len(data) if end < 0 else end + 1
            data = data[:end] + data[at:end] + data[end:]
    return data


@needs_corpus
def test_every_file_format_has_a_sample_to_fuzz():
    """A format that reads files must bring a real sample (database-URL formats excepted)."""
    fuzzed = {f.name for f in FILE_FORMATS}
    for fmt in loaders.formats():
        assert fmt.name in fuzzed or fmt.url_schemes, fmt.name
    assert "pegasus-bp" in fuzzed


@pytest.fixture(scope="module")
def scratch():
    with tempfile.TemporaryDirectory() as d:
        yield Path(d)


#: Damaged UnQLite shards can hang the unqlite C library (found by this test): the loader reads
#: a shard through in a child process with a deadline first; a short one keeps this test fast.
os.environ.setdefault("LINEAGE_UNQLITE_PROBE_SECONDS", "3")
SLOW_FORMATS = {"chimbuko-unqlite"}  # each parse starts a reader process: fewer examples
DAMAGE_FORMATS = [f for f in FILE_FORMATS if f.name not in SLOW_FORMATS]


@needs_corpus
@pytest.mark.parametrize("fmt", DAMAGE_FORMATS, ids=[f.name for f in DAMAGE_FORMATS])
@FUZZ
@given(data=st.data())
def test_damaged_samples_parse_or_raise_our_error(fmt, scratch, data):
    sample = data.draw(st.sampled_from(samples_of(fmt)), label="sample")
    damaged = mutate(sample.read_bytes(), data.draw)
    path = scratch / f"{fmt.name}-damaged{''.join(sample.suffixes[-1:])}"
    path.write_bytes(damaged)
    for lenient in (False, True):
        run_parser(fmt, path, lenient)


@needs_corpus
@pytest.mark.parametrize("fmt", [f for f in FILE_FORMATS if f.name in SLOW_FORMATS],
                         ids=sorted(SLOW_FORMATS))
@settings(max_examples=max(1, EXAMPLES // 16), deadline=None,  # 12 by default
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_damaged_database_files_never_hang(fmt, scratch, data):
    """Byte-flipped UnQLite shards once hung the reader forever; now each parses or raises
    (damaged samples and random bytes alike)."""
    sample = data.draw(st.sampled_from(samples_of(fmt)), label="sample")
    if data.draw(st.booleans(), label="random bytes"):
        damaged = data.draw(st.binary(max_size=4096), label="blob")
    else:
        damaged = mutate(sample.read_bytes(), data.draw)
    path = scratch / f"{fmt.name}-damaged{''.join(sample.suffixes[-1:])}"
    path.write_bytes(damaged)
    run_parser(fmt, path, lenient=False)


@needs_corpus
@pytest.mark.parametrize("fmt", DAMAGE_FORMATS, ids=[f.name for f in DAMAGE_FORMATS])
@FUZZ
@given(blob=st.one_of(st.binary(max_size=4096),
                      st.text(max_size=2000).map(lambda t: t.encode("utf-8", "surrogatepass"))))
def test_random_bytes_parse_or_raise_our_error(fmt, scratch, blob):
    path = scratch / f"{fmt.name}-random{samples_of(fmt)[0].suffix}"
    path.write_bytes(blob)
    with open(path, "rb") as fh:
        fmt.detect(path, fh.read(loaders.HEAD_BYTES))  # detection never raises either
    for lenient in (False, True):
        run_parser(fmt, path, lenient)


# ------------------------------------------------------------------ NetLogger BP syntax
KEYS = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.:\-]{0,12}", fullmatch=True)
# one line per event: newlines never occur inside values (Pegasus percent-encodes them)
VALUES = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\r\n"),
                 max_size=40)


def bp_value(value: str, quote: bool) -> str:
    """Serialise one value as pegasus-monitord would: bare when safe, else quoted."""
    bare_ok = value and not any(c in value for c in ' \t"\\') and value[0] != '"'
    if bare_ok and not quote:
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def bp_line(pairs: dict[str, str], quote_all: bool = False, sep: str = " ") -> str:
    return sep.join(f"{k}={bp_value(v, quote_all)}" for k, v in pairs.items())


@pytest.mark.parametrize("reader", READERS)
@FUZZ
@given(pairs=st.dictionaries(KEYS, VALUES, max_size=8), quote_all=st.booleans(),
       sep=st.sampled_from([" ", "  ", "\t", " \t "]))
def test_bp_lines_round_trip(reader, pairs, quote_all, sep):
    line = bp_line(pairs, quote_all, sep)
    with reading_with(reader):
        assert parse_line(line) == pairs
        assert parse_line(line + "\r\n") == pairs


@pytest.mark.parametrize("reader", READERS)
@FUZZ
@given(text=st.text(max_size=200))
def test_any_line_parses_or_raises_bp_syntax_error(reader, text):
    try:
        with reading_with(reader):
            out = parse_line(text)
    except BPSyntaxError as exc:
        assert exc.column >= 1
    else:
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in out.items())


def _outcome(parse, text):
    try:
        return parse(text)
    except BPSyntaxError as exc:
        return ("error", str(exc))


#: text made of what BP lines are made of, so that near-misses (stray quotes, escapes at the
#: end, keys without '=') are drawn often
BP_ALPHABET = st.text(alphabet=st.sampled_from(list('ab_.:-1=" \\\t\r\nxé')), max_size=60)


@pytest.mark.parametrize("reader", READERS)
@settings(max_examples=1000, deadline=None)
@given(text=st.one_of(st.text(max_size=120), BP_ALPHABET,
                      st.builds(lambda pairs, tail: bp_line(pairs, False, " ") + tail,
                                st.dictionaries(KEYS, VALUES, max_size=5), BP_ALPHABET)))
def test_the_fast_bp_parser_agrees_with_the_exact_one(reader, text):
    """parse_line (compiled, string methods, regular expressions) and parse_line_exactly
    (one character at a time) give the same pairs, or the same error, on any line."""
    from lineage.sources.pegasus.netlogger import parse_line_exactly

    with reading_with(reader):
        assert _outcome(parse_line, text) == _outcome(parse_line_exactly, text)


#: what the string-method path of parse_line takes (single spaces, quotes, no tab, carriage
#: return, newline or backslash): near-misses of it (a value with "=", a key without one,
#: quotes back to back, blanks at either end) must still agree with the exact reader
SPLIT_ALPHABET = st.text(alphabet=st.sampled_from(list('ab_.=" xé\x00')), max_size=40)


@pytest.mark.parametrize("reader", READERS)
@settings(max_examples=1000, deadline=None)
@given(text=st.one_of(SPLIT_ALPHABET,
                      st.builds(lambda pairs, tail: bp_line(pairs, False, " ") + tail,
                                st.dictionaries(KEYS, VALUES, max_size=5), SPLIT_ALPHABET),
                      st.builds(lambda pairs, end: bp_line(pairs, True, " ") + end,
                                st.dictionaries(KEYS, VALUES, max_size=5),
                                st.sampled_from(["", "\n", "\r\n", " \n"]))))
def test_the_string_split_path_agrees_with_the_exact_reader(reader, text):
    from lineage.sources.pegasus.netlogger import parse_line_exactly

    with reading_with(reader):
        assert _outcome(parse_line, text) == _outcome(parse_line_exactly, text)


@needs_compiled
@settings(max_examples=2000, deadline=None)
@given(text=st.one_of(SPLIT_ALPHABET, BP_ALPHABET, st.text(max_size=120),
                      st.builds(lambda pairs, end: bp_line(pairs, True, " ") + end,
                                st.dictionaries(KEYS, VALUES, max_size=5),
                                st.sampled_from(["", "\n", "\r\n", " \n", "\r"]))))
def test_the_compiled_reader_returns_the_exact_pairs_or_leaves_the_line(text):
    """The C reader alone: the very dict of the character-by-character reader, or None (the
    line is then read in Python) and never a dict for a line that reader refuses."""
    from lineage.sources.pegasus.netlogger import parse_line_exactly

    pairs = netlogger._split_compiled(text)
    if pairs is not None:
        assert pairs == parse_line_exactly(text)
        assert list(pairs) == list(parse_line_exactly(text))  # the keys' order too


@needs_corpus
@needs_compiled
def test_the_compiled_reader_takes_the_real_streams_lines():
    """On the bundled Pegasus streams the C reader reads nearly every line (so it is the
    one that runs), each to the exact reader's pairs."""
    from lineage.sources.pegasus.netlogger import parse_line_exactly

    taken = total = 0
    for path in sorted((SAMPLES / "pegasus").glob("*.bp")):
        for line in path.read_text(encoding="utf-8").splitlines(True):
            pairs = netlogger._split_compiled(line)
            total += 1
            if pairs is not None:
                taken += 1
                assert pairs == parse_line_exactly(line), (path.name, line)
    assert total > 300 and taken >= 0.95 * total, (taken, total)


@settings(max_examples=500, deadline=None)
@given(micros=st.integers(-(10**16), 4 * 10**16))
def test_monitord_timestamps_read_as_the_general_reader_does(micros):
    """The cached-seconds path of parse_timestamp gives the very float of the general one."""
    from lineage.sources.pegasus.netlogger import _parse_timestamp

    stamp = datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(microseconds=micros)
    text = stamp.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assume(len(text) == 27)
    assert parse_timestamp(text) == _parse_timestamp.__wrapped__(text) == micros / 10**6


@FUZZ
@given(text=st.text(max_size=40))
def test_any_timestamp_is_finite_or_a_value_error(text):
    try:
        value = parse_timestamp(text)
    except ValueError:
        return
    assert math.isfinite(value)


@FUZZ
@given(seconds=st.floats(0, 4e9, allow_nan=False), iso=st.booleans())
def test_timestamps_round_trip(seconds, iso):
    if iso:
        stamp = datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(seconds=seconds)
        text = stamp.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        assert parse_timestamp(text) == pytest.approx(stamp.timestamp(), abs=1e-6)
    else:
        assert parse_timestamp(repr(seconds)) == seconds


# ------------------------------------------------------------------ Pegasus events
IDS = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\r\n"),
              min_size=1, max_size=30)


@FUZZ
@given(xwf=IDS, job=IDS, argv=VALUES, executable=VALUES, label=IDS, user=IDS,
       jobtype=st.integers(*INT64), ts=st.floats(0, 4e9, allow_nan=False),
       prefix=st.sampled_from(["", "stampede."]))
def test_pegasus_events_round_trip_their_values(xwf, job, argv, executable, label, user,
                                                jobtype, ts, prefix):
    assume(xwf.strip() and job.strip() and user.strip())
    lines = [
        bp_line({"ts": repr(ts), "event": prefix + "wf.plan", "xwf.id": xwf,
                 "dax.label": label, "user": user}),
        bp_line({"ts": repr(ts), "event": prefix + "job.info", "xwf.id": xwf, "job.id": job,
                 "type": str(jobtype), "argv": argv, "executable": executable}),
    ]
    report = LoadReport("gen", "pegasus-bp")
    records = list(parse_lines(lines, report))
    nodes = {r.uid: r for r in records if isinstance(r, Node)}
    wf = nodes[pc.workflow_uid(xwf)]
    assert wf.props["xwf_id"] == xwf and wf.props["name"] == label
    assert wf.props["plan_time"] == ts
    assert nodes[model.USER.uid(user)].props["name"] == user
    jobs = [r for r in records if isinstance(r, Node) and r.uid == pc.job_uid(xwf, job)]
    assert jobs[0].props["job_id"] == job and jobs[0].props["type"] == jobtype
    assert jobs[0].props["argv"] == argv and jobs[0].props["executable"] == executable
    assert report.skipped == {}
    for record in records:
        check_record(record)


KNOWN_EVENTS = sorted(set(parse_lines.__globals__["_Events"](LoadReport("x", "y")).handlers))
KEY_POOL = ["xwf.id", "job.id", "task.id", "job_inst.id", "inv.id", "status", "exitcode",
            "type", "dur", "start_time", "local.dur", "cluster.start", "cluster.dur",
            "hostname", "lfn.id", "key", "value", "subwf.id", "parent.xwf.id", "child.job.id",
            "parent.job.id", "child.task.id", "parent.task.id", "count", "size", "name",
            "stdout.text", "stderr.text", "total_memory", "multiplier_factor", "clustered",
            "remote_cpu_time", "succeeded", "failed", "duration", "reason", "dax.index",
            "restart_count", "max_retries", "task_count", "transformation", "user"]
ID_KEYS = {"xwf.id": "w", "job.id": "j", "task.id": "t", "job_inst.id": "1", "inv.id": "1",
           "child.job.id": "j", "parent.job.id": "k", "child.task.id": "t",
           "parent.task.id": "u", "subwf.id": "s", "lfn.id": "f.a", "hostname": "h",
           "key": "k"}
ODD_VALUES = st.one_of(
    st.sampled_from(["1", "0", "-1", "2", "x", "", "1.5", "1e999", "1.5e999", "-1e999", "nan", "inf",
                     "None", "null", "99999999999999999999", "%ZZ%0A", "1970-01-01T00:00:00Z",
                     "9" * 5000]),
    VALUES,
)


@st.composite
def pegasus_events(draw):
    event = draw(st.sampled_from(KNOWN_EVENTS + ["no.such.event"]))
    pairs = {"ts": draw(st.sampled_from(["1", "2.5", "2012-03-13T12:35:36Z", "bad"])),
             "event": draw(st.sampled_from(["", "stampede."])) + event}
    for key, good in ID_KEYS.items():  # usually well identified, so the handlers run deep
        if draw(st.integers(0, 9)):
            pairs[key] = good
    for key in draw(st.lists(st.sampled_from(KEY_POOL), max_size=6, unique=True)):
        pairs[key] = draw(ODD_VALUES)
    return bp_line(pairs)


@FUZZ
@given(lines=st.lists(pegasus_events(), max_size=12))
def test_random_pegasus_events_never_crash_the_loader(lines):
    """Every event handler, fed missing keys and odd values: records or our error."""
    try:
        for record in parse_lines(lines, LoadReport("gen", "pegasus-bp")):
            check_record(record)
    except LineageError:
        pass
    report = LoadReport("gen", "pegasus-bp", lenient=True)
    for record in parse_lines(lines, report):  # lenient: never raises on these
        check_record(record)


@needs_corpus
def test_a_line_over_the_limit_is_rejected_without_reading_it_whole(tmp_path, monkeypatch):
    from lineage.sources.pegasus import bp as pegasus_bp

    monkeypatch.setattr(pegasus_bp, "MAX_LINE", 4096)
    good = (SAMPLES / "pegasus" / "process_wf_failure.static.bp").read_bytes()
    path = tmp_path / "long.bp"
    path.write_bytes(good + b'ts=1 event=task.info xwf.id=w task.id=t argv="' + b"x" * 50_000
                     + b'"\n' + good)
    from lineage.errors import ParseError

    with pytest.raises(ParseError, match=rf"{path}:15: expected a line of at most 4096 bytes"):
        list(pegasus_bp.parse(path, LoadReport(str(path), "pegasus-bp")))
    report = LoadReport(str(path), "pegasus-bp", lenient=True)
    records = list(pegasus_bp.parse(path, report))
    assert dict(report.skipped) == {"expected a line of at most 4096 bytes": 1}
    assert "pegasus:task:w:t" not in {r.uid for r in records if isinstance(r, Node)}


def test_a_17_mib_line_fails_with_the_real_limit(tmp_path):
    from lineage.errors import ParseError
    from lineage.sources.pegasus import bp as pegasus_bp

    path = tmp_path / "huge.bp"
    with open(path, "wb") as fh:
        fh.write(b"ts=1 event=task.info xwf.id=w task.id=t argv=")
        fh.write(b"y" * (pegasus_bp.MAX_LINE + 1024))
        fh.write(b"\n")
    with pytest.raises(ParseError, match=r":1: expected a line of at most 16777216 bytes"):
        list(pegasus_bp.parse(path, LoadReport(str(path), "pegasus-bp")))
