"""The command-line contract other issues rely on."""

import csv
import io
import json
import subprocess
import sys

from .conftest import SAMPLES

BD = str(SAMPLES / "pegasus" / "blackdiamond-4.0.bp")
BD_WF = "pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556"


def run(env, *args, check=True):
    proc = subprocess.run([sys.executable, "-m", "lineage", *args], capture_output=True, text=True, env=env)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_load_stats_query_report(lin, cli_env, tmp_path):
    run(cli_env, "load", BD)
    stats = json.loads(run(cli_env, "stats", "--json").stdout)
    assert stats["nodes"]["Job"] == 14 and stats["relationships"]["WAS_INFORMED_BY"] == 29
    assert stats["loads"][0]["format"] == "pegasus-bp"

    rows = json.loads(run(cli_env, "query", "ancestors", "-p",
                          "uid=pegasus:job:ea17e8ac-02ac-4909-b5e3-16e367392556:analyze_j4",
                          "--format", "json").stdout)
    assert rows and set(rows[0]) == {"uid", "kind", "name", "depth", "status"}

    text = run(cli_env, "query", "MATCH (j:Job) RETURN j.job_id AS job ORDER BY job",
               "--format", "csv").stdout
    parsed = list(csv.DictReader(io.StringIO(text)))
    assert len(parsed) == 14 and parsed[0]["job"] == "analyze_j4"

    out = tmp_path / "wf.html"
    run(cli_env, "report", BD_WF, "-o", str(out))
    html = out.read_text()
    assert "preprocess_j1" in html and "http://" not in html.split("<script>")[0]


def test_exit_codes(lin, cli_env, tmp_path):
    bad = tmp_path / "bad.bp"
    bad.write_text('ts=1 event=stampede.job.info xwf.id="oops\n')
    proc = run(cli_env, "load", str(bad), check=False)
    assert proc.returncode == 3 and f"{bad}:1" in proc.stderr
    assert run(cli_env, "query", "no_such_template", check=False).returncode == 2
    assert run(cli_env, "report", "no:such:uid", "-o", str(tmp_path / "x.html"),
               check=False).returncode == 1
    assert run(cli_env, "reset", check=False).returncode == 2


def test_cypher_list_and_show():
    env = None
    listing = subprocess.run([sys.executable, "-m", "lineage", "cypher", "list", "--format", "json"],
                             capture_output=True, text=True, check=True, env=env).stdout
    names = {t["name"] for t in json.loads(listing)}
    assert {"ancestors", "descendants", "pegasus/failed_jobs"} <= names
    shown = subprocess.run([sys.executable, "-m", "lineage", "cypher", "show", "ancestors"], capture_output=True,
                           text=True, check=True).stdout
    assert shown.startswith(":param uid => ") and "MATCH (start:Lineage {uid: $uid})" in shown


def test_reset_empties_the_graph(lin, cli_env):
    run(cli_env, "load", BD)
    run(cli_env, "reset", "--yes")
    stats = json.loads(run(cli_env, "stats", "--json").stdout)
    assert stats["nodes"] == {}


def test_demo_loads_samples_and_writes_reports(lin, cli_env, tmp_path):
    proc = run(cli_env, "demo", "-o", str(tmp_path / "reports"))
    reports = [line.split("report: ", 1)[1] for line in proc.stdout.splitlines()
               if line.startswith("report: ")]
    runs = lin.query("runs")
    assert runs and len(reports) == len(runs)
    html = open(reports[0], encoding="utf-8").read()
    assert "vis.Network" in html and "<script src=" not in html
    statuses = [r["s"] for r in lin.query("MATCH (l:Load) RETURN l.status AS s")]
    assert statuses.count("loaded") >= 20 and set(statuses) <= {"loaded", "empty"}
    kinds = {r["kind"] for r in runs}
    assert {"Workflow", "ScriptRun", "ProgramRun", "Execution"} <= kinds
    # the bundled linked samples: five links, and the workflow's report shows the chain
    assert "linked 5 executions across systems" in proc.stdout
    [bd] = [r for r in reports if "ea17e8ac" in r]
    page = open(bd, encoding="utf-8").read()
    assert "Across systems (lineage link)" in page
    assert "a11a1e00-0000-4000-8000-000000000001" in page and "pegasus-analyze-4.0" in page
