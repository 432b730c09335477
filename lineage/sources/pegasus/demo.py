"""The Pegasus part of the demo campaign: each workflow run as the files its submit
directory holds, the monitord event stream (``diamond-0.bp``) and the Stampede database
(``diamond-0.stampede.db``), under ``<directory>/pegasus/<run>/``.

>>> import tempfile, pathlib
>>> from lineage.demo import campaign
>>> with tempfile.TemporaryDirectory() as tmp:
...     files = write(campaign.build(), pathlib.Path(tmp))
...     [str(p.relative_to(tmp)) for p in files.paths][:2]
['pegasus/run0001/diamond-0.bp', 'pegasus/run0001/diamond-0.stampede.db']
"""

from __future__ import annotations

from pathlib import Path

from ..scenario import Campaign
from ..base import DemoFiles
from .demo_bp import bp_lines
from .demo_db import write_db


def write(campaign: Campaign, directory: Path) -> DemoFiles:
    """Write every workflow run of ``campaign`` under ``directory / "pegasus"``."""
    paths = []
    for run in campaign.workflow_runs:
        folder = Path(directory) / "pegasus" / Path(run.submit_dir).name
        folder.mkdir(parents=True, exist_ok=True)
        bp = folder / f"{run.label}-0.bp"
        bp.write_text("".join(line + "\n" for line in bp_lines(run)), encoding="utf-8")
        paths += [bp, write_db(run, folder / f"{run.label}-0.stampede.db")]
    return DemoFiles(tuple(paths))
