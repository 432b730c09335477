"""`lineage why` shows the lines that decide a failure first, held against pegasus-analyzer
(tests/oracle/pegasus_oracle.py, in .venv-oracle) on every failed Stampede database and
stream: the corpus's, the demo campaign's failed run (its database and its BP stream) and a
derived planner failure. Each case names the line it must show first."""

import shutil
import sqlite3
from urllib.parse import quote

import pytest
from click.testing import CliRunner

from lineage import cli
from lineage.demo.generate import generate

from .corpus import needs_corpus
from .pegasus_oracle_compare import FAIL_DB, run_oracle

pytestmark = needs_corpus

LS_ERROR = "/bin/ls: invalid option -- 'z'"
NO_BINS = "analyze: -n 0: the number of histogram bins must be at least 1"
PLANNER = ("2023.03.03 23:10:59.120 PST: [DEBUG] Ignoring exception while loading "
           "site catalog defaults\n"
           "2023.03.03 23:10:59.200 PST: [INFO] event.pegasus.parse.dax - FINISHED\n"
           "2023.03.03 23:10:59.431 PST: [FATAL ERROR]\n"
           " [1]: Unable to instantiate Transformation Catalog at "
           "edu.isi.pegasus.planner.catalog.transformation.TransformationFactory.loadInstance\n"
           " [2]: tc.yml: line 7: 'pfn' is required for transformation keg::analyze\n"
           "2023.03.03 23:10:59.440 PST: [DEBUG] Ignoring exception: java.io.IOException\n")


def _demo_run2(tmp_path, name):
    generate(tmp_path / "campaign")
    return tmp_path / "campaign" / "pegasus" / "run0002" / name


def _planner_failure(tmp_path):
    """The corpus's failed workflow with the failed job's output replaced by a planner's."""
    db = tmp_path / "planner_failure.stampede.db"
    shutil.copy(FAIL_DB, db)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE job_instance SET stdout_text = NULL, stderr_text = ? "
                     "WHERE exitcode <> 0", (quote(PLANNER, safe=" /:=,.-_()[]'\""),))
    return db


def _oracle_db(tmp_path, path):
    """A Stampede database of ``path`` as Pegasus reads it (a BP stream: through its own
    loader)."""
    if path.suffix != ".bp":
        return path
    db = tmp_path / "oracle.stampede.db"
    run_oracle("bp-to-db", path, db)
    return db


CASES = {  # case -> (input, the deciding lines pegasus-analyzer shows, in the order shown)
    "corpus process_wf_failure.stampede.db: /bin/ls: invalid option -- 'z'":
        (lambda tmp: FAIL_DB, [LS_ERROR]),
    "demo run0002 stampede db: analyze: -n 0: the number of histogram bins":
        (lambda tmp: _demo_run2(tmp, "diamond-0.stampede.db"), [NO_BINS]),
    "demo run0002 BP stream: analyze: -n 0: the number of histogram bins":
        (lambda tmp: _demo_run2(tmp, "diamond-0.bp"), [NO_BINS]),
    "planner failure: [1]: Unable to instantiate ..., then [2]: tc.yml: line 7":
        (_planner_failure, [PLANNER.splitlines()[3].strip(), PLANNER.splitlines()[4].strip()]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_why_shows_the_deciding_line_pegasus_analyzer_shows_first(lin, cli_env, tmp_path, case):
    make, expected = CASES[case]
    path = make(tmp_path)
    analysis = run_oracle("analyzer", _oracle_db(tmp_path, path))
    [(uuid, found)] = [(u, a) for u, a in analysis.items() if a["failed_jobs"]]
    [(job, details)] = found["failed_jobs"].items()
    shown = details["stdout_text"] + "\n" + details["stderr_text"]
    assert all(line in shown for line in expected)  # pegasus-analyzer shows them
    lin.load([path])
    summary = lin.why(f"pegasus:workflow:{uuid}")
    first = summary["problems"][0]
    assert (first["name"], first["status"]) == (job, "failed")
    assert first["causes"][:len(expected)] == expected
    assert expected[0] in summary["answer"]
    assert not [c for c in first["causes"] if "DEBUG" in c or "INFO" in c]
    # the command line: the answer first, the deciding lines first, the blocked jobs last
    out = CliRunner(env=cli_env).invoke(cli.main, ["why", uuid[:8]])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[0].startswith("answer: ") and expected[0] in lines[0]
    causes = [line.strip()[len("cause: "):] for line in lines if line.strip().startswith("cause:")]
    assert causes[:len(expected)] == expected
    assert "Ignoring exception" not in out.output
    blocked = [i for i, line in enumerate(lines) if line.startswith("blocked by")]
    assert blocked and min(blocked) > max(i for i, line in enumerate(lines) if "cause:" in line)


def test_tar_write_error_never_comes_before_the_application_error(lin):
    """PegasusLite's own `tar: write error` (its worker package) is not why ls failed."""
    lin.load([FAIL_DB])
    causes = lin.why("pegasus:workflow:f84f05fc-a8d0-42b5-bac5-52d6f41a77e3")["problems"][0][
        "causes"]
    assert causes[0] == LS_ERROR
    assert causes.index("tar: write error") > causes.index(LS_ERROR)
