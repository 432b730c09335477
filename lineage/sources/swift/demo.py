"""The Swift part of the demo campaign: each script run as the log Swift writes with
provenance logging on (the line shapes of the 2009 logs: dataset closing, ``VALUE``,
``FILENAME``, ``PROCEDURE``, ``PARAM``, ``vdl:execute``/``vdl:execute2`` and the stage-in
and stage-out lines), under ``<directory>/swift/<run id>.log``.

>>> from lineage.demo import campaign
>>> lines = log_lines(campaign.build().script_runs[0])
>>> lines[0]
'2024-05-14 09:25:00,000+0000 INFO  Loader histsum.swift: source file is new. Recompiling.'
>>> sum(" PARAM " in line for line in lines)
4
"""

from __future__ import annotations

import time
from pathlib import Path

from ..scenario import AppCall, Campaign, ScriptRun
from ..base import DemoFiles

SWIFT_BANNER = "Swift svn swift-r2522 (swift modified locally) cog-r2325"
ROOT_NODE = "org.griphyn.vdl.mapping.RootDataNode"


def stamp(t: float) -> str:
    """log4j's timestamp as Swift's logs carry it (UTC here).

    >>> stamp(1237219888.723)
    '2009-03-16 16:11:28,723+0000'
    """
    millis = int(round(t * 1000)) % 1000
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(int(t))) + f",{millis:03d}+0000"


class _Log:
    """The lines of one log, each at its time."""

    def __init__(self, run: ScriptRun):
        self.run = run
        self.lines: list[str] = []
        self.dataset_number = 0

    def add(self, t: float, level: str, cls: str, message: str) -> None:
        self.lines.append(f"{stamp(t)} {level:<5} {cls} {message}")

    def dataset(self) -> str:
        self.dataset_number += 1
        r = self.run
        return (f"tag:{r.user}@{r.domain},2008:swift:dataset:{r.dataset_tag}:"
                f"72{self.dataset_number:010d}")

    def closed(self, t: float, ds: str, what: str) -> None:
        self.add(t, "INFO", "AbstractDataNode",
                 f"closed {ROOT_NODE} identifier {ds} type {what} (closed)")
        self.add(t, "INFO", "AbstractDataNode", f"ROOTPATH dataset={ds} path=$")

    def string(self, t: float, value: str) -> str:
        """A string literal of the script (a mapped file's name)."""
        ds = self.dataset()
        self.closed(t, ds, f"string value={value} dataset=unnamed SwiftScript value")
        self.add(t, "INFO", "AbstractDataNode", f"VALUE dataset={ds} VALUE={value}")
        self.add(t, "INFO", "New", f"NEW id={ds}")
        return ds

    def mapped(self, t: float, ds: str, variable: str, path: str) -> None:
        """A file dataset closed: its file is there."""
        self.closed(t, ds, f"file with no value at dataset={variable}")
        self.add(t, "INFO", "AbstractDataNode",
                 f"FILENAME dataset={ds} filename=file://localhost/{path}")


def _job_id(call: AppCall) -> str:
    return f"{call.app}-{call.job_tag}"


def _execute(log: _Log, call: AppCall, thread: str, first: bool, files: dict) -> None:
    """The lines of one app call, from ``vdl:execute START`` to its outputs closing."""
    run, p = log.run, call.process
    job, shared = _job_id(call), f"{run.run_id}/shared"
    begin = p.start - 0.55
    log.add(begin, "INFO", "vdl:execute", f"START thread={thread} tr={call.app}")
    if first:
        log.add(begin + 0.018, "INFO", "vdl:initshareddir",
                "START host=localhost - Initializing shared directory")
        log.add(begin + 0.097, "INFO", "vdl:initshareddir",
                "END host=localhost - Done initializing shared directory")
    group = chr(ord(call.job_tag[0]) - 1) + call.job_tag[1:]
    log.add(begin + 0.1, "DEBUG", "vdl:execute2", f"THREAD_ASSOCIATION jobid={job} "
            f"thread={thread}-1 host=localhost replicationGroup={group}")
    log.add(begin + 0.105, "INFO", "vdl:createdirset",
            f"START jobid={job} host=localhost - Initializing directory structure")
    if first:
        log.add(begin + 0.107, "INFO", "vdl:createdirs",
                f"START path= dir={shared} - Creating directory structure")
    log.add(begin + 0.110, "INFO", "vdl:createdirset",
            f"END jobid={job} - Done initializing directory structure")
    log.add(begin + 0.111, "INFO", "vdl:dostagein", f"START jobid={job} - Staging in files")
    log.add(begin + 0.112, "INFO", "vdl:dostagein", f"END jobid={job} - Staging in finished")
    log.add(p.start - 0.02, "DEBUG", "vdl:execute2",
            f"JOB_START jobid={job} tr={call.app} arguments=[{','.join(call.arguments)}] "
            f"tmpdir={run.run_id}/jobs/{call.job_tag[0]}/{job} host=localhost")
    log.add(p.start - 0.005, "INFO", "Execute", f"jobid={job} task=Task(type=JOB_SUBMISSION, "
            f"identity=urn:{thread}-1-{int(p.start * 1000)})")
    log.add(p.end + 0.004, "DEBUG", "vdl:checkjobstatus", f"START jobid={job}")
    log.add(p.end + 0.007, "INFO", "vdl:checkjobstatus",
            f"SUCCESS jobid={job} - Success file found")
    log.add(p.end + 0.008, "DEBUG", "vdl:execute2", f"STAGING_OUT jobid={job}")
    log.add(p.end + 0.009, "INFO", "vdl:dostageout", f"START jobid={job} - Staging out files")
    for n, (_, path) in enumerate(call.outputs):
        folder, _, name = path.rpartition("/")
        where = (f"srcname={name} srcdir={shared}/{folder + '/' if folder else ''} "
                 f"srchost=localhost destdir={folder} desthost=localhost provider=file")
        log.add(p.end + 0.015 + n / 100, "DEBUG", "vdl:dostageout", f"FILE_STAGE_OUT_START {where}")
        log.add(p.end + 0.025 + n / 100, "DEBUG", "vdl:dostageout", f"FILE_STAGE_OUT_END {where}")
    log.add(p.end + 0.035, "INFO", "vdl:dostageout", f"END jobid={job} - Staging out finished")
    log.add(p.end + 0.041, "DEBUG", "vdl:execute2", f"JOB_END jobid={job}")
    log.add(p.end + 0.044, "INFO", "vdl:execute", f"END_SUCCESS thread={thread} tr={call.app}")
    for variable, path in call.outputs:
        log.mapped(p.end + 0.046, files[path], variable, path)


def log_lines(run: ScriptRun) -> list[str]:
    """Every line of the run's log."""
    log, t = _Log(run), run.started
    log.add(t, "INFO", "Loader", f"{run.script}: source file is new. Recompiling.")
    log.add(t + 0.712, "INFO", "Karajan", "Validation of XML intermediate file was successful")
    log.add(t + 1.844, "INFO", "unknown", "Using sites file: /opt/swift/0.8/bin/../etc/sites.xml")
    log.add(t + 1.845, "INFO", "unknown", "Using tc.data: ./tc.data")
    log.add(t + 2.051, "INFO", "AbstractScheduler", "Setting resources to: {localhost=localhost}")
    log.add(t + 2.611, "INFO", "unknown", SWIFT_BANNER)
    log.lines.append("")
    log.add(t + 2.612, "INFO", "unknown",
            f"RUNID id=tag:{run.user}@{run.domain},2007:swift:run:{run.run_tag}")
    paths = list(dict.fromkeys(path for c in run.calls for _, path in (*c.inputs, *c.outputs)))
    for path in paths:
        log.string(t + 2.64, path)
    files = {path: log.dataset() for path in paths}
    for path in paths:
        log.add(t + 2.68, "INFO", "New", f"NEW id={files[path]}")
    produced = {path for c in run.calls for _, path in c.outputs}
    for call in run.calls:
        for variable, path in call.inputs:
            if path not in produced:  # already there: closed at once
                log.mapped(t + 2.69, files[path], variable, path)
    threads = [f"0-{n}" for n in range(len(run.calls))]  # a call's thread, in call order
    for call, thread in zip(run.calls, threads):
        log.add(t + 2.71, "INFO", call.procedure,
                f"PROCEDURE thread={thread} name={call.procedure}")
    for call, thread in zip(run.calls, threads):
        for direction, pairs in (("input", call.inputs), ("output", call.outputs)):
            for variable, path in pairs:
                log.add(t + 2.72, "INFO", "vdl:parameterlog",
                        f"PARAM thread={thread} direction={direction} "
                        f"variable={variable} provenanceid={files[path]}")
    for n, (call, thread) in enumerate(zip(run.calls, threads)):
        _execute(log, call, thread, n == 0, files)
    end = run.ended
    log.add(end - 0.061, "INFO", "vdl:cleanups", f"START cleanups=[[{run.run_id}, localhost]]")
    log.add(end - 0.059, "INFO", "vdl:cleanup", f"START dir={run.run_id} host=localhost")
    log.add(end - 0.021, "INFO", "vdl:cleanup", f"END dir={run.run_id} host=localhost")
    log.add(end, "DEBUG", "Loader", "Swift finished with no errors")
    return log.lines


def write(campaign: Campaign, directory: Path) -> DemoFiles:
    """Write each script run's log under ``directory / "swift"``."""
    folder = Path(directory) / "swift"
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for run in campaign.script_runs:
        path = folder / f"{run.run_id}.log"
        path.write_text("".join(line + "\n" for line in log_lines(run)), encoding="utf-8")
        paths.append(path)
    return DemoFiles(tuple(paths))
