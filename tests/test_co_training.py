"""Co-training against scikit-learn's Naive Bayes fitted by hand, and its schedule's invariants."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.naive_bayes import MultinomialNB
from sklearn.svm import SVC

from sslviz.co_training import CoTraining


def _two_view_corpus(seed=0, n=120):
    rng = np.random.default_rng(seed)
    y_true = (rng.random(n) < 0.25).astype(int)  # about a quarter positive, as WebKB's course
    rates0 = np.where(y_true[:, None] == 1, [3, 1, 1, 0.5], [1, 2, 2, 1])
    rates1 = np.where(y_true[:, None] == 1, [2, 0.5, 1], [0.5, 2, 1])
    X = np.hstack([rng.poisson(rates0 * rng.integers(1, 6, size=(n, 1))),
                   rng.poisson(rates1)])
    y = np.full(n, -1)
    y[np.flatnonzero(y_true == 1)[:3]] = 1
    y[np.flatnonzero(y_true == 0)[:9]] = 0
    return sp.csr_matrix(X.astype(float)), y, y_true


def test_the_first_iteration_adds_each_views_most_confident_pool_rows():
    X, y, _ = _two_view_corpus()
    model = CoTraining(n_view0_features=4, pool_size=30, max_iter=1, random_state=0).fit(X, y)
    pool = model.trace_[0].pool.tolist()
    rows = np.flatnonzero(y != -1)
    nb0 = MultinomialNB().fit(X[rows][:, :4], y[rows])
    nb1 = MultinomialNB().fit(X[rows][:, 4:], y[rows])
    j0 = nb0.predict_joint_log_proba(X[pool][:, :4])
    j1 = nb1.predict_joint_log_proba(X[pool][:, 4:])
    expected, taken = [], set()
    for joint in (j0, j1):
        for c, k in ((0, 3), (1, 1)):
            log_odds = joint[:, c] - joint[:, 1 - c]
            picks = [pool[i] for i in np.argsort(-log_odds, kind="stable")
                     if pool[i] not in taken][:k]
            taken.update(picks)
            expected += picks
    step = model.trace_[1]
    assert step.added.tolist() == expected
    assert step.labels.tolist() == [0, 0, 0, 1, 0, 0, 0, 1]
    assert step.by_view.tolist() == [0, 0, 0, 0, 1, 1, 1, 1]


def test_the_schedule_keeps_the_pool_full_and_never_labels_a_row_twice():
    X, y, _ = _two_view_corpus(seed=1)
    model = CoTraining(n_view0_features=4, pool_size=20, max_iter=8, random_state=3).fit(X, y)
    seen = set(np.flatnonzero(y != -1))
    for step in list(model.trace_)[1:]:
        assert len(step.added) == 8 and not seen & set(step.added.tolist())
        # the pool chosen from: full, no labeled row in it, the added rows among it
        assert len(step.pool) == 20 and not seen & set(step.pool.tolist())
        assert set(step.added.tolist()) <= set(step.pool.tolist())
        seen |= set(step.added.tolist())
        assert step.n_labeled == len(seen)
    assert model.n_iter_ == 8 and int((model.transduction_ != -1).sum()) == 12 + 64


def test_combined_probabilities_are_the_views_product_renormalised():
    X, y, _ = _two_view_corpus(seed=2)
    model = CoTraining(n_view0_features=4, pool_size=20, max_iter=3, random_state=0).fit(X, y)
    rows = np.flatnonzero(model.transduction_ != -1)
    labels = model.transduction_[rows].astype(int)
    p0 = MultinomialNB().fit(X[rows][:, :4], labels).predict_proba(X[:, :4])
    p1 = MultinomialNB().fit(X[rows][:, 4:], labels).predict_proba(X[:, 4:])
    product = p0 * p1
    np.testing.assert_allclose(model.predict_proba(X), product / product.sum(1, keepdims=True))
    assert (model.predict_view(X, 1) == MultinomialNB().fit(X[rows][:, 4:], labels)
            .predict(X[:, 4:])).all()


def test_self_training_mode_uses_one_classifier_and_the_same_growth():
    X, y, _ = _two_view_corpus(seed=3)
    model = CoTraining(n_view0_features=4, pool_size=30, max_iter=1, mode="self",
                       random_state=0).fit(X, y)
    rows = np.flatnonzero(y != -1)
    pool = model.trace_[0].pool.tolist()
    proba = MultinomialNB().fit(X[rows], y[rows]).predict_proba(X[pool])
    expected = [pool[i] for i in np.argsort(-proba[:, 0], kind="stable")][:6]
    expected += [pool[i] for i in np.argsort(-proba[:, 1], kind="stable")
                 if pool[i] not in expected][:2]
    assert model.trace_[1].added.tolist() == expected and len(model.estimators_) == 1


def test_growth_defaults_to_the_labeled_class_ratio():
    X, y, _ = _two_view_corpus()
    model = CoTraining(n_view0_features=4, max_iter=1, random_state=0).fit(X, y)
    assert np.bincount(model.trace_[1].labels.astype(int)).tolist() == [6, 2]


def test_same_seed_same_run():
    X, y, _ = _two_view_corpus(seed=4)
    runs = [CoTraining(n_view0_features=4, pool_size=15, max_iter=4, random_state=7).fit(X, y)
            for _ in range(2)]
    assert all((a.added == b.added).all() for a, b in zip(runs[0].trace_, runs[1].trace_,
                                                           strict=True))


@pytest.mark.parametrize(("params", "message"), [
    ({"n_view0_features": 7}, "n_view0_features must be an integer in \\[1, 6\\], got 7"),
    ({"n_view0_features": 4, "per_class": [1]}, "per_class must give one count per class"),
    ({"n_view0_features": 4, "mode": "tri"}, "mode must be one of"),
    ({"n_view0_features": 4, "pool_size": 0}, "pool_size must be an integer >= 1"),
])
def test_bad_parameters_are_named(params, message):
    X, y, _ = _two_view_corpus()
    with pytest.raises(ValueError, match=message):
        CoTraining(**params).fit(X, y)


def test_a_view_with_no_words_on_the_labeled_rows_is_refused():
    X, y, _ = _two_view_corpus()
    X = X.tolil()
    X[:, 4:] = 0
    with pytest.raises(ValueError, match="view 1 has no features on any labeled row"):
        CoTraining(n_view0_features=4).fit(X.tocsr(), y)


def test_saturated_probabilities_are_ranked_by_their_log_odds_not_by_pool_order():
    # view 0: class 1 uses word 1; long pool rows all get P(class 1) == 1.0 exactly
    lengths = np.array([300, 600, 900, 1200, 1500, 1800, 2100, 2400])
    labeled = np.array([[9, 1, 5, 5], [8, 2, 5, 5], [7, 3, 5, 5], [2, 8, 5, 5], [1, 9, 5, 5],
                        [3, 7, 5, 5]], dtype=float)
    pool_rows = np.column_stack([lengths // 10, lengths, np.full(8, 5), np.full(8, 5)])
    X = sp.csr_matrix(np.vstack([labeled, pool_rows]).astype(float))
    y = np.r_[0, 0, 0, 1, 1, 1, np.full(8, -1)]
    model = CoTraining(n_view0_features=2, per_class=(0, 1), pool_size=8, max_iter=1,
                       random_state=0).fit(X, y)
    pool = model.trace_[1].pool
    nb = MultinomialNB().fit(X[:6, :2], y[:6])
    proba = nb.predict_proba(X[pool][:, :2])[:, 1]
    assert (proba == 1.0).all()  # saturated: a ranking by probability is the pool order
    longest = 6 + int(np.argmax(lengths))
    assert pool[0] != longest  # so the probability ranking would not pick it
    first_view_pick = model.trace_[1].added[model.trace_[1].by_view == 0]
    assert first_view_pick.tolist() == [longest]  # the log-odds grow with the length


@pytest.mark.parametrize(("params", "message"), [
    ({"estimator": "nb"}, r"estimator must be a scikit-learn classifier with fit, predict_proba "
                          r"and predict_log_proba \(e.g. MultinomialNB\(\)\); 'nb' has no fit, "
                          r"predict_proba, get_params, predict_log_proba"),
    ({"estimator": MultinomialNB}, r"estimator must be a classifier instance, got the class "
                                   r"MultinomialNB: write MultinomialNB\(\)"),
    ({"estimator": SVC()}, r"SVC\(\) has no predict_proba"),
    ({"per_class": 3}, r"per_class must be a sequence of one count per class \(2 classes\), "
                       r"e.g. \[1, 3\], got 3"),
    ({"per_class": "13"}, r"per_class must be a sequence .*got '13'"),
    ({"per_class": [[1], [1, 2]]}, r"per_class must be a sequence .*got \[\[1\], \[1, 2\]\]"),
    ({"per_class": {0: 1, 1: 3}}, r"per_class must be a sequence .*got \{0: 1, 1: 3\}"),
    ({"per_class": [1, 2.5]}, r"per_class must be an integer >= 0, got 2.5"),
    ({"per_class": [1, -1]}, r"per_class must be an integer >= 0, got -1"),
])
def test_estimator_and_per_class_are_checked_by_name(params, message):
    X, y, _ = _two_view_corpus()
    with pytest.raises(ValueError, match=message):
        CoTraining(n_view0_features=4, **params).fit(X, y)


def test_a_classifier_with_log_probabilities_is_accepted():
    from sklearn.linear_model import LogisticRegression

    X, y, _ = _two_view_corpus()
    model = CoTraining(n_view0_features=4, estimator=LogisticRegression(), per_class=[1, 1],
                       pool_size=10, max_iter=2, random_state=0).fit(X, y)
    assert model.n_iter_ == 2 and isinstance(model.estimators_[0], LogisticRegression)
