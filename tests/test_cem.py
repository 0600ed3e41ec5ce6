"""Classification EM (sslviz.cem, sslviz.logistic_cem) against independent computations."""

import re

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import logsumexp
from scipy.stats import multivariate_normal
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB, MultinomialNB
from synthetic import topic_corpus

from sslviz.cem import (
    CEMClassifier,
    GaussianCEM,
    c_step,
    decision_at_iteration,
    partition_sizes,
)
from sslviz.em import SemiSupervisedNB
from sslviz.logistic_cem import LogisticCEM


def blobs(n=300, n_classes=2, n_labeled=4, seed=0, d=2):
    """Gaussian classes with different covariances; ``n_labeled`` labeled rows per class."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    centres = rng.normal(0, 2.5, (n_classes, d))
    scales = rng.uniform(0.6, 1.4, (n_classes, d))
    X = centres[y] + rng.normal(size=(n, d)) * scales[y]
    y_semi = np.full(n, -1)
    for c in range(n_classes):
        rows = np.flatnonzero(y == c)[:n_labeled]
        y_semi[rows] = c
    return X, y, y_semi


def test_c_step_is_one_hot_argmax_and_breaks_ties_to_the_first_class():
    scores = np.array([[0.2, 0.8], [0.5, 0.5], [-1.0, -3.0]])
    np.testing.assert_array_equal(c_step(scores), [[0, 1], [1, 0], [1, 0]])
    with pytest.raises(ValueError, match=r"2-D array \(n_rows, n_classes\)"):
        c_step(np.ones(3))


@pytest.mark.parametrize("covariance", ["full", "shared", "diag"])
def test_log_densities_equal_scipy_multivariate_normal(covariance):
    X, _, y_semi = blobs(n_labeled=30, d=3)
    model = GaussianCEM(covariance=covariance, max_iter=0, reg_covar=0.01).fit(X, y_semi)
    for k in range(2):
        cov = {"full": model.covariances_[k] if covariance == "full" else None,
               "shared": model.covariances_,
               "diag": np.diag(model.covariances_[k]) if covariance == "diag" else None,
               }[covariance]
        expected = multivariate_normal(model.means_[k], cov).logpdf(X) + model.class_log_prior_[k]
        np.testing.assert_allclose(model.predict_joint_log_proba(X)[:, k], expected, rtol=1e-10)
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)


def test_supervised_shared_covariance_model_is_lda():
    X, _, y_semi = blobs(n_labeled=25, d=3, seed=1)
    labeled = y_semi != -1
    lda = LinearDiscriminantAnalysis(solver="lsqr").fit(X[labeled], y_semi[labeled])
    model = GaussianCEM(covariance="shared", reg_covar=0.0, max_iter=0).fit(X, y_semi)
    np.testing.assert_allclose(model.decision_function(X), lda.decision_function(X), rtol=1e-8,
                               atol=1e-8)
    np.testing.assert_allclose(np.exp(model.class_log_prior_), lda.priors_)


def test_supervised_diagonal_model_is_gaussian_nb():
    X, _, y_semi = blobs(n_labeled=25, n_classes=3, d=4, seed=2)
    labeled = y_semi != -1
    gnb = GaussianNB(var_smoothing=0.0).fit(X[labeled], y_semi[labeled])
    model = GaussianCEM(covariance="diag", reg_covar=0.0, max_iter=0).fit(X, y_semi)
    np.testing.assert_allclose(model.predict_joint_log_proba(X), gnb.predict_joint_log_proba(X),
                               rtol=1e-10)
    np.testing.assert_allclose(model.covariances_, gnb.var_)


def test_hard_m_step_is_lda_on_the_labeled_and_hard_labeled_rows():
    X, _, y_semi = blobs(seed=3)
    model = GaussianCEM(covariance="shared", reg_covar=0.0, max_iter=1).fit(X, y_semi)
    unlabeled = y_semi == -1
    targets = y_semi.copy()
    targets[unlabeled] = model.trace_[0].partition  # the C-step of iteration 0's model
    lda = LinearDiscriminantAnalysis(solver="lsqr").fit(X, targets)
    np.testing.assert_allclose(decision_at_iteration(model, X, 1), lda.decision_function(X),
                               rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("covariance", ["full", "shared", "diag"])
@pytest.mark.parametrize("assignment", ["hard", "soft"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gaussian_objective_never_decreases(covariance, assignment, seed):
    X, _, y_semi = blobs(seed=seed, n_classes=3, n_labeled=4)
    model = GaussianCEM(covariance=covariance, assignment=assignment, reg_covar=0.0,
                        max_iter=30).fit(X, y_semi)
    objective = model.trace_.values("objective")
    assert len(objective) >= 2
    assert np.all(np.diff(objective) >= -1e-10 * np.abs(objective[:-1]))


def test_recorded_objective_is_the_classification_likelihood():
    X, _, y_semi = blobs(seed=4)
    model = GaussianCEM(covariance="full", reg_covar=0.05, max_iter=5).fit(X, y_semi)
    labeled = y_semi != -1
    for step in model.trace_:
        log_prior, means, cov = step.parameters
        joint = np.column_stack([multivariate_normal(means[k], cov[k]).logpdf(X) + log_prior[k]
                                 for k in range(2)])
        expected = (joint[labeled, y_semi[labeled]].sum()
                    + joint[~labeled][np.arange((~labeled).sum()), step.partition].sum())
        assert step.objective == pytest.approx(expected, rel=1e-10)
        np.testing.assert_array_equal(step.partition, np.argmax(step.posteriors, axis=1))


def test_hard_cem_stops_when_the_partition_returns_unchanged():
    X, _, y_semi = blobs(seed=5)
    model = GaussianCEM(max_iter=100).fit(X, y_semi)
    assert model.converged_ and model.n_iter_ < 100
    changes = model.trace_.values("n_label_changes")
    assert changes[-1] == 0 and np.all(changes[1:-1] > 0)
    np.testing.assert_array_equal(model.trace_[-1].partition, model.trace_[-2].partition)
    assert partition_sizes(model).sum(axis=1).tolist() == [(y_semi == -1).sum()] * len(changes)


def test_logistic_iteration_zero_is_logistic_regression_on_labeled_rows():
    X, _, y_semi = blobs(seed=6, n_labeled=10)
    labeled = y_semi != -1
    reference = LogisticRegression(C=0.5, tol=1e-10, max_iter=1000).fit(X[labeled],
                                                                        y_semi[labeled])
    model = LogisticCEM(C=0.5, max_iter=0).fit(X, y_semi)
    np.testing.assert_allclose(model.coef_, reference.coef_, rtol=1e-5)
    np.testing.assert_allclose(model.predict_log_proba(X), reference.predict_log_proba(X),
                               atol=1e-6)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_logistic_objective_is_eq_10_minus_the_penalty_and_never_decreases(n_classes):
    X, _, y_semi = blobs(seed=7, n_classes=n_classes, n_labeled=3)
    C = 0.3
    model = LogisticCEM(C=C, max_iter=30).fit(X, y_semi)
    labeled = y_semi != -1
    objective = model.trace_.values("objective")
    assert len(objective) > 2
    assert np.all(np.diff(objective) >= -1e-7 * np.abs(objective[:-1]))
    for step in model.trace_:
        reference = LogisticRegression().fit(X[:n_classes * 2], np.arange(n_classes * 2)
                                             % n_classes)
        reference.coef_, reference.intercept_ = step.parameters
        log_p = reference.predict_log_proba(X)
        targets = y_semi.copy()
        targets[~labeled] = step.partition
        penalty = np.sum(step.parameters[0] ** 2) / (2 * C)
        expected = log_p[np.arange(len(X)), targets].sum() - penalty
        assert step.objective == pytest.approx(expected, rel=1e-9)


def test_logistic_hard_m_step_is_logistic_regression_on_hard_labels():
    X, _, y_semi = blobs(seed=8, n_labeled=3)
    model = LogisticCEM(C=1.0, max_iter=1).fit(X, y_semi)
    targets = y_semi.copy()
    targets[y_semi == -1] = model.trace_[0].partition
    reference = LogisticRegression(C=1.0, tol=1e-10, max_iter=1000).fit(X, targets)
    np.testing.assert_allclose(model.trace_[1].parameters[0], reference.coef_, rtol=1e-5)


def test_soft_logistic_from_the_supervised_fit_does_not_move():
    X, _, y_semi = blobs(seed=9, n_labeled=3)
    soft = LogisticCEM(assignment="soft", max_iter=10).fit(X, y_semi)
    supervised = LogisticCEM(max_iter=0).fit(X, y_semi)
    np.testing.assert_allclose(soft.coef_, supervised.coef_, rtol=1e-5)
    hard = LogisticCEM(assignment="hard", max_iter=10).fit(X, y_semi)
    assert np.linalg.norm(hard.coef_) > 1.5 * np.linalg.norm(supervised.coef_)


def test_logistic_accepts_sparse_input_and_matches_dense():
    X, _, y_semi = blobs(seed=10)
    X = np.abs(X)
    dense = LogisticCEM(max_iter=5).fit(X, y_semi)
    sparse = LogisticCEM(max_iter=5).fit(sp.csr_matrix(X), y_semi)
    np.testing.assert_allclose(sparse.decision_function(sp.csr_matrix(X)),
                               dense.decision_function(X), rtol=1e-6, atol=1e-6)


def test_decision_function_is_exact_log_odds_where_posteriors_round_to_one():
    X, _, y_semi = blobs(seed=11, n_labeled=20)
    model = GaussianCEM(max_iter=3).fit(X, y_semi)
    far = model.means_[1] + 40 * (model.means_[1] - model.means_[0])
    score = model.decision_function(far[None])[0]
    assert model.predict_proba(far[None])[0, 1] == 1.0 and np.isfinite(score) and score > 50
    np.testing.assert_allclose(decision_at_iteration(model, X, model.n_iter_),
                               model.decision_function(X))


def test_random_init_clusters_without_labels_and_is_seeded():
    X, y, _ = blobs(seed=12)
    runs = [GaussianCEM(init="random", classes=[0, 1], random_state=s).fit(X, np.full(len(X), -1))
            for s in (3, 3)]
    np.testing.assert_array_equal(runs[0].predict(X), runs[1].predict(X))
    agreement = np.mean(runs[0].predict(X) == y)
    assert max(agreement, 1 - agreement) > 0.8


@pytest.mark.parametrize(("params", "message"), [
    ({"covariance": "spherical"}, r"covariance must be one of \['shared', 'full', 'diag'\]"),
    ({"reg_covar": -1.0}, "reg_covar must be a finite number >= 0"),
    ({"assignment": "fuzzy"}, r"assignment must be one of \['hard', 'soft'\]"),
    ({"max_iter": 1.5}, "max_iter must be an integer >= 0"),
    ({"init": "kmeans"}, r"init must be one of \['labeled', 'random'\]"),
])
def test_bad_parameters_are_refused_with_the_fix(params, message):
    X, _, y_semi = blobs()
    with pytest.raises(ValueError, match=message):
        GaussianCEM(**params).fit(X, y_semi)


def test_bad_input_is_refused_with_the_fix():
    X, _, y_semi = blobs()
    with pytest.raises(ValueError, match="C must be a finite number > 0"):
        LogisticCEM(C=0.0).fit(X, y_semi)
    with pytest.raises(ValueError, match="no labeled rows.*init='random'"):
        GaussianCEM().fit(X, np.full(len(X), -1))
    one_class = np.where(y_semi == 1, -1, y_semi)
    with pytest.raises(ValueError, match="needs at least 2"):
        LogisticCEM().fit(X, one_class)


def test_the_shared_loop_alone_is_refused_naming_the_models_to_fit():
    # scikit-learn's estimator checks on CEMClassifier() met "'CEMClassifier' object has no
    # attribute 'assignment'": the base class has no constructor and no model
    X, _, y_semi = blobs()
    message = ("CEMClassifier is the loop GaussianCEM and LogisticCEM share and has no model of "
               "its own: fit GaussianCEM(...) or LogisticCEM(...)")
    with pytest.raises(TypeError, match=re.escape(message)):
        CEMClassifier().fit(X, y_semi)


# -- NB-CEM: SemiSupervisedNB with a C-step -----------------------------------------------------
def test_nb_soft_assignment_is_semi_supervised_nb_unchanged():
    X, _, y_semi = topic_corpus(200, 30, 15, 0)
    soft = SemiSupervisedNB(assignment="soft", max_iter=5).fit(X, y_semi)
    em = SemiSupervisedNB(max_iter=5).fit(X, y_semi)
    np.testing.assert_array_equal(soft.feature_log_prob_, em.feature_log_prob_)
    np.testing.assert_array_equal(soft.trace_.values("objective"), em.trace_.values("objective"))


@pytest.mark.parametrize("lam", [1.0, 0.4])
def test_nb_hard_m_step_is_multinomial_nb_on_the_hard_labeled_rows(lam):
    X, y, y_semi = topic_corpus(240, 40, 12, 1)
    alpha = 0.5
    model = SemiSupervisedNB(alpha=alpha, unlabeled_weight=lam, max_iter=1,
                             assignment="hard").fit(X, y_semi)
    labeled = y_semi != -1
    start = SemiSupervisedNB(alpha=alpha, max_iter=0).fit(X, y_semi)
    hard = start.predict(X[~labeled])
    targets = np.concatenate([y_semi[labeled], hard])
    weights = np.concatenate([np.ones(labeled.sum()), np.full((~labeled).sum(), lam)])
    rows = np.concatenate([np.flatnonzero(labeled), np.flatnonzero(~labeled)])
    reference = MultinomialNB(alpha=alpha).fit(X[rows], targets, sample_weight=weights)
    np.testing.assert_allclose(model.trace_[1].feature_log_prob, reference.feature_log_prob_)
    prior = np.bincount(targets, weights=weights, minlength=3) + alpha
    np.testing.assert_allclose(np.exp(model.trace_[1].class_log_prior), prior / prior.sum())


def test_nb_hard_objective_is_the_classification_posterior_and_never_decreases():
    X, y, y_semi = topic_corpus(240, 40, 6, 2)
    alpha, lam = 1.0, 0.8
    model = SemiSupervisedNB(alpha=alpha, unlabeled_weight=lam, max_iter=20,
                             assignment="hard").fit(X, y_semi)
    labeled = y_semi != -1
    objective = model.trace_.values("objective")
    assert np.all(np.diff(objective) >= -1e-9 * np.abs(objective[:-1]))
    assert model.converged_
    for step in model.trace_:
        joint = np.asarray(X @ step.feature_log_prob.T) + step.class_log_prior
        expected = (joint[labeled, y_semi[labeled]].sum() + lam * joint[~labeled].max(axis=1).sum()
                    + alpha * (step.class_log_prior.sum() + step.feature_log_prob.sum()))
        assert step.objective == pytest.approx(expected, rel=1e-10)
        assert logsumexp(joint[~labeled], axis=1).sum() >= joint[~labeled].max(axis=1).sum()


def test_nb_hard_refuses_annealing():
    X, _, y_semi = topic_corpus(100, 20, 6, 0)
    with pytest.raises(ValueError, match="annealing needs assignment='soft'"):
        SemiSupervisedNB(annealing=(0.5, 1.0), assignment="hard").fit(X, y_semi)
