"""Hyper-parameters chosen on labeled rows only, against scikit-learn and scipy directly."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import dirichlet_multinomial
from sklearn.metrics import log_loss
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.naive_bayes import MultinomialNB
from synthetic import topic_corpus

from sslviz.claims import EdgeNotAcknowledged, acknowledge_edge
from sslviz.em import SemiSupervisedNB
from sslviz.tuning import (
    ALPHA_CRITERIA,
    ALPHA_GRID,
    MARGIN_SCORING,
    NEG_HINGE_LOSS,
    Choice,
    best_index,
    choose_by_cv,
    choose_by_cv_interior,
    choose_interior,
    choose_nb_alpha,
    labeled_folds,
    log_evidence,
    loo_accuracy,
    loo_generative_log_likelihood,
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
    choice = choose_nb_alpha(X, one_each)  # default: the evidence, defined with one per class
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


def test_the_loo_log_likelihood_criterion_scores_each_alpha_by_refitting(overlapping_counts):
    X, y = overlapping_counts
    choice = choose_nb_alpha(X, y, criterion="loo_log_likelihood")
    assert choice.criterion.startswith("leave-one-out log-likelihood")
    values = [c["alpha"] for c in choice.candidates]
    expected = [_brute_force_loo(X, y, a) for a in values]
    np.testing.assert_allclose(choice.scores, expected, rtol=1e-9)
    assert choice.params["alpha"] == values[int(np.argmax(expected))]


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


# -- the NB α criteria, against refits of scikit-learn's MultinomialNB ------------------------

def _brute_force_loo_accuracy(X, y, alpha):
    correct = []
    for i in range(X.shape[0]):
        keep = np.arange(X.shape[0]) != i
        nb = MultinomialNB(alpha=alpha).fit(X[keep], y[keep])
        correct.append(nb.predict(X[i])[0] == y[i])
    return float(np.mean(correct))


def _brute_force_loo_generative(X, y, alpha):
    total = 0.0
    for i in range(X.shape[0]):
        keep = np.arange(X.shape[0]) != i
        nb = MultinomialNB(alpha=alpha).fit(X[keep], y[keep])
        total += float((X[i] @ nb.feature_log_prob_[list(nb.classes_).index(y[i])])[0])
    return total


@pytest.mark.parametrize("alpha", [2.0, 0.05, 0.001])
def test_loo_accuracy_equals_refitting_without_each_document(overlapping_counts, alpha):
    X, y = overlapping_counts
    ours = loo_accuracy(X, y, alpha)
    assert ours == _brute_force_loo_accuracy(X, y, alpha)
    assert 0 < ours < 1  # some held-out documents are wrong: the case is not trivial


@pytest.mark.parametrize("alpha", [2.0, 0.05, 0.001])
def test_loo_generative_likelihood_equals_refitting_without_each_document(overlapping_counts,
                                                                          alpha):
    X, y = overlapping_counts
    assert loo_generative_log_likelihood(X, y, alpha) == pytest.approx(
        _brute_force_loo_generative(X, y, alpha), rel=1e-10)


def test_log_evidence_on_a_hand_worked_case():
    # class 0 holds the tokens "a a", class 1 "a b"; V = 2, α = 1/2. By the Pólya urn the
    # sequences have probability (0.5/1)(1.5/2) = 0.375 and (0.5/1)(0.5/2) = 1/8.
    X, y = sp.csr_matrix([[2, 0], [1, 1]]), np.array([0, 1])
    assert log_evidence(X, y, 0.5) == pytest.approx(np.log(0.375 / 8), rel=1e-12)
    # and a direct log-gamma sum over every word (zero counts included), at another α
    alpha, direct = 0.3, 0.0
    for counts in ([2, 0], [1, 1]):
        direct += math.lgamma(2 * alpha) - math.lgamma(2 * alpha + sum(counts))
        direct += sum(math.lgamma(alpha + n) - math.lgamma(alpha) for n in counts)
    assert log_evidence(X, y, alpha) == pytest.approx(direct, rel=1e-12)


@pytest.mark.parametrize("function", [loo_accuracy, loo_generative_log_likelihood])
def test_leave_one_out_criteria_refuse_a_class_with_one_document(counts, function):
    X, y = counts
    y = y.copy()
    y[0] = 7  # a class of one document
    with pytest.raises(ValueError, match="at least 2 labeled documents in every class; the "
                                         r"smallest class has 1 \(with one per class use the "
                                         "evidence"):
        function(X, y, 0.1)


@pytest.mark.parametrize("criterion", sorted(ALPHA_CRITERIA))
def test_choose_nb_alpha_picks_the_best_of_a_direct_call(overlapping_counts, criterion):
    X, y = overlapping_counts
    choice = choose_nb_alpha(X, y, criterion=criterion)
    function = ALPHA_CRITERIA[criterion][0]
    values = [c["alpha"] for c in choice.candidates]
    assert values == sorted(values) and set(ALPHA_GRID) <= set(values)
    direct = np.array([function(X, y, a) for a in values])
    np.testing.assert_allclose(choice.scores, direct, rtol=1e-12)
    best = np.flatnonzero(np.isclose(direct, direct.max(), rtol=1e-12, atol=1e-12))
    assert values.index(choice.params["alpha"]) in best


def test_choose_nb_alpha_falls_back_to_the_evidence_with_one_document_per_class(counts):
    X, y = counts
    one_each = np.full(len(y), -1)
    one_each[[0, 12, 24]] = [0, 1, 2]
    assert choose_nb_alpha(X, one_each).criterion == "evidence"
    with pytest.raises(ValueError, match="at least 2 labeled documents in every class"):
        choose_nb_alpha(X, one_each, criterion="loo_accuracy")
    with pytest.raises(ValueError, match="criterion must be 'default' or one of"):
        choose_nb_alpha(X, one_each, criterion="accuracy")


def test_loo_accuracy_ties_are_broken_by_the_evidence(counts):
    X, y = counts  # well separated topics: every α classifies every held-out document
    choice = choose_nb_alpha(X, y, criterion="loo_accuracy")
    assert np.all(choice.scores == 1.0)
    assert choice.criterion == "leave-one-out accuracy (ties: evidence)"
    values = [c["alpha"] for c in choice.candidates]
    evidence = [log_evidence(X, y, a) for a in values]
    assert choice.params["alpha"] == values[int(np.argmax(evidence))]


# -- margin classifiers: a criterion the majority class cannot win -----------------------------

def test_balanced_accuracy_is_not_won_by_predicting_the_majority_class():
    from sklearn.dummy import DummyClassifier
    from sklearn.pipeline import Pipeline
    from sklearn.svm import LinearSVC

    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], [90, 10])
    X = rng.normal(size=(100, 2))
    X[y == 1] += 1.5
    model = Pipeline([("clf", LinearSVC())])
    grid = {"clf": [DummyClassifier(strategy="most_frequent"),
                    LinearSVC(class_weight="balanced")]}
    plain = choose_by_cv(model, grid, X, y, cv=5, random_state=0, scoring="accuracy")
    assert isinstance(plain.params["clf"], DummyClassifier)  # 90 % by saying "0" every time
    fair = choose_by_cv(model, grid, X, y, cv=5, random_state=0, scoring=MARGIN_SCORING)
    assert isinstance(fair.params["clf"], LinearSVC)
    assert fair.scores[0] == pytest.approx(0.5) and fair.scores[1] > 0.5


def test_exact_ties_are_broken_by_the_stated_secondary_criterion(overlapping_counts):
    X, y = overlapping_counts
    grid = {"alpha": [0.6, 0.7, 0.8, 0.9, 1.0]}
    choice = choose_by_cv(MultinomialNB(), grid, X, y, cv=3, random_state=0,
                          scoring="accuracy", tie_break="neg_log_loss")
    assert [c["alpha"] for c in choice.tied] == [0.9, 1.0]  # the middle rule alone: 0.9
    assert choice.criterion.endswith("(ties: neg_log_loss)")
    folds = StratifiedKFold(3, shuffle=True, random_state=0).split(np.arange(len(y)), y)
    reference = GridSearchCV(MultinomialNB(), grid, cv=list(folds),
                             scoring="neg_log_loss").fit(X, y)
    assert choice.params == reference.best_params_ == {"alpha": 1.0}
    assert best_index([0.9, 0.9, 0.9, 0.1], [0.0, 5.0, 1.0, 100.0]) == 1
    assert best_index([0.9, 0.9, 0.9], [1.0, 1.0, 1.0]) == 1  # still tied: the middle


# -- no silent edge ------------------------------------------------------------------------------

def _peak_at(target):
    return lambda value: -(np.log10(value) - np.log10(target)) ** 2


def test_an_edge_choice_extends_the_grid_by_decades_until_it_is_interior():
    choice = choose_interior(_peak_at(1e-5), ALPHA_GRID, kind="alpha", criterion="peak")
    assert choice.params == {"alpha": pytest.approx(1e-5)}
    np.testing.assert_allclose(choice.extended, [1e-4, 1e-5, 1e-6])
    assert not choice.at_bound and choice.value == pytest.approx(1e-5)
    inside = choose_interior(_peak_at(0.01), ALPHA_GRID, kind="alpha", criterion="peak")
    assert inside.extended == () and inside.value == 0.01


@pytest.mark.parametrize(("target", "edge", "side"), [(1e-9, 1e-6, "lower"), (1e4, 100.0, "upper")])
def test_an_edge_choice_stops_at_the_documented_bound_and_says_so(target, edge, side):
    choice = choose_interior(_peak_at(target), ALPHA_GRID, kind="alpha", criterion="peak")
    assert choice.at_bound and choice.params["alpha"] == pytest.approx(edge)
    assert f"alpha = {edge:g} is at the {side} bound of its grid" in choice.edge_message


def test_a_bounded_linear_parameter_is_extended_by_its_grid_step():
    choice = choose_interior(lambda w: w, [0.0, 0.1, 0.25], kind="unlabeled_weight",
                             criterion="rising")
    values = [c["unlabeled_weight"] for c in choice.candidates]
    np.testing.assert_allclose(values, [0, 0.1, 0.25, 0.4, 0.55, 0.7, 0.85, 1.0])
    assert choice.at_bound and choice.params["unlabeled_weight"] == 1.0


def test_grids_outside_the_bounds_or_too_short_are_refused():
    with pytest.raises(ValueError, match=r"alpha = 1000 is outside its documented bounds "
                                         r"\[1e-06, 100\]"):
        choose_interior(_peak_at(1), [0.1, 1, 1000], kind="alpha", criterion="peak")
    with pytest.raises(ValueError, match="the grid needs at least 3 distinct values"):
        choose_interior(_peak_at(1), [0.1, 1], kind="alpha", criterion="peak")


def test_an_unacknowledged_edge_choice_raises_when_used_under_strict_claims(monkeypatch, capsys):
    choice = choose_interior(_peak_at(1e4), ALPHA_GRID, kind="alpha", criterion="peak")
    monkeypatch.setenv("SSLVIZ_STRICT_CLAIMS", "1")
    for use in (lambda c: c.value, lambda c: c.describe(), lambda c: c.score_table()):
        with pytest.raises(EdgeNotAcknowledged, match="alpha = 100 is at the upper bound of its "
                                                      "grid .*acknowledge it with"):
            use(choice)
    with pytest.raises(ValueError, match="reason must be a non-empty str"):
        choice.acknowledge_edge("  ")
    fine = acknowledge_edge(choice, "the scores still rise at 100: smoothing wins here")
    assert "alpha = 100 is at the upper bound" in capsys.readouterr().out
    assert fine.value == 100.0 and "smoothing wins here" in fine.describe()
    monkeypatch.setenv("SSLVIZ_STRICT_CLAIMS", "0")
    with pytest.warns(UserWarning, match="alpha = 100 is at the upper bound"):
        assert choice.value == 100.0
    inside = choose_interior(_peak_at(0.01), ALPHA_GRID, kind="alpha", criterion="peak")
    assert acknowledge_edge(inside, "unused") is inside


def test_choose_by_cv_interior_uses_the_same_folds_as_choose_by_cv(counts):
    from sklearn.svm import LinearSVC

    X, y = counts
    binary = np.where(y == 2, 1, 0)
    interior = choose_by_cv_interior(LinearSVC(), "C", [0.01, 0.1, 1.0], X, binary, kind="C",
                                     cv=3, random_state=0, scoring=MARGIN_SCORING,
                                     tie_break=NEG_HINGE_LOSS)
    values = [c["C"] for c in interior.candidates]
    plain = choose_by_cv(LinearSVC(), {"C": values}, X, binary, cv=3, random_state=0,
                         scoring=MARGIN_SCORING)
    np.testing.assert_allclose(interior.scores, plain.scores)
    assert interior.criterion.startswith("3-fold cv balanced_accuracy (ties: hinge loss)")


def test_leave_one_out_folds_hold_out_each_labeled_row_alone(counts):
    from sslviz.tuning import cv_score

    X, y = counts
    y_semi = np.where(np.arange(len(y)) % 3 == 0, y, -1)
    folds = labeled_folds(y_semi, "loo", include_unlabeled=True)
    labeled, unlabeled = np.flatnonzero(y_semi != -1), np.flatnonzero(y_semi == -1)
    assert [test.tolist() for _, test in folds] == [[row] for row in labeled]
    for (train, _), row in zip(folds, labeled, strict=True):
        assert sorted(train) == sorted(set(labeled) - {row} | set(unlabeled))
    score = cv_score(MultinomialNB(), "alpha", X, y_semi, cv="loo", scoring="accuracy")
    assert score.folds_name == "leave-one-out"
    assert score(0.05) == loo_accuracy(X[labeled], y[labeled], 0.05)  # the closed form
    with pytest.raises(ValueError, match="leave-one-out needs at least 2 labeled rows, got 1"):
        labeled_folds(np.array([0, -1, -1]), "loo")


@pytest.mark.parametrize("chosen, edge", [(0.1, True), (1.0, False), (10.0, True)])
def test_every_choice_knows_when_it_sits_at_an_end_of_a_hand_built_grid(chosen, edge):
    candidates = [{"C": c} for c in (0.1, 1.0, 10.0)]
    choice = Choice({"C": chosen}, candidates, np.zeros(3), "hand-built")
    assert choice.at_bound is edge
    assert ("is the" in choice.edge_message) is edge


def test_categorical_and_two_valued_parameters_have_no_edge():
    covariances = [{"covariance": c} for c in ("full", "diag", "spherical")]
    assert not Choice({"covariance": "full"}, covariances, np.zeros(3), "cv").at_bound
    switch = [{"C": c} for c in (0.1, 10.0)]
    assert not Choice({"C": 10.0}, switch, np.zeros(2), "cv").at_bound


def test_a_two_parameter_grid_is_at_an_edge_when_either_parameter_is():
    grid = [{"k": k, "a": a} for k in (5, 10, 20) for a in (0.2, 0.5, 0.9)]
    assert not Choice({"k": 10, "a": 0.5}, grid, np.zeros(9), "cv").at_bound
    edge = Choice({"k": 10, "a": 0.9}, grid, np.zeros(9), "cv")
    assert edge.at_bound and edge.edge_message.startswith("a = 0.9 is the largest")


def test_a_count_parameter_is_doubled_and_stays_a_whole_number():
    choice = choose_interior(lambda k: -abs(k - 40), [5, 10, 20], kind="n_neighbors",
                             criterion="peak at 40")
    assert choice.params == {"n_neighbors": 40} and isinstance(choice.params["n_neighbors"], int)
    assert choice.extended == (40, 80)
    down = choose_interior(lambda k: -k, [3, 5, 10], kind="n_components", criterion="fewer")
    assert down.params == {"n_components": 1} and down.at_bound
    with pytest.raises(ValueError, match="n_neighbors must be a whole number, got 2.5"):
        choose_interior(lambda k: 0.0, [2.5, 5, 10], kind="n_neighbors", criterion="x")
