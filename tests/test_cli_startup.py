"""The command line starts without the driver's optional dataframe libraries (numpy, pandas,
pyarrow: about 0.25 s of imports when installed, as they are in the test environment), while a
notebook importing lineage keeps the driver as it is. Timing is measured in docs/performance.md
(bench/bench_cli_startup.py), never asserted here."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pandas = pytest.importorskip("pandas")  # the test extra installs it: the case being tested

PROBE = """
import json, sys
from lineage.cli import main
try:  # a command that needs the driver (the server at NEO4J_URI does not answer: exit 4)
    main(["query", "RETURN 1"], standalone_mode=False)
except SystemExit as exc:
    assert exc.code == 4, exc.code
assert "neo4j" in sys.modules
loaded = {name: name in sys.modules for name in ("numpy", "pandas", "pyarrow")}
import lineage
api_ok = callable(lineage.connect) and lineage.Rows.__name__ == "Rows"
import pandas  # still importable afterwards
print(json.dumps({"loaded": loaded, "api_ok": api_ok, "pandas_after": bool(pandas.__version__)}))
"""


def _closed_port_env(tmp_path) -> dict:
    """An environment whose Neo4j is a loopback port nothing listens on."""
    import os
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    (tmp_path / "empty.toml").write_text("")
    return {**os.environ, "NEO4J_URI": f"bolt://127.0.0.1:{port}", "NEO4J_USERNAME": "neo4j",
            "NEO4J_PASSWORD": "unused", "LINEAGE_CONFIG": str(tmp_path / "empty.toml"),
            "LINEAGE_HOME": str(tmp_path / "home")}


def test_the_cli_loads_the_driver_without_dataframe_libraries(tmp_path):
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         check=True, env=_closed_port_env(tmp_path))
    result = json.loads(out.stdout)
    assert result == {"loaded": {"numpy": False, "pandas": False, "pyarrow": False},
                      "api_ok": True, "pandas_after": True}


def test_a_notebook_import_keeps_the_driver_as_it_is():
    probe = ("import sys, lineage; lineage.connect; "
             "from neo4j import _optional_deps as d; print(d.pd is not None)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "True"


def test_unknown_attributes_of_the_package_are_attribute_errors():
    import lineage

    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        lineage.nope  # noqa: B018


NO_DRIVER_PROBE = """
import json, sys
from lineage.cli import main
try:
    main(sys.argv[1:], standalone_mode=False)
except SystemExit as exc:
    assert exc.code in (0, None), exc.code
print(json.dumps(sorted(m for m in sys.modules if m == "neo4j" or m.startswith("neo4j."))))
"""


@pytest.mark.parametrize("argv", [["--help"], ["query", "--help"], ["cypher", "list"],
                                  ["cypher", "show", "ancestors", "--header-examples"],
                                  ["config", "show"], ["neo4j", "status"]])
def test_commands_that_never_reach_neo4j_do_not_load_the_driver(argv, tmp_path):
    """The driver's import is most of a command's start-up (docs/performance.md)."""
    out = subprocess.run([sys.executable, "-c", NO_DRIVER_PROBE, *argv], capture_output=True,
                         text=True, env=_closed_port_env(tmp_path))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
