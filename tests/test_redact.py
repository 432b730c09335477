"""Database URL passwords never reach messages, the graph or the terminal."""

import json

import pytest

from lineage.errors import LineageError
from lineage.redact import redact_url
from lineage.sources.swift import db as swift_db

SECRETS = ["s3cr/et@x y", "hunter2", "tok3n"]


@pytest.mark.parametrize("url", [
    "postgresql://bob:s3cr/et@x y@127.0.0.1:9/provdb",
    "postgresql://bob@127.0.0.1:9/provdb?password=hunter2&sslmode=disable",
    "postgres://127.0.0.1:9/provdb?sslmode=disable&access_token=tok3n",
])
def test_urls_are_redacted(url):
    shown = redact_url(url)
    assert not any(secret in shown for secret in SECRETS)
    assert "127.0.0.1:9/provdb" in shown


def test_a_failed_connection_does_not_print_the_password():
    url = "postgresql://bob:hunter2@127.0.0.1:9/provdb?connect_timeout=1"
    with pytest.raises(LineageError) as err:
        list(swift_db.read_db(url, None))
    assert "hunter2" not in str(err.value) and "127.0.0.1" in str(err.value)


@pytest.mark.parametrize("uri", ["bolt://neo4j:hunter2@127.0.0.1:9", "http://127.0.0.1:9"])
def test_a_bad_neo4j_uri_is_one_clear_line_without_the_password(uri):
    import os
    import subprocess
    import sys

    env = dict(os.environ, NEO4J_URI=uri, CI="true")
    proc = subprocess.run([sys.executable, "-m", "lineage", "stats"], capture_output=True,
                          text=True, env=env, timeout=120)
    assert proc.returncode == 1
    assert "hunter2" not in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.startswith("error: NEO4J_URI")


def test_xalt_filtered_environment_keeps_no_common_secret():
    from lineage.sources.xalt.mapping import filter_env

    env = {
        "PROXY": "http://bob:p@ss@proxy:3128",
        "MIRROR": "ftp://u:a/b c@mirror.example.org/pub",
        "DB": "bob:hunter2@db.example.org",
        "SSHPASS": "sshsecret", "MYSQL_PWD": "mysqlsecret",
        "CALLBACK": "https://x.org/cb?user=1&access_token=t0k3n",
        "PWD": "/home/bob", "PATH": "/usr/bin:/bin", "EMAIL": "bob@example.org",
    }
    kept, redacted = filter_env(env, "filtered")
    text = json.dumps(kept)
    for secret in ("p@ss", "ss@proxy", "a/b c", "hunter2", "sshsecret", "mysqlsecret", "t0k3n"):
        assert secret not in text, secret
    assert kept["PWD"] == "/home/bob" and kept["PATH"] == "/usr/bin:/bin"
    assert kept["EMAIL"] == "bob@example.org" and redacted == 6


# ------------------------------------------------------------------ every error path
SECRET = "S3cr3tZq"


@pytest.mark.parametrize("source", ["auto", "pegasus", "swift"])
@pytest.mark.parametrize("url", [
    f"postgresql://alice@127.0.0.1:9/provdb?password={SECRET}&connect_timeout=2",
    f"postgresql://alice:{SECRET}@127.0.0.1:9/provdb?connect_timeout=2",
    f"postgresql://alice:{SECRET}@127.0.0.1:9,127.0.0.1:10/provdb?connect_timeout=2",
])
def test_a_database_url_that_fails_is_one_clear_line_without_its_password(cli_env, url, source):
    """Refused connections, libpq multi-host URLs (which SQLAlchemy cannot parse: a
    traceback before), the query's ``password=``: no password, no traceback, exit 1."""
    from .conftest import run_cli

    proc = run_cli(cli_env, "load", "--source", source, url, check=False)
    shown = proc.stdout + proc.stderr
    assert SECRET not in shown and "Traceback" not in shown, shown
    assert proc.returncode == 1 and proc.stderr.startswith("error: "), shown
    if "," in url and source != "swift":  # libpq reads it; SQLAlchemy cannot, and says so
        assert "multi-host URL" in proc.stderr


def test_no_load_record_keeps_a_secret_an_input_quotes(lin, tmp_path):
    """A malformed line quoting a URL with its password: the error (strict) and the warnings
    (lenient) stored on :Load, and the message, are without it."""
    line = f"ts=1 event=stampede.wf.plan argv=postgresql://u:{SECRET}@db/x token={SECRET}2 'open"
    path = tmp_path / "quoting.bp"
    path.write_text(line + "\n")
    with pytest.raises(LineageError) as strict:
        lin.load([path])
    assert SECRET not in str(strict.value) and "postgresql://u:***@db/x" in str(strict.value)
    [lenient] = lin.load([path], lenient=True)
    assert SECRET not in json.dumps(lenient.as_dict())
    rows = lin.query("MATCH (l:Load) RETURN properties(l) AS p")
    stored = json.dumps([r["p"] for r in rows])
    assert "quoting.bp" in stored and "postgresql://u:***@db/x" in stored
    assert SECRET not in stored
