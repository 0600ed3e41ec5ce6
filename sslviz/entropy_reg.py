"""Multinomial logistic regression with a minimum-entropy regularizer (Grandvalet & Bengio, 2005).

The model is multinomial logistic regression (Fujino et al., eq. 2), ``P(k|x) ∝ exp(w_k · x)``,
optionally with an unpenalised intercept per class. The unlabeled rows enter through the
conditional entropy of their predicted classes, which the fit *lowers* (Fujino et al., eq. 3)::

    minimise  −Σ_n log P(y_n|x_n)  +  λ Σ_m H(P(·|x_m))  +  ||W||² / (2C)

with ``H(p) = −Σ_k p_k log p_k`` and the Gaussian prior ``log P(W)`` written, as in
scikit-learn, through ``C`` (σ² = C). With λ = 0 this is exactly scikit-learn's
``LogisticRegression`` (multinomial, L2) for three or more classes. The entropy term rewards
confident predictions on unlabeled rows: a boundary through a low-density region. It is not
convex; the fit starts from the λ = 0 solution (scikit-learn's), then runs scipy's L-BFGS with the
analytic gradient on sparse input. Its gradient with respect to the scores ``z_m = W x_m`` is
``∂H/∂z_mj = −p_mj (log p_mj + H_m)``.

Pitfall: with few labeled rows, λ ≥ 1e-4 can make the cheapest low-entropy solution put nearly
every unlabeled row into one class ("collapse"); the trace records the class shares of the
unlabeled rows at every L-BFGS iteration so that this can be seen.

Cost: one objective and gradient evaluation is two sparse products, ``X @ W.T`` and
``Z.T @ X``, O(nnz(X) × K).

References
----------
Grandvalet & Bengio (2005), Semi-supervised learning by entropy minimization. NIPS 17.
Fujino, Ueda & Saito (2005), eq. 2-3 (MLR/MER).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression
from sklearn.utils.validation import check_is_fitted, validate_data

from .trace import Trace, freeze_array
from .validation import (
    check_choice,
    check_int,
    check_number,
    resolve_classes,
    semi_supervised_target,
)

__all__ = ["EntropyProblem", "EntropyRegularizedLR", "EntropyStep", "entropy_regularized_loss",
           "unlabeled_shares_by_weight"]


@dataclass(frozen=True)
class EntropyStep:
    """The state after one L-BFGS iteration (iteration 0: the starting point).

    Attributes
    ----------
    iteration : int
    objective : float
        The minimised loss (module docstring).
    labeled_log_likelihood : float
        Σ_n log P(y_n|x_n).
    mean_unlabeled_entropy : float
        Mean H(P(·|x_m)) over the unlabeled rows (nats).
    unlabeled_shares : ndarray of shape (n_classes,)
        Fraction of the unlabeled rows predicted in each class.
    """

    iteration: int
    objective: float
    labeled_log_likelihood: float
    mean_unlabeled_entropy: float
    unlabeled_shares: np.ndarray


class EntropyRegularizedLR(ClassifierMixin, BaseEstimator):
    """Multinomial logistic regression plus λ × the entropy of the unlabeled rows' predictions.

    The labeled rows enter through their conditional log-likelihood, the unlabeled rows through
    the entropy of their predicted class distributions, which the fit lowers: a boundary that
    keeps away from the unlabeled rows is rewarded. The (non-convex) loss is minimised by
    scipy's L-BFGS, started from scikit-learn's supervised solution (see ``init``).

    Parameters
    ----------
    C : float, default=1.0
        Inverse strength of the Gaussian prior on W (scikit-learn's ``C``).
    entropy_weight : float >= 0, default=0.0
        λ of eq. 3. ``0`` gives scikit-learn's logistic regression.
    fit_intercept : bool, default=False
        Add an unpenalised bias per class. Eq. 2 has none; with a handful of labels scikit-learn's
        default intercept tends to predict the majority class everywhere.
    max_iter : int, default=100
        L-BFGS iterations of the entropy-regularised fit.
    tol : float, default=1e-5
        L-BFGS tolerance on the projected gradient.
    record : {"full", "summary"}, default="full"
        ``"full"`` records an :class:`EntropyStep` per L-BFGS iteration; ``"summary"`` records
        the start and the end only.
    init : {"supervised", "zeros"}, default="supervised"
        Start L-BFGS from scikit-learn's λ = 0 solution (the objective is not convex for λ > 0:
        start from the supervised answer), or from W = 0. With two classes both start from
        W = 0 (scikit-learn fits one weight vector there, this model one per class).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_classes, n_features)
    intercept_ : ndarray of shape (n_classes,)
    n_iter_ : int
        L-BFGS iterations run.
    converged_ : bool
        Whether L-BFGS reported success (tolerance reached before ``max_iter``).
    trace_ : Trace of EntropyStep
        The starting point, then one record per L-BFGS iteration (``record="full"``) or the end
        point only (``"summary"``).
    n_features_in_ : int
        Number of columns of the ``X`` seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names of ``X``; set only when ``X`` was a DataFrame with string column names.

    References
    ----------
    Grandvalet & Bengio (2005), Semi-supervised learning by entropy minimization. NIPS 17.
    Fujino, Ueda & Saito (2005), A hybrid generative/discriminative approach to semi-supervised
    classifier design. AAAI, eq. 2-3 (the model and loss as written here).

    Examples
    --------
    >>> import numpy as np
    >>> from sslviz.entropy_reg import EntropyRegularizedLR
    >>> X = np.array([[0., 0.], [.2, .1], [.1, .3], [3., 3.], [3.2, 2.9], [2.8, 3.1]])
    >>> y = np.array([0, -1, -1, 1, -1, -1])
    >>> model = EntropyRegularizedLR().fit(X, y)
    >>> model.predict(X[[0, 3]]).tolist(), model.predict_proba(X).sum(axis=1).round(6).tolist()
    ([0, 1], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    """

    def __init__(self, C=1.0, entropy_weight=0.0, fit_intercept=False, max_iter=100, tol=1e-5,
                 record="full", init="supervised"):
        self.C = C
        self.entropy_weight = entropy_weight
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.record = record
        self.init = init

    def _check_params(self):
        """The checked ``(C, entropy_weight, max_iter, tol)``; a clear error for a value the fit
        cannot use."""
        check_choice("record", self.record, ("full", "summary"))
        check_choice("init", self.init, ("supervised", "zeros"))
        if not isinstance(self.fit_intercept, bool | np.bool_):
            raise ValueError(f"fit_intercept must be True or False, got {self.fit_intercept!r}")
        return (check_number("C", self.C, above=0),
                check_number("entropy_weight (λ)", self.entropy_weight, minimum=0),
                check_int("max_iter", self.max_iter, minimum=0),
                check_number("tol", self.tol, above=0))

    def fit(self, X, y):
        """Fit on labeled rows and (through the entropy) unlabeled rows (``y == -1``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Real-valued features (e.g. word counts or tf-idf) of the labeled and the unlabeled
            rows together.
        y : array-like of shape (n_samples,)
            Class labels (integers or strings), ``-1`` for an unlabeled row; at least two
            classes among the labeled rows.

        Returns
        -------
        self : EntropyRegularizedLR
            The fitted estimator.

        Raises
        ------
        ValueError
            If a parameter is out of its range; if ``y`` has no labeled row or fewer than two
            classes, or breaks the label rule (:func:`sslviz.validation.semi_supervised_target`).
        """
        C, weight, max_iter, tol = self._check_params()
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        y, labeled = semi_supervised_target(y)
        if not labeled.any():
            raise ValueError("no labeled rows: every entry of y is -1; the regression needs "
                             "labeled rows of at least two classes")
        self.classes_ = resolve_classes(y[labeled], row="row", min_classes=2)
        X = sp.csr_matrix(X)
        # a word absent from every row gets weight 0 at the optimum (only the prior sees it):
        # fitting on the words present is exact, and much faster on a large vocabulary
        used = np.flatnonzero(X.getnnz(axis=0))
        X_used = X[:, used]
        problem = EntropyProblem(X_used[labeled], np.searchsorted(self.classes_, y[labeled]),
                           X_used[~labeled], len(self.classes_), C, weight,
                           bool(self.fit_intercept))
        start = (self._supervised_start(problem) if self.init == "supervised"
                 else np.zeros(problem.n_classes * (len(used) + problem.fit_intercept)))
        records = [problem.record(0, start)]
        full = self.record == "full"

        def callback(intermediate_result):
            if full:
                records.append(problem.record(len(records), intermediate_result.x))

        result = minimize(problem.loss_and_gradient, start, jac=True, method="L-BFGS-B",
                          callback=callback,
                          options={"maxiter": max_iter, "gtol": tol, "ftol": 1e-12})
        params = result.x if max_iter > 0 else start
        if not full or len(records) == 1:
            records.append(problem.record(len(records), params))
        coef, self.intercept_ = problem.unpack(params)
        self.coef_ = np.zeros((len(self.classes_), X.shape[1]))
        self.coef_[:, used] = coef
        self.n_iter_ = int(result.nit)
        self.converged_ = bool(result.success)
        self.trace_ = Trace(records)
        return self

    def _supervised_start(self, problem):
        """The λ = 0 optimum: scikit-learn's multinomial logistic regression (convex)."""
        n_features = problem.X_lab.shape[1]
        if problem.n_classes < 3:  # scikit-learn fits one vector for two classes: start at 0
            return np.zeros(problem.n_classes * (n_features + problem.fit_intercept))
        # a word absent from every labeled row has weight 0 at this optimum (its gradient is
        # its weight over C, 0 from the start): fit on the labeled rows' words and scatter back
        seen = np.flatnonzero(problem.X_lab.getnnz(axis=0))
        if not len(seen):  # no word in any labeled row: keep the columns scikit-learn needs
            seen = np.arange(n_features)
        model = LogisticRegression(C=problem.C, fit_intercept=problem.fit_intercept,
                                   max_iter=1000)
        model.fit(problem.X_lab[:, seen], problem.y_index)
        coef = np.zeros((problem.n_classes, n_features))
        coef[:, seen] = model.coef_
        if problem.fit_intercept:
            return np.concatenate([coef.ravel(), model.intercept_])
        return coef.ravel()

    def class_scores(self, X):
        """The scores ``W x + b``, shape (n_samples, n_classes).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to score, with the columns of ``fit``; any rows, not only the fitted ones.

        Returns
        -------
        scores : ndarray of shape (n_samples, n_classes)
            One column per class, in the order of ``classes_``; their softmax is P(k|x).
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return np.asarray(X @ self.coef_.T) + self.intercept_

    def decision_function(self, X):
        """scikit-learn's convention: the class scores, or for two classes the difference
        score(class 1) − score(class 0), shape (n_samples,).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to score, with the columns of ``fit``; any rows, not only the fitted ones.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            For two classes, positive means ``classes_[1]``; else ``W x + b`` per class, columns
            in the order of ``classes_``.
        """
        scores = self.class_scores(X)
        return scores[:, 1] - scores[:, 0] if scores.shape[1] == 2 else scores

    def predict_log_proba(self, X):
        """log P(k|x), shape (n_samples, n_classes).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to score, with the columns of ``fit``; any rows, not only the fitted ones.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            Log posteriors, columns in the order of ``classes_``.
        """
        scores = self.class_scores(X)
        return scores - logsumexp(scores, axis=1, keepdims=True)

    def predict_proba(self, X):
        """P(k|x) of eq. 2, shape (n_samples, n_classes); rows sum to one.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to classify, with the columns of ``fit``; any rows, not only the fitted ones.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """The most probable class of each row.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to classify, with the columns of ``fit``; any rows, not only the fitted ones.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The class of largest score, from ``classes_``.
        """
        best = np.argmax(self.class_scores(X), axis=1)
        return self.classes_[best]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


@dataclass(frozen=True)
class EntropyProblem:
    """The data of one fit: labeled rows and their class indices, unlabeled rows, settings.

    ``params`` vectors are the coefficients (n_classes × n_features, row by row), then the
    intercepts when ``fit_intercept``.
    """

    X_lab: sp.csr_matrix
    y_index: np.ndarray
    X_unl: sp.csr_matrix
    n_classes: int
    C: float
    entropy_weight: float
    fit_intercept: bool

    def unpack(self, params):
        n_features = self.X_lab.shape[1]
        coef = params[: self.n_classes * n_features].reshape(self.n_classes, n_features)
        intercept = (params[self.n_classes * n_features:] if self.fit_intercept
                     else np.zeros(self.n_classes))
        return coef, intercept

    def loss_and_gradient(self, params):
        """The loss of the module docstring and its gradient with respect to ``params``."""
        return entropy_regularized_loss(params, self)

    def record(self, iteration, params):
        coef, intercept = self.unpack(params)
        log_lab = _log_softmax(np.asarray(self.X_lab @ coef.T) + intercept)
        log_unl = _log_softmax(np.asarray(self.X_unl @ coef.T) + intercept)
        entropy = -(np.exp(log_unl) * log_unl).sum(axis=1)
        shares = (np.bincount(log_unl.argmax(axis=1), minlength=self.n_classes) / len(log_unl)
                  if len(log_unl) else np.full(self.n_classes, np.nan))
        return EntropyStep(
            iteration=iteration,
            objective=float(self.loss_and_gradient(params)[0]),
            labeled_log_likelihood=float(log_lab[np.arange(len(self.y_index)),
                                                 self.y_index].sum()),
            mean_unlabeled_entropy=float(entropy.mean()) if len(entropy) else float("nan"),
            unlabeled_shares=freeze_array(shares))


def entropy_regularized_loss(params, problem):
    """``(loss, gradient)`` of eq. 3 as a minimisation (see the module docstring)."""
    coef, intercept = problem.unpack(params)
    log_lab = _log_softmax(np.asarray(problem.X_lab @ coef.T) + intercept)
    rows = np.arange(len(problem.y_index))
    loss = -log_lab[rows, problem.y_index].sum() + 0.5 * np.sum(coef ** 2) / problem.C
    d_lab = np.exp(log_lab)
    d_lab[rows, problem.y_index] -= 1.0
    d_coef = np.asarray(problem.X_lab.T @ d_lab).T + coef / problem.C
    d_intercept = d_lab.sum(axis=0)
    if problem.entropy_weight > 0 and problem.X_unl.shape[0]:
        log_unl = _log_softmax(np.asarray(problem.X_unl @ coef.T) + intercept)
        prob = np.exp(log_unl)
        entropy = -(prob * log_unl).sum(axis=1)
        loss += problem.entropy_weight * entropy.sum()
        d_unl = -problem.entropy_weight * prob * (log_unl + entropy[:, None])
        d_coef += np.asarray(problem.X_unl.T @ d_unl).T
        d_intercept = d_intercept + d_unl.sum(axis=0)
    gradient = d_coef.ravel()
    if problem.fit_intercept:
        gradient = np.concatenate([gradient, d_intercept])
    return float(loss), gradient


def _log_softmax(scores):
    """``scores − logsumexp(scores)`` per row, in plain NumPy: scipy's ``logsumexp`` costs more
    than the sparse products on the (n_rows, n_classes) tables of one L-BFGS step."""
    shifted = scores - scores.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def unlabeled_shares_by_weight(models):
    """Class shares of the unlabeled rows at the end of each fit: shape (n_models, n_classes)."""
    return np.array([model.trace_[-1].unlabeled_shares for model in models])
