"""The demo campaign described once, in no system's terms: hosts, binaries and their
libraries, the processes that ran, the workflow runs with their jobs and attempts, the
instrumented run and the script run. Each source's demo writer
(``lineage/sources/<source>/demo.py``) turns the part it records into that system's files.

Plain frozen dataclasses of tuples: a campaign compares equal to itself and the writers
read it in one order, so the files come out the same every time.

>>> lib = Library("/usr/lib64/libm.so.6", "0" * 40)
>>> host = Host("c101.halcyon.example.org", "10.20.1.101", "condorpool")
>>> host.short, lib.name
('c101', 'libm.so.6')
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Host:
    """A machine: its name as the scheduler reports it, address and scheduling site."""

    name: str
    ip: str
    site: str
    uname: str = "linux-4.18.0-513.24.1.el8_9.x86_64-x86_64"
    memory: int = 201_326_592_000  # bytes

    @property
    def short(self) -> str:
        """The first label of the name (what ``hostname -s`` prints)."""
        return self.name.split(".", 1)[0]


@dataclass(frozen=True)
class Library:
    """A file linked into or loaded by a program: its path and the sha1 of its content."""

    path: str
    sha1: str

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class Build:
    """How a binary was linked: who, where, when, with what."""

    uuid: str
    user: str
    syshost: str
    epoch: float
    compiler: str
    compiler_path: str
    link_line: tuple[str, ...]
    objects: tuple[Library, ...]  # the object files and static libraries linked in
    linked: tuple[Library, ...]  # the shared libraries named at link time
    modules: tuple[str, ...]  # environment modules loaded while linking
    functions: tuple[str, ...]  # external functions the link resolved
    workdir: str
    os: str = "Linux 4.18.0-513.24.1.el8_9.x86_64"


@dataclass(frozen=True)
class Binary:
    """An executable file: its path, content sha1, the libraries it loads when it runs and
    its build (``recorded``: the build's link record exists; an old build made before
    linking was tracked has none)."""

    path: str
    sha1: str
    libraries: tuple[Library, ...]
    build: Build
    recorded: bool = True

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class Parent:
    """A process up the tree from a tracked program (its launcher, the job's shell...)."""

    name: str
    path: str
    argv: tuple[str, ...]
    pid: int


@dataclass(frozen=True)
class Process:
    """One run of a program on one host, as the operating system saw it.

    ``tracked``: a program run the site's run tracking (XALT) records; a script or a
    program outside the tracked paths is not. ``job_id`` is the batch job it ran in ("" for
    none).
    """

    uuid: str
    binary: Binary
    host: Host
    user: str
    argv: tuple[str, ...]
    cwd: str
    start: float
    end: float
    job_id: str = ""
    exit_code: int = 0
    cpu_time: float = 0.0
    max_rss_kb: int = 0
    tasks: int = 1
    parents: tuple[Parent, ...] = ()
    modules: tuple[str, ...] = ()
    tracked: bool = True

    @property
    def command_line(self) -> str:
        return " ".join(self.argv)


@dataclass(frozen=True)
class DataFile:
    """A file the workflow reads or writes: logical name, where it is, its checksum."""

    lfn: str
    pfn: str
    size: int
    sha256: str


@dataclass(frozen=True)
class Task:
    """A step of the abstract workflow: what to run on which files."""

    task_id: str
    transformation: str
    argv: str
    inputs: tuple[str, ...]  # logical file names
    outputs: tuple[str, ...]


@dataclass(frozen=True)
class Job:
    """An executable job of the planned workflow (a compute task, or data management)."""

    job_id: str
    type_desc: str
    executable: str
    argv: str | None = None
    task: Task | None = None
    max_retries: int = 1


@dataclass(frozen=True)
class Attempt:
    """One submission of a job: where and when it ran, its program and how it ended.

    ``process`` is the program the job ran (its exit code decides the attempt); ``others``
    are further programs it started that only the run tracking saw.
    """

    seq: int  # submit sequence within the workflow run
    job_id: str
    sched_id: str
    host: Host
    submitted: float
    started: float
    ended: float
    post_ended: float
    process: Process
    stdout: str = ""
    stderr: str = ""
    work_dir: str = ""
    others: tuple[Process, ...] = ()

    @property
    def succeeded(self) -> bool:
        return self.process.exit_code == 0


@dataclass(frozen=True)
class WorkflowRun:
    """One planned and executed run of the workflow."""

    uuid: str
    label: str
    user: str
    submit_host: Host
    submit_dir: str
    planner_argv: str
    planner_version: str
    planned: float
    started: float
    ended: float
    jobs: tuple[Job, ...]
    edges: tuple[tuple[str, str], ...]  # (parent job id, child job id)
    attempts: tuple[Attempt, ...]
    files: tuple[DataFile, ...]

    @property
    def status(self) -> int:
        """0 when the last attempt of every job succeeded, else 1 (as DAGMan exits)."""
        last = {a.job_id: a for a in sorted(self.attempts, key=lambda a: a.seq)}
        done = all(j.job_id in last and last[j.job_id].succeeded for j in self.jobs)
        return 0 if done else 1

    @property
    def tasks(self) -> tuple[Task, ...]:
        return tuple(j.task for j in self.jobs if j.task is not None)


@dataclass(frozen=True)
class SlowCall:
    """A call of an instrumented program that took far longer than its usual time."""

    rank: int
    function: str
    at: float  # seconds after the program started
    took: float  # seconds
    usual: float  # seconds, its typical duration


@dataclass(frozen=True)
class InstrumentedRun:
    """A program run under performance instrumentation (TAU with Chimbuko's analysis).

    ``functions`` are the program's instrumented functions (as TAU names them); calls of
    the first one wrap the others; ``slow_calls`` are what the analysis flags.
    """

    name: str
    process: Process
    ranks: int
    functions: tuple[str, ...]
    slow_calls: tuple[SlowCall, ...]
    step_seconds: float = 1.0  # the instrumentation's dump period (one io step)


@dataclass(frozen=True)
class AppCall:
    """One application call of a script: the procedure, the app and its files."""

    procedure: str
    app: str
    arguments: tuple[str, ...]
    inputs: tuple[tuple[str, str], ...]  # (parameter, file path)
    outputs: tuple[tuple[str, str], ...]
    process: Process
    job_tag: str  # the scheduler's suffix for its job (8 characters)


@dataclass(frozen=True)
class ScriptRun:
    """One run of a parallel script (Swift) on one site."""

    script: str
    run_tag: str  # yyyymmdd-hhmm-xxxxxxxx, as the run id ends
    dataset_tag: str  # the same shape, naming the run's datasets
    user: str
    domain: str  # the user's mail domain, which prefixes the run's tags
    host: Host
    started: float
    ended: float
    calls: tuple[AppCall, ...]

    @property
    def run_id(self) -> str:
        return f"{self.script.removesuffix('.swift')}-{self.run_tag}"


@dataclass(frozen=True)
class Campaign:
    """Everything that happened, in one place."""

    syshost: str
    hosts: tuple[Host, ...]
    binaries: tuple[Binary, ...]
    workflow_runs: tuple[WorkflowRun, ...]
    instrumented: tuple[InstrumentedRun, ...]
    script_runs: tuple[ScriptRun, ...]

    def processes(self) -> list[Process]:
        """Every program run, in start order (ties by uuid)."""
        found = [p for run in self.workflow_runs for a in run.attempts
                 for p in (a.process, *a.others)]
        found += [c.process for run in self.script_runs for c in run.calls]
        return sorted(found, key=lambda p: (p.start, p.uuid))
