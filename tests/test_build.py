"""The package's build (hatch_build.py): a wheel carries the compiled NetLogger reader when a
C compiler is there, and is pure Python when it is not (the reader is optional). Real
builds, by pip and hatchling from this checkout, without build isolation (no download)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def build_wheel(out: Path, **env: str) -> Path:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "--no-cache-dir", "-q", "-w", str(out), str(REPO)],
        env={**os.environ, **env}, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    wheels = list(out.glob("*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def compiled_files(wheel: Path) -> list[str]:
    return [name for name in zipfile.ZipFile(wheel).namelist()
            if name.startswith("lineage/sources/pegasus/_netlogger_c.")
            and name.endswith((".so", ".pyd"))]


@pytest.mark.parametrize("compiler", ["present", "missing"])
def test_the_wheel_has_the_compiled_reader_when_it_can(tmp_path, compiler):
    scratch = tmp_path / "tmp"  # the build's temporary folders, apart from other builds'
    scratch.mkdir()
    env = {"TMPDIR": str(scratch)}
    if compiler == "missing":
        env["CC"] = str(tmp_path / "no-such-cc")
    wheel = build_wheel(tmp_path / "wheel", **env)
    names = zipfile.ZipFile(wheel).namelist()
    assert "lineage/sources/pegasus/netlogger.py" in names
    assert "lineage/_cypher/ancestors.cypher" in names
    if compiler == "present":
        assert len(compiled_files(wheel)) == 1
        assert not wheel.name.endswith("-py3-none-any.whl"), wheel.name  # a platform wheel
    else:
        assert compiled_files(wheel) == []
        assert wheel.name.endswith("-py3-none-any.whl"), wheel.name
    # the hook's scratch folder is gone with the build
    assert list(scratch.glob("lineage-build-*")) == []


def test_the_built_reader_reads_a_line(tmp_path):
    """The compiled file a wheel carries imports and reads, outside this checkout."""
    wheel = build_wheel(tmp_path / "wheel")
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    done = subprocess.run(
        [sys.executable, "-c",
         "from lineage.sources.pegasus import netlogger as n; "
         "print(n.COMPILED, n.__file__, n.parse_line('a=1 b=\"x y\"'))"],
        env={**os.environ, "PYTHONPATH": str(site)}, cwd=tmp_path,
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    compiled, path, pairs = done.stdout.split(" ", 2)
    assert compiled == "True" and path.startswith(str(site)), done.stdout
    assert pairs.strip() == "{'a': '1', 'b': 'x y'}"
