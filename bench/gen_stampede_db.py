"""A large Stampede database (Pegasus's ``*.stampede.db``) for benchmarks: the real schema,
read at run time from the sample ``process_wf_failure.stampede.db`` of
``$LINEAGE_CORPUS/samples/pegasus``, holding ``jobs`` jobs in a layered DAG, one or two
attempts each (every tenth job is retried), seven job states per attempt, a task, two
invocations per attempt and a percent-encoded stdout/stderr.

    python bench/gen_stampede_db.py --jobs 30000 -o bench/out/bench.stampede.db
"""

from __future__ import annotations

import argparse
import os
import sqlite3
from pathlib import Path

CORPUS = Path(os.environ.get("LINEAGE_CORPUS", Path(__file__).resolve().parents[2] / "shared"))
SAMPLE = CORPUS / "samples" / "pegasus" / "process_wf_failure.stampede.db"
STATES_OK = ("SUBMIT", "EXECUTE", "JOB_TERMINATED", "JOB_SUCCESS", "POST_SCRIPT_STARTED",
             "POST_SCRIPT_TERMINATED", "POST_SCRIPT_SUCCESS")
STATES_BAD = STATES_OK[:3] + ("JOB_FAILURE", "POST_SCRIPT_STARTED", "POST_SCRIPT_TERMINATED",
                              "POST_SCRIPT_FAILED")
WIDTH = 100  # jobs per DAG layer


def generate(path: Path, jobs: int) -> dict:
    """Write the synthetic database; returns its row counts."""
    if path.exists():
        path.unlink()
    src = sqlite3.connect(f"file:{SAMPLE}?mode=ro", uri=True)
    ddl = [r[0] for r in src.execute(
        "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'")]
    src.close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode = OFF")
    db.execute("PRAGMA synchronous = OFF")
    for stmt in ddl:
        db.execute(stmt)
    t0 = 1_700_000_000
    db.execute("INSERT INTO workflow (wf_id, wf_uuid, dax_label, timestamp, root_wf_id, "
               "submit_hostname, user) VALUES (1, 'bench-0001', 'bench', ?, 1, 'submit', 'bench')",
               (t0,))
    db.execute("INSERT INTO workflowstate VALUES (1, 'WORKFLOW_STARTED', ?, 0, NULL, NULL)", (t0,))
    db.execute("INSERT INTO workflowstate VALUES (1, 'WORKFLOW_TERMINATED', ?, 0, 1, NULL)",
               (t0 + jobs,))
    db.executemany("INSERT INTO host VALUES (?, 1, 'condorpool', ?, ?, 'linux', 64000000)",
                   [(h, f"node{h:03d}", f"10.0.{h // 250}.{h % 250}") for h in range(1, 65)])

    def job_rows():
        for j in range(1, jobs + 1):
            yield (j, 1, f"job_{j:07d}", f"00/00/job_{j:07d}.sub", "compute", 0, 3,
                   "/bin/work", f"-i f{j}.in -o f{j}.out", 1)

    db.executemany("INSERT INTO job VALUES (?,?,?,?,?,?,?,?,?,?)", job_rows())
    db.executemany("INSERT INTO task VALUES (?, 1, ?, ?, 'work', ?, 'compute')",
                   ((j, j, f"ID{j:07d}", f"-i f{j}.in") for j in range(1, jobs + 1)))

    def edges():
        for j in range(WIDTH + 1, jobs + 1):
            parent = j - WIDTH
            yield (f"job_{parent:07d}", f"job_{j:07d}")
            if j % 3 == 0:
                yield (f"job_{parent - 1 if parent > 1 else parent + 1:07d}", f"job_{j:07d}")

    db.executemany("INSERT OR IGNORE INTO job_edge VALUES (1, ?, ?)", edges())
    db.executemany("INSERT OR IGNORE INTO task_edge VALUES (1, ?, ?)",
                   ((f"ID{j - WIDTH:07d}", f"ID{j:07d}") for j in range(WIDTH + 1, jobs + 1)))
    stdout = "#@ 1 stdout%0A" + "line of output %27quoted%27%0A" * 8
    counts = {"job": jobs, "job_instance": 0, "jobstate": 0, "invocation": 0}

    def attempts():
        inst = 0
        seq = 0
        for j in range(1, jobs + 1):
            tries = 2 if j % 10 == 0 else 1
            for a in range(tries):
                inst += 1
                seq += 1
                failed = a < tries - 1
                yield inst, j, seq, failed

    inst_rows, state_rows, inv_rows = [], [], []

    def flush():
        db.executemany("INSERT INTO job_instance (job_instance_id, job_id, host_id, "
                       "job_submit_seq, sched_id, site, user, work_dir, local_duration, "
                       "stdout_file, stdout_text, stderr_file, stderr_text, "
                       "multiplier_factor, exitcode) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                       inst_rows)
        db.executemany("INSERT INTO jobstate VALUES (?,?,?,?,?)", state_rows)
        db.executemany("INSERT INTO invocation (invocation_id, wf_id, job_instance_id, "
                       "task_submit_seq, start_time, remote_duration, remote_cpu_time, exitcode, "
                       "transformation, executable, argv, abs_task_id) "
                       "VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", inv_rows)
        inst_rows.clear()
        state_rows.clear()
        inv_rows.clear()

    inv_id = 0
    for inst, j, seq, failed in attempts():
        start = t0 + seq
        code = 256 if failed else 0
        inst_rows.append((inst, j, 1 + inst % 64, seq, f"{inst}.0", "condorpool", "bench",
                          "/scratch", 5.0, f"job_{j}.out", stdout, f"job_{j}.err",
                          "warning%3A disk%0A" if failed else None, 1, code))
        for k, state in enumerate(STATES_BAD if failed else STATES_OK):
            state_rows.append((inst, state, start + k, k + 1, None))
        inv_id += 1
        inv_rows.append((inv_id, inst, 1, start + 1, 2.5, 2.0, 512 if failed else 0, "work",
                         "/bin/work", "-i x", f"ID{j:07d}"))
        inv_id += 1
        inv_rows.append((inv_id, inst, -2, start + 5, 0.1, 0.1, code, "dagman::post",
                         "/bin/pegasus-exitcode", "-r 0", None))
        counts["job_instance"] += 1
        counts["jobstate"] += 7
        counts["invocation"] += 2
        if len(state_rows) >= 70_000:
            flush()
    flush()
    db.commit()
    db.close()
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=30_000)
    ap.add_argument("-o", "--output", type=Path, default=Path("bench/out/bench.stampede.db"))
    args = ap.parse_args()
    args.output.parent.mkdir(parents=True, exist_ok=True)
    print(f"{args.output}: {generate(args.output, args.jobs)}")


if __name__ == "__main__":
    main()
