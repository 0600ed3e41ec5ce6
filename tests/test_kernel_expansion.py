"""Kernel expansions (Szummer & Jaakkola 2000): memberships, the width rule, EM and MED.

Checked against independent computations: Gaussian densities from scipy, scikit-learn's RBF
kernel, scipy's bounded optimiser for the global optima of both objectives, finite differences
of log Z; and the invariants the paper states (EM climbs a concave objective; λ stays in [0, C];
the KKT conditions and a zero duality gap at the end).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.stats import multivariate_normal
from sklearn.datasets import make_blobs
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from sklearn.utils import shuffle

from sslviz.kernel_expansion import (
    KernelExpansion,
    KernelExpansionClassifier,
    conditional_log_likelihood,
    em_step,
    fit_em,
    fit_med,
    kernel_width,
    label_weights,
    med_duality_gap,
    med_gradient,
    med_kkt_violation,
    med_log_partition,
    med_penalties,
    membership,
)


def blobs(n=60, seed=0, n_labeled=(3, 7)):
    """Two Gaussian blobs in 2-D; the first n_labeled[c] points of class c are labeled."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = rng.normal(size=(n, 2)) + np.where(y[:, None] == 1, 2.0, -2.0) * np.array([1.0, 0.3])
    targets = np.full(n, -1)
    for c, k in enumerate(n_labeled):
        targets[np.flatnonzero(y == c)[:k]] = c
    return X, y, targets


def labeled_problem(seed=0, sigma=1.5, n_labeled=(3, 7)):
    X, y, targets = blobs(seed=seed, n_labeled=n_labeled)
    labeled = targets != -1
    return membership(X[labeled], X, sigma), y[labeled]


# -- the expansion -------------------------------------------------------------------------------
def test_membership_is_the_posterior_of_gaussian_kernels_with_uniform_prior():
    X, _, _ = blobs(n=12)
    points = np.array([[0.3, -0.2], [2.0, 1.0]])
    dens = np.array([[multivariate_normal(x_i, 0.7**2 * np.eye(2)).pdf(p) for x_i in X]
                     for p in points])
    np.testing.assert_allclose(membership(points, X, 0.7), dens / dens.sum(1, keepdims=True),
                               rtol=1e-10)


def test_membership_survives_far_points_by_log_sum_exp():
    P = membership(np.array([[1e3, 0.0]]), np.array([[0.0, 0.0], [1.0, 0.0]]), 0.5)
    np.testing.assert_allclose(P, [[0.0, 1.0]], atol=1e-12)


def test_width_rule_by_hand():
    # labeled 1-D points: class 0 at 0, 1; class 1 at 3, 7. With n_neighbors=1 the distance to
    # the nearest other-class point: 3, 2, 2, 6 -> median 2.5. With 2: 7, 6, 3, 7 -> median 6.5.
    X = np.array([[0.0], [1.0], [3.0], [7.0], [100.0]])
    y = np.array([0, 0, 1, 1, -1])
    assert kernel_width(X, y, n_neighbors=1) == pytest.approx(2.5)
    assert kernel_width(X, y, n_neighbors=2) == pytest.approx(6.5)
    assert kernel_width(X, y, n_neighbors=5) == pytest.approx(6.5)  # fewer than 5: the farthest
    with pytest.raises(ValueError, match=re.escape(
            "the width rule needs labeled points of at least two classes, got 1 class(es) "
            "([0]); pass a number as sigma")):
        kernel_width(X, np.array([0, 0, -1, -1, -1]))


def test_expansion_transformer_equals_rbf_kernel_and_normalised_memberships():
    X, _, targets = blobs(n=30)
    raw = KernelExpansion(sigma=0.8, normalize=False).fit(X)
    np.testing.assert_allclose(raw.transform(X[:5]), rbf_kernel(X[:5], X, gamma=1 / (2 * 0.64)))
    normed = KernelExpansion(sigma=0.8).fit(X)
    np.testing.assert_allclose(normed.transform(X[:5]), membership(X[:5], X, 0.8))
    rule = KernelExpansion().fit(X, targets)
    assert rule.sigma_ == pytest.approx(kernel_width(X, targets))
    with pytest.raises(ValueError, match="sigma='rule' needs labels"):
        KernelExpansion().fit(X)


def test_expansion_feeds_an_svm_trained_on_the_labeled_rows():
    X, y, targets = blobs(n=80, n_labeled=(5, 5))
    expansion = KernelExpansion(sigma=1.0, normalize=False).fit(X, targets)  # all 80 as kernels
    labeled = targets != -1
    svm = LinearSVC().fit(expansion.transform(X[labeled]), y[labeled])
    assert np.mean(svm.predict(expansion.transform(X)) == y) > 0.9
    pipe = make_pipeline(KernelExpansion(sigma=1.0), LinearSVC()).fit(X[labeled], y[labeled])
    assert pipe.predict(X).shape == y.shape


# -- EM --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("balanced", [False, True])
def test_em_objective_never_decreases(balanced):
    R, y = labeled_problem(sigma=2.5)
    fit = fit_em(R, y, 2, balanced=balanced, max_iter=200, tol=1e-12)
    objective = fit.trace.values("objective")
    assert len(objective) > 5
    assert np.all(np.diff(objective) >= -1e-12)
    weights = label_weights(y, 2, balanced)
    for record in fit.trace:  # the recorded objective is the one of the recorded P(y|i)
        assert record.objective == pytest.approx(
            conditional_log_likelihood(R, y, record.label_proba, weights))


def test_conditional_log_likelihood_is_concave_along_random_lines():
    R, y = labeled_problem()
    rng = np.random.default_rng(1)
    for _ in range(200):
        a, b = rng.dirichlet([1, 1], size=R.shape[1]), rng.dirichlet([1, 1], size=R.shape[1])
        t = rng.uniform()
        mixed = conditional_log_likelihood(R, y, t * a + (1 - t) * b)
        chord = (t * conditional_log_likelihood(R, y, a)
                 + (1 - t) * conditional_log_likelihood(R, y, b))
        assert mixed >= chord - 1e-10


def _best_by_scipy(R, y, weights):
    """Maximise eq. 2 over u_i = P(class 1 | i) in [0, 1] with L-BFGS-B (independent of EM)."""
    def negative(u):
        theta = np.column_stack([1 - u, u])
        p = np.einsum("li,li->l", R, theta[:, y].T)
        grad_theta = R / p[:, None] * weights[:, None]
        grad = (grad_theta * np.where(y[:, None] == 1, 1.0, -1.0)).sum(0)
        return -np.sum(weights * np.log(p)), -grad
    result = minimize(negative, np.full(R.shape[1], 0.5), jac=True, method="L-BFGS-B",
                      bounds=[(1e-12, 1 - 1e-12)] * R.shape[1], options={"maxiter": 5000,
                                                                          "ftol": 1e-15})
    return -result.fun


@pytest.mark.parametrize("balanced", [False, True])
def test_em_reaches_the_global_maximum_found_by_scipy(balanced):
    R, y = labeled_problem(sigma=2.0)
    fit = fit_em(R, y, 2, balanced=balanced, max_iter=5000, tol=1e-13)
    best = _best_by_scipy(R, y, label_weights(y, 2, balanced))
    assert fit.trace[-1].objective == pytest.approx(best, abs=1e-4)


def test_balanced_m_step_is_the_papers_rescaling_by_label_counts():
    R, y = labeled_problem()
    rng = np.random.default_rng(0)
    theta = rng.dirichlet([1, 1], size=R.shape[1])
    plain = em_step(R, y, theta, np.ones(len(y)))
    rescaled = plain / np.bincount(y)  # P(y|i) / L_y, then renormalise (section 3)
    rescaled /= rescaled.sum(1, keepdims=True)
    np.testing.assert_allclose(em_step(R, y, theta, label_weights(y, 2, True)), rescaled)


def test_em_m_step_by_hand():
    # two labeled points, two kernels, uniform start: p_{i|l} = P(i|x_l).
    R = np.array([[0.8, 0.2], [0.4, 0.6]])
    theta = em_step(R, np.array([0, 1]), np.full((2, 2), 0.5), np.ones(2))
    np.testing.assert_allclose(theta, [[0.8 / 1.2, 0.4 / 1.2], [0.2 / 0.8, 0.6 / 0.8]])


# -- MED -------------------------------------------------------------------------------------------
def _signs(y):
    return np.where(y == 1, 1.0, -1.0)


def test_med_gradient_equals_finite_differences():
    R, y = labeled_problem()
    y_pm, rng = _signs(y), np.random.default_rng(3)
    lam = rng.uniform(0, 5, len(y))
    h = 1e-6
    numeric = np.array([(med_log_partition(R, y_pm, lam + h * e, 0.1)
                         - med_log_partition(R, y_pm, lam - h * e, 0.1)) / (2 * h)
                        for e in np.eye(len(y))])
    np.testing.assert_allclose(med_gradient(R, y_pm, lam, 0.1), numeric, atol=1e-7)


@pytest.mark.parametrize("balanced", [False, True])
def test_med_multipliers_in_the_box_kkt_and_no_duality_gap(balanced):
    R, y = labeled_problem(sigma=1.0)
    fit = fit_med(R, y, 2, balanced=balanced, gamma=0.1, C=40.0, kkt_tol=1e-6, max_iter=500)
    y_pm = _signs(y)
    penalties = med_penalties(y_pm, 40.0, balanced)
    lam = fit.multipliers[0]
    assert fit.converged
    assert np.all(lam >= 0) and np.all(lam <= penalties)
    grad = med_gradient(R, y_pm, lam, 0.1)
    assert med_kkt_violation(grad, lam, penalties).max() <= 1e-6
    assert abs(med_duality_gap(R, y_pm, lam, 0.1, penalties)) < 1e-4
    np.testing.assert_allclose(fit.weights[0], np.tanh(R.T @ (y_pm * lam)))
    objective = fit.trace.values("objective")
    assert np.all(np.diff(objective) <= 1e-12)  # coordinate descent never raises log Z


def test_med_matches_scipy_on_the_box():
    R, y = labeled_problem(sigma=1.0)
    y_pm = _signs(y)
    penalties = med_penalties(y_pm, 40.0, True)
    fit = fit_med(R, y, 2, balanced=True, kkt_tol=1e-7, max_iter=2000)
    result = minimize(lambda lam: (med_log_partition(R, y_pm, lam, 0.1),
                                   med_gradient(R, y_pm, lam, 0.1)),
                      np.zeros(len(y)), jac=True, method="L-BFGS-B",
                      bounds=list(zip(np.zeros(len(y)), penalties, strict=True)))
    assert fit.trace[-1].objective == pytest.approx(result.fun, abs=1e-6)


def test_duality_gap_is_the_sum_of_per_constraint_violations():
    R, y = labeled_problem()
    y_pm, rng = _signs(y), np.random.default_rng(5)
    penalties = med_penalties(y_pm, 40.0, False)
    for _ in range(20):
        lam = rng.uniform(0, 40, len(y)) * (rng.uniform(size=len(y)) > 0.3)
        grad = med_gradient(R, y_pm, lam, 0.1)
        expected = np.sum(lam * grad + penalties * np.maximum(0, -grad))
        gap = med_duality_gap(R, y_pm, lam, 0.1, penalties)
        assert gap == pytest.approx(expected, rel=1e-8, abs=1e-8) and gap >= -1e-10


def test_balanced_penalties_equalise_the_totals():
    y_pm = np.array([1, 1, 1, -1, 1, 1.0])
    penalties = med_penalties(y_pm, 40.0, True)
    assert penalties[y_pm > 0].sum() == pytest.approx(penalties[y_pm < 0].sum())
    assert penalties[y_pm > 0].sum() == pytest.approx(40.0 * 6 / 2)


# -- the estimator -------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["em", "med"])
def test_classifier_separates_blobs_and_probabilities_sum_to_one(method):
    X, y, targets = blobs(n=80)
    model = KernelExpansionClassifier(method, sigma=1.0).fit(X, targets)
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(1), 1.0)
    assert np.mean(model.predict(X) == y) > 0.95
    np.testing.assert_allclose(model.decision_function(X), proba[:, 1] - proba[:, 0], atol=1e-12)
    assert model.X_fit_.shape == X.shape and model.label_proba_.shape == (80, 2)
    np.testing.assert_allclose(model.transform_membership(X[:3]), membership(X[:3], X, 1.0))


def test_trace_counts_iterations_and_summary_keeps_only_scalars():
    X, _, targets = blobs()
    full = KernelExpansionClassifier("em", sigma=1.0, max_iter=7, tol=1e-15).fit(X, targets)
    assert [r.iteration for r in full.trace_] == list(range(8)) and full.n_iter_ == 7
    np.testing.assert_allclose(full.trace_[-1].label_proba, full.label_proba_)
    with pytest.raises(ValueError, match="read-only"):
        full.trace_[1].label_proba[0, 0] = 1.0
    summary = KernelExpansionClassifier("med", sigma=1.0, record="summary").fit(X, targets)
    assert summary.trace_[-1].label_proba is None and summary.trace_[-1].multipliers is None
    assert summary.trace_[-1].kkt_violation <= 1e-3 and summary.converged_


def test_plain_versions_follow_the_majority_and_balanced_ones_do_not():
    # 1 label of class 0 against 9 of class 1, wide kernels: the lesson of the notebook.
    X, y, targets = blobs(n=120, n_labeled=(1, 9), seed=2)
    for method in ("em", "med"):
        plain = KernelExpansionClassifier(method, sigma=4.0, balanced=False).fit(X, targets)
        fair = KernelExpansionClassifier(method, sigma=4.0).fit(X, targets)
        assert np.mean(plain.predict(X) == 1) > 0.9
        assert np.mean(fair.predict(X) == y) > 0.9


def test_string_labels_and_three_classes_one_vs_rest():
    X, y, _ = blobs(n=90)
    X = np.vstack([X, np.random.default_rng(0).normal(size=(30, 2)) + [0, 6]])
    y = np.concatenate([y, np.full(30, 2)])
    names = np.array(["ham", "spam", "eggs"], dtype=object)[y]
    targets = names.copy()
    targets[np.random.default_rng(1).uniform(size=len(y)) > 0.2] = -1
    for method in ("em", "med"):
        model = KernelExpansionClassifier(method, sigma=1.0).fit(X, targets)
        assert list(model.classes_) == ["eggs", "ham", "spam"]
        assert np.mean(model.predict(X) == names) > 0.9
        assert model.weights_.shape == (3, len(y))


@pytest.mark.parametrize(("params", "message"), [
    ({"method": "svm"}, "method must be one of"),
    ({"sigma": "median"}, "sigma must be one of"),
    ({"sigma": -1.0}, "sigma must be a finite number > 0"),
    ({"gamma": 2.0}, r"gamma must be a finite number in \[0, 1\]"),
    ({"C": 0}, "C must be a finite number > 0"),
    ({"balanced": "yes"}, "balanced must be True or False"),
    ({"max_iter": True}, "max_iter must be an integer"),
])
def test_bad_parameters_are_named(params, message):
    X, _, targets = blobs()
    with pytest.raises(ValueError, match=message):
        KernelExpansionClassifier(**params).fit(X, targets)


def test_bad_labels_are_named():
    X, _, targets = blobs()
    with pytest.raises(ValueError, match="no labeled rows"):
        KernelExpansionClassifier().fit(X, np.full(len(X), -1))
    one_class = np.where(targets == 1, -1, targets)
    with pytest.raises(ValueError, match="at least 2"):
        KernelExpansionClassifier(sigma=1.0).fit(X, one_class)


def test_med_beyond_two_classes_predicts_its_most_probable_class():
    # scikit-learn's check_classifiers_train data: predict (argmax of the one-vs-rest scores)
    # and argmax predict_proba (per-kernel P(y|i) averaged) disagreed on 2 of 300 rows
    X, y = make_blobs(n_samples=300, random_state=0)
    X, y = shuffle(X, y, random_state=7)
    X = StandardScaler().fit_transform(X)
    model = KernelExpansionClassifier("med", max_iter=20).fit(X, y)
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(model.classes_[proba.argmax(axis=1)], model.predict(X))
    np.testing.assert_array_equal(np.argsort(proba, axis=1),
                                  np.argsort(model.decision_function(X), axis=1))
