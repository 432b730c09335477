"""A real PostgreSQL for the Swift provenance database tests, and an exporter that fills
the swift-provenancedb schema from a parsed log (as the original importer would).

The server is Debian's ``postgresql`` (scripts/setup.sh installs it): ``initdb`` into a
temporary directory, ``postgres`` on a free loopback port with its unix socket in that
directory, run as the ``postgres`` system user when the tests run as root; stopped and
removed at the end of the session.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from lineage.sources.swift import mapping as sp

# The schema of swift-provenancedb's prov-init.sql (tables only). The annotation tables
# name their entity column ``id`` (as the issue states) or ``<entity>_id`` (prov-init.sql).
SCHEMA = """
CREATE TABLE script (hash_value varchar(256) PRIMARY KEY, content text);
CREATE TABLE run (
  id varchar(256) PRIMARY KEY, log_filename varchar(2048), swift_version varchar(16),
  cog_version varchar(16), final_state varchar(32), start_time numeric, duration numeric,
  script_filename varchar(2048), script_hash varchar(256) REFERENCES script (hash_value));
CREATE TABLE fun_call (
  id varchar(256) PRIMARY KEY, run_id varchar(256) REFERENCES run (id) ON DELETE CASCADE,
  type varchar(16), name varchar(256));
CREATE TABLE app_fun_call (
  id varchar(256) PRIMARY KEY REFERENCES fun_call (id), name varchar(256), start_time numeric,
  duration numeric, final_state varchar(32), scratch varchar(2048));
CREATE TABLE app_exec (
  id varchar(256) PRIMARY KEY, app_fun_call_id varchar(256) REFERENCES app_fun_call (id),
  start_time numeric, duration numeric, final_state varchar(32), site varchar(256),
  {resources});
CREATE TABLE stage_in (app_exec_id varchar(256) REFERENCES app_exec (id),
  filename varchar(1024), PRIMARY KEY (app_exec_id, filename));
CREATE TABLE stage_out (app_exec_id varchar(256) REFERENCES app_exec (id),
  filename varchar(1024), PRIMARY KEY (app_exec_id, filename));
CREATE TABLE rt_info (app_exec_id varchar(256) REFERENCES app_exec (id), timestamp numeric,
  cpu_usage numeric, max_phys_mem numeric, max_virt_mem numeric, io_read numeric,
  io_write numeric, PRIMARY KEY (app_exec_id, timestamp));
CREATE TABLE ds (id varchar(256) PRIMARY KEY);
CREATE TABLE mapped (id varchar(256) PRIMARY KEY REFERENCES ds (id) ON DELETE CASCADE,
  filename varchar(2048));
CREATE TABLE primitive (id varchar(256) PRIMARY KEY REFERENCES ds (id) ON DELETE CASCADE,
  value varchar(2048));
CREATE TABLE dataset_containment (out_id varchar(256) REFERENCES ds (id) ON DELETE CASCADE,
  in_id varchar(256) REFERENCES ds (id) ON DELETE CASCADE, PRIMARY KEY (out_id, in_id));
CREATE TABLE dataset_in (function_call_id varchar(256) REFERENCES fun_call (id),
  dataset_id varchar(256) REFERENCES ds (id) ON DELETE CASCADE, parameter varchar(256),
  PRIMARY KEY (function_call_id, dataset_id, parameter));
CREATE TABLE dataset_out (function_call_id varchar(256) REFERENCES fun_call (id),
  dataset_id varchar(256) REFERENCES ds (id) ON DELETE CASCADE, parameter varchar(256),
  PRIMARY KEY (function_call_id, dataset_id, parameter));
"""
ANNOT = {"script_run": "run", "function_call": "fun_call", "app_exec": "app_exec",
         "dataset": "ds"}


def schema_sql(id_style: str = "id") -> str:
    """DDL of the provenance database; ``id_style`` 'id' or 'entity' for annotation tables."""
    sql = SCHEMA.format(resources=", ".join(f"{c} numeric" for c in sp.RESOURCE_COLUMNS))
    for entity, ref in ANNOT.items():
        column = "id" if id_style == "id" else f"{entity}_id"
        for suffix, kind in (("num", "numeric"), ("text", "text")):
            sql += (f"CREATE TABLE annot_{entity}_{suffix} ({column} varchar(256) REFERENCES "
                    f"{ref} (id) ON DELETE CASCADE, name varchar(256), value {kind}, "
                    f"PRIMARY KEY ({column}, name));\n")
    return sql


def export(conn, prov) -> None:
    """Insert one parsed log (a :class:`~lineage.sources.swift.log.SwiftProvenance`)."""
    run = prov.run
    with conn.cursor() as cur:
        if run.script_hash:
            cur.execute("INSERT INTO script VALUES (%s, %s) ON CONFLICT DO NOTHING",
                        (run.script_hash, prov.script))
        cur.execute("INSERT INTO run (id, log_filename, swift_version, cog_version, final_state, "
                    "start_time, duration, script_filename, script_hash) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    (run.id, run.log_filename, run.swift_version, run.cog_version,
                     run.final_state, run.start_time, run.duration, run.script_filename,
                     run.script_hash))
        for c in prov.calls.values():
            cur.execute("INSERT INTO fun_call (id, run_id, type, name) VALUES (%s, %s, %s, %s)",
                        (c.id, c.run_id, c.type, c.name))
            if c.type == "execute":
                cur.execute("INSERT INTO app_fun_call VALUES (%s, %s, %s, %s, %s, %s)",
                            (c.id, c.app_name, c.start_time, c.duration, c.final_state,
                             c.scratch))
        for e in prov.execs.values():
            cur.execute("INSERT INTO app_exec (id, app_fun_call_id, start_time, duration, "
                        "final_state, site) VALUES (%s, %s, %s, %s, %s, %s)",
                        (e.id, e.call_id, e.start_time, e.duration, e.final_state, e.site))
        for d in prov.datasets.values():
            cur.execute("INSERT INTO ds VALUES (%s)", (d.id,))
            if d.filename is not None:
                cur.execute("INSERT INTO mapped VALUES (%s, %s)", (d.id, d.filename))
            if d.value is not None:
                cur.execute("INSERT INTO primitive VALUES (%s, %s)", (d.id, d.value))
        cur.executemany("INSERT INTO dataset_containment VALUES (%s, %s)", list(prov.containment))
        cur.executemany("INSERT INTO dataset_in VALUES (%s, %s, %s)", list(prov.dataset_in))
        cur.executemany("INSERT INTO dataset_out VALUES (%s, %s, %s)", list(prov.dataset_out))


def _bindir() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    which = shutil.which("initdb")
    if which:
        return Path(which).parent
    pytest.fail("PostgreSQL is not installed (initdb not found): run scripts/setup.sh "
                "or apt-get install postgresql")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    """A throw-away PostgreSQL cluster; ``url(db)`` for each database."""

    def __init__(self):
        self.bindir = _bindir()
        self.root = Path(tempfile.mkdtemp(prefix="lineage-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            subprocess.run(["id", "postgres"], check=True, capture_output=True)
            shutil.chown(self.root, "postgres", "postgres")
            self.as_user = ["runuser", "-u", "postgres", "--"]

    def _run(self, *args: str) -> None:
        result = subprocess.run([*self.as_user, *args], capture_output=True, text=True,
                                timeout=120)
        if result.returncode != 0:
            raise RuntimeError(f"{args[0]} failed: {result.stdout}\n{result.stderr}")

    def start(self) -> "PostgresServer":
        self._run(str(self.bindir / "initdb"), "-D", str(self.data), "-U", "lineage",
                  "-A", "trust", "-E", "UTF8", "--locale=C")
        options = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
                   "-c fsync=off -c full_page_writes=off")
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l",
                  str(self.root / "server.log"), "-o", options, "-w", "-t", "60", "start")
        return self

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://lineage@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str, id_style: str = "id") -> str:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
        with psycopg.connect(self.url(name)) as conn:
            conn.execute(schema_sql(id_style))
        return self.url(name)

    def stop(self) -> None:
        try:
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "fast",
                      "-w", "stop")
        finally:
            time.sleep(0.1)
            shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres():
    server = PostgresServer().start()
    yield server
    server.stop()
