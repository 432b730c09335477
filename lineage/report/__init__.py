"""HTML lineage reports: one self-contained file (vis-network and CSS inlined, no network).

>>> from lineage.report.render import STATUS_COLOURS
>>> STATUS_COLOURS["failed"]
'#d62728'
"""

from .build import build_report, view_report, write_report
from .view import ReportView

__all__ = ["build_report", "view_report", "write_report", "ReportView"]
