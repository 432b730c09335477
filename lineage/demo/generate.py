"""Write the demo campaign in the four systems' own formats: each source's demo writer,
found through the registry, writes its part under ``<directory>/<source>/``.

>>> import tempfile, pathlib
>>> with tempfile.TemporaryDirectory() as tmp:
...     written = generate(pathlib.Path(tmp))
>>> {source: len(files.paths) for source, files in written.items()}
{'pegasus': 4, 'swift': 1, 'chimbuko': 2, 'xalt': 31}
"""

from __future__ import annotations

from pathlib import Path

from ..sources.registry import DemoFiles, demo_writers
from . import campaign as _campaign
from ..sources.scenario import Campaign


def generate(directory: Path, campaign: Campaign | None = None) -> dict[str, DemoFiles]:
    """Write ``campaign`` (default: :func:`lineage.demo.campaign.build`) under ``directory``;
    returns what each source wrote, by source."""
    campaign = campaign or _campaign.build()
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    return {source: write(campaign, directory) for source, write in demo_writers()}
