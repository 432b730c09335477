"""Pegasus master databases (the per-user index of runs) built in the test run:

- :func:`pegasus5_master_db`: written by Pegasus's own ``DashboardLoader`` (pegasus-wms 5.1.3,
  ``pegasus_oracle.py master-db``) from the events monitord sends it: ``wf.plan`` (with
  ``db_url``, the run's Stampede database), ``xwf.start`` and ``xwf.end``. The runs: the
  three real Stampede samples (copies in the test's directory; the events of the two
  database samples made from their root ``workflow`` and ``workflowstate`` rows, which
  monitord writes from the same events) and a run whose database is gone. Pegasus 5
  creates every table in it (the Stampede tables stay empty).
- :func:`schema_4_master_db`: the same index in the layout of a Pegasus 4.5 master database:
  ``dbversion`` (version 4), ``master_workflow`` (``archived`` since version 4) and
  ``master_workflowstate`` (no ``reason`` before version 8), nothing else.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from .pegasus_oracle_compare import (BLACKDIAMOND_BP, FAIL_DB, HIER_DB, bp_time, plan_event,
                                     run_oracle)

def dashboard_events(db: Path) -> str:
    """The wf.plan / xwf.start / xwf.end events of ``db``'s root workflows, as BP lines."""
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    lines = []
    try:
        for wf in conn.execute("SELECT * FROM workflow WHERE parent_wf_id IS NULL"):
            lines.append(plan_event(wf))
            for state in conn.execute("SELECT * FROM workflowstate WHERE wf_id = ? "
                                      "ORDER BY timestamp", (wf["wf_id"],)):
                event = "xwf.start" if state["state"] == "WORKFLOW_STARTED" else "xwf.end"
                status = f" status={state['status']}" if state["status"] is not None else ""
                lines.append(f"ts={bp_time(state['timestamp'])} event=stampede.{event} "
                             f"xwf.id={wf['wf_uuid']} restart_count={state['restart_count']}"
                             f"{status}")
    finally:
        conn.close()
    return "\n".join(lines) + "\n"


def pegasus5_master_db(tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    """The master database and the Stampede database of each run it lists that exists
    (wf uuid -> file)."""
    runs = tmp_path / "runs"
    runs.mkdir()
    blackdiamond = runs / "blackdiamond-0.stampede.db"
    run_oracle("bp-to-db", BLACKDIAMOND_BP, blackdiamond)
    streams, databases = [f"{BLACKDIAMOND_BP}=sqlite:///{blackdiamond}"], {
        "ea17e8ac-02ac-4909-b5e3-16e367392556": blackdiamond}
    for sample, uuid in ((FAIL_DB, "f84f05fc-a8d0-42b5-bac5-52d6f41a77e3"),
                         (HIER_DB, "48f759a4-165f-47d6-8c32-571649ce311b")):
        copy = runs / sample.name
        shutil.copy(sample, copy)
        events = runs / f"{sample.stem}.dashboard.bp"
        events.write_text(dashboard_events(copy), encoding="utf-8")
        streams.append(f"{events}=sqlite:///{copy}")
        databases[uuid] = copy
    gone = runs / "gone.dashboard.bp"
    gone.write_text('ts=2012-03-15T16:43:46.000000Z event=stampede.wf.plan '
                    'xwf.id=0c1e5c0e-9a6b-4a41-8a47-0d0d0d0d0d0d dax.label=gone '
                    'submit.dir=/nowhere/run0001 dag.file.name=gone-0.dag '
                    'root.xwf.id=0c1e5c0e-9a6b-4a41-8a47-0d0d0d0d0d0d\n'
                    'ts=2012-03-15T16:43:47.000000Z event=stampede.xwf.start '
                    'xwf.id=0c1e5c0e-9a6b-4a41-8a47-0d0d0d0d0d0d restart_count=0\n',
                    encoding="utf-8")
    streams.append(f"{gone}=sqlite:///{runs / 'gone-0.stampede.db'}")
    master = tmp_path / "workflow.db"
    made = run_oracle("master-db", master, *streams)
    assert made["log"] == [], made["log"]
    return master, databases


def schema_4_master_db(tmp_path: Path, master: Path) -> Path:
    """``master`` (a Pegasus 5 master database) in the layout of Pegasus 4.5."""
    old = tmp_path / "workflow-v4.db"
    conn = sqlite3.connect(old)
    try:
        conn.executescript(f"""
            ATTACH DATABASE '{master}' AS new;
            CREATE TABLE dbversion (id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
                                    version_number INTEGER, version VARCHAR(50) NOT NULL,
                                    version_timestamp INTEGER NOT NULL);
            INSERT INTO dbversion (version_number, version, version_timestamp)
                 VALUES (4, '4', 1430000000);
            CREATE TABLE master_workflow AS SELECT wf_id, wf_uuid, dax_label, dax_version,
                   dax_file, dag_file_name, timestamp, submit_hostname, submit_dir,
                   planner_arguments, user, grid_dn, planner_version, db_url, archived
              FROM new.master_workflow;
            CREATE TABLE master_workflowstate AS SELECT wf_id, state, timestamp,
                   restart_count, status FROM new.master_workflowstate;
        """)
        conn.commit()
    finally:
        conn.close()
    return old
