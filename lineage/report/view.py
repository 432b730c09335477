"""A report that shows itself inline in Jupyter (and saves itself as a file).

``_repr_html_`` returns a sandboxed ``<iframe>`` whose ``srcdoc`` is the whole report page,
HTML-escaped once more for the attribute: the page's scripts run inside the frame (no access
to the notebook's origin) and the page makes no network request.

>>> v = ReportView("<p>a & b</p>", "t")
>>> v._repr_html_().startswith('<iframe title="t" sandbox="allow-scripts"')
True
>>> 'srcdoc="&lt;p&gt;a &amp; b&lt;/p&gt;"' in v._repr_html_()
True
"""

from __future__ import annotations

import html
import os

from ..private_file import write_private


class ReportView:
    """One rendered report page: ``.html`` (the page), ``.save(path)``, inline in Jupyter."""

    def __init__(self, page: str, title: str = "lineage report", height: int = 640):
        self.html = page
        self.title = title
        self.height = height

    def save(self, path: str | os.PathLike) -> str:
        """Write the page to ``path`` (mode 0600); returns the path."""
        return write_private(path, self.html)

    def _repr_html_(self) -> str:
        return (
            f'<iframe title="{html.escape(self.title, quote=True)}" sandbox="allow-scripts" '
            f'style="width: 100%; height: {int(self.height)}px; border: 1px solid #ddd" '
            f'srcdoc="{html.escape(self.html, quote=True)}"></iframe>'
        )

    def __repr__(self) -> str:
        return f"<ReportView {self.title!r}: {len(self.html)} characters of HTML>"
