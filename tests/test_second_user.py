"""The managed server's secrets, tried as a second local user (HPC login nodes are shared).

The tests run a probe as the user ``nobody`` (the suite switches user, so it needs root; CI
runs as root). The probe uses only Python's standard library, as an attacker's script would.
"""

from __future__ import annotations

import json
import os
import pwd
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from lineage import server
from .corpus import needs_corpus

pytestmark = pytest.mark.skipif(os.geteuid() != 0,
                                reason="acting as a second local user needs root (setuid)")



def _python_for_nobody() -> str:
    """A Python interpreter ``nobody`` may run (ours may sit in root's private home)."""
    for candidate in (getattr(sys, "_base_executable", sys.executable), "/usr/bin/python3"):
        try:
            if subprocess.run([candidate, "-I", "-c", "pass"], preexec_fn=_become_nobody,
                              capture_output=True, timeout=60).returncode == 0:
                return candidate
        except OSError:
            continue
    pytest.skip("no Python interpreter that the user nobody may run")


def _become_nobody() -> None:
    nobody = pwd.getpwnam("nobody")
    os.setgroups([])
    os.setgid(nobody.pw_gid)
    os.setuid(nobody.pw_uid)


def as_nobody(code: str, *args: str, timeout: float = 120) -> dict:
    out = subprocess.run([_python_for_nobody(), "-I", "-c", code, *args], preexec_fn=_become_nobody,
                         capture_output=True, text=True, timeout=timeout, cwd="/")
    assert out.returncode == 0, out.stderr[-800:]
    return json.loads(out.stdout)


TRY_READ = """
import json, os, sys
result = {"uid": os.getuid()}
for path in sys.argv[1:]:
    try:
        if os.path.isdir(path):
            result[path] = sorted(os.listdir(path))
        else:
            with open(path, "rb") as fh:
                result[path] = fh.read(200).decode("utf-8", "replace")
    except OSError as exc:
        result[path] = type(exc).__name__
print(json.dumps(result))
"""


def test_a_second_user_reads_nothing_of_the_managed_state(test_state_dir):
    paths = server.ServerPaths.under(test_state_dir)
    targets = [test_state_dir, paths.password_file, paths.conf_dir, paths.data_dir,
               paths.logs_dir, paths.logs_dir / "neo4j.log"]
    # the owner reads them all (so a refusal below is the permissions, not a wrong path)
    assert paths.password_file.read_text().strip()
    assert (paths.logs_dir / "neo4j.log").exists()
    seen = as_nobody(TRY_READ, *map(str, targets))
    assert seen["uid"] == pwd.getpwnam("nobody").pw_uid
    leaked = {p: v for p, v in seen.items() if p != "uid" and v != "PermissionError"}
    assert not leaked, leaked


WATCH_CMDLINES = """
import glob, json, os, sys, time
stop = sys.argv[1]
seen = set()
open(stop + ".ready", "w").close()
while not os.path.exists(stop):
    for proc in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            with open(proc, "rb") as fh:
                seen.add(fh.read().replace(b"\\0", b" ").decode("utf-8", "replace"))
        except OSError:
            pass
print(json.dumps({"uid": os.getuid(), "cmdlines": sorted(seen)}))
"""


def test_a_second_user_watching_command_lines_never_sees_the_initial_password():
    """The attack that once worked: poll every process's command line during the first start."""
    with tempfile.TemporaryDirectory() as shared:
        os.chmod(shared, 0o777)  # the watcher's stop flag lives here
        stop = Path(shared) / "stop"
        paths = server.ServerPaths.under(Path(shared) / "state")
        for d in (paths.root, paths.conf_dir, paths.data_dir, paths.logs_dir, paths.run_dir):
            d.mkdir(parents=True, exist_ok=True)
        server.write_config(paths, server.free_port(), server.free_port())
        result: dict = {}
        watcher = threading.Thread(target=lambda: result.update(as_nobody(WATCH_CMDLINES,
                                                                            str(stop))))
        watcher.start()
        try:
            for _ in range(600):
                if Path(str(stop) + ".ready").exists():
                    break
                threading.Event().wait(0.05)
            server._set_initial_password(server.find_java(), server.install(), paths)
        finally:
            stop.touch()
            watcher.join(60)
        secret = paths.password_file.read_text().strip()
    assert result["uid"] == pwd.getpwnam("nobody").pw_uid
    assert any("set-initial-password" in line or "@" in line for line in result["cmdlines"])
    assert not [line for line in result["cmdlines"] if secret in line]


@needs_corpus
def test_a_second_user_cannot_read_a_report_that_carries_the_environment(lin, tmp_path):
    """Reports can quote XALT environments: they are written 0600 in a readable directory."""
    from .conftest import SAMPLES

    lin.load([SAMPLES / "xalt"], xalt_env="all")
    uid = lin.query("MATCH (r:Execution) WHERE r.env IS NOT NULL RETURN r.uid AS uid LIMIT 1")[0]["uid"]
    public = Path(tempfile.mkdtemp())
    try:
        os.chmod(public, 0o755)
        report = public / "run.html"
        lin.report(uid, report)
        assert "<html" in report.read_text()[:2000].lower()
        seen = as_nobody(TRY_READ, str(report))
        assert seen[str(report)] == "PermissionError", seen
    finally:
        for f in public.iterdir():
            f.unlink()
        public.rmdir()
