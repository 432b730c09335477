"""``lineage watch``: increments of growing files, each one load, ending as one load of the
finished file would (against the real Neo4j; the watcher's step, ``poll_once``, is driven
directly, so no test depends on thread timing)."""

from __future__ import annotations

from pathlib import Path

from lineage.watch import increments
from lineage.watch.watcher import Watcher

from .corpus import SAMPLES, needs_corpus
from .watchgraph import content, differences, leave_half_written

BLACKDIAMOND = SAMPLES / "pegasus" / "blackdiamond-4.0.bp"


def _pieces(data: bytes, cuts: list[int]) -> list[bytes]:
    """``data`` cut at the given line numbers (a piece ends after that many lines)."""
    lines = data.splitlines(keepends=True)
    bounds = [0, *cuts, len(lines)]
    return [b"".join(lines[a:b]) for a, b in zip(bounds, bounds[1:])]


def _grow(path: Path, piece: bytes) -> None:
    with open(path, "ab") as fh:
        fh.write(piece)


def _one_load(lin, path: Path) -> tuple[dict, dict]:
    lin.reset(force=True)
    [result] = lin.load([path])
    assert result.status == "loaded", result.error
    return content(lin)


@needs_corpus
def test_bp_in_increments_ends_as_one_load(lin, tmp_path):
    data = BLACKDIAMOND.read_bytes()
    stream = tmp_path / "run" / "blackdiamond-0.bp"
    stream.parent.mkdir()
    stream.write_bytes(b"")
    watcher = Watcher(lin, [stream.parent], link=False)
    # jobs' submit, execute and end events fall into different increments
    pieces = _pieces(data, [20, 60, 61, 120, 170, 200])
    names = []
    for piece in pieces:
        # the last line written only in part (no newline yet) waits for the next look
        cut = len(piece) - 7
        _grow(stream, piece[:cut])
        names += [s.name for s in watcher.poll_once().loaded]
        _grow(stream, piece[cut:])
        names += [s.name for s in watcher.poll_once().loaded]
    assert watcher.poll_once().steps == []  # nothing new: nothing written
    ranges = [increments.byte_range(n) for n in names]
    assert ranges[0][0] == 0 and ranges[-1][1] == len(data)
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:])), ranges  # contiguous
    # a piece of one line is read once, when its newline is there
    assert len(names) == sum(2 if p.count(b"\n") > 1 else 1 for p in pieces)
    stats = {row["path"]: row["status"] for row in lin.stats()["loads"]}
    assert all(stats[n] == "loaded" for n in names)
    # newer increments replace what older ones said of a job: successive values, no conflict
    assert lin.stats()["claims"]["conflicting"] == 0
    watched = content(lin)
    assert differences(watched, _one_load(lin, stream)) == []


XALT = SAMPLES / "xalt"


def _syslog_lines(record: str, key: str, chunks: int) -> list[bytes]:
    """XALT's V:3 syslog transmission of ``record`` in ``chunks`` lines."""
    size = -(-len(record) // chunks)
    return [(f"Jun 29 11:48:33 c401 XALT_LOGGING_stampede2: V:3 kind:run idx:{i} nb:{chunks} "
             f"syshost:stampede2 key:{key} value:{record[i * size:(i + 1) * size]}\n").encode()
            for i in range(chunks)]


@needs_corpus
def test_syslog_record_split_across_increments(lin, tmp_path):
    run = next(XALT.glob("run.*.json"))
    record = " ".join(run.read_text().split())  # one line, as syslog carries it
    log = tmp_path / "xalt.log"
    log.write_bytes(b"Jun 29 11:48:00 c401 sshd[1]: an unrelated line\n")
    watcher = Watcher(lin, [log], link=False)
    lines = _syslog_lines(record, "run_strt_acc1af54", 3)
    _grow(log, lines[0] + lines[1])
    first = watcher.poll_once().loaded
    assert [s.result.nodes for s in first] == [{}] or first == [], first  # nothing complete
    assert not lin.query("MATCH (r:Run) RETURN r.uid AS uid")
    _grow(log, lines[2])
    [step] = watcher.poll_once().loaded
    assert step.runs == {r["uid"] for r in lin.query("MATCH (r:Run) RETURN r.uid AS uid")}
    assert len(step.runs) == 1
    assert differences(content(lin), _one_load(lin, log)) == []


@needs_corpus
def test_new_record_files_are_loaded_once(lin, tmp_path):
    folder = tmp_path / "xalt"
    folder.mkdir()
    watcher = Watcher(lin, [folder], link=False, settle=0)
    run = next(XALT.glob("run.*.json"))
    (folder / run.name).write_bytes(run.read_bytes())
    assert watcher.poll_once().loaded == []  # seen once: it may still be written
    [step] = watcher.poll_once().loaded
    assert step.name == str((folder / run.name).resolve())
    assert watcher.poll_once().steps == []
    # a watcher started again finds it read (the graph has its content digest)
    again = Watcher(lin, [folder], link=False, settle=0)
    assert again.poll_once().steps == [] and again.poll_once().steps == []
    assert [r["status"] for r in lin.stats()["loads"]] == ["loaded"]


def _watched(lin, tmp_path, data: bytes) -> tuple[Path, Watcher]:
    """A stream holding ``data``, and a watcher that has written it."""
    stream = tmp_path / "w.bp"
    stream.write_bytes(data)
    watcher = Watcher(lin, [stream], link=False)
    assert len(watcher.poll_once().loaded) == 1
    return stream, watcher


def test_malformed_line_stops_that_file_and_writes_nothing_of_it(lin, tmp_path):
    good = (b"ts=2024-01-01T00:00:00Z event=stampede.xwf.start level=Info xwf.id=w1 "
            b"restart_count=0\n")
    stream, watcher = _watched(lin, tmp_path, good)
    _grow(stream, b"ts=2024-01-01T00:00:01Z event=stampede.job.info xwf.id=w1 job.id=j1\n"
                  b"this is not a BP line\n")
    poll = watcher.poll_once()
    assert poll.loaded == []
    [error] = poll.errors
    assert str(stream) in error and ":3:" in error and "key" in error, error
    assert increments.committed_end(lin.graph.driver, None, str(stream)) == len(good)
    assert not lin.query("MATCH (j:Job) RETURN j")  # nothing of the failed increment
    assert watcher.poll_once().steps == []  # not followed further
    # --lenient: the bad line is skipped and counted, the rest is loaded
    lenient = Watcher(lin, [stream], link=False, options=lin.settings.load.with_(lenient=True))
    [step] = lenient.poll_once().loaded
    assert step.result.report["skipped"] and step.result.report["warning_count"] >= 1


def test_unknown_events_are_counted_and_the_rest_loaded(lin, tmp_path):
    stream = tmp_path / "w.bp"
    stream.write_bytes(b"ts=2024-01-01T00:00:00Z event=stampede.xwf.start xwf.id=w1 "
                       b"restart_count=0\n"
                       b"ts=2024-01-01T00:00:01Z event=stampede.xwf.future_thing xwf.id=w1\n")
    [step] = Watcher(lin, [stream], link=False).poll_once().loaded
    assert step.result.report["unknown"] == {"event xwf.future_thing": 1}
    assert lin.query("MATCH (w:Workflow) RETURN w.status AS s")[0]["s"] == "running"


def test_an_increment_is_unloaded_like_any_load(lin, tmp_path):
    start = (b"ts=2024-01-01T00:00:00Z event=stampede.wf.plan xwf.id=w1 dax.label=d\n"
             b"ts=2024-01-01T00:00:00Z event=stampede.xwf.start xwf.id=w1 restart_count=0\n")
    stream, watcher = _watched(lin, tmp_path, start)
    _grow(stream, b"ts=2024-01-01T00:00:09Z event=stampede.xwf.end xwf.id=w1 status=0 "
                  b"restart_count=0\n")
    [step] = watcher.poll_once().loaded
    assert lin.query("MATCH (w:Workflow) RETURN w.status AS s")[0]["s"] == "succeeded"
    [row] = lin.unload(step.name)
    assert row["status"] == "unloaded"
    # what the first increment said is what the graph says again
    assert lin.query("MATCH (w:Workflow) RETURN w.status AS s, w.end_time AS e")[0] == {
        "s": "running", "e": None}
    # an unloaded increment was read: the watcher does not read it again, now or restarted
    assert watcher.poll_once().steps == []
    assert Watcher(lin, [stream], link=False).poll_once().steps == []


def test_a_watched_file_is_unloaded_by_its_path_every_increment_of_it(lin, tmp_path):
    start = (b"ts=2024-01-01T00:00:00Z event=stampede.wf.plan xwf.id=w1 dax.label=d\n"
             b"ts=2024-01-01T00:00:00Z event=stampede.xwf.start xwf.id=w1 restart_count=0\n")
    stream, watcher = _watched(lin, tmp_path, start)
    _grow(stream, b"ts=2024-01-01T00:00:09Z event=stampede.xwf.end xwf.id=w1 status=0 "
                  b"restart_count=0\n")
    assert len(watcher.poll_once().loaded) == 1
    other = tmp_path / "w.bp.old"  # a file whose name starts the same is not named by it
    other.write_bytes(start.replace(b"w1", b"w2"))
    assert len(Watcher(lin, [other], link=False).poll_once().loaded) == 1
    rows = lin.unload(str(stream))
    assert sorted(increments.byte_range(r["path"]) for r in rows) == [
        (0, len(start)), (len(start), stream.stat().st_size)]
    assert all(r["status"] == "unloaded" for r in rows)
    assert [r["id"] for r in lin.query("MATCH (w:Workflow) RETURN w.xwf_id AS id")] == ["w2"]


def test_an_increment_killed_mid_write_is_taken_off_before_reading_on(lin, tmp_path):
    stream = tmp_path / "w.bp"
    line = b"ts=2024-01-01T00:00:00Z event=stampede.xwf.start xwf.id=w1 restart_count=0\n"
    stream.write_bytes(line)
    # what a watcher killed while writing bytes 0-N leaves
    name = increments.increment_name(str(stream.resolve()), 0, len(line))
    leave_half_written(lin, "pegasus-bp", name)
    assert lin.query("MATCH (w:Workflow) RETURN w.uid AS uid")[0]["uid"].endswith("half-written")
    [step] = Watcher(lin, [stream], link=False).poll_once().loaded
    assert step.name == name
    assert [r["uid"] for r in lin.query("MATCH (w:Workflow) RETURN w.uid AS uid")] == [
        "pegasus:workflow:w1"]


def _wait(condition, what: str, deadline: float = 180.0):
    """Wait for an observable condition (a generous deadline, not a timing assumption)."""
    import time

    until = time.monotonic() + deadline
    while time.monotonic() < until:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"not seen within {deadline} s: {what}")


def _ranges(lin, path: str) -> list[tuple[int, int]]:
    rows = lin.query("MATCH (l:Load) WHERE l.path STARTS WITH $p AND l.status = 'loaded' "
                     "RETURN l.path AS path", p=increments.name_prefix(path))
    return sorted(increments.byte_range(r["path"]) for r in rows)


@needs_corpus
def test_kill_9_then_restart_gives_the_graph_of_one_load(lin, cli_env, tmp_path):
    import signal
    import subprocess
    import sys

    data = BLACKDIAMOND.read_bytes()
    first, second, rest = _pieces(data, [60, 120])
    stream = tmp_path / "run" / "blackdiamond-0.bp"
    stream.parent.mkdir()
    stream.write_bytes(first)
    path = str(stream.resolve())
    command = [sys.executable, "-m", "lineage", "watch", "--poll", "--interval", "0.1",
               "--no-link", str(stream.parent)]
    end = increments.committed_end
    watcher = subprocess.Popen(command, env=cli_env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    try:
        _wait(lambda: end(lin.graph.driver, None, path) == len(first), "the first increment")
        _grow(stream, second)
        _wait(lambda: end(lin.graph.driver, None, path) == len(first + second),
              "the second increment")
    finally:
        watcher.send_signal(signal.SIGKILL)
        watcher.wait()
    assert watcher.returncode == -signal.SIGKILL
    _grow(stream, rest)  # the jobs started in the second piece end here
    watcher = subprocess.Popen(command, env=cli_env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        _wait(lambda: end(lin.graph.driver, None, path) == len(data), "the rest, restarted")
    finally:
        watcher.send_signal(signal.SIGTERM)
        out, err = watcher.communicate(timeout=120)
    assert watcher.returncode == 0, err
    # every byte read exactly once, across the kill
    ranges = _ranges(lin, path)
    assert ranges[0][0] == 0 and ranges[-1][1] == len(data)
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:])), ranges
    assert "loaded" in out and "stopped" in err
    watched = content(lin)
    assert differences(watched, _one_load(lin, stream)) == []


@needs_corpus
def test_the_event_loop_writes_what_is_appended(lin, tmp_path):
    import threading

    data = BLACKDIAMOND.read_bytes()
    first, rest = _pieces(data, [100])
    stream = tmp_path / "run" / "blackdiamond-0.bp"
    stream.parent.mkdir()
    stream.write_bytes(first)
    watcher = Watcher(lin, [stream.parent], link=False)
    seen, how = [], []
    # the interval is longer than the deadline: only the file-system event wakes the loop
    loop = threading.Thread(target=lambda: how.append(
        watcher.run(on_poll=seen.append, interval=3600.0)))
    loop.start()
    try:
        path = str(stream.resolve())
        _wait(lambda: increments.committed_end(lin.graph.driver, None, path) == len(first),
              "what was there at the start")
        _grow(stream, rest)
        _wait(lambda: increments.committed_end(lin.graph.driver, None, path) == len(data),
              "the appended lines")
    finally:
        watcher.stop()
        loop.join(timeout=120)
    assert how == ["events"]
    assert sum(len(p.loaded) for p in seen) == 2


def _running_workflow(now: float) -> bytes:
    """A workflow of three jobs still running: one done, one executing, one waiting."""
    import time

    def ts(offset: float) -> str:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now + offset))

    lines = [f"ts={ts(-60)} event=stampede.wf.plan xwf.id=w1 dax.label=live",
             f"ts={ts(-60)} event=stampede.xwf.start xwf.id=w1 restart_count=0"]
    lines += [f"ts={ts(-60)} event=stampede.job.info xwf.id=w1 job.id=j{i} type=1 "
              f"type_desc=compute" for i in range(3)]
    lines += [f"ts={ts(-50)} event=stampede.job_inst.submit.start xwf.id=w1 job.id=j0 "
              f"job_inst.id=1",
              f"ts={ts(-40)} event=stampede.job_inst.main.start xwf.id=w1 job.id=j0 "
              f"job_inst.id=1",
              f"ts={ts(-30)} event=stampede.job_inst.main.end xwf.id=w1 job.id=j0 "
              f"job_inst.id=1 status=0 exitcode=0",
              f"ts={ts(-20)} event=stampede.job_inst.submit.start xwf.id=w1 job.id=j1 "
              f"job_inst.id=1"]
    return "".join(line + "\n" for line in lines).encode()


def test_the_report_of_a_running_workflow_says_so_and_reloads(lin, tmp_path):
    import time

    stream = tmp_path / "live.bp"
    stream.write_bytes(_running_workflow(time.time()))
    reports = tmp_path / "reports"
    watcher = Watcher(lin, [stream], link=False, report_dir=str(reports))
    poll = watcher.poll_once()
    [page] = poll.reports
    html = Path(page).read_text()
    headline = html.split('id="answer-headline">', 1)[1].split("</p>", 1)[0]
    assert headline.startswith("What happened: Running: 1 of 3 jobs done, last event "), headline
    assert headline.endswith(" s ago"), headline
    assert '<meta http-equiv="refresh" content="10">' in html
    # once the workflow has ended, the page says so and stops reloading
    _grow(stream, b"ts=2030-01-01T00:00:00Z event=stampede.xwf.end xwf.id=w1 status=1 "
                  b"restart_count=0\n")
    [page] = watcher.poll_once().reports
    html = Path(page).read_text()
    assert 'http-equiv="refresh"' not in html
    assert "Running" not in html.split('id="answer-headline">', 1)[1].split("</p>", 1)[0]


LINKS = ("MATCH (a:Lineage)-[r:SAME_ACTIVITY|RAN_WITHIN]->(b:Lineage) "
         "RETURN a.uid AS a, type(r) AS type, b.uid AS b, r.rule AS rule ORDER BY a, type, b")


def test_increments_are_linked_as_one_load_is(lin, tmp_path):
    from . import demo_scenario

    written = demo_scenario.write(tmp_path / "campaign")
    followed = [p for p in demo_scenario.paths(written, "pegasus", "xalt")
                if p.suffix in (".bp", ".json", ".db")]
    folders = sorted({str(p.parent) for p in followed})
    watcher = Watcher(lin, folders, settle=0, link_every=0)
    first, second = watcher.poll_once(), watcher.poll_once()  # record files: at the 2nd look
    last = watcher.finish()  # the link runs beside the loop: the last look waits for it
    assert last.linked is not None
    assert {s.path for s in first.loaded + second.loaded} == {str(p.resolve()) for p in followed}
    watched = list(lin.query(LINKS))
    assert watched, "the demo's XALT runs link to its Pegasus attempts"
    lin.reset(force=True)
    lin.load(followed)
    lin.link()
    assert watched == list(lin.query(LINKS))


def test_watch_once_from_the_command_line(lin, cli_env, tmp_path):
    from .conftest import run_cli

    stream = tmp_path / "w.bp"
    first = b"ts=2024-01-01T00:00:00Z event=stampede.xwf.start xwf.id=w1 restart_count=0\n"
    stream.write_bytes(first)
    out = run_cli(cli_env, "watch", "--once", "--no-link", str(tmp_path)).stdout
    assert out.startswith(f"loaded  file://{stream.resolve()}#bytes=0-")
    _grow(stream, b"ts=2024-01-01T00:00:09Z event=stampede.xwf.end xwf.id=w1 status=0 "
                  b"restart_count=0\n")
    again = run_cli(cli_env, "watch", "--once", "--no-link", str(tmp_path)).stdout
    assert [line.split()[1] for line in again.splitlines()] == [
        increments.increment_name(str(stream.resolve()), len(first), stream.stat().st_size)]
    assert run_cli(cli_env, "watch", "--once", "--no-link", str(tmp_path)).stdout == ""


@needs_corpus
def test_a_file_found_written_is_read_in_pieces_and_a_restart_goes_on(lin, tmp_path):
    from lineage.watch.follow import INCREMENTS_PER_LOOK

    stream = tmp_path / "blackdiamond-0.bp"
    stream.write_bytes(BLACKDIAMOND.read_bytes())
    watcher = Watcher(lin, [stream], link=False, max_increment=6000)
    poll = watcher.poll_once()
    assert len(poll.loaded) == INCREMENTS_PER_LOOK and poll.behind
    # a new watcher (a restart) reads what the graph says was read again, writing nothing,
    # then goes on where the first one stopped
    again = Watcher(lin, [stream], link=False, max_increment=6000)
    names = []
    while True:
        poll = again.poll_once()
        assert poll.errors == []
        names += [s.name for s in poll.loaded]
        if not poll.behind:
            break
    ranges = _ranges(lin, str(stream.resolve()))
    assert ranges[INCREMENTS_PER_LOOK][0] == increments.byte_range(names[0])[0]
    assert ranges[-1][1] == stream.stat().st_size
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:])), ranges
    assert all(b - a <= 6000 for a, b in ranges)
    assert differences(content(lin), _one_load(lin, stream)) == []


def test_a_line_longer_than_an_increment_stops_that_file(lin, tmp_path):
    stream = tmp_path / "w.bp"
    stream.write_bytes(b"ts=2024-01-01T00:00:00Z event=stampede.xwf.start xwf.id=w1 "
                       b"restart_count=0 note=" + b"x" * 200 + b"\n")
    [error] = Watcher(lin, [stream], link=False, max_increment=100).poll_once().errors
    assert error == f"{stream.resolve()}: a line of more than 100 bytes at byte 0"


@needs_corpus
def test_monitord_json_lines_in_increments_end_as_one_load(lin, tmp_path):
    import json

    from lineage.sources.pegasus.netlogger import parse_line

    # blackdiamond's events as monitord --encoding json writes them: '.' in keys becomes '_'
    events = [parse_line(line) for line in BLACKDIAMOND.read_text().splitlines() if line]
    data = "".join(json.dumps({k.replace(".", "_"): v for k, v in ev.items()}) + "\n"
                   for ev in events).encode()
    stream = tmp_path / "run" / "blackdiamond-0.jsonl"
    stream.parent.mkdir()
    stream.write_bytes(b"")
    watcher = Watcher(lin, [stream.parent], link=False)
    for piece in _pieces(data, [30, 90, 150]):
        _grow(stream, piece)
        [step] = watcher.poll_once().loaded
        assert step.result.format == "pegasus-json"
    assert differences(content(lin), _one_load(lin, stream)) == []


@needs_corpus
def test_new_chimbuko_record_files_are_loaded(lin, tmp_path):
    folder = tmp_path / "chimbuko"
    folder.mkdir()
    log = folder / "001-echo.log"  # a format no source follows: named once
    log.write_bytes((SAMPLES / "swift" / "001-echo-20090316-1711-i7icnjl1.log").read_bytes())
    watcher = Watcher(lin, [folder], link=False, settle=0)
    first = watcher.poll_once()
    assert first.steps == []
    assert first.not_followed == [(str(log.resolve()), "swift-log")]
    assert watcher.poll_once().not_followed == []  # said once
    sample = SAMPLES / "chimbuko" / "provdb_v2_anomalies.json"
    (folder / sample.name).write_bytes(sample.read_bytes())
    watcher.poll_once()
    [step] = watcher.poll_once().loaded
    assert step.result.format == "chimbuko-json"
    assert differences(content(lin), _one_load(lin, folder / sample.name)) == []


def test_a_file_rewritten_below_what_was_read_is_not_followed_further(lin, tmp_path):
    first = b"ts=2024-01-01T00:00:00Z event=stampede.xwf.start xwf.id=w1 restart_count=0\n"
    stream, watcher = _watched(lin, tmp_path, first)
    stream.write_bytes(first[:20])  # rotated: shorter than what was read
    [error] = watcher.poll_once().errors
    assert error.startswith(f"{stream.resolve()}: shrank to 20 bytes below the {len(first)}")
    # a watcher started on it again says what the graph read is not whole lines any more
    stream.write_bytes(first[:30] + b"\n" + first[30:])
    [error] = Watcher(lin, [stream], link=False).poll_once().errors
    assert "are not whole lines any more" in error and str(stream.resolve()) in error
