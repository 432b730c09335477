"""A Stampede database whose columns were renamed (schema drift, or damage): every column a
reader uses that is missing is named with what is lost (a warning, leniently; an error,
strictly), never read as an older schema when the database's own ``dbversion`` says it has
the column; and the other inputs of the directory are loaded."""

import shutil
import sqlite3

import pytest

from lineage.errors import ParseError
from lineage.sources import registry
from lineage.sources.base import LoadReport

from . import graphcheck
from .conftest import run_cli
from .corpus import needs_corpus
from .pegasus_vintages import BLACKDIAMOND_BP, FAIL_DB

pytestmark = needs_corpus
RENAMED = [("job_instance", "exitcode"), ("jobstate", "state"), ("job_instance", "sched_id"),
           ("job_instance", "host_id"), ("workflow", "user"), ("jobstate", "timestamp")]


def _renamed(tmp_path, table, column):
    db = tmp_path / f"{table}-{column}.stampede.db"
    shutil.copy(FAIL_DB, db)
    conn = sqlite3.connect(db)
    conn.execute(f"ALTER TABLE {table} RENAME COLUMN {column} TO {column}_renamed")
    conn.commit()
    conn.close()
    return db


def _parse(db, lenient):
    fmt = registry.detect(db, "auto")
    report = LoadReport(str(db), fmt.name, lenient=lenient,
                        options=registry.load_options(None, lenient=lenient))
    return list(fmt.parse(db, report)), report


@pytest.mark.parametrize("table,column", RENAMED)
def test_a_renamed_column_is_named_strict_and_lenient(tmp_path, table, column):
    db = _renamed(tmp_path, table, column)
    with pytest.raises(ParseError) as exc:
        _parse(db, lenient=False)
    assert f"{table}" in str(exc.value) and column in str(exc.value)
    _, report = _parse(db, lenient=True)
    assert report.warning_count >= 1
    assert any(table in w and column in w for w in report.warnings), report.warnings


def test_a_missing_exit_code_of_a_version_14_database_is_damage_not_an_old_schema(tmp_path):
    """Before, job_instance.exitcode was always taken for a pre-4.3 schema: 0 warnings and
    every attempt's exit code lost."""
    db = _renamed(tmp_path, "job_instance", "exitcode")
    _, report = _parse(db, lenient=True)
    assert "job_instance.exitcode" in report.extra["missing_columns"]
    assert "older_schema_columns" not in report.extra
    [warning] = [w for w in report.warnings if "exitcode" in w]
    assert "schema version 14" in warning and "exit codes" in warning


def test_a_directory_with_a_drifted_database_loads_the_rest(lin, tmp_path, cli_env):
    tree = tmp_path / "tree"
    tree.mkdir()
    shutil.copy(BLACKDIAMOND_BP, tree / "a.bp")
    shutil.move(_renamed(tmp_path, "jobstate", "timestamp"), tree / "b.stampede.db")
    shutil.copy(BLACKDIAMOND_BP, tree / "c.bp")
    out = run_cli(cli_env, "load", str(tree), check=False)
    assert out.returncode == 3 and "Traceback" not in out.stderr
    assert "jobstate" in out.stderr and "timestamp" in out.stderr
    assert "loaded 2 of 3 inputs; 1 failed" in out.stdout
    attacked = graphcheck.of(lin)
    lin.reset()
    lin.load([tree / "a.bp", tree / "c.bp"])
    assert graphcheck.of(lin) == attacked
