"""Property-based tests (Hypothesis) of every estimator on arbitrary small inputs.

For random sparse count matrices (empty rows and columns allowed) and random targets (integer or
string classes, any number of ``-1``, one class or none, NaN or the string ``"-1"`` now and then)
each estimator either

* fits, and then its probabilities are finite, non-negative and sum to one per row (its
  transform is finite, for the transformers), its classes are those of the labeled rows (never
  the unlabeled marker), and fitting again with the same seed gives exactly the same result
  (margin-only models, TransductiveSVM and SpectralGraphTransducer, give finite decision values
  instead of probabilities); or
* raises a ``ValueError`` whose message names the problem (a word about labels, classes, rows
  or features) -- never another exception, never a silent NaN.

Inputs are kept tiny so that the whole file runs in seconds (``max_examples`` per estimator is
:data:`EXAMPLES`, 15 for the slower ones (``SLOW``); ``deadline=None`` because a first fit may
compile or warm caches).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.naive_bayes import MultinomialNB

from sslviz.cem import GaussianCEM
from sslviz.co_training import CoTraining
from sslviz.decision_list import DecisionList
from sslviz.em import SemiSupervisedNB
from sslviz.entropy_reg import EntropyRegularizedLR
from sslviz.feature_selection import METHODS, FeatureSelector
from sslviz.fisher import FisherKernelNB
from sslviz.hybrid import HybridNB
from sslviz.kernel_expansion import KernelExpansion, KernelExpansionClassifier
from sslviz.label_propagation import GraphPropagation
from sslviz.logistic_cem import LogisticCEM
from sslviz.self_training import SelfTraining
from sslviz.sgt import SpectralGraphTransducer
from sslviz.tsvm import TransductiveSVM
from sslviz.yarowsky import Yarowsky

EXAMPLES = 40
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
# What a refusal must talk about (the message names the problem).
TOPICS = ("label", "class", "row", "sample", "feature", "y ", "y:", "-1", "column", "document",
          "example", "instance", "seed", "count", "word")
STRING_CLASSES = np.array(["ham", "spam", "eggs"], dtype=object)


@st.composite
def count_matrices(draw, max_rows=10, max_cols=6):
    """A sparse (csr) matrix of small counts; most entries 0, so empty rows/columns occur."""
    n_rows = draw(st.integers(1, max_rows))
    n_cols = draw(st.integers(1, max_cols))
    cells = draw(st.lists(st.sampled_from([0, 0, 0, 1, 2, 5]), min_size=n_rows * n_cols,
                          max_size=n_rows * n_cols))
    return sp.csr_matrix(np.array(cells, dtype=np.float64).reshape(n_rows, n_cols))


@st.composite
def targets(draw, n_rows):
    """Labels with ``-1`` for unlabeled rows: ints, strings (object dtype, the number -1) or,
    now and then, a pure string array holding ``"-1"`` or a float array holding NaN."""
    kind = draw(st.sampled_from(["int", "int", "str", "str", "str-minus-one", "nan"]))
    n_classes = draw(st.integers(1, 3))
    codes = np.array(draw(st.lists(st.integers(-1, n_classes - 1), min_size=n_rows,
                                   max_size=n_rows)))
    if kind == "int":
        return codes
    if kind == "nan":
        y = codes.astype(float)
        y[draw(st.integers(0, n_rows - 1))] = np.nan
        return y
    y = np.where(codes >= 0, STRING_CLASSES[np.maximum(codes, 0)], -1).astype(object)
    if kind == "str-minus-one":
        return y.astype(str)  # what np.asarray(['spam', -1]) makes: the string '-1'
    return y


@st.composite
def problems(draw, max_rows=10, max_cols=6):
    X = draw(count_matrices(max_rows, max_cols))
    return X, draw(targets(X.shape[0])), draw(st.integers(0, 2**16))


def fit_or_refuse(make, X, y):
    """The fitted estimator, or None if it refused with a ValueError that names the problem."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (ConvergenceWarning, UserWarning, RuntimeWarning))
        try:
            model = make().fit(X, y)
        except ValueError as error:
            message = str(error).lower()
            assert message and any(topic in message for topic in TOPICS), message
            event("refused")
            return None
    event("fitted")
    return model


def labeled_classes(y):
    """The distinct classes of the labeled rows (``-1`` = unlabeled)."""
    labeled = np.array([not (isinstance(v, int | np.integer | float) and v == -1) for v in y])
    return sorted(set(np.asarray(y, dtype=object)[labeled].tolist()), key=str)


def assert_probabilities(proba, n_rows, n_classes):
    assert proba.shape == (n_rows, n_classes)
    assert np.all(np.isfinite(proba)) and np.all(proba >= 0)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-9, atol=1e-12)


def assert_classifier(make, X, y):
    """The shared property of the probabilistic classifiers; returns the fitted model."""
    model = fit_or_refuse(make, X, y)
    if model is None:
        return None
    assert -1 not in model.classes_.tolist()
    assert sorted(model.classes_.tolist(), key=str) == labeled_classes(y)
    proba = model.predict_proba(X)
    assert_probabilities(proba, X.shape[0], len(model.classes_))
    np.testing.assert_array_equal(model.predict(X), model.classes_[proba.argmax(axis=1)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (ConvergenceWarning, UserWarning, RuntimeWarning))
        again = make().fit(X, y)
    np.testing.assert_array_equal(again.predict_proba(X), proba)  # same seed, same result
    return model


def assert_margins(make, X, y):
    """Margin-only models: finite decision values, labels among the labeled classes, seeded."""
    model = fit_or_refuse(make, X, y)
    if model is None:
        return
    assert -1 not in model.classes_.tolist()
    assert sorted(model.classes_.tolist(), key=str) == labeled_classes(y)
    scores = model.decision_function(X)
    assert np.all(np.isfinite(scores))
    assert set(model.predict(X).tolist()) <= set(model.classes_.tolist())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (ConvergenceWarning, UserWarning, RuntimeWarning))
        np.testing.assert_array_equal(make().fit(X, y).decision_function(X), scores)


# -- the estimators -------------------------------------------------------------------------------
@SETTINGS
@given(problems())
def test_semi_supervised_nb(problem):
    X, y, seed = problem
    assert_classifier(lambda: SemiSupervisedNB(max_iter=3, random_state=seed), X, y)


@SETTINGS
@given(problems())
def test_self_training(problem):
    X, y, _ = problem
    assert_classifier(lambda: SelfTraining(MultinomialNB(), max_iter=3), X, y)


@SETTINGS
@given(problems())
def test_yarowsky(problem):
    X, y, _ = problem
    assert_classifier(lambda: Yarowsky(max_iter=3), X, y)


@SETTINGS
@given(problems())
def test_decision_list(problem):
    """Supervised: every row is labeled (here ``-1`` is an ordinary class, see the report)."""
    X, y, _ = problem
    model = fit_or_refuse(DecisionList, X, y)
    if model is not None:
        proba = model.predict_proba(X)
        assert_probabilities(proba, X.shape[0], len(model.classes_))
        np.testing.assert_array_equal(DecisionList().fit(X, y).predict_proba(X), proba)


@SETTINGS
@given(problems())
def test_transductive_svm(problem):
    """No probabilities: finite decision values, labels among the labeled classes, seeded."""
    X, y, seed = problem
    assert_margins(lambda: TransductiveSVM(max_iter=3, random_state=seed), X, y)


@SETTINGS
@given(problems(), st.sampled_from(["n-cat", "ul-cat", "ul-cl"]))
def test_fisher_kernel_nb(problem, variant):
    """Fisher scores: finite, each row of unit length (or zero), seeded."""
    X, y, seed = problem
    make = lambda: FisherKernelNB(variant=variant, max_iter=3, random_state=seed)  # noqa: E731
    model = fit_or_refuse(make, X, y)
    if model is None:
        return
    scores = model.transform(X).toarray()
    assert scores.shape == (X.shape[0], model.n_features_out_)
    assert np.all(np.isfinite(scores))
    norms = np.linalg.norm(scores, axis=1)
    assert np.all(np.isclose(norms, 1.0) | np.isclose(norms, 0.0)), norms
    np.testing.assert_array_equal(make().fit(X, y).transform(X).toarray(), scores)


@SETTINGS
@given(problems(), st.sampled_from(METHODS), st.integers(1, 6) | st.none())
def test_feature_selector(problem, method, n_features):
    X, y, _ = problem
    make = lambda: FeatureSelector(method=method, n_features=n_features)  # noqa: E731
    model = fit_or_refuse(make, X, y)
    if model is None:
        return
    kept = len(model.ranking_)
    assert kept == (X.shape[1] if n_features is None else n_features)
    assert len(set(model.ranking_.tolist())) == kept
    assert model.transform(X).shape == (X.shape[0], kept)
    assert np.all(np.isfinite(model.scores_) | (model.scores_ == -np.inf))
    np.testing.assert_array_equal(make().fit(X, y).ranking_, model.ranking_)


SLOW = settings(SETTINGS, max_examples=15)


def with_a_word_per_row(X):
    """``X`` with one more count of the row's index word, so that no row is empty."""
    n_rows, n_cols = X.shape
    return X + sp.csr_matrix((np.ones(n_rows), (np.arange(n_rows), np.arange(n_rows) % n_cols)),
                             shape=X.shape)


@SETTINGS
@given(problems(), st.sampled_from(["hard", "soft"]))
def test_gaussian_cem(problem, assignment):
    X, y, seed = problem
    assert_classifier(lambda: GaussianCEM(assignment=assignment, max_iter=3, reg_covar=1e-3,
                                          random_state=seed), X.toarray(), y)


@SLOW
@given(problems(), st.sampled_from(["hard", "soft"]))
def test_logistic_cem(problem, assignment):
    X, y, seed = problem
    assert_classifier(lambda: LogisticCEM(assignment=assignment, max_iter=3, random_state=seed),
                      X, y)


@SETTINGS
@given(problems())
def test_hybrid_nb(problem):
    X, y, _ = problem
    assert_classifier(lambda: HybridNB(max_iter=3), X, y)


@SLOW
@given(problems(), st.sampled_from(["em", "med"]))
def test_kernel_expansion_classifier(problem, method):
    X, y, _ = problem
    assert_classifier(lambda: KernelExpansionClassifier(method, max_iter=5), X.toarray(), y)


@SETTINGS
@given(problems())
def test_kernel_expansion(problem):
    """The transformer: finite features, one column per training row, the same on a refit."""
    X, y, _ = problem
    model = fit_or_refuse(lambda: KernelExpansion(sigma=1.0), X.toarray(), y)
    if model is None:
        return
    features = model.transform(X.toarray())
    assert features.shape[0] == X.shape[0] and np.all(np.isfinite(features))
    np.testing.assert_array_equal(KernelExpansion(sigma=1.0).fit(X.toarray(), y)
                                  .transform(X.toarray()), features)


@SLOW
@given(problems())
def test_entropy_regularized_lr(problem):
    X, y, _ = problem
    assert_classifier(lambda: EntropyRegularizedLR(entropy_weight=0.1, max_iter=20), X, y)


@SETTINGS
@given(problems(), st.sampled_from(["harmonic", "spreading"]))
def test_graph_propagation(problem, method):
    X, y, _ = problem
    X = with_a_word_per_row(X)  # empty rows have no neighbours and are refused by name
    assert_classifier(lambda: GraphPropagation(method=method, n_neighbors=2), X, y)


@SETTINGS
@given(problems())
def test_spectral_graph_transducer(problem):
    X, y, _ = problem
    X = with_a_word_per_row(X)
    assert_margins(lambda: SpectralGraphTransducer(n_neighbors=2, n_components=2, c=10.0), X, y)


@SETTINGS
@given(problems(), st.sampled_from(["co", "self"]))
def test_co_training(problem, mode):
    X, y, seed = problem
    assert_classifier(lambda: CoTraining(n_view0_features=1, pool_size=3, max_iter=2, mode=mode,
                                         random_state=seed), X, y)


# -- targets every semi-supervised estimator must refuse, by name ---------------------------------
SEMI_SUPERVISED = {
    "SemiSupervisedNB": lambda: SemiSupervisedNB(max_iter=2),
    "SelfTraining": lambda: SelfTraining(MultinomialNB(), max_iter=2),
    "Yarowsky": lambda: Yarowsky(max_iter=2),
    "TransductiveSVM": lambda: TransductiveSVM(max_iter=2),
    "FisherKernelNB": lambda: FisherKernelNB(max_iter=2),
    "FeatureSelector": lambda: FeatureSelector(method="chi2"),
    "GraphPropagation": lambda: GraphPropagation(n_neighbors=1),
    "CoTraining": lambda: CoTraining(n_view0_features=2, max_iter=1),
}
X_SMALL = sp.csr_matrix(np.array([[1, 0, 2], [0, 1, 1], [2, 1, 0], [0, 0, 1]], dtype=float))


@pytest.mark.parametrize("name", SEMI_SUPERVISED)
@pytest.mark.parametrize(("y", "message"), [
    (np.asarray(["spam", -1, "ham", "spam"]), "string '-1'"),
    (np.array([0.0, np.nan, 1.0, -1.0]), "NaN"),
    (np.array(["spam", None, "ham", -1], dtype=object), "missing labels"),
])
def test_a_marker_that_would_become_a_class_is_refused(name, y, message):
    with pytest.raises(ValueError, match=message):
        SEMI_SUPERVISED[name]().fit(X_SMALL, y)


# -- defect 6 of issue 13: non-finite or negative hyper-parameters ---------------------------------
@pytest.mark.parametrize(("make", "name"), [
    (lambda v: SemiSupervisedNB(alpha=v), "alpha"),
    (lambda v: SemiSupervisedNB(tol=v), "tol"),
    (lambda v: FisherKernelNB(alpha=v), "alpha"),
    (lambda v: FisherKernelNB(tol=v), "tol"),
    (lambda v: DecisionList(alpha=v), "alpha"),
    (lambda v: Yarowsky(alpha=v), "alpha"),
    (lambda v: TransductiveSVM(tol=v), "tol"),
    (lambda v: TransductiveSVM(C=v), "C"),
])
@pytest.mark.parametrize("value", [np.inf, np.nan, -1.0])
def test_non_finite_or_negative_smoothing_and_tolerance_are_refused(make, name, value):
    y = np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match=rf"^{name} must be a finite number"):
        make(value).fit(X_SMALL, y)


def test_annealing_with_nan_is_refused():
    with pytest.raises(ValueError, match="annealing must be an increasing sequence"):
        SemiSupervisedNB(annealing=(np.nan, 1.0)).fit(X_SMALL, np.array([0, 1, -1, -1]))


# -- issue 22: one label rule, whatever form the labels come in -----------------------------------
def _output(model, X):
    """What a fitted estimator gives back: probabilities, decision values or features."""
    for method in ("predict_proba", "decision_function", "transform", "get_support"):
        if hasattr(model, method):
            result = getattr(model, method)(X) if method != "get_support" else model.ranking_
            return result.toarray() if sp.issparse(result) else np.asarray(result)
    raise AssertionError(type(model).__name__)


# name: (factory, needs dense X); every public estimator that takes labels
EVERY_ESTIMATOR = {
    "SemiSupervisedNB": (lambda: SemiSupervisedNB(max_iter=2), False),
    "SelfTraining": (lambda: SelfTraining(MultinomialNB(), max_iter=2), False),
    "Yarowsky": (lambda: Yarowsky(max_iter=2), False),
    "DecisionList": (DecisionList, False),
    "TransductiveSVM": (lambda: TransductiveSVM(max_iter=2, random_state=0), False),
    "FisherKernelNB": (lambda: FisherKernelNB(max_iter=2), False),
    "FeatureSelector": (lambda: FeatureSelector(method="chi2"), False),
    "GaussianCEM": (lambda: GaussianCEM(max_iter=2, reg_covar=1e-3), True),
    "LogisticCEM": (lambda: LogisticCEM(max_iter=2), False),
    "HybridNB": (lambda: HybridNB(max_iter=2), False),
    "KernelExpansionClassifier": (lambda: KernelExpansionClassifier(max_iter=5), True),
    "KernelExpansion": (KernelExpansion, True),
    "EntropyRegularizedLR": (EntropyRegularizedLR, False),
    "GraphPropagation": (lambda: GraphPropagation(n_neighbors=2), False),
    "SpectralGraphTransducer": (lambda: SpectralGraphTransducer(n_neighbors=2, n_components=3,
                                                                c=10.0), False),
    "CoTraining": (lambda: CoTraining(n_view0_features=2, pool_size=2, max_iter=1,
                                      random_state=0), False),
}
X_LABELS = sp.csr_matrix(np.array([[3, 0, 1, 0], [2, 1, 0, 0], [0, 2, 0, 3], [0, 3, 1, 2],
                                   [4, 0, 0, 1], [0, 1, 0, 4], [1, 1, 1, 1], [2, 0, 2, 0]],
                                  dtype=float))
CODES = np.array([0, 0, 1, 1, -1, -1, -1, -1])


def _fit_output(name, y, X=X_LABELS):
    make, dense = EVERY_ESTIMATOR[name]
    X = X.toarray() if dense else X
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (ConvergenceWarning, UserWarning, RuntimeWarning))
        model = make().fit(X, y)
    return model, _output(model, X)


def _forms(codes):
    """The same target in the forms users pass: object ints, a list, object strings."""
    names = np.array(["c0", "c1", "c2"], dtype=object)
    return {"object ints": codes.astype(object),
            "list": codes.tolist(),
            "numpy ints as objects": np.array([np.int32(c) for c in codes], dtype=object),
            "object strings": np.where(codes >= 0, names[np.maximum(codes, 0)], -1).astype(object)}


@pytest.mark.parametrize("name", EVERY_ESTIMATOR)
@pytest.mark.parametrize("form", list(_forms(CODES)))
def test_every_label_form_gives_the_fit_of_integer_labels(name, form):
    """Object arrays of ints (what a pandas column gives) or strings fit exactly as ints do."""
    if name == "DecisionList" and form == "object strings":
        pytest.skip("supervised: -1 is a class there, strings and -1 do not mix (tested above)")
    y = _forms(CODES)[form]
    model, output = _fit_output(name, y)
    _, expected = _fit_output(name, CODES)
    np.testing.assert_array_equal(output, expected)
    if hasattr(model, "classes_"):
        assert -1 not in model.classes_.tolist() or name == "DecisionList"
        if form != "object strings":
            assert model.classes_.dtype.kind in "iu"  # numbers, not objects


@pytest.mark.parametrize("name", EVERY_ESTIMATOR)
def test_bool_labels(name):
    """A bool target (every row labeled) is two classes; bools mixed with -1 are refused."""
    codes = np.array([0, 1, 0, 1, 1, 0, 1, 0])
    model, output = _fit_output(name, codes.astype(bool))
    np.testing.assert_array_equal(output, _fit_output(name, codes)[1])
    if hasattr(model, "classes_"):
        assert model.classes_.tolist() == [False, True]
    y = np.array([True, False, True, False, -1, -1, -1, -1], dtype=object)
    with pytest.raises(ValueError, match=r"^y mixes bool labels \(True/False\) with numbers"):
        _fit_output(name, y)


@pytest.mark.parametrize("name", EVERY_ESTIMATOR)
@pytest.mark.parametrize(("y", "message"), [
    (np.array([0.5, 1, 0, 1, -1, -1, -1, -1], dtype=object), r"non-integer numbers \[0\.5\]"),
    (np.array([(0,), 1, 0, 1, -1, -1, -1, -1], dtype=object), "a label of type tuple"),
    (np.array([0, 1, 0, 1, None, -1, -1, -1], dtype=object), "missing labels"),
    (np.array([0, 1, 0, 1, 1j, -1, -1, -1], dtype=object), "a label of type complex"),
])
def test_labels_of_no_usable_form_are_refused_by_name(name, y, message):
    with pytest.raises(ValueError, match=message):
        _fit_output(name, y)


@pytest.mark.parametrize("name", EVERY_ESTIMATOR)
def test_pandas_columns(name):
    pd = pytest.importorskip("pandas")
    _, expected = _fit_output(name, CODES)
    np.testing.assert_array_equal(_fit_output(name, pd.Series(CODES))[1], expected)
    np.testing.assert_array_equal(_fit_output(name, pd.Series(CODES, dtype=object))[1], expected)
    with pytest.raises(ValueError, match="missing labels"):
        _fit_output(name, pd.Series([0, 1, 0, 1, None, -1, -1, -1], dtype="Int64"))


LABEL_SETTINGS = settings(max_examples=8, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])


@LABEL_SETTINGS
@given(st.lists(st.integers(-1, 2), min_size=8, max_size=8), st.sampled_from(list(_forms(CODES))),
       st.sampled_from(list(EVERY_ESTIMATOR)))
def test_any_target_in_any_form_fits_as_its_integer_codes(codes, form, name):
    """Refused in every form alike, or the same output in every form."""
    assume(not (name == "DecisionList" and form == "object strings"))
    codes = np.array(codes)
    try:
        _, expected = _fit_output(name, codes)
    except ValueError as error:
        with pytest.raises(ValueError) as again:
            _fit_output(name, _forms(codes)[form])
        assert type(again.value) is type(error)
        return
    np.testing.assert_array_equal(_fit_output(name, _forms(codes)[form])[1], expected)
