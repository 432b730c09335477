#!/usr/bin/env bash
# Set up a fresh machine for lineage-explorer (idempotent; safe to run again).
#  1. system packages it needs and does not find: Java 17 (Neo4j 5.26 runs on 17 or 21),
#     Maven (fetches the pinned Neo4j jars from Maven Central), and for the test suite
#     Chromium (report/browser tests) and PostgreSQL (Swift provenance database tests);
#  2. a virtualenv in .venv with the package (editable) and its test dependencies; the
#     package's one C part (NetLogger lines, optional for users, hatch_build.py) is compiled
#     then, so the test suite needs a C compiler and Python's headers;
#  3. the Neo4j server jars, resolved once into ~/.cache/lineage-explorer, and a class-data-
#     sharing archive of them (lineage/server/class_archive.py: faster server starts);
#  4. for the test suite, .venv-oracle with pegasus-wms (Pegasus's own Stampede loader,
#     pegasus-statistics and pegasus-analyzer code, the oracle of tests/test_pegasus_oracle.py);
#     its own virtualenv because pegasus-wms pins SQLAlchemy 1.3 and lineage needs 2.x; and
#     the RO-Crate 1.1 JSON-LD context (scripts/rocrate_context.py), so the tests run the
#     RO-Crate validator with no network.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
have_java17() {
  for j in "${LINEAGE_JAVA:-}" "${JAVA_HOME:-/nonexistent}/bin/java" /usr/lib/jvm/*{17,21}*/bin/java "$(command -v java || true)"; do
    [ -n "$j" ] && [ -x "$j" ] && "$j" -version 2>&1 | grep -qE 'version "(17|21)[."]' && return 0
  done
  return 1
}
have_java17 || need+=(openjdk-17-jre-headless)
command -v mvn >/dev/null || need+=(maven)
if [ "${LINEAGE_SETUP_TEST_TOOLS:-1}" = 1 ]; then
  command -v chromium >/dev/null || need+=(chromium)
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
  # the compiled NetLogger reader (lineage/sources/pegasus/_netlogger_c.c), tested both ways
  command -v cc >/dev/null || command -v gcc >/dev/null || need+=(gcc)
  python3 -c 'import os, sys, sysconfig
sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
    || need+=(python3-dev)
fi
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing ${need[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    echo "setup: installing ${need[*]}" >&2
    sudo DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  else
    echo "setup: please install: ${need[*]} (Debian/Ubuntu package names), or load them" >&2
    echo "       as modules; set LINEAGE_JAVA / LINEAGE_MVN if they are not on PATH." >&2
    exit 1
  fi
fi

python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e '.[test]'
.venv/bin/python -c 'from lineage.sources.pegasus import netlogger; assert netlogger.COMPILED' \
  && echo "setup: NetLogger reader compiled" \
  || echo "setup: NetLogger reader not compiled (no C compiler?): pure Python, slower" >&2
.venv/bin/python -c 'from lineage import server; print("setup: Neo4j jars in", server.install())'
# the server's classes in one class-data-sharing archive (once: ~45 s, 140 MB next to the
# jars): every later start of the managed server is ~1.5x faster; without it, starts as before
.venv/bin/python -m lineage.server class-archive >/dev/null && echo "setup: class archive built" \
  || echo "setup: no class archive (the server starts without it, slower)" >&2
if [ "${LINEAGE_SETUP_TEST_TOOLS:-1}" = 1 ]; then
  # the RO-Crate 1.1 JSON-LD context, for roc-validator with no network (once, from PyPI)
  .venv/bin/python scripts/rocrate_context.py >/dev/null && echo "setup: RO-Crate context kept"
  python3 -m venv .venv-oracle
  .venv-oracle/bin/python -m pip install -q --upgrade pip >/dev/null
  .venv-oracle/bin/python -m pip install -q 'pegasus-wms==5.1.3'
fi
