"""Pegasus's own tools as a test oracle: runs in `.venv-oracle` (pegasus-wms 5.1.3), prints JSON.

pegasus-wms pins SQLAlchemy 1.3, so this module runs in its own virtualenv (made by
scripts/setup.sh) and the tests call it through a subprocess:

    .venv-oracle/bin/python tests/oracle/pegasus_oracle.py bp-to-db IN.bp OUT.db
    .venv-oracle/bin/python tests/oracle/pegasus_oracle.py statistics DB
    .venv-oracle/bin/python tests/oracle/pegasus_oracle.py analyzer DB

- bp-to-db: every line of a NetLogger BP stream parsed by Pegasus's own BP parser
  (`Pegasus.netlogger.parsers.base.NLSimpleParser`) and fed to Pegasus's Stampede loader
  (`Pegasus.db.workflow_loader.WorkflowLoader`), the way `DBEventSink` does it in monitord
  (events without the `stampede.` prefix, as in 5.x `.static.bp` files, get it, like
  `DBEventSink.send`). Prints the number of events and the loader's warnings.
- statistics: for every workflow in the database, the summary pegasus-statistics prints
  (`PegasusStatistics._compute_*_summary_statistics`, expanded over the sub-workflows as
  pegasus-statistics does, and for the workflow alone as `--statistics-level wf_stats` does),
  the transformation breakdown, the held and running job counts, and for the workflow alone
  the job breakdown (`jobs.txt`: every attempt with its exit code and host).
- analyzer: for every workflow, what `pegasus-analyzer` (its `AnalyzeDB.analyze_db_for_wf`)
  finds: counts, workflow status, failed / failing / held jobs with their tasks' exit codes.

Run with the oracle venv's python only; it imports nothing from `lineage`.
"""

import contextlib
import decimal
import io
import json
import logging
import sys
from pathlib import Path


class _Collect(logging.Handler):
    """Keeps the warnings and errors Pegasus's code logs while it runs."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(f"{record.levelname} {record.name}: {record.getMessage()}")


def bp_to_db(bp_path, db_path):
    """Load a BP stream into a new Stampede SQLite database with Pegasus's own loader."""
    from Pegasus.db.workflow_loader import WorkflowLoader
    from Pegasus.netlogger.parsers.base import NLSimpleParser
    from Pegasus.tools.properties import Properties

    if Path(db_path).exists():
        raise SystemExit(f"{db_path}: exists; bp-to-db writes a new database")
    parser = NLSimpleParser(parse_date=True)
    loader = WorkflowLoader(f"sqlite:///{Path(db_path).resolve()}", batch=True, props=Properties())
    events = 0
    with open(bp_path, encoding="utf-8") as stream:
        for line in stream:
            if not line.strip() or line.startswith("#"):
                continue
            fields = parser.parseLine(line)
            if not fields["event"].startswith("stampede."):
                fields["event"] = "stampede." + fields["event"]
            loader.process(fields)
            events += 1
    loader.finish()
    loader.disconnect()
    return {"events": events}


def _workflows(db_url):
    """(wf_id, wf_uuid, parent_wf_id, submit_dir) of every workflow in the database."""
    from Pegasus.db import connection
    from Pegasus.db.schema import Workflow

    session = connection.connect(db_url, create=False)
    try:
        return [tuple(r) for r in session.query(
            Workflow.wf_id, Workflow.wf_uuid, Workflow.parent_wf_id, Workflow.submit_dir
        ).order_by(Workflow.wf_id)]
    finally:
        session.close()


def _summary(stats_tool, stats):
    """The numbers of pegasus-statistics' summary table and time lines for one stats object."""
    stats_tool.wf_stats = stats
    names = ("succeeded", "failed", "incomplete", "total", "retries", "tries")
    tasks = stats_tool._compute_task_summary_statistics(stats)
    jobs = stats_tool._compute_job_summary_statistics(stats)
    subwfs = stats_tool._compute_sub_wf_summary_statistics(stats)
    wwt, wcjwt, wcgpt, wcbpt, ssjwt, ssgpt, ssbpt = stats_tool._compute_time_summary_statistics()
    stats.set_job_filter("nonsub")
    held = stats.get_total_held_jobs()
    running = stats.get_total_running_jobs_status()
    transformations = [
        {"transformation": t.transformation, "type": t.type, "count": t.count,
         "min": t.min, "max": t.max, "avg": t.avg, "sum": t.sum}
        for t in stats_tool._compute_transformation_statistics(stats)
    ]
    return {
        "tasks": dict(zip(names, tasks)),
        "jobs": dict(zip(names, jobs)),
        "sub_workflows": dict(zip(names, subwfs)),
        "workflow_retries": stats_tool._compute_workflow_retries(stats),
        "workflow_wall_time": wwt,
        "cumulative_job_wall_time": wcjwt,
        "cumulative_job_goodput": wcgpt,
        "cumulative_job_badput": wcbpt,
        "submit_side_job_wall_time": ssjwt,
        "submit_side_goodput": ssgpt,
        "submit_side_badput": ssbpt,
        "held_jobs": sorted(h.jobname for h in held),
        "running_jobs": running,
        "transformations": transformations,
        "workflow_states": [
            {"state": s.state, "timestamp": float(s.timestamp),
             "restart_count": s.restart_count, "status": s.status}
            for s in stats.get_workflow_states()
        ],
    }


def _job_instances(stats_tool, stats):
    """pegasus-statistics' job breakdown (jobs.txt): one row per attempt, in submit order."""
    return [
        {"job_name": j.name, "retry_count": j.retry_count, "exitcode": j.exitcode,
         "hostname": j.hostname, "runtime": j.runtime, "kickstart": j.kickstart,
         "multiplier_factor": j.multiplier_factor}
        for j in stats_tool._compute_job_statistics(stats)
    ]


def statistics(db_path):
    """pegasus-statistics' summary for every workflow of a Stampede database."""
    from Pegasus.db.workflow.stampede_statistics import StampedeStatistics
    from Pegasus.statistics import PegasusStatistics

    db_url = f"sqlite:///{Path(db_path).resolve()}"
    result = {}
    for _wf_id, uuid, parent, _submit_dir in _workflows(db_url):
        entry = {"parent_wf_id": parent}
        for key, expand in (("expanded", True), ("individual", False)):
            stats = StampedeStatistics(db_url, expand)
            try:
                stats.initialize(uuid)
                entry[key] = _summary(PegasusStatistics(), stats)
                if not expand:
                    entry[key]["job_instances"] = _job_instances(PegasusStatistics(), stats)
            finally:
                stats.close()
        result[uuid] = entry
    return result


def _job_details(instance):
    """The parts of an analyzer JobInstance the tests compare."""
    return {
        "job_name": instance.job_name,
        "state": instance.state,
        "hostname": instance.hostname,
        "stdout_text": instance.stdout_text,
        "stderr_text": instance.stderr_text,
        "tasks": {key: {"task_submit_seq": t.task_submit_seq, "exitcode": t.exitcode,
                        "transformation": t.transformation}
                  for key, t in instance.tasks.items()},
    }


def analyzer(db_path):
    """pegasus-analyzer's findings (AnalyzeDB.analyze_db_for_wf) for every workflow."""
    from Pegasus.analyzer import AnalyzeDB, Options, Workflow
    from Pegasus.db.workflow.stampede_statistics import StampedeStatistics

    db_url = f"sqlite:///{Path(db_path).resolve()}"
    result = {}
    for wf_id, uuid, _parent, submit_dir in _workflows(db_url):
        tool = AnalyzeDB(Options())
        wf = Workflow(wf_uuid=uuid)
        stats = StampedeStatistics(db_url, False)
        try:
            stats.initialize(root_wf_id=wf_id)
            with contextlib.redirect_stdout(io.StringIO()):  # its console lines
                tool.analyze_db_for_wf(stats, uuid, submit_dir, wf)
        finally:
            stats.close()
        details = wf.jobs.job_details
        result[uuid] = {
            "wf_status": wf.wf_status,
            "total": wf.jobs.total,
            "success": wf.jobs.success,
            "failed": wf.jobs.failed,
            "held": wf.jobs.held,
            "unsubmitted": wf.jobs.unsubmitted,
            "failed_jobs": {name: _job_details(job)
                            for name, job in details.get("failed_jobs_details", {}).items()},
            "failing_jobs": {job.job_name: _job_details(job)
                             for job in details.get("failing_jobs_details", {}).values()},
            "held_jobs": details.get("held_jobs_details", {}),
        }
    return result


def _plain(value):
    """JSON for the Decimal values SQLite numerics come back as."""
    if isinstance(value, decimal.Decimal):
        return float(value)
    raise TypeError(f"not JSON serialisable: {value!r}")


def main(argv):
    """Dispatch `bp-to-db IN OUT`, `statistics DB` or `analyzer DB`; print JSON on stdout."""
    from Pegasus.tools import utils

    utils.configureLogging(level=logging.WARNING)  # as pegasus-analyzer does: adds Logger.trace
    collected = _Collect()
    logging.getLogger().addHandler(collected)
    commands = {"bp-to-db": (bp_to_db, 2), "statistics": (statistics, 1), "analyzer": (analyzer, 1)}
    if len(argv) < 1 or argv[0] not in commands or len(argv) - 1 != commands[argv[0]][1]:
        print("usage: pegasus_oracle.py bp-to-db IN.bp OUT.db | statistics DB | analyzer DB",
              file=sys.stderr)
        return 2
    function, _ = commands[argv[0]]
    with contextlib.redirect_stdout(sys.stderr):  # Pegasus's own console lines
        output = function(*argv[1:])
    if argv[0] == "bp-to-db":
        output["log"] = collected.messages
    json.dump(output, sys.stdout, indent=1, sort_keys=True, default=_plain)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
