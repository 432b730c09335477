"""A demo workflow run as the Stampede database pegasus-monitord writes (SQLite, schema
version 14 of Pegasus 5): the same facts as its BP stream, plus the files of the replica
catalog and which task read or wrote each.

>>> sorted(SCHEMA)[:3]
['dbversion', 'ensemble', 'ensemble_workflow']
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ..scenario import WorkflowRun
from .demo_attempts import EXITCODE, Recorded, encode, iso_time, recorded, task_edges

SCHEMA_VERSION = 14

#: table -> its column declarations and constraints (the Stampede schema, version 14).
SCHEMA: dict[str, str] = {
    "dbversion": """id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, version_number INTEGER,
        version VARCHAR(50) NOT NULL, version_timestamp INTEGER NOT NULL""",
    "workflow": """wf_id INTEGER NOT NULL, wf_uuid VARCHAR(255) NOT NULL,
        dag_file_name VARCHAR(255), timestamp NUMERIC(16, 6), submit_hostname VARCHAR(255),
        submit_dir TEXT, planner_arguments TEXT, user VARCHAR(255), grid_dn VARCHAR(255),
        planner_version VARCHAR(255), dax_label VARCHAR(255), dax_version VARCHAR(255),
        dax_file VARCHAR(255), db_url TEXT, parent_wf_id INTEGER, root_wf_id INTEGER,
        PRIMARY KEY (wf_id),
        FOREIGN KEY(parent_wf_id) REFERENCES workflow (wf_id) ON DELETE CASCADE,
        CONSTRAINT "UNIQUE_WF_UUID" UNIQUE (wf_uuid)""",
    "rc_lfn": """lfn_id INTEGER NOT NULL, lfn VARCHAR(245) NOT NULL, PRIMARY KEY (lfn_id),
        CONSTRAINT "UNIQUE_LFN" UNIQUE (lfn)""",
    "master_workflow": """wf_id INTEGER NOT NULL, wf_uuid VARCHAR(255) NOT NULL,
        dax_label VARCHAR(255), dax_version VARCHAR(255), dax_file VARCHAR(255),
        dag_file_name VARCHAR(255), timestamp NUMERIC(16, 6), submit_hostname VARCHAR(255),
        submit_dir TEXT, planner_arguments TEXT, user VARCHAR(255), grid_dn VARCHAR(255),
        planner_version VARCHAR(255), db_url TEXT, archived BOOLEAN NOT NULL,
        PRIMARY KEY (wf_id), CHECK (archived IN (0, 1)),
        CONSTRAINT "UNIQUE_MASTER_WF_UUID" UNIQUE (wf_uuid)""",
    "ensemble": """id INTEGER NOT NULL, name VARCHAR(100) NOT NULL, created DATETIME NOT NULL,
        updated DATETIME NOT NULL, state VARCHAR(6) NOT NULL, max_running INTEGER NOT NULL,
        max_planning INTEGER NOT NULL, username VARCHAR(100) NOT NULL, PRIMARY KEY (id),
        CONSTRAINT "UNIQUE_ENSEMBLE" UNIQUE (name, username)""",
    "workflowstate": """wf_id INTEGER NOT NULL, state VARCHAR(19) NOT NULL,
        timestamp NUMERIC(16, 6) NOT NULL, restart_count INTEGER NOT NULL, status INTEGER,
        reason TEXT, PRIMARY KEY (wf_id, state, timestamp),
        FOREIGN KEY(wf_id) REFERENCES workflow (wf_id) ON DELETE CASCADE""",
    "workflow_meta": """wf_id INTEGER NOT NULL, "key" VARCHAR(255) NOT NULL,
        value VARCHAR(255) NOT NULL, PRIMARY KEY (wf_id, "key"),
        FOREIGN KEY(wf_id) REFERENCES workflow (wf_id) ON DELETE CASCADE""",
    "host": """host_id INTEGER NOT NULL, wf_id INTEGER NOT NULL, site VARCHAR(255) NOT NULL,
        hostname VARCHAR(255) NOT NULL, ip VARCHAR(255) NOT NULL, uname VARCHAR(255),
        total_memory INTEGER, PRIMARY KEY (host_id),
        FOREIGN KEY(wf_id) REFERENCES workflow (wf_id) ON DELETE CASCADE,
        CONSTRAINT "UNIQUE_HOST" UNIQUE (wf_id, site, hostname, ip)""",
    "job": """job_id INTEGER NOT NULL, wf_id INTEGER NOT NULL,
        exec_job_id VARCHAR(255) NOT NULL, submit_file VARCHAR(255) NOT NULL,
        type_desc VARCHAR(14) NOT NULL, clustered BOOLEAN NOT NULL,
        max_retries INTEGER NOT NULL, executable TEXT NOT NULL, argv TEXT,
        task_count INTEGER NOT NULL, PRIMARY KEY (job_id),
        FOREIGN KEY(wf_id) REFERENCES workflow (wf_id) ON DELETE CASCADE,
        CHECK (clustered IN (0, 1)), CONSTRAINT "UNIQUE_JOB" UNIQUE (wf_id, exec_job_id)""",
    "job_edge": """wf_id INTEGER NOT NULL, parent_exec_job_id VARCHAR(255) NOT NULL,
        child_exec_job_id VARCHAR(255) NOT NULL,
        PRIMARY KEY (wf_id, parent_exec_job_id, child_exec_job_id),
        FOREIGN KEY(wf_id) REFERENCES workflow (wf_id) ON DELETE CASCADE""",
    "task_edge": """wf_id INTEGER NOT NULL, parent_abs_task_id VARCHAR(255) NOT NULL,
        child_abs_task_id VARCHAR(255) NOT NULL,
        PRIMARY KEY (wf_id, parent_abs_task_id, child_abs_task_id),
        FOREIGN KEY(wf_id) REFERENCES workflow (wf_id) ON DELETE CASCADE""",
    "rc_pfn": """pfn_id INTEGER NOT NULL, lfn_id INTEGER NOT NULL, pfn VARCHAR(245) NOT NULL,
        site VARCHAR(245), PRIMARY KEY (pfn_id),
        FOREIGN KEY(lfn_id) REFERENCES rc_lfn (lfn_id) ON DELETE CASCADE,
        CONSTRAINT "UNIQUE_PFN" UNIQUE (lfn_id, pfn, site)""",
    "rc_meta": """lfn_id INTEGER NOT NULL, "key" VARCHAR(245) NOT NULL,
        value VARCHAR(245) NOT NULL, PRIMARY KEY (lfn_id, "key"),
        FOREIGN KEY(lfn_id) REFERENCES rc_lfn (lfn_id) ON DELETE CASCADE""",
    "master_workflowstate": """wf_id INTEGER NOT NULL, state VARCHAR(19) NOT NULL,
        timestamp NUMERIC(16, 6) NOT NULL, restart_count INTEGER NOT NULL, status INTEGER,
        reason TEXT, PRIMARY KEY (wf_id, state, timestamp),
        FOREIGN KEY(wf_id) REFERENCES master_workflow (wf_id) ON DELETE CASCADE""",
    "ensemble_workflow": """id INTEGER NOT NULL, ensemble_id INTEGER NOT NULL,
        name VARCHAR(100) NOT NULL, basedir VARCHAR(512) NOT NULL, created DATETIME NOT NULL,
        updated DATETIME NOT NULL, state VARCHAR(11) NOT NULL, priority INTEGER NOT NULL,
        wf_uuid VARCHAR(36), submitdir VARCHAR(512), plan_command VARCHAR(1024) NOT NULL,
        PRIMARY KEY (id), FOREIGN KEY(ensemble_id) REFERENCES ensemble (id),
        CONSTRAINT "UNIQUE_ENSEMBLE_WORKFLOW" UNIQUE (ensemble_id, name)""",
    "trigger": """id INTEGER NOT NULL, ensemble_id INTEGER NOT NULL, name VARCHAR(100) NOT NULL,
        state VARCHAR(7) NOT NULL, workflow TEXT NOT NULL, args TEXT,
        type VARCHAR(12) NOT NULL, PRIMARY KEY (id),
        FOREIGN KEY(ensemble_id) REFERENCES ensemble (id),
        CONSTRAINT "UNIQUE_TRIGGER" UNIQUE (ensemble_id, name)""",
    "job_instance": """job_instance_id INTEGER NOT NULL, job_id INTEGER NOT NULL,
        host_id INTEGER, job_submit_seq INTEGER NOT NULL, sched_id VARCHAR(255),
        site VARCHAR(255), user VARCHAR(255), work_dir TEXT, cluster_start NUMERIC(16, 6),
        cluster_duration NUMERIC(10, 3), local_duration NUMERIC(10, 3), subwf_id INTEGER,
        stdout_file VARCHAR(255), stdout_text TEXT, stderr_file VARCHAR(255),
        stderr_text TEXT, stdin_file VARCHAR(255), multiplier_factor INTEGER NOT NULL,
        exitcode INTEGER, PRIMARY KEY (job_instance_id),
        FOREIGN KEY(job_id) REFERENCES job (job_id) ON DELETE CASCADE,
        FOREIGN KEY(host_id) REFERENCES host (host_id) ON DELETE SET NULL,
        FOREIGN KEY(subwf_id) REFERENCES workflow (wf_id) ON DELETE SET NULL,
        CONSTRAINT "UNIQUE_JOB_INSTANCE" UNIQUE (job_id, job_submit_seq)""",
    "task": """task_id INTEGER NOT NULL, wf_id INTEGER NOT NULL, job_id INTEGER,
        abs_task_id VARCHAR(255) NOT NULL, transformation TEXT NOT NULL, argv TEXT,
        type_desc VARCHAR(255) NOT NULL, PRIMARY KEY (task_id),
        FOREIGN KEY(wf_id) REFERENCES workflow (wf_id) ON DELETE CASCADE,
        FOREIGN KEY(job_id) REFERENCES job (job_id) ON DELETE SET NULL,
        CONSTRAINT "UNIQUE_TASK" UNIQUE (wf_id, abs_task_id)""",
    "jobstate": """job_instance_id INTEGER NOT NULL, state VARCHAR(255) NOT NULL,
        timestamp NUMERIC(16, 6) NOT NULL, jobstate_submit_seq INTEGER NOT NULL, reason TEXT,
        PRIMARY KEY (job_instance_id, state, timestamp, jobstate_submit_seq),
        FOREIGN KEY(job_instance_id) REFERENCES job_instance (job_instance_id)
        ON DELETE CASCADE""",
    "tag": """tag_id INTEGER NOT NULL, wf_id INTEGER NOT NULL, job_instance_id INTEGER NOT NULL,
        name VARCHAR(255) NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (tag_id),
        FOREIGN KEY(wf_id) REFERENCES workflow (wf_id) ON DELETE CASCADE,
        FOREIGN KEY(job_instance_id) REFERENCES job_instance (job_instance_id)
        ON DELETE CASCADE, CONSTRAINT "UNIQUE_TAG" UNIQUE (wf_id, job_instance_id)""",
    "task_meta": """task_id INTEGER NOT NULL, "key" VARCHAR(255) NOT NULL,
        value VARCHAR(255) NOT NULL, PRIMARY KEY (task_id, "key"),
        FOREIGN KEY(task_id) REFERENCES task (task_id) ON DELETE CASCADE""",
    "invocation": """invocation_id INTEGER NOT NULL, wf_id INTEGER NOT NULL,
        job_instance_id INTEGER NOT NULL, task_submit_seq INTEGER NOT NULL,
        start_time NUMERIC(16, 6) NOT NULL, remote_duration NUMERIC(10, 3) NOT NULL,
        remote_cpu_time NUMERIC(10, 3), exitcode INTEGER NOT NULL, transformation TEXT NOT NULL,
        executable TEXT NOT NULL, argv TEXT, abs_task_id VARCHAR(255), maxrss INTEGER,
        avg_cpu NUMERIC(16, 6), PRIMARY KEY (invocation_id),
        FOREIGN KEY(wf_id) REFERENCES workflow (wf_id) ON DELETE CASCADE,
        FOREIGN KEY(job_instance_id) REFERENCES job_instance (job_instance_id)
        ON DELETE CASCADE,
        CONSTRAINT "UNIQUE_INVOCATION" UNIQUE (job_instance_id, task_submit_seq)""",
    "integrity": """integrity_id INTEGER NOT NULL, wf_id INTEGER NOT NULL,
        job_instance_id INTEGER NOT NULL, type VARCHAR(7) NOT NULL, file_type VARCHAR(6),
        count INTEGER NOT NULL, duration NUMERIC(10, 3) NOT NULL, PRIMARY KEY (integrity_id),
        FOREIGN KEY(wf_id) REFERENCES workflow (wf_id) ON DELETE CASCADE,
        FOREIGN KEY(job_instance_id) REFERENCES job_instance (job_instance_id)
        ON DELETE CASCADE,
        CONSTRAINT "UNIQUE_INTEGRITY" UNIQUE (job_instance_id, type, file_type)""",
    "workflow_files": """wf_id INTEGER NOT NULL, task_id INTEGER NOT NULL,
        lfn_id INTEGER NOT NULL, file_type VARCHAR(255), PRIMARY KEY (wf_id, task_id, lfn_id),
        FOREIGN KEY(wf_id) REFERENCES workflow (wf_id) ON DELETE CASCADE,
        FOREIGN KEY(task_id) REFERENCES task (task_id) ON DELETE CASCADE,
        FOREIGN KEY(lfn_id) REFERENCES rc_lfn (lfn_id) ON DELETE CASCADE""",
}


def _rows(run: WorkflowRun) -> dict[str, list[tuple]]:
    """Every table's rows for ``run`` (workflow id 1, ids counted from 1)."""
    wf = 1
    attempts = recorded(run)
    hosts = list(dict.fromkeys((a.attempt.host.site, a.attempt.host) for a in attempts))
    host_id = {key: n for n, key in enumerate(hosts, 1)}
    job_id = {j.job_id: n for n, j in enumerate(run.jobs, 1)}
    tasks = run.tasks
    task_id = {t.task_id: n for n, t in enumerate(tasks, 1)}
    lfn_id = {f.lfn: n for n, f in enumerate(run.files, 1)}
    rows: dict[str, list[tuple]] = {name: [] for name in SCHEMA}
    rows["dbversion"].append((1, SCHEMA_VERSION, str(SCHEMA_VERSION), int(run.planned) + 15))
    rows["workflow"].append((
        wf, run.uuid, f"{run.label}-0.dag", run.planned, run.submit_host.name, run.submit_dir,
        run.planner_argv, run.user, None, run.planner_version, run.label, "5.0",
        f"{run.submit_dir.split('/submit/')[0]}/workflow.yml", None, None, wf))
    rows["workflowstate"] += [(wf, "WORKFLOW_STARTED", run.started, 0, None, None),
                              (wf, "WORKFLOW_TERMINATED", run.ended, 0, run.status, None)]
    rows["workflow_meta"].append((wf, "wf.api", "python"))
    rows["host"] += [(n, wf, site, h.name, h.ip, h.uname, None)
                     for (site, h), n in host_id.items()]
    for j in run.jobs:
        rows["job"].append((job_id[j.job_id], wf, j.job_id, f"00/00/{j.job_id}.sub", j.type_desc,
                            0, j.max_retries, j.executable, j.argv, 1 if j.task else 0))
    rows["job_edge"] += [(wf, p, c) for p, c in run.edges]
    for j in run.jobs:
        if j.task:
            t = j.task
            rows["task"].append((task_id[t.task_id], wf, job_id[j.job_id], t.task_id,
                                 t.transformation, t.argv, "compute"))
    rows["task_edge"] += [(wf, p, c) for p, c in task_edges(run)]
    for r in attempts:
        _attempt_rows(rows, wf, r, job_id[r.job.job_id],
                      host_id[(r.attempt.host.site, r.attempt.host)])
    for f in run.files:
        rows["rc_lfn"].append((lfn_id[f.lfn], f.lfn))
        if f.pfn:
            rows["rc_pfn"].append((len(rows["rc_pfn"]) + 1, lfn_id[f.lfn], f.pfn, "local"))
    for t in tasks:
        rows["workflow_files"] += [(wf, task_id[t.task_id], lfn_id[lfn], "input")
                                   for lfn in t.inputs]
        rows["workflow_files"] += [(wf, task_id[t.task_id], lfn_id[lfn], "output")
                                   for lfn in t.outputs]
    _replica_metadata(rows, run, lfn_id)
    return rows


def _attempt_rows(rows: dict, wf: int, r: Recorded, job: int, host: int) -> None:
    a = r.attempt
    ji = a.seq
    rows["job_instance"].append((
        ji, job, host, a.seq, a.sched_id, a.host.site, a.process.user, a.work_dir, None, None,
        round(a.ended - a.started), None, r.file("out"), encode(r.task_text()), r.file("err"),
        encode(r.lite_text()), None, 1, r.post_status))
    rows["jobstate"] += [(ji, state, t, n, None) for n, (state, t) in enumerate(r.states(), 1)]
    start, duration = r.kickstart()
    p = a.process
    task = r.job.task.task_id if r.job.task else None
    rows["invocation"].append((
        len(rows["invocation"]) + 1, wf, ji, 1, start, duration, p.cpu_time, r.main_status,
        r.transformation(), p.binary.path, r.invocation_argv(), task, p.max_rss_kb,
        round(p.cpu_time / duration, 6) if duration else None))
    start, duration = r.post()
    rows["invocation"].append((
        len(rows["invocation"]) + 1, wf, ji, -2, start, duration, duration, r.post_status,
        "dagman::post", EXITCODE, r.post_argv(), None, None, None))
    if r.job.task and r.ok:
        rows["integrity"].append((len(rows["integrity"]) + 1, wf, ji, "compute", "output",
                                  len(r.job.task.outputs), 0.021))


def _replica_metadata(rows: dict, run: WorkflowRun, lfn_id: dict) -> None:
    """rc_meta of the outputs registered when staged out (only when stage-out ran)."""
    staged = any(r.job.type_desc == "stage-out-tx" and r.ok for r in recorded(run))
    if not staged:
        return
    for f in run.files:
        if f.pfn and f.lfn not in {lfn for t in run.tasks for lfn in t.inputs}:
            rows["rc_meta"] += [(lfn_id[f.lfn], k, v) for k, v in (
                ("user", run.user), ("size", str(f.size)), ("ctime", iso_time(run.ended)),
                ("checksum.type", "sha256"), ("checksum.value", f.sha256),
                ("checksum.timing", "0.0"))]


def write_db(run: WorkflowRun, path: Path) -> Path:
    """Write ``run`` as a Stampede SQLite database at ``path`` (replaced if there)."""
    path.unlink(missing_ok=True)
    conn = sqlite3.connect(path)
    try:
        with conn:
            for table, columns in SCHEMA.items():
                conn.execute(f'CREATE TABLE "{table}" ({columns})')
            for table, rows in _rows(run).items():
                if rows:
                    marks = ", ".join("?" * len(rows[0]))
                    conn.executemany(f'INSERT INTO "{table}" VALUES ({marks})', rows)
    finally:
        conn.close()
    return path
