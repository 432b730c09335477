"""What a load cannot read is reported and counted, and the rest is loaded: a file or a
directory it may not read, a name that is not UTF-8, a tree deeper than Python's recursion
limit, a file a report may not write. ``lineage load`` exits 5 when inputs were not read
(the exit codes of docs/reference/cli.md), after loading every other one.

As root, permissions do not stop reading: the CLI then runs without the capabilities that
override them (``setpriv``), as any user would."""

import os
import shutil
import subprocess
import sys

from . import graphcheck
from .conftest import SAMPLES
from .corpus import needs_corpus

pytestmark = needs_corpus
BP = SAMPLES / "pegasus" / "blackdiamond-4.0.bp"
AS_A_USER = (["setpriv", "--bounding-set=-dac_override,-dac_read_search"]
             if os.geteuid() == 0 else [])


def lineage_cli(env, *args) -> subprocess.CompletedProcess:
    return subprocess.run([*AS_A_USER, sys.executable, "-m", "lineage", *args],
                          capture_output=True, text=True, env=env)


def _tree(root):
    """A readable file, an unreadable file, an unreadable directory holding a readable one,
    a directory and a file whose names are not UTF-8, and a readable file 1,000 levels
    deep; returns the readable files that are loaded."""
    root.mkdir()
    shutil.copy(BP, root / "a.bp")
    shutil.copy(BP, root / "b.bp")
    (root / "b.bp").chmod(0)
    closed = root / "closed"
    closed.mkdir()
    shutil.copy(BP, closed / "c.bp")
    closed.chmod(0)
    odd = os.fsencode(root) + b"/\xff\xfe"
    os.mkdir(odd)
    shutil.copy(BP, os.fsdecode(odd + b"/d.bp"))
    shutil.copy(BP, os.fsdecode(os.fsencode(root) + b"/e\xff.bp"))
    deep = root / "deep"
    deep.mkdir()
    here = os.open(deep, os.O_RDONLY)
    try:  # relative steps: the full path is not needed to make it
        for _ in range(1000):
            os.mkdir("d", dir_fd=here)
            below = os.open("d", os.O_RDONLY, dir_fd=here)
            os.close(here)
            here = below
        with open(os.open("f.bp", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=here), "wb") as fh:
            fh.write(BP.read_bytes())
    finally:
        os.close(here)
    return [root / "a.bp", deep.joinpath(*["d"] * 1000, "f.bp")]


def _tidy(root):
    """Permissions back, and the deep tree removed by ``rm`` (pytest's own clean-up of old
    temporary directories recurses once per level and would fail on it)."""
    (root / "closed").chmod(0o755)
    (root / "b.bp").chmod(0o644)
    subprocess.run(["rm", "-rf", str(root / "deep")], check=True)


def test_what_cannot_be_read_is_reported_counted_and_the_rest_loaded(lin, tmp_path, cli_env):
    readable = _tree(tmp_path / "tree")
    try:
        out = lineage_cli(cli_env, "load", str(tmp_path / "tree"))
        attacked = graphcheck.of(lin)
        lin.reset()
        lin.load(readable)
        clean = graphcheck.of(lin)
    finally:
        _tidy(tmp_path / "tree")
    assert "Traceback" not in out.stderr
    assert out.returncode == 5, out.stderr
    assert "loaded 2 of 6 inputs; 4 could not be read" in out.stdout
    assert "b.bp: unreadable (Permission denied)" in out.stderr
    assert "closed: a directory that cannot be read (Permission denied)" in out.stderr
    assert "\\xff\\xfe: a directory whose name is not UTF-8" in out.stderr
    assert "e\\xff.bp: a file whose name is not UTF-8" in out.stderr
    assert attacked == clean


def test_an_unreadable_directory_named_alone_is_not_an_empty_success(lin, tmp_path, cli_env):
    closed = tmp_path / "closed"
    closed.mkdir()
    shutil.copy(BP, closed / "a.bp")
    closed.chmod(0)
    try:
        out = lineage_cli(cli_env, "load", str(closed))
    finally:
        closed.chmod(0o755)
    assert out.returncode == 5 and "Traceback" not in out.stderr
    assert "loaded 0 of 1 inputs; 1 could not be read" in out.stdout
    assert f"{closed}: a directory that cannot be read" in out.stderr


def test_a_report_that_cannot_be_written_is_a_clear_error(lin, tmp_path, cli_env):
    lin.load([BP])
    [workflow] = lin.query("MATCH (w:Workflow) RETURN w.uid AS uid LIMIT 1")
    out = lineage_cli(cli_env, "report", workflow["uid"], "-o", "/proc/version")
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert out.stderr.startswith("error: /proc/version: ")


def test_a_walk_is_iterative_and_names_what_is_not_utf8(tmp_path):
    """Python's os.walk recursed once per level (RecursionError at ~1,000 levels)."""
    from lineage.load.inputs import expand

    readable = _tree(tmp_path / "tree")
    try:
        found = {i.path: i.problem for i in expand([tmp_path / "tree"])}
    finally:
        _tidy(tmp_path / "tree")
    assert found[str(readable[1])] is None
    odd = {path.rsplit("/", 1)[1]: problem for path, problem in found.items() if problem}
    assert set(odd) >= {"\\xff\\xfe", "e\\xff.bp"}


def test_a_walk_names_each_file_by_its_path_without_links(tmp_path):
    """The walk knows each file's real path from its directory's (no lookups per file); it
    must be what resolving the path gives: through a linked top directory, in a directory
    below it, and for a file that is itself a link."""
    from pathlib import Path

    from lineage.load.inputs import expand, identity

    real = tmp_path / "real"
    (real / "below").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    shutil.copy(BP, real / "a.bp")
    shutil.copy(BP, real / "below" / "b.bp")
    shutil.copy(BP, tmp_path / "elsewhere" / "c.bp")
    (real / "below" / "link.bp").symlink_to(tmp_path / "elsewhere" / "c.bp")
    (tmp_path / "top").symlink_to(real)
    found = list(expand([tmp_path / "top"]))
    assert len(found) == 3
    named = {Path(i.path).name: identity(i) for i in found}
    assert named == {Path(i.path).name: str(Path(i.path).resolve()) for i in found}
    assert named["link.bp"] == str(tmp_path.resolve() / "elsewhere" / "c.bp")
    assert named["b.bp"] == str(tmp_path.resolve() / "real" / "below" / "b.bp")
