"""Hyper-parameters chosen on labeled rows only, against scikit-learn and scipy directly."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import dirichlet_multinomial
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.naive_bayes import MultinomialNB

from sslviz.em import SemiSupervisedNB
from sslviz.tuning import choose_alpha, choose_by_cv, labeled_folds, log_evidence


@pytest.fixture(scope="module")
def counts():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 12)
    rates = rng.dirichlet(np.full(30, 0.3), size=3)
    X = np.vstack([rng.multinomial(40, rates[c]) for c in y])
    return sp.csr_matrix(X), y


def test_folds_hold_out_labeled_rows_only(counts):
    _, y = counts
    y_semi = y.copy()
    y_semi[::3] = -1
    folds = labeled_folds(y_semi, 3, random_state=0, include_unlabeled=True)
    unlabeled = set(np.flatnonzero(y_semi == -1))
    for train, test in folds:
        assert unlabeled <= set(train) and not unlabeled & set(test)
    assert sorted(np.concatenate([test for _, test in folds])) == sorted(
        np.flatnonzero(y_semi != -1))


def test_choose_by_cv_equals_grid_search_on_the_labeled_rows(counts):
    X, y = counts
    y_semi = np.where(np.arange(len(y)) % 2 == 0, y, -1)
    choice = choose_by_cv(MultinomialNB(), {"alpha": [1.0, 0.1, 0.01]}, X, y_semi, cv=3,
                          random_state=0)
    rows = np.flatnonzero(y_semi != -1)
    folds = StratifiedKFold(3, shuffle=True, random_state=0).split(rows, y[rows])
    reference = GridSearchCV(MultinomialNB(), {"alpha": [1.0, 0.1, 0.01]},
                             cv=list(folds)).fit(X[rows], y[rows])
    np.testing.assert_allclose(choice.scores, reference.cv_results_["mean_test_score"])
    assert choice.params == reference.best_params_
    assert "3-fold cv accuracy" in choice.describe()


def test_semi_supervised_folds_train_on_unlabeled_rows(counts):
    X, y = counts
    y_semi = np.where(np.arange(len(y)) % 3 == 0, y, -1)
    choice = choose_by_cv(SemiSupervisedNB(max_iter=2, record="summary"),
                          {"unlabeled_weight": [0.0, 1.0]}, X, y_semi, cv=2, random_state=0,
                          semi_supervised=True)
    assert len(choice.scores) == 2 and choice.value in (0.0, 1.0)


def test_cv_needs_two_labeled_rows_per_class(counts):
    X, y = counts
    one_each = np.full(len(y), -1)
    one_each[[0, 12, 24]] = [0, 1, 2]
    with pytest.raises(ValueError, match="at least 2 labeled rows in every class; the smallest "
                                         "class has 1"):
        choose_by_cv(MultinomialNB(), {"alpha": [1.0]}, X, one_each)
    choice = choose_alpha(X, one_each)  # auto: falls back to the evidence
    assert choice.criterion == "evidence"


def test_log_evidence_differences_equal_scipys_dirichlet_multinomial(counts):
    X, y = counts

    def scipy_evidence(alpha):
        total = 0.0
        for c in np.unique(y):
            n = np.asarray(X[y == c].sum(axis=0)).ravel().astype(int)
            total += dirichlet_multinomial.logpmf(n, np.full(X.shape[1], alpha), n.sum())
        return total

    ours = np.array([log_evidence(X, y, a) for a in (0.01, 0.3, 2.0)])
    theirs = np.array([scipy_evidence(a) for a in (0.01, 0.3, 2.0)])
    np.testing.assert_allclose(ours - ours[0], theirs - theirs[0], rtol=1e-9)


def test_choose_alpha_methods(counts):
    X, y = counts
    cv = choose_alpha(X, y, random_state=0)
    assert cv.criterion.startswith("5-fold cv")
    evidence = choose_alpha(X, y, method="evidence")
    assert evidence.value == max(evidence.candidates,
                                 key=lambda c: log_evidence(X, y, c["alpha"]))["alpha"]
    with pytest.raises(ValueError, match="method must be 'auto', 'cv' or 'evidence'"):
        choose_alpha(X, y, method="loo")


def test_unstratified_fallback_gives_plain_shuffled_folds(counts):
    X, y = counts
    one_each = np.full(len(y), -1)
    one_each[[0, 1, 12, 24]] = [0, 0, 1, 2]
    folds = labeled_folds(one_each, 3, random_state=0, allow_unstratified=True)
    rows = np.array([0, 1, 12, 24])
    from sklearn.model_selection import KFold
    expected = [rows[test] for _, test in KFold(3, shuffle=True, random_state=0).split(rows)]
    assert [t.tolist() for _, t in folds] == [e.tolist() for e in expected]
    choice = choose_by_cv(MultinomialNB(), {"alpha": [1.0, 0.1]}, X, one_each, cv=3,
                          random_state=0, allow_unstratified=True)
    assert len(choice.scores) == 2 and np.all(np.isfinite(choice.scores))
