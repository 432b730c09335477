"""HTML lineage reports: one self-contained file (vis-network and CSS inlined, no network).

>>> from lineage.report.render import STATUS_COLOURS
>>> STATUS_COLOURS["failed"]
'#d62728'
"""

from .build import write_report

__all__ = ["write_report"]
