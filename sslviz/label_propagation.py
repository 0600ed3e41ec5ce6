"""Labels that flow along a graph: harmonic label propagation and label spreading.

Every example, labeled or not, is a node; each is joined to its ``n_neighbors`` most similar
examples (cosine similarity, the graph made symmetric). Two ways to let the labels flow:

* **harmonic** (Zhu & Ghahramani 2002; Zhu, Ghahramani & Lafferty 2003): the labeled nodes keep
  their labels, and every unlabeled node takes the weighted average of its neighbours' label
  distributions. With ``W`` the affinities, ``D`` their row sums and ``Y_l`` the one-hot labels,
  the fixed point solves ``(D_uu − W_uu) F_u = W_ul Y_l`` — solved here exactly with scipy's
  sparse solver. The iterative algorithm (``F ← D⁻¹ W F``, labeled rows put back after every
  step) converges to it; the trace records that iteration, for a stepper.
* **spreading** (Zhou et al. 2004): labels are not clamped; ``F = (1 − α)(I − α S)⁻¹ Y`` with
  ``S = D^{-1/2} W D^{-1/2}`` and ``0 < α < 1`` (how far labels travel against how much each node
  keeps its own).

Niu, Ji & Tan (2005) applied the harmonic propagation to word sense disambiguation: instances of
an ambiguous word are the nodes, their context features the vectors.

An unlabeled node whose connected component holds no labeled node can receive no label mass; the
harmonic system is then singular. :class:`GraphPropagation` reports such nodes in ``unreached_``
and gives them the labeled rows' class frequencies (with a warning), never a silent NaN.

Cost: a k-nearest-neighbour search (``O(n² · nnz)`` for sparse text, brute force) and one sparse
solve with ``n_classes`` right-hand sides.

References
----------
Zhu & Ghahramani (2002), Learning from labeled and unlabeled data with label propagation. CMU
  CALD-02-107.
Zhu, Ghahramani & Lafferty (2003), Semi-supervised learning using Gaussian fields and harmonic
  functions. ICML.
Zhou, Bousquet, Lal, Weston & Schölkopf (2004), Learning with local and global consistency. NIPS.
Niu, Ji & Tan (2005), Word sense disambiguation using label propagation based semi-supervised
  learning. ACL.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import splu
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.neighbors import NearestNeighbors
from sklearn.utils.validation import check_is_fitted, validate_data

from .trace import Trace, freeze_array
from .validation import (
    check_choice,
    check_int,
    check_number,
    resolve_classes,
    semi_supervised_target,
)

__all__ = ["GraphPropagation", "METHODS", "PropagationStep", "RECORDS", "affinity_from_neighbours",
           "class_mass_normalization", "cosine_neighbours", "cosine_scaled_rows",
           "euclidean_neighbours",
           "harmonic_solution", "knn_affinity", "solve_spd", "spreading_solution", "step_summary"]

METHODS = ("harmonic", "spreading")
RECORDS = ("summary", "full", "none")


def knn_affinity(X, n_neighbors=10, metric="cosine"):
    """Symmetric k-nearest-neighbour affinities, shape (n, n), sparse.

    Each row is joined to its ``n_neighbors`` most similar other rows (an exact duplicate of a
    row counts as one of them; the row itself never does); the graph is made
    symmetric with ``W = max(W, Wᵀ)``. ``metric="cosine"`` (text): weight
    ``max(cos(x_i, x_j), 1e-6)`` (a floor keeps an edge between neighbours that share no
    feature); rows with no feature at all have no direction and are refused.
    ``metric="euclidean"`` (points): weight ``exp(−d²/(2σ²))`` with σ the median distance to the
    k-th neighbour.
    """
    if metric == "euclidean":
        return affinity_from_neighbours(*euclidean_neighbours(X, n_neighbors), n_neighbors)
    return affinity_from_neighbours(*cosine_neighbours(X, n_neighbors), n_neighbors)


def euclidean_neighbours(X, n_neighbors, return_sigma=False):
    """``(similarities, neighbours)`` by a Gaussian of the Euclidean distance (see
    :func:`knn_affinity`), most similar first; with ``return_sigma``, also the Gaussian's
    width σ (in ``X``'s units)."""
    X = sp.csr_matrix(X, dtype=float) if sp.issparse(X) else np.asarray(X, dtype=float)
    n_neighbors = check_int("n_neighbors", n_neighbors, minimum=1)
    if n_neighbors >= X.shape[0]:
        raise ValueError(f"n_neighbors must be < the number of rows ({X.shape[0]}), "
                         f"got {n_neighbors}")
    scale = float(_power_of_two_below(_largest(X)))
    X = X * scale  # exact: the weights are unchanged
    distances, neighbours = NearestNeighbors(n_neighbors=n_neighbors).fit(X).kneighbors()
    sigma = max(float(np.median(distances[:, -1])), 1e-12)
    similarities = np.exp(-distances**2 / (2 * sigma**2))
    return (similarities, neighbours, sigma / scale) if return_sigma else (similarities,
                                                                           neighbours)


def cosine_scaled_rows(X):
    """``X`` (float, CSR if sparse) with each row scaled by a power of two so that its largest
    magnitude lies in [0.5, 1): cosine similarities are unchanged (exactly), and no square of
    a tiny or huge count underflows or overflows. Rows without any feature are refused."""
    X = sp.csr_matrix(X, dtype=float) if sp.issparse(X) else np.asarray(X, dtype=float)
    largest = _largest(X, axis=1)
    empty = np.flatnonzero(largest == 0)
    if len(empty):
        raise ValueError(f"{len(empty)} row(s) have no features at all (e.g. row {empty[0]}): "
                         "an empty context or document has no neighbours; remove those rows")
    return _scale_rows(X, _power_of_two_below(largest))


def _largest(X, axis=None):
    """The largest magnitude of ``X`` (dense or sparse), of each row with ``axis=1``."""
    if sp.issparse(X):
        return (np.asarray(abs(X).max(axis=1).todense()).ravel() if axis == 1
                else float(abs(X).max()) if X.nnz else 0.0)
    return np.abs(X).max(axis=axis, initial=0.0)


def _power_of_two_below(largest):
    """The power of two that brings ``largest`` (> 0) into [0.5, 1); 1 where it is 0."""
    largest = np.asarray(largest, dtype=float)
    return np.where(largest > 0, np.ldexp(1.0, -np.frexp(largest)[1]), 1.0)


def _scale_rows(X, scale):
    return (sp.diags(scale) @ X).tocsr() if sp.issparse(X) else X * scale[:, None]


def _comparable(fitted, X, metric):
    """The training rows and new rows scaled by powers of two (exact: the neighbours and their
    weights are unchanged) so that no distance or norm overflows or underflows: cosine, each
    row on its own; euclidean, one scale for both (returned third; 1.0 for cosine)."""
    fitted = sp.csr_matrix(fitted, dtype=float) if sp.issparse(fitted) else np.asarray(
        fitted, dtype=float)
    if metric == "cosine":
        return (_scale_rows(fitted, _power_of_two_below(_largest(fitted, axis=1))),
                _scale_rows(X, _power_of_two_below(_largest(X, axis=1))), 1.0)
    scale = float(_power_of_two_below(max(_largest(fitted), _largest(X))))
    return fitted * scale, X * scale, scale


def cosine_neighbours(X, n_neighbors):
    """``(similarities, neighbours)`` of each row's ``n_neighbors`` most similar other rows,
    most similar first, shapes (n, n_neighbors). One search serves every smaller k."""
    X = cosine_scaled_rows(X)
    n_samples = X.shape[0]
    n_neighbors = check_int("n_neighbors", n_neighbors, minimum=1)
    if n_neighbors >= n_samples:
        raise ValueError(f"n_neighbors must be < the number of rows ({n_samples}), "
                         f"got {n_neighbors}")
    # kneighbors() without X leaves each row out by its index: an exact duplicate of a row is
    # its neighbour, never the row itself
    search = NearestNeighbors(n_neighbors=n_neighbors, metric="cosine").fit(X)
    distances, neighbours = search.kneighbors()
    return 1.0 - distances, neighbours


def affinity_from_neighbours(similarities, neighbours, n_neighbors):
    """The symmetric graph of :func:`knn_affinity` from a (larger) neighbour search."""
    n_samples = len(neighbours)
    rows = np.repeat(np.arange(n_samples), n_neighbors)
    weights = np.maximum(similarities[:, :n_neighbors].ravel(), 1e-6)
    W = sp.csr_matrix((weights, (rows, neighbours[:, :n_neighbors].ravel())),
                      shape=(n_samples, n_samples))
    return W.maximum(W.T).tocsr()


def harmonic_solution(W, labeled, Y_labeled):
    """The harmonic label distributions of the unlabeled nodes (exact sparse solve).

    Parameters
    ----------
    W : sparse (n, n), symmetric non-negative affinities
    labeled : bool array (n,)
    Y_labeled : (n_labeled, n_classes) label distributions of the labeled nodes

    Returns
    -------
    F_unlabeled : (n_unlabeled, n_classes); rows of unreachable nodes are zero
    reached : bool array (n_unlabeled,), whose component holds a labeled node
    """
    W = sp.csr_matrix(W)
    unlabeled = ~labeled
    reached = _reached(W, labeled)[unlabeled]
    F = np.zeros((int(unlabeled.sum()), Y_labeled.shape[1]))
    if not reached.any():
        return F, reached
    solve_rows = np.flatnonzero(unlabeled)[reached]
    W_uu = W[solve_rows][:, solve_rows]
    degree = np.asarray(W[solve_rows].sum(axis=1)).ravel()
    laplacian = (sp.diags(degree) - W_uu).tocsr()
    rhs = W[solve_rows][:, np.flatnonzero(labeled)] @ Y_labeled
    F[reached] = solve_spd(laplacian, np.asarray(rhs))
    return F, reached


def class_mass_normalization(F, prior):
    """Zhu, Ghahramani & Lafferty's class-mass normalisation: the index of each row's class
    after every column of ``F`` is scaled so that its total mass is ``prior`` (e.g. the labeled
    rows' class frequencies), ``argmax_c prior_c · F_ic / Σ_j F_jc``.

    The harmonic solution lets a class that holds many labeled nodes (or many edges) collect
    mass far beyond its share; the normalisation asks each class for its expected share.
    """
    F = np.asarray(F, dtype=float)
    prior = np.asarray(prior, dtype=float)
    if F.ndim != 2 or prior.shape != (F.shape[1],) or (prior < 0).any():
        raise ValueError(f"class_mass_normalization needs F of shape (n, n_classes) and one "
                         f"non-negative prior per class, got {F.shape} and {prior.shape}")
    mass = F.sum(axis=0)
    scale = np.divide(prior, mass, out=np.zeros_like(prior), where=mass > 0)
    return np.argmax(F * scale, axis=1)


def solve_spd(A, B, *, rtol=1e-10):
    """``A⁻¹ B`` for a sparse symmetric positive definite ``A``, every column of ``B`` at once.

    Conjugate gradients with a Jacobi preconditioner (scipy's ``cg`` step by step, run on all
    columns together: one sparse product per step serves every column; a column stops when its
    residual is below ``rtol`` times its norm). A column that does not get there within ``10 n``
    steps is solved again by sparse LU (exact, but with much more fill-in on a k-NN graph:
    seconds instead of a fraction of one), ``A`` factorised once for all such columns.
    """
    A = sp.csr_matrix(A)
    diagonal = A.diagonal()
    B = np.asarray(B, dtype=float).reshape(len(diagonal), -1)
    X, converged = _block_cg(A, B, 1.0 / diagonal, rtol, 10 * len(diagonal))
    residual = np.linalg.norm(A @ X - B, axis=0)
    failing = np.flatnonzero(~converged | (residual > 1e3 * rtol * np.linalg.norm(B, axis=0)))
    if len(failing):
        X[:, failing] = splu(A.tocsc(), permc_spec="MMD_AT_PLUS_A").solve(B[:, failing])
    return X


def _block_cg(A, B, inverse_diagonal, rtol, maxiter):
    """Preconditioned conjugate gradients on the columns of ``B`` side by side; each column's
    steps are those of ``scipy.sparse.linalg.cg`` from zero. Returns ``(X, converged)``."""
    X = np.zeros_like(B)
    R, P = B.copy(), np.zeros_like(B)
    rho_prev = np.ones(B.shape[1])
    bound = rtol * np.linalg.norm(B, axis=0)
    active = np.linalg.norm(B, axis=0) > 0  # a zero column's solution is zero
    first = np.ones(B.shape[1], dtype=bool)
    for _ in range(maxiter):
        active &= np.linalg.norm(R, axis=0) >= bound
        cols = np.flatnonzero(active)
        if len(cols) == 0:
            break
        Z = R[:, cols] * inverse_diagonal[:, None]
        rho = np.einsum("ij,ij->j", R[:, cols], Z)
        beta = np.where(first[cols], 0.0, rho / rho_prev[cols])
        P[:, cols] = P[:, cols] * beta + Z
        Q = A @ P[:, cols]
        step = rho / np.einsum("ij,ij->j", P[:, cols], Q)
        X[:, cols] += step * P[:, cols]
        R[:, cols] -= step * Q
        rho_prev[cols], first[cols] = rho, False
    else:
        active &= np.linalg.norm(R, axis=0) >= bound
    return X, ~active


def spreading_solution(W, Y, alpha):
    """Zhou et al.'s ``(1 − α)(I − α S)⁻¹ Y`` with ``S = D^{-1/2} W D^{-1/2}`` (exact)."""
    S = _normalized(W)
    system = (sp.identity(W.shape[0]) - alpha * S).tocsr()
    return (1 - alpha) * solve_spd(system, np.asarray(Y, dtype=float)).reshape(Y.shape)


def _normalized(W):
    degree = np.asarray(W.sum(axis=1)).ravel()
    scale = sp.diags(1.0 / np.sqrt(degree))
    return (scale @ W @ scale).tocsr()


def _reached(W, labeled):
    _, component = connected_components(W, directed=False)
    return np.isin(component, np.unique(component[labeled]))


@dataclass(frozen=True)
class PropagationStep:
    """One step of the iterative propagation (iteration 0 = labels only, nothing propagated).

    Attributes
    ----------
    iteration : int
    predicted : ndarray of int (n_samples,)
        Index into ``classes_`` of each node's largest label mass; ``-1`` for a node that has
        received no mass yet.
    change : float
        Largest absolute change of any node's label distribution in this step.
    distributions : ndarray (n_samples, n_classes) or None
        Every node's normalised label distribution (``record="full"``).
    """

    iteration: int
    predicted: np.ndarray
    change: float
    distributions: np.ndarray | None


class GraphPropagation(ClassifierMixin, BaseEstimator):
    """Harmonic label propagation or label spreading on a k-nearest-neighbour graph.

    Parameters
    ----------
    method : {"harmonic", "spreading"}, default "harmonic"
    n_neighbors : int, default 10
        Neighbours per node before symmetrising (:func:`knn_affinity`).
    metric : {"cosine", "euclidean"}, default "cosine"
        How neighbours are found and weighted (:func:`knn_affinity`): cosine for text,
        euclidean for points in a plane.
    affinity : {"knn", "precomputed"}, default "knn"
        "precomputed": ``X`` given to ``fit`` is the symmetric affinity matrix itself (n × n,
        e.g. from :func:`affinity_from_neighbours`, to reuse one neighbour search), and
        ``predict_proba`` takes affinities of new rows to the training rows.
    alpha : float in (0, 1), default 0.99
        Spreading only: the weight of the neighbours against a node's own label.
    max_iter : int, default 200
        Steps of the iterative algorithm that the trace records (the fitted distributions are
        the exact solution, whatever ``max_iter``).
    tol : float, default 1e-6
        The iteration stops when no distribution changes by more than ``tol``.
    record : {"summary", "full", "none"}, default "summary"
        What ``trace_`` keeps per step ("full": every node's distribution; "none": no trace).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    label_distributions_ : ndarray of shape (n_samples, n_classes)
        Each training row's label distribution; rows sum to one.
    transduction_ : ndarray of shape (n_samples,)
        The label of every training row.
    unreached_ : ndarray of bool, shape (n_samples,)
        Unlabeled rows with no path to a labeled row (given the labeled class frequencies).
    trace_ : Trace of PropagationStep
        The iterative algorithm's steps (empty with ``record="none"``).
    n_iter_ : int
        Steps the iterative algorithm took.
    converged_ : bool
        Whether it reached ``tol`` within ``max_iter``.
    sigma_ : float
        ``metric="euclidean"`` k-NN graphs only: the Gaussian's width σ (:func:`knn_affinity`).
    X_fit_ : {ndarray, sparse matrix}
        The training rows (or affinities), kept for ``predict_proba`` of new rows.
    labeled_ : ndarray of bool, shape (n_samples,)
        The labeled training rows.
    n_features_in_ : int

    References
    ----------
    Zhu, X. and Ghahramani, Z. (2002). Learning from labeled and unlabeled data with label
    propagation. CMU CALD-02-107 (``"harmonic"``); Zhou, D., Bousquet, O., Lal, T., Weston, J.
    and Schölkopf, B. (2004). Learning with local and global consistency. NIPS
    (``"spreading"``). Both are named on the "other algorithms" slide of Wiegand's lecture.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0], [1, .1], [.9, .2], [0, 1], [.1, 1], [.2, .9]])
    >>> y = np.array([0, -1, -1, 1, -1, -1])
    >>> GraphPropagation(n_neighbors=2).fit(X, y).transduction_.tolist()
    [0, 0, 0, 1, 1, 1]
    """

    def __init__(self, method="harmonic", n_neighbors=10, metric="cosine", affinity="knn",
                 alpha=0.99, max_iter=200, tol=1e-6, record="summary"):
        self.method = method
        self.n_neighbors = n_neighbors
        self.metric = metric
        self.affinity = affinity
        self.alpha = alpha
        self.max_iter = max_iter
        self.tol = tol
        self.record = record

    def _check_params(self):
        """Refuse parameter values the fit cannot use, with a message that says the fix."""
        check_choice("method", self.method, METHODS)
        check_choice("record", self.record, RECORDS)
        check_choice("affinity", self.affinity, ("knn", "precomputed"))
        check_choice("metric", self.metric, ("cosine", "euclidean"))
        check_number("alpha", self.alpha, above=0, below=1)
        check_int("max_iter", self.max_iter, minimum=0)
        check_number("tol", self.tol, above=0)

    def fit(self, X, y):
        """Build the graph on ``X`` (``y == -1``: unlabeled) and propagate the labels.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Every row, labeled and unlabeled (features such as word counts or points in a
            plane); with ``affinity="precomputed"``, the symmetric, non-negative affinity matrix
            of shape (n_samples, n_samples).
        y : array-like of shape (n_samples,)
            The class of each labeled row, ``-1`` for an unlabeled one; at least two classes.

        Returns
        -------
        self : GraphPropagation

        Raises
        ------
        ValueError
            For a parameter out of range, ``n_neighbors`` not below the number of rows, a row
            without features, fewer than two labeled classes, or a precomputed matrix that is
            not square, symmetric and non-negative or leaves a node without an edge.
        """
        self._check_params()
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=None, y_numeric=False)
        y, labeled = semi_supervised_target(y)
        self.classes_ = resolve_classes(np.asarray(y)[labeled], min_classes=2)
        self.X_fit_, self.labeled_ = X, labeled
        W = self._graph(X)
        Y = self._one_hot(np.asarray(y), labeled)
        if self.method == "harmonic":
            distributions = self._harmonic(W, labeled, Y)
        else:
            distributions = spreading_solution(W, Y, self.alpha)
            self.unreached_ = ~labeled & ~_reached(W, labeled)
        self.label_distributions_ = self._normalise_rows(distributions, labeled, Y)
        self.transduction_ = self.classes_[np.argmax(self.label_distributions_, axis=1)]
        self._iterate(W, labeled, Y)
        return self

    def _graph(self, X):
        """The affinity matrix; a euclidean k-NN graph also sets ``sigma_``, its width."""
        if self.affinity == "precomputed":
            return self._given(X)
        if self.metric == "cosine":
            return knn_affinity(X, self.n_neighbors, self.metric)
        similarities, neighbours, self.sigma_ = euclidean_neighbours(X, self.n_neighbors,
                                                                     return_sigma=True)
        return affinity_from_neighbours(similarities, neighbours, self.n_neighbors)

    @staticmethod
    def _given(W):
        W = _checked_affinities(W, "X (the precomputed affinity matrix)")
        if W.shape[0] != W.shape[1]:
            raise ValueError("affinity='precomputed' needs a square, symmetric, non-negative "
                             f"affinity matrix as X, got shape {W.shape}")
        if abs(W - W.T).max() > 1e-12 * max(W.max(), 1.0):
            raise ValueError("affinity='precomputed' needs a square, symmetric, non-negative "
                             "affinity matrix as X; this one is not symmetric (use W.maximum(W.T)"
                             " or (W + W.T) / 2)")
        lonely = np.flatnonzero(np.asarray(W.sum(axis=1)).ravel() == 0)
        if len(lonely):
            raise ValueError(f"{len(lonely)} row(s) of the precomputed affinity matrix X have no "
                             f"edge (e.g. row {lonely[0]}): every node needs a neighbour")
        return W

    def _one_hot(self, y, labeled):
        Y = np.zeros((len(y), len(self.classes_)))
        Y[np.flatnonzero(labeled), np.searchsorted(self.classes_, y[labeled])] = 1.0
        return Y

    def _harmonic(self, W, labeled, Y):
        F_u, reached = harmonic_solution(W, labeled, Y[labeled])
        distributions = Y.copy()
        distributions[~labeled] = F_u
        self.unreached_ = np.zeros(len(Y), dtype=bool)
        self.unreached_[np.flatnonzero(~labeled)[~reached]] = True
        return distributions

    def _normalise_rows(self, distributions, labeled, Y):
        if self.unreached_.any():
            warnings.warn(f"{int(self.unreached_.sum())} unlabeled row(s) have no path to a "
                          "labeled row in the graph; they get the labeled class frequencies "
                          "(raise n_neighbors to connect them)", stacklevel=3)
            distributions[self.unreached_] = Y[labeled].mean(axis=0)
        distributions = np.clip(distributions, 0.0, None)
        empty = distributions.sum(axis=1) <= 0
        if empty.any():  # reached, but the mass that arrived is below the solver's precision
            warnings.warn(f"{int(empty.sum())} unlabeled row(s) received no measurable label "
                          "mass (spreading with a small alpha reaches little beyond the labeled "
                          "rows); they get the labeled class frequencies", stacklevel=3)
            distributions[empty] = Y[labeled].mean(axis=0)
        return distributions / distributions.sum(axis=1, keepdims=True)

    def _iterate(self, W, labeled, Y):
        """Run the iterative algorithm the exact solution is the limit of; record its steps."""
        P = sp.diags(1.0 / np.asarray(W.sum(axis=1)).ravel()) @ W
        S = _normalized(W) if self.method == "spreading" else None
        F, steps, change = Y.copy(), [self._step(0, Y, np.inf)], np.inf
        self.n_iter_ = 0
        while self.record != "none" and self.n_iter_ < self.max_iter and change > self.tol:
            if self.method == "harmonic":
                new = P @ F
                new[labeled] = Y[labeled]
            else:
                new = self.alpha * (S @ F) + (1 - self.alpha) * Y
            change = float(np.max(np.abs(_rownorm(new) - _rownorm(F))))
            F = new
            self.n_iter_ += 1
            steps.append(self._step(self.n_iter_, F, change))
        self.converged_ = bool(change <= self.tol)  # with record="none": not iterated, False
        self.trace_ = Trace(steps if self.record != "none" else [])

    def _step(self, iteration, F, change):
        mass = F.sum(axis=1)
        predicted = np.where(mass > 0, np.argmax(F, axis=1), -1)
        full = _rownorm(F) if self.record == "full" else None
        return PropagationStep(iteration, freeze_array(predicted), float(change),
                               freeze_array(full))

    def predict_proba(self, X):
        """Label distributions of new rows: their training neighbours' distributions, weighted
        by cosine similarity or by the graph's Gaussian of width ``sigma_`` (the graph's own
        rule applied to one more node; each row on its own, whatever rows come with it).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            New rows in the training rows' features; with ``affinity="precomputed"``, their
            affinities to the training rows, shape (n_samples, n_training_rows).

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Rows sum to one.
        """
        check_is_fitted(self)
        if self.affinity == "precomputed":
            return self._proba_from_affinities(X)
        X = validate_data(self, X, accept_sparse="csr", reset=False)
        k = min(self.n_neighbors, self.X_fit_.shape[0])
        fitted, X, scale = _comparable(self.X_fit_, X, self.metric)
        search = NearestNeighbors(n_neighbors=k, metric=self.metric).fit(fitted)
        distances, neighbours = search.kneighbors(X)
        if self.metric == "cosine":
            weights = np.maximum(1.0 - distances, 1e-6)
        else:
            # the graph's width, so that a row's weights never depend on the rows beside it
            sigma = self.sigma_ * scale
            weights = np.maximum(np.exp(-distances**2 / (2 * sigma**2)), 1e-300)
        proba = np.einsum("ik,ikc->ic", weights, self.label_distributions_[neighbours])
        return proba / proba.sum(axis=1, keepdims=True)

    def _proba_from_affinities(self, X):
        """Label distributions of new rows given their affinities to the training rows; a row
        with no edge to a training row gets the labeled class frequencies, with a warning."""
        n_fit = self.X_fit_.shape[0]
        weights = _checked_affinities(X, "X (the affinities of new rows to the training rows)",
                                      rowwise=True)
        if weights.shape[1] != n_fit:
            raise ValueError(f"X (the affinities of new rows to the training rows) must have one "
                             f"column per training row ({n_fit}), got shape {weights.shape}")
        proba = np.asarray(weights @ self.label_distributions_)
        lonely = np.flatnonzero(proba.sum(axis=1) <= 0)
        if len(lonely):
            warnings.warn(f"{len(lonely)} row(s) of X have no edge to a training row (e.g. row "
                          f"{lonely[0]}); they get the labeled class frequencies", stacklevel=3)
            proba[lonely] = self.label_distributions_[self.labeled_].mean(axis=0)
        return proba / proba.sum(axis=1, keepdims=True)

    def predict(self, X):
        """The class with the largest propagated mass for each row of ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            As for :meth:`predict_proba`.

        Returns
        -------
        ndarray of shape (n_samples,)
            A class of ``classes_`` per row.
        """
        proba = self.predict_proba(X)  # first: it raises NotFittedError before a fit
        return self.classes_[np.argmax(proba, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def step_summary(trace, truth, rows):
    """Per recorded step: the share of ``rows`` that hold label mass, and the accuracy of the
    class with the most mass among them (``truth``: class indices; NaN before any is reached).

    Returns ``(reached, accuracy)``, arrays of shape (n_steps,).
    """
    predicted = trace.values("predicted")[:, rows]
    reached = predicted >= 0
    right = (predicted == np.asarray(truth)[rows]) & reached
    counts = reached.sum(axis=1)
    accuracy = np.divide(right.sum(axis=1), counts, out=np.full(len(counts), np.nan),
                         where=counts > 0)
    return reached.mean(axis=1), accuracy


def _checked_affinities(W, name, *, rowwise=False):
    """``W`` as a CSR matrix of finite, non-negative affinities, rescaled by a power of two
    (exact: every result of the graph is unchanged) so that no sum of them overflows. ``rowwise``:
    each row on its own scale (new rows' affinities: only their proportions matter)."""
    try:
        W = sp.csr_matrix(W, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name} must be a 2-D matrix of numbers ({error})") from None
    if not np.isfinite(W.data).all():
        row = int(np.searchsorted(W.indptr, np.flatnonzero(~np.isfinite(W.data))[0], "right")) - 1
        raise ValueError(f"{name} holds NaN or infinite affinities (e.g. row {row}): every "
                         "affinity must be a finite number >= 0")
    if (W.data < 0).any():
        row = int(np.searchsorted(W.indptr, np.flatnonzero(W.data < 0)[0], "right")) - 1
        raise ValueError(f"{name} holds negative affinities (e.g. row {row}): every affinity "
                         "must be a finite number >= 0")
    W.eliminate_zeros()
    largest = (np.maximum.reduceat(W.data, W.indptr[:-1][np.diff(W.indptr) > 0])
               if rowwise else W.data.max(initial=0.0))
    if rowwise and W.nnz:
        scale = np.ones(W.shape[0])
        scale[np.diff(W.indptr) > 0] = np.ldexp(1.0, -np.frexp(largest)[1])
        return (sp.diags(scale) @ W).tocsr()
    return W * np.ldexp(1.0, -int(np.frexp(largest)[1])) if W.nnz else W


def _rownorm(F):
    mass = F.sum(axis=1, keepdims=True)
    return np.divide(F, mass, out=np.zeros_like(F), where=mass > 0)
