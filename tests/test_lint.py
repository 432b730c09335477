"""The lint step of the test run: ruff (configured in pyproject.toml) finds nothing in the
package, the tests or the benchmarks.

Run it alone with ``.venv/bin/python -m ruff check lineage tests bench``.
"""

from __future__ import annotations

import subprocess
import sys

from .corpus import REPO


def test_ruff_finds_nothing():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache",
                           "lineage", "tests", "bench"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
