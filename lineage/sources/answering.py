"""What every source's ``why`` explainer and ``diff`` differ share (a leaf: it imports nothing
of the package, so the sources' views can use it).

>>> error_lines("starting\\nreading config\\nERROR: Unable to instantiate Transformation Catalog\\ndone")
['ERROR: Unable to instantiate Transformation Catalog']
>>> error_lines("[DEBUG] Ignoring exception in a retry\\n[FATAL ERROR]\\n [1]: Unable to plan\\n [2]: tc.yml: line 3: bad key")
['[1]: Unable to plan', '[2]: tc.yml: line 3: bad key']
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
#: A log level near a line's start (after its time stamp): ``[DEBUG]``, ``INFO:``, ``WARN``.
_LEVEL = re.compile(r"(?<![A-Za-z])\[?(DEBUG|TRACE|INFO|CONFIG|NOTICE|WARN|WARNING|ERROR|"
                    r"FATAL|SEVERE|CRITICAL)\b\]?")
#: Levels whose lines never decide a failure, whatever words they hold.
_NOISE_LEVELS = {"DEBUG", "TRACE", "INFO", "CONFIG", "NOTICE"}
#: A numbered line of a chained error (Pegasus's planner: `` [1]: ...``, `` [2]: ...``).
_NUMBERED = re.compile(r"^\[(\d+)\]:?\s")
#: a line that is a time stamp and an error level only (the header of the lines below)
_BARE = re.compile(r"^[\d\s.:,/TZ+-]*(?:[A-Z]{2,4}:?\s*)?\[?(?:FATAL ERROR|FATAL|ERROR|SEVERE|"
                   r"CRITICAL)\]?:?\s*$")
MAX_CAUSES = 8
MAX_NUMBERED = 20


def is_noise(line: str) -> bool:
    """Whether a log line is DEBUG, TRACE or INFO chatter (its level is near its start).

    >>> is_noise("2023.03.03 15:13:55.431 PST: [DEBUG] Ignoring exception x")
    True
    >>> is_noise("2023-03-04 01:01:15,961    INFO:  1 transfers loaded"), is_noise("ls: error")
    (True, False)
    """
    level = _LEVEL.search(line[:48])
    return level is not None and level.group(1).upper() in _NOISE_LEVELS


def error_lines(text: str | None, limit: int = MAX_CAUSES) -> list[str]:
    """The lines of ``text`` that decide a failure, in order: lines that look like an
    error's cause (the last ``limit`` of them: a cause is usually near the end), and every
    numbered line of a chained error after its first (``[1]: Unable to instantiate ...``,
    ``[2]: ...``: the next one is often the one to act on). DEBUG, TRACE and INFO lines
    never count, whatever words they hold."""
    if not text:
        return []
    lines = [line.strip() for line in text.splitlines()]
    keep: list[int] = []
    previous = None  # the number of the numbered line before, in a chain
    for i, line in enumerate(lines):
        if not line or is_noise(line):
            previous = None
            continue
        number = _NUMBERED.match(line)
        if number and (previous is not None or int(number.group(1)) == 1):
            keep.append(i)
            previous = int(number.group(1))
            continue
        previous = None
        if _ERROR.search(line) and not _BARE.match(line):
            keep.append(i)
    chained = [i for i in keep if _NUMBERED.match(lines[i])][:MAX_NUMBERED]
    plain = [i for i in keep if not _NUMBERED.match(lines[i])][-limit:]
    return [lines[i] for i in sorted(set(chained) | set(plain))]


def plain_lines(text: str | None, limit: int = MAX_CAUSES) -> list[str]:
    """The last ``limit`` lines of ``text`` that hold something and are not DEBUG, TRACE or
    INFO chatter: an application's own error stream, every line of which may decide.

    >>> plain_lines("ls: invalid option -- 'z'\\n\\nTry 'ls --help' for more information.\\n")
    ["ls: invalid option -- 'z'", "Try 'ls --help' for more information."]
    """
    if not text:
        return []
    found = [line.strip() for line in text.splitlines() if line.strip()
             and not is_noise(line.strip())]
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
