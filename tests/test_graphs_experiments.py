"""Lecture 11's experiments on synthetic topics: labeled draws, graph settings chosen on hidden
labeled folds, and the jobs' bookkeeping against independent computations."""

from __future__ import annotations

import numpy as np
import pytest
from synthetic import topic_corpus

from sslviz.experiments import graphs
from sslviz.label_propagation import GraphPropagation


@pytest.fixture(scope="module")
def task():
    X, y, _ = topic_corpus(n_docs=150, n_words=30, n_topics=2, seed=1)
    return graphs.GraphTask("toy", X, graphs.unit_rows(X), y, ("a", "b"))


def test_a_labeled_fraction_takes_that_share_of_every_class_and_at_least_one():
    y = np.repeat([0, 1, 2], [100, 40, 3])
    y_semi = graphs.labeled_draw(y, fraction=0.1, seed=4)
    assert [int(np.sum(y_semi == c)) for c in (0, 1, 2)] == [10, 4, 1]
    assert (y_semi[y_semi != -1] == y[y_semi != -1]).all()
    same = graphs.labeled_draw(y, fraction=0.1, seed=4)
    assert (same == y_semi).all()


def test_a_labeled_set_can_have_another_class_ratio_than_the_data():
    y = np.repeat([0, 1], [80, 20])
    y_semi = graphs.labeled_draw(y, n_labeled=20, seed=0, positive_share=0.75)
    assert int(np.sum(y_semi == 1)) == 15 and int(np.sum(y_semi == 0)) == 5
    natural = graphs.labeled_draw(y, n_labeled=20, seed=0)
    assert int(np.sum(natural == 1)) == 4 and int(np.sum(natural == 0)) == 16


def test_graph_cv_scores_are_the_hidden_labels_log_likelihood(task):
    y_semi = graphs.labeled_draw(task.y, fraction=0.2, seed=0)
    graphs_ = graphs.NeighbourGraphs(task.unit)
    choice = graphs.graph_cv(graphs_, y_semi, "harmonic", grid={"n_neighbors": (5, 10)},
                             cv=3, random_state=0)
    from sslviz.tuning import labeled_folds

    expected = []
    for k in (5, 10):
        pooled = []
        for _, hidden in labeled_folds(y_semi, 3, random_state=0, allow_unstratified=True):
            y_fold = y_semi.copy()
            y_fold[hidden] = -1
            model = GraphPropagation(n_neighbors=k, record="none").fit(task.unit, y_fold)
            pooled.extend(model.label_distributions_[hidden, y_semi[hidden]])
        expected.append(np.mean(np.log(np.clip(pooled, 1e-15, 1))))
    np.testing.assert_allclose(choice.scores, expected, rtol=1e-8)
    assert choice.value == (5, 10)[int(np.argmax(expected))]


def test_graph_cv_extends_k_past_an_edge_and_scores_the_extended_grid_as_a_search_would(task):
    y_semi = graphs.labeled_draw(task.y, fraction=0.2, seed=0)
    start = (1, 2, 3)  # k = 3 the largest: the grid must grow (to 6, 12, ...) while k is at it
    choice = graphs.graph_cv(graphs.NeighbourGraphs(task.unit, max_k=3), y_semi, "harmonic",
                             grid={"n_neighbors": start}, random_state=0)
    ks = [c["n_neighbors"] for c in choice.candidates]
    doubled = [min(6 * 2 ** i, 149) for i in range(len(ks) - 3)]  # 150 rows: k stops at 149
    assert ks[:3] == list(start) and ks[3:] == doubled
    folds = graphs.labeled_folds(y_semi, 3, random_state=0, allow_unstratified=True)
    direct = graphs.NeighbourGraphs(task.unit, max_k=max(ks))  # one search, no extension
    expected = [graphs.hidden_label_scores(direct, y_semi, "harmonic", {"n_neighbors": k},
                                           folds)["log_likelihood"] for k in ks]
    np.testing.assert_allclose(choice.scores, expected, rtol=1e-10)
    best = ks[int(np.argmax(expected))]
    assert choice.params == {"n_neighbors": best}
    assert choice.at_bound == (best in (1, 149))  # interior unless at a bound


def test_a_graph_beyond_the_first_search_is_the_graph_of_a_direct_search(task):
    from sslviz.label_propagation import affinity_from_neighbours, cosine_neighbours

    small = graphs.NeighbourGraphs(task.unit, max_k=5)
    W = small(30)
    assert small.max_k >= 30
    expected = affinity_from_neighbours(*cosine_neighbours(task.unit, 30), 30)
    assert abs(W - expected).max() == 0
    with pytest.raises(ValueError, match="k = 400 needs more rows than the graph's 150"):
        small(400)


def test_hidden_label_accuracy_and_balanced_accuracy_are_scikit_learns_on_the_pooled_folds(task):
    from sklearn.metrics import accuracy_score, balanced_accuracy_score

    y = task.y.copy()
    y_semi = graphs.labeled_draw(y, fraction=0.3, seed=1)
    folds = graphs.labeled_folds(y_semi, 3, random_state=1)
    graphs_ = graphs.NeighbourGraphs(task.unit)
    scores = graphs.hidden_label_scores(graphs_, y_semi, "spreading",
                                        {"n_neighbors": 5, "alpha": 0.5}, folds)
    truth, predicted = [], []
    for _, hidden in folds:
        y_fold = y_semi.copy()
        y_fold[hidden] = -1
        model = graphs.propagate(graphs_, y_fold, "spreading", n_neighbors=5, alpha=0.5)
        truth.extend(y_semi[hidden])
        predicted.extend(model.transduction_[hidden])
    assert scores["accuracy"] == pytest.approx(accuracy_score(truth, predicted))
    assert scores["balanced_accuracy"] == pytest.approx(balanced_accuracy_score(truth, predicted))


def test_graph_cv_refuses_an_unknown_criterion_or_parameter(task):
    y_semi = graphs.labeled_draw(task.y, fraction=0.2, seed=0)
    graphs_ = graphs.NeighbourGraphs(task.unit)
    with pytest.raises(ValueError, match="criterion must be one of .*got 'auc'"):
        graphs.graph_cv(graphs_, y_semi, "harmonic", grid={"n_neighbors": (3, 5, 10)},
                        criterion="auc")
    with pytest.raises(ValueError, match=r"graph_cv tunes .*got \['sigma'\]"):
        graphs.graph_cv(graphs_, y_semi, "harmonic", grid={"sigma": (1, 2, 3)})
    with pytest.raises(ValueError, match="outside its documented bounds"):
        graphs.graph_cv(graphs_, y_semi, "spreading",
                        grid={"n_neighbors": (3, 5, 10), "alpha": (0.5, 1.0, 0.9)})


def test_a_sense_job_scores_every_method_on_the_unlabeled_rows(task):
    result = graphs.sense_job(task.counts, task.unit, task.y, 0.1, 0)
    y_semi = graphs.labeled_draw(task.y, fraction=0.1, seed=0)
    assert result["n_labeled"] == int(np.sum(y_semi != -1))
    model = GraphPropagation(n_neighbors=result["k"], record="none").fit(task.unit, y_semi)
    rest = y_semi == -1
    assert result["harmonic"] == pytest.approx(np.mean(model.transduction_[rest] == task.y[rest]))
    # the settings are interior to their (extended) grids unless the job records a bound
    assert result["k"] in (1, 3, 5, 10, 20, 40, 80, 149)
    assert result["k_at_bound"] == (result["k"] in (1, 149))
    assert 0.01 <= result["spread_alpha"] <= 0.99
    # class-mass normalisation by hand: columns scaled to the labeled class frequencies
    F = model.label_distributions_[rest]
    prior = np.bincount(y_semi[~rest], minlength=2) / np.sum(~rest)
    normalised = np.argmax(F * prior / F.sum(axis=0), axis=1)
    assert result["harmonic_cmn"] == pytest.approx(np.mean(normalised == task.y[rest]))


def test_a_text_job_reports_the_sgt_and_the_shares_it_predicts(task):
    from sslviz.sgt import SpectralGraphTransducer

    basis = graphs.spectral_basis(task, n_neighbors=10, n_components=8)
    result = graphs.text_job(task.counts, task.unit, task.y, basis, 12, 1)
    y_semi = graphs.labeled_draw(task.y, n_labeled=12, seed=1)
    rest = y_semi == -1
    sgt = SpectralGraphTransducer(n_neighbors=10, n_components=8,
                                  c=graphs.SGT_SETTINGS["c"]).fit(task.unit, y_semi)
    assert result["sgt"] == pytest.approx(np.mean(sgt.transduction_[rest] == task.y[rest]))
    assert result["sgt_positive_share"] == pytest.approx(np.mean(sgt.transduction_[rest] == 1))
    assert result["labeled_positive_share"] == pytest.approx(np.mean(y_semi[~rest] == 1))


def test_the_toy_propagation_reaches_every_point_and_labels_the_moons(tmp_path):
    X, y, y_semi, model = graphs.toy_propagation(n_samples=200)
    assert int(np.sum(y_semi != -1)) == 2
    assert (model.trace_[-1].predicted >= 0).all()  # every point reached by the last step
    assert np.mean(model.transduction_ == y) > 0.9


def test_the_shared_neighbour_search_is_the_one_each_job_would_make(task, result_cache):
    from sslviz.label_propagation import cosine_neighbours

    similarities, neighbours = graphs.neighbour_search(task.unit)
    direct = cosine_neighbours(task.unit, graphs.MAX_K)
    np.testing.assert_array_equal(neighbours, direct[1])
    np.testing.assert_array_equal(similarities, direct[0])
    assert any(result_cache.glob("graphs-neighbours/*"))  # stored, so a task searches once
    shared = graphs.sense_job(task.counts, task.unit, task.y, 0.1, 2,
                              search=(similarities, neighbours))
    assert shared == graphs.sense_job(task.counts, task.unit, task.y, 0.1, 2)
