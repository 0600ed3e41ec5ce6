"""The replication report (sslviz.experiments.report): its verdict rules on hand-made inputs, its
refusal to compute, and the committed page against the stored results."""

from __future__ import annotations

import pytest

from sslviz.experiments import components_views, report
from sslviz.experiments.report import (
    NOT,
    NOT_TRIED,
    PARTLY,
    REPRODUCED,
    NotStored,
    Ours,
    Section,
    order_row,
    order_verdict,
    render,
    stored_only,
    summary_selections,
    value_row,
    value_verdict,
)


def test_a_paper_value_within_the_larger_spread_is_reproduced():
    ours = Ours((79.0, 80.0, 81.0))  # mean 80, sd 0.816
    assert value_verdict(81.9, 2.0, ours)[0] == REPRODUCED  # 1.9 <= 2.0 (the paper's sd)
    assert value_verdict(83.5, 2.0, ours)[0] == PARTLY  # 3.5 <= 2 x 2.0
    assert value_verdict(84.5, 2.0, ours)[0] == NOT  # 4.5 > 4.0
    assert value_verdict(80.8, None, ours)[0] == REPRODUCED  # our sd 0.816 is the spread
    assert value_verdict(81.0, None, ours)[0] == PARTLY  # 1.0 > 0.816, <= 1.63
    assert value_verdict(81.0, None, ours)[1] == "1.0 points from the paper, within 2 × 0.8"


def test_an_ordering_is_judged_by_the_share_of_sets_it_holds_on():
    assert order_verdict(Ours((1.0, 2.0, 0.5, 3.0, -1.0))) == (REPRODUCED,
                                                                 "holds on 80% of 5 sets")
    assert order_verdict(Ours((1.0, 2.0, 0.5, -3.0, -1.0)))[0] == PARTLY  # 60 %
    assert order_verdict(Ours((1.0, -2.0, -0.5, -3.0, -1.0)))[0] == NOT  # 20 %
    assert order_verdict(Ours((0.0, 0.0, 0.0)))[0] == NOT  # a tie is not "above"


def test_fewer_than_three_sets_are_at_most_partly_and_no_set_is_not_tried():
    assert order_verdict(Ours((1.0, 2.0))) == (PARTLY, "holds on 100% of 2 sets; only 2 sets")
    assert value_verdict(80.0, 5.0, Ours((80.0,))) == (PARTLY, "0.0 points from the paper, "
                                                          "within 5.0; only 1 set")
    assert order_verdict(Ours((-1.0,))) == (NOT, "holds on 0% of 1 set")
    assert value_verdict(80.0, 5.0, Ours(()))[0] == NOT_TRIED
    assert order_verdict(None)[0] == NOT_TRIED


def test_rows_print_our_mean_spread_and_sets():
    row = value_row("x", 50.0, 1.5, [49.0, 51.0, float("nan")], where="Table 1", setting="s",
                    section="09")
    assert (row.paper, row.ours, row.verdict) == ("50.0 ± 1.5", "50.0 ± 1.0 (n = 2)", PARTLY)
    row = order_row("a above b", "3 vs 2", None, where="Table 1", setting="s", section="06",
                    reason="no summary: run X")
    assert (row.ours, row.verdict, row.reason) == ("—", NOT_TRIED, "no summary: run X")


def test_render_escapes_table_cells_and_states_the_rules():
    row = value_row("|Dl| = 8", 50.0, None, [50.0, 50.0, 50.0], where="w", setting="s",
                    section="l")
    text = render([Section("Title", "Citation.", "Note.", (row,))])
    assert "| \\|Dl\\| = 8 | 50.0 | w | 50.0 ± 0.0 (n = 3) | **reproduced** |" in text
    assert report.RULES in text and "## Title" in text


def test_a_summary_with_several_selections_lists_each_under_its_name():
    one = {"corpora": {"webkb": {}}}
    assert summary_selections(one, "default") == [("default", {"webkb": {}})]
    several = {"selections": {"a": {"corpora": {"x": 1}}, "b": {"corpora": {"y": 2}}}}
    assert summary_selections(several, "default") == [("a", {"x": 1}), ("b", {"y": 2})]
    listed = {"selections": [{"selection": "a", "corpora": {"x": 1}}, {"corpora": {"y": 2}}]}
    assert summary_selections(listed, "default") == [("a", {"x": 1}), ("default", {"y": 2})]
    assert summary_selections({"selection": "s", "corpora": {}}, "default") == [("s", {})]


def test_stored_only_refuses_a_missing_entry_naming_the_lecture_and_command(result_cache):
    calls = []

    def never(**job):  # noqa: ARG001 - the job would be computed here
        calls.append(job)
        return {}

    with stored_only(lecture="10", command="make it"), \
            pytest.raises(NotStored, match=r"lecture 10: 1 of 1 results of kind 'nothing' are "
                          r"not in .* \(the report computes nothing\): run `make it`"):
        components_views.run_jobs(components_views.cotraining_run, [{"seed": 99}],
                                  kind="nothing", key=lambda job: {"absent": True, **job})
    assert calls == []
    components_views.run_jobs(never, [{"seed": 99}], kind="nothing", progress=False,
                              key=lambda job: {"absent": True, **job})
    assert calls == [{"seed": 99}]  # after the block, a missing job is computed again


def test_the_committed_report_is_what_the_stored_results_give(real_data_dir):
    """Regenerated from the store (nothing computed) it equals ``docs/replication.md``; when it
    fails, run ``python -m sslviz.experiments report`` and commit the page."""
    committed = report.REPORT_FILE.read_text(encoding="utf-8")
    assert report.report_text(partial=True) == committed, (
        "docs/replication.md and the stored results disagree: run `python -m "
        "sslviz.experiments report` and commit the page")


def test_the_site_page_renders_the_report_and_runs_no_script():
    from sslviz import site

    page = site.report_page("# What reproduced\n\n| a | b |\n|---|---|\n| 1 | <script>x()"
                            "</script> |\n")
    assert "<td>1</td>" in page and '<a rel="contents" href="index.html">Contents</a>' in page
    assert "<script>" not in page and "&lt;script&gt;" in page
    contents = site.contents_page([{"href": "01.html", "title": "One"}], report=site.REPORT_PAGE)
    assert '<a href="replication.html">What reproduced</a>' in contents
    assert '<a href="replication.html">' not in site.contents_page([{"href": "01.html",
                                                                      "title": "One"}])


def test_szummer_rows_read_the_orderings_off_hand_made_curves():
    import numpy as np

    from sslviz.experiments import report_sources
    from sslviz.experiments.kernel_expansion import Curves

    splice = Curves(np.array([4]), np.arange(4), {  # errors in [0, 1], (sizes, seeds)
        "em_error": np.array([[0.2, 0.2, 0.2, 0.2]]), "med_error": np.array([[0.1, 0.1, 0.3, 0.1]]),
        "svm_error": np.array([[0.4, 0.4, 0.4, 0.1]])})
    leukemia = Curves(np.array([25]), np.arange(3), {
        "em_error": np.array([[1, 1, 2]]) / 34, "med_error": np.array([[2, 2, 2]]) / 34})
    rows = {row.claim: row for row in report_sources.szummer_rows(splice, leukemia)}
    med = rows["splice, 4 labels: MED's error below EM's"]
    assert (med.verdict, med.reason) == (PARTLY, "holds on 75% of 4 sets")
    assert rows["splice, 4 labels: EM's error below the SVM's (labeled points only)"].verdict \
        == PARTLY
    assert rows["leukemia, 25 labels: EM's errors below MED's"].reason == "holds on 67% of 3 sets"
    level = rows["leukemia, 25 labels: EM's errors among 34 (the paper's level: about one)"]
    assert (level.ours, level.verdict) == ("1.3 ± 0.5 (n = 3)", REPRODUCED)


def test_a_source_missing_from_the_store_stops_the_report_or_is_marked(monkeypatch):
    from sslviz.experiments import report_sources

    def missing():
        raise NotStored("lecture 08: 3 of 3 results ... run `store 08`")

    for name in ("wiegand", "takamura", "amini", "fujino"):
        monkeypatch.setattr(report_sources, name,
                            lambda name=name: Section(report_sources.TITLES[name], "c", "n", ()))
    monkeypatch.setattr(report_sources, "szummer", missing)
    with pytest.raises(NotStored, match=r"^lecture 08: .* run `store 08` \(`python -m "
                       r"sslviz.experiments report --partial` writes the page"):
        report_sources.sections()
    marked = report_sources.sections(partial=True)[3]
    assert marked.title == report_sources.TITLES["szummer"] and marked.rows == ()
    assert marked.note == ("**Not reported: its stored results are missing.** lecture 08: 3 of "
                           "3 results ... run `store 08`")


def test_the_summary_counts_the_papers_claims_per_verdict():
    from sslviz.experiments.report import summary_table

    def row(verdict):
        return report.Row("c", "p", "w", "o", verdict, "r", "s", "l")

    full = Section("A", "c", "n", (row(REPRODUCED), row(NOT), row(REPRODUCED)), (row(NOT),))
    empty = Section("B", "c", "n", ())
    lines = summary_table([full, empty])
    assert lines[2] == "| A | 2 | 0 | 1 | 0 |"  # the claim of ours is not counted
    assert lines[3] == "| B | not reported: its stored results are missing (below) | | | |"
