"""Older Stampede shapes, built in the test run from the real samples and from the schema
facts Pegasus's own migrations state (pegasus-wms 5.1.3, ``Pegasus/db/admin/versions``):

- schema version 4 (Pegasus 4.5.0-4.5.3): the replica catalog is ``rc_lfn(id, lfn, pfn,
  site)`` with ``rc_attr(id, name, value)`` (v6 made ``rc_lfn(lfn_id, lfn)``, ``rc_pfn``,
  ``rc_meta``, ``workflow_files``); ``file(file_id, task_id, lfn, ...)`` instead of
  ``workflow_files``; no ``reason`` in ``jobstate`` / ``workflowstate`` (v7) nor in
  ``master_workflowstate`` (v8); no ``tag`` / ``integrity`` tables (v9-v11), no
  ``invocation.maxrss`` / ``avg_cpu`` (v13), no ``trigger`` (v14);
- before schema version 1 (Pegasus before 4.3): on top of that, no ``job_instance.exitcode``
  / ``multiplier_factor`` and no ``invocation.remote_cpu_time`` (v0 added them, filling the
  exit code from each attempt's last state), no ``workflow.db_url`` (v2), no ``dbversion``
  and no master or replica tables;
- streams of Pegasus 3.x monitord: ``job_inst.main.end`` / ``post.end`` with ``status`` and
  no ``exitcode``, ``local_duration=`` for ``local.dur=``, ``exec_job.id=`` in host records.

Pegasus's own ``pegasus-db-admin update`` (``pegasus_oracle.py update``) brings each
database shape back to version 14, which is how the tests know they are shapes Pegasus
recognises.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
from pathlib import Path

from .conftest import SAMPLES

PEGASUS = SAMPLES / "pegasus"
HIER_DB = PEGASUS / "hierarchical_wf_success.stampede.db"
FAIL_DB = PEGASUS / "process_wf_failure.stampede.db"
BLACKDIAMOND_BP = PEGASUS / "blackdiamond-4.0.bp"

_SCHEMA_4 = """
CREATE TABLE rc_lfn_v4 (id INTEGER NOT NULL PRIMARY KEY, lfn VARCHAR(245) NOT NULL,
                        pfn VARCHAR(245) NOT NULL, site VARCHAR(245),
                        CONSTRAINT "UNIQUE_RC_LFN" UNIQUE (lfn, pfn, site));
INSERT INTO rc_lfn_v4 (lfn, pfn, site)
     SELECT l.lfn, p.pfn, p.site FROM rc_lfn l JOIN rc_pfn p ON p.lfn_id = l.lfn_id
      ORDER BY p.pfn_id;
CREATE TABLE rc_attr (id INTEGER NOT NULL REFERENCES rc_lfn (id) ON DELETE CASCADE,
                      name VARCHAR(245) NOT NULL, value VARCHAR(245) NOT NULL,
                      PRIMARY KEY (id, name));
INSERT INTO rc_attr SELECT r.id, m."key", m.value FROM rc_lfn_v4 r
     JOIN rc_lfn l ON l.lfn = r.lfn JOIN rc_meta m ON m.lfn_id = l.lfn_id;
DROP TABLE workflow_files; DROP TABLE rc_meta; DROP TABLE rc_pfn; DROP TABLE rc_lfn;
ALTER TABLE rc_lfn_v4 RENAME TO rc_lfn;
CREATE TABLE file (file_id INTEGER NOT NULL PRIMARY KEY, task_id INTEGER REFERENCES task
                   (task_id) ON DELETE CASCADE, lfn VARCHAR(255), estimated_size INTEGER,
                   md_checksum VARCHAR(255), type VARCHAR(255));
ALTER TABLE jobstate DROP COLUMN reason;
ALTER TABLE workflowstate DROP COLUMN reason;
ALTER TABLE master_workflowstate DROP COLUMN reason;
ALTER TABLE invocation DROP COLUMN maxrss;
ALTER TABLE invocation DROP COLUMN avg_cpu;
DROP TABLE tag; DROP TABLE integrity; DROP TABLE trigger;
DROP TABLE workflow_meta; DROP TABLE task_meta;
DELETE FROM dbversion;
INSERT INTO dbversion (version_number, version, version_timestamp) VALUES (4, '4', 1430000000);
"""

_BEFORE_SCHEMA_1 = """
ALTER TABLE job_instance DROP COLUMN exitcode;
ALTER TABLE job_instance DROP COLUMN multiplier_factor;
ALTER TABLE invocation DROP COLUMN remote_cpu_time;
ALTER TABLE workflow DROP COLUMN db_url;
DROP TABLE dbversion; DROP TABLE rc_attr; DROP TABLE rc_lfn;
DROP TABLE master_workflowstate; DROP TABLE master_workflow;
DROP TABLE ensemble_workflow; DROP TABLE ensemble;
"""


def _script(db: Path, script: str) -> Path:
    conn = sqlite3.connect(db)
    try:
        conn.executescript(script)
        conn.commit()
    finally:
        conn.close()
    return db


def schema_4_db(tmp_path: Path, source: Path = HIER_DB, name: str = "") -> Path:
    """``source`` (a version-14 sample) in the shape of schema version 4 (Pegasus 4.5):
    every replica of the sample's catalogue is an ``rc_lfn`` row, its metadata ``rc_attr``
    rows of that replica."""
    db = tmp_path / (name or f"v4-{source.name}")
    shutil.copy(source, db)
    return _script(db, _SCHEMA_4)


def before_schema_1_db(tmp_path: Path, source: Path = HIER_DB, name: str = "") -> Path:
    """``source`` in the shape of a Stampede database from before Pegasus 4.3 (no schema
    version yet): attempts without exit codes and multiplier factors."""
    db = schema_4_db(tmp_path, source, name or f"v0-{source.name}")
    return _script(db, _BEFORE_SCHEMA_1)


def empty_old_replica_catalog_db(tmp_path: Path) -> Path:
    """process_wf_failure.stampede.db in the shape of schema 4, its ``rc_lfn`` empty (the
    sample's one file has no replica, and v4 keeps none without a pfn)."""
    return schema_4_db(tmp_path, FAIL_DB, "v4-empty-rc.stampede.db")


def as_pegasus3_stream(text: str) -> str:
    """A 4.x monitord stream as Pegasus 3.x monitord wrote it: ``job_inst.main.end`` and
    ``job_inst.post.end`` with their ``status`` and no ``exitcode`` key, ``local_duration=``
    for ``local.dur=``, ``exec_job.id=`` in ``job_inst.host.info``."""
    out = []
    for line in text.splitlines(keepends=True):
        if " event=stampede.job_inst.main.end " in line or " event=stampede.job_inst.post.end " in line:
            line = re.sub(r" exitcode=\S+", "", line)
            line = line.replace(" local.dur=", " local_duration=")
        if " event=stampede.job_inst.host.info " in line:
            line = line.replace(" job.id=", " exec_job.id=")
        out.append(line)
    return "".join(out)


def pegasus3_bp(tmp_path: Path, source: Path = BLACKDIAMOND_BP) -> Path:
    """``source`` rewritten as a Pegasus 3.x stream (:func:`as_pegasus3_stream`)."""
    bp = tmp_path / f"3x-{source.name}"
    bp.write_text(as_pegasus3_stream(source.read_text(encoding="utf-8")), encoding="utf-8")
    return bp
