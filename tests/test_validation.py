"""One validation of parameters and labels for every estimator: exact messages on bad input."""

from __future__ import annotations

import numpy as np
import pytest

from sslviz.validation import (
    check_choice,
    check_int,
    check_labels,
    check_number,
    labeled_mask,
    resolve_classes,
)


@pytest.mark.parametrize("value", [True, False, 1.0, "3", None, np.bool_(True)])
def test_check_int_refuses_non_integers_and_bools(value):
    with pytest.raises(ValueError, match=rf"^n_labeled must be an integer >= 1, got {value!r}$"):
        check_int("n_labeled", value, minimum=1)


def test_check_int_bounds_and_numpy_integers():
    assert check_int("k", np.int64(3), minimum=1, maximum=5) == 3
    with pytest.raises(ValueError, match=r"^k must be an integer in \[1, 5\], got 6$"):
        check_int("k", 6, minimum=1, maximum=5)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), True, "0.1"])
def test_check_number_refuses_non_finite_bools_and_strings(value):
    with pytest.raises(ValueError, match=r"^alpha must be a finite number > 0"):
        check_number("alpha", value, above=0)


def test_check_number_bounds():
    assert check_number("lam", 0, minimum=0, maximum=1) == 0.0
    with pytest.raises(ValueError, match=r"^lam must be a finite number in \[0, 1\], got 1.5$"):
        check_number("lam", 1.5, minimum=0, maximum=1)
    with pytest.raises(ValueError, match=r"> 0, got 0"):
        check_number("alpha", 0, above=0)
    assert check_number("threshold", 0.5, minimum=0, below=1) == 0.5
    with pytest.raises(ValueError,
                       match=r"^threshold must be a finite number >= 0 < 1, got 1$"):
        check_number("threshold", 1, minimum=0, below=1)


def test_check_choice():
    assert check_choice("mode", "keep", ("keep", "rejudge")) == "keep"
    with pytest.raises(ValueError, match=r"^mode must be one of \['keep', 'rejudge'\], got 'x'$"):
        check_choice("mode", "x", ("keep", "rejudge"))
    with pytest.raises(ValueError, match="must be one of"):
        check_choice("mode", ["keep"], ("keep",))  # unhashable: still a clean error


def test_labeled_mask_numbers_and_objects():
    np.testing.assert_array_equal(labeled_mask([0, -1, 2]), [True, False, True])
    y = np.array(["spam", -1, "ham"], dtype=object)
    np.testing.assert_array_equal(labeled_mask(y), [True, False, True])


def test_labeled_mask_refuses_the_string_minus_one():
    y = np.asarray(["spam", -1, "ham"])  # numpy makes -1 the string '-1'
    with pytest.raises(ValueError, match="y holds the string '-1', which would become a class"):
        labeled_mask(y)
    with pytest.raises(ValueError, match="the string '-1'"):
        labeled_mask(np.array(["a", "-1"], dtype=object))


@pytest.mark.parametrize("y", [np.array([0.0, np.nan, 1.0]),
                               np.array(["a", None], dtype=object),
                               np.array(["a", float("nan")], dtype=object)])
def test_labeled_mask_refuses_missing_labels(y):
    with pytest.raises(ValueError, match="(NaN labels|missing labels)"):
        labeled_mask(y)


def test_labeled_mask_refuses_2d():
    with pytest.raises(ValueError, match=r"1-D\), got an array of shape \(2, 1\)"):
        labeled_mask(np.zeros((2, 1)))


def test_resolve_classes():
    np.testing.assert_array_equal(resolve_classes(np.array([2, 0, 2])), [0, 2])
    with pytest.raises(ValueError, match=r"labels \[5\] that are not in classes=\[0, 1\]"):
        resolve_classes(np.array([0, 5]), classes=[0, 1])
    with pytest.raises(ValueError, match=r"no labeled row for class\(es\) \[1\]: label at least "
                                         r"one document of every class"):
        resolve_classes(np.array([0, 0]), classes=[0, 1], row="document")
    np.testing.assert_array_equal(
        resolve_classes(np.array([0]), classes=[0, 1], require_every_class=False), [0, 1])
    with pytest.raises(ValueError, match="needs at least 2"):
        resolve_classes(np.array([3, 3]), min_classes=2)


def test_labeled_mask_refuses_a_mix_of_string_and_number_classes():
    np.testing.assert_array_equal(labeled_mask(np.array(["ham", -1, "spam"], dtype=object)),
                                  [True, False, True])
    with pytest.raises(ValueError, match=r"y mixes string labels \(\['ham'\] ...\) and number "
                                         r"labels \(\[3\] ...\)"):
        labeled_mask(np.array(["ham", -1, 3], dtype=object))


def test_check_labels_for_supervised_estimators():
    y = np.array(["ham", "spam", -1], dtype=object)
    with pytest.raises(ValueError, match="mixes string labels"):
        check_labels(y)  # here -1 is a class, a number among strings
    assert check_labels(None) is None
    column = np.array([[0], [1]])
    assert check_labels(column) is column  # shapes are scikit-learn's business
    with pytest.raises(ValueError, match="NaN labels"):
        check_labels(np.array([0.0, np.nan]))
    with pytest.raises(ValueError, match="missing labels"):
        check_labels(np.array(["a", None], dtype=object))
    np.testing.assert_array_equal(check_labels([0, -1, 2]), [0, -1, 2])


# -- issue 22: every parameter named in its message ------------------------------------------------
def _problem():
    import scipy.sparse as sp

    X = sp.csr_matrix(np.array([[1, 0, 2], [0, 1, 1], [2, 1, 0], [0, 0, 1]], dtype=float))
    return X, np.array([0, 1, -1, -1])


def _collinear():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(20, 2))
    return np.c_[a, a[:, 0] + a[:, 1]], np.r_[[0, 1] * 4, [-1] * 12]


def _fit(make, data=_problem):
    X, y = data()
    return make().fit(X, y)


def _case(call, message):
    return pytest.param(call, message, id=message[:40])


def _estimator_cases():
    from sslviz import em, words
    from sslviz.cem import GaussianCEM
    from sslviz.fisher import FisherKernelNB
    from sslviz.kernel_expansion import KernelExpansion
    from sslviz.splits import split_labeled
    from sslviz.text import TextOptions
    from sslviz.tsvm import TransductiveSVM

    y = np.array([0, 1] * 10)
    dense = lambda: (_problem()[0].toarray(), _problem()[1])  # noqa: E731
    return [
        _case(lambda: _fit(lambda: FisherKernelNB(normalize="no")),
              r"^normalize must be True or False, got 'no'$"),
        _case(lambda: _fit(lambda: KernelExpansion(sigma=1.0, normalize="no"), dense),
              r"^normalize must be True or False, got 'no'$"),
        _case(lambda: TextOptions(min_df=True), r"^min_df must be an integer >= 1, got True$"),
        _case(lambda: TextOptions(max_features=True),
              r"^max_features must be an integer >= 1, got True$"),
        _case(lambda: _fit(lambda: em.SemiSupervisedNB(annealing="fast")),
              r"^annealing must be an increasing sequence .*, got 'fast'$"),
        _case(lambda: _fit(lambda: TransductiveSVM(positive_fraction="half")),
              r"^positive_fraction must be None, a number in \(0, 1\) or one such number per "
              r"class, got 'half'$"),
        _case(lambda: _fit(lambda: GaussianCEM(reg_covar=0), _collinear),
              r"^the shared covariance is singular .*: pass reg_covar > 0"),
        _case(lambda: _fit(lambda: GaussianCEM(covariance="full", reg_covar=0), _collinear),
              r"^the covariance of classes_\[0\] is singular"),
        _case(lambda: split_labeled(y, -1), r"^n_labeled must be an integer >= 1, got -1$"),
        _case(lambda: split_labeled(y, 2, n_unlabeled=-1),
              r"^n_unlabeled must be an integer >= 0, got -1$"),
        _case(lambda: split_labeled(y, 2, n_test=-3), r"^n_test must be an integer >= 0, got -3$"),
        _case(lambda: split_labeled(y, 2, test_rows=[0, 99]),
              r"^test_rows holds \[99\], outside the rows 0..19 of y$"),
        _case(lambda: split_labeled(y, 2, per_class="yes"),
              r"^per_class must be True or False, got 'yes'$"),
        _case(lambda: em.top_words(_fit(lambda: em.SemiSupervisedNB()), ["a", "b", "c"], k=-1),
              r"^k must be an integer >= 0, got -1$"),
        _case(lambda: words.top_indices(np.ones(3), 1.5), r"^k must be an integer >= 0, got 1.5$"),
        _case(lambda: KernelExpansion().fit(_problem()[0].toarray(), _problem()[1][:-1]),
              r"inconsistent numbers of samples: \[4, 3\]"),
        _case(lambda: KernelExpansion().fit(_problem()[0].toarray() * 1e300, _problem()[1]),
              r"^X is too large for the width rule: .*rescale X .*or pass a number as sigma$"),
    ]


@pytest.mark.parametrize(("call", "message"), _estimator_cases())
def test_parameters_and_edges_are_refused_by_name(call, message):
    import warnings

    with warnings.catch_warnings(), pytest.raises(ValueError, match=message):
        warnings.simplefilter("ignore", RuntimeWarning)
        call()


def test_check_numbers():
    from sslviz.validation import check_numbers

    np.testing.assert_array_equal(check_numbers("f", [0.5, 1], "numbers"), [0.5, 1.0])
    np.testing.assert_array_equal(check_numbers("f", 0.25, "numbers"), [0.25])
    for bad in ("half", [0.5, "1"], True, [[0.5]], [0.5, np.nan], None):
        with pytest.raises(ValueError, match=r"^f must be numbers, got "):
            check_numbers("f", bad, "numbers")


def test_split_labeled_keeps_working_for_valid_sizes():
    from sslviz.splits import split_labeled

    y = np.array([0, 1] * 10)
    split = split_labeled(y, np.int64(4), n_unlabeled=6, n_test=0, random_state=0)
    assert len(split.labeled) == 4 and len(split.unlabeled) == 6 and len(split.test) == 0
    assert sorted(y[split.labeled].tolist()) == [0, 0, 1, 1]


def _helper_cases():
    import scipy.sparse as sp
    from sklearn.naive_bayes import MultinomialNB

    from sslviz import decision_list, em, self_training, text, words

    X, y = _problem()
    nb = em.SemiSupervisedNB(max_iter=2).fit(X, y)
    rules = decision_list.DecisionList().fit(X, np.array([0, 1, 0, 1]))
    st = self_training.SelfTraining(MultinomialNB(), max_iter=1).fit(sp.vstack([X, X]),
                                                                     np.r_[y, y])
    return [
        _case(lambda: em.top_words(nb, list("abc"), iteration=True),
              r"^iteration must be an integer \(0 to \d+\), got True$"),
        _case(lambda: self_training.predict_at_iteration(st, X, 1.5),
              r"^iteration must be an integer \(0 to \d+\), got 1.5$"),
        _case(lambda: em.accuracy_by_iteration(nb, X, y[:-1]),
              r"^y must hold one label per row of X \(4\), got shape \(3,\)$"),
        _case(lambda: decision_list.top_rules(rules, list("abc"), k=-1),
              r"^k must be an integer >= 0, got -1$"),
        _case(lambda: decision_list.rank_rules(np.ones((2, 3)), -1),
              r"^alpha must be a finite number > 0, got -1$"),
        _case(lambda: decision_list.collocations(["a", "b", "c"], 1, window=-1),
              r"^window must be an integer >= 0, got -1$"),
        _case(lambda: decision_list.collocations(["a", "b", "c"], "b"),
              r"^head must be an integer, got 'b'$"),
        _case(lambda: decision_list.collocation_matrix([["a", "b"]], [0], min_df=0),
              r"^min_df must be an integer >= 1, got 0$"),
        _case(lambda: words.log_odds_vs_rest(nb.feature_log_prob_, nb.class_log_prior_, 5),
              r"^target must be an integer in \[0, 1\], got 5$"),
        _case(lambda: text.vectorize(["a b"], {"min_df": 1}),
              r"^options must be a TextOptions .*got dict$"),
        _case(lambda: text.preprocess(None), r"^a document must be a string, got NoneType$"),
    ]


@pytest.mark.parametrize(("call", "message"), _helper_cases())
def test_helpers_refuse_bad_arguments_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def _constructor_cases():
    from sslviz.cem import GaussianCEM
    from sslviz.em import SemiSupervisedNB
    from sslviz.feature_selection import FeatureSelector
    from sslviz.fisher import FisherKernelNB
    from sslviz.tsvm import TransductiveSVM
    from sslviz.yarowsky import Yarowsky

    seed = r"^random_state must be None, an integer in \[0, 2\*\*32 - 1\] or a numpy"
    return [
        _case(lambda: _fit(lambda: SemiSupervisedNB(random_state="fast")), seed),
        _case(lambda: _fit(lambda: TransductiveSVM(random_state=-1)), seed),
        _case(lambda: _fit(lambda: FisherKernelNB(random_state=True)), seed),
        _case(lambda: _fit(lambda: GaussianCEM(random_state=[1, 2]),
                           lambda: (_problem()[0].toarray(), _problem()[1])), seed),
        _case(lambda: _fit(lambda: TransductiveSVM(n_jobs=0)),
              r"^n_jobs must be None, a number of processes >= 1 or a negative integer"),
        _case(lambda: _fit(lambda: FisherKernelNB(prune_tol="fast")),
              r"^prune_tol must be a finite number >= 0 < 1, got 'fast'$"),
        _case(lambda: _fit(lambda: Yarowsky(classes={"a": 1})),
              r"^classes must be None or a non-empty sequence of class labels"),
        _case(lambda: _fit(lambda: SemiSupervisedNB(classes="ab")),
              r"^classes must be None or a non-empty sequence of class labels"),
        _case(lambda: _fit(lambda: Yarowsky(seeds={"a": 1})),
              r"^the seed senses \['a'\] and the labels of y \(\[0, 1\]\) mix strings and "
              r"numbers"),
        _case(lambda: _fit(lambda: FeatureSelector(vocabulary="fast")),
              r"^vocabulary must be None or a sequence of words"),
        _case(lambda: _fit(lambda: FeatureSelector(vocabulary=["a"])),
              r"^vocabulary has 1 words but X has 3 columns$"),
    ]


@pytest.mark.parametrize(("call", "message"), _constructor_cases())
def test_constructor_parameters_are_refused_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_pandas_missing_values_are_missing_labels_without_importing_pandas():
    """pandas' NA (a nullable column with a gap) is recognised by its type's name, so the rule
    does not need pandas installed."""
    from sslviz.validation import semi_supervised_target

    NAType = type("NAType", (), {"__eq__": lambda self, other: NotImplemented,
                                 "__bool__": lambda self: 1 / 0, "__hash__": object.__hash__})
    y = np.array([0, 1, NAType(), -1], dtype=object)
    with pytest.raises(ValueError, match=r"^y holds missing labels \(None or NaN\)"):
        semi_supervised_target(y)


def test_semi_supervised_target_converts_object_numbers():
    from sslviz.validation import semi_supervised_target

    y, labeled = semi_supervised_target(np.array([2, np.int16(0), -1], dtype=object))
    assert y.dtype == np.int64 and y.tolist() == [2, 0, -1]
    assert labeled.tolist() == [True, True, False]
    y, _ = semi_supervised_target(np.array([1.0, 0.0, -1], dtype=object))
    assert y.dtype == np.float64
    y, _ = semi_supervised_target(np.array(["b", "a", -1], dtype=object))
    assert y.dtype == object and y.tolist() == ["b", "a", -1]
    with pytest.raises(ValueError, match=r"^y holds integers too large for class labels"):
        semi_supervised_target(np.array([2**70, 0, -1], dtype=object))


@pytest.mark.parametrize("y", [np.array([0.0, 1.0, np.inf, -1.0]), [0, 1, -np.inf, -1],
                               np.array([0, 1, np.inf, -1], dtype=object)],
                         ids=["float", "list", "object"])
def test_infinite_labels_are_refused_before_any_warning(y):
    import warnings

    from sslviz.validation import semi_supervised_target

    message = r"^y holds non-finite numbers \[-?inf\]: class labels are integers or strings, " \
              r"not infinities or NaN$"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning before the refusal fails the test
        with pytest.raises(ValueError, match=message):
            semi_supervised_target(y)
        if isinstance(y, np.ndarray) and y.dtype == object:  # check_labels checks object labels
            with pytest.raises(ValueError, match=message):
                check_labels(y)


def test_nan_labels_are_refused_without_a_warning():
    import warnings

    from sslviz.validation import semi_supervised_target

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"^y holds NaN labels: give every labeled row a "
                                             r"class and mark unlabeled rows with -1$"):
            semi_supervised_target(np.array([0.0, np.nan, -1.0]))
        with pytest.raises(ValueError, match=r"^y holds missing labels \(None or NaN\): give "
                                             r"every labeled row a class"):
            semi_supervised_target(np.array([0, np.nan, -1], dtype=object))
