"""The hybrid generative/discriminative classifier of Fujino, Ueda & Saito (AAAI 2005).

Three multinomial Naive Bayes pieces make one classifier:

* the **generative model** θ: class word distributions estimated from the labeled rows alone
  (MAP under a Dirichlet prior, the paper's eq. 4 -- scikit-learn's ``MultinomialNB`` counts);
* the **bias-correction model** ψ: the same family, estimated from the *unlabeled* rows, each
  spread over the classes by soft labels ``u_mk`` (eq. 5);
* the **combination**, a maximum-entropy model (eq. 8)::

      R(k|x) ∝ P(x|k,θ)^λ1 · P(x|k,ψ)^λ2 · exp(μ_k)

  whose weights Λ = (λ1, λ2, μ_1..μ_K) maximise the *leave-one-out* conditional log-likelihood of
  the labeled rows plus a Gaussian prior (eq. 9). Leave-one-out: document n is scored with
  θ^(−n), the generative model without its own counts -- computed by subtracting the document's
  counts from its class's totals, never by refitting. Without it θ has seen every labeled
  document and λ1 would swamp λ2.

Fitting (the paper's Fig. 1) alternates: soft labels of the unlabeled rows ``u = R(·|x)`` → ψ by
eq. 5 → Λ by eq. 9 (scipy's L-BFGS-B with the analytic gradient), until the relative change of
J(Ψ) (eq. 5's objective) falls below ``tol``. One :class:`HybridStep` is recorded per alternation.

Choices the paper leaves open (documented so a reader can change them):

* **ψ^(0)**: estimated with ``u`` = the supervised Naive Bayes posteriors of the unlabeled rows
  (θ with the labeled class shares as prior): one EM-like step from the generative model.
* **λ1, λ2 ≥ 0** (L-BFGS-B bounds). The maximum-entropy derivation allows any sign, but a
  negative weight on ψ turns the ψ ↔ R feedback into a seesaw (ψ learns what R says, R then
  says the opposite) and the alternation oscillates; a negative λ1 would read the labeled
  model backwards. With both at 0 the classifier is the biases μ alone.
* **the prior**: independent Gaussians with mean 0 and standard deviation ``prior_scale`` on
  λ1, λ2 and every μ_k (the paper prints no values). Without a prior, labeled rows that the
  leave-one-out models already separate push λ to infinity.
* **normalize**: document log-likelihoods are sums over tokens, so two classes' values for one
  long post differ by 10²–10⁴ nats and the fitted λ come out tiny. ``normalize="length"``
  divides every log-likelihood by the document's number of tokens (per-token log-likelihoods) --
  *not* in the paper; an option to test whether the paper normalised something it does not say.

Cost: θ and the leave-one-out correction are one pass over the labeled counts; each alternation
is two sparse-dense products over the unlabeled rows (``X_u @ log ψ.T`` and ``X_u.T @ u``) and an
L-BFGS fit of K + 2 numbers on an (N, K) table.

References
----------
Fujino, Ueda & Saito (2005), A hybrid generative/discriminative approach to semi-supervised
classifier design. AAAI. Equations 4, 5, 8, 9 and Fig. 1. Chen & Rosenfeld (1999), A Gaussian
prior for smoothing maximum entropy models.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, check_non_negative, validate_data

from .trace import Trace, freeze_array
from .validation import (
    check_choice,
    check_int,
    check_number,
    labeled_mask,
    resolve_classes,
    semi_supervised_target,
)

__all__ = ["HybridNB", "HybridStep", "NORMALIZATIONS", "class_word_counts", "combination_objective",
           "combination_scores", "fit_combination", "leave_one_out_log_likelihoods",
           "smoothed_log_prob", "weights_by_iteration"]

NORMALIZATIONS = (None, "length")


@dataclass(frozen=True)
class HybridStep:
    """One alternation of ψ and Λ (iteration 0: ψ^(0) and Λ^(0)).

    Attributes
    ----------
    iteration : int
    weights : ndarray of shape (2,)
        (λ1, λ2): the weights of the generative and the bias-correction model.
    bias : ndarray of shape (n_classes,)
        μ_k.
    objective : float
        J(Λ) of eq. 9: the leave-one-out conditional log-likelihood plus the log prior.
    loo_log_likelihood : float
        The data term of J(Λ) alone: Σ_n log R(y_n | x_n, θ^(−n), ψ, Λ).
    psi_objective : float
        J(Ψ) of eq. 5 for this iteration's ψ and the soft labels it was estimated from.
    unlabeled_shares : ndarray of shape (n_classes,)
        Mean of R(k|x) over the unlabeled rows under this iteration's ψ and Λ.
    n_label_changes : int
        Unlabeled rows whose most probable class differs from the previous iteration's.
    optimizer_iterations : int
        L-BFGS iterations spent on this iteration's Λ.
    """

    iteration: int
    weights: np.ndarray
    bias: np.ndarray
    objective: float
    loo_log_likelihood: float
    psi_objective: float
    unlabeled_shares: np.ndarray
    n_label_changes: int
    optimizer_iterations: int


class HybridNB(ClassifierMixin, BaseEstimator):
    """Naive Bayes θ (labeled rows) and ψ (unlabeled rows) combined by maximum entropy.

    A generative model θ is estimated from the labeled documents and a bias-correction model ψ
    of the same form from the unlabeled documents under soft labels; the classifier weighs their
    log-likelihoods, ``R(k|x) ∝ P(x|k,θ)^λ1 P(x|k,ψ)^λ2 e^μ_k``, with weights fitted to the
    leave-one-out likelihood of the labeled documents. ψ and the weights are re-estimated in
    turn until ψ's objective settles.

    Parameters
    ----------
    alpha : float, default=1.0
        Dirichlet smoothing of θ (scikit-learn's meaning: pseudo-counts per word and class; the
        paper's ξ − 1).
    psi_alpha : float or None, default=None
        Smoothing of ψ; ``None`` uses ``alpha``.
    prior_scale : float, default=1.0
        Standard deviation σ of the Gaussian prior (mean 0) on λ1, λ2 and each μ_k (eq. 9).
    normalize : {None, "length"}, default=None
        ``None``: the paper's document log-likelihoods. ``"length"``: divide them by the
        document's token count (not in the paper; see the module docstring).
    max_iter : int, default=30
        Alternations of ψ and Λ after iteration 0.
    tol : float, default=1e-4
        Stop when ``|J(Ψ^(t+1)) − J(Ψ^(t))| < tol · |J(Ψ^(t))|`` (the paper's criterion).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    theta_log_prob_ : ndarray of shape (n_classes, n_features)
        log θ: the generative model from the labeled rows (equals ``MultinomialNB``'s
        ``feature_log_prob_``).
    psi_log_prob_ : ndarray of shape (n_classes, n_features)
        log ψ: the bias-correction model.
    weights_ : ndarray of shape (2,)
        (λ1, λ2).
    bias_ : ndarray of shape (n_classes,)
        μ.
    n_iter_ : int
        Alternations run after iteration 0.
    converged_ : bool
        Whether the change of J(Ψ) fell below ``tol`` before ``max_iter``.
    trace_ : Trace of HybridStep
        One record per alternation, iteration 0 first.
    n_features_in_ : int
        Number of columns (words) of the ``X`` seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names of ``X``; set only when ``X`` was a DataFrame with string column names.

    References
    ----------
    Fujino, Ueda & Saito (2005), A hybrid generative/discriminative approach to semi-supervised
    classifier design. AAAI, eq. 4, 5, 8, 9 and Fig. 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sslviz.hybrid import HybridNB
    >>> X = np.array([[3, 0, 1], [2, 0, 0], [0, 3, 1], [0, 2, 0], [4, 1, 0], [0, 4, 1]])
    >>> y = np.array([0, -1, 1, -1, -1, -1])
    >>> HybridNB().fit(X, y).predict(X).tolist()
    [0, 0, 1, 1, 0, 1]
    """

    def __init__(self, alpha=1.0, psi_alpha=None, prior_scale=1.0, normalize=None, max_iter=30,
                 tol=1e-4):
        self.alpha = alpha
        self.psi_alpha = psi_alpha
        self.prior_scale = prior_scale
        self.normalize = normalize
        self.max_iter = max_iter
        self.tol = tol

    # -- fitting -------------------------------------------------------------------------------
    def fit(self, X, y):
        """Fit θ, then alternate ψ and Λ; ``y == -1`` marks unlabeled rows.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Word counts (non-negative) of the labeled and the unlabeled documents together.
        y : array-like of shape (n_samples,)
            Class labels (integers or strings), ``-1`` for an unlabeled document; at least one
            labeled document.

        Returns
        -------
        self : HybridNB
            The fitted estimator.

        Raises
        ------
        ValueError
            If a parameter is out of its range; if ``X`` has a negative entry; if ``y`` has no
            labeled row or breaks the label rule
            (:func:`sslviz.validation.semi_supervised_target`).
        """
        for _ in self.iter_fit(X, y):
            pass
        return self

    def _check_params(self):
        """The checked ``(alpha, psi_alpha, prior_scale, max_iter, tol)``; a clear error for a
        value the fit cannot use."""
        alpha = check_number("alpha", self.alpha, above=0)
        psi_alpha = alpha if self.psi_alpha is None else check_number(
            "psi_alpha", self.psi_alpha, above=0)
        sigma = check_number("prior_scale", self.prior_scale, above=0)
        check_choice("normalize", self.normalize, NORMALIZATIONS)
        return (alpha, psi_alpha, sigma, check_int("max_iter", self.max_iter, minimum=0),
                check_number("tol", self.tol, minimum=0))

    def iter_fit(self, X, y):
        """Fit step by step: a generator yielding each :class:`HybridStep` as it is recorded.

        ``fit`` runs it to the end; the fitted attributes always describe the last yielded step.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            As for :meth:`fit`.
        y : array-like of shape (n_samples,)
            As for :meth:`fit`.

        Yields
        ------
        step : HybridStep
            One alternation's record, iteration 0 (ψ from the supervised NB) first.

        Raises
        ------
        ValueError
            As :meth:`fit`, at the first ``next()``.
        """
        alpha, psi_alpha, sigma, max_iter, tol = self._check_params()
        X, y = self._validate_input(X, y)
        labeled = labeled_mask(y)
        y_index = np.searchsorted(self.classes_, y[labeled])
        X_lab, X_unl = X[labeled], X[~labeled]
        n_classes = len(self.classes_)
        counts = class_word_counts(X_lab, y_index, n_classes)
        self.theta_log_prob_ = smoothed_log_prob(counts, alpha)
        scale_lab, scale_unl = _scales(X_lab, self.normalize), _scales(X_unl, self.normalize)
        loo = leave_one_out_log_likelihoods(X_lab, y_index, counts, alpha) * scale_lab[:, None]
        theta_unl = np.asarray(X_unl @ self.theta_log_prob_.T) * scale_unl[:, None]
        onehot = np.eye(n_classes)[y_index]
        # psi^(0): soft labels from the supervised NB (theta with the labeled class shares)
        log_prior = np.log((onehot.sum(axis=0) + alpha) / (len(y_index) + n_classes * alpha))
        u = _softmax(np.asarray(X_unl @ self.theta_log_prob_.T) + log_prior)
        params = np.zeros(n_classes + 2)
        records, previous_psi_objective, previous_labels = [], None, None
        self.n_iter_, self.converged_ = 0, max_iter == 0
        for iteration in range(max_iter + 1):
            psi_log_prob = _psi_from_soft_labels(X_unl, u, psi_alpha)
            psi_objective = float(np.sum(u * np.asarray(X_unl @ psi_log_prob.T))
                                  + psi_alpha * psi_log_prob.sum())
            psi_lab = np.asarray(X_lab @ psi_log_prob.T) * scale_lab[:, None]
            params, result = fit_combination(loo, psi_lab, onehot, sigma, start=params)
            psi_unl = np.asarray(X_unl @ psi_log_prob.T) * scale_unl[:, None]
            u = _softmax(params[0] * theta_unl + params[1] * psi_unl + params[2:])
            labels = u.argmax(axis=1)
            changes = 0 if previous_labels is None else int(np.sum(labels != previous_labels))
            loo_ll = -result.fun + 0.5 * np.sum(params ** 2) / sigma ** 2
            records.append(HybridStep(
                iteration=iteration, weights=freeze_array(params[:2]),
                bias=freeze_array(params[2:]), objective=float(-result.fun),
                loo_log_likelihood=float(loo_ll), psi_objective=psi_objective,
                unlabeled_shares=freeze_array(u.mean(axis=0) if len(u) else
                                              np.full(n_classes, np.nan)),
                n_label_changes=changes, optimizer_iterations=int(result.nit)))
            self.psi_log_prob_ = psi_log_prob
            self.weights_, self.bias_ = params[:2].copy(), params[2:].copy()
            self.trace_ = Trace(records)
            self.n_iter_ = iteration
            if previous_psi_objective is not None:
                change = abs(psi_objective - previous_psi_objective)
                self.converged_ = change <= tol * abs(previous_psi_objective)
            yield records[-1]
            if self.converged_:
                break
            previous_psi_objective, previous_labels = psi_objective, labels

    def _validate_input(self, X, y):
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        check_non_negative(X, "HybridNB (X must hold word counts)")
        y, labeled = semi_supervised_target(y)
        if not labeled.any():
            raise ValueError("no labeled rows: every entry of y is -1. The generative model θ "
                             "and the weights Λ are estimated from labeled documents; label at "
                             "least one document per class.")
        self.classes_ = resolve_classes(y[labeled], row="document")
        return sp.csr_matrix(X), y

    # -- prediction ----------------------------------------------------------------------------
    def predict_unnormalized_log_proba(self, X):
        """λ1 log P(x|k,θ) + λ2 log P(x|k,ψ) + μ_k (scaled as in fit), shape (n, n_classes):
        log R(k|x) up to a constant per row.

        Not named ``predict_joint_log_proba`` as in :class:`sslviz.em.SemiSupervisedNB` and
        :class:`sslviz.cem.CEMClassifier`: a weighted product of two models' likelihoods is no
        joint probability log P(k, x) of any model, only a score whose softmax is R(k|x).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Word counts (non-negative) over the vocabulary of ``fit``; any documents, not only
            the fitted ones.

        Returns
        -------
        scores : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.

        Raises
        ------
        ValueError
            If ``X`` has a negative entry (it must hold word counts).
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        check_non_negative(X, "HybridNB (X must hold word counts)")
        return combination_scores(X, self.theta_log_prob_, self.psi_log_prob_, self.weights_,
                                  self.bias_, normalize=self.normalize)

    def predict_log_proba(self, X):
        """log R(k|x), shape (n_samples, n_classes).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Word counts (non-negative) over the vocabulary of ``fit``; any documents, not only
            the fitted ones.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.

        Raises
        ------
        ValueError
            If ``X`` has a negative entry (it must hold word counts).
        """
        scores = self.predict_unnormalized_log_proba(X)
        return scores - logsumexp(scores, axis=1, keepdims=True)

    def predict_proba(self, X):
        """R(k|x) of eq. 8, shape (n_samples, n_classes); rows sum to one.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Word counts (non-negative) over the vocabulary of ``fit``; any documents, not only
            the fitted ones.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.

        Raises
        ------
        ValueError
            If ``X`` has a negative entry (it must hold word counts).
        """
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """The class of largest R(k|x).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Word counts (non-negative) over the vocabulary of ``fit``; any documents, not only
            the fitted ones.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Classes from ``classes_``.

        Raises
        ------
        ValueError
            If ``X`` has a negative entry (it must hold word counts).
        """
        best = np.argmax(self.predict_unnormalized_log_proba(X), axis=1)
        return self.classes_[best]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        # a multinomial model of counts: on dense continuous data (the checks' shifted blobs)
        # it stays below their accuracy bar, as MultinomialNB declares too
        tags.classifier_tags.poor_score = True
        return tags


# -- the pieces, as pure functions ---------------------------------------------------------------
def class_word_counts(X, y_index, n_classes):
    """Word counts per class, shape (n_classes, n_features) (the sufficient statistics of θ)."""
    onehot = sp.csr_matrix((np.ones(len(y_index)), (y_index, np.arange(len(y_index)))),
                           shape=(n_classes, len(y_index)))
    return np.asarray((onehot @ X).todense()) if sp.issparse(X) else onehot @ X


def smoothed_log_prob(counts, alpha):
    """log of the MAP word distributions (eq. 4 / 10 with a Dirichlet prior): each row of
    ``(counts + alpha)`` normalised, shape (n_classes, n_features)."""
    smoothed = counts + alpha
    return np.log(smoothed) - np.log(smoothed.sum(axis=1, keepdims=True))


def leave_one_out_log_likelihoods(X, y_index, counts, alpha):
    """log P(x_n | k, θ^(−n)) for every labeled row n and class k, shape (n, n_classes).

    θ^(−n) is θ estimated without document n: only its own class changes, by subtracting the
    document's counts from that class's word counts and total (no refit). The multinomial
    coefficient, the same for every class, is left out.
    """
    X = sp.csr_matrix(X)
    n_words = counts.shape[1]
    log_lik = np.asarray(X @ smoothed_log_prob(counts, alpha).T)
    coo = X.tocoo()
    own = counts[y_index[coo.row], coo.col]
    without = np.maximum(own - coo.data, 0.0)
    words = np.bincount(coo.row, coo.data * (np.log(without + alpha) - np.log(own + alpha)),
                        minlength=X.shape[0])
    lengths = np.asarray(X.sum(axis=1)).ravel()
    totals = counts.sum(axis=1)[y_index]
    normaliser = lengths * (np.log(np.maximum(totals - lengths, 0.0) + n_words * alpha)
                            - np.log(totals + n_words * alpha))
    log_lik[np.arange(X.shape[0]), y_index] += words - normaliser
    return log_lik


def combination_scores(X, theta_log_prob, psi_log_prob, weights, bias, *, normalize=None):
    """The exponent of eq. 8: ``λ1 log P(x|k,θ) + λ2 log P(x|k,ψ) + μ_k``, shape (n, K).

    With ``weights=(1, 0)`` and ``bias=0`` its softmax is the Naive Bayes posterior of θ under
    a uniform class prior.
    """
    scale = _scales(X, normalize)[:, None]
    theta = np.asarray(X @ np.asarray(theta_log_prob).T) * scale
    psi = np.asarray(X @ np.asarray(psi_log_prob).T) * scale
    return weights[0] * theta + weights[1] * psi + np.asarray(bias)


def combination_objective(params, theta_scores, psi_scores, onehot, prior_scale):
    """−J(Λ) of eq. 9 and its gradient, for ``params = (λ1, λ2, μ_1..μ_K)``.

    ``theta_scores`` are the leave-one-out log-likelihoods (n, K), ``psi_scores`` those of ψ;
    ``onehot`` (n, K) the labels; the prior is N(0, prior_scale²) on every parameter.
    """
    scores = params[0] * theta_scores + params[1] * psi_scores + params[2:]
    log_r = scores - logsumexp(scores, axis=1, keepdims=True)
    residual = onehot - np.exp(log_r)
    value = np.sum(onehot * log_r) - 0.5 * np.sum(params ** 2) / prior_scale ** 2
    gradient = np.concatenate([[np.sum(residual * theta_scores), np.sum(residual * psi_scores)],
                               residual.sum(axis=0)]) - params / prior_scale ** 2
    return -value, -gradient


def fit_combination(theta_scores, psi_scores, onehot, prior_scale, *, start=None):
    """Λ maximising eq. 9 with λ1, λ2 ≥ 0 (scipy L-BFGS-B, analytic gradient).

    The scores are centred per row first (a constant per document cancels in eq. 8), which keeps
    L-BFGS well scaled. Returns ``(params, scipy OptimizeResult)``.
    """
    theta_scores = theta_scores - theta_scores.mean(axis=1, keepdims=True)
    psi_scores = psi_scores - psi_scores.mean(axis=1, keepdims=True)
    n_classes = onehot.shape[1]
    start = np.zeros(n_classes + 2) if start is None else np.asarray(start, dtype=float)
    bounds = [(0.0, None), (0.0, None)] + [(None, None)] * n_classes
    result = minimize(combination_objective, start, jac=True, method="L-BFGS-B", bounds=bounds,
                      args=(theta_scores, psi_scores, onehot, prior_scale),
                      options={"maxiter": 500, "ftol": 1e-12, "gtol": 1e-8})
    return result.x, result


def _psi_from_soft_labels(X_unl, u, alpha):
    """ψ by eq. 5: word counts of the unlabeled rows spread by the soft labels ``u``."""
    counts = np.asarray(X_unl.T @ u).T if X_unl.shape[0] else np.zeros((u.shape[1],
                                                                         X_unl.shape[1]))
    return smoothed_log_prob(counts, alpha)


def _scales(X, normalize):
    """Per-row factor of the log-likelihoods: 1, or 1 / tokens with ``normalize="length"``."""
    if normalize is None:
        return np.ones(X.shape[0])
    return 1.0 / np.maximum(np.asarray(X.sum(axis=1)).ravel(), 1.0)


def _softmax(scores):
    return np.exp(scores - logsumexp(scores, axis=1, keepdims=True))


def weights_by_iteration(model):
    """(λ1, λ2) of every recorded alternation, shape (n_iterations, 2)."""
    check_is_fitted(model)
    return model.trace_.values("weights")
