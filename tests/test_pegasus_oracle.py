"""Our Pegasus templates against Pegasus's own tools (pegasus-wms 5.1.3 in .venv-oracle)."""

import pytest

from .pegasus_oracle_compare import (
    BLACKDIAMOND_BP, FAIL_DB, HIER_DB, attempts_differences, failed_jobs_differences,
    restarted_and_held_db, run_oracle, statistics_differences, subworkflow_differences,
    transformation_differences,
)


@pytest.fixture(scope="session")
def pegasus_made_db(tmp_path_factory):
    """blackdiamond-4.0.bp turned into a Stampede database by Pegasus's own loader."""
    db = tmp_path_factory.mktemp("oracle") / "blackdiamond.stampede.db"
    run_oracle("bp-to-db", BLACKDIAMOND_BP, db)
    return db


CASES = ["process_wf_failure", "hierarchical_wf_success", "blackdiamond_bp", "blackdiamond_db",
         "restarted_held"]


@pytest.fixture(params=CASES)
def case(request, pegasus_made_db, tmp_path):
    """(name, what we load, the Stampede database Pegasus's tools read)."""
    name = request.param
    inputs = {"process_wf_failure": (FAIL_DB, FAIL_DB), "hierarchical_wf_success": (HIER_DB, HIER_DB),
              "blackdiamond_bp": (BLACKDIAMOND_BP, pegasus_made_db),
              "blackdiamond_db": (pegasus_made_db, pegasus_made_db)}
    if name == "restarted_held":
        db = restarted_and_held_db(tmp_path)
        inputs[name] = (db, db)
    return (name, *inputs[name])


def all_differences(lin, ours_input, oracle_db):
    lin.load([ours_input])
    stats, analysis = run_oracle("statistics", oracle_db), run_oracle("analyzer", oracle_db)
    found = {}
    for uuid, entry in stats.items():
        d = statistics_differences(lin, uuid, entry["individual"], False)
        d += transformation_differences(lin, uuid, entry["individual"], False)
        if entry["parent_wf_id"] is None:
            d += [("recursive " + w, a, b) for w, a, b in statistics_differences(lin, uuid, entry["expanded"], True)]
            d += [("recursive " + w, a, b) for w, a, b in transformation_differences(lin, uuid, entry["expanded"], True)]
            d += subworkflow_differences(lin, uuid, analysis)
        d += failed_jobs_differences(lin, uuid, analysis[uuid])
        d += attempts_differences(lin, uuid, entry["individual"]["job_instances"])
        found[uuid[:8]] = d
    return found


def test_explore(lin, case):
    name, ours_input, oracle_db = case
    found = all_differences(lin, ours_input, oracle_db)
    import pprint
    print("CASE", name)
    pprint.pprint(found, width=150)
