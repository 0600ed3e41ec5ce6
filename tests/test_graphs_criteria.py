"""The graph-criterion study of lecture 11: picks, regrets and edges on hand-worked draws, and one
job against the graph module's own scores."""

from __future__ import annotations

import numpy as np
import pytest
from synthetic import topic_corpus

from sslviz.experiments import graphs
from sslviz.experiments import graphs_criteria as study


def hand_study():
    grid = [{"n_neighbors": k} for k in (1, 3, 5, 10)]
    scores = {"log_likelihood": np.array([[-2.0, -1.0, -1.5, -3.0], [-1.0, -2.0, -2.0, -2.0]]),
              "accuracy": np.array([[0.5, 0.6, 0.6, 0.6], [0.7, 0.8, 0.6, 0.5]]),
              "balanced_accuracy": np.array([[0.4, 0.3, 0.5, 0.5], [0.2, 0.3, 0.3, 0.9]])}
    test = np.array([[0.50, 0.55, 0.70, 0.60], [0.40, 0.45, 0.40, 0.35]])
    return study.CriterionStudy("toy", "harmonic", grid, scores, test)


def test_picks_break_ties_by_the_log_likelihood_then_the_middle():
    s = hand_study()
    assert s.picks("log_likelihood").tolist() == [1, 0]
    # draw 0: accuracy ties at 3, 5, 10 -> the log-likelihood prefers k = 3 (index 1)
    assert s.picks("accuracy").tolist() == [1, 1]
    # draw 0: balanced accuracy ties at 5 and 10 -> log-likelihood prefers k = 5 (index 2)
    assert s.picks("balanced_accuracy").tolist() == [2, 3]


def test_regret_is_the_test_best_setting_minus_the_picked_one_in_points():
    s = hand_study()
    np.testing.assert_allclose(s.regret("log_likelihood"), [15.0, 5.0])
    np.testing.assert_allclose(s.regret("accuracy"), [15.0, 0.0])
    np.testing.assert_allclose(s.regret("balanced_accuracy"), [0.0, 10.0])
    assert s.at_edge("log_likelihood") == 0.5  # k = 1 on draw 1 is an end of STUDY_K
    np.testing.assert_allclose(study.paired_difference([s], "accuracy", "log_likelihood"),
                               [0.0, -5.0])


def test_the_supported_criterion_is_the_lowest_regret_unless_within_a_standard_error():
    s = hand_study()
    # mean regrets 10, 7.5, 5: balanced accuracy lowest, but the paired differences (means 5
    # and 2.5) are within one standard error (10 and 12.5): all three tie; the fewest edge
    # picks (log-likelihood 0.5, the others 0) and then the order of CRITERIA name accuracy
    assert study.supported_criterion([s]) == "accuracy"
    # 3 draws on which balanced accuracy alone picks the test-best k, by 10 points each time
    picks = {"log_likelihood": 1, "accuracy": 1, "balanced_accuracy": 2}
    scores = {c: np.tile(np.eye(4)[i], (3, 1)) for c, i in picks.items()}
    clear = study.CriterionStudy("toy", "harmonic", s.grid, scores,
                                 np.tile([0.5, 0.6, 0.7, 0.65], (3, 1)))
    np.testing.assert_allclose(clear.regret("accuracy"), [10.0, 10.0, 10.0])
    assert study.supported_criterion([clear]) == "balanced_accuracy"


def test_a_job_records_the_hidden_label_scores_and_the_unlabeled_rows_accuracy():
    X, y, _ = topic_corpus(n_docs=120, n_words=30, n_topics=2, seed=3)
    unit = graphs.unit_rows(X)
    search = graphs.neighbour_search(unit, max(study.STUDY_K))
    result = study.criteria_job(unit, y, search, 0.2, 4)
    y_semi = graphs.labeled_draw(y, fraction=0.2, seed=4)
    folds = graphs.labeled_folds(y_semi, 3, random_state=4, allow_unstratified=True)
    graphs_ = graphs.NeighbourGraphs(unit, search=search)
    for i, params in ((0, {"n_neighbors": 1, "alpha": 0.2}), (-1, {"n_neighbors": 40,
                                                                   "alpha": 0.99})):
        scores = graphs.hidden_label_scores(graphs_, y_semi, "spreading", params, folds)
        for criterion, value in scores.items():
            assert result[f"spreading_{criterion}"][i] == pytest.approx(value)
    model = graphs.propagate(graphs.NeighbourGraphs(unit, search=search), y_semi, "harmonic",
                             n_neighbors=5)
    rest = y_semi == -1
    k5 = study.STUDY_K.index(5)
    assert result["harmonic_test"][k5] == pytest.approx(
        np.mean(model.transduction_[rest] == y[rest]))

