"""The package's build (hatch_build.py): a wheel carries the compiled NetLogger reader when a
C compiler is there, and is pure Python when it is not (the reader is optional). Real
builds, by pip and hatchling from this checkout, without build isolation (no download)."""

from __future__ import annotations

import os
import shutil
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
    assert "lineage/sources/pegasus/cypher/failed_jobs.cypher" in names
    if compiler == "present":
        assert len(compiled_files(wheel)) == 1
        assert not wheel.name.endswith("-py3-none-any.whl"), wheel.name  # a platform wheel
    else:
        assert compiled_files(wheel) == []
        assert wheel.name.endswith("-py3-none-any.whl"), wheel.name
    # the hook's scratch folder is gone with the build
    assert list(scratch.glob("lineage-build-*")) == []


@pytest.fixture(scope="module")
def unpacked_wheel(tmp_path_factory) -> Path:
    """This checkout built as a wheel (compiler present) and unpacked: an install elsewhere."""
    out = tmp_path_factory.mktemp("built")
    site = out / "site"
    zipfile.ZipFile(build_wheel(out / "wheel")).extractall(site)
    return site


def read_a_line(site: Path, cwd: Path) -> tuple[str, str, str, str]:
    """Import netlogger from ``site`` in a fresh interpreter: COMPILED, its file, the pairs
    of one line, and what it wrote to stderr."""
    done = subprocess.run(
        [sys.executable, "-c",
         "from lineage.sources.pegasus import netlogger as n; "
         "print(n.COMPILED, n.__file__, n.parse_line('a=1 b=\"x y\"'))"],
        env={**os.environ, "PYTHONPATH": str(site)}, cwd=cwd,
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    compiled, path, pairs = done.stdout.split(" ", 2)
    return compiled, path, pairs.strip(), done.stderr


def test_the_built_reader_reads_a_line(unpacked_wheel, tmp_path):
    """The compiled file a wheel carries imports and reads, outside this checkout."""
    compiled, path, pairs, stderr = read_a_line(unpacked_wheel, tmp_path)
    assert compiled == "True" and path.startswith(str(unpacked_wheel)), (compiled, path)
    assert pairs == "{'a': '1', 'b': 'x y'}"
    assert "another version" not in stderr


@pytest.mark.parametrize("source", ["changed", "absent"])
def test_a_build_of_another_source_is_not_used(unpacked_wheel, tmp_path, source):
    """A compiled reader whose C source has changed since it was built is left alone (with a
    warning that says how to rebuild it) and lines are read in pure Python; one installed
    without its source has nothing to be compared with and is used."""
    site = tmp_path / "site"
    shutil.copytree(unpacked_wheel, site)
    c_source = site / "lineage" / "sources" / "pegasus" / "_netlogger_c.c"
    if source == "changed":
        c_source.write_text(c_source.read_text() + "/* one more line */\n")
    else:
        c_source.unlink()
    compiled, path, pairs, stderr = read_a_line(site, tmp_path)
    assert path.startswith(str(site))
    assert pairs == "{'a': '1', 'b': 'x y'}"  # read either way
    if source == "changed":
        assert compiled == "False"
        assert "was built from another version of" in stderr and "pip install -e ." in stderr
    else:
        assert compiled == "True" and stderr == ""
