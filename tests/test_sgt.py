"""The spectral graph transducer: its sphere-constrained solve against an independent secular
equation, its eigenvectors against a dense solve, and its cut on separated clusters."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import brentq

from sslviz.sgt import (
    SpectralGraphTransducer,
    sgt_graph,
    smooth_eigenvectors,
    sphere_constrained_minimum,
)


def _secular_minimum(G, b, n):
    """Independent: the λ below G's smallest eigenvalue with ‖(G − λI)⁻¹b‖² = n (bisection)."""
    values, vectors = np.linalg.eigh(G)
    coefficients = vectors.T @ b

    def excess(lam):
        return np.sum((coefficients / (values - lam)) ** 2) - n

    lam = brentq(excess, values[0] - 1e6, values[0] - 1e-12)
    return np.linalg.solve(G - lam * np.eye(len(b)), b)


@pytest.mark.parametrize("seed", range(4))
def test_the_sphere_constrained_solution_equals_the_secular_equations(seed):
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(6, 6))
    G = M @ M.T + 0.5 * np.eye(6)
    b = rng.normal(size=6) * 3
    w, _ = sphere_constrained_minimum(G, b, 40)
    expected = _secular_minimum(G, b, 40)
    np.testing.assert_allclose(w, expected, rtol=1e-7, atol=1e-9)
    assert w @ w == pytest.approx(40)


def _clusters(seed=0, n=30):
    rng = np.random.default_rng(seed)
    X = np.abs(np.vstack([rng.normal([3, .3, .2], .3, (n, 3)),
                          rng.normal([.3, 3, .2], .3, (n, 3))]))
    y = np.full(2 * n, -1)
    y[[0, 1, 2, n, n + 1]] = [0, 0, 0, 1, 1]
    return X, y, np.repeat([0, 1], n)


def test_eigenvectors_span_the_dense_normalised_laplacians_smoothest_directions():
    X, _, _ = _clusters()
    bridge = np.linspace([3, .3, .2], [.3, 3, .2], 12)
    X = np.vstack([X, bridge])  # one connected graph: eigenvalue 0 is simple
    A = sgt_graph(X, 5)
    V, parts = smooth_eigenvectors(A, 4)
    dense = A.toarray()
    d = dense.sum(axis=1)
    L = np.eye(len(d)) - dense / np.sqrt(np.outer(d, d))
    values, vectors = np.linalg.eigh(L)
    expected = vectors[:, 1:5]
    np.testing.assert_allclose(np.abs(expected.T @ V), np.eye(4), atol=1e-6)
    assert parts == 1


def test_the_graph_is_the_papers_row_normalised_knn_plus_its_transpose():
    X = np.array([[1, 0], [1, 1], [0, 1], [2, 0.1]], dtype=float)
    A = sgt_graph(X, 2).toarray()
    np.testing.assert_allclose(A, A.T)
    assert A.sum() == pytest.approx(2 * len(X))  # A = A' + A'ᵀ, each row of A' sums to 1
    # row 0's two nearest by cosine are rows 3 and 1: weights cos / (sum of the two)
    cos03, cos01 = 2 / np.hypot(2, 0.1), 1 / np.sqrt(2)
    assert A[0, 3] >= cos03 / (cos03 + cos01) - 1e-12


def test_the_cut_separates_two_clusters_and_keeps_its_norm():
    X, y, truth = _clusters()
    sgt = SpectralGraphTransducer(n_neighbors=5, n_components=6, c=100).fit(X, y)
    assert sgt.n_graph_components_ == 2  # no edge between the clusters: 0 is a double eigenvalue
    assert (sgt.transduction_ == truth).all()
    assert sgt.decision_ @ sgt.decision_ == pytest.approx(len(y))
    assert sgt.threshold_ == pytest.approx((np.sqrt(3 / 2) - np.sqrt(2 / 3)) / 2)
    assert (sgt.predict(X) == truth).all()


@pytest.mark.parametrize(("params", "y_change", "message"), [
    ({"n_components": 59}, None, "n_components must be < the number of rows minus 1"),
    ({}, 2, "separates two classes, got 3"),
    ({"c": 0}, None, "c must be a finite number > 0"),
])
def test_bad_input_gets_a_clear_error(params, y_change, message):
    X, y, _ = _clusters()
    if y_change is not None:
        y[5] = y_change
    with pytest.raises(ValueError, match=message):
        SpectralGraphTransducer(**{"n_neighbors": 5, "n_components": 4, **params}).fit(X, y)


def test_predicting_other_rows_is_refused():
    X, y, _ = _clusters()
    sgt = SpectralGraphTransducer(n_neighbors=5, n_components=4, c=100).fit(X, y)
    with pytest.raises(ValueError, match="transductive: it labels only the rows it was fitted on"):
        sgt.predict(X[:10])
    with pytest.raises(ValueError, match=r"1 row\(s\) have no features at all \(e.g. row 3\)"):
        X2 = X.copy()
        X2[3] = 0
        SpectralGraphTransducer(n_neighbors=5, n_components=4).fit(sp.csr_matrix(X2), y)


def test_docstring_examples_of_the_lecture_10_and_11_estimators():
    import doctest

    import sslviz.co_training
    import sslviz.label_propagation
    import sslviz.sgt

    for module in (sslviz.sgt, sslviz.co_training, sslviz.label_propagation):
        assert doctest.testmod(module).failed == 0


def test_the_graph_of_duplicate_rows_has_no_self_edge_and_k_neighbours_per_row():
    rng = np.random.default_rng(1)
    X = rng.poisson(1.0, size=(12, 5)).astype(float) + np.eye(12, 5)
    X[[4, 8, 10]] = X[2]
    k = 3
    A = sgt_graph(X, k).toarray()
    assert np.diagonal(A).max() == 0
    np.testing.assert_allclose(A, A.T)
    # brute force: row 2's three duplicates (cosine 1) are its k neighbours, weight 1/3 each in
    # A', and every row has at least its own k neighbours in A = A' + A'ᵀ
    unit = X / np.linalg.norm(X, axis=1, keepdims=True)
    assert np.allclose(unit[[4, 8, 10]] @ unit[2], 1.0)
    assert A.sum() == pytest.approx(2 * len(X))
    assert (A[2, [4, 8, 10]] >= 1 / 3 - 1e-12).all()
    assert np.count_nonzero(A, axis=1).min() >= k


@pytest.mark.parametrize("c", [1e100, 1e300, np.finfo(float).max])
def test_a_huge_c_gives_the_limit_of_large_c_not_an_overflow(c):
    """c trades the cut against the labels; for a c that large the labels decide alone: the
    cut of c = 1e300 is that of c = 1e12 (the objective is divided by c; c² would overflow)."""
    X, y, _ = _clusters()
    limit = SpectralGraphTransducer(n_neighbors=5, n_components=4, c=1e12).fit(X, y)
    huge = SpectralGraphTransducer(n_neighbors=5, n_components=4, c=c).fit(X, y)
    np.testing.assert_allclose(huge.decision_, limit.decision_, atol=1e-6)
    assert np.isfinite(huge.decision_).all()


@pytest.mark.parametrize("scale", [1e300, 1e-300])
def test_huge_or_tiny_counts_give_the_same_cut(scale):
    X, y, _ = _clusters()
    plain = SpectralGraphTransducer(n_neighbors=5, n_components=4, c=100).fit(X, y)
    scaled = SpectralGraphTransducer(n_neighbors=5, n_components=4, c=100).fit(X * scale, y)
    np.testing.assert_allclose(scaled.decision_, plain.decision_, atol=1e-9)
