"""What reports, ``why``, ``diff``, OpenLineage exports and ``lineage link`` show of Swift.

>>> VIEWS.run_graphs["ScriptRun"][0]
'swift/run_data'
"""

from __future__ import annotations

from ..source import Section, Views
from . import answers, crate, report
from .model import FUNCTION_CALL, SCRIPT_RUN

VIEWS = Views(
    run_sections={SCRIPT_RUN.label: [
        Section("Across systems (lineage link)", "cross/run_chain", "run",
                ("job", "how", "executable_path", "anomaly_count")),
        Section("Parts of the run", "run_members", "run", ("kind", "name", "status")),
        Section("Datasets of the run (value or file, made by, used by)", "swift/run_datasets",
                "run", ("dataset", "role", "value", "filename")),
    ]},
    outcomes={SCRIPT_RUN.label: report.script_run_outcome},
    # a Swift run draws its data flow: datasets are not PART_OF a run, they are what its
    # calls USED and what WAS_GENERATED_BY them
    run_graphs={SCRIPT_RUN.label: (
        "swift/run_data", "data flow: its calls, the datasets they used and produced, and "
                          "those datasets' members and collections")},
    explainers={SCRIPT_RUN.label: answers.explain},
    differs={SCRIPT_RUN.label: answers.differ},
    linked_runs=frozenset({SCRIPT_RUN.label}),
    export_children=frozenset({FUNCTION_CALL.label}),
    link_views={"swift": "swift/link_app_executions"},
    crate_runs={SCRIPT_RUN.label: crate.describe},
)
