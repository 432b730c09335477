"""Every spelling a Stampede stream has had (lineage/sources/pegasus/mapping.py writes them
down: KEY_ALIASES, STATE_OF_EVENT) has a test, generated from the tables themselves, so a
spelling added there is tested here without more code.
"""

from __future__ import annotations

import json
import re

import pytest

from lineage.model.records import Edge, Node
from lineage.sources.base import LoadReport
from lineage.sources.pegasus.bp import parse_lines
from lineage.sources.pegasus.mapping import KEY_ALIASES, STATE_OF_EVENT

from .conftest import SAMPLES
from .corpus import needs_corpus

BD = SAMPLES / "pegasus" / "blackdiamond-4.0.bp"


def content(records) -> list[str]:
    """The records as comparable text (nodes and edges with their properties)."""
    out = []
    for r in records:
        if isinstance(r, Node):
            out.append(json.dumps(["node", r.uid, r.props], sort_keys=True, default=str))
        elif isinstance(r, Edge):
            out.append(json.dumps(["edge", r.start, r.rel, r.end, r.key, r.props],
                                  sort_keys=True, default=str))
    return sorted(out)


@needs_corpus
@pytest.mark.parametrize("old,new", sorted(KEY_ALIASES.items()))
def test_each_older_key_spelling_gives_the_same_records(old, new):
    text = BD.read_text()
    pattern = re.compile(rf"(?<=\s){re.escape(new)}=")
    assert pattern.search(text), f"the sample has no {new}= to respell"
    respelled = pattern.sub(f"{old}=", text)
    report = LoadReport("old.bp", "pegasus-bp")
    records = content(parse_lines(respelled.splitlines(), report, "old.bp"))
    assert report.extra["events"]["older key spellings"] == len(pattern.findall(text))
    assert records == content(parse_lines(text.splitlines(), LoadReport("bd.bp", "pegasus-bp"),
                                          "bd.bp"))


@pytest.mark.parametrize("event", sorted(STATE_OF_EVENT))
def test_each_job_state_event_records_its_state(event):
    ok_state, failed_state = STATE_OF_EVENT[event]
    for status, state in (("0", ok_state), ("-1", failed_state)):
        if state is None:
            continue
        lines = [f"ts=2012-03-13T12:35:38Z event=stampede.{event} xwf.id=w job.id=j "
                 f"job_inst.id=1 status={status}"]
        nodes = [r for r in parse_lines(lines, LoadReport("x.bp", "pegasus-bp"))
                 if isinstance(r, Node) and r.kind.label == "JobInstance"]
        states = [n.props["states"] for n in nodes if n.props.get("states")]
        assert states and states[-1][-1] == state, (event, status)
