"""Pegasus's own tools as a test oracle: runs in `.venv-oracle` (pegasus-wms 5.1.3), prints JSON.

pegasus-wms pins SQLAlchemy 1.3, so this module runs in its own virtualenv (made by
scripts/setup.sh) and the tests call it through a subprocess:

    .venv-oracle/bin/python tests/oracle/pegasus_oracle.py bp-to-db IN.bp OUT.db
    .venv-oracle/bin/python tests/oracle/pegasus_oracle.py statistics DB
    .venv-oracle/bin/python tests/oracle/pegasus_oracle.py analyzer DB
    .venv-oracle/bin/python tests/oracle/pegasus_oracle.py update DB
    .venv-oracle/bin/python tests/oracle/pegasus_oracle.py legacy-exitcodes DB
    .venv-oracle/bin/python tests/oracle/pegasus_oracle.py master-db OUT.db BP=DB_URL...
    .venv-oracle/bin/python tests/oracle/pegasus_oracle.py master-index DB

- bp-to-db: every line of a NetLogger BP stream parsed by Pegasus's own BP parser
  (`Pegasus.netlogger.parsers.base.NLSimpleParser`) and fed to Pegasus's Stampede loader
  (`Pegasus.db.workflow_loader.WorkflowLoader`), the way `DBEventSink` does it in monitord
  (events without the `stampede.` prefix, as in 5.x `.static.bp` files, get it, like
  `DBEventSink.send`, and their timestamps are read as monitord reads a static.bp file:
  `utils.epochdate`, whole seconds). Prints the number of events and the loader's warnings.
- statistics: for every workflow in the database, the summary pegasus-statistics prints
  (`PegasusStatistics._compute_*_summary_statistics`, expanded over the sub-workflows as
  pegasus-statistics does, and for the workflow alone as `--statistics-level wf_stats` does),
  the transformation breakdown, the held and running job counts, and for the workflow alone
  the job breakdown (`jobs.txt`: every attempt with its exit code and host).
- analyzer: for every workflow, what `pegasus-analyzer` (its `AnalyzeDB.analyze_db_for_wf`)
  finds: counts, workflow status, failed / failing / held jobs with their tasks' exit codes.
- update: `pegasus-db-admin update` on the database, in place (`connection.connect(url,
  create=True)`: Pegasus's migrations from the version the database says it has, or from
  before version 0 when it has no `dbversion` table, to 14). Prints the versions.
- legacy-exitcodes: Pegasus's migration to schema version 0 (`versions/v0.py`), the rule by
  which Pegasus gives the attempts of a database written before exit codes were recorded
  (Pegasus 3.x / 4.2) their exit code: 0 when the last state is a success state, 256 when it
  is a failure state. Prints how many attempts have an exit code after it.
- master-db: a master (dashboard) database made by Pegasus's own `DashboardLoader` from the
  `wf.plan`, `xwf.start` and `xwf.end` events of BP streams, as monitord sends them to it
  (`dashboard.` events, `db_url` on `wf.plan` naming the run's Stampede database).
- master-index: what the dashboard lists of a master database (`MasterDatabase` of
  `Pegasus.service.dashboard.queries`: `get_all_workflows` and `get_workflow_counts`).

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
    from Pegasus.netlogger.parsers.base import NLSimpleParser, parse_ts
    from Pegasus.tools import utils
    from Pegasus.tools.properties import Properties

    if Path(db_path).exists():
        raise SystemExit(f"{db_path}: exists; bp-to-db writes a new database")
    parser = NLSimpleParser(parse_date=False)
    loader = WorkflowLoader(f"sqlite:///{Path(db_path).resolve()}", batch=True, props=Properties())
    events = 0
    with open(bp_path, encoding="utf-8") as stream:
        for line in stream:
            if not line.strip() or line.startswith("#"):
                continue
            fields = parser.parseLine(line)
            if fields["event"].startswith("stampede."):  # monitord's: NetLogger's date parser
                fields["ts"] = parse_ts(fields["ts"])
            else:  # a planner's .static.bp, read as monitord reads it (whole seconds)
                fields["event"] = "stampede." + fields["event"]
                fields["ts"] = utils.epochdate(fields["ts"])
            loader.process(fields)
            events += 1
    loader.finish()
    loader.disconnect()
    return {"events": events}


def update(db_path):
    """pegasus-db-admin update: every migration from the database's version to the latest.

    Run with SQLite's foreign keys off: Pegasus turns them on for every connection, and its
    migration to version 12 rebuilds each table (create ``<table>_new``, copy, drop, rename),
    so on SQLite the drop of ``workflow`` cascades into every row of every other table.
    """
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    from Pegasus.db import connection
    from Pegasus.db.admin.admin_loader import get_version

    event.remove(Engine, "connect", connection._set_sqlite_pragma)
    db_url = f"sqlite:///{Path(db_path).resolve()}"
    session = connection.connect(db_url, create=True, verbose=False, print_version=False)
    try:
        return {"version": get_version(session)}
    finally:
        session.close()


def legacy_exitcodes(db_path):
    """Pegasus's v0 migration: attempts get exit code 0 / 256 from their last state."""
    from Pegasus.db import connection
    from Pegasus.db.admin.versions.v0 import Version

    db_url = f"sqlite:///{Path(db_path).resolve()}"
    session = connection.connect(db_url, create=False, schema_check=False)
    try:
        Version(session).update()
        counted = session.execute(
            "SELECT count(*) FROM job_instance WHERE exitcode IS NOT NULL").scalar()
        return {"attempts_with_exitcode": counted}
    finally:
        session.close()


def master_db(db_path, *streams):
    """A master database written by Pegasus's DashboardLoader from BP streams (``BP=URL``:
    the stream and the Stampede database URL its wf.plan names)."""
    from Pegasus.db.dashboard_loader import DashboardLoader
    from Pegasus.netlogger.parsers.base import NLSimpleParser
    from Pegasus.tools.properties import Properties

    if Path(db_path).exists():
        raise SystemExit(f"{db_path}: exists; master-db writes a new database")
    parser = NLSimpleParser(parse_date=True)
    loader = DashboardLoader(f"sqlite:///{Path(db_path).resolve()}", batch=True,
                             props=Properties())
    events = 0
    for stream in streams:
        bp_path, _, stampede_url = stream.partition("=")
        with open(bp_path, encoding="utf-8") as lines:
            for line in lines:
                if not line.strip() or line.startswith("#"):
                    continue
                fields = parser.parseLine(line)
                name = fields["event"].removeprefix("stampede.")
                if name not in ("wf.plan", "xwf.start", "xwf.end"):
                    continue
                fields["event"] = "dashboard." + name
                if name == "wf.plan" and stampede_url:
                    fields["db_url"] = stampede_url
                loader.process(fields)
                events += 1
    loader.finish()
    return {"events": events}


def master_index(db_path):
    """The dashboard's list of the runs of a master database and its counts by state."""
    from Pegasus.service.dashboard.queries import MasterDatabase

    master = MasterDatabase(f"sqlite:///{Path(db_path).resolve()}")
    try:
        _total, _filtered, rows = master.get_all_workflows()
        counts = master.get_workflow_counts()
        return {
            "workflows": [{"wf_uuid": r.wf_uuid, "dax_label": r.dax_label,
                           "submit_dir": r.submit_dir, "db_url": r.db_url, "state": r.state,
                           "status": r.status, "timestamp": r.timestamp} for r in rows],
            "counts": {"total": counts.total, "success": counts.success or 0,
                       "fail": counts.fail or 0, "others": counts.others or 0},
        }
    finally:
        master.close()


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
    """Dispatch one command (see the module's docstring); print JSON on stdout."""
    from Pegasus.tools import utils

    utils.configureLogging(level=logging.WARNING)  # as pegasus-analyzer does: adds Logger.trace
    collected = _Collect()
    logging.getLogger().addHandler(collected)
    commands = {"bp-to-db": (bp_to_db, 2), "statistics": (statistics, 1),
                "analyzer": (analyzer, 1), "update": (update, 1),
                "legacy-exitcodes": (legacy_exitcodes, 1), "master-db": (master_db, None),
                "master-index": (master_index, 1)}
    arity = commands[argv[0]][1] if argv and argv[0] in commands else -1
    if arity == -1 or (len(argv) - 1 != arity if arity is not None else len(argv) < 3):
        print("usage: pegasus_oracle.py bp-to-db IN.bp OUT.db | statistics DB | analyzer DB | "
              "update DB | legacy-exitcodes DB | master-db OUT.db BP=DB_URL... | "
              "master-index DB", file=sys.stderr)
        return 2
    function, _ = commands[argv[0]]
    with contextlib.redirect_stdout(sys.stderr):  # Pegasus's own console lines
        output = function(*argv[1:])
    if argv[0] in ("bp-to-db", "master-db"):
        output["log"] = collected.messages
    json.dump(output, sys.stdout, indent=1, sort_keys=True, default=_plain)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
