"""The spectral graph transducer (Joachims 2003): a constrained ratio cut of a kNN graph.

Transductive: the test examples are in the graph. Cut the k-nearest-neighbour graph of all
examples into two parts so that few edges are cut (relative to the parts' sizes), while the
labeled examples fall on their side. Relaxed to real numbers ``z`` (one per example) and
written in the basis of the graph Laplacian's smoothest eigenvectors ``z = V w``:

    minimise  wᵀ D w + c (V w − γ)ᵀ C (V w − γ)   subject to  wᵀ w = n,

* ``V``: the eigenvectors 2 … d + 1 of the normalised Laplacian (the first is constant), ``D``
  their eigenvalues replaced by ``1², 2², …, d²`` (the paper's spectrum normalisation);
* ``γ``: the targets, ``γ₊ = √(l₋/l₊)`` for labeled positives, ``γ₋ = −√(l₊/l₋)`` for labeled
  negatives, 0 for the rest — so the class ratio the cut aims for is the *labeled* ratio;
* ``C``: the cost of missing a target, ``l/(2 l₊)`` per positive and ``l/(2 l₋)`` per negative;
  ``c`` trades the cut against the labels.

With ``G = D + c Vᵀ C V`` and ``b = c Vᵀ C γ`` the solution is ``w = (G − λ* I)⁻¹ b``, where ``λ*``
is the smallest eigenvalue of the 2d × 2d matrix ``[[G, −I], [−b bᵀ/n, G]]`` (an exact solution
of the sphere-constrained quadratic problem). An example is positive when ``z > (γ₊ + γ₋)/2``.

The graph (the paper's): ``A'_ij = sim(x_i, x_j) / Σ_{k ∈ kNN(i)} sim(x_i, x_k)`` for the k
nearest neighbours j of i by cosine similarity, ``A = A' + A'ᵀ``. The eigenvectors here are those
of the symmetric normalised Laplacian ``I − B^{-1/2} A B^{-1/2}`` (orthonormal, as the constraint
``wᵀw = n`` needs for ``zᵀz = n``); the paper states its method for ``B⁻¹(B − A)``, whose
eigenvectors span the same kind of smooth functions but are not orthonormal.

Defaults ``n_neighbors=10, n_components=80, c=3200`` are the settings of the paper's text
experiments.

Cost: a kNN search, ``d + 1`` eigenvectors of a sparse n × n matrix (shift-invert Lanczos), and a
2d × 2d eigenvalue problem.

References
----------
Joachims (2003), Transductive learning via spectral graph partitioning. ICML.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import eigsh
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.neighbors import NearestNeighbors
from sklearn.utils.validation import check_is_fitted, validate_data

from .label_propagation import cosine_scaled_rows
from .validation import check_int, check_number, resolve_classes, semi_supervised_target

RESCALE_ABOVE = 1e6
"""Above this ``c`` the cut's objective is divided by ``c`` before it is solved (the same
minimiser): ``bbᵀ`` grows as ``c²`` and would overflow near ``c = 1e150``."""

__all__ = ["SpectralGraphTransducer", "constrained_cut", "sgt_graph", "smooth_eigenvectors",
           "sphere_constrained_minimum"]


def sgt_graph(X, n_neighbors):
    """The paper's symmetric kNN graph: row-normalised cosine similarities plus their transpose."""
    n_samples = X.shape[0]
    if n_neighbors >= n_samples:
        raise ValueError(f"n_neighbors must be < the number of rows ({n_samples}), "
                         f"got {n_neighbors}")
    X = cosine_scaled_rows(X)  # exact: tiny or huge counts give the same cosines
    # kneighbors() without X leaves each row out by its index (a duplicate row is a neighbour)
    distances, neighbours = (NearestNeighbors(n_neighbors=n_neighbors, metric="cosine")
                             .fit(X).kneighbors())
    similarity = np.maximum(1.0 - distances, 1e-6)
    similarity /= similarity.sum(axis=1, keepdims=True)
    rows = np.repeat(np.arange(n_samples), n_neighbors)
    A = sp.csr_matrix((similarity.ravel(), (rows, neighbours.ravel())),
                      shape=(n_samples, n_samples))
    return (A + A.T).tocsr()


def smooth_eigenvectors(A, n_components):
    """Eigenvectors 2 … d + 1 of ``I − B^{-1/2} A B^{-1/2}`` (orthonormal columns, n × d).

    The excluded first eigenvector is ``B^{1/2} 1`` (the constant cut). When the graph falls
    into several parts, eigenvalue 0 repeats; its other directions (one per extra part) are kept,
    made orthogonal to ``B^{1/2} 1``. Returns the vectors and the number of parts.
    """
    n_samples = A.shape[0]
    if n_components + 1 >= n_samples:
        raise ValueError(f"n_components must be < the number of rows minus 1 ({n_samples - 1})"
                         f", got {n_components}")
    n_parts, _ = connected_components(A, directed=False)
    scale = sp.diags(1.0 / np.sqrt(np.asarray(A.sum(axis=1)).ravel()))
    laplacian = (sp.identity(n_samples) - scale @ A @ scale).tocsc()
    start = np.random.default_rng(0).normal(size=n_samples)  # ARPACK's start: fixed, not random
    values, vectors = eigsh(laplacian, k=n_components + 1, sigma=-1e-3, which="LM", v0=start)
    order = np.argsort(values)
    values, vectors = values[order], vectors[:, order]
    trivial = np.sqrt(np.asarray(A.sum(axis=1)).ravel())
    trivial /= np.linalg.norm(trivial)
    null = values < 1e-9
    kernel = vectors[:, null] - np.outer(trivial, trivial @ vectors[:, null])
    left, singular, _ = np.linalg.svd(kernel, full_matrices=False)
    kept = left[:, singular > 1e-6]
    return np.hstack([kept, vectors[:, ~null]])[:, :n_components], n_parts


def sphere_constrained_minimum(G, b, n):
    """``argmin wᵀGw − 2bᵀw`` subject to ``wᵀw = n`` (G symmetric positive definite).

    The Lagrange condition ``(G − λI) w = b`` with ``‖w‖² = n``; the minimum takes the smallest
    λ, the smallest real eigenvalue of ``[[G, −I], [−bbᵀ/n, G]]`` (Gander, Golub & von Matt 1989).
    """
    d = len(b)
    block = np.block([[G, -np.eye(d)], [-np.outer(b, b) / n, G]])
    eigenvalues = scipy.linalg.eigvals(block)
    real = eigenvalues[np.abs(eigenvalues.imag) < 1e-8 * (1 + np.abs(eigenvalues))].real
    lam = real.min()
    return np.linalg.solve(G - lam * np.eye(d), b), lam


def constrained_cut(V, positive, negative, c):
    """The relaxed cut ``z = V w`` for the labeled masks ``positive``/``negative`` (the module's
    optimisation problem, spectrum ``1², …, d²``); returns ``(z, threshold)``.

    ``V`` (n × d, orthonormal columns, :func:`smooth_eigenvectors`) does not depend on the
    labels: one basis serves every labeled set of the same rows.
    """
    n_pos, n_neg = int(np.sum(positive)), int(np.sum(negative))
    n_labeled = n_pos + n_neg
    gamma_pos, gamma_neg = np.sqrt(n_neg / n_pos), -np.sqrt(n_pos / n_neg)
    targets = np.where(positive, gamma_pos, np.where(negative, gamma_neg, 0.0))
    costs = np.where(positive, n_labeled / (2 * n_pos),
                     np.where(negative, n_labeled / (2 * n_neg), 0.0))
    spectrum = np.arange(1, V.shape[1] + 1, dtype=float) ** 2
    if c > RESCALE_ABOVE:  # the objective divided by c: the same minimum, no overflowing c²
        G, b = np.diag(spectrum / c) + (V.T * costs) @ V, V.T @ (costs * targets)
    else:
        G, b = np.diag(spectrum) + c * (V.T * costs) @ V, c * V.T @ (costs * targets)
    w, _ = sphere_constrained_minimum(G, b, len(V))
    return V @ w, (gamma_pos + gamma_neg) / 2


class SpectralGraphTransducer(ClassifierMixin, BaseEstimator):
    """Joachims' spectral graph transducer for two classes (transductive: ``predict`` is on ``X``
    as fitted; new rows need a refit).

    Parameters
    ----------
    n_neighbors : int, default 10
    n_components : int, default 80
        Eigenvectors d of the Laplacian kept (the first, constant one excluded).
    c : float > 0, default 3200
        Weight of the labeled targets against the cut.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two classes, negative first.
    decision_ : ndarray of shape (n_samples,)
        The relaxed cut ``z`` of every row, ``zᵀz = n``.
    threshold_ : float
        ``(γ₊ + γ₋)/2``: a row is positive when its ``z`` is above it.
    transduction_ : ndarray of shape (n_samples,)
        The class of every row.
    n_graph_components_ : int
        Connected parts of the graph (1 is the normal case).
    X_fit_ : {ndarray, sparse matrix}
        The rows fitted, kept so that ``predict`` can refuse other rows.
    n_features_in_ : int

    References
    ----------
    Joachims, T. (2003). Transductive learning via spectral graph partitioning. ICML (the
    method, its graph, the spectrum normalisation and the text settings used as defaults).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.abs(np.vstack([rng.normal([3, .3], .3, (30, 2)), rng.normal([.3, 3], .3, (30, 2))]))
    >>> y = np.full(60, -1); y[[0, 1, 30, 31]] = [0, 0, 1, 1]
    >>> sgt = SpectralGraphTransducer(n_neighbors=5, n_components=4, c=100).fit(X, y)
    >>> float((sgt.transduction_ == np.repeat([0, 1], 30)).mean())
    1.0
    """

    def __init__(self, n_neighbors=10, n_components=80, c=3200.0):
        self.n_neighbors = n_neighbors
        self.n_components = n_components
        self.c = c

    def _check_params(self):
        """Refuse parameter values the fit cannot use, with a message that says the fix."""
        check_int("n_neighbors", self.n_neighbors, minimum=1)
        check_int("n_components", self.n_components, minimum=1)
        check_number("c", self.c, above=0)

    def fit(self, X, y):
        """Cut the graph of ``X`` (all rows, ``y == -1`` unlabeled) as the labels ask.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Every row the model will ever label, labeled and unlabeled (non-negative features
            such as word counts or tf-idf; neighbours by cosine similarity).
        y : array-like of shape (n_samples,)
            The class of each labeled row, ``-1`` for an unlabeled one; exactly two classes.

        Returns
        -------
        self : SpectralGraphTransducer

        Raises
        ------
        ValueError
            For a parameter out of range, labels of other than two classes, ``n_neighbors`` or
            ``n_components`` too large for the number of rows, or a row without features.
        """
        self._check_params()
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=None)
        y, labeled = semi_supervised_target(y)
        self.classes_ = resolve_classes(np.asarray(y)[labeled], min_classes=2)
        if len(self.classes_) != 2:
            raise ValueError("the spectral graph transducer separates two classes, got "
                             f"{len(self.classes_)}: train one per class against the rest")
        positive = labeled & (np.asarray(y) == self.classes_[1])
        V, self.n_graph_components_ = smooth_eigenvectors(sgt_graph(X, self.n_neighbors),
                                                          self.n_components)
        self.decision_, self.threshold_ = constrained_cut(V, positive, labeled & ~positive,
                                                          self.c)
        self.X_fit_ = X
        self.transduction_ = self.classes_[(self.decision_ > self.threshold_).astype(int)]
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def decision_function(self, X):
        """``z − threshold`` of the fitted rows ``X`` (positive: ``classes_[1]``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows given to ``fit``, unchanged (the model is transductive).

        Returns
        -------
        ndarray of shape (n_samples,)

        Raises
        ------
        ValueError
            If ``X`` is not the fitted rows: refit with the new rows added as unlabeled.
        """
        self.predict(X)  # the same check: these must be the fitted rows
        return self.decision_ - self.threshold_

    def predict(self, X):
        """The transduction, for the rows ``X`` the model was fitted on (and only those).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows given to ``fit``, unchanged.

        Returns
        -------
        ndarray of shape (n_samples,)
            ``transduction_``.

        Raises
        ------
        ValueError
            If ``X`` is not the fitted rows: refit with the new rows added as unlabeled.
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=None, reset=False)
        same = X.shape == self.X_fit_.shape and (
            (abs(X - self.X_fit_)).max() == 0 if sp.issparse(X) or sp.issparse(self.X_fit_)
            else np.array_equal(X, self.X_fit_))
        if not same:
            raise ValueError("the spectral graph transducer is transductive: it labels only the "
                             "rows it was fitted on; refit with the new rows added as unlabeled "
                             "(y = -1)")
        return self.transduction_
