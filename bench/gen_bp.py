"""Generate a large synthetic Pegasus BP stream (monitord spelling) for benchmarks.

Each job brings 16 events (task, job, edges, map, one attempt with its states, host, one
invocation), so ``--events 1000000`` writes about 62,500 jobs in a layered DAG.

    python bench/gen_bp.py --events 1000000 -o bench/out/big.bp
"""

from __future__ import annotations

import argparse
from pathlib import Path

EVENTS_PER_JOB = 16


def generate(path: Path, events: int, width: int = 50) -> int:
    jobs = max(1, events // EVENTS_PER_JOB)
    wf = "bench-0000-0000-0000-000000000001"
    n = 0
    with open(path, "w") as out:
        def w(line: str) -> None:
            nonlocal n
            out.write(line + "\n")
            n += 1
        w(f"ts=2024-01-01T00:00:00.000000Z event=stampede.wf.plan level=Info xwf.id={wf} "
          f"dax.label=bench root.xwf.id={wf} submit.dir=/scratch/bench user=bench "
          f'argv="--dax bench.dax" planner.version=5.0.5')
        w(f"ts=2024-01-01T00:00:01.000000Z event=stampede.xwf.start level=Info xwf.id={wf} restart_count=0")
        for j in range(jobs):
            t = 1704067200 + j
            task, job = f"ID{j:08d}", f"proc_ID{j:08d}"
            w(f'ts={t} event=stampede.task.info xwf.id={wf} task.id={task} type=1 type_desc=compute '
              f'transformation=proc argv="-i f.{j} -o f.{j + 1}"')
            w(f'ts={t} event=stampede.job.info xwf.id={wf} job.id={job} submit_file={job}.sub type=1 '
              f'type_desc=compute clustered=0 max_retries=3 task_count=1 executable=/bin/proc argv="-n {j}"')
            if j >= width:
                parent = j - width + (j % 3)
                w(f"ts={t} event=stampede.task.edge xwf.id={wf} parent.task.id=ID{parent:08d} child.task.id={task}")
                w(f"ts={t} event=stampede.job.edge xwf.id={wf} parent.job.id=proc_ID{parent:08d} child.job.id={job}")
            else:
                w(f"ts={t} event=stampede.static.start level=Info")
                w(f"ts={t} event=stampede.static.end level=Info")
            w(f"ts={t} event=stampede.wf.map.task_job xwf.id={wf} job.id={job} task.id={task}")
            base = f"xwf.id={wf} job.id={job} job_inst.id={j + 1} sched.id={j}.0"
            w(f"ts={t + 1} event=stampede.job_inst.submit.start {base}")
            w(f"ts={t + 1} event=stampede.job_inst.submit.end {base} status=0")
            w(f"ts={t + 2} event=stampede.job_inst.main.start {base} stdout.file=o stderr.file=e")
            w(f"ts={t + 2} event=stampede.job_inst.host.info xwf.id={wf} job.id={job} job_inst.id={j + 1} "
              f"site=local hostname=node{j % 64:03d} ip=10.0.0.{j % 64}")
            w(f"ts={t + 2} event=stampede.inv.start xwf.id={wf} job.id={job} job_inst.id={j + 1} inv.id=1")
            w(f"ts={t + 3} event=stampede.inv.end xwf.id={wf} job.id={job} job_inst.id={j + 1} inv.id=1 "
              f'start_time={t + 2} dur=1.0 exitcode=0 transformation=proc executable=/bin/proc argv="-n {j}" task.id={task}')
            w(f"ts={t + 3} event=stampede.job_inst.main.term {base} status=0")
            w(f'ts={t + 3} event=stampede.job_inst.main.end {base} status=0 exitcode=0 site=local '
              f'stdout.file=o stderr.file=e stdout.text="ok%0A" local.dur=1.0 multiplier_factor=1')
            w(f"ts={t + 4} event=stampede.job_inst.post.start {base}")
            w(f"ts={t + 4} event=stampede.job_inst.post.end {base} status=0 exitcode=0")
        w(f"ts={1704067200 + jobs + 10} event=stampede.xwf.end level=Info xwf.id={wf} restart_count=0 status=0")
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("-o", "--output", type=Path, default=Path("bench/out/big.bp"))
    args = ap.parse_args()
    args.output.parent.mkdir(parents=True, exist_ok=True)
    n = generate(args.output, args.events)
    print(f"wrote {n} events to {args.output}")


if __name__ == "__main__":
    main()
