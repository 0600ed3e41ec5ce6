"""Hyper-parameters chosen on labeled rows only, against scikit-learn and scipy directly."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import dirichlet_multinomial
from sklearn.metrics import log_loss
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.naive_bayes import MultinomialNB
from synthetic import topic_corpus

from sslviz.em import SemiSupervisedNB
from sslviz.tuning import (
    best_index,
    choose_alpha,
    choose_by_cv,
    labeled_folds,
    log_evidence,
    loo_log_likelihood,
)


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
                          random_state=0, scoring="accuracy")
    rows = np.flatnonzero(y_semi != -1)
    folds = StratifiedKFold(3, shuffle=True, random_state=0).split(rows, y[rows])
    reference = GridSearchCV(MultinomialNB(), {"alpha": [1.0, 0.1, 0.01]},
                             cv=list(folds)).fit(X[rows], y[rows])
    np.testing.assert_allclose(choice.scores, reference.cv_results_["mean_test_score"])
    assert "3-fold cv accuracy" in choice.describe()
    assert choice.params == {"alpha": 0.1}  # all three tie on accuracy: the middle one


def _fold_loop(X, y, y_semi, weight, with_unlabeled):
    """Mean held-out log-loss of SemiSupervisedNB over 2 stratified folds of the labeled rows,
    written out by hand: each fold trains on its labeled rows (and, if asked, every unlabeled
    row, as -1) and is scored on its held-out labeled rows."""
    rows = np.flatnonzero(y_semi != -1)
    unlabeled = np.flatnonzero(y_semi == -1) if with_unlabeled else np.array([], dtype=int)
    scores = []
    for train, test in StratifiedKFold(2, shuffle=True, random_state=0).split(rows, y[rows]):
        fit_rows = np.concatenate([rows[train], unlabeled])
        model = SemiSupervisedNB(max_iter=2, record="summary", unlabeled_weight=weight)
        model.fit(X[fit_rows], y_semi[fit_rows])
        proba = model.predict_proba(X[rows[test]])
        scores.append(-log_loss(y[rows[test]], proba, labels=model.classes_))
    return np.mean(scores)


def test_semi_supervised_folds_train_on_unlabeled_rows():
    # topics that overlap (few topic words per document), so that the held-out loss is not 0
    X, y, _ = topic_corpus(120, 30, 0, seed=1, topic_rate=0.7, background=0.4)
    y_semi = np.where(np.arange(len(y)) % 4 == 0, y, -1)
    choice = choose_by_cv(SemiSupervisedNB(max_iter=2, record="summary"),
                          {"unlabeled_weight": [0.0, 1.0]}, X, y_semi, cv=2, random_state=0,
                          semi_supervised=True, scoring="neg_log_loss")
    with_unlabeled = [_fold_loop(X, y, y_semi, w, True) for w in (0.0, 1.0)]
    np.testing.assert_allclose(choice.scores, with_unlabeled, rtol=1e-10)
    # the unlabeled rows were really there: with weight 1 they change the score, with 0 not
    labeled_only = _fold_loop(X, y, y_semi, 1.0, False)
    assert choice.scores[0] == pytest.approx(labeled_only, rel=1e-10)
    assert abs(choice.scores[1] - labeled_only) > 1e-3


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
    cv = choose_alpha(X, y, random_state=0, method="cv")
    assert cv.criterion == "5-fold cv log-likelihood"
    evidence = choose_alpha(X, y, method="evidence")
    assert evidence.value == max(evidence.candidates,
                                 key=lambda c: log_evidence(X, y, c["alpha"]))["alpha"]
    with pytest.raises(ValueError, match="method must be 'auto', 'loo', 'cv' or 'evidence'"):
        choose_alpha(X, y, method="aic")


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


def _brute_force_loo(X, y, alpha):
    total = 0.0
    for i in range(X.shape[0]):
        keep = np.arange(X.shape[0]) != i
        nb = MultinomialNB(alpha=alpha).fit(X[keep], y[keep])
        total += nb.predict_log_proba(X[i])[0, list(nb.classes_).index(y[i])]
    return total


@pytest.fixture(scope="module")
def overlapping_counts():
    """Short documents from close word distributions: held-out rows are sometimes wrong."""
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1, 2], 6)
    base = rng.dirichlet(np.full(25, 1.0))
    rates = [0.8 * base + 0.2 * rng.dirichlet(np.full(25, 0.5)) for _ in range(3)]
    X = np.vstack([rng.multinomial(12, rates[c]) for c in y])
    return sp.csr_matrix(X), y


@pytest.mark.parametrize("alpha", [1.0, 0.05, 0.001])
def test_loo_log_likelihood_equals_refitting_without_each_document(overlapping_counts, alpha):
    X, y = overlapping_counts
    assert loo_log_likelihood(X, y, alpha) == pytest.approx(_brute_force_loo(X, y, alpha),
                                                            rel=1e-9)


def test_choose_alpha_by_loo_with_two_labeled_documents_per_class(overlapping_counts):
    X, y = overlapping_counts
    choice = choose_alpha(X, y)
    assert choice.criterion == "leave-one-out log-likelihood"
    expected = [_brute_force_loo(X, y, a) for a in (1.0, 0.3, 0.1, 0.03, 0.01, 0.003, 0.001)]
    np.testing.assert_allclose(choice.scores, expected, rtol=1e-9)
    assert choice.value == (1.0, 0.3, 0.1, 0.03, 0.01, 0.003, 0.001)[int(np.argmax(expected))]
    assert "*" in choice.score_table()


def test_exact_ties_go_to_the_middle_of_the_tied_candidates_not_the_first():
    assert best_index([0.5, 0.9, 0.9, 0.9, 0.1]) == 2
    assert best_index([0.9, 0.9, 0.3]) == 0
    assert best_index([np.nan, 0.2, 0.7]) == 2
    with pytest.raises(ValueError, match="no candidate of the grid could be scored"):
        best_index([np.nan, np.nan])


def test_default_cv_score_is_the_held_out_log_likelihood(overlapping_counts):
    X, y = overlapping_counts
    choice = choose_by_cv(MultinomialNB(), {"alpha": [1.0, 0.1, 0.01]}, X, y, cv=3,
                          random_state=0)
    folds = StratifiedKFold(3, shuffle=True, random_state=0).split(np.arange(len(y)), y)
    reference = GridSearchCV(MultinomialNB(), {"alpha": [1.0, 0.1, 0.01]}, cv=list(folds),
                             scoring="neg_log_loss").fit(X, y)
    np.testing.assert_allclose(choice.scores, reference.cv_results_["mean_test_score"])
    assert "log-likelihood" in choice.criterion


def test_margin_classifiers_are_tuned_by_held_out_hinge_loss(counts):
    from sklearn.svm import LinearSVC

    X, y = counts
    binary = np.where(y == 2, -1, y)
    choice = choose_by_cv(LinearSVC(loss="hinge", max_iter=20_000), {"C": [0.1, 1.0]}, X, binary,
                          cv=3, random_state=0)
    assert choice.criterion == "3-fold cv hinge loss" and np.all(choice.scores <= 0)


def test_grouped_folds_keep_each_group_together():
    rng = np.random.default_rng(1)
    groups = np.repeat(np.arange(30), 4)  # 30 "stories" of 4 rows
    y = rng.integers(0, 2, len(groups))
    y[::7] = -1
    folds = labeled_folds(y, 3, random_state=0, include_unlabeled=True, groups=groups)
    labeled = np.flatnonzero(y != -1)
    held = np.concatenate([test for _, test in folds])
    assert sorted(held) == sorted(labeled)  # every labeled row held out exactly once
    for train, test in folds:
        train_labeled = train[y[train] != -1]
        assert not set(groups[train_labeled]) & set(groups[test])
        assert set(np.flatnonzero(y == -1)) <= set(train)
    ungrouped = labeled_folds(y, 3, random_state=0)
    assert any(set(groups[tr]) & set(groups[te]) for tr, te in ungrouped)
