"""The XALT loader against XALT's own database loader (issue 12).

XALT's ``XALTdb`` (vendored in ``tests/oracle/xalt``, see its NOTICE) stores the XALT sample
records into a real MariaDB (Debian ``mariadb-server``, started here on a free loopback port
in a temporary directory, stopped at the end) with XALT's own schema (``createDB.in.py``); the
loader loads the same files into Neo4j; the two are compared: runs (``xalt_run``), the
executable of each run, the libraries of each run (``join_run_object``), builds
(``xalt_link``), the objects each build linked (``join_link_object``) and its tracked
functions (``join_link_function``). Where they differ on purpose: :data:`KNOWN_DIFFERENCES`.

Run alone:  ``pytest tests/test_xalt_loader_oracle.py``
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pymysql  # the test extra of pyproject.toml
import pytest

from .conftest import SAMPLES

ORACLE = Path(__file__).parent / "oracle" / "xalt"
FILES = sorted((SAMPLES / "xalt").glob("*.json"))

KNOWN_DIFFERENCES = {
    "start_time_rounded": "XALTdb stores a run's start_time as '%.f' (whole seconds); the "
                          "loader keeps the fraction.",
    "zero_hash": "XALT writes sha1 '0' for a file it did not hash, and XALTdb stores '0'; "
                 "the loader records no sha1 (None) for it.",
    "env_redacted": "XALTdb stores every environment value; the loader's default "
                    "environment mode ('filtered') replaces secret-looking values with "
                    "'[redacted]' (README, XALT environment).",
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class MariaDBServer:
    """A throw-away MariaDB: ``mariadb-install-db`` into a temporary directory, ``mariadbd`` on
    a free loopback port (as the ``mysql`` user when the tests run as root), without grant
    tables (any user name connects; nothing else listens)."""

    def __init__(self):
        self.mariadbd = shutil.which("mariadbd") or "/usr/sbin/mariadbd"
        self.install = shutil.which("mariadb-install-db")
        if not (os.path.exists(self.mariadbd) and self.install):
            pytest.fail("MariaDB is not installed (mariadbd not found): run scripts/setup.sh "
                        "or apt-get install mariadb-server")
        self.root = Path(tempfile.mkdtemp(prefix="lineage-mariadb-"))
        self.port = _free_port()
        self.user = ["--user=mysql"] if os.geteuid() == 0 else []
        self.proc = None

    def start(self) -> "MariaDBServer":
        if self.user:
            shutil.chown(self.root, "mysql", "mysql")
        subprocess.run([self.install, "--no-defaults", f"--datadir={self.root}/data",
                        "--auth-root-authentication-method=normal", "--skip-test-db",
                        *self.user], check=True, capture_output=True, timeout=300)
        self.proc = subprocess.Popen(
            [self.mariadbd, "--no-defaults", f"--datadir={self.root}/data",
             f"--socket={self.root}/sock", f"--pid-file={self.root}/pid",
             f"--log-error={self.root}/error.log", f"--port={self.port}",
             "--bind-address=127.0.0.1", "--skip-grant-tables", "--skip-log-bin",
             "--innodb-buffer-pool-size=32M", *self.user],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while True:
            try:
                pymysql.connect(host="127.0.0.1", port=self.port, user="xalt").close()
                return self
            except pymysql.Error:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    log = (self.root / "error.log").read_text(errors="replace")[-2000:]
                    self.stop()
                    pytest.fail(f"mariadbd did not start: {log}")
                time.sleep(0.3)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="module")
def mariadb():
    server = MariaDBServer().start()
    yield server
    server.stop()


def xalt_loads(server: MariaDBServer, files: list[Path], tmp: Path) -> dict:
    """Create XALT's database with its createDB, store the files with its XALTdb; the rows."""
    conf = tmp / "xalt_db.conf"
    conf.write_text("[MYSQL]\nHOST=127.0.0.1\nUSER=xalt\n"
                    f"PASSWD={base64.b64encode(b'').decode()}\nDB=xalt\n")
    env = dict(os.environ, XALT_TEST_DB_PORT=str(server.port))
    for argv in (["createDB.in.py", "--drop", "--confFn", str(conf)],
                 ["xalt_files_to_db.py", str(conf), *map(str, files)]):
        done = subprocess.run([sys.executable, str(ORACLE / argv[0]), *argv[1:]], env=env,
                              capture_output=True, text=True, timeout=300, cwd=tmp)
        assert done.returncode == 0, done.stdout + done.stderr
    conn = pymysql.connect(host="127.0.0.1", port=server.port, user="xalt", database="xalt")
    try:
        with conn.cursor(pymysql.cursors.DictCursor) as cur:
            def q(sql):
                cur.execute(sql)
                return list(cur.fetchall())
            runs = q("SELECT run_id, job_id, run_uuid, syshost, uuid, hash_id, account, "
                     "exec_type, start_time, end_time, run_time, num_cores, num_nodes, queue, "
                     "user, exec_path, cwd, UNCOMPRESS(cmdline) AS cmdline FROM xalt_run")
            run_objects = q("SELECT r.run_uuid, o.object_path, o.hash_id, o.lib_type "
                            "FROM join_run_object j JOIN xalt_run r USING (run_id) "
                            "JOIN xalt_object o USING (obj_id)")
            links = q("SELECT link_id, uuid, hash_id, link_program, link_path, build_user, "
                      "build_syshost, build_epoch, exec_path, cwd, "
                      "UNCOMPRESS(link_line) AS link_line FROM xalt_link")
            link_objects = q("SELECT l.uuid, o.object_path, o.hash_id, o.lib_type "
                             "FROM join_link_object j JOIN xalt_link l USING (link_id) "
                             "JOIN xalt_object o USING (obj_id)")
            functions = q("SELECT l.uuid, f.function_name FROM join_link_function j "
                          "JOIN xalt_link l USING (link_id) JOIN xalt_function f "
                          "USING (func_id)")
            env = q("SELECT r.run_uuid, n.env_name, j.env_value FROM join_run_env j "
                    "JOIN xalt_run r USING (run_id) JOIN xalt_env_name n USING (env_id)")
    finally:
        conn.close()
    return dict(runs=runs, run_objects=run_objects, links=links, link_objects=link_objects,
                functions=functions, env=env)


def sha1(stored: str, seen: set) -> str | None:
    """XALT's stored sha1 as the loader records it ('0': not hashed, None; zero_hash)."""
    if stored == "0":
        seen.add("zero_hash")
        return None
    return stored


def test_xalt_samples_against_xalts_own_loader(lin, mariadb, tmp_path):
    assert len(FILES) == 3
    theirs = xalt_loads(mariadb, FILES, tmp_path)
    results = lin.load(FILES)
    assert all(r.status == "loaded" for r in results)
    q = lin.query
    seen = set()

    # runs: one row per run uuid, the same fields
    ours = {r["uuid"]: r for r in q(
        "MATCH (e:Execution) RETURN e.uuid AS uuid, e.job_id AS job_id, e.syshost AS syshost, "
        "e.build_uuid AS build, e.sha1 AS sha1, e.account AS account, e.exec_type AS "
        "exec_type, e.start_time AS start, e.end_time AS end_time, e.run_time AS run_time, "
        "e.cores AS cores, e.nodes AS nodes, e.queue AS queue, e.user AS user, "
        "e.exec_path AS exec_path, e.cwd AS cwd, e.cmdline AS cmdline")}
    assert len(theirs["runs"]) == len(ours) == 1
    for row in theirs["runs"]:
        mine = ours[row["run_uuid"]]
        assert (mine["job_id"], mine["syshost"], mine["build"], mine["sha1"], mine["account"],
                mine["exec_type"], mine["cores"], mine["nodes"], mine["queue"], mine["user"],
                mine["exec_path"], mine["cwd"]) == \
            (row["job_id"], row["syshost"], row["uuid"], row["hash_id"], row["account"],
             row["exec_type"], row["num_cores"], row["num_nodes"], row["queue"], row["user"],
             row["exec_path"], row["cwd"])
        assert mine["cmdline"] == json.loads(row["cmdline"])
        # a start record: XALT stores end 0 and run time 0, the loader none yet
        assert row["end_time"] == 0 and mine["end_time"] is None and mine["run_time"] is None
        assert row["start_time"] == float(f"{mine['start']:.0f}")
        if row["start_time"] != mine["start"]:
            seen.add("start_time_rounded")
        # the executable the run used
        [exe] = q("MATCH (:Execution {uuid: $u})-[:USED {role: 'executable'}]->(x:Executable) "
                  "RETURN x.path AS path, x.sha1 AS sha1", u=row["run_uuid"])
        assert exe == {"path": row["exec_path"], "sha1": row["hash_id"]}

    # libraries of each run
    mine_libs = {(r["u"], r["path"], r["sha1"]) for r in q(
        "MATCH (e:Execution)-[:USED {role: 'loaded'}]->(l) "
        "RETURN e.uuid AS u, l.path AS path, l.sha1 AS sha1")}
    their_libs = {(r["run_uuid"], r["object_path"], sha1(r["hash_id"], seen))
                  for r in theirs["run_objects"]}
    assert their_libs and their_libs == mine_libs

    # the environment of each run (join_run_env)
    for uuid in ours:
        [env] = q("MATCH (e:Execution {uuid: $u}) RETURN e.env AS env", u=uuid)
        mine_env = json.loads(env["env"])
        their_env = {r["env_name"]: r["env_value"].decode() for r in theirs["env"]
                     if r["run_uuid"] == uuid}
        assert their_env and set(mine_env) == set(their_env)
        for name, value in their_env.items():
            if mine_env[name] != value:
                assert "[redacted]" in mine_env[name], name
                seen.add("env_redacted")

    # builds (link records): the same fields, objects and functions
    builds = {r["uuid"]: r for r in q(
        "MATCH (b:Build) WHERE b.has_link_record RETURN b.uuid AS uuid, b.compiler AS prg, "
        "b.compiler_path AS path, b.build_user AS user, b.build_host AS host, "
        "b.build_epoch AS epoch, b.exec_path AS exec_path, b.wd AS wd, "
        "b.link_line AS link_line, b.functions AS functions")}
    assert len(theirs["links"]) == len(builds) == 2
    for row in theirs["links"]:
        mine = builds[row["uuid"]]
        assert (mine["prg"], mine["path"], mine["user"], mine["host"], mine["epoch"],
                mine["exec_path"], mine["wd"]) == \
            (row["link_program"], row["link_path"], row["build_user"], row["build_syshost"],
             row["build_epoch"], row["exec_path"], row["cwd"])
        assert (mine["link_line"] or []) == json.loads(row["link_line"])
        [exe] = q("MATCH (x:Executable)-[:WAS_GENERATED_BY]->(:Build {uuid: $u}) "
                  "RETURN x.sha1 AS sha1", u=row["uuid"])
        assert exe["sha1"] == row["hash_id"]
        assert sorted(mine["functions"] or []) == sorted(
            f["function_name"] for f in theirs["functions"] if f["uuid"] == row["uuid"])
    mine_linked = {(r["u"], r["path"], r["sha1"]) for r in q(
        "MATCH (b:Build)-[:USED {role: 'linked'}]->(l) "
        "RETURN b.uuid AS u, l.path AS path, l.sha1 AS sha1")}
    their_linked = {(r["uuid"], r["object_path"], sha1(r["hash_id"], seen))
                    for r in theirs["link_objects"]}
    assert their_linked and their_linked == mine_linked
    # every known difference was met, and no other
    assert seen == set(KNOWN_DIFFERENCES), seen ^ set(KNOWN_DIFFERENCES)
