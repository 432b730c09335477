"""The workflow HTML report shows failures with decoded output, retries and sub-workflows."""

from .conftest import SAMPLES
from .corpus import needs_corpus

pytestmark = needs_corpus

FAIL_DB = SAMPLES / "pegasus" / "process_wf_failure.stampede.db"
HIER_DB = SAMPLES / "pegasus" / "hierarchical_wf_success.stampede.db"
FAIL_WF = "pegasus:workflow:f84f05fc-a8d0-42b5-bac5-52d6f41a77e3"
ROOT_WF = "pegasus:workflow:48f759a4-165f-47d6-8c32-571649ce311b"
SUB_WF = "pegasus:workflow:160be601-bda4-45fb-86cd-9cf7a269bb22"


def test_failure_report(lin, tmp_path):
    lin.load([FAIL_DB])
    page = (tmp_path / "fail.html")
    lin.report(FAIL_WF, page)
    text = page.read_text(encoding="utf-8")
    assert "<h2>Failed, held and blocked jobs (4)</h2>" in text
    answer = text.split('<section id="answer"', 1)[1].split("</section>", 1)[0]
    assert '<code class="error-line">/bin/ls: invalid option -- &#39;z&#39;</code>' in answer
    assert "<h2>Retry history (2)</h2>" in text
    assert "User task failed with exitcode 2" in text  # decoded stderr of the last attempt
    assert "/bin/ls: invalid option -- &#39;z&#39;" in text  # decoded stdout, escaped
    assert "%0A" not in text and "%27" not in text
    assert "POST_SCRIPT_FAILED" in text


def test_hierarchical_report_lists_subworkflows(lin, tmp_path):
    lin.load([HIER_DB])
    page = tmp_path / "root.html"
    lin.report(ROOT_WF, page)
    text = page.read_text(encoding="utf-8")
    assert "<h2>Sub-workflows (1)</h2>" in text
    assert SUB_WF in text and "pegasus-plan_diamond_subworkflow" in text
    assert "<h2>Summary (pegasus-statistics) (1)</h2>" in text
