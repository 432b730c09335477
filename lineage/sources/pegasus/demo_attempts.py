"""What Pegasus records of a demo attempt, shared by the BP and database writers: the job
states monitord logs with their times, raw wait statuses, kickstart's and the post
script's invocations, and the job's output texts (percent-encoded, as Pegasus stores them).

>>> wait_status(2), JOB_TYPES["create-dir"]
(512, 6)
>>> encode("ls: invalid option -- 'z'\\n")
'ls: invalid option -- %27z%27%0A'
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from datetime import datetime, timezone
from urllib.parse import quote

from ..scenario import Attempt, Job, WorkflowRun

#: Pegasus's job type numbers by type description (the planner's job classes).
JOB_TYPES = {"unknown": 0, "compute": 1, "stage-in-tx": 2, "stage-out-tx": 3,
             "registration": 4, "inter-site-tx": 5, "create-dir": 6, "staged-compute": 7,
             "cleanup": 8, "chmod": 9, "dax": 10, "dag": 11}
PEGASUS_LITE_VERSION = "5.0.7"
EXITCODE = "/usr/bin/pegasus-exitcode"
#: the bytes Pegasus leaves as they are in stdout/stderr text (the rest is %XX-encoded)
_SAFE = string.ascii_letters + string.digits + " #@:/.,=_-+()[]<>*!?$&;|~^"


def wait_status(exit_code: int) -> int:
    """The raw wait status of a process that exited with ``exit_code``."""
    return exit_code << 8


def encode(text: str) -> str:
    """Job output text as Pegasus stores it: newlines, quotes and percent signs encoded."""
    return quote(text, safe=_SAFE)


def clock(t: float) -> str:
    """Wall-clock time as PegasusLite prints it (UTC here).

    >>> clock(0.0)
    '1970-01-01 00:00:00'
    """
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def iso_time(t: float) -> str:
    """A time as Pegasus writes it in metadata (ISO 8601 with its UTC offset).

    >>> iso_time(0.0)
    '1970-01-01T00:00:00+00:00'
    """
    return datetime.fromtimestamp(t, timezone.utc).isoformat(timespec="seconds")


@dataclass(frozen=True)
class Recorded:
    """One attempt as monitord records it."""

    attempt: Attempt
    job: Job
    try_index: int  # 0 for a job's first attempt, 1 for its retry ...

    @property
    def ok(self) -> bool:
        return self.attempt.succeeded

    def states(self) -> list[tuple[str, float]]:
        """The jobstate rows (state, time), in monitord's order."""
        a = self.attempt
        return [("SUBMIT", a.submitted), ("EXECUTE", a.started), ("JOB_TERMINATED", a.ended),
                ("JOB_SUCCESS" if self.ok else "JOB_FAILURE", a.ended),
                ("POST_SCRIPT_STARTED", a.ended), ("POST_SCRIPT_TERMINATED", a.post_ended),
                ("POST_SCRIPT_SUCCESS" if self.ok else "POST_SCRIPT_FAILED", a.post_ended)]

    @property
    def main_status(self) -> int:
        """The job's raw exit status (the task's, through PegasusLite)."""
        return wait_status(self.attempt.process.exit_code)

    @property
    def post_status(self) -> int:
        """pegasus-exitcode's raw status: 1 when the job failed. Pegasus stores it as the
        attempt's exit code."""
        return wait_status(0 if self.ok else 1)

    def file(self, kind: str) -> str:
        return f"00/00/{self.job.job_id}.{kind}.{self.try_index:03d}"

    def kickstart(self) -> tuple[int, float]:
        """The task invocation's start (whole seconds, as kickstart reports it) and duration."""
        p = self.attempt.process
        start = int(p.start)
        return start, round(p.end - start, 3)

    def post(self) -> tuple[int, float]:
        """The post script invocation's start and duration."""
        start = int(self.attempt.ended)
        return start, round(self.attempt.post_ended - start, 3)

    def post_argv(self) -> str:
        """pegasus-exitcode's arguments, as the planner writes them for the job's post script."""
        options = " -r $RETURN -l diamond-0.exitcode.log -M diamond-0.cache.meta   "
        return options + ".//00/00/" + self.job.job_id + ".out"

    def transformation(self) -> str:
        job = self.job
        if job.task:
            return job.task.transformation
        return "pegasus::dirmanager" if job.type_desc == "create-dir" else "pegasus::transfer"

    def invocation_argv(self) -> str:
        p = self.attempt.process
        return " ".join(p.argv[1:])

    def task_text(self) -> str:
        """What kickstart kept of the task's stdout and stderr (the job's stdout)."""
        a = self.attempt
        return f"#@ 1 stdout\n{a.stdout}\n#@ 1 stderr\n{a.stderr}\n"

    def lite_text(self) -> str:
        """PegasusLite's log (the job's stderr)."""
        a = self.attempt
        code = a.process.exit_code
        lines = [f"{clock(a.started)}: PegasusLite: version {PEGASUS_LITE_VERSION}",
                 f"{clock(a.started)}: Executing on host {a.host.name} IP={a.host.ip}",
                 f"{clock(a.started)}: Not creating a new work directory as it is already "
                 f"set to {a.work_dir}",
                 f"{clock(a.ended)}: " + ("User task failed with exitcode " + str(code)
                                         if code else "User task succeeded"),
                 f"PegasusLite: exitcode {code}"]
        return "\n".join(lines) + "\n"


def recorded(run: WorkflowRun) -> list[Recorded]:
    """Every attempt of ``run`` with its job, in submit order."""
    jobs = {j.job_id: j for j in run.jobs}
    tries: dict[str, int] = {}
    out = []
    for a in sorted(run.attempts, key=lambda a: a.seq):
        out.append(Recorded(a, jobs[a.job_id], tries.get(a.job_id, 0)))
        tries[a.job_id] = tries.get(a.job_id, 0) + 1
    return out


def task_edges(run: WorkflowRun) -> list[tuple[str, str]]:
    """(parent task id, child task id) of the job edges between compute jobs."""
    task_of = {j.job_id: j.task.task_id for j in run.jobs if j.task}
    return [(task_of[p], task_of[c]) for p, c in run.edges if p in task_of and c in task_of]
