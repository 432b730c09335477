"""The XALT templates (cypher/xalt/) on the shared samples plus runs derived from them."""

import json

import pytest

from lineage.query import templates

from .xalt_helpers import (BUILD_UUID, EXE_SHA1, LINK_RT, LINK_S2, sample_run, signed,
                           zzz_from_aaa)
from .corpus import needs_corpus

SOLVER_SHA1 = "c0ffee0000000000000000000000000000000001"
LIBMPI_SHA1 = "d17d961680e09bc8efeefd7dbc0abb2f07709303"  # libmpi.so.12 (run) = libmpi.so.12.0 (link)
LIBM = ["/usr/lib64/libm.so.6", "1030f25880be0ee9dccff98d2a83c445d24b7de9"]
LIBC = ["/usr/lib64/libc.so.6", "fea1ce7a573e6052deb26df6a50f77f8a26b83f0"]
HELLO_RUNS = {"A": ("mclay", 1, 7200.0), "B": ("alice", 4, 1800.0)}
SOLVER_RUNS = {"C": ("bob", 16, 3600.0), "D": ("bob", 16, None), "E": ("bob", 2, 900.0)}


def uuid_of(letter):
    return f"{letter * 8}-0000-4000-8000-000000000000"


def make_run(letter, user, cores, run_time, solver=False):
    rec = sample_run()
    rec["userT"].update(run_uuid=uuid_of(letter), user=user)
    rec["userDT"]["num_cores"] = float(cores)
    if solver:
        rec["hash_id"] = SOLVER_SHA1
        rec["userT"]["exec_path"] = "/home/bob/solver"
        rec["cmdlineA"] = ["/home/bob/solver", "-n", "8"]
        rec["libA"] = [LIBM, LIBC]
        rec["envT"]["LOADEDMODULES"] = "gcc/9.1:openmpi/4.0"
        rec["xaltLinkT"] = {"Build_UUID": "solver-build-0001", "Build_compiler": "gcc",
                            "Build_compilerPath": "/usr/bin/gcc", "Build_User": "bob",
                            "Build_Syshost": "stampede2", "Build_Epoch": "1498000000.0",
                            "Build_LOADEDMODULES": "gcc/9.1:openmpi/4.0"}
    return zzz_from_aaa(rec, run_time) if run_time else rec


@pytest.fixture
def usage(lin, tmp_path):
    """Two runs of the sample executable, three of a solver (one never ended), packages."""
    for letter, (user, cores, run_time) in HELLO_RUNS.items():
        f = tmp_path / f"run.stampede2.2017_06_29.{user}.zzz.{uuid_of(letter)}.json"
        f.write_text(signed(make_run(letter, user, cores, run_time)))
    for letter, (user, cores, run_time) in SOLVER_RUNS.items():
        end = "zzz" if run_time else "aaa"
        f = tmp_path / f"run.stampede2.2017_06_30.{user}.{end}.{uuid_of(letter)}.json"
        f.write_text(signed(make_run(letter, user, cores, run_time, solver=True)))
    for n, (letter, name, version) in enumerate([("C", "numpy", "1.26.4"), ("D", "numpy", "1.26.4"),
                                                 ("E", "numpy", "1.26.4"), ("C", "scipy", "1.11")]):
        pkg = {"program": "python", "xalt_run_uuid": uuid_of(letter), "package_name": name,
               "package_version": version, "package_path": f"/opt/py/site-packages/{name}"}
        (tmp_path / f"pkg.stampede2.2017_06_30.bob.{uuid_of(letter)}.{n:012d}.json").write_text(
            signed(pkg))
    (tmp_path / LINK_S2.name).write_bytes(LINK_S2.read_bytes())
    (tmp_path / LINK_RT.name).write_bytes(LINK_RT.read_bytes())
    results = lin.load([tmp_path])
    assert all(r.status == "loaded" and r.write.unresolved_edges == 0 for r in results)
    return lin


def test_every_xalt_template_has_a_header():
    names = {t.name for t in templates.all_templates()}
    assert {"xalt/top_executables", "xalt/library_users", "xalt/build_of", "xalt/compiler_usage",
            "xalt/module_usage", "xalt/package_usage"} <= names


@needs_corpus
def test_top_executables_by_runs_users_and_core_hours(usage):
    by_runs = usage.query("xalt/top_executables")
    assert [(r["sha1"], r["runs"], r["users"]) for r in by_runs] == [
        (SOLVER_SHA1, 3, 1), (EXE_SHA1, 2, 2)]
    hello_ch = sum(c * t for _, c, t in HELLO_RUNS.values()) / 3600
    solver_ch = sum(c * (t or 0) for _, c, t in SOLVER_RUNS.values()) / 3600
    assert by_runs[1]["core_hours"] == pytest.approx(hello_ch)  # 2 + 2
    assert by_runs[0]["core_hours"] == pytest.approx(solver_ch)  # 16 + 0 + 0.5
    assert [r["sha1"] for r in usage.query("xalt/top_executables", order_by="users")] == [
        EXE_SHA1, SOLVER_SHA1]
    top = usage.query("xalt/top_executables", order_by="core_hours", limit=1)
    assert [r["sha1"] for r in top] == [SOLVER_SHA1]
    assert usage.query("xalt/top_executables", syshost="frontera") == []


@needs_corpus
def test_library_users_by_stem_sha1_and_path(usage):
    hello_runs = {f"xalt:run:{uuid_of(x)}" for x in HELLO_RUNS}
    all_runs = hello_runs | {f"xalt:run:{uuid_of(x)}" for x in SOLVER_RUNS}
    rows = usage.query("xalt/library_users", library="libmpi")
    assert {r["run"] for r in rows} == hello_runs | {None}
    # rt_end2end's "hello .mpi.01" linked libmpi.so.12.1.8 but XALT never saw it run
    [never_ran] = [r for r in rows if r["run"] is None]
    assert never_ran["executable_path"].endswith("/hello .mpi.01") and never_ran["how"] == "linked"
    rows = [r for r in rows if r["run"] is not None]
    assert {(r["how"], r["library_path"].rsplit("/", 1)[-1]) for r in rows} == {
        ("loaded", "libmpi.so.12"), ("linked", "libmpi.so.12.0")}  # not libmpifort
    assert {r["executable"] for r in rows} == {f"xalt:executable:{EXE_SHA1}"}
    by_sha1 = usage.query("xalt/library_users", library=LIBMPI_SHA1)
    assert {(r["how"], r["run"]) for r in by_sha1} == {(h, r) for h in ("loaded", "linked")
                                                       for r in hello_runs}
    # libm: loaded by every run; its content (libm-2.17.so) was linked into hello
    libm = usage.query("xalt/library_users", library=LIBM[0])
    assert {r["run"] for r in libm if r["how"] == "loaded"} == all_runs
    assert {r["run"] for r in libm if r["how"] == "linked"} == hello_runs
    # the stem drops the version: libc finds libc.so.6 (loaded) and libc-2.17.so (linked)
    libc = usage.query("xalt/library_users", library="libc")
    assert {r["library_path"].rsplit("/", 1)[-1] for r in libc} >= {"libc.so.6", "libc-2.17.so"}
    assert usage.query("xalt/library_users", library="libnothere") == []


@needs_corpus
def test_build_of_an_executable(usage):
    link = json.loads(LINK_S2.read_text())
    [row] = usage.query("xalt/build_of", executable=EXE_SHA1)
    assert row["build"] == f"xalt:build:{BUILD_UUID}" and row["compiler"] == "icc"
    assert row["link_line"] == link["link_line"] and row["build_user"] == "mclay"
    assert row["linked_count"] == len(link["linkA"])
    assert {x["path"] for x in row["linked"]} == {p for p, _ in link["linkA"]}
    assert {x["path"] for x in row["linked"] if x["kind"] == "ObjectFile"} == {
        p for p, _ in link["linkA"] if p.endswith(".o")}
    assert "intel/17.0.4" in row["build_modules"]
    [solver] = usage.query("xalt/build_of", executable="/home/bob/solver")
    assert solver["compiler"] == "gcc" and solver["linked_count"] == 0
    assert solver["link_line"] is None
    assert usage.query("xalt/build_of", executable="nope") == []


@needs_corpus
def test_compiler_usage(usage):
    rows = {r["compiler"]: r for r in usage.query("xalt/compiler_usage")}
    assert set(rows) == {"icc", "gcc"}
    assert (rows["icc"]["builds"], rows["icc"]["executables"], rows["icc"]["runs"],
            rows["icc"]["run_users"]) == (1, 1, 2, 2)
    # gcc: the solver's build (from its runs' watermark) and the rt_end2end link record
    assert (rows["gcc"]["builds"], rows["gcc"]["executables"], rows["gcc"]["runs"]) == (2, 2, 3)
    assert [r["compiler"] for r in usage.query("xalt/compiler_usage", compiler="icc")] == ["icc"]


@needs_corpus
def test_module_usage(usage):
    rows = usage.query("xalt/module_usage")
    top = {r["module"]: r for r in rows}
    assert top["gcc/9.1"]["runs"] == 3 and top["gcc/9.1"]["users"] == 1
    assert top["intel/17.0.4"]["runs"] == 2 and top["intel/17.0.4"]["users"] == 2
    assert [r["module"] for r in rows[:2]] == ["gcc/9.1", "openmpi/4.0"]
    [intel] = usage.query("xalt/module_usage", module="intel")
    assert intel["module"] == "intel/17.0.4" and intel["name"] == "intel"
    assert intel["core_hours"] == pytest.approx(4.0)


@needs_corpus
def test_package_usage(usage):
    rows = usage.query("xalt/package_usage", program="python")
    assert [(r["package"], r["version"], r["runs"], r["users"]) for r in rows] == [
        ("numpy", "1.26.4", 3, 1), ("scipy", "1.11", 1, 1)]
    assert [r["package"] for r in usage.query("xalt/package_usage", package="scipy")] == ["scipy"]
    assert usage.query("xalt/package_usage", program="R") == []
