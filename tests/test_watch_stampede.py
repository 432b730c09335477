"""``lineage watch`` follows a Pegasus Stampede database while it is written, by its rows'
ids: a copy of a real sample is emptied, then grown back to the sample in steps as
pegasus-monitord writes it (rows appended per table, an attempt's outcome written with its
final state, its host by an update alone), and the increments end as one load of the
finished database (against the real Neo4j; the watcher's step is driven directly)."""

from __future__ import annotations

import math
import shutil
import sqlite3
import stat
from contextlib import closing
from pathlib import Path

import pytest

from lineage.watch import increments
from lineage.watch.watcher import Watcher

from .corpus import SAMPLES, needs_corpus
from .test_watch import _wait
from .watchgraph import content, differences, leave_half_written

SAMPLES_DB = {name: SAMPLES / "pegasus" / f"{name}.stampede.db"
              for name in ("hierarchical_wf_success", "process_wf_failure")}
HIERARCHICAL = SAMPLES_DB["hierarchical_wf_success"]
FINAL = ("JOB_SUCCESS", "JOB_FAILURE", "POST_SCRIPT_SUCCESS", "POST_SCRIPT_FAILURE")
#: what monitord writes into an attempt's row when the attempt ends
OUTCOME = ("exitcode", "local_duration", "stdout_text", "stderr_text")


class Growing:
    """A copy of ``sample`` at ``path`` holding its schema and no rows, grown back to the
    sample by :meth:`grow` (each step one transaction, as monitord commits)."""

    def __init__(self, sample: Path, path: Path):
        self.sample, self.path = sample, path
        shutil.copyfile(sample, path)
        path.chmod(path.stat().st_mode | stat.S_IWUSR)
        with closing(self._connect()) as con, con:
            self.tables = [r[0] for r in con.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' "
                "AND name NOT LIKE 'sqlite_%' ORDER BY name")]
            self.top = {t: con.execute(f'SELECT max(rowid) FROM "{t}"').fetchone()[0] or 0
                        for t in self.tables}
            for t in self.tables:
                con.execute(f'DELETE FROM "{t}"')
        self.done = dict.fromkeys(self.tables, 0)

    def _connect(self) -> sqlite3.Connection:
        con = sqlite3.connect(self.path, timeout=30)
        con.execute("ATTACH DATABASE ? AS src", (f"file:{self.sample}?mode=ro",))
        return con

    def grow(self, fraction: float) -> None:
        """Append the sample's rows up to ``fraction`` of each table's ids; attempts get
        their outcome with a final state (the whole sample's at 1.0), no host yet unless
        they ended."""
        with closing(self._connect()) as con, con:
            for t in self.tables:
                cut = math.ceil(fraction * self.top[t])
                con.execute(f'INSERT INTO main."{t}" SELECT * FROM src."{t}" '
                            "WHERE rowid > ? AND rowid <= ? ORDER BY rowid", (self.done[t], cut))
                self.done[t] = cut
            ended = ("EXISTS (SELECT 1 FROM main.jobstate s WHERE s.job_instance_id = "
                     "job_instance.job_instance_id AND s.state IN (?, ?, ?, ?))")
            columns = ", ".join(OUTCOME + ("host_id",))
            if fraction < 1:
                nulls = ", ".join(f"{c} = NULL" for c in OUTCOME + ("host_id",))
                con.execute(f"UPDATE main.job_instance SET {nulls} WHERE NOT {ended}", FINAL)
                con.execute(f"UPDATE main.job_instance SET ({columns}) = (SELECT {columns} FROM "
                            "src.job_instance o WHERE o.job_instance_id = "
                            f"job_instance.job_instance_id) WHERE {ended}", FINAL)
            else:
                con.execute(f"UPDATE main.job_instance SET ({columns}) = (SELECT {columns} FROM "
                            "src.job_instance o WHERE o.job_instance_id = "
                            "job_instance.job_instance_id)")

    def hosts(self) -> int:
        """The host of every attempt that is executing, by an update alone (no new row);
        how many attempts got one."""
        with closing(self._connect()) as con, con:
            return con.execute(
                "UPDATE main.job_instance SET host_id = (SELECT host_id FROM src.job_instance o "
                "WHERE o.job_instance_id = job_instance.job_instance_id) WHERE host_id IS NULL "
                "AND EXISTS (SELECT 1 FROM main.jobstate s WHERE s.job_instance_id = "
                "job_instance.job_instance_id AND s.state = 'EXECUTE') AND (SELECT host_id "
                "FROM src.job_instance o WHERE o.job_instance_id = "
                "job_instance.job_instance_id) IS NOT NULL").rowcount

    def rows(self) -> dict[str, list]:
        """Every row of every table of the grown database and of the sample."""
        with closing(self._connect()) as con:
            return {f"{db}.{t}": sorted(map(repr, con.execute(f'SELECT * FROM {db}."{t}"')))
                    for t in self.tables for db in ("main", "src")}


STEPS = (0.2, 0.45, 0.7, 1.0)


def _one_load(lin, path: Path) -> tuple[dict, dict]:
    lin.reset(force=True)
    [result] = lin.load([path])
    assert result.status == "loaded", result.error
    return content(lin)


def _numbers(steps) -> list[int]:
    return [int(s.name.rpartition("#rows=")[2]) for s in steps]


@needs_corpus
@pytest.mark.parametrize("sample", sorted(SAMPLES_DB))
def test_a_database_written_in_steps_ends_as_one_load(lin, tmp_path, sample):
    folder = tmp_path / "submit"
    folder.mkdir()
    db = Growing(SAMPLES_DB[sample], folder / f"{sample}.stampede.db")
    watcher = Watcher(lin, [folder], link=False)
    [first] = watcher.poll_once().steps  # the schema, no rows yet
    assert first.error is None and first.result.status == "empty"
    assert first.name == increments.rows_name(str(db.path.resolve()), 1)
    written, by_update = [first], 0
    seen = []  # (the database's bytes, the watched graph) after each increment

    def look() -> list:
        loaded = watcher.poll_once().loaded
        seen.append((db.path.read_bytes(), content(lin)))
        return loaded

    for fraction in STEPS:
        db.grow(fraction)
        written += look()
        if db.hosts():  # an update alone: the open attempts are read again
            [step] = look()
            written.append(step)
            by_update += 1
    assert watcher.poll_once().steps == []  # nothing new: nothing written
    assert by_update >= 1
    assert _numbers(written) == list(range(1, len(written) + 1))
    rows = db.rows()
    assert all(rows[f"main.{t}"] == rows[f"src.{t}"] for t in db.tables)  # the sample again
    assert lin.stats()["claims"]["conflicting"] == 0
    assert seen[-1][1][0], "the increments wrote the run"
    # after every increment the graph is what one load of the database as it was then gives
    for number, (data, watched) in enumerate(seen, 1):
        db.path.write_bytes(data)
        assert differences(watched, _one_load(lin, db.path)) == [], f"after look {number}"


@needs_corpus
def test_what_an_increment_read_up_to_is_stored_with_it(lin, tmp_path):
    db = Growing(HIERARCHICAL, tmp_path / "h.stampede.db")
    db.grow(0.5)
    watcher = Watcher(lin, [db.path], link=False)
    [step] = watcher.poll_once().loaded
    number, marks = increments.committed_rows(lin.graph.driver, None, str(db.path.resolve()))
    assert number == 1
    assert marks["rows"]["jobstate"] == db.done["jobstate"] > 0
    assert marks["rows"]["job_instance"] == db.done["job_instance"] > 0
    # a watcher started again reads nothing more
    assert Watcher(lin, [db.path], link=False).poll_once().steps == []


@needs_corpus
def test_unload_by_the_database_path_takes_back_every_increment(lin, tmp_path):
    db = Growing(HIERARCHICAL, tmp_path / "h.stampede.db")
    watcher = Watcher(lin, [db.path], link=False)
    for fraction in (0.3, 1.0):
        db.grow(fraction)
        assert len(watcher.poll_once().loaded) == 1
    assert lin.query("MATCH (j:Job) RETURN count(j) AS n")[0]["n"] > 0
    rows = lin.unload(str(db.path))
    assert sorted(r["path"] for r in rows) == [
        increments.rows_name(str(db.path.resolve()), n) for n in (1, 2)]
    assert all(r["status"] == "unloaded" for r in rows)
    assert lin.query("MATCH (n:Lineage) RETURN count(n) AS n")[0]["n"] == 0
    # what was read stays read: a watcher started again does not write it again
    assert Watcher(lin, [db.path], link=False).poll_once().steps == []


@needs_corpus
def test_a_locked_database_waits_for_the_next_look(lin, tmp_path):
    db = Growing(HIERARCHICAL, tmp_path / "h.stampede.db")
    db.grow(0.5)
    watcher = Watcher(lin, [db.path], link=False)

    def locked_look() -> None:
        writer = sqlite3.connect(db.path, isolation_level=None)
        try:
            writer.execute("BEGIN EXCLUSIVE")  # monitord committing: readers are locked out
            poll = watcher.poll_once()
            assert poll.steps == [] and poll.errors == []
            [follower] = watcher.followers.values()
            assert follower.busy == 1
        finally:
            writer.execute("COMMIT")
            writer.close()

    locked_look()  # the first read (of a copy)
    assert len(watcher.poll_once().loaded) == 1
    locked_look()  # a later one (of the database itself)
    db.grow(1.0)
    [step] = watcher.poll_once().loaded
    assert step.name == increments.rows_name(str(db.path.resolve()), 2)
    assert differences(content(lin), _one_load(lin, db.path)) == []


@needs_corpus
def test_a_database_rewritten_below_what_was_read_is_not_followed_further(lin, tmp_path):
    db = Growing(HIERARCHICAL, tmp_path / "h.stampede.db")
    db.grow(0.5)
    watcher = Watcher(lin, [db.path], link=False)
    assert len(watcher.poll_once().loaded) == 1
    with closing(sqlite3.connect(db.path)) as con, con:
        con.execute("DELETE FROM jobstate WHERE rowid > 3")
    [error] = watcher.poll_once().errors
    assert error.startswith(f"{db.path.resolve()}: table jobstate holds rows up to id 3, "
                            f"below the {db.done['jobstate']} already read"), error
    assert watcher.poll_once().steps == []


@needs_corpus
def test_an_increment_killed_mid_write_is_taken_off_before_reading_on(lin, tmp_path):
    db = Growing(HIERARCHICAL, tmp_path / "h.stampede.db")
    db.grow(0.5)
    # what a watcher killed while writing its first increment leaves
    name = increments.rows_name(str(db.path.resolve()), 1)
    leave_half_written(lin, "pegasus-stampede-db", name)
    assert lin.query("MATCH (w:Workflow {xwf_id: 'half-written'}) RETURN w")
    [step] = Watcher(lin, [db.path], link=False).poll_once().loaded
    assert step.name == name
    assert not lin.query("MATCH (w:Workflow {xwf_id: 'half-written'}) RETURN w")
    db.grow(1.0)
    [step] = Watcher(lin, [db.path], link=False).poll_once().loaded
    assert step.name == increments.rows_name(str(db.path.resolve()), 2)
    assert differences(content(lin), _one_load(lin, db.path)) == []


@needs_corpus
def test_kill_9_then_restart_loses_and_duplicates_nothing(lin, cli_env, tmp_path):
    import signal
    import subprocess
    import sys

    from lineage.sources.pegasus.stampede.rows import file_mark

    from .conftest import run_cli

    folder = tmp_path / "submit"
    folder.mkdir()
    db = Growing(HIERARCHICAL, folder / "h.stampede.db")
    path = str(db.path.resolve())
    driver = lin.graph.driver

    def read_up_to() -> dict:
        return (increments.committed_rows(driver, None, path)[1] or {}).get("rows", {})

    def all_read() -> bool:  # the rows, and the file as it is now: no increment is due
        marks = increments.committed_rows(driver, None, path)[1] or {}
        return (marks.get("rows", {}).get("jobstate") == db.done["jobstate"]
                and marks.get("file") == file_mark(path))

    command = [sys.executable, "-m", "lineage", "watch", "--poll", "--interval", "0.1",
               "--no-link", str(folder)]
    watcher = subprocess.Popen(command, env=cli_env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    try:
        db.grow(0.25)
        _wait(lambda: read_up_to().get("jobstate") == db.done["jobstate"], "the first rows")
        db.grow(0.5)
        _wait(all_read, "the rows up to half")
    finally:
        watcher.send_signal(signal.SIGKILL)
        watcher.wait()
    assert watcher.returncode == -signal.SIGKILL
    # started again, it reads nothing of what the killed one wrote
    assert run_cli(cli_env, "watch", "--once", "--no-link", str(folder)).stdout == ""
    before = increments.committed_rows(driver, None, path)[0]
    db.grow(0.75)  # jobs started before the kill end after it
    db.grow(1.0)
    watcher = subprocess.Popen(command, env=cli_env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        _wait(lambda: read_up_to().get("jobstate") == db.done["jobstate"], "the rest, restarted")
    finally:
        watcher.send_signal(signal.SIGTERM)
        out, err = watcher.communicate(timeout=120)
    assert watcher.returncode == 0, err
    numbers = sorted(int(r["path"].rpartition("#rows=")[2]) for r in lin.query(
        "MATCH (l:Load) WHERE l.path STARTS WITH $p AND l.status IN ['loaded', 'empty'] "
        "RETURN l.path AS path", p=increments.rows_prefix(path)))
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) > before
    assert "loaded" in out
    assert lin.stats()["claims"]["conflicting"] == 0
    assert differences(content(lin), _one_load(lin, db.path)) == []
