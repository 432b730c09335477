"""XALT records parsed without a database: detection, crc, environment, command lines,
syslog chunks."""

import json
import random

import pytest

from lineage.sources import registry as loaders
from lineage.errors import ParseError
from lineage.config.settings import LoadOptions, Settings
from lineage.sources.base import LoadReport
from lineage.sources.xalt.jsonfiles import parse_json
from lineage.sources.xalt.mapping import check_crc, crc16_ccitt, execution_uid
from lineage.sources.xalt.syslog import parse_syslog, parse_syslog_lines
from lineage.model.records import Edge, Node

from .conftest import SAMPLES
from .xalt_helpers import (BUILD_UUID, EXE_SHA1, LINK_RT, LINK_S2, RUN_AAA, RUN_UUID, sample_run,
                           signed, syslog_lines, zzz_from_aaa)
from .corpus import needs_corpus


def parse(path, lenient=False, xalt_env="filtered"):
    report = LoadReport(str(path), "xalt-json", lenient=lenient,
                        options=LoadOptions(lenient=lenient, xalt_env=xalt_env))
    return list(parse_json(path, report)), report


def nodes(records, label):
    """Nodes of one kind by uid, the properties of repeated records merged as the writer does."""
    out = {}
    for r in records:
        if isinstance(r, Node) and r.kind.label == label:
            if r.uid in out:
                merged = {**out[r.uid].props, **{k: v for k, v in r.props.items() if v is not None}}
                r = Node(r.kind, r.uid, merged)
            out[r.uid] = r
    return out


def edges(records, rel):
    return {(r.start, r.end) for r in records if isinstance(r, Edge) and r.rel.name == rel}


# ------------------------------------------------------------------ detection
@needs_corpus
def test_xalt_samples_are_detected_and_no_other_source_is_claimed():
    for path in sorted((SAMPLES / "xalt").glob("*.json")):
        assert loaders.detect(path).name == "xalt-json", path
    for source in ("chimbuko", "pegasus", "swift"):
        for path in sorted((SAMPLES / source).iterdir()):
            fmt = loaders.detect(path)
            assert fmt is None or fmt.source != "xalt", path


@needs_corpus
def test_syslog_file_is_detected(tmp_path):
    f = tmp_path / "messages"
    f.write_text("Jun 29 sshd[1]: accepted\n" + "".join(
        syslog_lines(signed(sample_run()), f"run_strt_{RUN_UUID}")))
    assert loaders.detect(f).name == "xalt-syslog"


# ------------------------------------------------------------------ crc
@needs_corpus
def test_crc_is_xalts_crc_ccitt_over_the_record_with_ffff():
    assert crc16_ccitt(b"123456789") == 0x29B1  # the CRC-CCITT check value in XALT's crc.h
    text = LINK_RT.read_bytes()
    assert text.startswith(b'{"crc":"0xEF81"')
    assert check_crc(text) == "ok"
    assert check_crc(LINK_S2.read_bytes()) == "missing"


@needs_corpus
def test_bad_crc_is_reported_and_the_record_still_loads(tmp_path):
    bad = tmp_path / "link.jedrik.2021.x.json"
    bad.write_bytes(LINK_RT.read_bytes().replace(b'"-O3"', b'"-O2"'))
    records, report = parse(bad)
    [build] = nodes(records, "Build").values()
    assert build.props["crc_status"] == "bad"
    assert build.props["link_line"][2] == "-O2"
    assert report.extra["xalt"]["crc_bad"] == 1
    assert any("crc 0xEF81 does not match" in w for w in report.warnings)


@needs_corpus
def test_missing_crc_is_counted_not_warned():
    records, report = parse(LINK_S2)
    assert report.extra["xalt"]["crc_missing"] == 1 and report.warnings == []
    [build] = nodes(records, "Build").values()
    assert build.props["crc_status"] == "missing"


# ------------------------------------------------------------------ the records
@needs_corpus
def test_shared_run_record_maps_to_execution_executable_libraries_and_build():
    raw = json.loads(RUN_AAA.read_text())
    records, report = parse(RUN_AAA)
    [run] = nodes(records, "Execution").values()
    assert run.uid == f"xalt:run:{RUN_UUID}"
    p = run.props
    assert (p["job_id"], p["queue"], p["account"], p["syshost"]) == (
        "76064", "development", "A-ccsc", "stampede2")
    assert p["start_time"] == 1498754913.644 and p.get("end_time") is None
    assert p["cores"] == 1 and p["tasks"] == 1 and p["threads"] == 1
    assert p["cmdline"] == raw["cmdlineA"]
    assert p["modules"] == raw["envT"]["LOADEDMODULES"].split(":")
    libs = nodes(records, "Library")
    assert len(libs) == len(raw["libA"]) == 9
    assert {lib.props["path"] for lib in libs.values()} == {path for path, _ in raw["libA"]}
    used = edges(records, "USED")
    assert (run.uid, f"xalt:executable:{EXE_SHA1}") in used
    assert all((run.uid, uid) in used for uid in libs)
    assert (f"xalt:executable:{EXE_SHA1}", f"xalt:build:{BUILD_UUID}") in edges(
        records, "WAS_GENERATED_BY")


@needs_corpus
def test_shared_link_record_maps_to_build_and_linked_files():
    raw = json.loads(LINK_S2.read_text())
    records, _ = parse(LINK_S2)
    [build] = nodes(records, "Build").values()
    assert build.uid == f"xalt:build:{BUILD_UUID}"
    assert build.props["compiler"] == "icc" and build.props["link_line"] == raw["link_line"]
    linked = {**nodes(records, "Library"), **nodes(records, "ObjectFile")}
    assert len(linked) == len(raw["linkA"]) == 19
    assert len(nodes(records, "ObjectFile")) == sum(p.endswith(".o") for p, _ in raw["linkA"])
    assert all((build.uid, uid) in edges(records, "USED") for uid in linked)
    assert (f"xalt:executable:{EXE_SHA1}", build.uid) in edges(records, "WAS_GENERATED_BY")


@needs_corpus
def test_unknown_sha1_zero_is_not_a_sha1():
    records, _ = parse(LINK_RT)
    libs = nodes(records, "Library")
    assert libs and all(lib.props.get("sha1") is None for lib in libs.values())
    # the linker names libgcc.a four times; it is one library
    assert sum(lib.props["path"].endswith("/libgcc.a") for lib in libs.values()) == 1


@needs_corpus
def test_command_lines_with_quotes_semicolons_and_odd_bytes_are_kept_verbatim(tmp_path):
    argv = ["./a.out", "--opt=x;y", "it's", '"quoted"', "a b", "$(rm -rf /); echo `id`",
            "back\\slash", "tab\there", "new\nline", "caf\u00e9", "<script>alert(1)</script>"]
    rec = sample_run()
    rec["cmdlineA"] = argv
    f = tmp_path / f"run.stampede2.2017.mclay.aaa.{RUN_UUID}.json"
    f.write_text(signed(rec))
    records, report = parse(f)
    [run] = nodes(records, "Execution").values()
    assert run.props["cmdline"] == argv
    assert run.props["crc_status"] == "ok"


def test_non_utf8_bytes_survive_as_escapes(tmp_path):
    f = tmp_path / "pkg.s2.2020.alice.u1.abc.json"
    f.write_bytes(b'{"program":"python","xalt_run_uuid":"u1","package_name":"n\xffp",'
                  b'"package_version":"1.0","package_path":"/p"}')
    records, _ = parse(f)
    [pkg] = nodes(records, "Package").values()
    assert pkg.props["name"] == "n\\xffp"


def test_not_a_record_is_malformed(tmp_path):
    f = tmp_path / "run.s2.x.json"
    f.write_text('{"userT": {}, "userDT": {}}')  # a run record without its run uuid
    with pytest.raises(ParseError):
        parse(f)
    g = tmp_path / "link.s2.x.json"
    g.write_text('{"resultT": {"uuid": "b1"}, "linkA": [["/lib/x.so", "0"]')
    with pytest.raises(ParseError):
        parse(g)
    records, report = parse(g, lenient=True)
    assert records == [] and sum(report.skipped.values()) == 1


# ------------------------------------------------------------------ environment
def _env_run(tmp_path):
    rec = sample_run()
    rec["envT"].update({"MY_API_TOKEN": "t0k3n", "DB_PASSWORD": "hunter2",
                        "aws_secret_access_key": "AKIA", "PROXY": "http://bob:pw@proxy:3128"})
    f = tmp_path / f"run.s2.x.aaa.{RUN_UUID}.json"
    f.write_text(signed(rec))
    return f


@needs_corpus
@pytest.mark.parametrize("mode", ["filtered", "all", "none"])
def test_env_modes(tmp_path, mode):
    records, _ = parse(_env_run(tmp_path), xalt_env=mode)
    [run] = nodes(records, "Execution").values()
    if mode == "none":
        assert "env" not in run.props or run.props["env"] is None
        return
    env = json.loads(run.props["env"])
    assert env["HOME"] == "/home1/00515/mclay"
    if mode == "all":
        assert env["MY_API_TOKEN"] == "t0k3n" and env["PROXY"] == "http://bob:pw@proxy:3128"
    else:
        assert env["MY_API_TOKEN"] == env["DB_PASSWORD"] == "[redacted]"
        assert env["aws_secret_access_key"] == "[redacted]"
        assert env["PROXY"] == "http://bob:[redacted]@proxy:3128"
        assert "hunter2" not in run.props["env"] and "t0k3n" not in run.props["env"]


@needs_corpus
def test_unknown_env_mode_is_refused(tmp_path):
    with pytest.raises(ValueError, match="xalt_env='some'"):
        parse(_env_run(tmp_path), xalt_env="some")
    with pytest.raises(ValueError, match="LINEAGE_XALT_ENV|xalt_env"):
        Settings.from_env({"LINEAGE_XALT_ENV": "some"})


# ------------------------------------------------------------------ syslog
def _syslog_report(lenient=False):
    return LoadReport("syslog", "xalt-syslog", lenient=lenient)


@needs_corpus
def test_chunked_syslog_record_assembled_out_of_order():
    text = signed(sample_run())
    lines = syslog_lines(text, f"run_strt_{RUN_UUID}", block=997)
    link = LINK_S2.read_text()
    link_lines = syslog_lines(json.dumps(json.loads(link)), f"link_{BUILD_UUID}", kind="link",
                              version=3, block=300)
    assert len(lines) > 20 and len(link_lines) > 5
    mixed = lines + link_lines + ["Jun 29 11:48:34 c455-043 kernel: noise\n"]
    random.Random(7).shuffle(mixed)
    report = _syslog_report()
    records = list(parse_syslog_lines(mixed, report))
    [run] = nodes(records, "Execution").values()
    assert run.props["crc_status"] == "ok"
    assert run.props["cmdline"] == ["/home1/00515/mclay/t/hello"]
    # loaded at run time + linked, one (path, sha1) shared (libgcc_s.so.1)
    expected = {(p, h) for p, h in sample_run()["libA"]} | {
        (p, h) for p, h in json.loads(link)["linkA"] if not p.endswith(".o")}
    assert len(expected) == 22
    assert {(lib.props["path"], lib.props["sha1"]) for lib in nodes(records, "Library").values()} == expected
    [build] = nodes(records, "Build").values()
    assert build.props["link_line"][0] == "icc"
    assert report.extra["xalt_syslog"]["records"] == 2
    assert report.extra["xalt_syslog"]["incomplete_records"] == 0
    assert report.extra["xalt_syslog"]["other_lines"] == 1
    # the same graph as the file
    from_file, _ = parse(RUN_AAA)
    assert set(nodes(records, "Library")) >= set(nodes(from_file, "Library"))


@needs_corpus
def test_compressed_v2_record_and_trailing_blanks_dropped_by_syslog():
    text = signed(sample_run())
    report = _syslog_report()
    v2 = syslog_lines(text, f"run_strt_{RUN_UUID}", version=2, block=120)
    [run] = nodes(list(parse_syslog_lines(reversed(v2), report)), "Execution").values()
    assert run.props["job_id"] == "76064" and report.extra["xalt_syslog"]["compressed_records"] == 1
    # a chunk that ends in blanks loses them in syslog; they are padded back
    rec = {"crc": "0xFFFF", "program": "python", "xalt_run_uuid": "u1",
           "package_name": "pkg      with blanks", "package_version": "1",
           "package_path": "/opt/apps/python/3.9/lib/python3.9/site-packages/" * 4}
    s = signed(rec)
    cut = s.index("with")  # the first chunk ends in the blanks
    lines = syslog_lines(s, "pkg_u1_x", kind="pkg", block=cut)
    assert len(lines) >= 3
    lines = [ln.rstrip("\n").rstrip(" ") + "\n" for ln in lines]
    records = list(parse_syslog_lines(lines, report))
    [pkg] = nodes(records, "Package").values()
    assert pkg.props["name"] == "pkg      with blanks"


@needs_corpus
def test_incomplete_syslog_record_is_reported_not_loaded(tmp_path):
    good = syslog_lines(signed(sample_run()), f"run_strt_{RUN_UUID}", block=500)
    broken = syslog_lines(LINK_RT.read_text(), "link_1793664a", kind="link", block=300)
    f = tmp_path / "messages"
    f.write_text("".join(good + broken[:1] + broken[2:]))
    report = _syslog_report()
    records = list(parse_syslog(f, report))
    assert len(nodes(records, "Execution")) == 1
    assert nodes(records, "Build") and all(  # only the run's watermark build, not the link
        "link_line" not in b.props for b in nodes(records, "Build").values())
    assert report.extra["xalt_syslog"]["incomplete_records"] == 1
    [warning] = [w for w in report.warnings if "incomplete" in w]
    assert "link_1793664a" in warning and "missing idx [1]" in warning


@needs_corpus
@pytest.mark.parametrize("lenient", [False, True])
def test_damaged_lines_and_records_in_a_syslog_are_skipped_and_counted(lenient):
    """Each kind of damage to one line or record is skipped, counted and warned about with
    its line, strict too (XALT's loader skips it); the whole records around it still load."""
    good = syslog_lines(signed(sample_run()), f"run_strt_{RUN_UUID}")
    no_uuid = json.dumps({**sample_run(), "userT": {"exec_path": "/bin/x"}})
    damaged = [  # each item: the lines of one damaged line or record
        ["Jun 29 host XALT_LOGGING_s2: V:4 kind:run syshost:s2 key:k crcStr:0x1 nb:02 "
         "idx:07 value:{}\n"],                                              # idx past nb
        ["Jun 29 host XALT_LOGGING_s2: V:4 kind:run syshost:s2 key:k2 nb:xx idx:00 value:{}\n"],
        ["Jun 29 host XALT_LOGGING_s2: V:4 kind:run syshost:s2 key:k3 nb:01 idx:00\n"],  # no value
        syslog_lines("not base64 zlib", key="k4", version=2),
        syslog_lines('{"broken": "\\u00zz"}', key="k5"),
        syslog_lines(no_uuid, key="k6"),                                    # run without uuid
        syslog_lines(json.dumps({"what": "is this"}), key="k7"),            # unknown kind
        ["Jun 29 host XALT_LOGGING_s2: garbage without a version\n"],
    ]
    report = _syslog_report(lenient=lenient)
    lines = good[:1] + [line for item in damaged for line in item] + good[1:]
    records = list(parse_syslog_lines(lines, report))
    assert execution_uid(RUN_UUID) in {r.uid for r in records if isinstance(r, Node)}
    assert sum(report.skipped.values()) == len(damaged), report.skipped
    assert len(report.skipped) == 7  # the V:2 record inflates to text that is not JSON either
    assert len([w for w in report.warnings if "expected" in w]) == len(damaged)
    assert all("syslog" in w for w in report.warnings if "expected" in w)


@needs_corpus
def test_start_and_end_records_share_the_execution():
    aaa, zzz = sample_run(), zzz_from_aaa(sample_run())
    report = _syslog_report()
    lines = (syslog_lines(signed(aaa), f"run_strt_{RUN_UUID}")
             + syslog_lines(signed(zzz), f"run_fini_{RUN_UUID}"))
    runs = [r for r in parse_syslog_lines(lines, report)
            if isinstance(r, Node) and r.kind.label == "Execution"]
    assert {r.uid for r in runs} == {f"xalt:run:{RUN_UUID}"} and len(runs) == 2
    assert runs[1].props["end_time"] == runs[0].props["start_time"] + 42.5


@pytest.mark.parametrize("spelling", ["kind:b64", "kind:syshost:b64", "kind:zlib-b64",
                                      "kind:json"])
def test_every_syslogv1_spelling_gives_the_same_record(spelling):
    """syslogv1 (no ``V:``): XALT 1.x wrote ``kind:<base64>``, some versions
    ``kind:syshost:<base64>`` or the payload zlib-compressed, and the plain JSON was seen too."""
    import base64
    import zlib

    pkg = signed({"program": "python", "xalt_run_uuid": "u7", "package_name": "numpy",
                  "package_version": "2.0", "package_path": "/p"})
    payload = {"kind:b64": base64.b64encode(pkg.encode()).decode(),
               "kind:syshost:b64": "s2:" + base64.b64encode(pkg.encode()).decode(),
               "kind:zlib-b64": base64.b64encode(zlib.compress(pkg.encode())).decode(),
               "kind:json": pkg}[spelling]
    report = _syslog_report()
    records = list(parse_syslog_lines([f"Jan 1 n1 XALT_LOGGING_s2: pkg:{payload}\n"], report))
    [package] = nodes(records, "Package").values()
    assert (package.props["name"], package.props.get("version")) == ("numpy", "2.0")
    assert report.extra["xalt_syslog"]["v1_lines"] == 1 and not report.skipped


@needs_corpus
def test_syslogv1_line_and_duplicate_chunks():
    import base64
    pkg = signed({"program": "python", "xalt_run_uuid": "u7", "package_name": "numpy",
                  "package_version": "2.0", "package_path": "/p"})
    v1 = f"Jan 1 n1 XALT_LOGGING_s2: pkg:{base64.b64encode(pkg.encode()).decode()}\n"
    chunks = syslog_lines(signed(sample_run()), f"run_strt_{RUN_UUID}", block=4000)
    report = _syslog_report()
    records = list(parse_syslog_lines([v1] + chunks + chunks[:3], report))
    assert len(nodes(records, "Package")) == 1
    assert len([r for r in records if isinstance(r, Node) and r.kind.label == "Execution"
                and r.props.get("cmdline")]) == 1  # the repeated chunks add no second record
    assert report.extra["xalt_syslog"]["duplicate_chunks"] == 3
    assert report.extra["xalt"]["crc_ok"] == 2
