"""What every source's ``why`` explainer and ``diff`` differ share (a leaf: it imports nothing
of the package, so the sources' views can use it).

>>> error_lines("starting\\nreading config\\nERROR: Unable to instantiate Transformation Catalog\\ndone")
['ERROR: Unable to instantiate Transformation Catalog']
>>> dict_changes("env", {"A": "1", "B": "2"}, {"A": "1", "B": "3", "C": "4"})
[{'aspect': 'env', 'name': 'B', 'first': '2', 'second': '3'}, {'aspect': 'env', 'name': 'C', 'first': None, 'second': '4'}]
"""

from __future__ import annotations

import datetime as dt
import re

#: Words that mark a line of job output as the likely cause of a failure.
_ERROR = re.compile(r"(?i)\b(error|exception|fatal|unable to|cannot|can't|could not|failed|"
                    r"failure|traceback|not found|no such file|denied|killed|segmentation|"
                    r"abort|out of memory|timed? ?out)\b")
MAX_CAUSES = 8


def error_lines(text: str | None, limit: int = MAX_CAUSES) -> list[str]:
    """The lines of ``text`` that look like an error's cause, the last ones first kept in
    order (a failure's cause is usually near the end), at most ``limit``."""
    if not text:
        return []
    found = [line.strip() for line in text.splitlines() if _ERROR.search(line)]
    return found[-limit:]


def when(epoch: float | None) -> str | None:
    """An epoch time as ISO 8601 in UTC.

    >>> when(0.0)
    '1970-01-01T00:00:00Z'
    """
    if epoch is None:
        return None
    return dt.datetime.fromtimestamp(epoch, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def dict_changes(aspect: str, first: dict, second: dict) -> list[dict]:
    """The keys whose values differ between two maps, as ``diff`` rows."""
    return [{"aspect": aspect, "name": k, "first": first.get(k), "second": second.get(k)}
            for k in sorted(set(first) | set(second)) if first.get(k) != second.get(k)]


def named(rows: list[dict]) -> dict[str, dict]:
    """Rows keyed by name, a repeated name numbered in start order (``echo``, ``echo #2``).

    >>> list(named([{"name": "echo"}, {"name": "cat"}, {"name": "echo"}]))
    ['echo', 'cat', 'echo #2']
    """
    seen: dict[str, int] = {}
    out = {}
    for row in rows:
        name = row["name"] or "?"
        seen[name] = seen.get(name, 0) + 1
        out[name if seen[name] == 1 else f"{name} #{seen[name]}"] = row
    return out
