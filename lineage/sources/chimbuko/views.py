"""What reports, ``diff`` and ``lineage link`` show of Chimbuko.

>>> VIEWS.run_sections["ProgramRun"][0].template
'chimbuko/run_anomalies'
"""

from __future__ import annotations

from ..source import Overview, Section, Views
from . import answers, crate, report
from .model import FUNCTION_EXECUTION, PROGRAM_RUN, RANK

VIEWS = Views(
    run_sections={PROGRAM_RUN.label: [
        Section("Anomalies, most severe first", "chimbuko/run_anomalies", "run",
                ("function", "severity", "rank", "runtime", "uid")),  # clickable
        Section("Across systems (lineage link)", "cross/links_of", "uid",
                ("type", "other_kind", "other_name", "rule")),
        Section("Parts of the run", "run_members", "run", ("kind", "name", "status")),
    ]},
    # a program run is drawn as its call trees: ranks, their executions, who called whom
    run_overview={PROGRAM_RUN.label: Overview(
        frozenset({PROGRAM_RUN.label, RANK.label, FUNCTION_EXECUTION.label}),
        ("CALLED_BY", "PART_OF"), 0, frozenset({"CALLED_BY", "PART_OF"}))},
    outcomes={PROGRAM_RUN.label: report.program_run_outcome,
              FUNCTION_EXECUTION.label: report.execution_outcome},
    node_sections={FUNCTION_EXECUTION.label: [
        Section("Call stack, from the thread's root down to this execution",
                "chimbuko/anomaly_call_stack", "uid"),
        Section("Execution window: caller, executions before and after, callees, messages",
                "chimbuko/anomaly_context", "uid"),
    ]},
    # a function execution's callers, up to the thread's root, drawn beside its lineage
    node_structure={FUNCTION_EXECUTION.label: [("chimbuko/anomaly_call_stack", "uid")]},
    panels={PROGRAM_RUN.label: report.anomalies_panel},
    differs={PROGRAM_RUN.label: answers.differ},
    run_starts={PROGRAM_RUN.label: answers.first_rank_start},
    link_views={"chimbuko": "chimbuko/link_runs"},
    crate_parts={PROGRAM_RUN.label: crate.anomalies},
)
