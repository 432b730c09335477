"""``lineage demo``: a campaign across the four systems, written in their own formats by
the project's generators, loaded, linked and reported.

- :mod:`.scenario`: the campaign's vocabulary (plain dataclasses, no system's terms);
- :mod:`.campaign`: the one campaign, from fixed values;
- :mod:`.generate`: each source's demo writer (found through the registry) writes its part;
- :mod:`.run`: generate, load, link, write a report per run and an index (:mod:`.index`).
"""

from .generate import generate
from .run import DemoResult, run_demo

__all__ = ["generate", "run_demo", "DemoResult"]
