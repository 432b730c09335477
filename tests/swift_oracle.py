"""Counts a Swift log implies, by the original importer's grep rules (independent of the loader).

swift-provenancedb's ``prepare-provenance-chart`` greps the log for `` PARAM ``,
`` CONTAINMENT ``, `` FILENAME ``, `` VALUE `` ... lines and ``prov-to-sql.sh`` turns each
into rows: one ``fun_call`` per execute thread, per collection (its constructor) and the
root thread; one ``ds`` per dataset id named anywhere; ``dataset_in``/``dataset_out`` rows
keyed by (call, dataset, parameter). This module counts the same with plain regular
expressions over the raw lines, so tests can hold the loader to it.

One deliberate difference (issue 12): the importer skipped logs without ``provenanceid``
whole, although they hold datasets, app executions, procedures and containment; the rules
here apply to every log. A log with none of these facts that names its run (``RUNID``, the
Swift version, ``Swift finished with no errors``) is that run and its root thread (issue
43); only a log with none of these counts as empty.
"""

from __future__ import annotations

import re
from pathlib import Path


def importer_counts(path: Path) -> dict:
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    lines = text.splitlines()

    def grep(word):
        return [ln for ln in lines if f" {word} " in ln]

    params = {re.search(r"thread=(\S+) direction=(\S+) variable=(\S+) provenanceid=(\S+)", ln)
              .groups() for ln in grep("PARAM")}
    contain = {re.search(r"parent=(\S+) child=(\S+)", ln).groups() for ln in grep("CONTAINMENT")}
    filenames = {re.search(r"dataset=(\S+) filename=", ln).group(1) for ln in grep("FILENAME")}
    values = {re.search(r"dataset=(\S+) VALUE=", ln).group(1) for ln in grep("VALUE")}
    executes = {re.search(r"thread=(\S+)", ln).group(1)
                for ln in lines if " vdl:execute START " in ln}
    procedures = {re.search(r"thread=(\S+)", ln).group(1) for ln in grep("PROCEDURE")}
    jobs = {re.search(r"jobid=(\S+)", ln).group(1) for ln in lines if " vdl:execute2 " in ln}
    parents = {p for p, _ in contain}
    other_threads = ({t for t, *_ in params} | procedures) - executes
    datasets = ({d for *_, d in params} | {x for pair in contain for x in pair}
                | filenames | values)
    if not (params or contain or filenames or values or executes or procedures or jobs):
        named = any(" RUNID id=" in ln or "Swift finished with no errors" in ln
                    or re.search(r"swift-r\d+", ln) for ln in lines)
        return dict(runs=int(named), calls=int(named), executions=0, datasets=0, mapped=0,
                    containment=0, parameter_edges=0)
    return dict(
        runs=1,
        calls=1 + len(executes) + len(parents) + len(other_threads),
        executions=len(jobs),
        datasets=len(datasets),
        mapped=len(filenames),
        containment=len(contain),
        # PARAM rows, plus each constructor's 'element' inputs and 'collection' output
        parameter_edges=len(params) + len(contain) + len(parents),
    )
