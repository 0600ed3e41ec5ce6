"""sslviz.entropy_reg.EntropyRegularizedLR: λ = 0 against scikit-learn, the loss and its gradient
against a direct computation and finite differences, invariants of the trace, errors, checks."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import approx_fprime
from scipy.special import log_softmax
from sklearn.linear_model import LogisticRegression
from synthetic import topic_corpus

from sslviz.entropy_reg import (
    EntropyProblem,
    EntropyRegularizedLR,
    entropy_regularized_loss,
    unlabeled_shares_by_weight,
)


def data():
    X, y, y_semi = topic_corpus(n_docs=90, n_words=15, n_labeled=30, seed=4)
    return X, y, y_semi


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_without_entropy_it_is_scikit_learns_logistic_regression(fit_intercept):
    X, y, _ = data()
    reference = LogisticRegression(C=0.7, fit_intercept=fit_intercept, tol=1e-10,
                                   max_iter=5000).fit(X, y)
    # started from W = 0, so the agreement is our loss's optimum, not the starting point
    model = EntropyRegularizedLR(C=0.7, fit_intercept=fit_intercept, init="zeros", tol=1e-10,
                                 max_iter=5000).fit(X, y)
    np.testing.assert_allclose(model.coef_, reference.coef_, atol=1e-4)
    np.testing.assert_allclose(model.intercept_, reference.intercept_, atol=1e-4)
    np.testing.assert_allclose(model.predict_proba(X), reference.predict_proba(X), atol=1e-5)


def problem(weight=0.3, fit_intercept=True):
    X, y, y_semi = data()
    X = X.astype(float)
    labeled = y_semi >= 0
    return EntropyProblem(X[labeled], y[labeled], X[~labeled], 3, 2.0, weight, fit_intercept)


def test_loss_equals_a_direct_computation():
    prob = problem()
    rng = np.random.default_rng(0)
    params = rng.normal(size=3 * 15 + 3) * 0.3
    W, b = params[:45].reshape(3, 15), params[45:]
    log_lab = log_softmax(prob.X_lab.toarray() @ W.T + b, axis=1)
    log_unl = log_softmax(prob.X_unl.toarray() @ W.T + b, axis=1)
    expected = (-log_lab[np.arange(len(prob.y_index)), prob.y_index].sum()
                + 0.3 * -(np.exp(log_unl) * log_unl).sum() + np.sum(W ** 2) / (2 * 2.0))
    assert entropy_regularized_loss(params, prob)[0] == pytest.approx(expected)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_gradient_matches_finite_differences(fit_intercept):
    prob = problem(weight=0.5, fit_intercept=fit_intercept)
    rng = np.random.default_rng(1)
    params = rng.normal(size=45 + 3 * fit_intercept) * 0.5
    _, gradient = entropy_regularized_loss(params, prob)
    numeric = approx_fprime(params, lambda p: entropy_regularized_loss(p, prob)[0], 1e-6)
    np.testing.assert_allclose(gradient, numeric, rtol=1e-4, atol=1e-4)


def test_trace_objective_never_increases_and_ends_at_the_fit():
    X, _, y_semi = data()
    model = EntropyRegularizedLR(C=1.0, entropy_weight=0.5).fit(X, y_semi)
    objective = model.trace_.values("objective")
    assert len(objective) == model.n_iter_ + 1
    assert np.all(np.diff(objective) <= 1e-9 * np.abs(objective[:-1]))
    np.testing.assert_allclose(model.trace_[-1].unlabeled_shares.sum(), 1)
    # entropy regularisation makes the unlabeled predictions more confident than λ = 0
    plain = EntropyRegularizedLR(C=1.0).fit(X, y_semi)
    assert model.trace_[-1].mean_unlabeled_entropy < plain.trace_[-1].mean_unlabeled_entropy
    shares = unlabeled_shares_by_weight([plain, model])
    assert shares.shape == (2, 3)


def test_words_absent_from_every_row_get_zero_weight():
    X, y, y_semi = data()
    X = sp.hstack([X, sp.csr_matrix((X.shape[0], 2))]).tocsr()
    model = EntropyRegularizedLR(C=1.0, entropy_weight=0.1).fit(X, y_semi)
    assert model.coef_.shape == (3, 17)
    np.testing.assert_array_equal(model.coef_[:, 15:], 0)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_supervised_start_is_scikit_learns_fit_on_every_column(fit_intercept):
    # the start is fitted on the labeled rows' words only; a word seen in unlabeled rows alone
    # must get weight 0 there, as in scikit-learn's fit on every column
    X, y, y_semi = data()
    X = sp.hstack([X, sp.csr_matrix(np.where(y_semi[:, None] < 0, 1.0, 0.0))]).tocsr()
    model = EntropyRegularizedLR(C=0.7, fit_intercept=fit_intercept, max_iter=0).fit(X, y_semi)
    labeled = y_semi >= 0
    reference = LogisticRegression(C=0.7, fit_intercept=fit_intercept, max_iter=1000).fit(
        X[labeled], y_semi[labeled])
    np.testing.assert_array_equal(model.coef_[:, -1], 0.0)
    np.testing.assert_allclose(model.coef_, reference.coef_, atol=1e-6)
    np.testing.assert_allclose(model.intercept_, reference.intercept_, atol=1e-6)


def test_binary_decision_function_follows_scikit_learn():
    X, y, _ = data()
    keep = y < 2
    model = EntropyRegularizedLR(C=1.0).fit(X[keep], y[keep])
    scores = model.class_scores(X[keep])
    np.testing.assert_allclose(model.decision_function(X[keep]), scores[:, 1] - scores[:, 0])


@pytest.mark.parametrize("params, message", [
    ({"C": 0}, "C must be a finite number > 0"),
    ({"entropy_weight": -0.1}, r"entropy_weight \(λ\) must be a finite number >= 0"),
    ({"fit_intercept": "yes"}, "fit_intercept must be True or False"),
    ({"init": "random"}, r"init must be one of \['supervised', 'zeros'\]"),
])
def test_bad_parameters_are_refused(params, message):
    X, _, y_semi = data()
    with pytest.raises(ValueError, match=message):
        EntropyRegularizedLR(**params).fit(X, y_semi)


def test_labels_of_one_class_are_refused():
    X, _, y_semi = data()
    with pytest.raises(ValueError, match="no labeled rows"):
        EntropyRegularizedLR().fit(X, np.full(X.shape[0], -1))
    with pytest.raises(ValueError, match="needs at least 2"):
        EntropyRegularizedLR().fit(X, np.where(y_semi == 0, 0, -1))


def test_loss_stays_exact_on_scores_that_would_overflow_exp():
    # scores in the thousands: exp overflows unless each row's largest score is taken out first
    prob = problem(weight=0.4)
    params = np.random.default_rng(2).normal(size=3 * 15 + 3) * 800
    W, b = params[:45].reshape(3, 15), params[45:]
    log_lab = log_softmax(prob.X_lab.toarray() @ W.T + b, axis=1)
    log_unl = log_softmax(prob.X_unl.toarray() @ W.T + b, axis=1)
    expected = (-log_lab[np.arange(len(prob.y_index)), prob.y_index].sum()
                + 0.4 * -(np.exp(log_unl) * log_unl).sum() + np.sum(W ** 2) / (2 * 2.0))
    loss, gradient = entropy_regularized_loss(params, prob)
    assert np.isfinite(gradient).all()
    assert loss == pytest.approx(expected, rel=1e-12)
