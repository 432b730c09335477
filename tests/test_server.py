"""The managed Neo4j: loopback only, authentication on, private password and data."""

import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import AuthError

from lineage import server


def _non_loopback_addresses():
    out = subprocess.run(["hostname", "-I"], capture_output=True, text=True).stdout.split()
    return [a for a in out if not a.startswith("127.") and ":" not in a]


def test_status_json_has_the_contract_keys(test_state_dir):
    info = server.status(test_state_dir)
    for key in ("running", "uri", "browser_url", "user", "password_file"):
        assert key in info
    assert info["running"] is True and info["uri"].startswith("bolt://127.0.0.1:")


def test_start_is_a_no_op_when_running(test_state_dir):
    before = server.status(test_state_dir)
    again = server.start(test_state_dir)
    assert again["pid"] == before["pid"]


def test_refuses_connections_without_credentials(test_state_dir):
    info = server.status(test_state_dir)
    for auth in (None, ("neo4j", "wrong-password"), ("neo4j", "neo4j")):
        with GraphDatabase.driver(info["uri"], auth=auth) as driver:
            with pytest.raises(AuthError):
                driver.verify_connectivity()


def test_listens_on_loopback_only(test_state_dir):
    info = server.status(test_state_dir)
    bolt = int(info["uri"].rsplit(":", 1)[1])
    http = int(info["browser_url"].split(":")[2].split("/")[0])
    # every listening socket on those ports is bound to 127.0.0.1 (/proc/net/tcp{,6})
    bound = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as fh:
            for line in fh.readlines()[1:]:
                local, state = line.split()[1], line.split()[3]
                addr, port = local.split(":")
                if state == "0A" and int(port, 16) in (bolt, http):
                    bound.append(addr)
    assert bound, "no listening socket found for the server's ports"
    for addr in bound:
        assert addr in ("0100007F", "0000000000000000FFFF00000100007F"), addr
    for address in _non_loopback_addresses():
        with pytest.raises(OSError):
            socket.create_connection((address, bolt), timeout=2).close()


def test_password_file_and_data_are_private(test_state_dir):
    info = server.status(test_state_dir)
    mode = stat.S_IMODE(os.stat(info["password_file"]).st_mode)
    assert mode == 0o600
    paths = server.ServerPaths.under(test_state_dir)
    for d in (paths.root, paths.data_dir, paths.conf_dir, paths.logs_dir):
        assert stat.S_IMODE(os.stat(d).st_mode) & 0o077 == 0, d
    conf = (paths.conf_dir / "neo4j.conf").read_text()
    assert "dbms.security.auth_enabled=true" in conf
    assert "server.default_listen_address=127.0.0.1" in conf


def test_cli_status_json(test_state_dir):
    env = dict(os.environ, LINEAGE_HOME=str(test_state_dir))
    env.pop("NEO4J_URI", None)
    out = subprocess.run([sys.executable, "-m", "lineage", "neo4j", "status", "--json"], capture_output=True,
                         text=True, env=env, check=True).stdout
    info = json.loads(out)
    assert info["running"] is True and info["password_file"].startswith(str(test_state_dir))


def test_missing_java_is_explained(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.delenv("LINEAGE_JAVA", raising=False)  # set but wrong is its own error
    monkeypatch.setattr(server, "_java_major", lambda java: None)
    with pytest.raises(server.ServerError, match="apt-get install openjdk-17"):
        server.find_java()


def test_missing_maven_is_explained(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("LINEAGE_MVN", raising=False)
    with pytest.raises(server.ServerError, match="apt-get install maven"):
        server.find_maven()


def test_private_paths_are_private_whatever_the_umask(tmp_path):
    """Directories and files of the state are created private even under umask 000 (no window
    in which they are open); tests/test_faults.py starts a whole server that way."""
    old = os.umask(0)
    try:
        nested = tmp_path / "a" / "b" / "state"
        server._make_private_dir(nested)
        server.write_private(nested / "password", "secret\n")
    finally:
        os.umask(old)
    for d in (tmp_path / "a", tmp_path / "a" / "b", nested):
        assert stat.S_IMODE(os.stat(d).st_mode) & 0o077 == 0, d
    assert stat.S_IMODE(os.stat(nested / "password").st_mode) == 0o600


def test_the_initial_password_never_shows_on_a_command_line(tmp_path):
    """Other local users can read every process's /proc/<pid>/cmdline: while neo4j-admin sets
    the generated password, no command line may hold it (it travels in a private file)."""
    import threading

    paths = server.ServerPaths.under(tmp_path / "state")
    for d in (paths.root, paths.conf_dir, paths.data_dir, paths.logs_dir, paths.run_dir):
        d.mkdir(parents=True, exist_ok=True)
    server.write_config(paths, server.free_port(), server.free_port())
    seen: list[str] = []
    done = threading.Event()

    def watch():
        while not done.is_set():
            for proc in Path("/proc").glob("[0-9]*/cmdline"):
                try:
                    seen.append(proc.read_bytes().replace(b"\0", b" ").decode(errors="replace"))
                except OSError:
                    continue

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        server._set_initial_password(server.find_java(), server.install(), paths)
    finally:
        done.set()
        watcher.join(10)
    secret = paths.password_file.read_text().strip()
    assert len(secret) >= 24 and (paths.data_dir / "dbms" / "auth.ini").exists()
    assert any("set-initial-password" in line or "@" in line for line in seen)  # it was seen
    assert not [line for line in seen if secret in line]
    assert not list(paths.root.glob("*.args"))  # the argument file is gone


def test_generated_passwords_never_look_like_options():
    """neo4j-admin read a password starting with '-' as an option (1 first character in 64
    of secrets.token_urlsafe was '-'), and the first start of a server failed."""
    from lineage.server import new_password

    passwords = [new_password() for _ in range(2000)]
    assert not [p for p in passwords if p.startswith("-")]
    assert len(set(passwords)) == 2000 and min(map(len, passwords)) >= 32


class _ForeignBolt:
    """A listener standing in for another user's server on a port our start chose: counts
    connections and whether any sent the Bolt handshake (a login would follow)."""

    def __init__(self):
        import threading

        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.handshakes = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                try:
                    if conn.recv(4) == b"\x60\x60\xb0\x17":
                        self.handshakes += 1
                except OSError:
                    pass

    def close(self):
        self.sock.close()


def test_a_port_taken_while_starting_is_left_alone_and_another_is_used(tmp_path, monkeypatch):
    """Two servers starting at once on a login node can choose one free port; the one that
    cannot bind must not log in to the other (its wrong password would lock the other user
    out) and starts on fresh ports instead."""
    foreign = _ForeignBolt()
    real_pick = server._pick
    first = []

    def pick(preferred, taken):
        if not first:  # the race: the port was free when checked, taken before the bind
            first.append(foreign.port)
            return foreign.port
        return real_pick(preferred, taken)

    monkeypatch.setattr(server, "_pick", pick)
    monkeypatch.setenv("LINEAGE_NEO4J_HEAP", "512m")
    monkeypatch.setenv("LINEAGE_NEO4J_PAGECACHE", "128m")
    state = tmp_path / "state"
    try:
        info = server.start(state)
        assert info["running"] and info["uri"] != f"bolt://127.0.0.1:{foreign.port}"
        assert foreign.handshakes == 0
        with GraphDatabase.driver(info["uri"], auth=(info["user"], server.password(state))) as d:
            d.verify_connectivity()
        told = (server.ServerPaths.under(state).logs_dir / "neo4j.log").read_text()
        assert str(foreign.port) in told  # the first try really met the taken port
    finally:
        server.stop(state)
        foreign.close()


def test_wrong_passwords_of_others_never_lock_the_owner_out(test_state_dir, cli_env):
    """A burst of wrong-password logins (what another local user can send to the loopback
    port) leaves the managed server's owner in: the very next login with the password file's
    password is accepted at once (Neo4j's default locks it for 5 s after 3 wrong ones), and
    the owner's command works."""
    from neo4j.exceptions import ClientError

    from .conftest import run_cli

    uri, secret = server.status(test_state_dir)["uri"], server.password(test_state_dir)
    for _ in range(3):
        for _ in range(10):
            with GraphDatabase.driver(uri, auth=(server.USER, "wrong")) as d:
                with pytest.raises(ClientError):
                    d.verify_connectivity()
        with GraphDatabase.driver(uri, auth=(server.USER, secret)) as d:
            d.verify_connectivity()  # no AuthenticationRateLimit: no lock
    assert run_cli(cli_env, "stats", "--format", "json").returncode == 0


def test_a_login_locked_by_wrong_passwords_is_tried_again_after_the_lock(neo4j_settings):
    """A server that locks a user's logins for 5 s after three wrong passwords (Neo4j's
    default; not the managed one): connecting waits the lock out once instead of failing."""
    from neo4j.exceptions import ClientError

    from lineage.server.connection import RATE_LIMITED, Graph

    if neo4j_settings.managed:
        pytest.skip("the managed server has no lockout (auth_max_failed_attempts=0); this "
                    "runs against a NEO4J_URI or Docker server")

    for _ in range(3):  # (an earlier test's wrong login may already count)
        with GraphDatabase.driver(neo4j_settings.uri, auth=(neo4j_settings.user, "wrong")) as d:
            with pytest.raises(ClientError):
                d.verify_connectivity()
    with GraphDatabase.driver(neo4j_settings.uri,
                              auth=(neo4j_settings.user, neo4j_settings.password)) as d:
        with pytest.raises(ClientError) as locked:
            d.verify_connectivity()
    assert locked.value.code == RATE_LIMITED  # the right password is refused for now
    with Graph.connect(neo4j_settings) as graph:
        assert graph.run("RETURN 1 AS one") == [{"one": 1}]


PLUGIN_SOURCE = """
package lineagetest;

import org.neo4j.procedure.Description;
import org.neo4j.procedure.UserFunction;

public class Answer {
    @UserFunction("lineagetest.answer")
    @Description("42, from a plugin jar")
    public Long answer() { return 42L; }

    @UserFunction("lineagetest.on_classpath")
    @Description("whether the JVM's own class path holds this jar (a plugin's extensions,")
    public Boolean onClasspath() {  // APOC's configuration among them, are found there)
        return ClassLoader.getSystemClassLoader().getResource("lineagetest/Answer.class") != null;
    }
}
"""


def test_plugins_from_the_users_directory_are_loaded(tmp_path, monkeypatch):
    """LINEAGE_NEO4J_PLUGINS: a directory of plugin jars (APOC, for one) the managed server
    loads; here a one-function plugin compiled against the server's own jars."""
    java = Path(server.find_java()).resolve()
    src = tmp_path / "src" / "lineagetest" / "Answer.java"
    src.parent.mkdir(parents=True)
    src.write_text(PLUGIN_SOURCE)
    classes, plugins = tmp_path / "classes", tmp_path / "plugins"
    plugins.mkdir()
    lib = server.install()
    subprocess.run([str(java.with_name("javac")), "-cp", f"{lib}/*", "-d", str(classes),
                    str(src)], check=True, capture_output=True)
    subprocess.run([str(java.with_name("jar")), "cf", str(plugins / "answer.jar"), "-C",
                    str(classes), "."], check=True, capture_output=True)
    monkeypatch.setenv("LINEAGE_NEO4J_PLUGINS", str(plugins))
    monkeypatch.setenv("LINEAGE_NEO4J_HEAP", "512m")
    monkeypatch.setenv("LINEAGE_NEO4J_PAGECACHE", "128m")
    state = tmp_path / "state"
    try:
        info = server.start(state)
        with GraphDatabase.driver(info["uri"], auth=(info["user"], server.password(state))) as d:
            records, _, _ = d.execute_query("RETURN lineagetest.answer() AS a, "
                                            "lineagetest.on_classpath() AS cp")
        assert records[0]["a"] == 42 and records[0]["cp"] is True
    finally:
        server.stop(state)


def test_a_plugins_path_that_is_no_directory_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("LINEAGE_NEO4J_PLUGINS", str(tmp_path / "nowhere"))
    with pytest.raises(server.ServerError, match="LINEAGE_NEO4J_PLUGINS=.*nowhere: not a "
                                                 "directory"):
        server.start(tmp_path / "state")


def _fake_server(tmp_path: Path, log: str, pid: int) -> server.ServerPaths:
    paths = server.ServerPaths.under(tmp_path)
    paths.logs_dir.mkdir(parents=True)
    paths.info_file.parent.mkdir(parents=True, exist_ok=True)
    (paths.logs_dir / "neo4j.log").write_text(log)
    paths.info_file.write_text(json.dumps({"pid": pid, "bolt_port": 1, "http_port": 2}))
    return paths


def test_await_started_reads_the_log_past_the_restart(tmp_path):
    """A bulk load's restart returns once Bolt answers; await_started then waits for the
    "Started." of that start, not one logged before it."""
    before = "INFO  Started.\nINFO  Stopped.\n"
    paths = _fake_server(tmp_path, before + "INFO  Bolt enabled on localhost:1.\n", os.getpid())
    with pytest.raises(server.ServerError, match="did not finish starting"):
        server.await_started(paths, len(before), timeout=0.3)
    with (paths.logs_dir / "neo4j.log").open("a") as log:
        log.write("INFO  Started.\n")
    server.await_started(paths, len(before), timeout=0.3)


def test_await_started_tells_of_a_server_that_ended(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    paths = _fake_server(tmp_path, "INFO  Bolt enabled on localhost:1.\n"
                         "ERROR Port 2 already in use\n", int(dead.stdout))
    with pytest.raises(server.ServerError, match="ended while starting"):
        server.await_started(paths, 0, timeout=30)


def test_a_port_whose_last_connections_wait_out_time_wait_is_free():
    """Closed first by the listening side, a connection waits in TIME_WAIT on the
    listener's port; the server (SO_REUSEADDR) can listen there again, so port_free says
    so, and a port something listens on is not free."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as Netty's and Jetty's
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    assert not server.port_free(port)
    client = socket.create_connection(("127.0.0.1", port))
    accepted, _ = listener.accept()
    accepted.close()  # this side first: its socket goes to TIME_WAIT
    client.close()
    listener.close()
    plain = socket.socket()
    with pytest.raises(OSError):  # what a bind without SO_REUSEADDR meets
        plain.bind(("127.0.0.1", port))
    plain.close()
    assert server.port_free(port)
