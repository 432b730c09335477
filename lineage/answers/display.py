"""How answers show themselves: as text lines (the command line) and as escaped HTML
(``_repr_html_``: a notebook displays a query's rows, a ``why`` or a ``diff`` as a table with
times as dates and durations with their unit, never ``1.677960e+09``).

>>> print(html_table([{"uid": "<x>", "start_time": 1677960000.0}], ["uid", "start_time"]))
<table><thead><tr><th>uid</th><th>start_time</th></tr></thead><tbody><tr><td>&lt;x&gt;</td><td>2023-03-04T20:00:00.000Z</td></tr></tbody></table>
"""

from __future__ import annotations

import html
import json

from ..humanize import human
from ..safe_text import safe_text

MISSING = "—"


def cell(column: str, value) -> str:
    """A value for people (see :func:`lineage.humanize.human`), lists joined, None empty."""
    value = human(column, value)
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(cell(column, v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, default=str, ensure_ascii=False)
    return str(value)


def html_table(rows: list[dict], columns: list[str]) -> str:
    """Rows as an HTML table, every value escaped."""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(safe_text(cell(c, r.get(c))))}</td>"
                                    for c in columns) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _para(text: str, tag: str = "p") -> str:
    return f"<{tag}>{html.escape(safe_text(text))}</{tag}>"


class WhyAnswer(dict):
    """A ``why`` summary (a plain dict: JSON as it is) that prints and displays its answer
    first."""

    def lines(self) -> list[str]:
        """The summary as text: the answer, the node, each problem with its deciding lines
        (``cause:``), the parts it blocked last, on one line."""
        problems = self["problems"]
        out = [f"answer: {self['answer']}",
               f"{self['kind']} {self['uid']}: {self.get('status') or '?'}; "
               f"{len(problems) or 'no'} problem{'s' if len(problems) != 1 else ''}"]
        from .why import FACTS

        blocked = [p for p in problems if p.get("blocked_by")]
        for p in problems:
            if p.get("blocked_by"):
                continue
            out.append(f"\n- {p['what']} {p.get('name') or p['uid']}")
            facts = ", ".join(f"{k}={p[k]}" for k in FACTS if p.get(k) not in (None, "", False))
            if facts:
                out.append(f"  {facts}")
            out += [f"  cause: {line[:300]}" for line in p.get("causes") or []]
            out += [f"  output: {line[:300]}" for line in p.get("output_tail") or []]
        by: dict[str, list[str]] = {}
        for p in blocked:
            by.setdefault(p["blocked_by"], []).append(p.get("name") or p["uid"])
        for blocker, names in by.items():
            out.append(f"\nblocked by {blocker} (never ran): {', '.join(names)}")
        return [safe_text(line) for line in out]

    def _repr_html_(self) -> str:
        rows = [{"problem": f"{p['what']} {p.get('name') or p['uid']}",
                 "status": p.get("status"), "deciding lines": "\n".join(p.get("causes") or []),
                 "blocked by": p.get("blocked_by"), "uid": p["uid"]} for p in self["problems"]]
        return (_para(self["answer"], "b") + _para(f"{self['kind']} {self['uid']}: "
                                                   f"{self.get('status') or '?'}")
                + html_table(rows, ["problem", "status", "deciding lines", "blocked by", "uid"]))


class DiffAnswer(dict):
    """A ``diff`` result (a plain dict) that displays its answer first, then its rows."""

    COLUMNS = ("aspect", "name", "first", "second")

    def _repr_html_(self) -> str:
        return (_para(self.get("answer") or "", "b")
                + _para(f"first: {self['first']}; second: {self['second']}")
                + html_table(self["differences"], list(self.COLUMNS)))
