"""Every template in cypher/ runs against the sample graph and returns its header's columns.

Iterates ``templates.all_templates()``, so templates added for any source are covered with
no change here. Parameters get example values from the graph when the header's example is a
uid (``lineage.query.examples``), else the header's example or default.
"""

import pytest

from lineage.query import templates
from lineage.query.examples import example_values

from .conftest import SAMPLES
from .corpus import needs_corpus

ALL = templates.all_templates()
#: templates that must find rows on the bundled samples (the generic ones)
MUST_FIND = {"ancestors", "descendants", "nodes", "node", "runs", "run_members", "run_member_uids", "uids_like",
             "edges_among", "member_runs"}


@pytest.fixture(scope="module")
def sample_graph(session_lineage):
    session_lineage.reset()
    results = session_lineage.load([SAMPLES], lenient=True)
    assert any(r.status == "loaded" for r in results)
    yield session_lineage
    session_lineage.reset()


@needs_corpus
@pytest.mark.parametrize("template", ALL, ids=[t.name for t in ALL])
def test_template_returns_its_header_columns(sample_graph, template):
    values = example_values(sample_graph, template)
    params = template.bind(values)
    records, _, keys = sample_graph.graph.driver.execute_query(
        template.text, params, database_=sample_graph.graph.database)
    assert list(keys) == template.returns, (
        f"{template.path}: returns {list(keys)}, header says {template.returns}")
    if template.name in MUST_FIND:
        assert records, f"{template.name} found nothing with {params}"


def test_every_template_is_covered():
    names = {t.name for t in ALL}
    assert MUST_FIND <= names
    assert len(names) == sum(len(list(folder.rglob("*.cypher")))
                             for folder in templates.template_dirs().values())
