"""A large input read in a child process (lineage/reader_process.py) gives what the same input
read in this process gives: the same spooled rows, the same report, the same errors.

Each case parses twice, with ``reader_process_bytes=None`` (never a child) and ``0`` (a child
for every file), and compares. No database: the spool is what a load writes.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from lineage import model
from lineage.load import reader_process
from lineage.errors import LineageError, ParseError, WholeInputError
from lineage.load.inputs import Input
from lineage.load.pipeline import parse_to_spool
from lineage.model.records import Edge, Node
from lineage.config.settings import LoadOptions
from lineage.sources.base import Format, LoadReport

from .test_malformed_corpus import FILES, IDS, expectation, format_of
from .corpus import inputs, needs_corpus

IN_PROCESS, IN_A_CHILD = LoadOptions(reader_process_bytes=None), LoadOptions(reader_process_bytes=0)
SAMPLE_INPUTS = inputs()


def outcome(item: Input, options: LoadOptions) -> tuple:
    """(node rows, edge rows, report summary) or (exception type, message, summary)."""
    report = LoadReport(item.path, item.format.name, lenient=options.lenient, options=options)
    try:
        spool = parse_to_spool(item, report)
    except Exception as exc:  # noqa: BLE001 - compared between the two ways
        return type(exc), str(exc), report.summary()
    try:
        return list(spool.node_rows()), list(spool.edge_rows()), report.summary()
    finally:
        spool.close()


@needs_corpus
def test_the_child_is_used_when_asked_and_not_below_the_size():
    bp = next(i for i in SAMPLE_INPUTS if i.format.name == "pegasus-bp")
    size = Path(bp.path).stat().st_size
    assert reader_process.worth_a_process(bp.format, bp.path, IN_A_CHILD)
    assert not reader_process.worth_a_process(bp.format, bp.path,
                                              LoadOptions(reader_process_bytes=size + 1))
    assert not reader_process.worth_a_process(bp.format, bp.path, IN_PROCESS)
    assert not reader_process.worth_a_process(bp.format, "postgresql://db/x", IN_A_CHILD)
    unqlite = next(f for f in __import__("lineage.sources.registry", fromlist=["x"]).formats()
                   if f.name == "chimbuko-unqlite")
    assert not reader_process.worth_a_process(unqlite, bp.path, IN_A_CHILD)  # own process


@needs_corpus
@pytest.mark.parametrize("item", SAMPLE_INPUTS, ids=lambda i: i.path.rsplit("/", 1)[-1])
def test_every_sample_reads_the_same_in_a_child(item, monkeypatch):
    children = []
    real = reader_process.records
    monkeypatch.setattr(reader_process, "records",
                        lambda *a: children.append(1) or real(*a))
    here = outcome(item, IN_PROCESS)
    assert not children
    there = outcome(item, IN_A_CHILD)
    assert children or item.format.own_process
    assert here[0] and here[0] == there[0]
    assert here[1:] == there[1:]


@pytest.mark.parametrize("lenient", [False, True], ids=["strict", "lenient"])
@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_every_malformed_input_fails_or_skips_the_same_in_a_child(path, lenient):
    fmt = format_of(expectation(path))
    item = Input(str(path), fmt, True)
    here = outcome(item, LoadOptions(lenient=lenient, reader_process_bytes=None))
    there = outcome(item, LoadOptions(lenient=lenient, reader_process_bytes=0))
    assert here == there


# ------------------------------------------------------------------ readers that misbehave
def _format(parse) -> Format:
    return Format(name="test-reader", source="test", detect=lambda p, h: False, parse=parse)


JOB = model.NODE_KINDS["Job"]


def _job(n: int) -> Node:
    return Node(JOB, JOB.uid("w", f"j{n}"), {"job_id": f"j{n}", "xwf_id": "w"})


def _outcomes(tmp_path: Path, parse, lenient: bool = False, here: bool = True) -> tuple:
    """The outcome read in this process (None when ``here`` is false) and in a child."""
    path = tmp_path / "input.txt"
    path.write_text("x\n")
    item = Input(str(path), _format(parse), True)
    return (outcome(item, LoadOptions(lenient=lenient, reader_process_bytes=None)) if here
            else None, outcome(item, LoadOptions(lenient=lenient, reader_process_bytes=0)))


def test_a_reader_error_after_records_is_the_same_error(tmp_path):
    def parse(path, report):
        for n in range(5000):  # more than one chunk before the error
            yield _job(n)
        report.skip(str(path), 7, "a line the reader knows", "garbage")

    here, there = _outcomes(tmp_path, parse)
    assert here[0] is ParseError and there == here
    assert "input.txt:7: expected a line the reader knows" in there[1]


def test_lenient_skips_warnings_and_counters_come_back_merged(tmp_path):
    def parse(path, report):
        report.extra["events"] = {"job": 3}
        report.unknown_item("event odd")
        yield _job(1)
        report.skip(str(path), 2, "a good line", "bad")
        yield Node(model.NODE_KINDS["Job"], "pegasus:job:w:j2", {"colour": "red"})  # parent skips
        yield ("not", "a", "record")  # the spool refuses it, as unsent
        yield _job(3)
        report.warn("a reader warning after the parent's skips")

    here, there = _outcomes(tmp_path, parse, lenient=True)
    assert here[:2] == there[:2]
    summary = there[2]
    assert {**summary, "warnings": sorted(summary["warnings"])} == {
        **here[2], "warnings": sorted(here[2]["warnings"])}
    assert summary["skipped"] == {"expected a good line": 1,
                                  "expected a record the graph model allows": 2}
    assert summary["unknown"] == {"event odd": 1} and summary["events"] == {"job": 3}
    assert summary["warning_count"] == 4
    # the reader's own warnings first, then those of the checks made here
    assert "input.txt:2: expected a good line" in summary["warnings"][0]
    assert summary["warnings"][1] == "a reader warning after the parent's skips"
    assert "graph record 2" in summary["warnings"][2]
    assert [r[1] for r in there[0]] == ["pegasus:job:w:j1", "pegasus:job:w:j3"]


def test_a_record_the_model_refuses_stops_a_strict_parse_the_same_way(tmp_path):
    def parse(path, report):
        yield _job(1)
        yield Edge(model.REL_TYPES["USED"], "host:a", "host:b")

    here, there = _outcomes(tmp_path, parse)
    assert here[0] is ParseError and there == here
    assert "graph record 2" in there[1] and "(:Host)-[:USED]->(:Host)" in there[1]


def test_a_value_pickle_cannot_carry_is_refused_with_the_record_number(tmp_path):
    def parse(path, report):
        yield _job(1)
        yield Node(model.NODE_KINDS["Job"], "pegasus:job:w:j2", {"job_id": lambda: 1})

    here, there = _outcomes(tmp_path, parse, lenient=True)
    assert [r[1] for r in here[0]] == [r[1] for r in there[0]] == ["pegasus:job:w:j1"]
    assert there[2]["skipped"] == {"expected a record the graph model allows": 1}
    assert "graph record 2" in there[2]["warnings"][0]


@pytest.mark.parametrize("raised", [ValueError("bad int"), OSError(5, "I/O error", "x"),
                                    model.ModelError("Job", "job_id", "a uid part is missing"),
                                    RuntimeError("a reader bug")],
                         ids=lambda e: type(e).__name__)
def test_the_readers_own_exceptions_come_back_as_themselves(tmp_path, raised):
    def parse(path, report):
        yield _job(1)
        raise raised

    here, there = _outcomes(tmp_path, parse)
    assert here == there
    # a wrong value or a uid the model cannot build stops the input in either mode
    expected = {ValueError: WholeInputError, model.ModelError: WholeInputError}
    assert here[0] is expected.get(type(raised), type(raised))


def test_an_exception_pickle_cannot_carry_comes_back_as_its_text(tmp_path):
    class Odd(Exception):
        def __init__(self, a, b):
            super().__init__(f"{a}/{b}")

    def parse(path, report):
        yield _job(1)
        raise Odd(1, 2)

    _, there = _outcomes(tmp_path, parse)
    assert there[0] is LineageError and there[1] == "Odd: 1/2"


def test_a_killed_child_is_an_error_naming_the_input(tmp_path):
    def parse(path, report):
        yield _job(1)
        os.kill(os.getpid(), signal.SIGKILL)  # runs in the child: the OOM killer's way
        yield _job(2)

    _, there = _outcomes(tmp_path, parse, here=False)  # it would kill the test run here
    assert there[0] is reader_process.ReaderProcessError
    assert "input.txt" in there[1] and "exit code -9" in there[1]


def _endless(tmp_path: Path, first: list | None = None) -> tuple[Input, Path]:
    """An input whose reader writes its process id to a file, yields ``first`` and then
    jobs without end; and that file."""
    pids = tmp_path / "pids"

    def parse(path, report):
        pids.write_text(str(os.getpid()))
        yield from first or []
        for n in range(10**9):
            yield _job(n)

    path = tmp_path / "input.txt"
    path.write_text("x\n")
    return Input(str(path), _format(parse), True), pids


def _ends(pids: Path) -> bool:
    """Whether the process named in ``pids`` is gone within 10 s."""
    child = int(pids.read_text())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and Path(f"/proc/{child}").exists():
        time.sleep(0.05)
    return not Path(f"/proc/{child}").exists()


def test_the_child_ends_when_the_parent_stops_reading(tmp_path):
    item, pids = _endless(tmp_path)
    rows = reader_process.records(item.format.parse, Path(item.path),
                                  LoadReport(item.path, "test", options=IN_A_CHILD))
    for _ in zip(range(10), rows):
        pass
    rows.close()  # what a strict failure in the parent does (the generator is closed)
    assert _ends(pids)


def test_a_refused_record_before_a_reader_error_is_what_fails(tmp_path):
    def parse(path, report):
        yield _job(1)
        yield Edge(model.REL_TYPES["USED"], "host:a", "host:b")  # refused here, strict
        raise RuntimeError("the reader failed after it")

    here, there = _outcomes(tmp_path, parse)
    assert here[0] is ParseError and there == here
    assert "graph record 2" in there[1]


def test_a_strict_failure_here_ends_the_child_before_the_error_is_handled(tmp_path):
    """The parse's frame stays in the error's traceback (a bulk load keeps the errors of
    its inputs): the child must end all the same, or it would wait on a full pipe and an
    exiting interpreter would wait for it."""
    item, pids = _endless(tmp_path, [Edge(model.REL_TYPES["USED"], "host:a", "host:b")])
    with pytest.raises(ParseError) as kept:  # the first record is refused here, strict
        parse_to_spool(item, LoadReport(item.path, "test", options=IN_A_CHILD))
    assert kept.value.__traceback__ is not None
    assert _ends(pids)


def test_ctrl_c_stops_the_parse_and_its_child(tmp_path):
    """SIGINT reaches the parent (the child ignores it): the parse stops with
    KeyboardInterrupt and the child is ended with it. The signal is sent from the parent's
    own reading loop, once records are flowing (no timer: nothing here depends on timing).
    Python's own handler is installed first: a test run started in the background of a
    non-interactive shell inherits SIGINT ignored, and Python then installs none."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # restored below

    class CtrlCWhileReading(LoadReport):
        def tick(self, records):
            super().tick(records)
            assert records < 10**6, "SIGINT did not stop the parse"  # fail, never hang
            os.kill(os.getpid(), signal.SIGINT)

    item, pids = _endless(tmp_path)
    try:
        with pytest.raises(KeyboardInterrupt):
            parse_to_spool(item, CtrlCWhileReading(item.path, "test", options=IN_A_CHILD))
    finally:
        signal.signal(signal.SIGINT, previous)
    assert _ends(pids)
