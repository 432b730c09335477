"""`lineage diff`: what differs between two runs, on the real samples and edited copies."""

import json

from click.testing import CliRunner

from lineage import cli

from .conftest import SAMPLES
from .corpus import first, needs_corpus

pytestmark = needs_corpus

XALT_RUN = first("xalt", "run.*.json")
FAIL_DB = SAMPLES / "pegasus" / "process_wf_failure.stampede.db"
BLACKDIAMOND_BP = SAMPLES / "pegasus" / "blackdiamond-4.0.bp"
HIER_DB = SAMPLES / "pegasus" / "hierarchical_wf_success.stampede.db"


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
    assert not [r for r in rows if r["aspect"].startswith("library only in")]
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
    assert not [k for k in rows if k[0].startswith("call only in")]
    assert lin.diff(a, a)["differences"] == []


def test_linked_wholes_and_the_html_page(lin, tmp_path, cli_env):
    """The demo's diamond run again a day later, after libkeg was rebuilt in place (same
    path, other sha1): its analyze failed and Chimbuko found nothing, each linked to XALT
    runs."""
    from lineage.demo import campaign

    from . import demo_scenario as demo

    demo.load(lin, tmp_path / "files")
    lin.link()
    first, second = demo.workflow(demo.FIRST), demo.workflow(demo.SECOND)
    rows = lin.diff(first, second)["differences"]
    linked = {(r["aspect"], r["name"]): (r["first"], r["second"]) for r in rows
              if "linked" in r["aspect"]}
    libkeg = campaign.LIBKEG
    assert linked[("library sha1 changed at the same path (linked XALT run)",
                   f"{campaign.ANA}: {libkeg.path}")] == (libkeg.sha1,
                                                          campaign.LIBKEG_REBUILT.sha1)
    anomalies = linked[("anomalies (linked Chimbuko run)", campaign.ANA)]
    assert anomalies[0] > 0 and anomalies[1] == 0
    jobs = {(r["aspect"], r["name"]): (r["first"], r["second"]) for r in rows}
    assert jobs[("job status", campaign.ANA)] == ("succeeded", "failed")
    page = tmp_path / "diff.html"
    out = CliRunner(env=cli_env).invoke(cli.main, ["diff", first, second, "--html", str(page)])
    assert out.exit_code == 0, out.output
    html = page.read_text()
    assert "libkeg.so.4" in html and campaign.LIBKEG_REBUILT.sha1 in html
    assert "<script" not in html
    assert oct(page.stat().st_mode & 0o777) == "0o600"


def test_a_4x_and_a_5x_plan_of_one_dax_are_matched_by_transformation(lin, tmp_path):
    """blackdiamond planned by Pegasus 4.0 (analyze_j4) and 5.0.5 (analyze_ID0000004)."""
    lin.load([BLACKDIAMOND_BP, HIER_DB])
    [five] = [r["uid"] for r in lin.runs() if r["name"] == "blackdiamond"
              and r["uid"] != "pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556"]
    rows = lin.diff("ea17e8ac", five)["differences"]
    args = {r["name"]: (r["first"], r["second"]) for r in rows if r["aspect"] == "job arguments"}
    assert args["analyze_j4 / analyze_ID0000004"] == ("-a analyze -T 60 -i f.c1 f.c2 -o f.d",
                                                      "-a analyze -T 20 -i f.c1 f.c2 -o f.d")
    assert not [r for r in rows if "only in" in r["aspect"] and "analyze" in r["name"]]
