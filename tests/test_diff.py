"""`lineage diff`: what differs between two runs, on the real samples and edited copies."""

import json

from click.testing import CliRunner

from lineage import cli

from .conftest import SAMPLES
from .corpus import first, needs_corpus

pytestmark = needs_corpus

XALT_RUN = first("xalt", "run.*.json")
FAIL_DB = SAMPLES / "pegasus" / "process_wf_failure.stampede.db"


def test_two_xalt_runs_with_a_changed_library_sha1(lin, tmp_path):
    rec = json.loads(XALT_RUN.read_text())
    other = json.loads(XALT_RUN.read_text())
    other["userT"]["run_uuid"] = "0000-second-run"
    lib_path, lib_sha1 = other["libA"][0][0], other["libA"][0][1]
    other["libA"][0] = [lib_path, "f" * 40]  # same path, another build of the library
    other["userT"]["exit_status"] = 3
    second = tmp_path / "run.second.json"
    second.write_text(json.dumps(other))
    lin.load([XALT_RUN, second])
    a, b = f"xalt:run:{rec['userT']['run_uuid']}", "xalt:run:0000-second-run"
    result = lin.diff(a, b)
    rows = result["differences"]
    [changed] = [r for r in rows if r["aspect"] == "library sha1 changed at the same path"]
    assert changed == {"aspect": "library sha1 changed at the same path", "name": lib_path,
                       "first": lib_sha1, "second": "f" * 40}
    assert rows.index(changed) < len(rows)  # listed before the environment
    assert not [r for r in rows if r["aspect"] == "library only in one run"]
    assert lin.diff(a, a)["differences"] == []


def test_two_pegasus_runs_and_the_command(lin, tmp_path, cli_env):
    import shutil
    import sqlite3

    second = tmp_path / "second.stampede.db"
    shutil.copy(FAIL_DB, second)
    with sqlite3.connect(second) as conn:  # the same workflow run again, ls now succeeds
        conn.execute("UPDATE workflow SET wf_uuid = 'f84f05fc-0000-0000-0000-000000000002'")
        conn.execute("UPDATE job_instance SET exitcode = 0")
    lin.load([FAIL_DB, second])
    first_uid = "pegasus:workflow:f84f05fc-a8d0-42b5-bac5-52d6f41a77e3"
    second_uid = "pegasus:workflow:f84f05fc-0000-0000-0000-000000000002"
    rows = lin.diff(first_uid, second_uid)["differences"]
    status = {r["name"]: (r["first"], r["second"]) for r in rows if r["aspect"] == "job status"}
    assert status["ls_ID0000001"] == ("failed", "succeeded")
    out = CliRunner(env=cli_env).invoke(cli.main, ["diff", first_uid, second_uid,
                                                   "--format", "json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["kind"] == "Workflow"
    mixed = CliRunner(env=cli_env).invoke(cli.main, ["diff", first_uid, "host:workflow.isi.edu"])
    assert mixed.exit_code == 1 and "one kind" in mixed.output


SWIFT = SAMPLES / "swift" / "002-param-20090316-1711-szfj91g8.log"


def test_two_swift_runs_of_one_script_with_another_parameter(lin, tmp_path):
    text = SWIFT.read_text()
    for old, new in (("szfj91g8", "zzzz0001"), ("q7krp19f", "zzzz0002"),
                     ("value=hi", "value=bye"), ("VALUE=hi", "VALUE=bye"),
                     ("arguments=[hi]", "arguments=[bye]")):
        assert old in text
        text = text.replace(old, new)
    second = tmp_path / "002-param-20090316-1711-zzzz0001.log"
    second.write_text(text)
    lin.load([SWIFT, second])
    a, b = "swift:run:002-param-20090316-1711-szfj91g8", "swift:run:002-param-20090316-1711-zzzz0001"
    result = lin.diff(a, b)
    assert result["kind"] == "ScriptRun"
    rows = {(r["aspect"], r["name"]): (r["first"], r["second"]) for r in result["differences"]}
    [(name, (first, second))] = [(n, v) for (aspect, n), v in rows.items() if aspect == "inputs"]
    assert [i["value"] for i in first] == ["hi"] and [i["value"] for i in second] == ["bye"]
    assert rows[("arguments", name)] == (["[hi]"], ["[bye]"])
    assert not [k for k in rows if k[0] == "call only in one run"]
    assert lin.diff(a, a)["differences"] == []


def test_linked_wholes_and_the_html_page(lin, tmp_path, cli_env):
    """The blackdiamond run again a day later whose analyze job ran with another libkeg
    build (same path, other sha1) and showed fewer anomalies, each linked to XALT runs."""
    import re

    from lineage.config.settings import LoadOptions

    from . import linked_run as run
    from .xalt_helpers import signed

    day, second_wf = 86400, "ea17e8ac-0000-4000-8000-00000000d2d2"
    bp = (SAMPLES / "pegasus" / "blackdiamond-4.0.bp").read_text().replace(run.WF, second_wf)
    bp = bp.replace("ts=2012-03-13T", "ts=2012-03-14T")
    bp = re.sub(r"start_time=(\d+)", lambda m: f"start_time={int(m.group(1)) + day}", bp)
    (tmp_path / "day2").mkdir()
    (tmp_path / "day2" / "blackdiamond-day2.bp").write_text(bp)
    libs = [[run.LIBKEG[0], "c0de" * 10]]
    (tmp_path / "day2" / "run.day2.zzz.json").write_text(signed(run.xalt_run(
        "da200000-0000-4000-8000-000000000001", run.ANALYZE, run.ANALYZE_SHA1, "79.0",
        run.HOST, run.ANALYZE_START + day + 0.4, 59.0, libs)))
    day1 = run.write(tmp_path / "day1")
    lin.load([SAMPLES / "pegasus" / "blackdiamond-4.0.bp", *day1, tmp_path / "day2"],
             options=LoadOptions(chimbuko_run=run.CHIMBUKO_RUN))
    lin.link()
    first, second = f"pegasus:workflow:{run.WF}", f"pegasus:workflow:{second_wf}"
    rows = lin.diff(first, second)["differences"]
    linked = {(r["aspect"], r["name"]): (r["first"], r["second"]) for r in rows
              if "linked" in r["aspect"]}
    assert linked[("library sha1 changed at the same path (linked XALT run)",
                   f"analyze_j4: {run.LIBKEG[0]}")] == (run.LIBKEG[1], "c0de" * 10)
    anomalies = linked[("anomalies (linked Chimbuko run)", "analyze_j4")]
    assert anomalies[0] > 0 and anomalies[1] == 0
    page = tmp_path / "diff.html"
    out = CliRunner(env=cli_env).invoke(cli.main, ["diff", first, second, "--html", str(page)])
    assert out.exit_code == 0, out.output
    html = page.read_text()
    assert "libkeg.so.1.2" in html and "c0de" * 10 in html and "<script" not in html
    assert oct(page.stat().st_mode & 0o777) == "0o600"
