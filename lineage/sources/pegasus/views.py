"""What reports, ``why``, ``diff``, OpenLineage exports and ``lineage link`` show of Pegasus.

>>> VIEWS.run_sections["Workflow"][0].template
'cross/run_chain'
"""

from __future__ import annotations

from ..source import Overview, Section, Views
from . import answers, crate, report
from .model import JOB, WORKFLOW

VIEWS = Views(
    run_sections={WORKFLOW.label: [
        Section("Across systems (lineage link)", "cross/run_chain", "run",
                ("job", "how", "executable_path", "anomaly_count")),
        # failed and held jobs, and the jobs they blocked (never submitted), with output
        Section("Failed, held and blocked jobs", "pegasus/failed_jobs", "workflow",
                ("job_id", "status", "exitcode", "host", "blocked_by")),
        Section("Jobs", "pegasus/workflow_jobs", "workflow",
                ("job_id", "status", "attempts", "duration", "host")),
        Section("Retry history", "pegasus/attempts", "workflow",
                ("job_id", "attempt", "status", "exitcode", "host")),
        Section("Sub-workflows", "pegasus/subworkflows", "workflow",
                ("label", "status", "jobs", "jobs_failed")),
        Section("Summary (pegasus-statistics)", "pegasus/statistics", "workflow",
                ("jobs_total", "jobs_succeeded", "jobs_failed", "jobs_unsubmitted",
                 "job_retries", "workflow_wall_time")),
    ]},
    # a workflow of more jobs than this is drawn job by job (no files, tasks, attempts)
    run_overview={WORKFLOW.label: Overview(frozenset({WORKFLOW.label, JOB.label}),
                                           ("WAS_INFORMED_BY", "PART_OF"), 40,
                                           frozenset({"PART_OF"}))},
    outcomes={WORKFLOW.label: report.workflow_outcome, JOB.label: report.job_outcome},
    panels={WORKFLOW.label: report.workflow_panel, JOB.label: report.job_panel},
    labels=report.job_labels,
    explainers={WORKFLOW.label: answers.explain, JOB.label: answers.explain},
    differs={WORKFLOW.label: answers.differ},
    linked_runs=frozenset({WORKFLOW.label}),
    export_children=frozenset({JOB.label}),
    export_through=frozenset({"RUNS_TASK"}),  # a job's files are its task's
    link_views={"attempts": "pegasus/link_attempts", "invocations": "pegasus/link_invocations"},
    crate_runs={WORKFLOW.label: crate.describe},
)
