"""Values for people: epoch times as ISO 8601 UTC, durations with their unit, decimals to 6
significant digits; used by the CLI's tables and the HTML reports (JSON, CSV and exports keep
the stored values).
"""

from __future__ import annotations

import datetime as dt
import re

_TIME_COLUMNS = re.compile(r"(^|_)(time|start|end|at|timestamp|tstart|tend)$")
_SECONDS_COLUMNS = re.compile(r"(^|_)(duration|wall_time|run_time|seconds|runtime_s)$")
#: Chimbuko's runtimes and their statistics, in microseconds (not ratios of them)
_MICRO_COLUMNS = re.compile(
    r"^(?!.*ratio)(.*runtime.*|.*_us|(normal|global)_(mean|min|max|stddev|exclusive_mean))$")


def human(column: str, value):
    """A table cell for people: epoch times as ISO 8601 UTC, durations with their unit
    (Chimbuko's in microseconds), other decimals to 6 significant digits. JSON and CSV keep
    the stored values.

    >>> human("start_time", 1331642943.4), human("entry_us", 1331642954500000)
    ('2012-03-13T12:49:03.400Z', '2012-03-13T12:49:14.500000Z')
    >>> human("duration", 60.002), human("runtime_exclusive", 24), human("ratio", 2/3)
    ('60.002 s', '24 µs', '0.666667')
    >>> human("job_id", 79), human("start_time", 12.5), human("io_step_tend", 1592584220578523)
    (79, '12.5 s', '2020-06-19T16:30:20.578523Z')
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if _TIME_COLUMNS.search(column) or column in ("entry", "exit") or column.endswith("_us"):
        micro = value > 1e14
        if (micro or value > 1e8) and value < 4e18:
            moment = dt.datetime.fromtimestamp(value / 1e6 if micro else value, dt.timezone.utc)
            text = moment.isoformat(timespec="microseconds" if micro else "milliseconds")
            return text.replace("+00:00", "Z")
        if _TIME_COLUMNS.search(column):  # a time relative to something: a duration
            return f"{value:.6g} s"
    if _SECONDS_COLUMNS.search(column):
        return f"{value:.6g} s"
    if _MICRO_COLUMNS.search(column):
        return f"{value:.6g} µs"
    if isinstance(value, float):
        return f"{value:.6g}"
    return value


def is_epoch_column(column: str, values: list) -> bool:
    """Whether a column of numbers holds seconds since the epoch (a time column whose values
    all fall after 1973), so that a table may show them as dates.

    >>> is_epoch_column("start_time", [1677960000.0, None, float("nan")])
    True
    >>> is_epoch_column("start_time", [12.5]), is_epoch_column("job_id", [1677960000])
    (False, False)
    """
    numbers = [v for v in values if v is not None and v == v]  # (NaN: a missing value)
    return (bool(_TIME_COLUMNS.search(column)) and bool(numbers)
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and 1e8 < v < 1e11
                    for v in numbers))
