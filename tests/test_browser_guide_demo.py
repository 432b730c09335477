"""The Neo4j Browser guide on the demo campaign: a contents slide grouped by question, and
every template's example (its ``:param`` command, then its query) finds rows whenever the
campaign holds a match for it (some node of the parameter's kind for which it gives rows)."""

import pytest

from lineage.browser import guide
from lineage.query import templates
from lineage.query.examples import example_values
from lineage.query.templates import uid_prefix

from .test_browser_guide import _guide_params, _run



def _rows(lin, template, params) -> list:
    return lin.graph.driver.execute_query(template.text, template.bind(params),
                                          database_=lin.graph.database).records


def has_matches(lin, template) -> bool:
    """Whether some value of the template's one uid parameter (any node of its kind), with
    the header's other examples, gives rows on the loaded graph."""
    base = example_values(lin, template)
    if _rows(lin, template, base):
        return True
    uid_params = [p for p in template.params
                  if isinstance(p.example, str) and uid_prefix(p.example)]
    if len(uid_params) != 1:
        return False
    param = uid_params[0]
    for row in lin.query("uids_like", prefix=uid_prefix(param.example), limit=500):
        if _rows(lin, template, {**base, param.name: row["uid"]}):
            return True
    return False


@pytest.mark.parametrize("template", guide.ordered(), ids=lambda t: t.name)
def test_every_slide_finds_rows_when_the_campaign_has_matches(demo_campaign, template):
    params = _guide_params(demo_campaign, template)
    records, _, keys = _run(demo_campaign, template, params)
    assert list(keys) == template.returns
    if has_matches(demo_campaign, template):
        assert records, f"the guide's example of {template.name} finds nothing with {params}"


def test_contents_groups_every_template_by_question_in_slide_order():
    html = guide.guide_html(http_port=7474)
    contents = html.split('<slide class="row-fluid">')[1]
    names = [t.name for t in guide.ordered()]
    assert sorted(names) == sorted(t.name for t in templates.all_templates())
    for number, name in enumerate(names, start=2):
        assert f"slide {number}: <code>{name}</code>" in contents
    assert contents.count('class="lineage-chapter"') >= 5
    # the slides come in the contents' order, each naming its number
    order = [html.index(f'<h3 class="lineage-template-name">{n}</h3>') for n in names]
    assert order == sorted(order)
    # chapters follow each other: a chapter's templates are together
    chapters = [guide.chapter_of(t) for t in guide.ordered()]
    assert chapters == sorted(chapters)
