"""The managed local Neo4j: a pinned Neo4j Community server run from Maven Central jars.

No Docker and no root needed. ``install`` resolves the jars once with Maven (``server/pom.xml``
pins the version); ``start`` writes a config that listens on 127.0.0.1 only, turns
authentication on with a generated password kept in a file only the user can read (and no
lockout after wrong passwords, which another local user could trip to lock the owner out), starts
``org.neo4j.server.CommunityEntryPoint`` on Java 17 or 21 and waits until Bolt answers.

>>> paths = ServerPaths.under(Path("/tmp/lineage-example"))
>>> paths.password_file.name
'password'
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import ServerError
from . import class_archive

NEO4J_VERSION = "5.26.30"  # keep in step with server/pom.xml and docker-compose.yml
SUPPORTED_JAVA = (17, 21)
USER = "neo4j"
POM = Path(__file__).with_name("pom.xml")
DEFAULT_BOLT_PORT = 7687
DEFAULT_HTTP_PORT = 7474
START_TIMEOUT = float(os.environ.get("LINEAGE_NEO4J_START_TIMEOUT", "180"))
log = logging.getLogger("lineage.server")


def state_dir() -> Path:
    """Where the managed server keeps config, data, logs and its password.

    ``$LINEAGE_HOME`` wins, then ``$XDG_STATE_HOME/lineage-explorer``, then
    ``~/.local/state/lineage-explorer``.
    """
    if os.environ.get("LINEAGE_HOME"):
        return Path(os.environ["LINEAGE_HOME"]).expanduser()
    base = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(base) / "lineage-explorer"


def demo_state_dir() -> Path:
    """The state directory of the demo's own server (``lineage demo``): ``demo/`` under
    :func:`state_dir`, so that the samples never mix with the user's graph."""
    return state_dir() / "demo"


def cache_dir() -> Path:
    """Where the server jars are kept (shared by every state directory of the user)."""
    if os.environ.get("LINEAGE_CACHE"):
        return Path(os.environ["LINEAGE_CACHE"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "lineage-explorer"


@dataclass(frozen=True)
class ServerPaths:
    """The files of one managed server."""

    root: Path

    @classmethod
    def under(cls, state: Path) -> "ServerPaths":
        return cls(state / "neo4j")

    @property
    def conf_dir(self) -> Path:
        return self.root / "conf"

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @property
    def logs_dir(self) -> Path:
        return self.root / "logs"

    @property
    def run_dir(self) -> Path:
        return self.root / "run"

    @property
    def password_file(self) -> Path:
        return self.root / "password"

    @property
    def info_file(self) -> Path:
        return self.run_dir / "server.json"

    @property
    def console_log(self) -> Path:
        return self.logs_dir / "console.log"

    @property
    def bulk_mark(self) -> Path:
        """Present while a bulk load holds the server stopped (see BackgroundStop)."""
        return self.root / "bulk-import.json"

    @property
    def bulk_lock(self) -> Path:
        """Locked (``flock``) by the one bulk load of this server (see :func:`bulk_lock`)."""
        return self.root / "bulk.lock"

    @property
    def bulk_state(self) -> Path:
        """A bulk load's step, from its start until its last :Load record is written: left
        behind, it says the load was interrupted (see :func:`interrupted_bulk`)."""
        return self.root / "bulk-state.json"


def lib_dir() -> Path:
    return cache_dir() / f"neo4j-{NEO4J_VERSION}" / "lib"


# ------------------------------------------------------------------ Java and Maven
def _java_major(java: str) -> int | None:
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr + out.stdout)
    if not m:
        return None
    major = int(m.group(1))
    return int(m.group(2)) if major == 1 and m.group(2) else major


def find_java() -> str:
    """A Java 17 or 21 executable: ``$LINEAGE_JAVA`` when set (that one only: one that is
    missing or not Java 17 or 21 is an error naming it, never passed over), else
    ``$JAVA_HOME``, /usr/lib/jvm, PATH."""
    chosen = os.environ.get("LINEAGE_JAVA")
    if chosen:
        if not Path(chosen).exists():
            raise ServerError(f"LINEAGE_JAVA={chosen}: no such file (expected the bin/java "
                              "of a Java 17 or 21)")
        major = _java_major(chosen)
        if major not in SUPPORTED_JAVA:
            said = f"it says Java {major}" if major else "it did not report a Java version"
            raise ServerError(f"LINEAGE_JAVA={chosen}: {said}; Neo4j {NEO4J_VERSION} needs "
                              "Java 17 or 21 (unset LINEAGE_JAVA to look for one)")
        return chosen
    candidates: list[str] = []
    if os.environ.get("JAVA_HOME"):
        candidates.append(str(Path(os.environ["JAVA_HOME"]) / "bin" / "java"))
    for jvm_root in (Path("/usr/lib/jvm"), Path("/usr/java"), Path("/opt/java")):
        if jvm_root.is_dir():
            for home in sorted(jvm_root.iterdir()):
                if any(str(v) in home.name for v in SUPPORTED_JAVA):
                    candidates.append(str(home / "bin" / "java"))
    on_path = shutil.which("java")
    if on_path:
        candidates.append(on_path)
    seen = set()
    for java in candidates:
        if java in seen or not Path(java).exists():
            continue
        seen.add(java)
        if _java_major(java) in SUPPORTED_JAVA:
            return java
    raise ServerError(
        f"Neo4j {NEO4J_VERSION} needs Java 17 or 21, and none was found "
        f"(looked at $LINEAGE_JAVA, $JAVA_HOME, /usr/lib/jvm and PATH).\n"
        "Install one, e.g. on Debian/Ubuntu: sudo apt-get install openjdk-17-jre-headless\n"
        "or point LINEAGE_JAVA at its bin/java."
    )


def find_maven() -> str:
    mvn = os.environ.get("LINEAGE_MVN") or shutil.which("mvn")
    if not mvn:
        raise ServerError(
            "Maven is needed once, to fetch the Neo4j server jars from Maven Central, and "
            "`mvn` is not on PATH.\nInstall it, e.g. on Debian/Ubuntu: sudo apt-get install "
            "maven\nor point LINEAGE_MVN at it."
        )
    return mvn


def install(quiet: bool = True) -> Path:
    """Resolve the pinned server jars into the cache (once); return the lib directory."""
    target = lib_dir()
    marker = target / ".complete"
    if marker.exists():
        return target
    mvn = find_maven()
    java = find_java()
    tmp = target.with_name(f"lib.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.parent.mkdir(parents=True, exist_ok=True)
    cmd = [mvn, "-B", "-f", str(POM), "dependency:copy-dependencies",
           f"-DoutputDirectory={tmp}", "-DincludeScope=runtime"]
    if quiet:
        cmd.insert(2, "-q")
    env = dict(os.environ, JAVA_HOME=str(Path(java).resolve().parents[1]))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ServerError(
            f"Maven could not fetch Neo4j {NEO4J_VERSION} ({' '.join(cmd)}):\n"
            + (proc.stdout + proc.stderr)[-3000:]
        )
    (tmp / ".complete").write_text(NEO4J_VERSION + "\n")
    if target.exists():  # another process won the race
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        tmp.rename(target)
    return target


# ------------------------------------------------------------------ ports and process
def port_free(port: int) -> bool:
    """Whether the server could listen on ``port``: bound as it binds (``SO_REUSEADDR``, as
    Netty and Jetty do), so that connections of a server just stopped, waiting out their
    TIME_WAIT, do not count (without it a bulk load's restart moved to other ports)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pick(preferred: int, taken: set[int]) -> int:
    if preferred not in taken and port_free(preferred):
        return preferred
    while True:
        port = free_port()
        if port not in taken:
            return port


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie child of ours is not alive
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


def _bolt_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def _read_info(paths: ServerPaths) -> dict | None:
    try:
        return json.loads(paths.info_file.read_text())
    except (OSError, ValueError):
        return None


def write_private(path: Path, text: str) -> None:
    """Write a file readable and writable by its owner only (created that way, no window)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(text)
    os.chmod(path, 0o600)


def _make_private_dir(path: Path) -> None:
    old = os.umask(0o077)  # no window in which a new directory is open, whatever the umask
    try:
        path.mkdir(parents=True, exist_ok=True)
    finally:
        os.umask(old)
    os.chmod(path, 0o700)


def _memory_settings() -> dict[str, str]:
    """Heap and page cache for a laptop or a shared login node (override with env vars)."""
    return {
        "server.memory.heap.initial_size": os.environ.get("LINEAGE_NEO4J_HEAP", "512m"),
        "server.memory.heap.max_size": os.environ.get("LINEAGE_NEO4J_HEAP", "1g"),
        "server.memory.pagecache.size": os.environ.get("LINEAGE_NEO4J_PAGECACHE", "512m"),
        "dbms.memory.transaction.total.max": os.environ.get("LINEAGE_NEO4J_TX_MEMORY", "512m"),
    }


def write_config(paths: ServerPaths, bolt_port: int, http_port: int) -> Path:
    """Write neo4j.conf: loopback only, authentication on without a lockout that others
    could trip, no usage reports."""
    settings = {
        "server.default_listen_address": "127.0.0.1",
        "server.default_advertised_address": "127.0.0.1",
        "server.bolt.listen_address": f"127.0.0.1:{bolt_port}",
        "server.bolt.advertised_address": f"127.0.0.1:{bolt_port}",
        "server.http.listen_address": f"127.0.0.1:{http_port}",
        "server.http.advertised_address": f"127.0.0.1:{http_port}",
        "server.https.enabled": "false",
        "server.bolt.tls_level": "DISABLED",
        "dbms.security.auth_enabled": "true",
        # no lockout: Neo4j locks a user out for auth_lock_time after 3 wrong passwords
        # (the default), whoever sent them, so any other local user could keep the owner
        # out; 0 turns the lock off (5.26's RateLimitedAuthenticationStrategy permits every
        # attempt when the maximum is 0 or less), and the 192-bit generated password makes
        # guessing it moot
        "dbms.security.auth_max_failed_attempts": "0",
        "dbms.usage_report.enabled": "false",
        "server.directories.data": str(paths.data_dir),
        "server.directories.logs": str(paths.logs_dir),
        "server.directories.run": str(paths.run_dir),
        "server.directories.import": str(paths.root / "import"),
        "db.tx_log.rotation.retention_policy": "2 files",
        # Bolt's Netty event loops wait a quiet period of 5 s per connector (two) before
        # they shut down, after every connection is already closed: a stop took 10.4 s, of
        # which 10 s was this wait (debug.log; pinned server version, internal setting).
        "internal.dbms.bolt.netty_server_shutdown_quiet_period": "0",
        **_memory_settings(),
    }
    plugins = plugins_dir()
    if plugins:
        settings["server.directories.plugins"] = str(plugins)
    settings.update(_browser_guide_settings(paths, http_port))
    guide = os.environ.get("LINEAGE_BROWSER_POST_CONNECT")
    if guide:
        settings["browser.post_connect_cmd"] = guide
    text = "# Written by `lineage neo4j start`; rewritten at every start.\n" + "".join(
        f"{k}={v}\n" for k, v in settings.items()
    )
    conf = paths.conf_dir / "neo4j.conf"
    write_private(conf, text)
    return conf


def _browser_guide_settings(paths: ServerPaths, http_port: int) -> dict[str, str]:
    """Serve Browser with the templates guide (lineage/report/guide.py) and open it after login;
    no settings (plain Browser) when the guide cannot be written."""
    from ..browser import guide

    try:
        archive = guide.install(lib_dir(), paths.root / "web", http_port)
    except (OSError, ValueError) as exc:
        print(f"lineage: Neo4j Browser guide not installed: {exc}", file=sys.stderr)
        return {}
    return {
        "internal.dbms.web_dir_path": str(archive.parent),
        "browser.remote_content_hostname_whitelist": "guides.neo4j.com,localhost,127.0.0.1",
        "browser.post_connect_cmd": f"style {guide.style_url(http_port)}; "
                                    f"play {guide.guide_url(http_port)}",
    }


def plugins_dir() -> Path | None:
    """The user's directory of server plugin jars (``LINEAGE_NEO4J_PLUGINS``: APOC, for
    one), or None: the managed server loads none by default.

    >>> plugins_dir()  # LINEAGE_NEO4J_PLUGINS=~/neo4j-plugins          # doctest: +SKIP
    PosixPath('/home/me/neo4j-plugins')
    """
    value = os.environ.get("LINEAGE_NEO4J_PLUGINS")
    if not value:
        return None
    path = Path(value).expanduser().resolve()
    if not path.is_dir():
        raise ServerError(f"LINEAGE_NEO4J_PLUGINS={value}: not a directory (expected a "
                          "directory of Neo4j plugin jars)")
    return path


def _classpath(lib: Path) -> str:
    """The server's jars, then the plugins' (a plugin's extensions are found on the
    classpath, its procedures in ``server.directories.plugins``)."""
    plugins = plugins_dir()
    return f"{lib}/*" + (f":{plugins}/*" if plugins else "")


def _jvm_args(java: str, lib: Path, paths: ServerPaths) -> list[str]:
    mem = _memory_settings()
    return [
        java,
        f"-Xms{mem['server.memory.heap.initial_size']}",
        f"-Xmx{mem['server.memory.heap.max_size']}",
        "-XX:+UseG1GC",
        *class_archive.jvm_options(java, lib),  # classes mapped from one file, if built
        "-XX:-OmitStackTraceInFastThrow",
        "-XX:+DisableExplicitGC",
        "-Djdk.nio.maxCachedBufferSize=1024",
        "-Dio.netty.tryReflectionSetAccessible=true",
        "-Dlog4j2.disable.jmx=true",
        "--add-opens=java.base/java.nio=ALL-UNNAMED",
        "--add-opens=java.base/java.io=ALL-UNNAMED",
        "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
        "-cp", _classpath(lib),
        "org.neo4j.server.CommunityEntryPoint",
        f"--home-dir={paths.root}",
        f"--config-dir={paths.conf_dir}",
    ]


def new_password() -> str:
    """A random password (32 URL-safe characters) that never starts with ``-``: neo4j-admin
    would read one that does as an option and stop with "Missing required parameter"
    (1 start in 64 did, before).

    >>> len(new_password()), new_password()[0].isalpha()
    (33, True)
    """
    return "p" + secrets.token_urlsafe(24)


def _set_initial_password(java: str, lib: Path, paths: ServerPaths) -> None:
    """Set the generated password with neo4j-admin, passing it in a Java argument file
    (``java @file``, expanded inside the JVM) so that it never appears on a command line
    other local users can read in /proc; the file is private and removed at once."""
    password = new_password()
    env = dict(os.environ, NEO4J_HOME=str(paths.root), NEO4J_CONF=str(paths.conf_dir))
    argfile = paths.root / "set-initial-password.args"
    args = ["-cp", f"{lib}/*", "org.neo4j.cli.AdminTool", "dbms", "set-initial-password",
            password]
    write_private(argfile, "\n".join(f'"{a}"' for a in args) + "\n")
    try:
        proc = subprocess.run([java, f"@{argfile}"], capture_output=True, text=True, env=env,
                              cwd=paths.root, umask=0o077)
    finally:
        argfile.unlink(missing_ok=True)
    if proc.returncode != 0:
        raise ServerError("neo4j-admin set-initial-password failed:\n"
                          + proc.stderr[-2000:].replace(password, "***"))
    write_private(paths.password_file, password + "\n")


# ------------------------------------------------------------------ the public operations
def status(state: Path | None = None) -> dict:
    """The managed server's state, as printed by ``lineage neo4j status --json``."""
    paths = ServerPaths.under(state or state_dir())
    info = _read_info(paths) or {}
    pid = info.get("pid")
    running = bool(pid) and _alive(pid) and _bolt_answers(info.get("bolt_port", 0))
    bolt, http = info.get("bolt_port"), info.get("http_port")
    return {
        "running": running,
        "pid": pid if running else None,
        "version": NEO4J_VERSION,
        "uri": f"bolt://127.0.0.1:{bolt}" if bolt else None,
        "browser_url": f"http://127.0.0.1:{http}/browser/" if http else None,
        "user": USER,
        "password_file": str(paths.password_file),
        "state_dir": str(paths.root),
        "log": str(paths.logs_dir / "neo4j.log"),
        "interrupted_bulk_load": interrupted_bulk(paths),
    }


def password(state: Path | None = None) -> str:
    """The managed server's generated password."""
    paths = ServerPaths.under(state or state_dir())
    try:
        return paths.password_file.read_text().strip()
    except OSError as exc:
        raise ServerError(f"no password file at {paths.password_file}: start the server") from exc


def start(state: Path | None = None, timeout: float = START_TIMEOUT) -> dict:
    """Start the managed server unless it runs already; wait until Bolt answers."""
    state = state or state_dir()
    current = status(state)
    if current["running"]:
        return current
    paths = ServerPaths.under(state)
    holder = bulk_holder(paths)
    if holder is not None and holder != os.getpid():
        raise ServerError(
            f"the managed server is stopped while `lineage load --bulk` (pid {holder}) "
            "imports into it; it starts again when that load ends (started now, it would "
            f"make the import fail; the mark is {paths.bulk_mark})")
    _make_private_dir(state)
    _make_private_dir(paths.root)
    for d in (paths.conf_dir, paths.data_dir, paths.logs_dir, paths.run_dir):
        _make_private_dir(d)
    info = _read_info(paths) or {}
    if info.get("pid") and _alive(info["pid"]):  # alive but not answering: a stuck server
        _terminate(info["pid"])
    java = find_java()
    lib = install()
    bolt = _pick(DEFAULT_BOLT_PORT, set())
    http = _pick(DEFAULT_HTTP_PORT, {bolt})
    write_config(paths, bolt, http)  # neo4j-admin reads it too
    log.info("starting the managed Neo4j %s in %s", NEO4J_VERSION, paths.root)
    if not (paths.data_dir / "dbms" / "auth.ini").exists() or not paths.password_file.exists():
        if (paths.data_dir / "dbms" / "auth.ini").exists():
            raise ServerError(
                f"{paths.password_file} is missing but the database has users already; "
                f"remove {paths.root} to start afresh (its graph is lost)"
            )
        _set_initial_password(java, lib, paths)
    deadline = time.monotonic() + timeout
    tried = {bolt, http}
    for _ in range(PORT_ATTEMPTS):
        if _launch(java, lib, paths, bolt, http, deadline):
            log.info("Neo4j started: bolt://127.0.0.1:%d in %.1f s", bolt,
                     timeout - (deadline - time.monotonic()))
            return status(state)
        log.info("ports %d/%d were taken meanwhile; trying others", bolt, http)
        bolt = _pick(DEFAULT_BOLT_PORT, tried)
        http = _pick(DEFAULT_HTTP_PORT, tried | {bolt})
        tried |= {bolt, http}
    raise ServerError(f"Neo4j could not bind its ports (tried {sorted(tried)}): other "
                      f"servers took them while it started:\n{_tail(paths)}")


#: Starts tried with fresh ports when another process took the chosen ones meanwhile (two
#: users starting servers at once on a login node).
PORT_ATTEMPTS = 3


def _launch(java: str, lib: Path, paths: ServerPaths, bolt: int, http: int,
            deadline: float, bolt_only: bool = False) -> bool:
    """Start the JVM on ``bolt``/``http`` and wait until it logs "Started." (``bolt_only``:
    until it logs that Bolt listens, which it does once its databases are available, about
    0.9 s before its web server is up; then :func:`await_started`) and our password works.
    False when it could not bind its ports. Nothing connects before our own server says it
    listens: a server another user started on the same port in the meantime never sees our
    password (wrong logins would lock that user out for a while)."""
    listening = re.compile(rf"Bolt enabled on \S+:{bolt}\." if bolt_only else r"Started\.")
    write_config(paths, bolt, http)
    user_log = paths.logs_dir / "neo4j.log"
    offset = user_log.stat().st_size if user_log.exists() else 0
    log_fd = os.open(paths.console_log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(log_fd, "ab") as log:
        proc = subprocess.Popen(
            _jvm_args(java, lib, paths),
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            cwd=paths.root, start_new_session=True, umask=0o077,
            env=dict(os.environ, NEO4J_HOME=str(paths.root), NEO4J_CONF=str(paths.conf_dir)),
        )
    write_private(paths.info_file, json.dumps(
        {"pid": proc.pid, "bolt_port": bolt, "http_port": http, "version": NEO4J_VERSION}
    ))
    import neo4j  # noqa: F401 - the driver's import (0.2-0.5 s) while the JVM boots
    debug_log = paths.logs_dir / "debug.log"
    debug_offset = debug_log.stat().st_size if debug_log.exists() else 0
    while time.monotonic() < deadline:
        failed = recovery_failure(_since(debug_log, debug_offset))
        if failed:
            _terminate(proc.pid)
            raise ServerError(_cannot_recover(paths, failed))
        if proc.poll() is not None:
            told = _since(user_log, offset) + _since(paths.console_log, 0)[-20000:]
            if "already in use" in told or "BindException" in told:
                return False
            raise ServerError(
                f"Neo4j exited with status {proc.returncode} while starting; "
                f"see {paths.logs_dir}:\n{_tail(paths)}"
            )
        if (listening.search(_since(user_log, offset)) and _bolt_answers(bolt)
                and _auth_ready(bolt, paths.password_file.read_text().strip())):
            return True
        time.sleep(0.2)
    _terminate(proc.pid)
    failed = recovery_failure(_since(debug_log, debug_offset))
    if failed:
        raise ServerError(_cannot_recover(paths, failed))
    raise ServerError(f"Neo4j did not start within the time allowed "
                      f"(LINEAGE_NEO4J_START_TIMEOUT):\n{_tail(paths)}")


#: What Neo4j's debug.log says when a database cannot recover (a line naming recovery and
#: an error: "recovery not possible", missing transaction logs, no check point...)
_RECOVERY = re.compile(r"(?i)^(?=.*recover)(?=.*(?:not possible|fail|missing|no check ?point|"
                       r"unable|exception|corrupt|error)).*$", re.MULTILINE)


def recovery_failure(debug_log: str) -> str | None:
    """The first line of Neo4j's ``debug.log`` text saying a database cannot recover, else
    None (a recovery that completes is no failure).

    >>> recovery_failure("INFO Recovery completed. 3 transactions") is None
    True
    >>> recovery_failure("ERROR [o.n.k.d.Database] Caused by: java.lang.RuntimeException: "
    ...                  "Transaction logs are missing and recovery is not possible.")[:5]
    'ERROR'
    """
    for match in _RECOVERY.finditer(debug_log):
        line = match.group(0).strip()
        if re.search(r"(?i)recovery (?:completed|required|started)|no recovery", line):
            continue
        return line[:500]
    return None


def _cannot_recover(paths: ServerPaths, line: str) -> str:
    return (f"Neo4j cannot recover its database in {paths.data_dir} (its store or "
            "transaction logs are damaged: a crash or a full disk during a write, or files "
            f"removed); Neo4j's {paths.logs_dir / 'debug.log'} says:\n  {line}\n"
            "restore a copy of that directory, or remove it to start afresh (its graph is "
            "lost), then load again")


def _since(path: Path, offset: int) -> str:
    """What ``path`` holds past byte ``offset`` ('' when it does not exist)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(offset)
            return fh.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _auth_ready(port: int, secret: str) -> bool:
    from neo4j import GraphDatabase
    from neo4j.exceptions import Neo4jError, ServiceUnavailable, SessionExpired

    try:
        with GraphDatabase.driver(f"bolt://127.0.0.1:{port}", auth=(USER, secret)) as drv:
            drv.verify_connectivity()
            drv.execute_query("RETURN 1")
        return True
    except (ServiceUnavailable, SessionExpired, Neo4jError, OSError):
        return False


def _tail(paths: ServerPaths, lines: int = 30) -> str:
    out = []
    for log in (paths.console_log, paths.logs_dir / "neo4j.log", paths.logs_dir / "debug.log"):
        try:
            out.extend(log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            pass
    return "\n".join(out[-lines:])


def _terminate(pid: int, timeout: float = 60) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done:
                return
        except ChildProcessError:
            pass
        if not _alive(pid):
            return
        time.sleep(0.2)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def stop(state: Path | None = None) -> dict:
    """Stop the managed server (no-op when it is not running)."""
    state = state or state_dir()
    paths = ServerPaths.under(state)
    info = _read_info(paths) or {}
    if info.get("pid") and _alive(info["pid"]):
        log.info("stopping the managed Neo4j (pid %d) in %s", info["pid"], paths.root)
        _terminate(info["pid"])
    return status(state)


def kill(state: Path | None = None) -> None:
    """Kill the managed server at once (SIGKILL), as a crash would; used by fault tests."""
    info = _read_info(ServerPaths.under(state or state_dir())) or {}
    if info.get("pid") and _alive(info["pid"]):
        os.kill(info["pid"], signal.SIGKILL)
        deadline = time.monotonic() + 30
        while _alive(info["pid"]) and time.monotonic() < deadline:
            time.sleep(0.1)


def bulk_holder(paths: ServerPaths) -> int | None:
    """The pid of the live process on this host whose bulk load holds the server stopped,
    else None (a mark whose process is gone does not count).

    >>> bulk_holder(ServerPaths(Path("/nonexistent/neo4j"))) is None
    True
    """
    try:
        mark = json.loads(paths.bulk_mark.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(mark, dict) or mark.get("host") != socket.gethostname():
        return None
    pid = mark.get("pid")
    return pid if isinstance(pid, int) and _alive(pid) else None


class BulkBusy(ServerError):
    """Another bulk load holds this server's lock."""


@contextlib.contextmanager
def bulk_lock(paths: ServerPaths):
    """Hold the one lock of bulk loads into this server for the ``with`` block (a second
    bulk load at once is :class:`BulkBusy`, naming the first's pid; the lock goes with its
    process, however it ends).

    >>> import tempfile
    >>> paths = ServerPaths(Path(tempfile.mkdtemp()))
    >>> with bulk_lock(paths):
    ...     with bulk_lock(paths):
    ...         pass
    Traceback (most recent call last):
    ...
    lineage.server.BulkBusy: another `lineage load --bulk` (pid ...) is importing ...
    """
    _make_private_dir(paths.root)
    fd = os.open(paths.bulk_lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "?"
            raise BulkBusy(f"another `lineage load --bulk` (pid {holder}) is importing into "
                           f"the managed server in {paths.root}: wait until it ends, then "
                           "load again (a second bulk load at once would replace its "
                           "database)") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)  # and with it the lock


def record_bulk_step(paths: ServerPaths, step: str) -> None:
    """Note the step a bulk load is at (:attr:`ServerPaths.bulk_state`)."""
    write_private(paths.bulk_state, json.dumps(
        {"pid": os.getpid(), "host": socket.gethostname(), "step": step, "at": time.time()}))


def bulk_step(paths: ServerPaths) -> str | None:
    """The step a bulk load recorded last (None when none is recorded)."""
    try:
        return json.loads(paths.bulk_state.read_text()).get("step")
    except (OSError, ValueError, AttributeError):
        return None


def interrupted_bulk(paths: ServerPaths) -> str | None:
    """What to tell of a bulk load that ended before its last step (its process is gone and
    its state file is left), with the way to recover; None when there is none.

    >>> interrupted_bulk(ServerPaths(Path("/nonexistent/neo4j"))) is None
    True
    """
    try:
        state = json.loads(paths.bulk_state.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(state, dict):
        return None
    pid = state.get("pid")
    if state.get("host") == socket.gethostname() and isinstance(pid, int) and _alive(pid):
        return None  # still running
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(state.get("at") or 0))
    return (f"a bulk load (pid {pid}) was interrupted while {state.get('step', '?')} "
            f"(at {when}): the database may hold imported data without its :Load records, "
            "constraints and indexes (unload, reloads and lookups by uid would be wrong); "
            "recover with `lineage reset --yes` and load again")


def clear_bulk_state(paths: ServerPaths) -> None:
    """The bulk load ended (or the graph it left was reset): no interrupted state."""
    paths.bulk_state.unlink(missing_ok=True)


class BackgroundStop:
    """Stops the managed server in a thread while the caller goes on (a bulk load parses its
    inputs meanwhile), keeping the ports it had for :meth:`restart`. Until then a mark in
    the server's directory makes ``start`` in other processes refuse (another ``lineage``
    command would start the server on demand, and the import would then fail).

    >>> stopping = BackgroundStop(Path("/nonexistent/state"))  # nothing runs there: no-op
    >>> stopping.wait() >= 0, stopping.restarted
    (True, False)
    """

    def __init__(self, state: Path | None = None):
        self.state = state or state_dir()
        self.paths = ServerPaths.under(self.state)
        self.info = _read_info(self.paths) or {}  # read before the stop: the ports
        self.restarted = False
        self._log_offset: int | None = None  # of a restart's log, until it logged "Started."
        if self.paths.root.is_dir():
            write_private(self.paths.bulk_mark, json.dumps(
                {"pid": os.getpid(), "host": socket.gethostname()}))
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._stop, name="lineage-server-stop",
                                        daemon=True)
        self._thread.start()

    def _stop(self) -> None:
        try:
            stop(self.state)
        except BaseException as exc:  # raised again by wait(), in the caller's thread
            self._error = exc

    def wait(self) -> float:
        """Wait until the server has stopped; the seconds waited (raises what the stop did)."""
        started = time.perf_counter()
        self._thread.join()
        if self._error is not None:
            raise self._error
        return time.perf_counter() - started

    def restart(self) -> None:
        """Start the server again on its ports (else free ones) once the stop has ended (a
        no-op if the stop failed and it still runs); the mark goes in any case. Returns once
        Bolt answers: :meth:`await_started` waits for the rest."""
        try:
            self._thread.join()
            user_log = self.paths.logs_dir / "neo4j.log"
            offset = user_log.stat().st_size if user_log.exists() else 0
            if _restart(self.state, self.paths, self.info):
                self._log_offset = offset
        finally:
            self.restarted = True
            self.paths.bulk_mark.unlink(missing_ok=True)

    def await_started(self) -> None:
        """After :meth:`restart`: wait until the server it launched logged "Started." (a
        no-op when it launched none, or ``start`` waited for that itself)."""
        if self._log_offset is not None:
            await_started(self.paths, self._log_offset)
            self._log_offset = None


def _restart(state: Path, paths: ServerPaths, info: dict) -> bool:
    """Start the server again on the ports it had (else on free ones, as ``start``). True
    when started on its ports: then it returns once Bolt answers, and the web server may
    still be starting (:func:`await_started`)."""
    bolt, http = info.get("bolt_port"), info.get("http_port")
    if bolt and http and port_free(bolt) and port_free(http):
        if _launch(find_java(), install(), paths, bolt, http, time.monotonic() + START_TIMEOUT,
                   bolt_only=True):
            return True
    start(state)
    return False


def await_started(paths: ServerPaths, offset: int, timeout: float = START_TIMEOUT) -> None:
    """Wait until the server started after byte ``offset`` of its log has logged "Started."
    (its web server too is up); a ServerError if it ended meanwhile (its HTTP port taken,
    say) or did not get there in time."""
    user_log = paths.logs_dir / "neo4j.log"
    deadline = time.monotonic() + timeout
    while "Started." not in _since(user_log, offset):
        pid = (_read_info(paths) or {}).get("pid")
        if not (pid and _alive(pid)):
            raise ServerError(f"Neo4j ended while starting; see {paths.logs_dir}:\n"
                              f"{_tail(paths)}")
        if time.monotonic() > deadline:
            raise ServerError(f"Neo4j did not finish starting within the time allowed "
                              f"(LINEAGE_NEO4J_START_TIMEOUT):\n{_tail(paths)}")
        time.sleep(0.05)


def build_class_archive(force: bool = False) -> Path:
    """Build the archive for the managed server (no-op when it exists, unless ``force``):
    start a throwaway server recording the classes it loads, stop it, dump the archive.

    >>> build_class_archive()  # doctest: +SKIP
    PosixPath('/home/me/.cache/lineage-explorer/neo4j-5.26.30/class-archive/java-....jsa')
    """
    java, lib = find_java(), install()
    archive = class_archive.archive_path(java, lib)
    if archive.is_file() and not force:
        return archive
    archive.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="build-", dir=archive.parent))
    try:
        class_list = work / "classes.lst"
        try:
            with class_archive.recording(class_list):
                start(work / "state")
        finally:
            stop(work / "state")
        usable = work / "classes-usable.lst"
        with open(class_list, encoding="utf-8", errors="replace") as src, \
                open(usable, "w", encoding="utf-8") as out:
            out.writelines(line for line in src if len(line) < class_archive.MAX_LINE)
        partial = work / "archive.jsa"
        proc = subprocess.run(
            [java, "-Xshare:dump", f"-XX:SharedClassListFile={usable}",
             f"-XX:SharedArchiveFile={partial}", "-cp", f"{lib}/*"],
            capture_output=True, text=True, umask=0o077, check=False)
        if proc.returncode != 0 or not partial.is_file():
            raise ServerError("java -Xshare:dump could not build the class archive:\n"
                              + (proc.stdout + proc.stderr)[-2000:])
        os.replace(partial, archive)  # whole or not at all: a start never maps half a file
        return archive
    finally:
        shutil.rmtree(work, ignore_errors=True)


def control(action: str = "status", demo: bool = False) -> dict:
    """Start, stop or describe the managed local Neo4j (``action``: start, stop, status) and
    return its status; ``demo``: the demo's own server. :func:`lineage.api.managed_server` is
    this; the CLI calls it here, which does not load the driver.

    >>> control("restart")
    Traceback (most recent call last):
    ...
    ValueError: action 'restart': expected start, stop or status
    """
    actions = {"start": start, "stop": stop, "status": status}
    if action not in actions:
        raise ValueError(f"action {action!r}: expected start, stop or status")
    return actions[action](demo_state_dir() if demo else None)
