"""Records planted to take over what others recorded: an XALT record reusing a run's uuid
with another user or job, a record of another user copying a victim's job id and host, a
record without a valid crc, a record making a true link ambiguous. After each attack the
graph (or its links) equals the graph without the attack, and the attack is reported."""

import json

from lineage.linking.rules import UNCHECKED_CRC_CONFIDENCE, Inputs, match
from lineage.sources.base import LoadReport
from lineage.sources.xalt.demo import signed_text
from lineage.sources.xalt.syslog import parse_syslog_lines

from . import demo_scenario as demo
from . import graphcheck
from .conftest import run_cli
from .corpus import needs_corpus
from .demo_scenario import ANALYZE, FIRST
from .xalt_helpers import sample_run, signed, syslog_lines

ATTEMPT, INVOCATION = demo.attempt(FIRST, ANALYZE), demo.invocation(FIRST, ANALYZE)
VICTIM = demo.xalt(ANALYZE.process)


def _forged(record: dict, **user_t) -> dict:
    """``record`` with its ``userT`` changed and no ``hash_id`` (so no sha1 to compare)."""
    out = json.loads(json.dumps(record))
    out["userT"].update(user_t)
    out.pop("hash_id", None)
    return out


# ------------------------------------------------------------------ XALT duplicates
@needs_corpus
def test_a_record_of_a_run_uuid_with_another_user_and_job_is_not_merged(lin, tmp_path, cli_env):
    """Same uuid and exec_path, no hash_id, another user and job id: before, it rewrote the
    run's user and job id with no warning; now it is kept out, warned about on the terminal."""
    rec = sample_run()
    uuid = rec["userT"]["run_uuid"]
    first = tmp_path / "a" / f"run.s.aaa.{uuid}.json"
    first.parent.mkdir()
    first.write_text(signed(rec))
    lin.load([first])
    without = graphcheck.of(lin)
    forged = tmp_path / "b" / f"run.s.aaa.{uuid}.json"
    forged.parent.mkdir()
    forged.write_text(signed(_forged(rec, user="mallory", job_id="666")))
    out = run_cli(cli_env, "load", str(forged))
    assert graphcheck.of(lin) == without
    [run] = lin.query("MATCH (x:Execution) RETURN x.user AS user, x.job_id AS job")
    assert run == {"user": rec["userT"]["user"], "job": rec["userT"]["job_id"]}
    # the warning is on the terminal, counted, naming what differs
    assert "1 warning in 1 of 1 inputs" in out.stderr
    assert "'mallory' here" in out.stderr and "'666' here" in out.stderr
    assert "was not loaded" in out.stderr


@needs_corpus
def test_every_identity_field_is_compared_within_one_input_too():
    rec = sample_run()
    uuid = rec["userT"]["run_uuid"]
    start = rec["userDT"]["start_time"]
    for field, value in (("user", "mallory"), ("job_id", "666"), ("syshost", "elsewhere"),
                         ("exec_path", "/tmp/evil"), ("start_time", start + 1)):
        other = json.loads(json.dumps(rec))
        if field == "start_time":
            other["userDT"]["start_time"] = value
        else:
            other["userT"][field] = value
        report = LoadReport("dup.log", "xalt-syslog")
        lines = (syslog_lines(json.dumps(rec), key=f"run_{uuid}_a")
                 + syslog_lines(json.dumps(other), key=f"run_{uuid}_b"))
        records = list(parse_syslog_lines(lines, report))
        executions = [r for r in records if getattr(r, "uid", "") == f"xalt:run:{uuid}"]
        assert report.summary()["xalt"]["duplicate_run_uuid"] == 1, field
        assert len(executions) == 1 and executions[0].props["user"] == rec["userT"]["user"]
        assert any(f"{field} " in w for w in report.warnings), field


# ------------------------------------------------------------------ the link rules
def row(uid, start, **kw):
    return {"uid": uid, "start_time": start, "end_time": kw.pop("end", start + 10), **kw}


ATT = row("j1", 100, end=200, sched_id="77", host="c1", workflow_user="ann")


def test_another_users_record_copying_job_and_host_is_not_linked():
    forged = row("evil", 120, job_id="77", host="c1", user="eve", crc_status="ok")
    assert match(Inputs(xalt=[forged], attempts=[ATT]), ["scheduler_job"]).links == []
    own = row("r", 120, job_id="77", host="c1", user="ann", crc_status="ok")
    [link] = match(Inputs(xalt=[own], attempts=[ATT]), ["scheduler_job"]).links
    assert link.confidence == 1.0 and link.matched == ("job_id", "host", "time", "user")
    # the attempt's own user counts as an owner too (a job run under another account)
    remote = {**ATT, "user": "ann_remote"}
    [link] = match(Inputs(xalt=[{**own, "user": "ann_remote"}], attempts=[remote]),
                   ["scheduler_job"]).links
    assert link.end == "j1"


def test_a_record_without_a_valid_crc_never_links_at_confidence_one():
    for crc in ("missing", "bad", "unchecked", None):
        unchecked = row("r", 120, job_id="77", host="c1", user="ann", crc_status=crc)
        [link] = match(Inputs(xalt=[unchecked], attempts=[ATT]), ["scheduler_job"]).links
        assert link.confidence == UNCHECKED_CRC_CONFIDENCE < 1.0, crc
        assert link.evidence["crc"] == crc


def test_a_planted_fit_of_unknown_owner_does_not_take_the_true_link_away():
    true = row("r", 120, job_id="77", host="c1", user="ann", crc_status="ok")
    planted = {**ATT, "uid": "j2", "workflow_user": None}  # an attempt whose owner is unknown
    result = match(Inputs(xalt=[true], attempts=[ATT, planted]), ["scheduler_job"])
    assert [(link.start, link.end) for link in result.links] == [("r", "j1")]
    assert [(a.record, a.candidates, a.kept) for a in result.ambiguous] == [
        ("r", ("j1", "j2"), "j1")]
    # the process rule (one to one): a planted run of unknown user fitting the invocation
    inv = row("inv", 100, end=200, exec_path="/bin/solver", host="c1", attempt="j1",
              workflow_user="ann")
    runs = [row("r1", 110, exec_path="/bin/solver", host="c1", user="ann"),
            row("r2", 111, exec_path="/bin/solver", host="c1")]
    result = match(Inputs(xalt=runs, invocations=[inv]), ["process"])
    assert [(link.start, link.end) for link in result.links] == [("inv", "r1")]
    assert [(a.record, a.candidates, a.kept) for a in result.ambiguous] == [
        ("inv", ("r1", "r2"), "r1")]
    # a planted run of another user does not fit at all
    runs[1]["user"] = "eve"
    result = match(Inputs(xalt=runs, invocations=[inv]), ["process"])
    assert [(link.start, link.end) for link in result.links] == [("inv", "r1")]
    assert result.ambiguous == []


def _links(lin) -> dict:
    return {(r["start"], r["type"], r["end"]): (r["confidence"], r["matched"])
            for r in lin.query("link/existing")}


def _plant(tmp_path, written, uuid, name, **changes) -> list:
    """The victim's (analyze's) XALT records as another run: a new uuid, ``changes`` to
    ``userT``, signed; returns their paths."""
    out = []
    for path in demo.paths(written, "xalt"):
        if ANALYZE.process.uuid not in path.name:
            continue
        rec = json.loads(path.read_text())
        rec["userT"].update(run_uuid=uuid, **changes)
        rec.pop("hash_id", None)
        planted = tmp_path / "planted" / f"{name}.{path.name.replace(ANALYZE.process.uuid, uuid)}"
        planted.parent.mkdir(exist_ok=True)
        planted.write_text(signed_text(rec))
        out.append(planted)
    return out


def test_planted_records_on_the_server_leave_the_true_links(lin, tmp_path):
    written, results = demo.load(lin, tmp_path / "campaign", "pegasus", "xalt")
    assert all(r.status == "loaded" for r in results)
    lin.link()
    true = _links(lin)
    assert true[(VICTIM, "RAN_WITHIN", ATTEMPT)] == (1.0, ["job_id", "host", "time", "user"])
    assert (INVOCATION, "SAME_ACTIVITY", VICTIM) in true
    # another user's records copying the victim's job id, host, program and times
    evil = "7a1a0000-0000-4000-8000-0000000000e1"
    lin.load(_plant(tmp_path, written, evil, "evil", user="eve"), source="xalt")
    result = lin.link()
    assert _links(lin) == true and result.ambiguous == []
    # records with no user: the victim's links stay, the ambiguity is reported
    anon = "7a1a0000-0000-4000-8000-0000000000e2"
    lin.load(_plant(tmp_path, written, anon, "anon", user=None), source="xalt")
    result = lin.link()
    assert {k: v for k, v in _links(lin).items() if f"xalt:run:{anon}" not in k} == true
    assert ("process", INVOCATION, tuple(sorted((VICTIM, f"xalt:run:{anon}"))), VICTIM) in [
        (a.rule, a.record, a.candidates, a.kept) for a in result.ambiguous]
    # the victim's own records again, as XALT before the crc wrote them: still linked, below 1.0
    for path in demo.paths(written, "xalt"):
        if ANALYZE.process.uuid in path.name:
            rec = json.loads(path.read_text())
            rec.pop("crc", None)
            path.write_text(json.dumps(rec))
            lin.load([path], source="xalt")
    lin.link(rules=["scheduler_job"])
    confidence, _ = _links(lin)[(VICTIM, "RAN_WITHIN", ATTEMPT)]
    assert confidence == UNCHECKED_CRC_CONFIDENCE < 1.0
