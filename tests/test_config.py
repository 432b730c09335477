"""The profile file beside the environment variables, and `lineage config show`."""

import json
import os
import re
from pathlib import Path

import pytest

from lineage.config.profile import ConfigError
from lineage.config.settings import Settings

from .conftest import run_cli as run



@pytest.fixture
def home(tmp_path):
    """A home with a profile file (defaults, a connection, two profiles) and a private
    password file."""
    secret = tmp_path / "db.password"
    secret.write_text("file-s3cret-pw\n")
    secret.chmod(0o600)
    cfg = tmp_path / ".config" / "lineage-explorer"
    cfg.mkdir(parents=True)
    (cfg / "config.toml").write_text(f'''
[connection]
uri = "bolt://db.example.org:7687"
user = "alice"
password_file = "{secret}"

[defaults]
report_max_nodes = 77
format = "csv"

[profiles.strict.defaults]
lenient = false
xalt_env = "none"

[profiles.loose.defaults]
lenient = true
report_max_nodes = 12
''')
    return tmp_path


def test_file_then_environment_then_profile(home):
    env = {"HOME": str(home)}
    s = Settings.from_env(env)
    assert (s.neo4j_uri, s.neo4j_user, s.neo4j_password) == (
        "bolt://db.example.org:7687", "alice", "file-s3cret-pw")
    assert (s.report_max_nodes, s.default_format, s.load.lenient) == (77, "csv", False)
    assert s.config_file == str(home / ".config" / "lineage-explorer" / "config.toml")
    assert s.origins["report_max_nodes"] == s.config_file
    # the environment overrides the file
    s = Settings.from_env({**env, "LINEAGE_REPORT_MAX_NODES": "5", "LINEAGE_FORMAT": "json",
                           "NEO4J_USERNAME": "bob"})
    assert (s.report_max_nodes, s.default_format, s.neo4j_user) == (5, "json", "bob")
    assert s.origins["report_max_nodes"] == "$LINEAGE_REPORT_MAX_NODES"
    # a profile overlays the file's sections; the environment still wins
    s = Settings.from_env({**env, "LINEAGE_PROFILE": "loose"})
    assert (s.load.lenient, s.report_max_nodes, s.default_format) == (True, 12, "csv")
    assert s.origins["lenient"].endswith("[profile loose]")
    s = Settings.from_env(env, profile="strict")
    assert (s.load.lenient, s.load.xalt_env, s.report_max_nodes) == (False, "none", 77)


def test_the_files_login_never_goes_to_another_server(home):
    s = Settings.from_env({"HOME": str(home), "NEO4J_URI": "bolt://other:7687"})
    assert s.neo4j_uri == "bolt://other:7687"
    assert (s.neo4j_user, s.neo4j_password) == ("neo4j", "")
    s = Settings.from_env({"HOME": str(home), "NEO4J_URI": "bolt://db.example.org:7687"})
    assert s.neo4j_password == "file-s3cret-pw"  # the same server: the file's login holds


def test_xdg_and_lineage_config_pick_the_file(home, tmp_path):
    moved = tmp_path / "elsewhere.toml"
    moved.write_text("[defaults]\nreport_max_rows = 9\n")
    assert Settings.from_env({"HOME": str(home), "LINEAGE_CONFIG": str(moved)}).report_max_rows == 9
    xdg = tmp_path / "xdg" / "lineage-explorer"
    xdg.mkdir(parents=True)
    (xdg / "config.toml").write_text("[defaults]\nreport_max_rows = 8\n")
    s = Settings.from_env({"HOME": str(home), "XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    assert s.report_max_rows == 8 and s.neo4j_uri is None
    assert Settings.from_env({"HOME": str(tmp_path / "nobody")}).config_file is None


@pytest.mark.parametrize("text,message", [
    ('[connection]\npassword = "x"\n', "passwords do not go into the profile file"),
    ('[defaults]\nreport_max_nodes = "many"\n', "expected a positive whole number"),
    ('[defaults]\nformat = "xml"\n', "expected one of table, json, csv"),
    ('[defaults]\nlenient = "yes"\n', "expected bool"),
    ('[defaults]\nreport_max_node = 5\n', "unknown key defaults.report_max_node"),
    ('[conection]\nuri = "bolt://x"\n', "unknown section conection"),
    ('[connection\n', "not valid TOML"),
    ('[connection]\npassword_file = "missing.pw"\n', "password_file"),
])
def test_mistakes_in_the_file_are_named(tmp_path, text, message):
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as caught:
        Settings.from_env({"LINEAGE_CONFIG": str(path)})
    assert str(path) in str(caught.value)


def test_unknown_profile_and_missing_file(home, tmp_path):
    with pytest.raises(ConfigError, match=r"no profile 'nope' \(profiles: loose, strict\)"):
        Settings.from_env({"HOME": str(home)}, profile="nope")
    with pytest.raises(ConfigError, match="no such profile file"):
        Settings.from_env({"LINEAGE_CONFIG": str(tmp_path / "absent.toml")})
    with pytest.raises(ConfigError, match="there is no profile file"):
        Settings.from_env({"HOME": str(tmp_path / "nobody")}, profile="laptop")


def test_config_show_says_where_each_value_came_from_and_masks_secrets(home):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("NEO4J_", "LINEAGE_", "XDG_CONFIG"))}
    env.update(HOME=str(home), LINEAGE_REPORT_MAX_ROWS="33")
    shown = json.loads(run(env, "--profile", "loose", "config", "show", "--format",
                           "json").stdout)
    rows = {r["setting"]: r for r in shown["settings"]}
    assert shown["profile"] == "loose" and shown["config_file"].endswith("config.toml")
    assert rows["neo4j_password"]["value"] == "***"
    assert "password_file" in rows["neo4j_password"]["source"]
    assert rows["report_max_rows"] == {"setting": "report_max_rows", "value": 33,
                                       "source": "$LINEAGE_REPORT_MAX_ROWS"}
    assert rows["report_max_nodes"]["value"] == 12
    assert rows["report_max_nodes"]["source"].endswith("[profile loose]")
    assert rows["neo4j_database"] == {"setting": "neo4j_database", "value": None,
                                      "source": "default"}
    # the profile's default format applies when no --format is given; the option wins
    text = run(env, "config", "show").stdout
    assert text.splitlines()[0] == "setting,value,source"
    assert "file-s3cret-pw" not in text + json.dumps(shown)
    assert run(env, "config", "show", "--format", "table").stdout.startswith("profile file: ")
    bad = run(env, "--profile", "nope", "config", "show", check=False)
    assert bad.returncode == 2 and "no profile 'nope'" in bad.stderr


def test_a_password_file_others_can_read_is_warned_about(home):
    (home / "db.password").chmod(0o644)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "LINEAGE_"))}
    env.update(HOME=str(home))
    env.pop("XDG_CONFIG_HOME", None)
    proc = run(env, "config", "show")
    assert "can be read by other users (mode 644): chmod 600" in proc.stderr
    assert "can be read" not in run(env, "-q", "config", "show").stderr  # -q: errors only


def test_log_lines_mask_registered_secrets_and_url_passwords():
    import io
    import logging

    from lineage.config import logs

    out = io.StringIO()
    handler = logs.setup(1, out)
    try:
        logs.SECRETS.add("Very-S3cret")
        log = logging.getLogger("lineage.test")
        log.info("login with %s to %s", "Very-S3cret", "bolt://bob:hunter2@db:7687")
        try:
            raise RuntimeError("refused: Very-S3cret")
        except RuntimeError:
            log.exception("failed")
        log.debug("not shown at -v")
        text = out.getvalue()
        assert "Very-S3cret" not in text and "hunter2" not in text
        assert "lineage: INFO lineage.test: login with *** to bolt://bob:***@db:7687" in text
        assert "RuntimeError: refused: ***" in text and "not shown" not in text
    finally:
        for name in ("lineage", "neo4j"):
            logging.getLogger(name).removeHandler(handler)
        logs.SECRETS.secrets.discard("Very-S3cret")


THRESHOLDS = {"LINEAGE_READER_PROCESS_BYTES": "reader_process_bytes",
              "LINEAGE_OVERLAP_BYTES": "overlap_bytes"}


@pytest.mark.parametrize("var", THRESHOLDS)
@pytest.mark.parametrize("text, expected", [("off", None), ("never", None), ("0", 0),
                                            ("1048576", 1 << 20), ("", 16 << 20)])
def test_the_size_thresholds(tmp_path, var, text, expected):
    env = {var: text, "XDG_CONFIG_HOME": str(tmp_path)}
    load = Settings.from_env(env).load
    assert getattr(load, THRESHOLDS[var]) == expected
    other = next(name for v, name in THRESHOLDS.items() if v != var)
    assert getattr(load, other) == 16 << 20  # each variable sets its own threshold


@pytest.mark.parametrize("var", THRESHOLDS)
@pytest.mark.parametrize("text", ["-1", "16M", "1.5"])
def test_a_size_threshold_that_is_no_size_is_refused(tmp_path, var, text):
    env = {var: text, "XDG_CONFIG_HOME": str(tmp_path)}
    with pytest.raises(ValueError, match=rf"{var}="):
        Settings.from_env(env)


@pytest.mark.parametrize("text, expected", [("off", None), ("1000", 1000), ("", 2_000_000),
                                            ("5000000", 5_000_000)])
def test_the_bulk_fold_budget(tmp_path, text, expected):
    env = {"LINEAGE_BULK_FOLD_ELEMENTS": text, "XDG_CONFIG_HOME": str(tmp_path)}
    assert Settings.from_env(env).load.bulk_fold_elements == expected


@pytest.mark.parametrize("text", ["999", "-1", "2M", "1.5"])
def test_a_bulk_fold_budget_that_is_no_count_is_refused(tmp_path, text):
    env = {"LINEAGE_BULK_FOLD_ELEMENTS": text, "XDG_CONFIG_HOME": str(tmp_path)}
    with pytest.raises(ValueError, match=r"LINEAGE_BULK_FOLD_ELEMENTS=.*at least 1000"):
        Settings.from_env(env)


def test_every_environment_variable_read_is_in_the_configuration_pages_table():
    """docs/configuration.md's "Environment variables" table lists every LINEAGE_* / NEO4J_*
    name the package, the setup script and the tests read."""
    repo = Path(__file__).resolve().parents[1]
    sources = [*repo.glob("lineage/**/*.py"), repo / "scripts" / "setup.sh",
               *repo.glob("tests/**/*.py")]
    read = set()
    for path in sources:  # quoted names, and the shell's ${NAME
        read |= set(re.findall(r"""(?:["']|\$\{)((?:LINEAGE|NEO4J)_[A-Z0-9_]+)["'}:]""",
                               path.read_text()))
    read.discard("LINEAGE_RELS")  # a name in lineage.model's __all__, not a variable
    page = (repo / "docs" / "configuration.md").read_text()
    table = page[page.index("## Environment variables"):page.index("## Logging")]
    assert len(read) >= 20, sorted(read)
    assert sorted(name for name in read if f"`{name}`" not in table) == []
