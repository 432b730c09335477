"""Worst cases that must not exhaust memory: each ends in a clear, bounded error."""

import json
import subprocess
import sys

import pytest

from lineage.errors import ParseError
from lineage.sources.base import LoadReport
from lineage.sources.xalt.syslog import MAX_INFLATED, parse_syslog_lines

from .xalt_helpers import syslog_lines
from .corpus import derived, needs_corpus


def test_a_zlib_bomb_in_a_v2_syslog_record_is_refused_without_inflating_it():
    record = json.dumps({"xalt_run_uuid": "u1", "package_name": "x" * 16, "program": "R",
                         "pad": "0" * (MAX_INFLATED + 1024)})
    lines = syslog_lines(record, key="pkg_u1", kind="pkg", version=2, block=100_000)
    assert sum(len(line) for line in lines) < MAX_INFLATED // 50  # a small input...
    for lenient in (False, True):  # ...a damaged record of a syslog: skipped, strict too
        report = LoadReport("bomb.log", "xalt-syslog", lenient=lenient)
        assert list(parse_syslog_lines(lines, report)) == []
        assert sum(report.skipped.values()) == 1
        assert "inflating to more than" in report.warnings[0]


BOMB_SCRIPT = """
import base64, resource, sys, zlib
from lineage.sources.base import LoadReport
from lineage.sources.xalt.syslog import parse_syslog_lines

deflate = zlib.compressobj(9)
parts = [deflate.compress(b'{"xalt_run_uuid": "u", "package_name": "p", "program": "R", "pad": "')]
zeros = b"0" * (1 << 20)
parts += [deflate.compress(zeros) for _ in range(400)]   # 400 MiB once inflated
parts += [deflate.compress(b'"}'), deflate.flush()]
payload = base64.b64encode(b"".join(parts)).decode()
chunks = [payload[i:i + 100000] for i in range(0, len(payload), 100000)]
lines = [f"Jun 29 11:48:33 c455 XALT_LOGGING_s2: V:2 kind:pkg idx:{i} nb:{len(chunks)} "
         f"syshost:s2 key:pkg_u value:{c}" for i, c in enumerate(chunks)]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
report = LoadReport("bomb.log", "xalt-syslog", lenient=True)
list(parse_syslog_lines(lines, report))
assert sum(report.skipped.values()) == 1, report.skipped
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
"""


def test_the_bomb_costs_bounded_memory():
    """Peak RSS while reading a bomb that inflates to 400 MiB grows by about one cap at most
    (measured in a child process, whose peak starts low)."""
    grown_kb = int(subprocess.run([sys.executable, "-c", BOMB_SCRIPT], capture_output=True,
                                  text=True, check=True).stdout.strip())
    assert grown_kb < 2 * MAX_INFLATED // 1024, grown_kb


NESTING_SCRIPT = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # 1 GiB: the old reader needed 20
from pathlib import Path
from lineage.sources.base import LoadReport
from lineage.sources.chimbuko.mapping import parse_json

sample = json.loads(Path(sys.argv[1]).read_text())
good = json.dumps(sample[0])
bomb = good[:-1] + ', "deep": ' + "[" * 200000 + "]" * 200000 + "}"
path = Path(sys.argv[2])
path.write_text("[" + good + ", " + bomb + ", " + good + "]")
report = LoadReport(str(path), "chimbuko-json", lenient=True)
records = list(parse_json(path, report))
print(json.dumps({"skipped": dict(report.skipped), "records": len(records),
                  "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


@needs_corpus
def test_deeply_nested_chimbuko_json_is_refused_in_bounded_memory(tmp_path):
    from .conftest import SAMPLES

    sample = SAMPLES / "chimbuko" / "provdb_v2_anomalies.json"
    out = subprocess.run([sys.executable, "-c", NESTING_SCRIPT, str(sample),
                          str(tmp_path / "deep.json")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-500:]
    result = json.loads(out.stdout)
    assert result["skipped"] == {"expected JSON nested at most 256 levels deep": 1}
    assert result["records"] > 0  # the two good records around it are read
    print("peak RSS of the nesting bomb (KB):", result["maxrss_kb"])


@needs_corpus
@pytest.mark.parametrize("column,update,message", [
    ("exitcode", "UPDATE job_instance SET exitcode = 'abc' WHERE rowid = 1",
     r"job_instance row \(.*job_instance.job_instance_id 1.*\): expected an integer in column "
     r"job_instance.exitcode, found 'abc'"),
    # NUMERIC columns: SQLAlchemy's own conversion refused the text (found by hypothesis)
    ("timestamp", "UPDATE jobstate SET timestamp = 'yesterday' WHERE rowid = 1",
     r"jobstate row \(job_instance.job_id 5, job_instance.job_submit_seq 1, jobstate.state "
     r"SUBMIT\): expected a number in column jobstate.timestamp, found 'yesterday'"),
    ("remote_duration", "UPDATE invocation SET remote_duration = 'long' WHERE rowid = 3",
     r"invocation row \(invocation.task_submit_seq 1, .*job.exec_job_id ls_ID0000001.*\): "
     r"expected a number in column invocation.remote_duration, found 'long'"),
    ("maxrss", "UPDATE invocation SET maxrss = 1e30 WHERE rowid = 2",
     r"expected an integer of 64 bits in column invocation.maxrss, found '1e\+30'"),
    ("argv", "UPDATE job SET argv = x'00fffe' WHERE rowid = 1", r"Job.argv: expected string"),
])
def test_wrong_types_in_a_stampede_database_are_one_clear_error(tmp_path, column, update,
                                                                 message):
    """Strict or lenient, a value of the wrong type stops the input with one error naming the
    file, the row by its ids, the column and the value; the parser itself raises it (the
    project's error, not SQLAlchemy's TypeError), so nothing of the input is written. A BLOB
    where text belongs reaches the graph model, which refuses the record: lenient skips it."""
    import shutil
    import sqlite3

    from lineage.load.inputs import Input
    from lineage.load.pipeline import parse_to_spool
    from lineage.sources import registry

    from .conftest import SAMPLES

    db = tmp_path / f"{column}.stampede.db"
    shutil.copy(SAMPLES / "pegasus" / "process_wf_failure.stampede.db", db)
    with sqlite3.connect(db) as conn:
        conn.execute(update)
    fmt = registry.detect(db)
    with pytest.raises(ParseError, match=rf"{column}.stampede.db.*{message}"):
        parse_to_spool(Input(str(db), fmt, True), LoadReport(str(db), fmt.name))
    lenient = LoadReport(str(db), fmt.name, lenient=True)
    if column == "argv":  # refused by the graph model, after the parser: a record to skip
        parse_to_spool(Input(str(db), fmt, True), lenient).close()
        assert lenient.skipped == {"expected a record the graph model allows": 1}
        return
    with pytest.raises(ParseError, match=rf"{column}.stampede.db.*{message}"):
        parse_to_spool(Input(str(db), fmt, True), lenient)
    with pytest.raises(ParseError, match=message):
        for _ in fmt.parse(db, LoadReport(str(db), fmt.name)):
            pass


@needs_corpus
def test_a_column_declared_numeric_over_text_rows_is_one_clear_error(tmp_path):
    """Found by the fuzz test in CI: one flipped bit made the schema say ``argv UEXT``, which
    SQLite and SQLAlchemy read as NUMERIC, and SQLAlchemy's conversion of the text rows
    escaped as a TypeError. Now the parser names the row, the column and the value."""
    from .conftest import SAMPLES

    data = bytearray((SAMPLES / "pegasus" / "hierarchical_wf_success.stampede.db").read_bytes())
    at = data.find(b"argv TEXT", data.find(b"CREATE TABLE job ("))
    data[at + len("argv ")] ^= 1  # TEXT -> UEXT
    db = tmp_path / "flipped.stampede.db"
    db.write_bytes(bytes(data))
    from lineage.sources import registry

    fmt = registry.detect(db)
    with pytest.raises(ParseError, match=r"flipped.stampede.db:job row \(job.job_id \d+.*\): "
                                         r"expected a number in column job.argv, found '.*"):
        for _ in fmt.parse(db, LoadReport(str(db), fmt.name, lenient=True)):
            pass


@pytest.mark.parametrize("args", [
    ["query", "chimbuko/top_anomalies", "-p", "limit=99999999999999999999"],
    ["query", "RETURN $x AS x", "-p", "x=99999999999999999999"],
    ["query", "chimbuko/top_anomalies", "-p", "limit=1e30"],
])
def test_out_of_range_parameters_are_usage_errors(args, cli_env):
    """No traceback: a parameter Neo4j cannot hold is refused before any query (exit 2)."""
    from click.testing import CliRunner

    from lineage import cli

    out = CliRunner(env=cli_env).invoke(cli.main, args)
    assert out.exit_code == cli.EXIT_USAGE, out.output
    assert "Traceback" not in out.output and "error:" in out.output


@needs_corpus
def test_a_stampede_database_locked_by_a_writer_is_reported_not_unrecognised(tmp_path):
    import shutil
    import sqlite3

    from lineage.load.inputs import Input
    from lineage.load.pipeline import parse_to_spool
    from lineage.sources import registry

    from .conftest import SAMPLES

    db = tmp_path / "run.stampede.db"
    shutil.copy(SAMPLES / "pegasus" / "process_wf_failure.stampede.db", db)
    writer = sqlite3.connect(db, timeout=0, isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")  # monitord in the middle of a write
    try:
        fmt = registry.detect(db)
        assert fmt is not None and fmt.name == "pegasus-stampede-db"
        with pytest.raises(ParseError, match="locked"):
            parse_to_spool(Input(str(db), fmt, True), LoadReport(str(db), fmt.name))
    finally:
        writer.execute("ROLLBACK")
        writer.close()


@needs_corpus
def test_a_full_spool_disk_is_one_clear_error(tmp_path, monkeypatch):
    import errno

    from lineage.load import pipeline
    from lineage.load.inputs import Input
    from lineage.load.spool import DiskStore
    from lineage.errors import LineageError
    from lineage.sources import registry

    from .conftest import SAMPLES

    def no_space(self, rows):  # the spool's first write to disk
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(DiskStore, "put_nodes", no_space)
    path = SAMPLES / "pegasus" / "blackdiamond-4.0.bp"
    fmt = registry.detect(path)
    with pytest.raises(LineageError, match="no space left for the spool.*TMPDIR"):
        pipeline.parse_to_spool(Input(str(path), fmt, True),
                                LoadReport(str(path), fmt.name))


@needs_corpus
def test_deep_nesting_in_xalt_and_monitord_json_is_a_parse_error(tmp_path):
    from lineage.sources import registry


    deep = "[" * 100_000 + "]" * 100_000
    xalt = tmp_path / "run.deep.json"
    record = json.loads(XALT_RUN_TEXT())
    xalt.write_text(json.dumps(record)[:-1] + ', "deep": ' + deep + "}")
    monitord = tmp_path / "deep.jsonl"
    line = (derived() / "pegasus" / "blackdiamond-4.0.jsonl").read_text().splitlines()[0]
    monitord.write_text(line[:-1] + ', "deep": ' + deep + "}\n")
    for path in (xalt, monitord):
        fmt = registry.detect(path)
        with pytest.raises(ParseError, match="nest|flat"):
            list(fmt.parse(path, LoadReport(str(path), fmt.name)))


def XALT_RUN_TEXT():
    from .conftest import SAMPLES

    return next((SAMPLES / "xalt").glob("run.*.json")).read_text()


def test_batches_are_bounded_in_bytes_too(lin):
    """300 rows of 200 KB values go in several transactions, not one of 60 MB."""
    from lineage import model
    from lineage.load import writer
    from lineage.model.records import Node

    sent = []
    original = writer._write_nodes

    def counting(tx, groups, tag, *rest):
        sent.append(sum(len(rows) for rows in groups.values()))
        return original(tx, groups, tag, *rest)

    host = model.kind("Host")
    nodes = [Node(host, host.uid(f"n{i}"), {"name": f"n{i}", "uname": "x" * 200_000})
             for i in range(300)]
    writer._write_nodes = counting
    try:
        writer.Writer(lin.graph.driver, lin.graph.database).write_nodes(nodes)
    finally:
        writer._write_nodes = original
    assert sum(sent) == 300 and len(sent) >= 3 and max(sent) <= writer.BATCH_BYTES // 200_000 + 1
    assert lin.query("MATCH (h:Host) RETURN count(h) AS n")[0]["n"] == 300
