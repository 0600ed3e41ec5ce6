"""Classification EM (CEM): semi-supervised learning by hard assignment (Amini & Gallinari 2002).

Two likelihoods of the same mixture model ``f(x) = Σ_k π_k f_k(x)`` (paper eq. 4):

* the **mixture likelihood** (MML, eq. 6) - what EM climbs - sums over the classes of every
  unlabeled row: ``Σ_unlabeled log Σ_k π_k f_k(x_i)``;
* the **classification likelihood** (CML, eq. 5; with labels eq. 8) treats each unlabeled row's
  class indicator ``t_ki`` as a parameter: ``Σ_labeled log π_t f_t(x_i) + Σ_unlabeled Σ_k t_ki log
  π_k f_k(x_i)``. It is climbed by CEM, which alternates

  - **E** - posteriors of the unlabeled rows under the current parameters (eq. 7);
  - **C** - each unlabeled row to its most probable class (:func:`c_step`; an exact tie goes to
    the class listed first in ``classes_``);
  - **M** - refit on the labeled rows (indicators fixed) plus the hard-labeled unlabeled rows.

  Every step can only raise eq. 8, which takes finitely many values on a fixed model family once
  the partition is fixed, so CEM stops when the C-step returns the partition it was given - the
  k-means picture: "assign to the nearest centre, move the centres".

For a **discriminative** model, Bayes' rule splits eq. 8 into ``Σ_k Σ_{x in P_k} log p(P_k|x)``
(eq. 10) plus ``Σ log p(x)``, which does not involve the classifier's parameters (eq. 9): CEM
with a logistic regression in the M-step (:class:`sslviz.logistic_cem.LogisticCEM`) climbs eq. 10.

One loop, :class:`CEMClassifier`, runs the Gaussian and logistic models of lecture 07;
``assignment="soft"`` replaces the C-step by posterior weights (plain EM, climbing the MML), so
hard and soft compare on one model. Naive Bayes CEM is :class:`sslviz.em.SemiSupervisedNB` with
``assignment="hard"``: the same C-step (:func:`sslviz.nb_mixture.c_step`) inside EM's own loop.
For a logistic model the soft variant started from the supervised fit never moves: at that fit
the posterior-weighted unlabeled rows add a zero gradient (its own posteriors are the targets
that it already predicts) - the classifier's log-likelihood of eq. 10 has nothing to learn from
``p(x)``.
The C-step is what lets the unlabeled rows pull (compare self-training).

Cost per iteration: one M-step (Gaussian: O(n d²) sums; logistic: a quasi-Newton fit) and one
E-step (O(n K d²) / O(n K d)).

References
----------
Amini & Gallinari (2002), Semi-supervised logistic regression, ECAI, eq. 4-11. Celeux & Govaert
(1992), A classification EM algorithm for clustering and two stochastic versions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.linalg import cholesky, solve_triangular
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from .nb_mixture import c_step
from .trace import Trace, freeze_array
from .validation import (
    check_choice,
    check_int,
    check_number,
    check_seed,
    labeled_mask,
    resolve_classes,
    semi_supervised_target,
)

__all__ = ["CEMClassifier", "CEMStep", "COVARIANCES", "GaussianCEM", "decision_at_iteration",
           "gaussian_log_density", "partition_sizes"]

COVARIANCES = ("shared", "full", "diag")


@dataclass(frozen=True)
class CEMStep:
    """What one CEM (or soft EM) iteration produced; iteration 0 is the initial M-step.

    Attributes
    ----------
    iteration : int
    objective : float
        The criterion the loop climbs, at this iteration's parameters: with
        ``assignment="hard"`` the classification likelihood (eq. 8 / eq. 10, minus the logistic
        penalty) for the partition the C-step draws from these parameters; with ``"soft"`` the
        mixture likelihood (labeled rows at their class, unlabeled rows summed over classes).
    n_label_changes : int
        Unlabeled rows whose class in ``partition`` differs from the previous iteration's
        (0 at iteration 0).
    partition : ndarray of shape (n_unlabeled,) or None
        Class index (into ``classes_``) the C-step gives every unlabeled row (for ``"soft"``, its
        most probable class); ``None`` with ``record="summary"``.
    posteriors : ndarray of shape (n_unlabeled, n_classes) or None
        P(k|x) of the unlabeled rows (float32); ``None`` with ``record="summary"``.
    parameters : tuple of ndarray
        The model's parameters after this M-step (read by :func:`decision_at_iteration`).
    """

    iteration: int
    objective: float
    n_label_changes: int
    partition: np.ndarray | None
    posteriors: np.ndarray | None
    parameters: tuple


class CEMClassifier(ClassifierMixin, BaseEstimator):
    """The E/C/M loop shared by every CEM model (subclass it; not used on its own).

    Iteration 0 fits the model on the labeled rows. Each later iteration computes the unlabeled
    rows' posteriors (E), gives each row wholly to its most probable class (C; with
    ``assignment="soft"`` the posteriors are kept as weights) and refits on the labeled and the
    unlabeled rows (M), until the C-step returns the partition it was given (soft: until the
    objective's gain falls below ``tol``). :class:`GaussianCEM` and
    :class:`~sslviz.logistic_cem.LogisticCEM` are the two models.

    Subclasses set ``_accept_sparse`` and implement ``_validate_model``, ``_m_step(X, R,
    previous)`` (parameters maximising ``Σ_i Σ_k R_ik log(...)``), ``_log_joint(parameters, X)``
    (log π_k f_k(x) for a generative model, log p(k|x) for a discriminative one), ``_penalty``
    and ``_set_model``. Their constructors take the parameters below (their docstrings give the
    defaults).

    Parameters
    ----------
    assignment : {"hard", "soft"}
        CEM (C-step) or EM (posterior weights).
    max_iter : int
        Iterations after iteration 0.
    tol : float
        Soft assignment only: stop when the objective gains less than ``tol × |objective|``.
    init : {"labeled", "random"}
        Iteration 0 on the labeled rows, or on every row with a random partition of the
        unlabeled ones.
    record : {"full", "summary"}
        Whether ``trace_`` keeps each iteration's partition and posteriors.
    classes : array-like or None
        All class labels; ``None``: the labels seen in ``y``.
    random_state : int, RandomState or None
        Seeds ``init="random"``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_iter_ : int
        Iterations run after iteration 0.
    converged_ : bool
        Whether the fit stopped on its criterion (same partition, or gain below ``tol``)
        before ``max_iter``.
    trace_ : Trace of CEMStep
        One record per iteration, iteration 0 first.
    n_features_in_ : int
        Number of columns of the ``X`` seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names of ``X``; set only when ``X`` was a DataFrame with string column names.

    References
    ----------
    Amini & Gallinari (2002), Semi-supervised logistic regression. ECAI, eq. 4-11. Celeux &
    Govaert (1992), A classification EM algorithm for clustering and two stochastic versions.
    """

    _accept_sparse = False

    def fit(self, X, y):
        """Run CEM on ``X``, ``y == -1`` marking unlabeled rows.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Real-valued features of the labeled and the unlabeled rows together. Sparse input
            only where the model accepts it (:class:`~sslviz.logistic_cem.LogisticCEM`;
            :class:`GaussianCEM` needs a dense array).
        y : array-like of shape (n_samples,)
            Class labels (integers or strings), ``-1`` for an unlabeled row; at least two
            classes. With ``init="random"`` and ``classes`` given, ``y`` may be all ``-1``.

        Returns
        -------
        self : CEMClassifier
            The fitted estimator.

        Raises
        ------
        ValueError
            If a parameter is out of its range; if ``y`` has no labeled row (and not
            ``init="random"`` with ``classes``), fewer than two classes, a label outside
            ``classes`` or (``init="labeled"``) a class without a labeled row, or breaks the
            label rule (:func:`sslviz.validation.semi_supervised_target`); if
            ``init="random"`` has fewer unlabeled rows than classes; if an M-step is left with
            a class that has no row; :class:`GaussianCEM`: if a covariance is singular (pass
            ``reg_covar > 0``).
        TypeError
            :class:`GaussianCEM`: if ``X`` is sparse; if called on :class:`CEMClassifier`
            itself (it has no model: fit a subclass).
        """
        for _ in self.iter_fit(X, y):
            pass
        return self

    def iter_fit(self, X, y):
        """Fit step by step: a generator yielding each :class:`CEMStep` as it is recorded.

        ``fit`` runs it to the end; the fitted attributes always describe the last yielded step.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            As for :meth:`fit`.
        y : array-like of shape (n_samples,)
            As for :meth:`fit`.

        Yields
        ------
        step : CEMStep
            One iteration's record, iteration 0 (the start) first.

        Raises
        ------
        ValueError
            As :meth:`fit`, at the first ``next()``.
        TypeError
            As :meth:`fit`, at the first ``next()``.
        """
        self._check_params()
        X, y = self._validate_input(X, y)
        labeled = labeled_mask(y)
        n_classes = len(self.classes_)
        t_index = np.searchsorted(self.classes_, y[labeled]).astype(int)
        T = np.eye(n_classes)[t_index]
        X_lab, X_unl = X[labeled], X[~labeled]
        X_all = _stack(X_lab, X_unl)
        if self.init == "random":
            start = np.eye(n_classes)[_random_partition(X_unl, n_classes, self.random_state)]
            parameters = self._m_step(X_all, np.vstack([T, start]), None)
        else:
            parameters = self._m_step(X_lab, T, None)
        records = []
        self.n_iter_, self.converged_ = 0, False
        partition = before = log_unl = log_post = None
        for iteration in range(self.max_iter + 1):
            if iteration > 0:
                R_unl = c_step(log_unl) if self.assignment == "hard" else np.exp(log_post)
                parameters = self._m_step(X_all, np.vstack([T, R_unl]), parameters)
                self.n_iter_ = iteration
            log_lab = self._log_joint(parameters, X_lab)
            log_unl = self._log_joint(parameters, X_unl)
            log_post = log_unl - logsumexp(log_unl, axis=1, keepdims=True)
            new_partition = np.argmax(log_unl, axis=1)
            changed = 0 if partition is None else int(np.sum(new_partition != partition))
            objective = float(log_lab[np.arange(len(t_index)), t_index].sum()
                              - self._penalty(parameters)
                              + (log_unl.max(axis=1).sum() if self.assignment == "hard"
                                 else logsumexp(log_unl, axis=1).sum()))
            full = self.record == "full"
            records.append(CEMStep(
                iteration=iteration, objective=objective, n_label_changes=changed,
                partition=freeze_array(new_partition.astype(np.int16)) if full else None,
                posteriors=freeze_array(np.exp(log_post).astype(np.float32)) if full else None,
                parameters=tuple(freeze_array(p) for p in parameters)))
            self._set_model(parameters)
            self.trace_ = Trace(records)
            if iteration > 0:
                if self.assignment == "hard":
                    self.converged_ = changed == 0
                else:
                    self.converged_ = objective - before <= self.tol * abs(before)
            partition, before = new_partition, objective
            yield records[-1]
            if self.converged_:
                break

    def _validate_input(self, X, y):
        X, y = validate_data(self, X, y, accept_sparse="csr" if self._accept_sparse else False,
                             dtype=np.float64)
        y, labeled = semi_supervised_target(y)
        if not labeled.any() and (self.init != "random" or self.classes is None):
            raise ValueError("no labeled rows: every entry of y is -1. CEM starts from a model "
                             "fitted on the labeled rows; to cluster unlabeled rows, pass "
                             "init='random' and classes=<the cluster names>.")
        self.classes_ = resolve_classes(y[labeled], self.classes, min_classes=2,
                                        require_every_class=self.init != "random")
        return X, y

    def _check_params(self):
        """Refuse parameter values the loop cannot use, with a message that says the fix."""
        if type(self) is CEMClassifier:
            raise TypeError("CEMClassifier is the loop GaussianCEM and LogisticCEM share and "
                            "has no model of its own: fit GaussianCEM(...) or LogisticCEM(...)")
        check_choice("assignment", self.assignment, ("hard", "soft"))
        check_int("max_iter", self.max_iter, minimum=0)
        check_number("tol", self.tol, minimum=0)
        check_choice("init", self.init, ("labeled", "random"))
        check_choice("record", self.record, ("full", "summary"))
        check_seed("random_state", self.random_state)
        self._validate_model()

    # -- prediction ----------------------------------------------------------------------------
    def predict_joint_log_proba(self, X):
        """log π_k f_k(x) (generative) or log p(k|x) (discriminative), (n_samples, n_classes).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to score, with the columns of ``fit`` (sparse only where ``fit`` accepts it).

        Returns
        -------
        joint : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``; a row's log-sum-exp is log f(x) for a
            generative model, 0 for a discriminative one.
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr" if self._accept_sparse else False,
                          dtype=np.float64, reset=False)
        return self._log_joint(self._parameters, X)

    def predict_log_proba(self, X):
        """log P(k|x), shape (n_samples, n_classes).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to classify, with the columns of ``fit`` (sparse only where ``fit`` accepts
            it).

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            Log posteriors, columns in the order of ``classes_``.
        """
        joint = self.predict_joint_log_proba(X)
        return joint - logsumexp(joint, axis=1, keepdims=True)

    def predict_proba(self, X):
        """P(k|x), shape (n_samples, n_classes); rows sum to one.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to classify, with the columns of ``fit`` (sparse only where ``fit`` accepts
            it); any rows, not only the fitted ones.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Class posteriors, columns in the order of ``classes_``.
        """
        return np.exp(self.predict_log_proba(X))

    def decision_function(self, X):
        """Two classes: the log-odds log P(classes_[1]|x) - log P(classes_[0]|x), computed from
        the log joints (exact where the posteriors round to 0 or 1); else the log posteriors.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to score, with the columns of ``fit`` (sparse only where ``fit`` accepts it).

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            The log-odds for two classes (positive means ``classes_[1]``); else log P(k|x),
            columns in the order of ``classes_``.
        """
        joint = self.predict_joint_log_proba(X)
        if joint.shape[1] == 2:
            return joint[:, 1] - joint[:, 0]
        return joint - logsumexp(joint, axis=1, keepdims=True)

    def predict(self, X):
        """The most probable class of each row.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to classify, with the columns of ``fit`` (sparse only where ``fit`` accepts
            it); any rows, not only the fitted ones.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The class of largest posterior, from ``classes_``.
        """
        joint = self.predict_joint_log_proba(X)
        return self.classes_[np.argmax(joint, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self._accept_sparse
        return tags


def _random_partition(X, n_classes, random_state):
    """Classic CEM start: the rows split by their nearest of ``n_classes`` random rows."""
    rng = check_random_state(random_state)
    if X.shape[0] < n_classes:
        raise ValueError(f"init='random' needs at least {n_classes} unlabeled rows (one per "
                         f"class), got {X.shape[0]}")
    centres = X[rng.choice(X.shape[0], n_classes, replace=False)]
    centres = centres.toarray() if sp.issparse(centres) else centres
    squared = np.asarray(X.multiply(X).sum(axis=1)).ravel() if sp.issparse(X) else (X ** 2).sum(1)
    distances = squared[:, None] - 2 * np.asarray(X @ centres.T) + (centres ** 2).sum(axis=1)
    return np.argmin(distances, axis=1)


def _stack(A, B):
    return sp.vstack([A, B], format="csr") if sp.issparse(A) else np.vstack([A, B])


class GaussianCEM(CEMClassifier):
    """Semi-supervised generative CEM with Gaussian class densities (paper section 3.4).

    Each class is a Gaussian with a prior π_k. Starting from the maximum-likelihood fit on the
    labeled rows (with a shared covariance, linear discriminant analysis), classification EM
    puts each unlabeled row into its most probable class and re-estimates priors, means and
    covariances from the labeled and the assigned rows, until no assignment changes. Dense
    input only.

    Parameters
    ----------
    covariance : {"shared", "full", "diag"}, default="shared"
        One covariance matrix for all classes (linear boundary; the supervised fit is LDA), one
        per class (quadratic boundary), or one diagonal per class (Gaussian Naive Bayes).
    reg_covar : float >= 0, default=1e-6
        Added to the diagonal of every covariance. A class with fewer labeled rows than
        features has a singular ML covariance (infinite density on the rows' span); the ridge
        keeps it invertible. Standardise the features first so that one value suits them all.
        The ridge is added to the ML estimate, so with ``reg_covar > 0`` the M-step is not an
        exact maximiser: the objective may dip by an amount of the order of the ridge.
    assignment : {"hard", "soft"}, default="hard"
        CEM (C-step, climbs eq. 8) or EM (posterior weights, climbs the mixture likelihood).
    max_iter : int, default=50
        Iterations after iteration 0.
    tol : float, default=1e-8
        Soft assignment only: stop when the objective gains less than ``tol × |objective|``.
    init : {"labeled", "random"}, default="labeled"
        Iteration 0 fitted on the labeled rows (paper), or on all rows with the unlabeled ones
        split by their nearest of ``n_classes`` randomly drawn rows (classic unsupervised CEM
        from a random partition; allows ``y`` all -1 with ``classes``).
    classes : array-like or None, default=None
        All class labels. When given, no other label may appear in ``y`` and (with
        ``init="labeled"``) every class needs a labeled row; ``None``: the labels seen in ``y``.
    record : {"full", "summary"}, default="full"
        ``"full"`` keeps each iteration's partition and posteriors in ``trace_``;
        ``"summary"`` keeps the objective, the label changes and the parameters.
    random_state : int, RandomState or None, default=None
        Seeds ``init="random"``; the default initialisation is deterministic.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_log_prior_ : ndarray of shape (n_classes,)
        log π_k.
    means_ : ndarray of shape (n_classes, n_features)
    covariances_ : ndarray
        Shape (n_features, n_features) for ``"shared"``, (n_classes, n_features, n_features)
        for ``"full"``, (n_classes, n_features) for ``"diag"``; ``reg_covar`` included.
    n_iter_ : int
        Iterations run after iteration 0.
    converged_ : bool
        Whether the partition stopped changing (soft: the gain fell below ``tol``) before
        ``max_iter``.
    trace_ : Trace of CEMStep
        One record per iteration, iteration 0 first.
    n_features_in_ : int
        Number of columns of the ``X`` seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names of ``X``; set only when ``X`` was a DataFrame with string column names.

    References
    ----------
    Amini & Gallinari (2002), Semi-supervised logistic regression. ECAI, section 3.4 and eq. 8.
    Celeux & Govaert (1992), A classification EM algorithm for clustering and two stochastic
    versions.

    Examples
    --------
    >>> import numpy as np
    >>> from sslviz.cem import GaussianCEM
    >>> X = np.array([[0., 0.], [.2, .1], [.1, .3], [3., 3.], [3.2, 2.9], [2.8, 3.1]])
    >>> y = np.array([0, -1, -1, 1, -1, -1])
    >>> GaussianCEM(random_state=0).fit(X, y).predict(X).tolist()
    [0, 0, 0, 1, 1, 1]
    """

    def __init__(self, covariance="shared", reg_covar=1e-6, assignment="hard", max_iter=50,
                 tol=1e-8, init="labeled", classes=None, record="full", random_state=None):
        self.covariance = covariance
        self.reg_covar = reg_covar
        self.assignment = assignment
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.classes = classes
        self.record = record
        self.random_state = random_state

    def _validate_model(self):
        check_choice("covariance", self.covariance, COVARIANCES)
        check_number("reg_covar", self.reg_covar, minimum=0)

    def _m_step(self, X, R, previous):
        """Weighted ML estimates: π_k = n_k / n, means, covariances (+ ridge)."""
        nk = R.sum(axis=0)
        if np.any(nk <= 0):
            raise ValueError(f"class(es) {self.classes_[nk <= 0].tolist()} lost every row "
                             "(an empty cluster); label a row of every class or change the seed")
        means = (R.T @ X) / nk[:, None]
        d = X.shape[1]
        if self.covariance == "diag":
            cov = np.stack([(R[:, k] @ (X - means[k]) ** 2) / nk[k] for k in range(len(nk))])
            cov += self.reg_covar
        else:
            scatter = np.stack([(R[:, k, None] * (X - means[k])).T @ (X - means[k])
                                for k in range(len(nk))])
            if self.covariance == "shared":
                cov = scatter.sum(axis=0) / nk.sum() + self.reg_covar * np.eye(d)
            else:
                cov = scatter / nk[:, None, None] + self.reg_covar * np.eye(d)
        return np.log(nk / nk.sum()), means, cov

    def _log_joint(self, parameters, X):
        log_prior, means, cov = parameters
        return log_prior + gaussian_log_density(X, means, cov, self.covariance)

    def _penalty(self, parameters):
        return 0.0

    def _set_model(self, parameters):
        self._parameters = parameters
        self.class_log_prior_, self.means_, self.covariances_ = parameters


def gaussian_log_density(X, means, cov, covariance):
    """log N(x; μ_k, Σ_k) of every row and class, shape (n_samples, n_classes).

    ``cov`` is (d, d) for ``"shared"``, (K, d, d) for ``"full"``, (K, d) for ``"diag"``.
    """
    n, d = X.shape
    out = np.empty((n, len(means)))
    for k, mean in enumerate(means):
        diff = X - mean
        if covariance == "diag":
            var = cov[k]
            if not np.all(var > 0):
                raise _singular(covariance, k)
            out[:, k] = -0.5 * (np.sum(np.log(2 * np.pi * var)) + (diff ** 2 / var).sum(axis=1))
            continue
        try:
            factor = cholesky(cov if covariance == "shared" else cov[k], lower=True)
        except np.linalg.LinAlgError:
            raise _singular(covariance, k) from None
        z = solve_triangular(factor, diff.T, lower=True)
        out[:, k] = -0.5 * (d * np.log(2 * np.pi) + 2 * np.log(np.diag(factor)).sum()
                            + (z ** 2).sum(axis=0))
    return out


def _singular(covariance, k):
    which = ("the shared covariance" if covariance == "shared"
             else f"the covariance of classes_[{k}]")
    return ValueError(f"{which} is singular (features that are constant or collinear within the "
                      "class make a variance 0): pass reg_covar > 0 (e.g. 1e-6) to add a ridge, "
                      "or drop the redundant features")


# -- summaries of a fitted model (pure functions over the trace) ---------------------------------
def decision_at_iteration(estimator, X, iteration):
    """The log-odds (two classes) or log posteriors of the model recorded at ``iteration``."""
    check_is_fitted(estimator)
    step = estimator.trace_.iteration(iteration)
    joint = estimator._log_joint(step.parameters, np.asarray(X, dtype=float)
                                 if not sp.issparse(X) else X)
    if joint.shape[1] == 2:
        return joint[:, 1] - joint[:, 0]
    return joint - logsumexp(joint, axis=1, keepdims=True)


def partition_sizes(estimator):
    """Unlabeled rows the C-step put in each class, per iteration: (n_iterations, n_classes)."""
    check_is_fitted(estimator)
    if estimator.trace_[0].partition is None:
        raise ValueError("this model was fitted with record='summary'; refit with record='full'")
    return np.array([np.bincount(step.partition, minlength=len(estimator.classes_))
                     for step in estimator.trace_])
