"""The load progress bar: files, records and rate on a terminal; silent in scripts and CI.

>>> bar = LoadProgress(["x"], enabled=False)
>>> bar.active
False
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path


def interactive(ci: bool = False) -> bool:
    """True when stderr is a terminal and not in CI (the settings' ``ci``)."""
    return sys.stderr.isatty() and not ci


def _terminal_size() -> tuple[int, int]:
    """stderr's terminal size; 100 x 20 when it reports none (tqdm draws nothing at 0 rows)."""
    try:
        size = os.get_terminal_size(sys.stderr.fileno())
    except (OSError, ValueError):
        size = shutil.get_terminal_size((100, 20))
    return size.columns or 100, size.lines or 20


def _size(path: str) -> int:
    p = Path(path)
    if p.is_file():
        return p.stat().st_size
    if p.is_dir():
        total = 0
        for root, dirs, files in os.walk(p):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            total += sum((Path(root) / f).stat().st_size for f in files if not f.startswith("."))
        return total
    return 0  # a database URL


class LoadProgress:
    """A tqdm bar over the bytes of the inputs, advanced within an input as its records are
    read (bytes for line formats, records for all) and at its end, with files, records and
    records per second as postfix. A no-op unless enabled and :func:`interactive`."""

    def __init__(self, paths, enabled: bool = True, ci: bool = False):
        self.active = enabled and interactive(ci)
        self.bar = None
        self.files = 0
        self.records = 0
        self.in_file = 0  # bytes of the current file already shown
        self.started = time.monotonic()
        if self.active:
            from tqdm import tqdm

            cols, rows = _terminal_size()
            self.bar = tqdm(total=sum(_size(str(p)) for p in paths), unit="B", unit_scale=True,
                            desc="loading", file=sys.stderr, ncols=cols, nrows=rows)

    def __call__(self, event: str, info: dict) -> None:
        if not self.bar:
            return
        if event == "start":
            self.in_file = 0
            self.bar.set_description(f"loading {Path(info['path']).name[:40]}")
        elif event == "records":  # within a file: records read so far and, for line
            # formats, bytes (the bar then moves within the file, never past its size)
            ahead = min(info.get("bytes", 0), _size(info["path"])) - self.in_file
            if ahead > 0:
                self.bar.update(ahead)
                self.in_file += ahead
            self._postfix(self.records + info.get("records", 0))
        elif event == "done":
            self.files += 1
            self.records += info.get("node_records", 0) + info.get("edge_records", 0)
            self._postfix(self.records)
            self.bar.update(max(_size(info["path"]) - self.in_file, 0))
            self.in_file = 0

    def _postfix(self, records: int) -> None:
        rate = records / max(time.monotonic() - self.started, 1e-6)
        self.bar.set_postfix(files=self.files, records=records, rate=f"{rate:.0f} rec/s")

    def write(self, line: str) -> None:
        """Print a line on stderr without breaking the bar."""
        if self.bar:
            self.bar.write(line, file=sys.stderr)
        else:
            print(line, file=sys.stderr)

    def __enter__(self) -> "LoadProgress":
        return self

    def __exit__(self, *exc) -> None:
        if self.bar:
            self.bar.close()
