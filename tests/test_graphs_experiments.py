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
        per_fold = []
        for _, hidden in labeled_folds(y_semi, 3, random_state=0, allow_unstratified=True):
            y_fold = y_semi.copy()
            y_fold[hidden] = -1
            model = GraphPropagation(n_neighbors=k, record="none").fit(task.unit, y_fold)
            proba = model.label_distributions_[hidden, y_semi[hidden]]
            per_fold.append(np.mean(np.log(np.clip(proba, 1e-15, 1))))
        expected.append(np.mean(per_fold))
    np.testing.assert_allclose(choice.scores, expected, rtol=1e-8)
    assert choice.value == (5, 10)[int(np.argmax(expected))]


def test_a_sense_job_scores_every_method_on_the_unlabeled_rows(task):
    result = graphs.sense_job(task.counts, task.unit, task.y, 0.1, 0)
    y_semi = graphs.labeled_draw(task.y, fraction=0.1, seed=0)
    assert result["n_labeled"] == int(np.sum(y_semi != -1))
    model = GraphPropagation(n_neighbors=result["k"], record="none").fit(task.unit, y_semi)
    rest = y_semi == -1
    assert result["harmonic"] == pytest.approx(np.mean(model.transduction_[rest] == task.y[rest]))
    assert result["k"] in graphs.K_GRID and result["spread_alpha"] in graphs.SPREAD_ALPHAS
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
