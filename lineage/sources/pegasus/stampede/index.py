"""Pegasus master databases (the per-user index of runs, ``~/.pegasus/workflow.db``, or the
master tables of a database shared with Stampede rows) into records, and the runs' own
Stampede databases followed from it.

``master_workflow`` has one row per run that monitord announced (what was planned, where:
``submit_dir``, and ``db_url``, the run's Stampede database); ``master_workflowstate`` its
starts and ends. Each row becomes the run's ``Workflow`` (the uid its Stampede database
gives it too) with ``submit_dir``, ``db_url`` (a SQLite file's only: a server's URL may
hold credentials and is never stored), ``archived``, the status and times of its states. The dashboard shows these runs (``MasterDatabase`` of
``Pegasus.service.dashboard.queries``); the statuses are its states: no end yet is running,
an end with status 0 succeeded, any other status failed.

Each run's Stampede database is then read too, when it is a SQLite file that exists:
``db_url``, else ``<submit_dir>/<dag file name up to .dag>.stampede.db``, Pegasus's default.
Runs whose database is elsewhere (a server URL) or gone are counted and named in one warning.

>>> stampede_file("sqlite:////home/u/run0001/diamond-0.stampede.db", None, None)
PosixPath('/home/u/run0001/diamond-0.stampede.db')
>>> stampede_file(None, "/home/u/run0001", "diamond-0.dag")
PosixPath('/home/u/run0001/diamond-0.stampede.db')
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterator

from ...base import LoadReport
from ....model.records import Node, Record
from ....redact import redact_url
from .. import mapping as pc
from .. import model as pegasus_model
from .runs import PLAN_COLUMNS, grouped_states, outcome, plan_records
from .schema import Schema

#: The master tables: the index of runs and their states.
TABLES = ("master_workflow", "master_workflowstate")
Read = Callable[[Path, LoadReport], Iterator[Record]]


def stampede_file(db_url: str | None, submit_dir: str | None, dag_file: str | None) -> Path | None:
    """The SQLite file of a run's Stampede database: its ``db_url`` when that is a SQLite
    URL (``jdbc:sqlite:`` too), else Pegasus's default beside the DAG in the submit
    directory; None for a database on a server."""
    if db_url:
        url = db_url.removeprefix("jdbc:")
        if not url.startswith("sqlite:"):
            return None
        path = url.removeprefix("sqlite:")
        return Path("/" + path.lstrip("/")) if path.startswith("/") else Path(path)
    if submit_dir and dag_file:
        name = Path(dag_file).name
        return Path(submit_dir) / (name[: name.find(".dag")] + ".stampede.db"
                                   if ".dag" in name else name + ".stampede.db")
    return None


class Index:
    """Reads the master tables of one database (``schema``) into records."""

    def __init__(self, schema: Schema, report: LoadReport, where: str):
        self.s, self.report, self.where = schema, report, where
        self.runs: list[tuple[str, str | None, str | None, str | None]] = []

    def records(self) -> Iterator[Record]:
        """The runs of ``master_workflow`` and their outcomes from ``master_workflowstate``."""
        from sqlalchemy import select

        s = self.s
        counts = self.report.extra.setdefault("rows", {})
        cols = [s.c("master_workflow", c) for c in ("wf_id", *PLAN_COLUMNS, "db_url", "archived")]
        uuids: dict[int, str] = {}
        for r in s.stream(select(*cols).order_by(s.t["master_workflow"].c.wf_id)):
            counts["master_workflow"] = counts.get("master_workflow", 0) + 1
            xwf = r["master_workflow_wf_uuid"]
            uuids[r["master_workflow_wf_id"]] = xwf
            db_url = r["master_workflow_db_url"]
            archived = r["master_workflow_archived"]
            self.runs.append((xwf, db_url, r["master_workflow_submit_dir"],
                              r["master_workflow_dag_file_name"]))
            yield from plan_records("master_workflow", r, {
                # a file's URL only: a server's may hold credentials (never stored)
                "db_url": db_url if stampede_file(db_url, None, None) else None,
                "archived": None if archived is None else bool(archived)}, self.report)
        if not s.has("master_workflowstate"):
            return
        for wf_id, rows in grouped_states(s, "master_workflowstate"):
            counts["master_workflowstate"] = counts.get("master_workflowstate", 0) + len(rows)
            xwf = uuids.get(wf_id)
            if xwf is None:
                orphans = self.report.extra.setdefault("orphan_rows", {})
                orphans["master_workflowstate"] = orphans.get("master_workflowstate", 0) + len(rows)
                self.report.warn(f"{self.where}: {len(rows)} master_workflowstate rows of wf_id "
                                 f"{wf_id}, which master_workflow does not list; not loaded")
                continue
            yield Node(pegasus_model.WORKFLOW, pc.workflow_uid(xwf),
                       {"xwf_id": xwf, **outcome("master_workflowstate", rows)})

    def follow(self, read: Read, this: Path | None) -> Iterator[Record]:
        """The records of every run's Stampede database found as a SQLite file (each file
        once; not ``this``, the index itself), read by ``read`` with a report of its own
        whose counts are kept under ``followed``; the runs not followed are counted."""
        done: set[Path] = {this.resolve()} if this else set()
        followed = self.report.extra.setdefault("followed", {})
        elsewhere, missing = [], []
        for _xwf, db_url, submit_dir, dag_file in self.runs:
            path = stampede_file(db_url, submit_dir, dag_file)
            if path is None:
                if db_url or submit_dir:
                    elsewhere.append(redact_url(db_url or submit_dir))
                continue
            if not path.is_file():
                missing.append(str(path))
                continue
            if path.resolve() in done:
                continue
            done.add(path.resolve())
            sub = LoadReport(str(path), self.report.format, lenient=self.report.lenient,
                             options=self.report.options)
            sub.state["followed_from"] = self.where  # not followed further from there
            yield from read(path, sub)
            followed[str(path)] = {k: v for k, v in sub.summary().items()
                                   if k not in ("path", "format", "warnings") and v}
            for message in sub.warnings:
                self.report.warn(message)
            self.report.skipped.update(sub.skipped)
            self.report.unknown.update(sub.unknown)
        for what, found in (("runs_on_servers", elsewhere), ("runs_without_database", missing)):
            if found:
                self.report.extra[what] = len(found)
                why = ("whose Stampede database is on a server, not followed (load it by "
                       "its URL)" if what == "runs_on_servers"
                       else "whose Stampede database is not there")
                self.report.warn(f"{self.where}: {len(found)} runs {why}; e.g. {found[0]}")


def read(schema: Schema, report: LoadReport, where: str, target, read_stampede: Read
         ) -> Iterator[Record]:
    """The index of ``schema``'s master tables and, unless ``report`` is that of a database
    followed from an index already, the runs' Stampede databases read by ``read_stampede``."""
    from .connect import guarded

    runs = Index(schema, report, where)
    yield from guarded(runs.records(), schema, report, where, "master database")
    if not report.state.get("followed_from"):
        yield from runs.follow(read_stampede, None if "://" in str(target) else Path(target))
