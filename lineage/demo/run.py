"""The whole demo: generate the campaign's files, load them through the loaders a user's
files go through (:meth:`lineage.api.Lineage.load`), link them, write one report per run
and an ``index.html`` listing every run, failed first.

>>> report_name("pegasus:workflow:5f1c/x")
'pegasus_workflow_5f1c_x.html'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from ..sources.base import DemoFiles
from .generate import generate
from .index import failed_first, with_partners, write_index


@dataclass
class DemoResult:
    """What the demo did: the generated files by source, the load results, the link
    result, the report of each run (the ``runs`` template's row with its ``report`` path),
    failed runs first and each group by start time as the index lists them, and the index
    page."""

    files: dict
    loads: list = field(default_factory=list)
    link: object = None
    runs: list[dict] = field(default_factory=list)
    index: Path | None = None


def load_options(written: Iterable[DemoFiles]) -> dict:
    """The load options every source's files ask for, merged (two sources asking one
    option two ways is an error: they are read in one load).

    >>> load_options([DemoFiles((), {"chimbuko_run": "r"}), DemoFiles(())])
    {'chimbuko_run': 'r'}
    """
    merged: dict = {}
    for files in written:
        for name, value in files.load_options.items():
            if merged.setdefault(name, value) != value:
                raise ValueError(f"demo writers ask for load option {name} = "
                                 f"{merged[name]!r} and {value!r}")
    return merged


def report_name(uid: str) -> str:
    """A file name for the report of ``uid`` (characters other than letters, digits, ``-_.``
    become ``_``)."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in uid)[:120] + ".html"


def run_demo(lin, files_dir: Path, reports_dir: Path,
             progress: Callable | None = None) -> DemoResult:
    """Generate the campaign into ``files_dir``, load and link it into ``lin``'s graph and
    write the reports and ``index.html`` into ``reports_dir``."""
    result = DemoResult(generate(files_dir))
    paths = [p for files in result.files.values() for p in files.paths]
    options = lin.settings.load.with_(**load_options(result.files.values()))
    result.loads = lin.load(paths, progress=progress, options=options)  # one load: faster
    result.link = lin.link()
    reports_dir = Path(reports_dir)
    reports_dir.mkdir(parents=True, exist_ok=True)
    for run in lin.query("runs"):
        path = Path(lin.report(run["uid"], reports_dir / report_name(run["uid"])))
        result.runs.append({**run, "report": path.name, "path": path})
    result.runs = failed_first(with_partners(lin, result.runs))
    result.index = write_index(result.runs, reports_dir / "index.html")
    return result
