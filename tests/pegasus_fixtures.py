"""Stampede databases for tests, made from the real samples."""

import shutil
import sqlite3

from .conftest import SAMPLES

FAIL_DB = SAMPLES / "pegasus" / "process_wf_failure.stampede.db"


def failure_db_with_workflow_files(tmp_path):
    """process_wf_failure.stampede.db plus workflow_files rows: input.txt is an input of
    task ID0000001 and listing.txt (rc_lfn 1) its output."""
    db = tmp_path / "files.stampede.db"
    shutil.copy(FAIL_DB, db)
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO rc_lfn VALUES (2, 'input.txt')")
    conn.execute("INSERT INTO workflow_files VALUES (1, 1, 2, 'input')")
    conn.execute("INSERT INTO workflow_files VALUES (1, 1, 1, 'output')")
    conn.commit()
    conn.close()
    return db
