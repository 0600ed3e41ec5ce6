"""sslviz.hybrid.HybridNB: θ against scikit-learn, leave-one-out against refits, the gradient of
eq. 9 against finite differences, invariants of the fit, errors, estimator checks."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import approx_fprime
from scipy.special import softmax
from sklearn.naive_bayes import MultinomialNB
from synthetic import topic_corpus

from sslviz.hybrid import (
    HybridNB,
    class_word_counts,
    combination_objective,
    combination_scores,
    fit_combination,
    leave_one_out_log_likelihoods,
    weights_by_iteration,
)


def corpus(n_labeled=24, seed=0):
    return topic_corpus(n_docs=240, n_words=40, n_labeled=n_labeled, seed=seed)


def test_theta_is_multinomial_nb_and_theta_alone_is_its_posterior():
    X, y, y_semi = corpus()
    model = HybridNB(alpha=0.3).fit(X, y_semi)
    reference = MultinomialNB(alpha=0.3, fit_prior=False).fit(X[:24], y[:24])
    np.testing.assert_allclose(model.theta_log_prob_, reference.feature_log_prob_, atol=1e-12)
    # λ1 = 1, λ2 = 0, μ = 0: the combination is Naive Bayes with a uniform class prior
    scores = combination_scores(X, model.theta_log_prob_, model.psi_log_prob_, (1.0, 0.0),
                                np.zeros(3))
    np.testing.assert_allclose(np.log(softmax(scores, axis=1)),
                               reference.predict_log_proba(X), atol=1e-9)


def test_leave_one_out_equals_a_refit_without_the_document():
    X, y, _ = corpus()
    X_lab, y_lab = X[:24], y[:24]
    counts = class_word_counts(X_lab, y_lab, 3)
    loo = leave_one_out_log_likelihoods(X_lab, y_lab, counts, 0.5)
    for n in (0, 5, 13, 23):
        keep = np.arange(24) != n
        refit = MultinomialNB(alpha=0.5).fit(X_lab[keep], y_lab[keep])
        expected = X_lab[n].toarray() @ refit.feature_log_prob_.T
        np.testing.assert_allclose(loo[n], expected.ravel(), rtol=1e-12)


def test_leave_one_out_of_a_class_with_one_document_is_the_uniform_distribution():
    X = sp.csr_matrix(np.array([[3.0, 1, 0, 0], [0, 0, 2, 2], [0, 1, 1, 2]]))
    y_index = np.array([0, 1, 1])
    loo = leave_one_out_log_likelihoods(X, y_index, class_word_counts(X, y_index, 2), 1.0)
    # without its only document class 0 is pure smoothing: every word has probability 1/4
    assert loo[0, 0] == pytest.approx(4 * np.log(1 / 4))
    # document 1 under class 1 without itself: counts (0, 1, 1, 2) + 1 over 4 + 4
    assert loo[1, 1] == pytest.approx(2 * np.log(2 / 8) + 2 * np.log(3 / 8))


def test_gradient_of_eq_9_matches_finite_differences():
    rng = np.random.default_rng(1)
    theta, psi = rng.normal(size=(12, 4)) * 5, rng.normal(size=(12, 4)) * 5
    onehot = np.eye(4)[rng.integers(0, 4, 12)]
    params = np.array([0.3, 0.7, 0.2, -0.4, 0.1, 0.5])
    value, gradient = combination_objective(params, theta, psi, onehot, 1.5)
    numeric = approx_fprime(params, lambda p: combination_objective(p, theta, psi, onehot,
                                                                    1.5)[0], 1e-7)
    np.testing.assert_allclose(gradient, numeric, rtol=1e-5, atol=1e-5)
    # the value itself: −(Σ log R(y|x) − Σ p² / (2σ²)) computed directly
    scores = params[0] * theta + params[1] * psi + params[2:]
    log_r = np.log(softmax(scores, axis=1))
    assert value == pytest.approx(-(np.sum(onehot * log_r) - np.sum(params ** 2) / (2 * 1.5 ** 2)))


def test_fitted_weights_satisfy_the_optimality_conditions_with_the_bounds():
    rng = np.random.default_rng(2)
    theta, psi = rng.normal(size=(30, 3)) * 3, rng.normal(size=(30, 3))
    onehot = np.eye(3)[np.argmax(theta + rng.normal(size=(30, 3)), axis=1)]
    params, _ = fit_combination(theta, psi, onehot, 2.0)
    centred = (theta - theta.mean(1, keepdims=True), psi - psi.mean(1, keepdims=True))
    _, gradient = combination_objective(params, *centred, onehot, 2.0)
    assert np.all(params[:2] >= 0)
    np.testing.assert_allclose(gradient[2:], 0, atol=1e-5)  # μ is free
    for j in (0, 1):  # λ: zero gradient inside, or at 0 with the gradient pointing outward
        assert abs(gradient[j]) < 1e-5 or (params[j] == 0 and gradient[j] > 0)


def test_fit_records_every_alternation_and_probabilities_sum_to_one():
    X, y, y_semi = corpus()
    model = HybridNB(alpha=0.5, max_iter=20).fit(X, y_semi)
    assert len(model.trace_) == model.n_iter_ + 1
    assert model.converged_
    np.testing.assert_array_equal(model.trace_[-1].weights, model.weights_)
    np.testing.assert_array_equal(weights_by_iteration(model)[-1], model.weights_)
    assert np.all(weights_by_iteration(model) >= 0)
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1)
    np.testing.assert_allclose(model.trace_[-1].unlabeled_shares.sum(), 1)
    np.testing.assert_array_equal(model.predict(X), model.classes_[proba.argmax(axis=1)])
    # the trace's objective is the prior plus its leave-one-out log-likelihood
    step = model.trace_[-1]
    prior = -0.5 * (np.sum(step.weights ** 2) + np.sum(step.bias ** 2))
    assert step.objective == pytest.approx(step.loo_log_likelihood + prior)
    assert model.score(X[24:], y[24:]) > 0.8


def test_iter_fit_yields_what_fit_records():
    X, _, y_semi = corpus()
    steps = list(HybridNB(alpha=0.5).iter_fit(X, y_semi))
    model = HybridNB(alpha=0.5).fit(X, y_semi)
    assert [s.objective for s in steps] == list(model.trace_.values("objective"))


def test_without_unlabeled_rows_psi_is_uniform_and_gets_no_weight():
    X, y, _ = corpus()
    model = HybridNB(alpha=0.5).fit(X[:30], y[:30])
    np.testing.assert_allclose(model.psi_log_prob_, np.log(1 / 40))
    assert model.weights_[1] == pytest.approx(0.0, abs=1e-12)


def test_length_normalisation_divides_log_likelihoods_by_document_length():
    X, _, y_semi = corpus()
    model = HybridNB(alpha=0.5, normalize="length").fit(X, y_semi)
    lengths = np.asarray(X.sum(axis=1))
    expected = (model.weights_[0] * (X @ model.theta_log_prob_.T) / lengths
                + model.weights_[1] * (X @ model.psi_log_prob_.T) / lengths + model.bias_)
    np.testing.assert_allclose(model.predict_unnormalized_log_proba(X), expected)


@pytest.mark.parametrize("params, message", [
    ({"alpha": 0}, "alpha must be a finite number > 0"),
    ({"normalize": "tokens"}, r"normalize must be one of \[None, 'length'\]"),
    ({"prior_scale": -1.0}, "prior_scale must be a finite number > 0"),
    ({"max_iter": 2.5}, "max_iter must be an integer >= 0"),
])
def test_bad_parameters_are_refused(params, message):
    X, _, y_semi = corpus()
    with pytest.raises(ValueError, match=message):
        HybridNB(**params).fit(X, y_semi)


def test_bad_data_is_refused():
    X, _, y_semi = corpus()
    with pytest.raises(ValueError, match="no labeled rows"):
        HybridNB().fit(X, np.full(X.shape[0], -1))
    with pytest.raises(ValueError, match="Negative values"):
        HybridNB().fit(-X, y_semi)
