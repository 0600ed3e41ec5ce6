"""TransductiveSVM against independent computations (LinearSVC, brute force, hand cases)."""

import itertools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import reference_svm_c
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import LinearSVC

from sslviz.tsvm import TransductiveSVM, _BinaryProblem, _qualifying_pairs


def gap_problem(n=200, seed=0):
    """Two tall blobs (x = ±2, spread 2 along y) with a vertical gap at x = 0.

    The six labeled rows sit at the top of the positive blob and the bottom of the negative one,
    so the SVM on them alone tilts its boundary along the diagonal, through both blobs. Returns
    ``(X, y, y_semi)`` with the labeled rows first.
    """
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = np.column_stack([np.where(y == 1, 2.0, -2.0) + rng.normal(0, 0.5, n),
                         rng.normal(0, 2.0, n)])
    X_labeled = np.array([[1.8, 3.0], [2.2, 3.5], [2.0, 2.5],
                          [-1.8, -3.0], [-2.2, -3.5], [-2.0, -2.5]])
    y_labeled = np.array([1, 1, 1, 0, 0, 0])
    return (np.vstack([X_labeled, X]), np.concatenate([y_labeled, y]),
            np.concatenate([y_labeled, np.full(n, -1)]))


def blobs(n=300, seed=0, n_labeled_per_class=2):
    """Three well separated 2-D blobs; the first rows (two per class) are labeled."""
    rng = np.random.default_rng(seed)
    centers = np.array([[0.0, 4.0], [-4.0, -2.0], [4.0, -2.0]])
    y = np.arange(n) % 3
    X = centers[y] + rng.normal(0, 0.8, (n, 2))
    y_semi = np.where(np.arange(n) < 3 * n_labeled_per_class, y, -1)
    return X, y, y_semi


def objective(w, b, X, targets, costs):
    """liblinear's primal, computed from scratch."""
    hinge = np.maximum(0, 1 - targets * (X @ w + b))
    return 0.5 * (w @ w + b * b) + costs @ hinge


def test_boundary_goes_through_the_gap_and_beats_the_inductive_svm():
    X, y, y_semi = gap_problem()
    model = TransductiveSVM(random_state=0).fit(X, y_semi)
    inductive = LinearSVC(C=1.0, loss="hinge", random_state=0).fit(X[:6], y[:6])
    (w_x, w_y), b = model.coef_[0], model.intercept_[0]
    assert abs(w_y) < 0.1 * abs(w_x)  # vertical boundary ...
    assert abs(b / w_x) < 0.5  # ... crossing the x axis inside the gap
    ind_x, ind_y = inductive.coef_[0]
    assert abs(ind_y) > abs(ind_x)  # the inductive boundary is the tilted one
    X_test, y_test, _ = gap_problem(1000, seed=1)
    assert model.score(X_test[6:], y_test[6:]) >= 0.97
    assert model.score(X_test[6:], y_test[6:]) > inductive.score(X_test[6:], y_test[6:]) + 0.1
    np.testing.assert_array_equal(model.transduction_[:6], y[:6])
    assert np.mean(model.transduction_ == y) >= 0.97


@pytest.mark.parametrize("fraction", [0.3, 0.5, 0.62])
def test_transduction_has_the_requested_positive_fraction(fraction):
    X, _, y_semi = gap_problem()
    model = TransductiveSVM(positive_fraction=fraction, random_state=0).fit(X, y_semi)
    unlabeled = y_semi == -1
    assert np.sum(model.transduction_[unlabeled] == 1) == round(fraction * unlabeled.sum())
    assert set(model.trace_.values("n_positive")) == {round(fraction * unlabeled.sum())}


def test_default_positive_fraction_is_the_labeled_one():
    X, _, y_semi = gap_problem()
    y_semi = y_semi.copy()
    y_semi[0] = -1  # labeled: 2 positives, 3 negatives -> num+ = round(0.4 * 201)
    model = TransductiveSVM(random_state=0).fit(X, y_semi)
    unlabeled = y_semi == -1
    assert np.sum(model.transduction_[unlabeled] == 1) == round(0.4 * 201)


@pytest.mark.parametrize("make", [gap_problem, blobs])
def test_without_unlabeled_rows_it_is_linear_svc(make):
    X, y, y_semi = make()
    labeled = y_semi != -1
    model = TransductiveSVM(C=0.5, tol=1e-10, random_state=0).fit(X[labeled], y[labeled])
    reference = LinearSVC(C=0.5, loss="hinge", tol=1e-10, max_iter=100_000, random_state=3)
    reference.fit(X[labeled], y[labeled])
    np.testing.assert_allclose(model.coef_, reference.coef_, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(model.intercept_, reference.intercept_, rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(model.predict(X), reference.predict(X))
    assert np.all(model.n_iter_ == 1) and len(model.trace_ if make is gap_problem
                                              else model.trace_[0]) == 1


def test_each_switch_swaps_one_positive_and_one_negative():
    X, _, y_semi = gap_problem()
    model = TransductiveSVM(random_state=0, record="full").fit(X, y_semi)
    trace = model.trace_
    assert trace.values("n_switched").sum() > 0  # the run does switch labels
    for before, after in itertools.pairwise(trace):
        to_negative = np.sum((before.unlabeled_labels == 1) & (after.unlabeled_labels == -1))
        to_positive = np.sum((before.unlabeled_labels == -1) & (after.unlabeled_labels == 1))
        assert to_negative == to_positive == after.n_switched
    assert len(set(trace.values("n_positive"))) == 1


def test_recorded_objective_is_the_primal_and_never_increases_within_a_stage():
    X, _, y_semi = gap_problem(seed=2)
    C = 0.7
    model = TransductiveSVM(C=C, C_unlabeled=0.4, record="full", random_state=0).fit(X, y_semi)
    labeled = y_semi != -1
    X_sorted = np.vstack([X[labeled], X[~labeled]])
    signs = np.where(y_semi[labeled] == 1, 1, -1)
    for step in model.trace_:
        costs = np.concatenate([np.full(labeled.sum(), C),
                                np.where(step.unlabeled_labels == 1, step.C_positive,
                                         step.C_negative)])
        targets = np.concatenate([signs, step.unlabeled_labels])
        assert step.objective == pytest.approx(
            objective(step.coef, step.intercept, X_sorted, targets, costs), rel=1e-10)
    stages = model.trace_.values("stage")
    values = model.trace_.values("objective")
    assert any(np.sum(stages == s) > 1 for s in set(stages))  # some stage has switches
    for s in set(stages):
        assert np.all(np.diff(values[stages == s]) <= 0)


def test_unlabeled_costs_double_up_to_c_unlabeled():
    X, _, y_semi = gap_problem()
    model = TransductiveSVM(C_unlabeled=0.4, positive_fraction=0.2, random_state=0).fit(X, y_semi)
    first = {}
    for step in model.trace_[1:]:
        first.setdefault(step.stage, step)
    c_neg = np.array([first[s].C_negative for s in sorted(first)])
    c_pos = np.array([first[s].C_positive for s in sorted(first)])
    n_pos = round(0.2 * 200)
    assert c_neg[0] == pytest.approx(1e-5 * 0.4)
    assert c_pos[0] == pytest.approx(1e-5 * 0.4 * n_pos / (200 - n_pos))
    np.testing.assert_allclose(c_neg, np.minimum(c_neg[0] * 2.0 ** np.arange(len(c_neg)), 0.4))
    np.testing.assert_allclose(c_pos, np.minimum(c_pos[0] * 2.0 ** np.arange(len(c_pos)), 0.4))
    assert c_neg[-1] == c_pos[-1] == 0.4 and c_pos[-2] < 0.4  # the last stage runs at C*


def test_no_qualifying_pair_is_left_at_the_end():
    """Brute force over all (positive, negative) pairs of the final labeling."""
    X, _, y_semi = gap_problem(seed=3)
    model = TransductiveSVM(random_state=0).fit(X, y_semi)
    assert model.converged_.all()
    labels = model.trace_[-1].unlabeled_labels
    slack = np.maximum(0, 1 - labels * model.decision_function(X[y_semi == -1]))
    pos, neg = slack[(labels == 1) & (slack > 0)], slack[(labels == -1) & (slack > 0)]
    assert not np.any(pos[:, None] + neg[None, :] > 2)


def text_like_problem(n=800, n_features=400, n_labeled=60, seed=0):
    """Sparse unit-length rows (word counts of a hidden linear rule); the first rows labeled ±1."""
    rng = np.random.default_rng(seed)
    X = sp.random(n, n_features, density=0.03, random_state=seed, format="csr",
                  data_rvs=lambda k: rng.poisson(2, k) + 1.0)
    X = sp.diags(1.0 / np.maximum(np.sqrt(X.multiply(X).sum(axis=1).A.ravel()), 1e-12)) @ X
    signs = np.where(X @ rng.normal(size=n_features) > 0, 1, -1)
    return X.tocsr(), np.arange(n_labeled), np.arange(n_labeled, n), signs


@pytest.mark.parametrize("c_unlabeled", [1e-3, 0.3, 1.0])
def test_working_set_retrain_matches_liblinear_on_all_rows(c_unlabeled):
    """Rows guessed at a bound (aggregated) or left out, then checked: the optimum of all rows."""
    X, labeled, unlabeled, signs = text_like_problem()
    problem = _BinaryProblem(X, labeled, unlabeled, signs[labeled], C=1.0)
    start = problem.model(*_inductive(X[labeled], signs[labeled]))
    labels = np.where(start.decision[len(labeled):] > np.median(start.decision), 1, -1)
    labels = labels.astype(np.int8)

    def svm():
        return LinearSVC(C=1.0, loss="hinge", tol=1e-8, max_iter=100_000, random_state=0)

    reduced = problem.train(svm(), labels, c_unlabeled, c_unlabeled, start=start)
    assert max(problem.fit_sizes) < X.shape[0]  # the shortcut really fitted fewer rows
    targets = np.concatenate([signs[labeled], labels])
    costs = np.concatenate([np.ones(len(labeled)), np.full(len(unlabeled), c_unlabeled)])
    full = svm().fit(X, targets, sample_weight=costs)  # independent: liblinear, every row
    w, b = full.coef_.ravel(), full.intercept_[0]
    assert problem.objective(reduced, labels, c_unlabeled, c_unlabeled) == pytest.approx(
        objective(w, b, X, targets, costs), rel=1e-6)
    np.testing.assert_allclose(reduced.decision, X @ w + b, atol=1e-3)


def _inductive(X, y):
    svm = LinearSVC(C=1.0, loss="hinge", random_state=0).fit(X, y)
    return svm.coef_.ravel(), float(svm.intercept_[0])


def test_aggregated_row_updated_in_place_equals_the_sum_over_all_rows():
    """Few changed weights: the sum is updated from the last one; many: recomputed. Both equal
    the product over every row, also after a long chain of updates."""
    X, labeled, unlabeled, signs = text_like_problem()
    problem = _BinaryProblem(X, labeled, unlabeled, signs[labeled], C=1.0)
    rng = np.random.default_rng(0)
    weights = rng.normal(size=X.shape[0]) * (rng.random(X.shape[0]) < 0.5)
    for step in range(40):
        changed = rng.choice(X.shape[0], size=5 if step % 10 else X.shape[0], replace=False)
        weights = weights.copy()
        weights[changed] = rng.normal(size=len(changed)) * (rng.random(len(changed)) < 0.5)
        pull = problem._pull(weights)
        np.testing.assert_allclose(pull, problem.X_bias.T @ weights, rtol=1e-10, atol=1e-12)
    assert problem._pulled[0] is weights


def test_qualifying_pairs_hand_case():
    labels = np.array([1, 1, 1, -1, -1, -1], dtype=np.int8)
    # positives by slack: row 0 (3.0), row 1 (1.3); negatives: row 3 (1.6), row 4 (0.6)
    slacks = np.array([3.0, 1.3, 0.0, 1.6, 0.6, 0.2])
    pos, neg = _qualifying_pairs(slacks, labels)
    np.testing.assert_array_equal(pos, [0])
    np.testing.assert_array_equal(neg, [3])
    pos, neg = _qualifying_pairs(np.array([3.0, 1.5, 0.0, 1.6, 0.6, 0.2]), labels)
    np.testing.assert_array_equal(pos, [0, 1])  # 1.5 + 0.6 > 2: second pair qualifies
    np.testing.assert_array_equal(neg, [3, 4])
    assert len(_qualifying_pairs(np.array([0.9, 0.9, 0.9, 1.0, 1.0, 1.0]), labels)[0]) == 0


def test_max_iter_caps_the_retrains_of_a_stage():
    X, _, y_semi = gap_problem()
    model = TransductiveSVM(max_iter=1, random_state=0).fit(X, y_semi)
    assert model.trace_.values("n_switched").sum() == 0
    assert not model.converged_[0]


def test_multiclass_is_one_vs_rest():
    X, y, y_semi = blobs()
    model = TransductiveSVM(random_state=0).fit(X, y_semi)
    scores = model.decision_function(X)
    assert scores.shape == (len(X), 3) and model.coef_.shape == (3, 2)
    assert model.intercept_.shape == model.n_iter_.shape == (3,)
    np.testing.assert_array_equal(model.predict(X), model.classes_[np.argmax(scores, axis=1)])
    np.testing.assert_allclose(scores, X @ model.coef_.T + model.intercept_)
    assert isinstance(model.trace_, tuple) and len(model.trace_) == 3
    k = np.sum(y_semi == -1)
    for trace in model.trace_:
        assert set(trace.values("n_positive")) == {round(k / 3)}
    unlabeled = y_semi == -1
    np.testing.assert_array_equal(model.transduction_[unlabeled], model.predict(X[unlabeled]))
    assert np.mean(model.predict(X) == y) > 0.95


def test_binary_decision_function_is_one_dimensional():
    X, _, y_semi = gap_problem()
    model = TransductiveSVM(random_state=0).fit(X, y_semi)
    scores = model.decision_function(X)
    assert scores.shape == (len(X),)
    np.testing.assert_array_equal(model.predict(X), np.where(scores > 0, 1, 0))


def test_same_random_state_same_result_and_sparse_equals_dense():
    X, _, y_semi = blobs(seed=4)
    first = TransductiveSVM(random_state=5).fit(X, y_semi)
    second = TransductiveSVM(random_state=5).fit(X, y_semi)
    sparse = TransductiveSVM(random_state=5).fit(sp.csr_matrix(X), y_semi)
    np.testing.assert_array_equal(first.coef_, second.coef_)
    np.testing.assert_array_equal(first.transduction_, second.transduction_)
    for a, b in zip(first.trace_, second.trace_, strict=True):
        np.testing.assert_array_equal(a.values("objective"), b.values("objective"))
    np.testing.assert_allclose(sparse.coef_, first.coef_, rtol=1e-8)
    np.testing.assert_array_equal(sparse.transduction_, first.transduction_)
    parallel = TransductiveSVM(random_state=5, n_jobs=2).fit(X, y_semi)
    np.testing.assert_array_equal(parallel.coef_, first.coef_)


def test_string_labels_and_explicit_classes():
    X, y, y_semi = blobs()
    names = np.array(["a", "b", "c"], dtype=object)
    y_named = np.where(y_semi == -1, -1, names[y]).astype(object)
    model = TransductiveSVM(random_state=0, classes=names).fit(X, y_named)
    assert list(model.classes_) == ["a", "b", "c"]
    assert set(model.transduction_) == {"a", "b", "c"}
    np.testing.assert_array_equal(model.predict(X), names[TransductiveSVM(random_state=0)
                                                         .fit(X, y_semi).predict(X)])


@pytest.mark.parametrize("y_change, params, message", [
    (lambda y: np.full_like(y, -1), {}, "no labeled rows: every entry of y is -1"),
    (lambda y: np.where(y == 2, -1, y), {"classes": [0, 1, 2]},
     r"no labeled row for class\(es\) \[2\]"),
    (lambda y: np.where(y == 2, 7, y), {"classes": [0, 1, 2]},
     r"y holds labels \[7\] that are not in classes=\[0, 1, 2\]"),
    (lambda y: np.where(y > 0, -1, y), {},
     r"only 1 class\(es\) among the labeled rows \(\[0\]\): this model needs at least 2"),
    (lambda y: np.where(y == 2, 7, y).astype(str), {},
     "y holds the string '-1', which would become a class"),
    (lambda y: y, {"C": 0}, "C must be a finite number > 0, got 0"),
    (lambda y: y, {"C": True}, "C must be a finite number > 0, got True"),
    (lambda y: y, {"C_unlabeled": -1.0}, "C_unlabeled must be a finite number > 0, got -1.0"),
    (lambda y: y, {"positive_fraction": [0.2, 1.0, 0.3]},
     r"positive_fraction must lie strictly between 0 and 1, got \[0.2, 1.0, 0.3\]"),
    (lambda y: y, {"positive_fraction": 0.3},
     "positive_fraction must hold 3 fractions for 3 classes"),
    (lambda y: np.where(y == 2, -1, y), {"positive_fraction": 0.0},
     "positive_fraction must lie strictly between 0 and 1, got 0.0"),
    (lambda y: np.where(y == 2, -1, y), {"positive_fraction": [0.3, 0.7]},
     "positive_fraction must be one number for a binary problem"),
    (lambda y: y, {"max_iter": 0}, "max_iter must be an integer >= 1, got 0"),
    (lambda y: y, {"tol": 0}, "tol must be a finite number > 0, got 0"),
    (lambda y: y, {"record": "all"}, r"record must be one of \['full', 'summary'\], got 'all'"),
])
def test_bad_input_errors(y_change, params, message):
    X, _, y_semi = blobs()
    with pytest.raises(ValueError, match=message):
        TransductiveSVM(**params).fit(X, y_change(y_semi))


def test_unfitted_model_refuses_to_predict():
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        TransductiveSVM().predict(np.zeros((2, 2)))


def test_unlabeled_documents_help_on_20_newsgroups(real_data_dir):
    """Four newsgroups, 40 labeled and 1500 unlabeled tf-idf documents: TSVM beats the SVM."""
    from sklearn.feature_extraction.text import TfidfTransformer

    from sslviz.splits import split_labeled
    from sslviz.text import load_counts

    groups = ["comp.graphics", "rec.autos", "sci.med", "talk.politics.guns"]
    corpus = load_counts("20newsgroups", use_cache=False, categories=groups,
                         data_dir=str(real_data_dir))
    X = TfidfTransformer().fit_transform(corpus.X).tocsr()
    split = split_labeled(corpus.y, 40, n_unlabeled=1500, n_test=1000, random_state=0)
    model = TransductiveSVM(random_state=0).fit(X[split.train],
                                                split.semi_supervised_targets(corpus.y))
    svm = LinearSVC(C=1.0, loss="hinge", random_state=0).fit(X[split.labeled],
                                                             corpus.y[split.labeled])
    y_test = corpus.y[split.test]
    assert model.score(X[split.test], y_test) > svm.score(X[split.test], y_test) + 0.05


# -- the inductive baseline: C chosen on the labeled rows, text features -------------------------
def test_linear_svm_chooses_C_as_scikit_learn_grid_search_does():
    from sslviz.linear_svm import C_GRID, choose_svm_c, linear_svm

    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 5))
    y = (X[:, 0] + 0.8 * rng.normal(size=60) > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        folds = list(StratifiedKFold(5, shuffle=True, random_state=7).split(X, y))
        expected, values = reference_svm_c(X, y, C_GRID, folds)
        choice = choose_svm_c(X, y, random_state=7)
        svm = linear_svm(X, y, random_state=7)
        reference = LinearSVC(loss="hinge", C=expected, max_iter=10_000, random_state=0).fit(X, y)
    assert choice.value == svm.C == expected
    assert [c["C"] for c in choice.candidates] == values  # the grid, extended as the reference's
    assert not choice.at_bound and 0 < values.index(expected) < len(values) - 1
    assert choice.criterion == "5-fold cv balanced_accuracy (ties: hinge loss)"
    np.testing.assert_array_equal(svm.coef_, reference.coef_)
    assert linear_svm(X, y, C=0.5).C == 0.5  # a given C is used as it is


def test_a_C_that_stops_at_its_bound_is_flagged_and_used_only_once_acknowledged(monkeypatch):
    from sslviz.claims import EdgeNotAcknowledged
    from sslviz.linear_svm import C_GRID, choose_svm_c
    from sslviz.tuning import PARAMETER_KINDS

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = rng.integers(0, 2, 40)  # labels unrelated to X: the smallest C is as good as any
    folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        expected, values = reference_svm_c(X, y, C_GRID, folds)
        choice = choose_svm_c(X, y, random_state=0)
        acknowledged = choose_svm_c(X, y, random_state=0, edge_reason="shown as an edge")
    assert expected == values[0] == PARAMETER_KINDS["C"].lower == 1e-4
    assert choice.at_bound and choice.params == {"C": expected}
    assert choice.edge_message.startswith("C = 0.0001 is at the lower bound of its grid")
    monkeypatch.setenv("SSLVIZ_STRICT_CLAIMS", "1")
    with pytest.raises(EdgeNotAcknowledged, match="acknowledge it with choice.acknowledge_edge"):
        choice.value  # noqa: B018
    assert acknowledged.value == expected and acknowledged.acknowledged == "shown as an edge"


def test_text_features_scale_rows_to_unit_length_with_or_without_idf():
    from sklearn.feature_extraction.text import TfidfTransformer

    from sslviz.linear_svm import text_features

    counts = sp.csr_matrix(np.array([[3, 0, 1], [0, 2, 2], [1, 1, 0]], dtype=float))
    (tf,) = text_features(counts[:2], counts, kind="tf")
    np.testing.assert_allclose(tf.toarray()[0], np.array([3, 0, 1]) / np.sqrt(10))
    train, test = text_features(counts[:2], counts[:2], counts[2:])
    idf = TfidfTransformer().fit(counts[:2]).idf_  # smoothed idf of the first two rows only
    np.testing.assert_allclose(idf, 1 + np.log(3 / np.array([2, 2, 3])))
    expected = np.array([1, 1, 0]) * idf
    np.testing.assert_allclose(test.toarray()[0], expected / np.linalg.norm(expected))
    np.testing.assert_allclose(np.linalg.norm(train.toarray(), axis=1), 1)
    with pytest.raises(ValueError, match=r"^kind must be one of \['tfidf', 'tf'\], got 'bm25'"):
        text_features(counts, counts, kind="bm25")
