"""The command line starts without the driver's optional dataframe libraries (numpy, pandas,
pyarrow: about 0.25 s of imports when installed, as they are in the test environment), while a
notebook importing lineage keeps the driver as it is. Timing is measured in the README
(bench: `lineage --help` before and after), never asserted here."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pandas = pytest.importorskip("pandas")  # the test extra installs it: the case being tested

PROBE = """
import json, sys
import lineage.cli
loaded = {name: name in sys.modules for name in ("numpy", "pandas", "pyarrow")}
import lineage
api_ok = callable(lineage.connect) and lineage.Rows.__name__ == "Rows"
import pandas  # still importable afterwards
print(json.dumps({"loaded": loaded, "api_ok": api_ok, "pandas_after": bool(pandas.__version__)}))
"""


def test_the_cli_loads_the_driver_without_dataframe_libraries():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         check=True)
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
