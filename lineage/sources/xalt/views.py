"""What reports, ``why``, ``diff`` and ``lineage link`` show of XALT.

>>> sorted(VIEWS.node_sections)
['Executable', 'Library']
"""

from __future__ import annotations

from ..source import Section, Views
from . import answers, crate, report
from .model import EXECUTABLE, EXECUTION, LIBRARY

VIEWS = Views(
    run_sections={EXECUTION.label: [
        Section("Across systems (lineage link)", "cross/links_of", "uid",
                ("type", "other_kind", "other_name", "rule")),
        Section("What it ran: executable and libraries", "xalt/run_inputs", "run",
                ("role", "path")),
        Section("How its program was built", "xalt/run_build", "run",
                ("path", "compiler", "build_user", "build_date")),
        Section("Packages", "xalt/run_packages", "run", ("package", "version")),
    ]},
    outcomes={EXECUTION.label: report.execution_outcome},
    node_sections={
        LIBRARY.label: [Section("Runs that loaded it or were linked with it",
                                "xalt/library_users", "library")],
        EXECUTABLE.label: [Section("How it was built", "xalt/build_of", "executable")],
    },
    # a run has no parts: what it is made of is upstream (executable, the build that linked
    # it, the libraries and object files the build used)
    run_lineage=frozenset({EXECUTION.label}),
    explainers={EXECUTION.label: answers.explain},
    differs={EXECUTION.label: answers.differ},
    link_views={"xalt": "xalt/link_runs"},
    crate_runs={EXECUTION.label: crate.describe},
    crate_parts={EXECUTION.label: crate.software},
)
