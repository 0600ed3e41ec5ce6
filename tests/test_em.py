"""SemiSupervisedNB against independent computations (scikit-learn, hand-worked cases)."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import logsumexp
from sklearn.naive_bayes import MultinomialNB
from synthetic import topic_corpus

from sslviz.em import (
    SemiSupervisedNB,
    accuracy_by_iteration,
    predict_at_iteration,
    top_words,
    word_scores,
)
from sslviz.words import weighted_log_odds


def smoothed_prior(y_labeled, n_classes, alpha):
    counts = np.bincount(y_labeled, minlength=n_classes)
    return (counts + alpha) / (counts.sum() + n_classes * alpha)


@pytest.mark.parametrize("alpha", [0.1, 1.0, 2.5])
def test_iteration_zero_is_multinomial_nb_on_labeled_rows(alpha):
    X, y, y_semi = topic_corpus()
    labeled = y_semi != -1
    reference = MultinomialNB(alpha=alpha, class_prior=smoothed_prior(y[labeled], 3, alpha))
    reference.fit(X[labeled], y[labeled])
    model = SemiSupervisedNB(alpha=alpha, max_iter=0).fit(X, y_semi)
    np.testing.assert_allclose(model.predict_proba(X), reference.predict_proba(X), atol=1e-12)
    np.testing.assert_array_equal(model.predict(X), reference.predict(X))
    np.testing.assert_allclose(model.feature_log_prob_, reference.feature_log_prob_)
    assert model.n_iter_ == 0 and len(model.trace_) == 1


def test_first_m_step_equals_weighted_multinomial_nb():
    """Iteration 1 = MultinomialNB fitted on rows repeated per class, weighted by posteriors."""
    X, y, y_semi = topic_corpus()
    alpha, lam = 1.0, 0.5
    labeled = y_semi != -1
    start = MultinomialNB(alpha=alpha, class_prior=smoothed_prior(y[labeled], 3, alpha))
    start.fit(X[labeled], y[labeled])
    posteriors = start.predict_proba(X[~labeled])
    X_rep = sp.vstack([X[labeled]] + [X[~labeled]] * 3)
    y_rep = np.concatenate([y[labeled]] + [np.full((~labeled).sum(), c) for c in range(3)])
    w_rep = np.concatenate([np.ones(labeled.sum())] + [lam * posteriors[:, c] for c in range(3)])
    reference = MultinomialNB(alpha=alpha).fit(X_rep, y_rep, sample_weight=w_rep)
    expected_prior = np.bincount(y_rep, weights=w_rep) + alpha
    expected_prior /= expected_prior.sum()

    model = SemiSupervisedNB(alpha=alpha, unlabeled_weight=lam, max_iter=1).fit(X, y_semi)
    np.testing.assert_allclose(model.trace_[1].feature_log_prob, reference.feature_log_prob_)
    np.testing.assert_allclose(np.exp(model.trace_[1].class_log_prior), expected_prior)


def test_recorded_objective_is_the_map_objective():
    X, y, y_semi = topic_corpus()
    alpha, lam = 1.0, 0.7
    model = SemiSupervisedNB(alpha=alpha, unlabeled_weight=lam, max_iter=3).fit(X, y_semi)
    for step in model.trace_:
        reference = MultinomialNB(alpha=alpha).fit(X, y)  # only for its shape; overwrite params
        reference.feature_log_prob_ = step.feature_log_prob
        reference.class_log_prior_ = step.class_log_prior
        joint = reference.predict_joint_log_proba(X)
        labeled = y_semi != -1
        expected = (joint[labeled, y[labeled]].sum()
                    + lam * logsumexp(joint[~labeled], axis=1).sum()
                    + alpha * (step.class_log_prior.sum() + step.feature_log_prob.sum()))
        assert step.objective == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize("params", [
    {},
    {"unlabeled_weight": 0.2},
    {"alpha": 0.05},
    {"n_components": 3, "random_state": 1},
])
def test_objective_never_decreases(params):
    X, _, y_semi = topic_corpus(seed=3)
    model = SemiSupervisedNB(max_iter=30, tol=0, **params).fit(X, y_semi)
    objective = model.trace_.values("objective")
    assert len(objective) >= 5  # stops early only at an exact fixed point (gain 0)
    assert np.all(np.diff(objective) >= -1e-8 * np.abs(objective[1:]))


def test_annealed_objective_never_decreases_within_a_stage():
    X, _, y_semi = topic_corpus(seed=4)
    model = SemiSupervisedNB(max_iter=15, annealing=(0.2, 0.5, 1.0)).fit(X, y_semi)
    beta = model.trace_.values("beta")[1:]
    annealed = model.trace_.values("annealed_objective")[1:]
    assert set(beta) == {0.2, 0.5, 1.0} and np.all(np.diff(beta) >= 0)
    for b in (0.2, 0.5, 1.0):
        stage = annealed[beta == b]
        assert np.all(np.diff(stage) >= -1e-8 * np.abs(stage[1:]))
    final = model.trace_[-1]
    assert final.annealed_objective == pytest.approx(final.objective)


def test_posteriors_sum_to_one_and_match_the_recorded_model():
    X, _, y_semi = topic_corpus()
    model = SemiSupervisedNB(max_iter=4).fit(X, y_semi)
    unlabeled = y_semi == -1
    for step in model.trace_:
        np.testing.assert_allclose(step.unlabeled_posteriors.sum(axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(model.trace_[-1].unlabeled_posteriors,
                               model.predict_proba(X[unlabeled]), atol=1e-6)
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)


def test_unlabeled_data_helps_on_clustered_corpus_and_accuracy_trace_is_real():
    X, y, y_semi = topic_corpus(n_labeled=6, seed=5)
    model = SemiSupervisedNB(max_iter=10).fit(X, y_semi)
    accuracy = accuracy_by_iteration(model, X, y)
    assert accuracy[-1] == pytest.approx(np.mean(model.predict(X) == y))
    assert accuracy[-1] > accuracy[0]
    supervised = SemiSupervisedNB(max_iter=0).fit(X, y_semi)
    np.testing.assert_array_equal(predict_at_iteration(model, X, 0), supervised.predict(X))


def test_zero_unlabeled_weight_keeps_the_supervised_model():
    X, _, y_semi = topic_corpus()
    model = SemiSupervisedNB(unlabeled_weight=0.0, max_iter=5, tol=0).fit(X, y_semi)
    for step in model.trace_:
        np.testing.assert_allclose(step.feature_log_prob, model.trace_[0].feature_log_prob)


def test_iter_fit_yields_the_recorded_steps_and_fit_is_deterministic():
    X, _, y_semi = topic_corpus()
    model = SemiSupervisedNB(n_components=2, random_state=7, max_iter=5)
    steps = list(model.iter_fit(X, y_semi))
    assert [s.iteration for s in steps] == list(range(len(model.trace_)))
    again = SemiSupervisedNB(n_components=2, random_state=7, max_iter=5).fit(X, y_semi)
    np.testing.assert_array_equal(again.trace_.values("objective"),
                                  np.array([s.objective for s in steps]))


def test_empty_document_gets_the_prior_as_posterior():
    X, _, y_semi = topic_corpus()
    X = sp.vstack([X, sp.csr_matrix((1, X.shape[1]))]).tocsr()
    y_semi = np.append(y_semi, -1)
    model = SemiSupervisedNB(max_iter=3).fit(X, y_semi)
    np.testing.assert_allclose(model.predict_proba(X[-1:])[0], np.exp(model.class_log_prior_))


def test_string_labels_and_explicit_classes():
    X, y, y_semi = topic_corpus()
    names = np.array(["course", "faculty", "student"], dtype=object)
    y_named = np.where(y_semi == -1, -1, names[y]).astype(object)
    model = SemiSupervisedNB(max_iter=2, classes=names).fit(X, y_named)
    assert list(model.classes_) == list(names)
    assert set(model.predict(X)) <= set(names)


@pytest.mark.parametrize("y_change, params, message", [
    (lambda y: np.full_like(y, -1), {}, "no labeled rows: every entry of y is -1"),
    (lambda y: np.where(y == 2, -1, y), {"classes": [0, 1, 2]},
     r"no labeled row for class\(es\) \[2\]"),
    (lambda y: np.where(y == 2, 7, y), {"classes": [0, 1, 2]},
     r"y holds labels \[7\] that are not in classes=\[0, 1, 2\]"),
    (lambda y: y, {"unlabeled_weight": 1.5},
     r"unlabeled_weight \(λ\) must be a finite number in \[0, 1\], got 1.5"),
    (lambda y: y, {"alpha": 0}, "alpha must be a finite number > 0, got 0"),
    (lambda y: y, {"alpha": np.inf}, "alpha must be a finite number > 0, got inf"),
    (lambda y: y, {"max_iter": -1}, "max_iter must be an integer >= 0, got -1"),
    (lambda y: y, {"max_iter": True}, "max_iter must be an integer >= 0, got True"),
    (lambda y: y, {"n_components": 0}, "n_components must be an integer >= 1, got 0"),
    (lambda y: y, {"record": "all"}, r"record must be one of \['full', 'summary'\], got 'all'"),
    (lambda y: np.where(y == -1, np.nan, y), {}, "y holds NaN labels|Input y contains NaN"),
    (lambda y: np.where(y == -1, "-1", y.astype(str)), {}, "y holds the string '-1'"),
    (lambda y: y, {"annealing": (0.5, 0.2)}, "annealing must be an increasing sequence"),
    (lambda y: y, {"annealing": (0.2, 0.5)}, "ending at 1.0"),
])
def test_bad_input_errors(y_change, params, message):
    X, _, y_semi = topic_corpus()
    with pytest.raises(ValueError, match=message):
        SemiSupervisedNB(**params).fit(X, y_change(y_semi))


def test_negative_counts_and_empty_corpus_are_refused():
    X, _, y_semi = topic_corpus()
    negative = X.toarray()
    negative[0, 0] = -1
    with pytest.raises(ValueError, match="Negative values in data passed to SemiSupervisedNB"):
        SemiSupervisedNB().fit(negative, y_semi)
    with pytest.raises(ValueError, match="X holds no word counts at all"):
        SemiSupervisedNB().fit(sp.csr_matrix(X.shape), y_semi)


def test_top_words_by_probability_and_log_odds_hand_case():
    # words: a b c d. Class 0 documents use a, b; class 1 documents use c, d; "b" also in class 1.
    X = sp.csr_matrix(np.array([[5, 3, 0, 0], [4, 3, 0, 0], [0, 2, 4, 1], [0, 2, 5, 1]]))
    model = SemiSupervisedNB(alpha=1.0, max_iter=0).fit(X, np.array([0, 0, 1, 1]))
    names = ["a", "b", "c", "d"]
    # class 0 counts a=9, b=6, c=0, d=0 -> P = (10, 7, 1, 1) / 19; class 1: (1, 5, 10, 3) / 19
    assert top_words(model, names, k=4)[0] == ["a", "b", "c", "d"]
    assert top_words(model, names, k=4)[1] == ["c", "b", "d", "a"]
    p0, p1 = np.array([10, 7, 1, 1]) / 19, np.array([1, 5, 10, 3]) / 19
    np.testing.assert_allclose(
        weighted_log_odds(np.log(np.vstack([p0, p1])), np.log([0.5, 0.5]))[0],
        p0 * np.log(p0 / p1))
    assert top_words(model, names, k=2, by="log_odds")[1] == ["c", "d"]


def test_top_words_rank_word_scores_of_the_requested_iteration():
    X, _, y_semi = topic_corpus()
    model = SemiSupervisedNB(max_iter=3).fit(X, y_semi)
    names = np.array([f"w{i}" for i in range(X.shape[1])])
    for iteration, by in ((0, "probability"), (2, "log_odds"), (None, "log_odds")):
        scores = word_scores(model, iteration=iteration, by=by)
        ranked = top_words(model, names, iteration=iteration, k=5, by=by)
        assert list(ranked) == list(model.classes_)
        for c, label in enumerate(model.classes_):
            shown = scores[c][[int(word[1:]) for word in ranked[label]]]
            np.testing.assert_array_equal(shown, np.sort(scores[c])[::-1][:5])
    step = model.trace_[2]
    np.testing.assert_allclose(word_scores(model, iteration=2, by="probability"),
                               np.exp(step.feature_log_prob))
    with pytest.raises(ValueError, match=r"by must be one of \['probability', 'log_odds'\]"):
        word_scores(model, by="rank")


def test_top_words_needs_a_full_record():
    X, _, y_semi = topic_corpus()
    model = SemiSupervisedNB(record="summary", max_iter=2).fit(X, y_semi)
    assert model.trace_[-1].feature_log_prob is None
    with pytest.raises(ValueError, match="record='summary'"):
        top_words(model, [str(i) for i in range(X.shape[1])])
    with pytest.raises(IndexError, match="iteration 9 was not recorded"):
        model.trace_.iteration(9)


def test_the_mixtures_log_sum_exp_equals_scipys():
    from sslviz.nb_mixture import log_sum_exp

    a = np.random.default_rng(0).normal(scale=300.0, size=(3, 8, 50))
    a[1, :, 4] = -np.inf  # a slice of -inf only
    a[2, 3, :] = -np.inf
    for axis in (0, 1, 2):
        np.testing.assert_allclose(log_sum_exp(a, axis), logsumexp(a, axis=axis), rtol=1e-14)
    assert log_sum_exp(a, 1)[1, 4] == -np.inf
