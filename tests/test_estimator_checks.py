"""scikit-learn's estimator checks over every public estimator and transformer of sslviz.

One list (:data:`ESTIMATORS`) names an instance of every public ``BaseEstimator`` subclass,
built as a user would (its documented required arguments; small ``max_iter`` and graph sizes the
checks' 10-300 rows allow); :func:`test_every_public_estimator_is_checked` finds them all in the
package, so a new estimator cannot be forgotten. Each waived check is given once below, with the
reason it cannot pass. Waivers are strict: a waived check that passes fails.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import warnings

import pytest
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import MultinomialNB
from sklearn.utils.estimator_checks import parametrize_with_checks

import sslviz
from sslviz.cem import CEMClassifier, GaussianCEM
from sslviz.co_training import CoTraining, TrainedVocabularyNB
from sslviz.decision_list import DecisionList
from sslviz.em import SemiSupervisedNB
from sslviz.entropy_reg import EntropyRegularizedLR
from sslviz.feature_selection import FeatureSelector
from sslviz.fisher import FisherKernelNB
from sslviz.hybrid import HybridNB
from sslviz.kernel_expansion import KernelExpansion, KernelExpansionClassifier
from sslviz.label_propagation import GraphPropagation
from sslviz.logistic_cem import LogisticCEM
from sslviz.self_training import SelfTraining
from sslviz.sgt import SpectralGraphTransducer
from sslviz.tsvm import TransductiveSVM
from sslviz.yarowsky import Yarowsky

ESTIMATORS = [
    SemiSupervisedNB(max_iter=3),
    SemiSupervisedNB(max_iter=3, assignment="hard"),
    SelfTraining(LogisticRegression(), max_iter=3),
    SelfTraining(MultinomialNB(), max_iter=3),
    DecisionList(),
    Yarowsky(max_iter=3),
    FeatureSelector(),
    FeatureSelector(n_features=1),
    FisherKernelNB(max_iter=2),
    GaussianCEM(max_iter=3, reg_covar=1e-3),
    LogisticCEM(max_iter=3),
    KernelExpansionClassifier(max_iter=20),
    KernelExpansionClassifier("med", max_iter=20),
    KernelExpansion(sigma=1.0),
    HybridNB(max_iter=3),
    EntropyRegularizedLR(entropy_weight=0.1, max_iter=50),
    TransductiveSVM(random_state=0),
    GraphPropagation(n_neighbors=3, metric="euclidean"),
    GraphPropagation(n_neighbors=3),  # the default metric, cosine (text)
    # the default n_components=80 needs more than 81 rows; the checks fit 10 to 80
    SpectralGraphTransducer(n_neighbors=5, n_components=4, c=100.0),
    CoTraining(n_view0_features=1, max_iter=3, random_state=0),
    TrainedVocabularyNB(),
]
#: Public estimator classes that are not meant to be fitted themselves (fitting one raises a
#: TypeError naming the classes to use: tests/test_cem.py).
ABSTRACT = {CEMClassifier: "the E/C/M loop shared by GaussianCEM and LogisticCEM"}

# -- the reasons, each written once ---------------------------------------------------------------
MINUS_ONE = ("the check uses -1 as an ordinary class label, but y == -1 marks unlabeled rows "
             "(scikit-learn's semi-supervised convention; scikit-learn exempts its own "
             "SelfTrainingClassifier by name), so half of its data is unlabeled")
N_ITER_ZERO = ("n_iter_ counts the rounds after iteration 0; when y labels every row (the "
               "checks' data) there is none, as in scikit-learn's SelfTrainingClassifier")
TWO_CLASSES = ("the spectral graph transducer separates two classes; the checks' data has "
               "three or more, so the fit is refused")
TRANSDUCTIVE = ("transductive: labels only the rows it was fitted on and refuses new rows")
EMPTY_ROWS = ("cosine graph: an all-zero row has no direction, so no neighbours, and is refused "
              "by name; the check's data has such rows")


def _graph_propagation(estimator):
    failures = {"check_classifiers_classes": MINUS_ONE}
    if estimator.metric == "cosine":
        failures.update(dict.fromkeys(["check_estimators_dtypes", "check_estimator_sparse_tag",
                                       "check_estimator_sparse_array",
                                       "check_estimator_sparse_matrix"], EMPTY_ROWS))
    return failures


def _sgt(estimator):
    failures = dict.fromkeys([
        "check_classifiers_classes", "check_classifiers_train", "check_dict_unchanged",
        "check_dont_overwrite_parameters", "check_dtype_object",
        "check_estimators_fit_returns_self", "check_estimators_overwrite_params",
        "check_f_contiguous_array_estimator", "check_fit2d_predict1d", "check_fit_score_takes_y",
        "check_methods_sample_order_invariance", "check_methods_subset_invariance",
        "check_n_features_in_after_fitting", "check_readonly_memmap_input",
        "check_supervised_y_2d"], TWO_CLASSES)
    failures["check_fit_idempotent"] = TRANSDUCTIVE
    failures["check_estimators_dtypes"] = EMPTY_ROWS
    failures["check_positive_only_tag_during_fit"] = TWO_CLASSES  # iris: three classes
    failures.update(dict.fromkeys(["check_estimator_sparse_tag", "check_estimator_sparse_array",
                                   "check_estimator_sparse_matrix"],
                                  f"{TWO_CLASSES}; and {EMPTY_ROWS}"))
    return failures


def _co_training(estimator):
    return {"check_classifiers_classes": MINUS_ONE,
            "check_non_transformer_estimators_n_iter": N_ITER_ZERO,
            "check_fit2d_1feature": "two views need at least two columns; one column is refused"}


def _yarowsky(estimator):
    return {"check_classifiers_classes": MINUS_ONE,
            "check_non_transformer_estimators_n_iter": N_ITER_ZERO}


WAIVERS = {
    SemiSupervisedNB: lambda est: {"check_classifiers_classes": MINUS_ONE},
    SelfTraining: lambda est: {"check_classifiers_classes": MINUS_ONE,
                               "check_non_transformer_estimators_n_iter": N_ITER_ZERO},
    Yarowsky: _yarowsky,
    GaussianCEM: lambda est: {"check_classifiers_classes": MINUS_ONE},
    LogisticCEM: lambda est: {"check_classifiers_classes": MINUS_ONE},
    KernelExpansionClassifier: lambda est: {"check_classifiers_classes": MINUS_ONE},
    HybridNB: lambda est: {"check_classifiers_classes": MINUS_ONE},
    EntropyRegularizedLR: lambda est: {"check_classifiers_classes": MINUS_ONE},
    TransductiveSVM: lambda est: {"check_classifiers_classes": MINUS_ONE},
    GraphPropagation: _graph_propagation,
    SpectralGraphTransducer: _sgt,
    CoTraining: _co_training,
}


def expected_failed_checks(estimator):
    """The waived checks of ``estimator`` with their reasons (none for an unlisted class)."""
    waiver = WAIVERS.get(type(estimator))
    return waiver(estimator) if waiver else {}


#: A waived check that passes fails the suite (scikit-learn >= 1.8; older: reported as XPASS).
STRICT = ({"xfail_strict": True}
          if "xfail_strict" in inspect.signature(parametrize_with_checks).parameters else {})


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks, **STRICT)
def test_scikit_learn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        # the checks' data has no unlabeled row ("y contains no unlabeled samples"), and their
        # small max_iter stops the solvers early
        warnings.simplefilter("ignore", (UserWarning, ConvergenceWarning))
        check(estimator)


def public_estimator_classes():
    """Every public ``BaseEstimator`` subclass defined in a top-level module of sslviz."""
    found = set()
    for module_info in pkgutil.iter_modules(sslviz.__path__):
        if module_info.ispkg or module_info.name.startswith("_"):
            continue
        module = importlib.import_module(f"sslviz.{module_info.name}")
        for name, value in vars(module).items():
            if (inspect.isclass(value) and issubclass(value, BaseEstimator)
                    and value.__module__ == module.__name__ and not name.startswith("_")):
                found.add(value)
    return found


def test_every_public_estimator_is_checked():
    checked = {type(estimator) for estimator in ESTIMATORS}
    missing = public_estimator_classes() - checked - set(ABSTRACT)
    assert not missing, f"add an instance of {sorted(c.__name__ for c in missing)} to ESTIMATORS"
    assert set(WAIVERS) <= checked


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
def test_every_waiver_has_a_reason(estimator):
    for check, reason in expected_failed_checks(estimator).items():
        assert check.startswith("check_") and len(reason) > 30, (check, reason)
