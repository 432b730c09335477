"""The demo's generated files against the real files of their formats: every event, key,
table, column, field and line shape a generator writes is one the real files have, with
the same value type (``../shared/samples``; no server needed)."""

from __future__ import annotations

import json
import re
import sqlite3
from collections import defaultdict

import pytest

from lineage.sources.pegasus.netlogger import parse_line
from lineage.sources.xalt.mapping import check_crc

from . import demo_scenario as demo
from .corpus import SAMPLES, needs_corpus

pytestmark = needs_corpus

PEGASUS, XALT, CHIMBUKO, SWIFT = (SAMPLES / s for s in ("pegasus", "xalt", "chimbuko", "swift"))


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    return demo.write(tmp_path_factory.mktemp("demo"))


def kind_of(value: str) -> str:
    """The type a BP value spells: int, float, timestamp or text."""
    if re.fullmatch(r"-?\d+", value):
        return "int"
    if re.fullmatch(r"-?\d+\.\d*(e-?\d+)?", value):
        return "float"
    if re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", value):
        return "timestamp"
    return "text"


def bp_events(path) -> list[dict]:
    return [parse_line(line) for line in path.read_text().splitlines() if line.strip()]


def test_bp_events_keys_and_value_types_are_the_real_streams(written):
    real_types: dict[tuple, set] = defaultdict(set)  # (event, key) -> kinds
    always: dict[str, set] = {}  # event -> keys every real occurrence carries
    for name in ("blackdiamond-4.0.bp", "process_wf_failure.static.bp",
                 "hierarchical_wf_success.static.bp"):
        for ev in bp_events(PEGASUS / name):
            event = ev["event"].removeprefix("stampede.")
            for key, value in ev.items():
                real_types[(event, key)].add(kind_of(value))
            if name.startswith("blackdiamond"):  # the monitord stream the demo writes like
                always[event] = always.get(event, set(ev)) & set(ev)
    bps = [p for p in demo.paths(written, "pegasus") if p.suffix == ".bp"]
    assert len(bps) == 2
    seen = set()
    for path in bps:
        for ev in bp_events(path):
            event = ev["event"]
            assert event.startswith("stampede.") and ev["level"] == "Info", ev  # monitord's
            event = event.removeprefix("stampede.")
            seen.add(event)
            for key, value in ev.items():
                assert (event, key) in real_types, f"{path.name}: {event} {key}"
                assert kind_of(value) in real_types[(event, key)], (event, key, value)
            missing = always.get(event, set()) - set(ev)
            assert not missing, f"{path.name}: {event} lacks {missing}"
    # every kind of event the real run stream carries for a job attempt is written
    assert {"job_inst.submit.end", "job_inst.main.end", "job_inst.post.end", "inv.end",
            "job_inst.host.info", "task.info", "job.edge", "xwf.end"} <= seen


def schema(path) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {t: [tuple(c[1:4]) + (c[5],) for c in conn.execute(f'PRAGMA table_info("{t}")')]
                for t in tables}
    finally:
        conn.close()


def storage_classes(path) -> dict[tuple, set]:
    """(table, column) -> the SQLite storage classes of its non-null values."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    out: dict[tuple, set] = defaultdict(set)
    try:
        for table, columns in schema(path).items():
            for name, *_ in columns:
                for (kind,) in conn.execute(f'SELECT DISTINCT typeof("{name}") FROM "{table}" '
                                            f'WHERE "{name}" IS NOT NULL'):
                    out[(table, name)].add(kind)
        return out
    finally:
        conn.close()


AFFINITY = {"INTEGER": {"integer"}, "BOOLEAN": {"integer"}, "TEXT": {"text"},
            "VARCHAR": {"text"}, "NUMERIC": {"integer", "real"}, "DATETIME": {"text"}}


def test_stampede_db_has_the_real_tables_columns_and_value_types(written):
    reals = [PEGASUS / "process_wf_failure.stampede.db",
             PEGASUS / "hierarchical_wf_success.stampede.db"]
    real_schema = schema(reals[0])
    assert schema(reals[1]) == real_schema  # both real databases: one schema
    real_classes: dict[tuple, set] = defaultdict(set)
    for path in reals:
        for key, kinds in storage_classes(path).items():
            real_classes[key] |= kinds
    dbs = [p for p in demo.paths(written, "pegasus") if p.name.endswith(".stampede.db")]
    assert len(dbs) == 2
    for path in dbs:
        assert schema(path) == real_schema  # tables, columns, declared types, not null, keys
        types = dict((t, {c[0]: c[1] for c in cols}) for t, cols in real_schema.items())
        for (table, column), kinds in storage_classes(path).items():
            expected = real_classes.get((table, column)) or AFFINITY[
                types[table][column].split("(")[0]]  # columns the real files leave empty
            assert kinds <= expected, (path.name, table, column, kinds, expected)
        filled = {t for (t, _c) in storage_classes(path)}
        assert {"workflow", "job", "job_instance", "jobstate", "invocation", "task",
                "workflow_files", "rc_lfn"} <= filled


def types_of(value) -> object:
    """A JSON value's shape: its type, with the types inside lists and objects."""
    if isinstance(value, dict):
        return {k: types_of(v) for k, v in value.items()}
    if isinstance(value, list):
        return ["list", sorted({json.dumps(types_of(v), sort_keys=True) for v in value})]
    return type(value).__name__


def assert_like(generated: dict, real: dict, where: str, extra: frozenset = frozenset()):
    """Every key of ``generated`` is a key of ``real`` (or in ``extra``) with a value of the
    same type; objects are compared key by key, lists item by item against the real ones."""
    for key, value in generated.items():
        if key in extra:
            continue
        assert key in real, f"{where}: key {key!r} is in no real record"
        ref = real[key]
        if isinstance(value, dict) and isinstance(ref, dict) and ref:
            assert_like(value, ref, f"{where}.{key}")
        elif isinstance(value, list) and isinstance(ref, list):
            kinds = {json.dumps(types_of(v), sort_keys=True) for v in ref}
            for item in value:
                if isinstance(item, dict) and ref and isinstance(ref[0], dict):
                    assert_like(item, ref[0], f"{where}.{key}[]")
                else:
                    assert json.dumps(types_of(item), sort_keys=True) in kinds, (where, key, item)
        else:
            assert type(value) is type(ref), f"{where}.{key}: {value!r} against {ref!r}"


def test_xalt_records_have_the_real_keys_and_types_crc_first(written):
    real_run = json.loads(next(XALT.glob("run.*.json")).read_text())
    # The real sample is a start record. An end record adds userT.exit_status: XALT's own
    # loader reads it there (XALTdb.run_to_db: userT.get('exit_status', 0), read in its source).
    real_run["userT"].setdefault("exit_status", 0)
    real_links = [json.loads(p.read_text()) for p in sorted(XALT.glob("link.*.json"))]
    real_link: dict = {}  # the union of their keys, an empty list giving way to a full one
    for rec in real_links:
        for key, value in rec.items():
            if not real_link.get(key):
                real_link[key] = value
    files = demo.paths(written, "xalt")
    runs = [p for p in files if p.name.startswith("run.")]
    links = [p for p in files if p.name.startswith("link.")]
    assert len(runs) == 26 and len(links) == 5
    ends = {}
    for path in files:
        text = path.read_text()
        assert text.startswith('{"crc":"0x') and check_crc(text.encode()) == "ok", path.name
        record = json.loads(text)
        assert list(record)[0] == "crc"
        if path in runs:
            assert_like(record, real_run, path.name, frozenset({"crc"}))
            assert all(isinstance(v, str) for v in record["envT"].values())
            assert all(len(pair) == 2 for pair in record["libA"])
            kind = path.name.split(".")[-3]
            end = record["userDT"]["end_time"]
            assert (end == 0.0) == (kind == "aaa"), path.name
            ends.setdefault(record["userT"]["run_uuid"], set()).add(kind)
        else:
            assert_like(record, real_link, path.name, frozenset({"crc"}))
            assert all(len(pair) == 2 for pair in record["linkA"])
    assert set(map(frozenset, ends.values())) == {frozenset({"aaa", "zzz"})}  # one run, two


def test_chimbuko_records_have_the_v2_keys_and_types(written):
    v2 = json.loads((CHIMBUKO / "provdb_v2_anomalies.json").read_text())
    v0 = json.loads((CHIMBUKO / "provdb_v0_anomalies.json").read_text())
    comm = next(c for r in v0 for c in r["event_window"]["comm_window"])  # v2's are all empty
    real_meta = json.loads((CHIMBUKO / "provdb_v0_metadata.json").read_text())[0]
    anomalies, metadata = (json.loads(p.read_text()) for p in demo.paths(written, "chimbuko"))
    assert len(anomalies) == len(demo.INSTRUMENTED.slow_calls) == 9
    with_comm = 0
    for rec in anomalies:
        assert set(rec) == set(v2[0]), set(rec) ^ set(v2[0])
        assert rec["version"] == 2 and rec["pid"] == 0
        for key, value in rec.items():
            if key in ("algo_params", "event_window", "node_state", "call_stack"):
                continue
            assert type(value) is type(v2[0][key]), (key, value, v2[0][key])
        assert types_of(rec["algo_params"]) == {
            **types_of(v2[0]["algo_params"]),
            "histogram": {**types_of(v2[0]["algo_params"])["histogram"]}}
        for frame in rec["call_stack"]:
            assert types_of(frame) == types_of(v2[0]["call_stack"][0])
        for entry in rec["event_window"]["exec_window"]:
            assert types_of(entry) == types_of(v2[0]["event_window"]["exec_window"][0])
        for message in rec["event_window"]["comm_window"]:
            assert types_of(message) == types_of(comm)
            with_comm += 1
        for item in rec["node_state"]["data"]:
            assert types_of(item) == types_of(v2[0]["node_state"]["data"][0])
        assert rec["call_stack"][0]["event_id"] == rec["event_id"]
    assert with_comm > 0  # the collectives' messages: a communication window
    for rec in metadata:
        # pid: written by today's Chimbuko (MetaData_t::get_json), typed as the v2 records'
        assert_like(rec, real_meta, "metadata", frozenset({"pid"}))
        assert type(rec["pid"]) is type(v2[0]["pid"])
    assert {r["descr"] for r in metadata} >= {"Hostname", "Executable", "Command Line",
                                              "Starting Timestamp"}


_STAMP = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}[+-]\d{4} ")


def shape(line: str) -> str:
    """A Swift log line with its time, the values of its key=value fields, tags, paths,
    numbers and the procedure naming a PROCEDURE line left out: what stays is how the line
    is written."""
    if not _STAMP.match(line):
        return "<continuation>" if line.strip() else ""
    words = []
    for word in _STAMP.sub("", line).split():
        if "=" in word:
            word = word.split("=", 1)[0] + "=*"
        elif (word.startswith("tag:") or word.endswith(".swift:") or "/" in word
              or any(c.isdigit() for c in word)):
            word = "*"
        words.append(word)
    if len(words) > 2 and words[2] == "PROCEDURE":
        words[1] = "*"  # the logger of a PROCEDURE line is the procedure
    text = " ".join(words)
    return re.sub(r"\btype \S+ (value|with)", r"type * \1", text)


def test_swift_log_lines_have_the_shapes_of_the_real_logs(written):
    real = {shape(line) for path in SWIFT.glob("*.log") for line in path.read_text().splitlines()}
    [log] = demo.paths(written, "swift")
    lines = log.read_text().splitlines()
    unknown = sorted({shape(line) for line in lines} - real)
    assert not unknown, unknown
    words = {line.split()[4] for line in lines if _STAMP.match(line) and len(line.split()) > 4}
    assert {"PARAM", "FILENAME", "VALUE", "PROCEDURE", "RUNID", "THREAD_ASSOCIATION",
            "JOB_START", "FILE_STAGE_OUT_START"} <= words
