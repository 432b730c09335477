"""Hatchling build hook: compiles the package's one optional C extension.

``lineage/sources/pegasus/_netlogger_c.c`` (NetLogger BP lines, 2-3x the pure-Python reader)
is compiled by setuptools' ``build_ext`` (the compiler and flags Python itself was built
with). Without a C compiler or Python's headers the build warns and the package stays pure
Python: ``netlogger.COMPILED`` is then False and every line is read by the Python code.
Editable installs compile in place (the ``.so`` beside the ``.c``, ignored by git);
a regular wheel carries the built file. The build is always made afresh and carries the
SHA-256 of the source it was made from (``SOURCE_SHA256``): netlogger.py does not use a
build of another version of the ``.c`` (say, one left in place before a ``git checkout``).

    .venv/bin/python -m pip install -e .   # runs this hook
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

EXTENSION = "lineage.sources.pegasus._netlogger_c"
SOURCE = "lineage/sources/pegasus/_netlogger_c.c"


@contextmanager
def _inside(directory: str):
    before = os.getcwd()
    os.chdir(directory)
    try:
        yield
    finally:
        os.chdir(before)


def compile_extension(root: str, into: str | None) -> Path:
    """Build the extension; in place (``into`` None) or under ``into``. Returns the file."""
    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext

    digest = hashlib.sha256(Path(root, SOURCE).read_bytes()).hexdigest()
    with _inside(root):
        dist = Distribution({"name": "lineage-explorer", "ext_modules": [
            Extension(EXTENSION, [SOURCE], extra_compile_args=["-O2"],
                      define_macros=[("LINEAGE_SOURCE_SHA256", f'"{digest}"')])]})
        command = build_ext(dist)
        command.inplace = into is None
        command.force = True  # a build newer than the source may still be of another one
        if into is not None:
            command.build_lib = into
            command.build_temp = os.path.join(into, "temp")
        command.ensure_finalized()
        command.run()
        return Path(root, command.get_ext_fullpath(EXTENSION)).resolve()


class CompiledParts(BuildHookInterface):
    PLUGIN_NAME = "custom"

    _scratch: str | None = None

    def initialize(self, version: str, build_data: dict) -> None:
        if self.target_name != "wheel":
            return
        editable = version == "editable"
        into = None if editable else tempfile.mkdtemp(prefix="lineage-build-")
        self._scratch = into
        try:
            built = compile_extension(self.root, into)
        except Exception as exc:  # no compiler, no headers: the pure-Python reader serves
            message = (f"lineage: {SOURCE} not compiled ({type(exc).__name__}: {exc}); "
                       f"NetLogger lines will be read in pure Python")
            print(message, file=sys.stderr)
            return
        if not editable:
            build_data["force_include"][str(built)] = (
                str(Path(*EXTENSION.split(".")[:-1], built.name)))
        build_data["pure_python"] = False
        build_data["infer_tag"] = True

    def finalize(self, version: str, build_data: dict, artifact_path: str) -> None:
        if self._scratch is not None:  # the wheel holds its copy of the built file now
            shutil.rmtree(self._scratch, ignore_errors=True)
