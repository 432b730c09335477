"""What reports, ``diff`` and ``lineage link`` show of Chimbuko.

>>> VIEWS.run_sections["ProgramRun"][0].template
'chimbuko/run_anomalies'
"""

from __future__ import annotations

from ..source import Section, Views
from . import answers, crate, report
from .model import FUNCTION_EXECUTION, PROGRAM_RUN

VIEWS = Views(
    run_sections={PROGRAM_RUN.label: [
        Section("Anomalies, most severe first", "chimbuko/run_anomalies", "run"),  # clickable
        Section("Across systems (lineage link)", "cross/links_of", "uid"),
        Section("Parts of the run", "run_members", "run"),
    ]},
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
