"""What reports, ``why``, ``diff``, OpenLineage exports and ``lineage link`` show of Pegasus.

>>> VIEWS.run_sections["Workflow"][0].template
'pegasus/statistics'
"""

from __future__ import annotations

from ..source import Section, Views
from . import answers, crate, report
from .model import JOB, WORKFLOW

VIEWS = Views(
    run_sections={WORKFLOW.label: [
        Section("Summary", "pegasus/statistics", "workflow"),
        Section("Failed jobs", "pegasus/failed_jobs", "workflow"),  # with decoded output
        Section("Retry history", "pegasus/attempts", "workflow"),
        Section("Sub-workflows", "pegasus/subworkflows", "workflow"),
        Section("Jobs", "pegasus/workflow_jobs", "workflow"),
        Section("Across systems (lineage link)", "cross/run_chain", "run"),
    ]},
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
