"""Harmonic propagation and label spreading against dense closed forms and hand-built graphs."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from sslviz.label_propagation import (
    GraphPropagation,
    harmonic_solution,
    knn_affinity,
    spreading_solution,
)


def _random_graph(n=12, seed=0):
    rng = np.random.default_rng(seed)
    dense = rng.random((n, n)) * (rng.random((n, n)) < 0.5)
    dense = np.triu(dense, 1)
    dense = dense + dense.T + np.diag(np.zeros(n))
    dense[np.arange(n - 1), np.arange(1, n)] += 0.1  # a path keeps it connected
    dense[np.arange(1, n), np.arange(n - 1)] += 0.1
    return dense


def _two_clusters(seed=0, n=20):
    rng = np.random.default_rng(seed)
    a = np.abs(rng.normal([5, 0.5, 0], 0.3, size=(n, 3)))
    b = np.abs(rng.normal([0.5, 5, 0], 0.3, size=(n, 3)))
    X = np.vstack([a, b])
    truth = np.repeat([0, 1], n)
    y = np.full(2 * n, -1)
    y[[0, n]] = [0, 1]
    return X, y, truth


def test_harmonic_solution_equals_a_dense_solve():
    dense = _random_graph()
    labeled = np.zeros(12, dtype=bool)
    labeled[[0, 5, 11]] = True
    Y_l = np.array([[1, 0], [0, 1], [1, 0]], dtype=float)
    F_u, reached = harmonic_solution(sp.csr_matrix(dense), labeled, Y_l)
    L = np.diag(dense.sum(axis=1)) - dense
    u, lab = ~labeled, labeled
    expected = np.linalg.solve(L[np.ix_(u, u)], dense[np.ix_(u, lab)] @ Y_l)
    np.testing.assert_allclose(F_u, expected, rtol=1e-10)
    assert reached.all()
    np.testing.assert_allclose(F_u.sum(axis=1), 1.0)  # the harmonic mean of one-hot rows


def test_spreading_solution_equals_the_dense_closed_form():
    dense = _random_graph(seed=1)
    Y = np.zeros((12, 2))
    Y[0, 0] = Y[7, 1] = 1
    d = dense.sum(axis=1)
    S = dense / np.sqrt(np.outer(d, d))
    expected = 0.2 * np.linalg.solve(np.eye(12) - 0.8 * S, Y)
    np.testing.assert_allclose(spreading_solution(sp.csr_matrix(dense), Y, 0.8), expected,
                               rtol=1e-10)


@pytest.mark.parametrize("method", ["harmonic", "spreading"])
def test_the_recorded_iteration_converges_to_the_exact_solution(method):
    X, y, truth = _two_clusters()
    model = GraphPropagation(method=method, n_neighbors=4, alpha=0.9, max_iter=5000, tol=1e-10,
                             record="full").fit(X, y)
    assert model.converged_
    np.testing.assert_allclose(model.trace_[-1].distributions, model.label_distributions_,
                               atol=1e-6)
    assert (model.transduction_ == truth).all()
    changes = model.trace_.values("change")[1:]
    assert changes[-1] <= 1e-10


def test_harmonic_keeps_the_given_labels_and_distributions_sum_to_one():
    X, y, _ = _two_clusters(seed=3)
    model = GraphPropagation(n_neighbors=3).fit(X, y)
    labeled = y != -1
    assert (model.transduction_[labeled] == y[labeled]).all()
    np.testing.assert_allclose(model.label_distributions_.sum(axis=1), 1.0)
    assert model.trace_[0].predicted[~labeled].tolist() == [-1] * int((~labeled).sum())


def test_nodes_with_no_path_to_a_label_are_reported_and_get_the_class_frequencies():
    X, y, _ = _two_clusters(seed=4)
    third = np.abs(np.random.default_rng(0).normal([0, 0, 5], 0.2, size=(6, 3)))
    X = np.vstack([X, third])  # a third cluster, with no label and no edge to the others
    y = np.concatenate([y, np.full(6, -1)])
    with pytest.warns(UserWarning, match="6 unlabeled row\\(s\\) have no path to a labeled row"):
        model = GraphPropagation(n_neighbors=5).fit(X, y)
    assert model.unreached_.sum() == 6 and model.unreached_[-6:].all()
    np.testing.assert_allclose(model.label_distributions_[-6:], 0.5)


def test_knn_affinity_is_symmetric_with_cosine_weights():
    X = np.array([[1, 0], [1, 1], [0, 1], [2, 0.1]], dtype=float)
    W = knn_affinity(X, n_neighbors=1).toarray()
    np.testing.assert_allclose(W, W.T)
    assert W[0, 3] == pytest.approx(2 / np.hypot(2, 0.1))
    assert (np.count_nonzero(W, axis=1) >= 1).all()


def test_new_rows_take_their_neighbours_distributions():
    X, y, _ = _two_clusters(seed=5)
    model = GraphPropagation(n_neighbors=3).fit(X, y)
    assert model.predict(np.array([[5.0, 0.4, 0], [0.3, 5.0, 0]])).tolist() == [0, 1]
    np.testing.assert_allclose(model.predict_proba(X[:3]).sum(axis=1), 1.0)


def test_docstring_example():
    X = np.array([[1, 0], [1, .1], [.9, .2], [0, 1], [.1, 1], [.2, .9]])
    y = np.array([0, -1, -1, 1, -1, -1])
    assert GraphPropagation(n_neighbors=2).fit(X, y).transduction_.tolist() == [0, 0, 0, 1, 1, 1]


@pytest.mark.parametrize(("X", "y", "params", "message"), [
    ([[1, 0], [0, 0], [0, 1]], [0, -1, 1], {"n_neighbors": 1},
     "1 row\\(s\\) have no features at all \\(e.g. row 1\\)"),
    ([[1, 0], [1, 1], [0, 1]], [0, -1, 1], {"n_neighbors": 3},
     "n_neighbors must be < the number of rows \\(3\\), got 3"),
    ([[1, 0], [1, 1], [0, 1]], [0, -1, 1], {"alpha": 1.0}, "alpha must be a finite number > 0"),
    ([[1, 0], [1, 1], [0, 1]], [0, -1, 1], {"method": "walk"}, "method must be one of"),
])
def test_bad_input_gets_a_clear_error(X, y, params, message):
    with pytest.raises(ValueError, match=message):
        GraphPropagation(**params).fit(np.array(X, dtype=float), np.array(y))


def test_a_single_labeled_class_is_refused():
    X, y, _ = _two_clusters()
    y[y == 1] = -1
    with pytest.raises(ValueError, match="class"):
        GraphPropagation(n_neighbors=3).fit(X, y)


@pytest.mark.parametrize("method", ["harmonic", "spreading"])
def test_a_precomputed_graph_from_one_larger_search_gives_the_same_fit(method):
    from sslviz.label_propagation import affinity_from_neighbours, cosine_neighbours

    X, y, _ = _two_clusters(seed=6)
    direct = GraphPropagation(method=method, n_neighbors=4, alpha=0.9).fit(X, y)
    W = affinity_from_neighbours(*cosine_neighbours(X, 9), 4)
    given = GraphPropagation(method=method, affinity="precomputed", alpha=0.9).fit(W, y)
    np.testing.assert_allclose(given.label_distributions_, direct.label_distributions_)


def test_a_precomputed_graph_must_be_symmetric_with_an_edge_per_node():
    with pytest.raises(ValueError, match="square, symmetric, non-negative"):
        GraphPropagation(affinity="precomputed").fit(np.array([[0, 1.0], [0, 0]]), [0, 1])
    with pytest.raises(ValueError, match=r"3 row\(s\) of the precomputed affinity matrix X "
                                         r"have no edge \(e.g. row 0\)"):
        GraphPropagation(affinity="precomputed").fit(np.eye(3) * 0, [0, 1, -1])


def test_the_spd_solver_equals_a_dense_solve_and_falls_back_to_lu_when_cg_stalls(monkeypatch):
    from scipy.sparse.linalg import splu

    import sslviz.label_propagation as lp

    dense = _random_graph(seed=7)
    A = sp.csr_matrix(np.diag(dense.sum(axis=1) + 0.5) - dense)
    B = np.random.default_rng(0).normal(size=(12, 3))
    np.testing.assert_allclose(lp.solve_spd(A, B), np.linalg.solve(A.toarray(), B), rtol=1e-8)
    monkeypatch.setattr(lp, "_block_cg", lambda A, B, *args: (np.zeros_like(B),
                                                               np.zeros(B.shape[1], bool)))
    factorised = []
    monkeypatch.setattr(lp, "splu", lambda *a, **k: factorised.append(1) or splu(*a, **k))
    np.testing.assert_allclose(lp.solve_spd(A, B), np.linalg.solve(A.toarray(), B), rtol=1e-10)
    assert len(factorised) == 1  # one factorisation serves every failing column


def test_the_block_solver_takes_scipys_cg_steps_on_every_column():
    from scipy.sparse.linalg import LinearOperator, cg

    from sslviz.label_propagation import solve_spd

    W = knn_affinity(np.random.default_rng(3).normal(size=(200, 5)), 6, "euclidean")
    degree = np.asarray(W.sum(axis=1)).ravel()
    A = (sp.identity(200) - 0.99 * sp.diags(degree**-0.5) @ W @ sp.diags(degree**-0.5)).tocsr()
    B = np.random.default_rng(4).normal(size=(200, 4))
    B[:, 2] = 0.0  # a zero column has the zero solution
    jacobi = LinearOperator(A.shape, matvec=lambda v: np.ravel(v) / A.diagonal())
    one_by_one = np.column_stack([cg(A, B[:, j], rtol=1e-10, atol=0.0, M=jacobi)[0]
                                  for j in range(4)])
    np.testing.assert_allclose(solve_spd(A, B), one_by_one, rtol=1e-12, atol=1e-14)
    assert not solve_spd(A, B)[:, 2].any()


def test_step_summary_counts_reached_nodes_and_their_accuracy_by_hand():
    from sslviz.label_propagation import PropagationStep, step_summary
    from sslviz.trace import Trace

    steps = Trace([PropagationStep(0, np.array([0, -1, -1, -1]), np.inf, None),
                   PropagationStep(1, np.array([0, 0, -1, 1]), 0.5, None),
                   PropagationStep(2, np.array([0, 0, 1, 1]), 0.1, None)])
    reached, accuracy = step_summary(steps, np.array([0, 1, 1, 1]), np.array([1, 2, 3]))
    np.testing.assert_allclose(reached, [0, 2 / 3, 1])
    np.testing.assert_allclose(accuracy, [np.nan, 0.5, 2 / 3])


def test_euclidean_weights_are_a_gaussian_of_the_distance():
    X = np.array([[0.0, 0], [1, 0], [3, 0], [3, 1]])
    W = knn_affinity(X, n_neighbors=1, metric="euclidean").toarray()
    sigma = np.median([1, 1, 1, 1])  # each point's nearest neighbour is at distance 1
    assert W[0, 1] == pytest.approx(np.exp(-1 / (2 * sigma**2)))
    assert W[1, 2] == 0 and W[2, 3] == pytest.approx(np.exp(-0.5))


def test_euclidean_new_rows_are_weighted_by_the_graphs_width_each_on_its_own():
    # scikit-learn's check_methods_subset_invariance: the width was the median over the rows
    # predicted together, so a row's probabilities changed with the rows beside it
    X = np.array([[0.0, 0], [1, 0], [3, 0], [3, 1], [0, 1], [4, 1]])
    y = np.array([0, -1, 1, -1, 0, 1])
    model = GraphPropagation(n_neighbors=2, metric="euclidean").fit(X, y)
    new = np.array([[1.8, 0.0], [10.0, 10.0], [11.0, 11.0]])
    batch = model.predict_proba(new)
    alone = np.vstack([model.predict_proba(row[None]) for row in new])
    np.testing.assert_allclose(batch, alone, rtol=1e-12)
    assert model.sigma_ == pytest.approx(np.sqrt(2))  # second neighbours: 1, √2, √2, 1, √2, √2
    distances, neighbours = np.array([0.8, 1.2]), np.array([1, 2])  # of (1.8, 0): rows 1, 2
    weights = np.exp(-distances**2 / (2 * 2.0))
    expected = weights @ model.label_distributions_[neighbours] / weights.sum()
    np.testing.assert_allclose(batch[0], expected, rtol=1e-12)


def _with_duplicates(seed=0):
    """Rows with exact duplicates (as Senseval and WebKB hold): three copies of one row, two of
    another, and distinct rows."""
    rng = np.random.default_rng(seed)
    X = rng.poisson(1.0, size=(14, 6)).astype(float) + np.eye(14, 6)
    X[[3, 7, 11]] = X[0]
    X[[9]] = X[5]
    return X


def _brute_force_top_similarities(X, k):
    """Each row's k largest cosine similarities to the *other* rows, largest first."""
    unit = X / np.linalg.norm(X, axis=1, keepdims=True)
    similarity = unit @ unit.T
    np.fill_diagonal(similarity, -np.inf)
    return -np.sort(-similarity, axis=1)[:, :k]


@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_duplicate_rows_are_neighbours_but_no_row_is_its_own(k):
    from sslviz.label_propagation import cosine_neighbours

    X = _with_duplicates()
    similarities, neighbours = cosine_neighbours(X, k)
    assert neighbours.shape == (len(X), k)
    assert not (neighbours == np.arange(len(X))[:, None]).any()  # no self-edge
    assert all(len(set(row)) == k for row in neighbours)  # k distinct true neighbours
    np.testing.assert_allclose(similarities, _brute_force_top_similarities(X, k), atol=1e-12)
    W = knn_affinity(X, n_neighbors=k)
    assert W.diagonal().max() == 0
    np.testing.assert_allclose(W.toarray(), W.toarray().T)
    # the duplicates of row 0 (similarity 1) are its neighbours as far as k allows
    assert np.isin(neighbours[0], [3, 7, 11]).sum() == min(k, 3)


def test_euclidean_neighbours_of_duplicate_points_leave_out_the_row_itself():
    from sslviz.label_propagation import euclidean_neighbours

    X = np.array([[0, 0], [0, 0], [0, 0], [1, 0], [3, 0], [3, 0.5]], dtype=float)
    weights, neighbours = euclidean_neighbours(X, 2)
    assert not (neighbours == np.arange(len(X))[:, None]).any()
    assert sorted(neighbours[0]) == [1, 2] and sorted(neighbours[1]) == [0, 2]
    np.testing.assert_allclose(weights[:3], 1.0)  # distance 0 to a duplicate: weight 1


def test_class_mass_normalization_by_hand():
    from sslviz.label_propagation import class_mass_normalization

    # class 0 collects 2.4 of the mass, class 1 0.6; asked for equal shares, each column is
    # divided by its mass: row 1 (0.6, 0.4) becomes (0.25, 0.667) and goes to class 1
    F = np.array([[0.9, 0.1], [0.6, 0.4], [0.9, 0.1]])
    assert np.argmax(F, axis=1).tolist() == [0, 0, 0]
    assert class_mass_normalization(F, [0.5, 0.5]).tolist() == [0, 1, 0]
    assert class_mass_normalization(F, [0.8, 0.2]).tolist() == [0, 0, 0]
    with pytest.raises(ValueError, match="one non-negative prior per class"):
        class_mass_normalization(F, [1.0])


def test_rows_whose_spread_mass_is_numerically_zero_get_the_class_frequencies_not_nan():
    # a long path: with alpha = 0.01 the mass that reaches the far end is ~0.01^40, below the
    # solver's precision
    n = 60
    W = sp.diags([np.ones(n - 1), np.ones(n - 1)], [-1, 1], format="csr")
    y = np.full(n, -1)
    y[[0, 1]] = [0, 1]
    with pytest.warns(UserWarning, match="received no measurable label mass"):
        model = GraphPropagation(method="spreading", affinity="precomputed", alpha=0.01,
                                 record="none").fit(W, y)
    assert np.isfinite(model.label_distributions_).all()
    np.testing.assert_allclose(model.label_distributions_[-1], [0.5, 0.5])
    assert model.transduction_[:2].tolist() == [0, 1]


# ------------------------------------------------------------ bad affinities, extreme magnitudes


def _precomputed(seed=6):
    from sslviz.label_propagation import affinity_from_neighbours, cosine_neighbours

    X, y, _ = _two_clusters(seed=seed)
    return affinity_from_neighbours(*cosine_neighbours(X, 4), 4).toarray(), y


@pytest.mark.parametrize(("change", "message"), [
    (lambda W: W[:, :-1], r"square, symmetric, non-negative affinity matrix as X, got shape "
                          r"\(40, 39\)"),
    (lambda W: np.where(np.eye(40, k=1) + np.eye(40, k=-1) > 0, np.nan, W),
     r"Input X contains NaN"),  # scikit-learn's check of fit's input
    (lambda W: np.where(np.arange(40)[:, None] == 3, np.inf, W), r"Input X contains infinity"),
    (lambda W: -W, r"X \(the precomputed affinity matrix\) holds negative affinities \(e.g. row "
                   r"0\): every affinity must be a finite number >= 0"),
    (lambda W: np.triu(W), r"this one is not symmetric \(use W.maximum\(W.T\)"),
])
def test_a_precomputed_matrix_is_checked_and_named(change, message):
    W, y = _precomputed()
    with pytest.raises(ValueError, match=message):
        GraphPropagation(affinity="precomputed").fit(change(W), y)


@pytest.mark.parametrize(("X", "message"), [
    (np.full((2, 40), np.nan), r"the affinities of new rows to the training rows\) holds NaN "
                               r"or infinite affinities \(e.g. row 0\)"),
    (np.where(np.arange(40) == 7, np.inf, np.ones((3, 40))) * [[1], [1], [0]],
     r"the affinities of new rows to the training rows\) holds NaN or infinite affinities "
     r"\(e.g. row 0\)"),
    (-np.ones((2, 40)), r"the affinities of new rows to the training rows\) holds negative"),
    (np.ones((2, 39)), r"must have one column per training row \(40\), got shape \(2, 39\)"),
])
def test_new_rows_affinities_are_checked_and_named(X, message):
    W, y = _precomputed()
    model = GraphPropagation(affinity="precomputed").fit(W, y)
    with pytest.raises(ValueError, match=message):
        model.predict_proba(X)


def test_a_new_row_without_an_edge_is_reported_and_gets_the_class_frequencies():
    W, y = _precomputed()
    model = GraphPropagation(affinity="precomputed").fit(W, y)
    new = np.vstack([W[5], np.zeros(40)])
    with pytest.warns(UserWarning, match=r"1 row\(s\) of X have no edge to a training row "
                                         r"\(e.g. row 1\)"):
        proba = model.predict_proba(new)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_allclose(proba[1], [0.5, 0.5])  # one labeled row of each class
    np.testing.assert_allclose(proba[0], model.predict_proba(W[5:6])[0])


@pytest.mark.parametrize("method", ["harmonic", "spreading"])
@pytest.mark.parametrize("scale", [1e300, 1e-300, 2.0**1000])
def test_huge_or_tiny_affinities_give_the_same_distributions(method, scale):
    W, y = _precomputed()
    plain = GraphPropagation(method=method, affinity="precomputed", alpha=0.9).fit(W, y)
    scaled = GraphPropagation(method=method, affinity="precomputed", alpha=0.9).fit(W * scale, y)
    np.testing.assert_allclose(scaled.label_distributions_, plain.label_distributions_,
                               rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(scaled.predict_proba(W[:5] * scale), plain.predict_proba(W[:5]),
                               rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("metric", ["cosine", "euclidean"])
@pytest.mark.parametrize("scale", [1e300, 1e-300])
def test_huge_or_tiny_features_give_the_same_graph_and_predictions(metric, scale):
    X, y, _ = _two_clusters(seed=2)
    plain = GraphPropagation(n_neighbors=4, metric=metric).fit(X, y)
    for rows in (X * scale, sp.csr_matrix(X * scale)):
        scaled = GraphPropagation(n_neighbors=4, metric=metric).fit(rows, y)
        np.testing.assert_allclose(scaled.label_distributions_, plain.label_distributions_,
                                   rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(scaled.predict_proba(rows[:6]), plain.predict_proba(X[:6]),
                                   rtol=1e-9, atol=1e-12)
