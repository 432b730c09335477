"""``python -m lineage``: the same command line as ``lineage``."""

from .cli import main

main(prog_name="lineage")
