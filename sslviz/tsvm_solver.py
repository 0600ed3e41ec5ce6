"""The solver behind :class:`sslviz.tsvm.TransductiveSVM`: one binary problem's retrains.

The estimator (:mod:`sslviz.tsvm`, whose docstring gives the algorithm) schedules the cost levels
and label switches; this module holds one binary problem's data and the warm-started liblinear
retrains on a working set of rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

# the solver's classes and functions serve sslviz.tsvm only; its two tunables are public
__all__ = ["PULL_UPDATE_SHARE", "WORKING_SET_MARGIN"]

#: A retrain fits one by one only the rows whose margin under the previous model lies within
#: this distance of 1; the others are guessed at a bound of their dual variable (checked after).
WORKING_SET_MARGIN = 0.01
#: The aggregated row is updated from the previous one when at most this share of rows changed
#: weight (a sparse product over the changed rows instead of all rows); else it is recomputed.
PULL_UPDATE_SHARE = 0.25


# -- the algorithm proper ------------------------------------------------------------------------
@dataclass(frozen=True)
class _BinaryFit:
    model: _Model
    converged: bool
    records: list
    unlabeled_labels: np.ndarray


class _BinaryProblem:
    """All rows of one ±1 problem: labeled signs are fixed, unlabeled labels change."""

    def __init__(self, X, labeled_rows, unlabeled_rows, signs, C):
        self.X = X[np.concatenate([labeled_rows, unlabeled_rows])]
        self.n_labeled = len(labeled_rows)
        self.signs = signs.astype(np.int8)
        self.C = float(C)
        self.X_bias = sparse.hstack([sparse.csr_matrix(self.X), np.ones((self.X.shape[0], 1))],
                                    format="csr")
        self.row_norms = np.sqrt(np.asarray(self.X_bias.multiply(self.X_bias).sum(axis=1)).ravel())
        self.fit_sizes = []
        self._pulled = None  # (weights, Σ weights_i x_i) of the last aggregated row

    def targets(self, labels):
        return np.concatenate([self.signs, labels])

    def costs(self, labels, c_neg, c_pos):
        return np.concatenate([np.full(self.n_labeled, self.C),
                               np.where(labels == 1, c_pos, c_neg)])

    def train(self, svm, labels, c_neg, c_pos, start=None):
        """Fit ``svm`` (a LinearSVC with C=1) with the costs as sample weights: a _Model.

        With a ``start`` model the fit is reduced (see "Working set" in the module docstring):
        rows far inside ``start``'s margin enter as one aggregated row held at its bound, rows
        far outside are left out, and the fit is repeated with every row whose new margin
        contradicts its guess fitted on its own, until none does.
        """
        targets, costs = self.targets(labels), self.costs(labels, c_neg, c_pos)
        fitted, at_bound = self._working_set(targets, start)
        svm.set_params(fit_intercept=False)  # the bias is the last column of self.X_bias
        self.fit_sizes = []  # rows handed to liblinear, per fit (a work count)
        while True:
            model = self._fit_reduced(svm, targets, costs, fitted, at_bound)
            margins = targets * model.decision
            wrong = ((~fitted & ~at_bound & (margins < 1.0 - svm.tol))
                     | (at_bound & (margins > 1.0 + svm.tol)))
            if not wrong.any():
                return model
            fitted |= wrong
            at_bound &= ~wrong

    def _working_set(self, targets, start):
        """Rows to fit one by one, and rows to aggregate at their bound, guessed from ``start``."""
        n = len(targets)
        if start is None or WORKING_SET_MARGIN is None:
            return np.ones(n, dtype=bool), np.zeros(n, dtype=bool)
        margins = targets * start.decision
        return (np.abs(margins - 1.0) < WORKING_SET_MARGIN,
                margins <= 1.0 - WORKING_SET_MARGIN)

    def _fit_reduced(self, svm, targets, costs, fitted, at_bound):
        rows = np.flatnonzero(fitted)
        X, y, weights = self.X_bias[rows], targets[rows], costs[rows]
        if at_bound.any():
            pull = self._pull(np.where(at_bound, costs * targets, 0.0))
            # With this cost, w·z <= 1/2 at every dual-feasible point: the row stays at its bound.
            reach = float(np.sum(weights * self.row_norms[rows]))
            size = float(np.sqrt(np.sum(pull * pull)))
            scale = 2.0 * (size * reach + size * size) + 1.0
            X = sparse.vstack([X, sparse.csr_matrix(pull / scale)], format="csr")
            y, weights = np.append(y, 1), np.append(weights, scale)
        if len(np.unique(y)) < 2:  # liblinear needs both signs: fit every row instead
            fitted[:], at_bound[:] = True, False
            return self._fit_reduced(svm, targets, costs, fitted, at_bound)
        svm.fit(X, y, sample_weight=weights)
        self.fit_sizes.append(X.shape[0])
        w = svm.coef_.ravel()
        return self.model(w[:-1].copy(), float(w[-1]))

    def _pull(self, weights):
        """``Σ_i weights_i x_i`` (bias column included), updated from the previous call's sum
        when few weights changed: a retrain moves few rows in or out of their bound."""
        previous = self._pulled
        if previous is not None:
            changed = np.flatnonzero(weights != previous[0])
            if len(changed) <= PULL_UPDATE_SHARE * len(weights):
                pull = previous[1] + self.X_bias[changed].T @ (weights - previous[0])[changed]
                self._pulled = (weights, pull)
                return pull
        pull = self.X_bias.T @ weights
        self._pulled = (weights, pull)
        return pull

    def model(self, w, b):
        return _Model(w, b, self.X @ w + b)

    def unlabeled_slacks(self, model, labels):
        return np.maximum(0.0, 1.0 - labels * model.decision[self.n_labeled:])

    def objective(self, model, labels, c_neg, c_pos):
        """liblinear's primal: ½ (||w||² + b²) + Σ cost_i ξ_i."""
        slacks = np.maximum(0.0, 1.0 - self.targets(labels) * model.decision)
        # (sums, not BLAS dot products: OpenBLAS leaves a thread spinning on long vectors)
        penalty = float(np.sum(self.costs(labels, c_neg, c_pos) * slacks))
        return 0.5 * (float(np.sum(model.w * model.w)) + model.b * model.b) + penalty


@dataclass(frozen=True)
class _Model:
    w: np.ndarray
    b: float
    decision: np.ndarray  # w·x + b on the problem's rows (labeled first)


def _qualifying_pairs(slacks, labels):
    """Disjoint (positive, negative) pairs of unlabeled rows with ξ > 0 each and ξ sum > 2.

    Greedy, most violating first: positives and negatives with positive slack are each sorted by
    slack, largest first (ties by row), and paired rank by rank while the sum exceeds 2.
    Returns two index arrays of equal length into the unlabeled rows.
    """
    pos = np.flatnonzero((labels == 1) & (slacks > 0))
    neg = np.flatnonzero((labels == -1) & (slacks > 0))
    pos = pos[np.argsort(-slacks[pos], kind="stable")]
    neg = neg[np.argsort(-slacks[neg], kind="stable")]
    n = min(len(pos), len(neg))
    pos, neg = pos[:n], neg[:n]
    n_pairs = int(np.sum(slacks[pos] + slacks[neg] > 2))  # sums decrease along the ranks
    return pos[:n_pairs], neg[:n_pairs]
