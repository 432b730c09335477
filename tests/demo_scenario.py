"""The demo campaign for tests: its facts (``lineage.demo.campaign``), the uids the loaders
give them, and its files generated into a test's own directory and loaded by the normal
loaders (``Lineage.load``)."""

from __future__ import annotations

from pathlib import Path

from lineage.demo import campaign, generate
from lineage.demo.run import load_options
from lineage.sources.chimbuko import model as chimbuko_model
from lineage.sources.pegasus import model as pegasus_model
from lineage.sources.swift import model as swift_model
from lineage.sources.xalt import model as xalt_model

CAMPAIGN = campaign.build()
FIRST, SECOND = CAMPAIGN.workflow_runs
INSTRUMENTED = CAMPAIGN.instrumented[0]
SCRIPT = CAMPAIGN.script_runs[0]
CHIMBUKO_RUN = chimbuko_model.PROGRAM_RUN.uid(INSTRUMENTED.name, 0)
SWIFT_RUN = swift_model.SCRIPT_RUN.uid(SCRIPT.run_id)


def workflow(run) -> str:
    return pegasus_model.WORKFLOW.uid(run.uuid)


def task(run, task_id: str) -> str:
    return pegasus_model.TASK.uid(run.uuid, task_id)


def job(run, job_id: str) -> str:
    return pegasus_model.JOB.uid(run.uuid, job_id)


def attempts(run, job_id: str) -> list:
    """The attempts of ``job_id`` in ``run``, in submit order."""
    return [a for a in run.attempts if a.job_id == job_id]


def attempt(run, a) -> str:
    return pegasus_model.JOB_INSTANCE.uid(run.uuid, a.job_id, a.seq)


def invocation(run, a, inv: int = 1) -> str:
    return pegasus_model.INVOCATION.uid(run.uuid, a.job_id, a.seq, inv)


def file(run, lfn: str) -> str:
    return pegasus_model.FILE.uid(run.uuid, lfn)


def xalt(process) -> str:
    return xalt_model.EXECUTION.uid(process.uuid)


def app_execution(call) -> str:
    return swift_model.APP_EXECUTION.uid(f"{SCRIPT.run_id}:{call.app}-{call.job_tag}")


#: the first run's analyze attempt, its program (instrumented) and the gzip it started
ANALYZE = attempts(FIRST, campaign.ANA)[0]
GZIP = ANALYZE.others[0]


def write(directory: Path) -> dict:
    """The campaign's files under ``directory``, by source (``DemoFiles`` each)."""
    return generate(directory)


def paths(written: dict, *sources: str) -> list[Path]:
    """The files of ``sources`` (all when none is named)."""
    return [p for s, files in written.items() if not sources or s in sources
            for p in files.paths]


def load(lin, directory: Path, *sources: str):
    """Generate the campaign into ``directory`` and load (strict) the files of ``sources``
    (all by default) with the options the writers ask for; returns (written, results)."""
    written = write(directory)
    results = lin.load(paths(written, *sources),
                       options=lin.settings.load.with_(**load_options(written.values())))
    return written, results
