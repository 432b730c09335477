"""Our Pegasus templates and loaders against Pegasus's own tools (pegasus-wms 5.1.3 in
.venv-oracle, driven by tests/oracle/pegasus_oracle.py): the Stampede loader that turns a BP
stream into a database, pegasus-statistics' summary, breakdown and job tables, and
pegasus-analyzer's failed / held lists.

Every difference found is listed in KNOWN_DIFFERENCES with the loader function it comes
from; the tests fail when a new one appears and when a listed one goes away (then delete its
entry).
"""

import shutil
import subprocess

import pytest

from . import pegasus_vintages as vintages
from .pegasus_oracle_compare import (
    BLACKDIAMOND_BP, DRIVER, FAIL_DB, HIER_DB, ORACLE_PYTHON, attempts_differences, failed_jobs_differences,
    restarted_and_held_db, restarted_held_bp, retried_subworkflow_db, run_oracle,
    signalled_task_db, statistics_differences, subworkflow_differences,
    transformation_differences, with_plan,
)
from .corpus import needs_corpus

BLACKDIAMOND = "ea17e8ac-02ac-4909-b5e3-16e367392556"
FAILURE = "f84f05fc-a8d0-42b5-bac5-52d6f41a77e3"

#: case -> the differences (workflow uuid prefix, what, ours, Pegasus's) not fixable in the templates.
#: (none left: add an entry, with the loader function that causes it, when one is found)
KNOWN_DIFFERENCES: dict[str, list] = {}


@pytest.fixture(scope="session")
def pegasus_made_db(tmp_path_factory):
    """blackdiamond-4.0.bp turned into a Stampede database by Pegasus's own loader."""
    db = tmp_path_factory.mktemp("oracle") / "blackdiamond.stampede.db"
    loaded = run_oracle("bp-to-db", BLACKDIAMOND_BP, db)
    assert loaded == {"events": 230, "log": []}
    return db


def _inputs(name, pegasus_made_db, tmp_path):
    """(what we load, the Stampede database Pegasus's tools read) for one case."""
    if name == "process_wf_failure":
        return FAIL_DB, FAIL_DB
    if name == "hierarchical_wf_success":
        return HIER_DB, HIER_DB
    if name == "blackdiamond_bp":
        return BLACKDIAMOND_BP, pegasus_made_db
    if name == "blackdiamond_db":
        return pegasus_made_db, pegasus_made_db
    if name in STATIC:  # the planner's static.bp after the run's wf.plan, as monitord sends it
        bp = with_plan(*STATIC[name], tmp_path)
        db = tmp_path / "static.stampede.db"
        assert run_oracle("bp-to-db", bp, db)["log"] == []
        return bp, db
    if name in VARIANTS:
        db = VARIANTS[name](tmp_path)
        return db, db
    if name == "pegasus3_bp":  # Pegasus's loader, then its rule for attempts without exit codes
        bp, db = vintages.pegasus3_bp(tmp_path), tmp_path / "pegasus3.stampede.db"
        assert run_oracle("bp-to-db", bp, db) == {"events": 230, "log": []}
        assert run_oracle("legacy-exitcodes", db) == {"attempts_with_exitcode": 14}
        return bp, db
    if name in VINTAGES:
        ours = VINTAGES[name](tmp_path)
        return ours, updated_by_pegasus(ours)
    bp = restarted_held_bp(tmp_path)
    db = tmp_path / "restarted_held_bp.stampede.db"
    run_oracle("bp-to-db", bp, db)
    return bp, db


#: The planners' static.bp samples, with the sample database their run's wf.plan comes from.
STATIC = {"process_static_bp": (FAIL_DB.with_suffix("").with_suffix(".static.bp"), FAIL_DB),
          "hierarchical_static_bp": (HIER_DB.with_suffix("").with_suffix(".static.bp"), HIER_DB)}

#: Sample databases changed to hold a case (pegasus_oracle_compare.py says which).
VARIANTS = {"restarted_held": restarted_and_held_db, "signalled_task": signalled_task_db,
            "retried_subworkflow": retried_subworkflow_db}

#: Older database shapes (tests/pegasus_vintages.py): we read each as it is, Pegasus's tools
#: read it after Pegasus's own `pegasus-db-admin update` brought it to schema 14.
VINTAGES = {
    "schema_4": vintages.schema_4_db,
    "schema_4_failure": vintages.empty_old_replica_catalog_db,
    "before_schema_1": vintages.before_schema_1_db,
    "before_schema_1_failure": lambda path: vintages.before_schema_1_db(path, vintages.FAIL_DB),
}


def updated_by_pegasus(db):
    """``db`` migrated to the latest schema by Pegasus's own code (a copy beside it)."""
    updated = db.with_name("updated-" + db.name)
    shutil.copy(db, updated)
    assert run_oracle("update", updated) == {"version": 14.0}
    return updated


def all_differences(lin, ours_input, oracle_db) -> list[tuple]:
    """Every template number or list that differs from Pegasus's tools on one input."""
    lin.load([ours_input])
    stats, analysis = run_oracle("statistics", oracle_db), run_oracle("analyzer", oracle_db)
    found = []
    for uuid, entry in stats.items():
        own = entry["individual"]
        found_here = statistics_differences(lin, uuid, own, False)
        found_here += transformation_differences(lin, uuid, own, False)
        found_here += failed_jobs_differences(lin, uuid, analysis[uuid])
        found_here += attempts_differences(lin, uuid, own["job_instances"])
        if entry["parent_wf_id"] is None:  # pegasus-statistics on the root: sub-workflows expanded
            deep = statistics_differences(lin, uuid, entry["expanded"], True)
            deep += transformation_differences(lin, uuid, entry["expanded"], True)
            found_here += [("recursive " + what, a, b) for what, a, b in deep]
            found_here += subworkflow_differences(lin, uuid, analysis)
        found += [(uuid[:8], *difference) for difference in found_here]
    return found


@needs_corpus
@pytest.mark.parametrize("name", ["process_wf_failure", "hierarchical_wf_success", "blackdiamond_bp",
                                  "blackdiamond_db", "restarted_held_bp", "pegasus3_bp",
                                  *STATIC, *VARIANTS, *VINTAGES])
def test_templates_agree_with_pegasus_tools(lin, name, pegasus_made_db, tmp_path):
    ours_input, oracle_db = _inputs(name, pegasus_made_db, tmp_path)
    assert all_differences(lin, ours_input, oracle_db) == KNOWN_DIFFERENCES.get(name, [])


@needs_corpus
def test_the_variants_hold_what_they_claim(tmp_path):
    """The made-up cases reach Pegasus's tools as intended, so the comparisons above test them."""
    db = restarted_and_held_db(tmp_path)
    stats = run_oracle("statistics", db)[FAILURE]["individual"]
    analysis = run_oracle("analyzer", db)[FAILURE]
    assert stats["workflow_wall_time"] == 96.0 + 100.0 and stats["workflow_retries"] == 1
    assert sorted(analysis["held_jobs"]) == ["create_dir_process_0_local", "ls_ID0000001"]
    assert analysis["held_jobs"]["ls_ID0000001"]["reason"] == "out of memory"
    assert list(analysis["failing_jobs"]) == ["ls_ID0000001"] and analysis["failed"] == 0
    bp_db = tmp_path / "bp.stampede.db"
    run_oracle("bp-to-db", restarted_held_bp(tmp_path), bp_db)
    stats = run_oracle("statistics", bp_db)[BLACKDIAMOND]["individual"]
    assert stats["workflow_wall_time"] == 894.0 + 100.0 and stats["held_jobs"] == ["analyze_j4"]
    hier = run_oracle("statistics", HIER_DB)["48f759a4-165f-47d6-8c32-571649ce311b"]["individual"]
    assert hier["sub_workflows"]["total"] == 1 and hier["jobs"]["total"] == 12
    signalled = run_oracle("statistics", signalled_task_db(tmp_path))[FAILURE]["individual"]
    assert signalled["tasks"]["failed"] == 1 and signalled["tasks"]["incomplete"] == 0
    retried = run_oracle("statistics", retried_subworkflow_db(tmp_path))
    assert retried["48f759a4-165f-47d6-8c32-571649ce311b"]["individual"]["sub_workflows"] == {
        "succeeded": 1, "failed": 0, "incomplete": 0, "total": 1, "retries": 1, "tries": 2}


@needs_corpus
def test_pegasus_cannot_load_the_triana_stream(tmp_path):
    """triana-messy.bp (written by Triana, not monitord) is the one sample without an oracle:
    Pegasus's own loader fails on it (its job instances name jobs by ids job.info never
    declared, so the host rows get no workflow), so there is no database for
    pegasus-statistics to read. test_pegasus_bp_parse holds our reading of it."""
    done = subprocess.run([str(ORACLE_PYTHON), str(DRIVER), "bp-to-db",
                           str(BLACKDIAMOND_BP.with_name("triana-messy.bp")),
                           str(tmp_path / "triana.db")], capture_output=True, text=True)
    assert done.returncode != 0
    assert "NOT NULL constraint failed: host.wf_id" in done.stderr


@needs_corpus
def test_oracle_reproduces_pegasus_statistics_on_the_failure_sample():
    """The driver calls the code pegasus-statistics prints its summary with (numbers as the
    tool prints them for this submit directory)."""
    summary = run_oracle("statistics", FAIL_DB)[FAILURE]["expanded"]
    assert summary["jobs"] == {"succeeded": 1, "failed": 1, "incomplete": 3, "total": 5,
                               "retries": 1, "tries": 3}
    assert summary["tasks"] == {"succeeded": 0, "failed": 1, "incomplete": 0, "total": 1,
                                "retries": 1, "tries": 2}
    assert summary["workflow_wall_time"] == 96.0
    assert summary["cumulative_job_wall_time"] == pytest.approx(2.226)
    assert summary["submit_side_job_wall_time"] == 5.0


# --- the BP path and the database path give the same graph ----------------------------------

#: (node kind, property) that differ between a BP stream loaded by us and the database Pegasus's
#: loader makes from it, loaded by us; each with the loader function that causes it.
KNOWN_BP_DB_DIFFERENCES = {
    ("job", "exitcode"),                 # pegasus_bp.finish writes no exit code on the job,
    ("job", "exitcode_raw"),             #   pegasus_db._job_summary does
    ("job", "host"),                     # same: the job's host (last attempt's) only from the DB
    ("job", "retries"),                  # same: retries only from the DB
    ("job", "held_reason"),              # same: held reason on the job only from the DB
    ("job", "type"),                     # pegasus_bp.job_info keeps job.info's numeric type;
    ("task", "type"),                    #   the Stampede tables have type_desc only
    ("job_instance", "duration"),        # pegasus_db._attempt writes duration, the BP loader not
    ("job_instance", "post_exitcode"),   # pegasus_bp.job_inst keeps post.end's exitcode= and
    ("job_instance", "status_code"),     #   status=; the database has no column for them
    ("job_instance", "xwf_id"),          # pegasus_db._attempt writes xwf_id, pegasus_bp not
    ("workflow", "index"),               # pegasus_bp.wf_plan keeps dax.index; no DB column
    ("workflow", "is_root"),             # pegasus_db.workflows only
}

#: Facts the two paths must agree on exactly.
CORE = {"job": ["status", "last_state", "attempts", "type_desc"],
        "job_instance": ["status", "exitcode", "signal", "exitcode_raw", "start_time", "end_time",
                         "local_duration", "hostname", "site", "held_reason", "last_state"],
        "invocation": ["exitcode", "signal", "exitcode_raw", "duration", "start_time",
                       "transformation", "inv_id", "executable"],
        "workflow": ["status", "start_time", "end_time", "restart_count", "exit_status"]}


def graph_facts(lin) -> dict[str, dict]:
    """uid -> properties of every Pegasus workflow, task, job, attempt, invocation and host."""
    rows = lin.query("MATCH (n:Workflow|Task|Job|JobInstance|Invocation|Host) "
                     "RETURN n.uid AS uid, properties(n) AS props")
    return {r["uid"]: {k: v for k, v in r["props"].items() if k not in ("loads", "load_id")}
            for r in rows}


def bp_db_differences(lin, bp, db) -> dict[tuple[str, str], list]:
    """(kind, property) -> [(uid, from the BP, from Pegasus's database)] where they differ."""
    lin.reset()
    lin.load([bp])
    from_bp = graph_facts(lin)
    lin.reset()
    lin.load([db])
    from_db = graph_facts(lin)
    assert sorted(from_bp) == sorted(from_db)  # the same nodes
    differences: dict[tuple[str, str], list] = {}
    for uid in from_bp:
        ours, theirs = from_bp[uid], from_db[uid]
        for key in set(ours) | set(theirs):
            if ours.get(key) != theirs.get(key):
                differences.setdefault((uid.split(":")[1], key), []).append(
                    (uid, ours.get(key), theirs.get(key)))
    return differences


@needs_corpus
@pytest.mark.parametrize("variant", ["blackdiamond", "restarted_held"])
def test_bp_and_pegasus_made_db_give_the_same_graph(lin, variant, pegasus_made_db, tmp_path):
    if variant == "blackdiamond":
        bp, db = BLACKDIAMOND_BP, pegasus_made_db
    else:
        bp, db = restarted_held_bp(tmp_path), tmp_path / "restarted_held.stampede.db"
        run_oracle("bp-to-db", bp, db)
    differences = bp_db_differences(lin, bp, db)
    assert set(differences) <= KNOWN_BP_DB_DIFFERENCES, {k: v[:2] for k, v in differences.items()
                                                         if k not in KNOWN_BP_DB_DIFFERENCES}
    assert not {(kind, p) for kind, props in CORE.items() for p in props} & set(differences)
    facts = graph_facts(lin)
    assert sum(1 for uid in facts if uid.startswith("pegasus:invocation:")) == 26
    assert sum(1 for uid in facts if uid.startswith("pegasus:job_instance:")) == 14
    # the attempts' state lists are Pegasus's exactly, IMAGE_SIZE included
    assert ("job_instance", "states") not in differences
