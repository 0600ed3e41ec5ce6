"""Logistic CEM: a discriminative classifier trained by classification EM (Amini & Gallinari 2002).

The paper's Logistic-CEM box: train a logistic model on the labeled rows; then repeat E (the
model's posteriors on the unlabeled rows), C (each unlabeled row to its most probable class,
eq. 11) and M (refit on the labeled rows plus the hard-labeled ones) until the partition no longer
changes. The M-step maximises eq. 10 - the log-likelihood of every row's (given or assigned) class
- minus scikit-learn's L2 penalty ``||w||² / (2C)`` (the intercept is not penalised). The penalty
is needed: with a handful of labels the classes are often linearly separable and the
unpenalised maximum is at infinity. Several classes use the multinomial (softmax) model.

The M-step is scikit-learn's ``LogisticRegression`` (L-BFGS, a quasi-Newton method as in the
paper), warm-started from the previous iteration and run to a tight tolerance so that the
recorded objective really is a maximum for its partition (it never decreases; a test checks).

``assignment="soft"`` weights each unlabeled row by its posteriors instead (rows repeated once per
class). Started from the supervised fit, that M-step returns the supervised fit itself: the
unlabeled rows' gradient ``Σ_k (p_k(x) - p_k(x)) x`` is zero there. See :mod:`sslviz.cem`.

Cost per iteration: one warm-started L-BFGS fit on n (hard) or n_labeled + K·n_unlabeled (soft)
rows, O(nnz(X) K) per gradient evaluation.
"""

from __future__ import annotations

import numpy as np
from scipy.special import log_expit
from sklearn.linear_model import LogisticRegression

from .cem import CEMClassifier
from .validation import check_int, check_number

__all__ = ["LogisticCEM"]


class LogisticCEM(CEMClassifier):
    """Semi-supervised logistic regression trained by CEM (paper section 3.5).

    Iteration 0 is an L2-penalised logistic regression on the labeled rows. Each iteration then
    labels every unlabeled row with its most probable class and refits on the labeled and the
    newly labeled rows (warm-started), until the labels stop changing. Dense or sparse input;
    ``fit``, ``predict``, ``predict_proba`` and ``decision_function`` are
    :class:`~sslviz.cem.CEMClassifier`'s.

    Parameters
    ----------
    C : float > 0, default=1.0
        Inverse L2 penalty of scikit-learn's ``LogisticRegression``. The objective recorded is
        eq. 10 minus ``||coef||² / (2C)``.
    assignment : {"hard", "soft"}, default="hard"
        CEM (C-step, climbs eq. 10) or EM (posterior weights; see the module docstring).
    max_iter : int, default=50
        CEM iterations after iteration 0.
    tol : float, default=1e-8
        Soft assignment only: stop when the objective gains less than ``tol × |objective|``.
    solver_tol : float, default=1e-10
        Tolerance of each L-BFGS fit.
    solver_max_iter : int, default=1000
        Iteration cap of each L-BFGS fit.
    init : {"labeled", "random"}, default="labeled"
        Iteration 0 fitted on the labeled rows (paper), or on all rows with the unlabeled ones
        split by their nearest of ``n_classes`` randomly drawn rows.
    classes : array-like or None, default=None
        All class labels. When given, no other label may appear in ``y`` and (with
        ``init="labeled"``) every class needs a labeled row; ``None``: the labels seen in ``y``.
    record : {"full", "summary"}, default="full"
        ``"full"`` keeps each iteration's partition and posteriors in ``trace_``;
        ``"summary"`` keeps the objective, the label changes and the parameters.
    random_state : int, RandomState or None, default=None
        Seeds ``init="random"`` (the default initialisation is deterministic).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) for two classes, else (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
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
    Amini & Gallinari (2002), Semi-supervised logistic regression. ECAI, section 3.5, eq. 10-11.

    Examples
    --------
    >>> import numpy as np
    >>> from sslviz.logistic_cem import LogisticCEM
    >>> X = np.array([[0., 0.], [.2, .1], [.1, .3], [3., 3.], [3.2, 2.9], [2.8, 3.1]])
    >>> y = np.array([0, -1, -1, 1, -1, -1])
    >>> LogisticCEM(random_state=0).fit(X, y).predict(X).tolist()
    [0, 0, 0, 1, 1, 1]
    """

    _accept_sparse = True

    def __init__(self, C=1.0, assignment="hard", max_iter=50, tol=1e-8, solver_tol=1e-10,
                 solver_max_iter=1000, init="labeled", classes=None, record="full",
                 random_state=None):
        self.C = C
        self.assignment = assignment
        self.max_iter = max_iter
        self.tol = tol
        self.solver_tol = solver_tol
        self.solver_max_iter = solver_max_iter
        self.init = init
        self.classes = classes
        self.record = record
        self.random_state = random_state

    def _validate_model(self):
        check_number("C", self.C, above=0)
        check_number("solver_tol", self.solver_tol, above=0)
        check_int("solver_max_iter", self.solver_max_iter, minimum=1)

    def _m_step(self, X, R, previous):
        """Maximise Σ_i Σ_k R_ik log p(k|x_i) - ||w||²/(2C) (warm-started from ``previous``)."""
        n_classes = R.shape[1]
        if previous is None:  # a new fit; later M-steps refit it, starting from its solution
            self._solver = LogisticRegression(C=self.C, tol=self.solver_tol,
                                              max_iter=self.solver_max_iter, warm_start=True)
        model = self._solver
        if np.all((R == 0) | (R == 1)):
            labels = R.argmax(axis=1)
            if len(np.unique(labels)) < n_classes:
                raise ValueError("after the C-step some class has no row; label a row of every "
                                 "class (or change the seed of init='random')")
            model.fit(X, labels)
        else:  # soft: every row once per class, weighted by its posterior
            rows = np.tile(np.arange(X.shape[0]), n_classes)
            labels = np.repeat(np.arange(n_classes), X.shape[0])
            weights = R.T.ravel()
            keep = weights > 0
            model.fit(X[rows[keep]], labels[keep], sample_weight=weights[keep])
        return model.coef_.copy(), model.intercept_.copy()

    def _log_joint(self, parameters, X):
        """log p(k|x): log-sigmoid for two classes, log-softmax for more."""
        coef, intercept = parameters
        scores = np.asarray(X @ coef.T) + intercept
        if coef.shape[0] == 1:
            return np.column_stack([log_expit(-scores[:, 0]), log_expit(scores[:, 0])])
        return scores - np.logaddexp.reduce(scores, axis=1, keepdims=True)

    def _penalty(self, parameters):
        return float(np.sum(parameters[0] ** 2)) / (2 * self.C)

    def _set_model(self, parameters):
        self._parameters = parameters
        self.coef_, self.intercept_ = parameters
