"""`ancestors` / `descendants` with a max_depth are answered by a breadth-first search that
stops at that depth: the same rows as the templates' own (unbounded search, then filter)."""

import pytest

from lineage import templates

from .conftest import SAMPLES


@pytest.fixture(scope="module")
def loaded(session_lineage):
    session_lineage.reset()
    session_lineage.load([SAMPLES])
    return session_lineage


@pytest.mark.parametrize("name", ["ancestors", "descendants"])
@pytest.mark.parametrize("depth", [1, 2, 4])
def test_bounded_search_gives_the_templates_rows(loaded, name, depth):
    starts = [r["uid"] for r in loaded.query(
        "MATCH (n:Lineage) WHERE n.kind IN ['Job', 'File', 'Dataset', 'FunctionCall', "
        "'Execution', 'Task'] RETURN n.uid AS uid ORDER BY uid")][::7][:25]
    assert len(starts) >= 10
    template = templates.get(name)
    reached = 0
    for uid in starts:
        params = template.bind({"uid": uid, "max_depth": depth})
        expected = loaded.graph.run(template.text, params)
        got = loaded.query(name, uid=uid, max_depth=depth)
        assert list(got) == expected, uid
        reached += len(got)
    assert reached > 0
