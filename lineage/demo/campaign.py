"""The demo's one campaign, built from fixed values: the same campaign every call.

A scientist (``akumar``) runs the Pegasus diamond workflow (preprocess, two findrange,
analyze) on the ``halcyon`` cluster. In the first run the first attempt of
``findrange_ID0000003`` lands on ``c102``, whose node image still holds an old findrange
build: it stops at once with ``invalid option -- 'T'`` (exit code 2); its retry on ``c103``
succeeds. ``analyze`` runs under TAU with Chimbuko's analysis, which flags slow calls. The
scientist then summarises the result with a Swift script. A day later, after ``libkeg`` was
rebuilt in place, the second run asks ``analyze`` for ``-n 0`` histogram bins: both
attempts exit with code 2 and the run fails.

>>> c = build()
>>> [r.status for r in c.workflow_runs], len(c.processes())
([0, 1], 18)
>>> build() == c
True
"""

from __future__ import annotations

import hashlib
import time
import uuid

from ..sources.scenario import (AppCall, Attempt, Binary, Build, Campaign, DataFile, Host, InstrumentedRun,
                       Job, Library, Parent, Process, ScriptRun, SlowCall, Task, WorkflowRun)

T0 = 1715677200.0  # 2024-05-14T09:00:00Z, when the first run starts
DAY = 86400.0
SYSHOST = "halcyon"
USER = "akumar"
ADMIN = "kegadmin"
HOME = f"/home/{USER}/diamond"
_NAMESPACE = uuid.UUID("7b0c5e1a-39d4-4c6e-9a53-2f6f0e3b5d27")


def sha1_of(text: str) -> str:
    """A sha1 standing for the content ``text`` names (stable, real-looking).

    >>> sha1_of("x")
    '11f6ad8ec52a2984abaafd7c3b516503785c2072'
    """
    return hashlib.sha1(text.encode()).hexdigest()


def uuid_of(name: str) -> str:
    """A uuid named by ``name`` (uuid5 in the demo's namespace)."""
    return str(uuid.uuid5(_NAMESPACE, name))


LOGIN = Host("login1.halcyon.example.org", "10.20.0.11", "local")
C101 = Host("c101.halcyon.example.org", "10.20.1.101", "condorpool")
C102 = Host("c102.halcyon.example.org", "10.20.1.102", "condorpool")
C103 = Host("c103.halcyon.example.org", "10.20.1.103", "condorpool")


def _lib(path: str, version: str) -> Library:
    return Library(path, sha1_of(f"{path} {version}"))


LIBC = _lib("/usr/lib64/libc.so.6", "glibc-2.28-236.el8_9.13")
LIBM = _lib("/usr/lib64/libm.so.6", "glibc-2.28-236.el8_9.13")
LIBZ = _lib("/usr/lib64/libz.so.1", "zlib-1.2.11-40.el8")
LIBSTDCXX = _lib("/usr/lib64/libstdc++.so.6", "gcc-8.5.0-20.el8")
LIBGCC = _lib("/usr/lib64/libgcc_s.so.1", "gcc-8.5.0-20.el8")
LIBMPI = _lib("/opt/openmpi/4.1.6/lib/libmpi.so.40", "openmpi-4.1.6")
TAU_LIB = "/opt/tau/2.33/x86_64/lib/shared-mpi-pthread-adios2"
LIBTAU = _lib(f"{TAU_LIB}/libTAU.so", "tau-2.33")
LIBTAU_PRELOAD = _lib(f"{TAU_LIB}/libTAU-preload.so", "tau-2.33")
#: libkeg as installed for the first run, rebuilt in place before the second
LIBKEG = _lib("/opt/keg/lib/libkeg.so.4", "keg-4.2.0")
LIBKEG_REBUILT = _lib("/opt/keg/lib/libkeg.so.4", "keg-4.2.0 rebuilt with -O3")
LIBKEG_OLD = _lib("/opt/keg/lib/libkeg.so.3", "keg-3.9.1")
MODULES = ("gcc/12.2.0", "openmpi/4.1.6", "keg/4.2")
GXX = "/opt/rh/gcc-toolset-12/root/usr/bin/g++"


def _build(name: str, version: str, epoch: float, libkeg: Library, mpi: bool) -> Build:
    """The link step of one keg tool (``mpi``: linked with Open MPI)."""
    obj = f"/opt/keg/src/build-{version}"
    linked = (libkeg, *((LIBMPI,) if mpi else ()), LIBSTDCXX, LIBM, LIBC)
    mpi_flags = ("-L/opt/openmpi/4.1.6/lib", "-lmpi") if mpi else ()
    return Build(
        uuid=uuid_of(f"build {name} {version}"), user=ADMIN, syshost=SYSHOST, epoch=epoch,
        compiler="g++", compiler_path=GXX,
        link_line=("g++", "-O2", "-o", name, f"{name}.o", "keg_io.o", "-L/opt/keg/lib",
                   f"-l{libkeg.name.split('.so')[0][3:]}", *mpi_flags, "-lm"),
        objects=(_lib(f"{obj}/{name}.o", version), _lib(f"{obj}/keg_io.o", version),
                 _lib("/usr/lib64/crt1.o", "glibc-2.28-236.el8_9.13")),
        linked=linked, modules=MODULES if mpi else MODULES[::2],
        functions=("MPI_Init", "MPI_Allreduce", "MPI_Finalize") if mpi else (),
        workdir=obj)


def _tool(name: str, mpi: bool = False, preloaded: tuple[Library, ...] = ()) -> Binary:
    """A keg tool as installed in /opt/keg/bin (``preloaded``: libraries loaded first)."""
    build = _build(name, "4.2.0", T0 - 12 * DAY + 600 * len(name), LIBKEG, mpi)
    libs = (*preloaded, LIBKEG, *((LIBMPI,) if mpi else ()), LIBSTDCXX, LIBM, LIBGCC, LIBC)
    return Binary(f"/opt/keg/bin/{name}", sha1_of(f"{name} 4.2.0"), libs, build)


PREPROCESS, FINDRANGE = _tool("preprocess"), _tool("findrange")
#: analyze runs under tau_exec, which preloads TAU
ANALYZE = _tool("analyze", mpi=True, preloaded=(LIBTAU_PRELOAD, LIBTAU))
#: the findrange left on c102's node image: built long before, with no link record
FINDRANGE_OLD = Binary(FINDRANGE.path, sha1_of("findrange 3.9.1"),
                       (LIBKEG_OLD, LIBSTDCXX, LIBM, LIBGCC, LIBC),
                       _build("findrange", "3.9.1", T0 - 400 * DAY, LIBKEG_OLD, False),
                       recorded=False)
SUMMARIZE, PLOT = _tool("keg-summarize"), _tool("keg-plot")
GZIP = Binary("/usr/bin/gzip", sha1_of("gzip-1.9-13.el8"), (LIBZ, LIBC), None, recorded=False)
TRANSFER = Binary("/usr/bin/pegasus-transfer", sha1_of("pegasus-transfer 5.0.7"), (), None,
                  recorded=False)


def _rebuilt(binary: Binary) -> Binary:
    """The same binary after libkeg was rebuilt at the same path."""
    libs = tuple(LIBKEG_REBUILT if lib == LIBKEG else lib for lib in binary.libraries)
    return Binary(binary.path, binary.sha1, libs, binary.build, binary.recorded)


# ------------------------------------------------------------------ the workflow
FILES = ("f.a", "f.b1", "f.b2", "f.c1", "f.c2", "f.d")


def _tasks(bins: int) -> dict[str, Task]:
    return {t.task_id: t for t in (
        Task("ID0000001", "keg::preprocess:4.2", "-a preprocess -T 60 -i f.a -o f.b1 f.b2",
             ("f.a",), ("f.b1", "f.b2")),
        Task("ID0000002", "keg::findrange:4.2", "-a findrange -T 60 -i f.b1 -o f.c1",
             ("f.b1",), ("f.c1",)),
        Task("ID0000003", "keg::findrange:4.2", "-a findrange -T 60 -i f.b2 -o f.c2",
             ("f.b2",), ("f.c2",)),
        Task("ID0000004", "keg::analyze:4.2",
             f"-a analyze -T 60 -n {bins} -i f.c1 f.c2 -o f.d", ("f.c1", "f.c2"), ("f.d",)),
    )}


def _lite(kind: str, planned: float, tool: str) -> str:
    """The arguments of a data management job's kickstart, as the planner writes them."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(planned))
    return (f"pegasus-kickstart  -n pegasus::{kind} -N null -i - -R local  -L diamond "
            f"-T {stamp} {tool} ")


def _compute_job(task: Task, submit_dir: str) -> Job:
    """The job of a compute task, named ``<transformation name>_<task id>``."""
    name = task.transformation.split("::")[1].split(":")[0]  # keg::findrange:4.2
    job_id = f"{name}_{task.task_id}"
    return Job(job_id, "compute", f"{submit_dir}/00/00/{job_id}.sh", task=task)


def _jobs(tasks: dict[str, Task], submit_dir: str, planned: float) -> tuple[Job, ...]:
    lite = "/usr/share/pegasus/sh/pegasus-lite-local.sh"
    return (
        Job("create_dir_diamond_0_local", "create-dir", lite,
            _lite("dirmanager", planned, "pegasus-transfer")),
        Job("stage_in_local_condorpool_0_0", "stage-in-tx", lite,
            _lite("transfer", planned, "pegasus-transfer  --threads 2")),
        *(_compute_job(t, submit_dir) for t in tasks.values()),
        Job("stage_out_local_condorpool_2_0", "stage-out-tx", lite,
            _lite("transfer", planned, "pegasus-transfer  --threads 2")),
    )


EDGES = (
    ("create_dir_diamond_0_local", "stage_in_local_condorpool_0_0"),
    ("create_dir_diamond_0_local", "preprocess_ID0000001"),
    ("create_dir_diamond_0_local", "findrange_ID0000002"),
    ("create_dir_diamond_0_local", "findrange_ID0000003"),
    ("create_dir_diamond_0_local", "analyze_ID0000004"),
    ("stage_in_local_condorpool_0_0", "preprocess_ID0000001"),
    ("preprocess_ID0000001", "findrange_ID0000002"),
    ("preprocess_ID0000001", "findrange_ID0000003"),
    ("findrange_ID0000002", "analyze_ID0000004"),
    ("findrange_ID0000003", "analyze_ID0000004"),
    ("analyze_ID0000004", "stage_out_local_condorpool_2_0"),
)


def _files(run: str) -> tuple[DataFile, ...]:
    out = []
    for lfn in FILES:
        pfn = (f"file://{HOME}/inputs/{lfn}" if lfn == "f.a"
               else f"file://{HOME}/outputs/{lfn}" if lfn == "f.d" else None)
        out.append(DataFile(lfn, pfn, 4096 * (1 + FILES.index(lfn)),
                            hashlib.sha256(f"{run} {lfn}".encode()).hexdigest()))
    return tuple(out)


class _Runner:
    """Builds the attempts of one workflow run, numbering submissions and scheduler ids."""

    def __init__(self, label: str, start: float, first_condor_id: int, tasks: dict[str, Task]):
        self.label, self.start, self.tasks = label, start, tasks
        self.condor_id = first_condor_id
        self.attempts: list[Attempt] = []

    def process(self, binary: Binary, host: Host, argv: tuple[str, ...], start: float,
                end: float, job_id: str, cwd: str, parents: tuple[Parent, ...],
                exit_code: int = 0, tasks: int = 1) -> Process:
        """A program run from ``start`` to ``end`` seconds after the run started."""
        ok = exit_code == 0
        return Process(
            uuid=uuid_of(f"{self.label} {binary.name} {host.short} {start}"), binary=binary,
            host=host, user=USER, argv=(binary.path, *argv), cwd=cwd, start=self.start + start,
            end=self.start + end, job_id=job_id, exit_code=exit_code,
            cpu_time=round((end - start) * 0.97 * tasks, 3) if ok else 0.002,
            max_rss_kb=(182_400 if ok else 2_632) * tasks, tasks=tasks, parents=parents,
            modules=MODULES, tracked=binary is not TRANSFER)

    def attempt(self, job_id: str, host: Host, times: tuple[float, float, float, float],
                program: tuple[Binary, float, float] | None = None, exit_code: int = 0,
                stderr: str = "", tasks: int = 1, helpers: tuple = ()) -> Attempt:
        """One submission of ``job_id``. ``times``: submitted, started, ended and post
        script ended, in seconds after the run started; ``program``: the binary the job
        ran and its start and end (default: a data transfer); ``helpers``: further
        programs it started, as (binary, argv, start, end)."""
        submitted, started, ended, post = times
        sched = f"{self.condor_id}.0"
        self.condor_id += 1
        work = f"/var/lib/condor/execute/dir_{(self.condor_id * 7919) % 90000 + 10000}"
        task = next((t for t in self.tasks.values() if job_id.endswith(t.task_id)), None)
        binary, p_start, p_end = program or (TRANSFER, started + 0.4, ended - 0.4)
        argv = tuple(task.argv.split()) if task else ("--threads", "2")
        pid = 4100 + 97 * len(self.attempts)
        kickstart = Parent("pegasus-kickstart", "/usr/bin/pegasus-kickstart",
                           ("pegasus-kickstart", "-n",
                            task.transformation if task else "pegasus::transfer", "-N",
                            task.task_id if task else "null", "-R", host.site, binary.path,
                            *argv), pid)
        shell = Parent("bash", "/usr/bin/bash", ("/bin/bash", f"{job_id}.sh"), pid - 12)
        main = self.process(binary, host, argv, p_start, p_end, sched, work,
                            (kickstart, shell), exit_code, tasks)
        me = Parent(binary.name, binary.path, main.argv, pid + 3)
        others = tuple(self.process(b, host, a, s, e, sched, work, (me, kickstart, shell))
                       for b, a, s, e in helpers)
        attempt = Attempt(
            seq=len(self.attempts) + 1, job_id=job_id, sched_id=sched, host=host,
            submitted=self.start + submitted, started=self.start + started,
            ended=self.start + ended, post_ended=self.start + post, process=main,
            stdout=f"{binary.name}: wrote {' '.join(task.outputs)}\n" if task and not exit_code
            else "",
            stderr=stderr, work_dir=work, others=others)
        self.attempts.append(attempt)
        return attempt


def _workflow(label: str, start: float, condor: int, bins: int, plan: list[tuple],
              end: float) -> WorkflowRun:
    """One run of the diamond: ``plan`` lists its attempts as (job id, host, times,
    options of :meth:`_Runner.attempt`)."""
    tasks = _tasks(bins)
    submit_dir = f"{HOME}/submit/{USER}/pegasus/diamond/{label}"
    runner = _Runner(label, start, condor, tasks)
    for job_id, host, times, *options in plan:
        runner.attempt(job_id, host, times, **(options[0] if options else {}))
    planned = start - 41
    return WorkflowRun(
        uuid=uuid_of(f"diamond {label}"), label="diamond", user=USER, submit_host=LOGIN,
        submit_dir=submit_dir,
        planner_argv=("--conf pegasus.properties --dir submit --sites condorpool "
                      "--output-sites local --cleanup none --force workflow.yml"),
        planner_version="5.0.7", planned=planned, started=start, ended=start + end,
        jobs=_jobs(tasks, submit_dir, planned), edges=EDGES, attempts=tuple(runner.attempts),
        files=_files(label))


INVALID_T = "findrange: invalid option -- 'T'\nTry 'findrange --help' for more information.\n"
NO_BINS = "analyze: -n 0: the number of histogram bins must be at least 1\n"
CREATE, STAGE_IN, STAGE_OUT = ("create_dir_diamond_0_local", "stage_in_local_condorpool_0_0",
                               "stage_out_local_condorpool_2_0")
PRE, FIND2, FIND3, ANA = ("preprocess_ID0000001", "findrange_ID0000002",
                          "findrange_ID0000003", "analyze_ID0000004")


def first_run() -> WorkflowRun:
    """findrange_ID0000003 fails on c102 (the old build) and succeeds on c103."""
    return _workflow("run0001", T0, 4801, 400, [
        (CREATE, LOGIN, (6, 21, 24, 29)),
        (STAGE_IN, LOGIN, (31, 46, 52, 57)),
        (PRE, C101, (62, 85, 148, 153), {"program": (PREPROCESS, 87.2, 146.5)}),
        (FIND2, C101, (160, 182, 246, 251), {"program": (FINDRANGE, 184.1, 244.9)}),
        (FIND3, C102, (160, 183, 186, 191),
         {"program": (FINDRANGE_OLD, 184.6, 184.62), "exit_code": 2, "stderr": INVALID_T}),
        (FIND3, C103, (198, 219, 283, 288), {"program": (FINDRANGE, 221.3, 282.0)}),
        (ANA, C101, (296, 318, 441, 446),
         {"program": (ANALYZE, 320.4, 438.9), "tasks": 2,
          "helpers": ((GZIP, ("-9", "analyze.bins"), 436.2, 436.9),)}),
        (STAGE_OUT, LOGIN, (452, 468, 475, 480)),
    ], 489)


def second_run() -> WorkflowRun:
    """A day later, libkeg rebuilt in place: analyze asked for 0 bins fails twice."""
    return _workflow("run0002", T0 + DAY + 3600, 4990, 0, [
        (CREATE, LOGIN, (6, 20, 23, 28)),
        (STAGE_IN, LOGIN, (30, 45, 50, 55)),
        (PRE, C102, (60, 84, 150, 155), {"program": (_rebuilt(PREPROCESS), 86.5, 147.9)}),
        (FIND2, C101, (162, 183, 248, 253), {"program": (_rebuilt(FINDRANGE), 185.3, 245.6)}),
        (FIND3, C102, (162, 184, 247, 252), {"program": (_rebuilt(FINDRANGE), 185.9, 244.2)}),
        (ANA, C103, (260, 281, 284, 289), {"program": (_rebuilt(ANALYZE), 282.6, 282.64),
                                           "exit_code": 2, "stderr": NO_BINS, "tasks": 2}),
        (ANA, C101, (297, 318, 321, 326), {"program": (_rebuilt(ANALYZE), 319.2, 319.24),
                                           "exit_code": 2, "stderr": NO_BINS, "tasks": 2}),
    ], 334)


# ------------------------------------------------------------------ instrumentation
ANALYZE_FUNCTIONS = (
    "keg::analyze_step(keg::Ranges const&, int) [{/opt/keg/src/analyze.cpp} {88,0}]",
    "keg::read_ranges(char const*) [{/opt/keg/src/io.cpp} {41,0}]",
    "keg::histogram(double const*, long, int) [{/opt/keg/src/histogram.cpp} {27,0}]",
    "MPI_Allreduce()",
    "keg::write_result(char const*) [{/opt/keg/src/io.cpp} {97,0}]",
)
_STEP, _READ, _HIST, _ALLREDUCE, _WRITE = ANALYZE_FUNCTIONS


def _instrumented(process: Process) -> InstrumentedRun:
    """analyze of the first run, two ranks on c101, under TAU and Chimbuko."""
    slow = (
        SlowCall(0, _HIST, 12.4, 0.93, 0.21), SlowCall(0, _ALLREDUCE, 13.4, 0.41, 0.004),
        SlowCall(1, _ALLREDUCE, 13.4, 0.40, 0.004), SlowCall(1, _HIST, 47.2, 0.88, 0.20),
        SlowCall(0, _READ, 61.0, 2.6, 0.35), SlowCall(1, _HIST, 63.7, 0.79, 0.21),
        SlowCall(0, _HIST, 88.3, 1.12, 0.22), SlowCall(1, _ALLREDUCE, 88.9, 0.52, 0.004),
        SlowCall(0, _WRITE, 112.5, 1.8, 0.3),
    )
    return InstrumentedRun("diamond-analyze", process, 2, ANALYZE_FUNCTIONS, slow)


# ------------------------------------------------------------------ the script run
def _script_run() -> ScriptRun:
    """histsum.swift on the login node, after the first run: summarise f.d, plot it."""
    start = T0 + 1500
    java = Parent("java", "/usr/lib/jvm/java-1.8.0/bin/java",
                  ("java", "-Xmx256M", "org.griphyn.vdl.karajan.Loader", "histsum.swift"), 30211)

    def call(procedure, binary, argument, inputs, outputs, begin, end, tag):
        wrap = Parent("bash", "/usr/bin/bash", ("/bin/bash", "_swiftwrap", binary.name), 30400)
        process = Process(uuid_of(f"histsum {binary.name}"), binary, LOGIN, USER,
                          (binary.path, argument), HOME, start + begin, start + end,
                          cpu_time=round((end - begin) * 0.9, 3), max_rss_kb=24_800,
                          parents=(wrap, java), modules=MODULES)
        return AppCall(procedure, binary.name, (argument,), inputs, outputs, process, tag)

    return ScriptRun(
        script="histsum.swift", run_tag="20240514-0925-q4m8x2zd",
        dataset_tag="20240514-0925-w7k2p9ra", user=USER, domain="halcyon.example.org",
        host=LOGIN, started=start, ended=start + 10.3,
        calls=(call("summarize", SUMMARIZE, "outputs/f.d", (("data", "outputs/f.d"),),
                    (("summary", "summary.txt"),), 4.31, 6.02, "q5m8x2zd"),
               call("plot", PLOT, "summary.txt", (("summary", "summary.txt"),),
                    (("figure", "histogram.svg"),), 7.12, 8.55, "r5m8x2zd")))


def build() -> Campaign:
    """The campaign (see the module docstring)."""
    first = first_run()
    analyze = next(a for a in first.attempts if a.job_id == ANA)
    return Campaign(
        syshost=SYSHOST, hosts=(LOGIN, C101, C102, C103),
        binaries=(PREPROCESS, FINDRANGE, ANALYZE, FINDRANGE_OLD, SUMMARIZE, PLOT, GZIP),
        workflow_runs=(first, second_run()),
        instrumented=(_instrumented(analyze.process),),
        script_runs=(_script_run(),))
