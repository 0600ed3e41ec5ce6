"""Kernel expansions with unlabeled examples (Szummer & Jaakkola, NIPS 2000).

Every training point ``x_i`` (labeled or not, ``i = 1..N``) carries a Gaussian kernel
``P(x|i) = N(x; x_i, σ² I)``; with a uniform ``P(i)`` an example is re-described by its
*membership probabilities* ``P(i|x) ∝ P(x|i)`` (eq. 1), a softmax of ``-||x - x_i||² / 2σ²``
computed with log-sum-exp. A classifier on this expansion is

    P(y|x) = Σ_i P(y|i) P(i|x),

and only the ``N × n_classes`` numbers ``P(y|i)`` are learned, from the ``L`` labeled points:

* ``method="em"`` (section 3) maximises the conditional log-likelihood of the labels,
  ``Σ_l log Σ_i P(y_l|i) P(i|x_l)`` (eq. 2). It is concave in ``P(y|i)`` (a log of a linear
  function), so EM -- E-step ``p_{i|l} ∝ P(y_l|i) P(i|x_l)``, M-step
  ``P(y|i) = Σ_{l: y_l = y} p_{i|l} / Σ_l p_{i|l}`` -- climbs to the global maximum.
  The paper's remedy for unequal label counts (divide ``P(y|i)`` by ``L_y`` and renormalise after
  every M-step) is, as one checks by substitution, exactly EM on the *class-weighted* objective
  ``Σ_l log P(y_l|x_l) / L_{y_l}``: it is concave too, and that is the objective recorded when
  ``balanced=True``.
* ``method="med"`` (section 4 and the appendix) estimates ``w_i = P(+|i) − P(−|i) ∈ [−1, 1]``
  by maximum entropy discrimination: multipliers ``λ_l ∈ [0, C_l]`` minimise the convex
  log-partition function (eq. 5-6)

      log Z(λ) = −γ Σ_l λ_l + Σ_i log(2 cosh s_i),   s_i = Σ_l y_l λ_l P(i|x_l),

  with gradient ``∂ log Z / ∂λ_k = −γ + y_k Σ_i tanh(s_i) P(i|x_k)`` (eq. 7-8), found by
  axis-parallel line searches (a root search on each coordinate's monotone derivative: Newton
  steps safeguarded by bisection). Then ``w_i = tanh(s_i)`` and the decision is
  ``sign Σ_i w_i P(i|x)`` (eq. 3).
  The paper's balanced penalties set ``C_+ L_+ = C_− L_− = C L / 2``. More than two classes:
  one-vs-rest.

Convergence of MED is checked, not assumed: every sweep records the largest violation of the
Karush-Kuhn-Tucker conditions and the duality gap ``log Z(λ) − [Σ_i H(y_i) − Σ_l C_l ξ_l]``
which equals ``Σ_l [λ_l g_l + C_l max(0, −g_l)]`` (``g`` the gradient) and vanishes exactly
at the optimum.

The kernel width: a number, or the paper's rule (:func:`kernel_width`): the median, over the
labeled points, of the distance to the 5th nearest labeled point of another class.

Section 5's expansion ``φ(x) = [G(x, x_1), ..., G(x, x_N)] / Z`` for any other learner (e.g. a
linear SVM) is :class:`KernelExpansion`.

Cost: the memberships of ``n`` points are ``O(n N d)`` (distances); an EM iteration is
``O(L N K)``; an MED sweep ``O(L N)`` per line-search evaluation (``O(L² N)`` per sweep as the
paper says, with the running sums ``s_i`` kept up to date).

References
----------
Szummer, M. & Jaakkola, T. (2000), Kernel expansions with unlabeled examples. NIPS 13, 626-632.
Jaakkola, Meila & Jebara (1999), Maximum entropy discrimination. NIPS 12.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.utils.validation import check_is_fitted, validate_data

from .kernel_expansion_med import (
    med_duality_gap,
    med_gradient,
    med_kkt_violation,
    med_log_partition,
    med_penalties,
    med_sweep,
)
from .trace import Trace, freeze_array
from .validation import (
    check_bool,
    check_choice,
    check_int,
    check_number,
    labeled_mask,
    resolve_classes,
    semi_supervised_target,
)

__all__ = [
    "METHODS", "ExpansionFit", "ExpansionStep", "KernelExpansion", "KernelExpansionClassifier",
    "conditional_log_likelihood", "em_step", "fit_em", "fit_med", "kernel_width",
    "label_weights", "med_duality_gap", "med_gradient", "med_kkt_violation", "med_log_partition",
    "med_penalties", "med_sweep", "membership", "membership_from_distances",
    "squared_distances", "width_from_distances",
]

METHODS = ("em", "med")


# -- the expansion -------------------------------------------------------------------------------
def squared_distances(X, centres):
    """``||x − x_i||²`` for every row of ``X`` and every centre, shape (n_samples, n_centres)."""
    return euclidean_distances(X, centres, squared=True)


def membership_from_distances(sq_distances, sigma):
    """``P(i|x)`` from squared distances: softmax over ``i`` of ``−d² / 2σ²`` (rows sum to 1)."""
    sigma = check_number("sigma", sigma, above=0)
    logits = -np.asarray(sq_distances, dtype=float) / (2.0 * sigma**2)
    return np.exp(logits - logsumexp(logits, axis=1, keepdims=True))


def membership(X, centres, sigma):
    """``P(i|x)`` of every row of ``X`` over the Gaussian kernels at ``centres`` (eq. 1).

    Returns
    -------
    ndarray of shape (n_samples, n_centres); each row sums to one.
    """
    return membership_from_distances(squared_distances(X, centres), sigma)


def kernel_width(X, y, n_neighbors=5):
    """The paper's width: median over labeled points of the distance to the ``n_neighbors``-th
    nearest labeled point of another class.

    Only labeled rows (``y != -1``) are used. A point with fewer than ``n_neighbors`` labeled
    points of other classes uses the farthest of them.
    """
    labeled = labeled_mask(y)
    X_lab = np.asarray(X, dtype=float)[labeled]
    return width_from_distances(squared_distances(X_lab, X_lab), np.asarray(y)[labeled],
                                n_neighbors)


def width_from_distances(sq_distances, y, n_neighbors=5):
    """:func:`kernel_width` from the squared distances between labeled points (L, L) and their
    labels ``y`` (L,)."""
    n_neighbors = check_int("n_neighbors", n_neighbors, minimum=1)
    y = np.asarray(y)
    classes = np.unique(y).tolist()
    if len(classes) < 2:
        raise ValueError("the width rule needs labeled points of at least two classes, got "
                         f"{len(classes)} class(es) ({classes}); pass a number as sigma")
    distances = np.sqrt(np.maximum(np.asarray(sq_distances, dtype=float), 0.0))
    kth = []
    for row, label in zip(distances, y, strict=True):
        other = np.sort(row[y != label])
        kth.append(other[min(n_neighbors, len(other)) - 1])
    width = float(np.median(kth))
    if not np.isfinite(width):
        raise ValueError("X is too large for the width rule: the distances between its rows "
                         "overflow to inf (entries near 1e154 or more); rescale X (e.g. "
                         "standardize its columns) or pass a number as sigma")
    if not width > 0:
        raise ValueError("the width rule gave 0 (labeled points of different classes coincide); "
                         "pass a number as sigma")
    return width


# -- EM on the conditional likelihood -----------------------------------------------------------
def label_weights(y_index, n_classes, balanced):
    """Weight of each labeled point in eq. 2: 1, or ``L / (K L_y)`` when ``balanced``."""
    y_index = np.asarray(y_index)
    if not balanced:
        return np.ones(len(y_index))
    counts = np.bincount(y_index, minlength=n_classes).astype(float)
    return len(y_index) / (n_classes * counts[y_index])


def conditional_log_likelihood(R, y_index, label_proba, weights=None):
    """``Σ_l c_l log Σ_i P(y_l|i) P(i|x_l)`` (eq. 2; ``c_l = 1`` unless ``weights``)."""
    p = np.einsum("li,li->l", R, np.asarray(label_proba)[:, y_index].T)
    weights = np.ones(len(p)) if weights is None else weights
    with np.errstate(divide="ignore"):
        return float(np.sum(weights * np.log(p)))


def em_step(R, y_index, label_proba, weights):
    """One E-step and M-step of section 3; returns the new ``P(y|i)`` (shape (N, K)).

    ``R`` holds ``P(i|x_l)`` of the labeled points (shape (L, N)). Components that no labeled
    point reaches (``Σ_l p_{i|l} = 0``) keep their previous ``P(y|i)``.
    """
    n_classes = label_proba.shape[1]
    joint = R * label_proba[:, y_index].T  # (L, N): P(y_l|i) P(i|x_l)
    total = joint.sum(axis=1, keepdims=True)
    soft = np.divide(joint, total, out=np.zeros_like(joint), where=total > 0)  # p_{i|l}
    soft *= np.asarray(weights)[:, None]
    counts = soft.T @ np.eye(n_classes)[y_index]  # counts[i, y] = Σ_{l: y_l = y} c_l p_{i|l}
    norm = counts.sum(axis=1, keepdims=True)
    return np.where(norm > 0, counts / np.where(norm > 0, norm, 1.0), label_proba)


# -- the estimator ------------------------------------------------------------------------------
@dataclass(frozen=True)
class ExpansionStep:
    """One EM iteration or one MED sweep (iteration 0 = the starting point).

    Attributes
    ----------
    iteration : int
    objective : float
        EM: the (class-weighted when ``balanced``) conditional log-likelihood, eq. 2, which never
        decreases. MED: ``log Z(λ)`` summed over the one-vs-rest problems, which never increases.
    training_accuracy : float
        Accuracy on the labeled points (``P(y|x_l)``, i.e. with their own kernels).
    label_proba : ndarray of shape (N, n_classes) or None
        ``P(y|i)`` of every kernel (MED: ``(1 + w_i) / 2`` per one-vs-rest problem, normalised).
    multipliers : ndarray of shape (n_problems, L) or None
        MED's λ; ``None`` for EM.
    kkt_violation, duality_gap : float
        MED's largest KKT violation and duality gap (summed over problems); NaN for EM.
    """

    iteration: int
    objective: float
    training_accuracy: float
    label_proba: np.ndarray | None
    multipliers: np.ndarray | None
    kkt_violation: float
    duality_gap: float


class KernelExpansionClassifier(ClassifierMixin, BaseEstimator):
    """A discriminative kernel density classifier over labeled and unlabeled points.

    Every row passed to ``fit``, labeled or not, becomes the centre of a Gaussian kernel, and a
    point is described by its membership probabilities ``P(i|x)`` over these kernels. The
    classifier ``P(y|x) = Σ_i P(y|i) P(i|x)`` learns one label distribution ``P(y|i)`` per
    kernel from the labeled rows, by EM on the conditional likelihood or by maximum entropy
    discrimination. Dense input only.

    Parameters
    ----------
    method : {"em", "med"}, default="em"
        Conditional maximum likelihood by EM (section 3) or maximum entropy discrimination
        (section 4, appendix).
    sigma : "rule" or float > 0, default="rule"
        Kernel width; "rule" is :func:`kernel_width` on the labeled rows.
    n_neighbors : int, default=5
        The neighbour rank of the width rule.
    balanced : bool, default=True
        EM: the paper's class-frequency rescaling after each M-step. MED: the balanced penalties
        ``C_+ L_+ = C_− L_−``. Without it both collapse onto the majority label on imbalanced
        labeled sets (see the lecture).
    gamma : float in [0, 1], default=0.1
        MED's target margin γ.
    C : float > 0, default=40.0
        MED's penalty on the slacks.
    max_iter : int, default=300
        EM iterations or MED sweeps.
    tol : float, default=1e-6
        EM stops when the objective rises by less than ``tol × |objective|``.
    kkt_tol : float, default=1e-3
        MED stops when the largest KKT violation (a gradient, in margin units) is below it.
        Whether it got there is ``converged_``; the trace has the violation of every sweep.
    record : {"full", "summary"}, default="full"
        "summary" keeps only the scalars of each trace record.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    X_fit_ : ndarray of shape (N, n_features)
        The kernel centres: every row passed to ``fit``.
    sigma_ : float
        The kernel width used (the rule's value, or ``sigma``).
    label_proba_ : ndarray of shape (N, n_classes)
        ``P(y|i)`` of every kernel.
    weights_ : ndarray of shape (n_problems, N)
        ``w_i = P(+|i) − P(−|i)``: one row for two classes, else one per one-vs-rest problem.
    multipliers_ : ndarray of shape (n_problems, L) or None
        MED's λ of the L labeled rows; ``None`` for EM.
    n_iter_ : int
        EM iterations or MED sweeps run.
    converged_ : bool
        Whether EM's gain fell below ``tol`` (MED: the KKT violation below ``kkt_tol``)
        within ``max_iter``.
    trace_ : Trace of ExpansionStep
        The starting point, then one record per iteration or sweep.
    n_features_in_ : int
        Number of columns of the ``X`` seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names of ``X``; set only when ``X`` was a DataFrame with string column names.

    References
    ----------
    Szummer & Jaakkola (2000), eq. 1-3 (model), section 3 (EM), eq. 4-8 and appendix (MED).

    Examples
    --------
    >>> import numpy as np
    >>> from sslviz.kernel_expansion import KernelExpansionClassifier
    >>> X = np.array([[0., 0.], [.2, .1], [.1, .3], [3., 3.], [3.2, 2.9], [2.8, 3.1]])
    >>> y = np.array([0, -1, -1, 1, -1, -1])
    >>> KernelExpansionClassifier(sigma=1.0).fit(X, y).predict(X).tolist()
    [0, 0, 0, 1, 1, 1]
    """

    def __init__(self, method="em", *, sigma="rule", n_neighbors=5, balanced=True, gamma=0.1,
                 C=40.0, max_iter=300, tol=1e-6, kkt_tol=1e-3, record="full"):
        self.method = method
        self.sigma = sigma
        self.n_neighbors = n_neighbors
        self.balanced = balanced
        self.gamma = gamma
        self.C = C
        self.max_iter = max_iter
        self.tol = tol
        self.kkt_tol = kkt_tol
        self.record = record

    def _check_params(self):
        """Refuse parameter values the fit cannot use, with a message that says the fix."""
        check_choice("method", self.method, METHODS)
        check_int("n_neighbors", self.n_neighbors, minimum=1)
        check_number("gamma", self.gamma, minimum=0, maximum=1)
        check_number("C", self.C, above=0)
        check_int("max_iter", self.max_iter, minimum=0)
        check_number("tol", self.tol, above=0)
        check_number("kkt_tol", self.kkt_tol, above=0)
        check_choice("record", self.record, ("full", "summary"))
        if not isinstance(self.balanced, bool | np.bool_):
            raise ValueError(f"balanced must be True or False, got {self.balanced!r}")

    def fit(self, X, y):
        """Fit on ``X`` (all N points become kernels), ``y == -1`` marking unlabeled rows.

        Parameters
        ----------
        X : array-like of shape (N, n_features)
            Real-valued points, labeled and unlabeled together (dense; sparse input is refused).
        y : array-like of shape (N,)
            Class labels (integers or strings), ``-1`` for an unlabeled point; at least two
            classes among the labeled rows.

        Returns
        -------
        self : KernelExpansionClassifier
            The fitted estimator.

        Raises
        ------
        ValueError
            If a parameter is out of its range (``sigma`` a string other than ``"rule"``); if
            ``y`` has no labeled row or fewer than two classes, or breaks the label rule
            (:func:`sslviz.validation.semi_supervised_target`); if the width rule fails
            (labeled points of different classes coincide, or the distances overflow).
        TypeError
            If ``X`` is sparse.
        """
        self._check_params()
        X, y = validate_data(self, X, y, dtype=np.float64)
        y, labeled = semi_supervised_target(y)
        if not labeled.any():
            raise ValueError("no labeled rows: every entry of y is -1; label at least one point "
                             "of two classes")
        self.classes_ = resolve_classes(y[labeled], min_classes=2, row="point")
        y_index = np.searchsorted(self.classes_, y[labeled])
        if isinstance(self.sigma, str):
            check_choice("sigma", self.sigma, ("rule",))
            self.sigma_ = kernel_width(X, _targets(y_index, labeled), self.n_neighbors)
        else:
            self.sigma_ = check_number("sigma", self.sigma, above=0)
        self.X_fit_ = X
        R = membership(X[labeled], X, self.sigma_)
        common = {"balanced": bool(self.balanced), "max_iter": self.max_iter,
                  "record": self.record}
        if self.method == "em":
            result = fit_em(R, y_index, len(self.classes_), tol=self.tol, **common)
        else:
            result = fit_med(R, y_index, len(self.classes_), gamma=self.gamma, C=self.C,
                             kkt_tol=self.kkt_tol, **common)
        self.label_proba_ = result.label_proba
        self.weights_ = result.weights
        self.multipliers_ = result.multipliers
        self.n_iter_, self.converged_, self.trace_ = (result.n_iter, result.converged,
                                                      result.trace)
        return self

    def transform_membership(self, X):
        """``P(i|x)`` over the fitted kernels, shape (n_samples, N).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points (dense); any points, not only the fitted ones.

        Returns
        -------
        membership : ndarray of shape (n_samples, N)
            One column per fitted point (kernel centre); rows sum to one.
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return membership(X, self.X_fit_, self.sigma_)

    def decision_function(self, X):
        """``f(x) = Σ_i w_i P(i|x)`` (eq. 3): shape (n_samples,) for two classes, else
        (n_samples, n_classes) one-vs-rest.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points to score (dense); any points, not only the fitted ones.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            For two classes, in [-1, 1], positive meaning ``classes_[1]``; else one column per
            class (that class against the rest).
        """
        check_is_fitted(self)
        scores = self.transform_membership(X) @ self.weights_.T
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict_proba(self, X):
        """``P(y|x) = Σ_i P(y|i) P(i|x)``, shape (n_samples, n_classes); rows sum to one.

        MED beyond two classes: ``P(k|x) ∝ (1 + f_k(x)) / 2`` from the one-vs-rest scores, so
        that the most probable class is the one :meth:`predict` gives.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points to classify (dense); any points, not only the fitted ones.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        check_is_fitted(self)
        if self.method == "med" and len(self.classes_) > 2:
            proba = (1 + self.decision_function(X)) / 2
            total = proba.sum(axis=1, keepdims=True)
            return np.divide(proba, total, out=np.full_like(proba, 1 / proba.shape[1]),
                             where=total > 0)
        proba = self.transform_membership(X) @ self.label_proba_
        return proba / proba.sum(axis=1, keepdims=True)

    def predict(self, X):
        """The class of largest ``P(y|x)`` (MED: ``sign f(x)``; ties go to the first class).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points to classify (dense); any points, not only the fitted ones.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Classes from ``classes_``.
        """
        check_is_fitted(self)
        if self.method == "med":
            scores = np.atleast_1d(self.decision_function(X))
            index = (scores > 0).astype(int) if scores.ndim == 1 else scores.argmax(axis=1)
            return self.classes_[index]
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


def _targets(y_index, labeled):
    y = np.full(len(labeled), -1)
    y[labeled] = y_index
    return y


# -- the two fits on a precomputed membership matrix (experiments cache P(i|x) per σ) -----------
@dataclass(frozen=True)
class ExpansionFit:
    """What :func:`fit_em` / :func:`fit_med` found on the labeled rows' memberships."""

    label_proba: np.ndarray  # (N, n_classes) P(y|i)
    weights: np.ndarray  # (n_problems, N) w_i
    multipliers: np.ndarray | None  # (n_problems, L) for MED
    n_iter: int
    converged: bool
    trace: Trace


def fit_em(R, y_index, n_classes, *, balanced=True, max_iter=300, tol=1e-6, record="full"):
    """EM for ``P(y|i)`` from the labeled rows' memberships ``R`` (shape (L, N)), section 3.

    Starts from ``P(y|i) = 1/K``; iteration 0 records that start. The loop is :func:`em_step`
    and :func:`conditional_log_likelihood` fused: the E-step's normaliser ``Σ_i P(y_l|i)
    P(i|x_l)`` *is* the likelihood of label ``l``, so each iteration forms the ``(L, N)``
    product once and reads the objective off it.
    """
    R, y_index = np.asarray(R, dtype=float), np.asarray(y_index)
    weights = label_weights(y_index, n_classes, balanced)
    one_hot = np.eye(n_classes)[y_index]
    theta = np.full((R.shape[1], n_classes), 1.0 / n_classes)

    def expectation(theta):  # P(y_l|i) P(i|x_l), and its sum over i: P(y_l|x_l)
        joint = R * theta.T[y_index]
        total = joint.sum(axis=1)
        with np.errstate(divide="ignore"):
            return joint, total, float(np.sum(weights * np.log(total)))

    joint, total, objective = expectation(theta)
    records = [_em_record(0, objective, R, y_index, theta, record)]
    converged = max_iter == 0
    for iteration in range(1, max_iter + 1):
        scale = np.divide(weights, total, out=np.zeros_like(total), where=total > 0)
        counts = (joint * scale[:, None]).T @ one_hot  # Σ_{l: y_l = y} c_l p_{i|l}
        norm = counts.sum(axis=1, keepdims=True)
        theta = np.where(norm > 0, counts / np.where(norm > 0, norm, 1.0), theta)
        before = objective
        joint, total, objective = expectation(theta)
        records.append(_em_record(iteration, objective, R, y_index, theta, record))
        if objective - before <= tol * abs(before):
            converged = True
            break
    return ExpansionFit(theta, _weights_from_proba(theta), None, len(records) - 1, converged,
                        Trace(records))


def _em_record(iteration, objective, R, y_index, theta, record):
    accuracy = float(np.mean(np.argmax(R @ theta, axis=1) == y_index))
    return ExpansionStep(iteration, objective, accuracy,
                         freeze_array(theta) if record == "full" else None, None,
                         float("nan"), float("nan"))


def _weights_from_proba(theta):
    """``w_i = P(+|i) − P(−|i)`` (binary, one row) or one-vs-rest ``2 P(c|i) − 1`` rows."""
    if theta.shape[1] == 2:
        return (theta[:, 1] - theta[:, 0])[None, :]
    return (2 * theta - 1).T


def fit_med(R, y_index, n_classes, *, balanced=True, gamma=0.1, C=40.0, max_iter=300,
            kkt_tol=1e-3, record="full"):
    """MED multipliers by coordinate line searches (appendix), one-vs-rest beyond two classes.

    Starts from λ = 0 (iteration 0); stops when the largest KKT violation over every problem is
    below ``kkt_tol``.
    """
    R, y_index = np.asarray(R, dtype=float), np.asarray(y_index)
    problems = [1] if n_classes == 2 else list(range(n_classes))
    signs = [np.where(y_index == c, 1.0, -1.0) for c in problems]
    penalties = [med_penalties(y_pm, C, balanced) for y_pm in signs]
    lam = np.zeros((len(problems), R.shape[0]))
    records = [_med_record(0, R, y_index, signs, lam, gamma, penalties, record)]
    converged = records[0].kkt_violation <= kkt_tol
    for sweep in range(1, max_iter + 1):
        if converged:
            break
        lam = np.array([med_sweep(R, y_pm, row, gamma, pen)
                        for y_pm, row, pen in zip(signs, lam, penalties, strict=True)])
        records.append(_med_record(sweep, R, y_index, signs, lam, gamma, penalties, record))
        converged = records[-1].kkt_violation <= kkt_tol
    weights = np.array([np.tanh(R.T @ (y_pm * row)) for y_pm, row in zip(signs, lam, strict=True)])
    return ExpansionFit(_proba_from_weights(weights), weights, lam, len(records) - 1, converged,
                        Trace(records))


def _proba_from_weights(weights):
    if weights.shape[0] == 1:
        return np.column_stack([(1 - weights[0]) / 2, (1 + weights[0]) / 2])
    proba = (1 + weights.T) / 2
    total = proba.sum(axis=1, keepdims=True)
    return np.divide(proba, total, out=np.full_like(proba, 1 / proba.shape[1]), where=total > 0)


def _med_record(sweep, R, y_index, signs, lam, gamma, penalties, record):
    objective = violation = gap = 0.0
    for y_pm, row, pen in zip(signs, lam, penalties, strict=True):
        objective += med_log_partition(R, y_pm, row, gamma)
        grad = med_gradient(R, y_pm, row, gamma)
        violation = max(violation, float(med_kkt_violation(grad, row, pen).max()))
        gap += med_duality_gap(R, y_pm, row, gamma, pen)
    weights = np.array([np.tanh(R.T @ (y_pm * row)) for y_pm, row in zip(signs, lam, strict=True)])
    scores = R @ weights.T
    predicted = (scores[:, 0] > 0).astype(int) if len(signs) == 1 else scores.argmax(axis=1)
    full = record == "full"
    return ExpansionStep(sweep, objective, float(np.mean(predicted == y_index)),
                         freeze_array(_proba_from_weights(weights)) if full else None,
                         freeze_array(lam) if full else None, violation, gap)


# -- section 5: the expansion as features --------------------------------------------------------
class KernelExpansion(TransformerMixin, BaseEstimator):
    """``φ(x) = [G(x, x_1), ..., G(x, x_N)] / Z`` over the points seen in ``fit`` (section 5).

    Parameters
    ----------
    sigma : "rule" or float > 0, default="rule"
        Width of the Gaussian ``G``; "rule" needs ``y`` in ``fit`` (see :func:`kernel_width`).
    n_neighbors : int, default=5
    normalize : bool, default=True
        Divide by ``Z = Σ_i G(x, x_i)``: the features are then ``P(i|x)``.

    Fit on labeled and unlabeled rows together (``y == -1`` or no ``y``), then train any
    classifier on the transformed labeled rows.

    Attributes
    ----------
    X_fit_ : ndarray of shape (N, n_features)
        The kernel centres: every row passed to ``fit``.
    sigma_ : float
        The kernel width used (the rule's value, or ``sigma``).
    n_features_in_ : int
        Number of columns of the ``X`` seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names of ``X``; set only when ``X`` was a DataFrame with string column names.

    References
    ----------
    Szummer & Jaakkola (2000), Kernel expansions with unlabeled examples. NIPS 13, section 5.

    Examples
    --------
    >>> import numpy as np
    >>> from sslviz.kernel_expansion import KernelExpansion
    >>> X = np.array([[0., 0.], [.2, .1], [.1, .3], [3., 3.], [3.2, 2.9], [2.8, 3.1]])
    >>> KernelExpansion(sigma=1.0).fit(X).transform(X).shape
    (6, 6)
    """

    def __init__(self, sigma="rule", *, n_neighbors=5, normalize=True):
        self.sigma = sigma
        self.n_neighbors = n_neighbors
        self.normalize = normalize

    def fit(self, X, y=None):
        """Keep ``X`` as the kernel centres and set the width.

        Parameters
        ----------
        X : array-like of shape (N, n_features)
            Real-valued points, labeled and unlabeled together (dense).
        y : array-like of shape (N,) or None, default=None
            Class labels with ``-1`` for unlabeled rows; read only by ``sigma="rule"`` (which
            needs labeled points of two classes).

        Returns
        -------
        self : KernelExpansion
            The fitted transformer.

        Raises
        ------
        ValueError
            If ``n_neighbors``, ``normalize`` or ``sigma`` is invalid; if ``sigma="rule"`` gets
            no ``y``, or the rule fails (fewer than two labeled classes, coinciding points of
            different classes, overflowing distances).
        TypeError
            If ``X`` is sparse.
        """
        check_int("n_neighbors", self.n_neighbors, minimum=1)
        check_bool("normalize", self.normalize)
        if y is None:
            X = validate_data(self, X, dtype=np.float64)
        else:
            X, y = validate_data(self, X, y, dtype=np.float64)
            y, _ = semi_supervised_target(y)
        if isinstance(self.sigma, str):
            check_choice("sigma", self.sigma, ("rule",))
            if y is None:
                raise ValueError("sigma='rule' needs labels: call fit(X, y) with y == -1 on "
                                 "unlabeled rows, or pass a number as sigma")
            self.sigma_ = kernel_width(X, y, self.n_neighbors)
        else:
            self.sigma_ = check_number("sigma", self.sigma, above=0)
        self.X_fit_ = X
        return self

    def transform(self, X):
        """The expansion, shape (n_samples, N).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points to expand (dense); any points, not only the fitted ones.

        Returns
        -------
        features : ndarray of shape (n_samples, N)
            ``G(x, x_i)`` for every kernel centre ``x_i``, divided by their sum when
            ``normalize`` (then ``P(i|x)``, rows summing to one).
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        sq = squared_distances(X, self.X_fit_)
        if self.normalize:
            return membership_from_distances(sq, self.sigma_)
        return np.exp(-sq / (2 * self.sigma_**2))
