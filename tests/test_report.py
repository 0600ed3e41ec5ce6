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


# -- the readers of the paper-scale files and of the lectures' stored tables, on hand-made inputs

FAIR, OLD = "labeled-rows", "sigma-1, loo-log-likelihood α"
HYBRID_METHODS = ["hybrid", "em-lambda", "mlr/mer", "nb", "mlr"]


def _hybrid_file(tmp_path, content):
    import json

    from sslviz.experiments import hybrid_results

    path = tmp_path / "hybrid_paper_scale.json"
    path.write_text(json.dumps(content), encoding="utf-8")
    return hybrid_results.read_file(path)


def test_the_fair_selection_is_the_one_lecture_09_and_its_results_file_name():
    from sslviz.experiments.hybrid import LABELED_SELECTION, PAPER_SCALE_SELECTION

    assert report.FAIR_SELECTION == LABELED_SELECTION == FAIR
    assert PAPER_SCALE_SELECTION == OLD


def test_paper_scale_cells_take_the_fair_verdict_and_print_the_other_selection_beside(tmp_path):
    from sslviz.experiments.report_hybrid import paper_scale_rows

    webkb = {"n_unlabeled": 2500, "sizes": {"8": {"accuracy": [
        [60, 61, 50, 55, 50], [62, 60, 51, 58, 52], [58, 59, 49, 60, 50]]}}}
    old = {"n_unlabeled": 2500, "sizes": {
        "8": {"accuracy": [[70, 60, 50, 55, 50], [50, 62, 50, 55, 50]]},
        "16": {"accuracy": [[66, 60, 50, 60, 50], [64, 62, 50, 61, 50]]}}}
    summary = _hybrid_file(tmp_path, {"methods": HYBRID_METHODS, "selections": {
        FAIR: {"corpora": {"webkb": webkb}}, OLD: {"corpora": {"webkb": old}}}})
    rows = {row.claim: row for row in paper_scale_rows(summary)}
    # paper, Table 2 at 8 labels: hybrid 61.6 ± 6.1, EM-λ 61.9, MLR/MER 52.8, NB 53.5, MLR 52.4
    acc = rows["webkb, 8 labels: hybrid's accuracy"]
    assert (acc.paper, acc.ours, acc.verdict, acc.reason, acc.beside) == (
        "61.6 ± 6.1", "60.0 ± 1.6 (n = 3)", REPRODUCED, "1.6 points from the paper, within 6.1",
        f"{OLD}: 60.0 ± 10.0 (n = 2)")
    em = rows["webkb, 8 labels: EM-λ above hybrid"]  # fair EM-λ − hybrid: 1, -2, 1
    assert (em.ours, em.verdict, em.beside) == ("+0.0 ± 1.4 (n = 3; above on 67%)", PARTLY,
                                                f"{OLD}: +1.0 ± 11.0 (n = 2; above on 50%)")
    assert rows["webkb, 8 labels: hybrid above NB"].ours == "+2.3 ± 3.1 (n = 3; above on 67%)"
    mer = rows["webkb, 8 labels: hybrid above MLR/MER"]
    assert (mer.ours, mer.verdict) == ("+10.0 ± 0.8 (n = 3; above on 100%)", REPRODUCED)
    assert "webkb, 8 labels: MLR above NB" not in rows  # the paper states it on 20news only
    assert rows["20news, 10 labels: MLR above NB"].verdict == NOT_TRIED
    missing = rows["webkb, 16 labels: hybrid's accuracy"]
    assert (missing.ours, missing.verdict, missing.beside) == ("—", NOT_TRIED,
                                                               f"{OLD}: 65.0 ± 1.0 (n = 2)")
    assert missing.reason == (
        "not run under labeled-rows: run `python -m sslviz.experiments hybrid table --selection "
        "labeled-rows --corpora webkb --sizes 16`, then `python -m sslviz.experiments report`")
    neither = rows["webkb, 32 labels: hybrid's accuracy"]
    assert (neither.verdict, neither.beside) == (NOT_TRIED, "—")
    assert {row.setting for row in rows.values() if row.claim.startswith("webkb")} == {
        "selection labeled-rows; 2500 unlabeled documents"}


def test_a_results_file_of_the_first_layout_is_read_as_the_old_selection_alone(tmp_path):
    from sslviz.experiments.report_hybrid import paper_scale_rows

    summary = _hybrid_file(tmp_path, {"methods": HYBRID_METHODS, "selection": OLD, "corpora": {
        "reuters": {"n_unlabeled": 4500, "sizes": {"16": {"accuracy": [[80, 85, 70, 72, 66]]}}}}})
    row = next(row for row in paper_scale_rows(summary)
               if row.claim == "reuters, 16 labels: hybrid above NB")
    assert (row.verdict, row.beside) == (NOT_TRIED, f"{OLD}: +8.0 ± 0.0 (n = 1; above on 100%)")


def test_lecture_scale_rows_read_lecture_09s_tables_without_mlr_mer():
    import numpy as np

    from sslviz.experiments.hybrid import HybridTable
    from sslviz.experiments.report_hybrid import lecture_scale_rows

    accuracy = np.array([[[0.20, 0.35, np.nan, 0.30, 0.31], [0.18, 0.36, np.nan, 0.35, 0.34]]])
    table = HybridTable("20news", np.array([10]), np.array([0, 1]), {"accuracy": accuracy})
    rows = {row.claim: row for row in lecture_scale_rows({"20news": table})}
    # paper, Table 3 at 10 labels: hybrid 52.2 ± 14.1, EM-λ 40.7, NB 31.7, MLR 37.6
    assert sorted(rows) == [f"lecture scale, 20news, 10 labels: {claim}" for claim in (
        "MLR above NB", "hybrid above EM-λ", "hybrid above NB", "hybrid's accuracy")]
    acc = rows["lecture scale, 20news, 10 labels: hybrid's accuracy"]
    assert (acc.ours, acc.verdict, acc.reason) == (
        "19.0 ± 1.0 (n = 2)", NOT, "33.2 points from the paper, beyond 2 × 14.1")
    assert rows["lecture scale, 20news, 10 labels: hybrid above EM-λ"].ours == \
        "-16.5 ± 1.5 (n = 2; above on 0%)"
    mlr = rows["lecture scale, 20news, 10 labels: MLR above NB"]
    assert (mlr.ours, mlr.verdict, mlr.reason) == ("+0.0 ± 1.0 (n = 2; above on 50%)", PARTLY,
                                                   "holds on 50% of 2 sets")
    assert all(row.beside == "" for row in rows.values())


def test_equal_width_rows_read_emmed_at_one_width_per_row():
    import numpy as np

    from sslviz.experiments import report_sources
    from sslviz.experiments.kernel_expansion import Curves

    curves = Curves(np.array([20]), np.arange(3), {"em_error": np.array([[1, 2, 2]]) / 34,
                                                    "med_error": np.array([[2, 2, 1]]) / 34})
    (row,) = report_sources.equal_width_rows({0.7: curves})
    assert row.claim == ("leukemia, 20 labels, both at 0.7 × the rule's width: EM's errors below "
                         "MED's")
    assert (row.ours, row.verdict, row.reason) == ("+0.0 ± 0.8 (n = 3; above on 33%)", NOT,
                                                   "holds on 33% of 3 sets")


def test_figure_1_rows_compare_the_smallest_and_largest_unlabeled_set_stored():
    from sslviz.experiments import report_sources

    def record(size, unlabeled, split, accuracy):
        return {"n_labeled": size, "n_unlabeled": unlabeled, "split": split, "method": "ul-cat",
                "accuracy": accuracy, "seconds": 1.0, "chosen": 1.0, "at_bound": False}

    records = [record(2000, 1000, 0, 70.0), record(2000, 1000, 1, 72.0),
               record(2000, 5000, 0, 90.0), record(2000, 10000, 0, 75.0),
               record(2000, 10000, 1, 71.0), record(5000, 10000, 0, 80.0)]
    rows = report_sources.fisher_figure_rows({"settings": {"tuned": {"records": records}}})
    assert [row.verdict for row in rows] == [NOT_TRIED, PARTLY, NOT_TRIED]
    assert rows[1].claim == "2000 labels: SVM (ul-cat) with 10,000 unlabeled posts above 1,000"
    assert (rows[1].ours, rows[1].reason) == ("+2.0 ± 3.0 (n = 2; above on 50%)",
                                              "holds on 50% of 2 sets")
    assert rows[0].reason == (
        "no unlabeled-set size stored at this labeled size: run `python -m sslviz.experiments "
        "fisher figure --sizes 1000`, then `python -m sslviz.experiments fisher summary`")
    assert rows[2].reason.startswith("one unlabeled-set size stored at this labeled size: run "
                                     "`python -m sslviz.experiments fisher figure --sizes 5000`")
    assert [row.verdict for row in report_sources.fisher_figure_rows(None)] == [NOT_TRIED] * 3


def test_the_other_selections_column_appears_only_in_a_table_that_has_one():
    plain = value_row("a", 50.0, None, [50.0] * 3, where="w", setting="s", section="l")
    beside = report.Row(**{**plain.__dict__, "beside": "old: 49.0 ± 0.0 (n = 1)"})
    text = render([Section("One", "c", "n", (plain,)), Section("Two", "c", "n", (beside,))])
    one, two = text.split("## Two")
    assert "beside: other selections" not in one
    assert "| a | 50.0 | w | 50.0 ± 0.0 (n = 3) | old: 49.0 ± 0.0 (n = 1) | **reproduced** |" in two
    assert report.order_text(Ours((-0.01, 0.02, -0.04))) == "+0.0 ± 0.0 (n = 3; above on 33%)"


def test_the_mer_row_takes_its_verdict_from_lambda_chosen_on_the_labels():
    import numpy as np

    from sslviz.experiments.hybrid import HybridTable
    from sslviz.experiments.hybrid_studies import MerStudy
    from sslviz.experiments.report_hybrid import mer_rows

    # two λ; cv picks λ 0 on set 0 (score -1 > -2) and λ 1 on set 1; the test set prefers the other
    study = MerStudy("webkb", 8, (0.01, 0.1), np.array([0, 1]), np.ones(2),
                     np.array([[-1.0, -2.0], [-2.0, -1.0]]), np.zeros((2, 2)),
                     np.array([[0.50, 0.60], [0.58, 0.40]]), np.zeros((2, 2, 4)))
    accuracy = np.full((1, 2, 5), np.nan)
    accuracy[0, :, 4] = (0.52, 0.45)  # MLR on the two sets
    table = HybridTable("webkb", np.array([8]), np.array([0, 1]), {"accuracy": accuracy})
    (row,) = mer_rows(study, table)
    assert row.claim == "lecture scale, webkb, 8 labels: MLR/MER above MLR"
    assert row.paper == "52.8 vs 52.4"  # Table 2, |Dl| = 8
    assert (row.ours, row.verdict) == ("-3.5 ± 1.5 (n = 2; above on 0%)", NOT)  # -2, -5
    assert row.beside == "λ best on the test set (the paper's): +10.5 ± 2.5 (n = 2; above on 100%)"


def test_lecture_09_without_its_results_file_is_not_stored_and_says_how_to_make_it(
        monkeypatch, tmp_path):
    from sslviz.experiments import report_hybrid

    monkeypatch.setattr(report_hybrid, "RESULTS_FILE", tmp_path / "hybrid_paper_scale.json")
    with pytest.raises(NotStored, match=r"^lecture 09: hybrid_paper_scale.json is missing: run "
                       r"`python -m sslviz.experiments hybrid table --selection labeled-rows`"):
        report_hybrid.fujino()
