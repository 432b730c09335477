"""``:Failed`` is on exactly the nodes whose status counts as failed, after loads (driver and
bulk), after a status changes, and after unloads; the Browser stylesheet colours it."""

from __future__ import annotations

from lineage import model
from lineage.load import status_labels
from lineage.browser import grass

from .conftest import SAMPLES
from .corpus import needs_corpus

FAIL_DB = SAMPLES / "pegasus" / "process_wf_failure.stampede.db"
BD = SAMPLES / "pegasus" / "blackdiamond-4.0.bp"


def _split(lin):
    """(failed uids, uids labelled Failed) in the graph."""
    row = lin.query(
        "CALL () { MATCH (n:Lineage) WHERE n.status IN $failed RETURN collect(n.uid) AS failed } "
        "CALL () { MATCH (n:Failed) RETURN collect(n.uid) AS labelled } "
        "RETURN failed, labelled", failed=sorted(model.FAILED_STATUSES))[0]
    return set(row["failed"]), set(row["labelled"])


@needs_corpus
def test_failed_label_follows_status_through_loads_and_unloads(lin):
    lin.load([BD])  # a workflow that succeeded: nothing failed
    failed, labelled = _split(lin)
    assert failed == labelled == set()
    lin.load([FAIL_DB])
    failed, labelled = _split(lin)
    kinds = {r["kind"] for r in lin.query("nodes", uids=sorted(failed))}
    assert {"Job", "JobInstance", "Workflow"} <= kinds  # the job, its two attempts, the run
    assert labelled == failed
    # a status that changes (a later load saying the job succeeded) takes the label off
    job = next(u for u in failed if u.startswith("pegasus:job:"))
    lin.graph.run("MATCH (n:Lineage {uid: $uid}) SET n.status = 'succeeded'", {"uid": job},
                  write=True)
    assert status_labels.refresh(lin.graph.driver, lin.graph.database) == \
        {"labelled": 0, "unlabelled": 1}
    failed, labelled = _split(lin)
    assert job not in labelled and labelled == failed
    lin.unload(str(FAIL_DB))
    assert _split(lin) == (set(), set())


def test_browser_stylesheet_fills_failed_nodes_in_the_failure_colour():
    colour = model.status.FAILURE_COLOUR
    assert grass.colour_of(["Lineage", "Activity", "Job"]) != colour
    assert grass.colour_of(["Lineage", "Activity", "Job", model.FAILED_LABEL]) == colour
    assert grass.parse(grass.SHIPPED.read_text(encoding="utf-8"))[
        f"node.{model.FAILED_LABEL}"]["color"] == colour
