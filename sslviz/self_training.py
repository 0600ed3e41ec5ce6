"""Self-training (bootstrapping): a classifier labels the unlabeled data it is surest about.

The oldest semi-supervised recipe, and the one the lecture calls *bootstrapping*: train a
supervised classifier on the labeled rows, let it predict the unlabeled rows, move the predictions
it is most confident about into the training set as if they were gold labels (*pseudo-labels*),
retrain, and repeat. Confidence is the largest class probability ``max_c P(c|x)`` of the
classifier's ``predict_proba``. Each iteration adds

* ``criterion="threshold"``: every unlabeled row whose confidence is *strictly above*
  ``threshold``;
* ``criterion="k_best"``: the ``k_best`` most confident unlabeled rows, whatever their class (all
  that are left when fewer remain); exactly scikit-learn's rule, including how ties at the k-th
  place are broken (by ``numpy.argpartition``, i.e. not by row order);
* ``criterion="k_best_per_class"`` (not in scikit-learn): for every class, the ``k_best`` most
  confident rows *predicted as that class* (fewer when fewer are); ties go to the earlier row.
  Co-training (Blum & Mitchell, 1998) adds a fixed number of examples per class in the same
  spirit, so that one class cannot swallow the pool.

It stops when an iteration adds nothing (``"no_change"``), when every row is labeled
(``"all_labeled"``) or after ``max_iter`` iterations (``"max_iter"``), and fits a last time on
everything labeled. Under the same settings the result equals scikit-learn's
``sklearn.semi_supervised.SelfTrainingClassifier`` (same fits, same pseudo-labels, same
``transduction_``, ``labeled_iter_``, ``n_iter_`` and ``termination_condition_``); what this class
adds is the per-iteration record ``trace_`` and the per-class criterion.

Iteration numbering follows ``labeled_iter_``: iteration 0 is the supervised model on the given
labels; iteration ``i >= 1`` is "the model of iteration ``i - 1`` labels some rows, and the
classifier is refitted with them". ``trace_[i]`` records which rows iteration ``i`` added, with
which pseudo-label, how confident the model that chose them was, and (``record="full"``) a copy of
the classifier refitted after adding them, so that every intermediate decision boundary can be
drawn or scored without refitting.

Cost: ``n_iter_ + 1`` fits of the base classifier and ``n_iter_`` predictions on the shrinking
unlabeled pool; with ``record="full"`` one copy of the fitted classifier per iteration.

References
----------
Wiegand, *An Introduction to Semi-Supervised Learning* (lecture, 2009), section "Bootstrapping".
Yarowsky (1995), Unsupervised word sense disambiguation rivaling supervised methods. ACL.
Abney (2004), Understanding the Yarowsky algorithm. Computational Linguistics 30(3).
scikit-learn, ``sklearn/semi_supervised/_self_training.py`` (the reference implementation).

See also
--------
sslviz.experiments.bootstrapping : seeded runs on corpora and 2-D points (Lecture 02).
"""

from __future__ import annotations

import copy
import numbers
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.utils import get_tags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, validate_data

from .splits import UNLABELED
from .trace import Trace, freeze_array
from .validation import (
    check_choice,
    check_int,
    resolve_classes,
    semi_supervised_target,
)

__all__ = ["CRITERIA", "PseudoLabelReport", "RECORDS", "SelfTraining", "SelfTrainingStep",
           "TERMINATION_CONDITIONS", "accuracy_by_iteration", "estimator_at_iteration",
           "labels_at_iteration", "predict_at_iteration", "pseudo_label_correctness"]

CRITERIA = ("threshold", "k_best", "k_best_per_class")
TERMINATION_CONDITIONS = ("max_iter", "no_change", "all_labeled")
RECORDS = ("full", "summary")


@dataclass(frozen=True)
class SelfTrainingStep:
    """What one self-training iteration did (iteration 0 = the given labels, no pseudo-labels).

    Attributes
    ----------
    iteration : int
        Equals the ``labeled_iter_`` of the rows in ``added``.
    added : ndarray of int, shape (n_added,)
        Rows of the ``X`` passed to ``fit`` labeled at this iteration, in increasing order. At
        iteration 0, the rows that came with a label.
    pseudo_labels : ndarray of shape (n_added,)
        The labels they received (at iteration 0, their given labels).
    confidence : ndarray of float, shape (n_added,)
        ``max_c P(c|x)`` under the model of the previous iteration, which chose them (NaN at
        iteration 0).
    n_labeled : int
        Rows the model of this iteration was fitted on (given labels + pseudo-labels so far).
    n_unlabeled : int
        Rows still unlabeled after this iteration.
    estimator : fitted classifier or None
        A copy of the base classifier fitted on those ``n_labeled`` rows (``record="full"``);
        ``None`` with ``record="summary"``. Treat it as read-only.
    """

    iteration: int
    added: np.ndarray
    pseudo_labels: np.ndarray
    confidence: np.ndarray
    n_labeled: int
    n_unlabeled: int
    estimator: object | None


def _estimator_has(method):
    """For ``available_if``: the fitted classifier (or, before fit, the template) has ``method``."""

    def check(self):
        source = self.estimator_ if hasattr(self, "estimator_") else self.estimator
        return hasattr(source, method)

    return check


class SelfTraining(ClassifierMixin, MetaEstimatorMixin, BaseEstimator):
    """Self-training around any classifier with ``predict_proba``, with a per-iteration trace.

    The base classifier is fitted on the labeled rows; at every iteration the unlabeled rows it
    is most confident about (``criterion``) join the training set with its predictions as
    labels, and it is refitted. Under the same settings the result equals scikit-learn's
    ``SelfTrainingClassifier``; this class adds ``trace_`` and the per-class criterion.

    Parameters
    ----------
    estimator : classifier
        Implements ``fit`` and ``predict_proba``; a clone is fitted (``estimator_``). Required.
    threshold : float in [0, 1), default=0.75
        With ``criterion="threshold"``, rows with ``max_c P(c|x) > threshold`` are added. A
        calibrated classifier makes the threshold mean what it says; Naive Bayes on text is very
        over-confident, so useful thresholds there are close to 1.
    criterion : {"threshold", "k_best", "k_best_per_class"}, default="threshold"
        Which unlabeled rows become pseudo-labeled at each iteration (see the module docstring).
    k_best : int >= 1, default=10
        Rows added per iteration with ``"k_best"``; per class with ``"k_best_per_class"``.
    max_iter : int >= 0 or None, default=10
        Maximum number of iterations (``n_iter_``); ``None`` runs until nothing is added or
        everything is labeled. ``0`` gives the supervised classifier.
    record : {"full", "summary"}, default="full"
        ``"full"`` keeps a copy of every iteration's fitted classifier in ``trace_``;
        ``"summary"`` keeps only which rows were added (cheaper for large sweeps).

    Attributes
    ----------
    estimator_ : classifier
        The base classifier fitted on all labeled and pseudo-labeled rows.
    classes_ : ndarray of shape (n_classes,)
        ``estimator_.classes_``.
    transduction_ : ndarray of shape (n_samples,)
        Labels used in the last fit: given labels, pseudo-labels, and -1 where a row stayed
        unlabeled.
    labeled_iter_ : ndarray of int, shape (n_samples,)
        Iteration at which each row got its label: 0 for given labels, -1 for never.
    n_iter_ : int
        Number of self-training iterations (times the pool was labeled and the model refitted).
    termination_condition_ : {"max_iter", "no_change", "all_labeled"}
        Why fitting stopped, decided as scikit-learn does: ``"all_labeled"`` wins over
        ``"max_iter"``, which wins over ``"no_change"`` (an iteration number ``max_iter`` that
        adds nothing reports ``"max_iter"``).
    trace_ : Trace of SelfTrainingStep
        One record per iteration, iteration 0 first (``n_iter_ + 1`` records).
    n_features_in_ : int
        Number of columns of the ``X`` seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names of ``X``; set only when ``X`` was a DataFrame with string column names.

    Notes
    -----
    ``predict`` is the base classifier's ``predict`` (as in scikit-learn), which for some
    classifiers (e.g. ``SVC(probability=True)``) can disagree with the argmax of
    ``predict_proba``. Errors made early are never taken back: a wrong pseudo-label stays in the
    training set and pulls later models towards more of the same mistakes (see
    :func:`pseudo_label_correctness`).

    References
    ----------
    Wiegand (2009), *An Introduction to Semi-Supervised Learning* (lecture), section
    "Bootstrapping". Yarowsky (1995), Unsupervised word sense disambiguation rivaling supervised
    methods. ACL. Abney (2004), Understanding the Yarowsky algorithm. Computational Linguistics
    30(3).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.naive_bayes import MultinomialNB
    >>> from sslviz.self_training import SelfTraining
    >>> X = np.array([[3, 0, 1], [2, 0, 0], [0, 3, 1], [0, 2, 0], [4, 1, 0], [0, 4, 1]])
    >>> y = np.array([0, -1, 1, -1, -1, -1])
    >>> SelfTraining(MultinomialNB(), threshold=0.6).fit(X, y).predict(X).tolist()
    [0, 0, 1, 1, 0, 1]
    """

    def __init__(self, estimator=None, threshold=0.75, criterion="threshold", k_best=10,
                 max_iter=10, record="full"):
        self.estimator = estimator
        self.threshold = threshold
        self.criterion = criterion
        self.k_best = k_best
        self.max_iter = max_iter
        self.record = record

    # -- fitting -------------------------------------------------------------------------------
    def fit(self, X, y):
        """Self-train on ``X`` with ``y == -1`` marking unlabeled rows. Returns ``self``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The labeled and the unlabeled rows together, in any form the base classifier
            accepts (finiteness is left to it).
        y : array-like of shape (n_samples,)
            Class labels (integers or strings), ``-1`` for an unlabeled row; at least two
            classes among the labeled rows.

        Returns
        -------
        self : SelfTraining
            The fitted estimator.

        Raises
        ------
        ValueError
            If ``estimator`` is missing or lacks ``fit`` or ``predict_proba``; if a parameter
            is out of its range; if ``y`` has no labeled row or fewer than two classes, or
            breaks the label rule (:func:`sslviz.validation.semi_supervised_target`).

        Warns
        -----
        UserWarning
            If ``y`` has no unlabeled row (only the supervised fit is made), or ``k_best``
            (with ``criterion="k_best"``) exceeds the number of unlabeled rows.
        """
        for _ in self.iter_fit(X, y):
            pass
        return self

    def iter_fit(self, X, y):
        """Fit step by step: a generator yielding each :class:`SelfTrainingStep` as it is recorded.

        ``fit`` runs it to the end. The fitted attributes always describe the last yielded step.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            As for :meth:`fit`.
        y : array-like of shape (n_samples,)
            As for :meth:`fit`.

        Yields
        ------
        step : SelfTrainingStep
            One round's record, round 0 (the fit on the given labels) first.

        Raises
        ------
        ValueError
            As :meth:`fit`, at the first ``next()``.
        """
        self._check_params()
        X, y, has_label = self._validate_input(X, y)
        self.estimator_ = clone(self.estimator)
        self.transduction_ = np.copy(y)
        self.labeled_iter_ = np.where(has_label, 0, -1)
        self.n_iter_ = 0
        self.termination_condition_ = None
        records = []

        def fit_and_record(added, labels, confidence):
            rows = np.flatnonzero(has_label)
            self.estimator_.fit(X[rows], self.transduction_[rows])
            self.classes_ = self.estimator_.classes_
            kept = copy.deepcopy(self.estimator_) if self.record == "full" else None
            step = SelfTrainingStep(
                iteration=self.n_iter_, added=freeze_array(added),
                pseudo_labels=freeze_array(labels), confidence=freeze_array(confidence),
                n_labeled=int(has_label.sum()), n_unlabeled=int((~has_label).sum()),
                estimator=kept)
            records.append(step)
            self.trace_ = Trace(records)
            return step

        given = np.flatnonzero(has_label)
        yield fit_and_record(given, y[given], np.full(len(given), np.nan))
        while not has_label.all() and (self.max_iter is None or self.n_iter_ < self.max_iter):
            self.n_iter_ += 1
            pool = np.flatnonzero(~has_label)
            proba = self.estimator_.predict_proba(X[pool])
            predicted = self.estimator_.classes_[np.argmax(proba, axis=1)]
            confidence = np.max(proba, axis=1)
            chosen = np.sort(self._select(confidence, predicted))
            added = pool[chosen]
            self.transduction_[added] = predicted[chosen]
            self.labeled_iter_[added] = self.n_iter_
            has_label[added] = True
            yield fit_and_record(added, predicted[chosen], confidence[chosen])
            if len(added) == 0:
                self.termination_condition_ = "no_change"
                break
        if self.n_iter_ == self.max_iter:
            self.termination_condition_ = "max_iter"
        if has_label.all():
            self.termination_condition_ = "all_labeled"

    def _select(self, confidence, predicted):
        """Positions (into the pool) of the rows this iteration labels."""
        if self.criterion == "threshold":
            return np.flatnonzero(confidence > self.threshold)
        if self.criterion == "k_best":  # scikit-learn's exact rule, ties included
            n_to_select = min(self.k_best, len(confidence))
            if n_to_select == len(confidence):
                return np.arange(len(confidence))
            return np.argpartition(-confidence, n_to_select)[:n_to_select]
        chosen = []
        for label in self.estimator_.classes_:
            members = np.flatnonzero(predicted == label)
            order = np.argsort(-confidence[members], kind="stable")
            chosen.append(members[order[: self.k_best]])
        return np.concatenate(chosen) if chosen else np.array([], dtype=int)

    # -- validation ----------------------------------------------------------------------------
    def _check_params(self):
        if self.estimator is None:
            raise ValueError("estimator is required: pass a classifier with fit and "
                             "predict_proba, e.g. SelfTraining(LogisticRegression())")
        for method in ("fit", "predict_proba"):
            if not hasattr(self.estimator, method):
                hint = (" (for SVC, set probability=True)"
                        if type(self.estimator).__name__ in ("SVC", "NuSVC") else "")
                raise ValueError(
                    f"estimator {type(self.estimator).__name__} has no {method}: self-training "
                    f"needs a classifier with fit and predict_proba to rank its predictions "
                    f"by confidence{hint}")
        if (not isinstance(self.threshold, numbers.Real) or isinstance(self.threshold, bool)
                or not 0 <= self.threshold < 1):
            raise ValueError(f"threshold must be a number in [0, 1), got {self.threshold!r}")
        check_choice("criterion", self.criterion, CRITERIA)
        check_int("k_best", self.k_best, minimum=1)
        if self.max_iter is not None:
            check_int("max_iter", self.max_iter, minimum=0)
        check_choice("record", self.record, RECORDS)

    def _validate_input(self, X, y):
        # Finiteness is left to the base classifier (some accept NaN), as scikit-learn does.
        X, y = validate_data(self, X, y, accept_sparse=["csr", "csc"], ensure_all_finite=False)
        y, has_label = semi_supervised_target(y)  # refuses the string '-1', NaN and None
        if y.dtype.kind in "US":  # strings cannot hold the integer -1 of pseudo-labeling
            y = y.astype(object)
        if not has_label.any():
            raise ValueError(
                "no labeled rows: every entry of y is -1. Self-training needs labeled examples "
                "of at least two classes to train its first model.")
        resolve_classes(y[has_label], min_classes=2)
        if has_label.all():
            warnings.warn("y contains no unlabeled samples (no -1): self-training fits the "
                          "supervised classifier only", UserWarning, stacklevel=3)
        if self.criterion == "k_best" and self.k_best > (~has_label).sum():
            warnings.warn("k_best is larger than the amount of unlabeled samples. All unlabeled "
                          "samples will be labeled in the first iteration", UserWarning,
                          stacklevel=3)
        return X, y, has_label

    # -- prediction ----------------------------------------------------------------------------
    def _checked(self, X):
        check_is_fitted(self)
        return validate_data(self, X, accept_sparse=True, ensure_all_finite=False, reset=False)

    def predict(self, X):
        """The base classifier's prediction for each row, shape (n_samples,).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows in a form the base classifier accepts; any rows, not only the fitted ones.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            ``estimator_.predict(X)``.
        """
        X = self._checked(X)
        return self.estimator_.predict(X)

    def predict_proba(self, X):
        """P(c|x) of the final classifier, shape (n_samples, n_classes).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows in a form the base classifier accepts; any rows, not only the fitted ones.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            ``estimator_.predict_proba(X)``, columns in the order of ``classes_``.
        """
        X = self._checked(X)
        return self.estimator_.predict_proba(X)

    @available_if(_estimator_has("predict_log_proba"))
    def predict_log_proba(self, X):
        """log P(c|x) of the final classifier (only if the base classifier has it).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows in a form the base classifier accepts; any rows, not only the fitted ones.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            ``estimator_.predict_log_proba(X)``, columns in the order of ``classes_``.
        """
        X = self._checked(X)
        return self.estimator_.predict_log_proba(X)

    @available_if(_estimator_has("decision_function"))
    def decision_function(self, X):
        """The final classifier's decision function (only if the base classifier has one).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows in a form the base classifier accepts; any rows, not only the fitted ones.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            ``estimator_.decision_function(X)``; its shape is the base classifier's.
        """
        X = self._checked(X)
        return self.estimator_.decision_function(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        if self.estimator is not None:
            inner_tags = get_tags(self.estimator)
            inner = inner_tags.input_tags
            tags.input_tags.sparse = inner.sparse
            tags.input_tags.positive_only = inner.positive_only
            if inner_tags.classifier_tags is not None:
                tags.classifier_tags.poor_score = inner_tags.classifier_tags.poor_score
        return tags


# -- summaries of a fitted model (pure functions over the trace) ---------------------------------
@dataclass(frozen=True)
class PseudoLabelReport:
    """How many pseudo-labels were right, per iteration (see :func:`pseudo_label_correctness`).

    Arrays of shape (n_iterations,) are indexed by iteration (0 = given labels only).

    Attributes
    ----------
    correct : tuple of bool ndarrays
        ``correct[i][j]``: whether ``trace_[i].pseudo_labels[j]`` equals the gold label of row
        ``trace_[i].added[j]`` (at iteration 0 this checks the given labels themselves).
    n_added, n_wrong_added : ndarray of int
        Pseudo-labels added at each iteration, and how many of them were wrong (0 at iteration 0).
    added_error_rate : ndarray of float
        ``n_wrong_added / n_added`` (NaN where nothing was added, and at iteration 0).
    pool_size, pool_wrong : ndarray of int
        Pseudo-labeled rows so far (cumulative, given labels excluded), and the wrong ones.
    pool_error_rate : ndarray of float
        ``pool_wrong / pool_size``: the error rate of the pseudo-labeled training data the model of
        each iteration was fitted on (NaN while the pool is empty).
    """

    correct: tuple
    n_added: np.ndarray
    n_wrong_added: np.ndarray
    added_error_rate: np.ndarray
    pool_size: np.ndarray
    pool_wrong: np.ndarray
    pool_error_rate: np.ndarray


def pseudo_label_correctness(model, y_true):
    """Check every recorded pseudo-label against gold labels.

    Parameters
    ----------
    model : fitted SelfTraining
    y_true : array-like of shape (n_samples,)
        The true label of every row of the ``X`` the model was fitted on (labeled and unlabeled).

    Returns
    -------
    PseudoLabelReport
    """
    check_is_fitted(model)
    y_true = np.asarray(y_true)
    if y_true.shape != model.labeled_iter_.shape:
        raise ValueError(f"y_true has shape {y_true.shape}, but the model was fitted on "
                         f"{len(model.labeled_iter_)} rows: pass the gold label of every row of "
                         "the X given to fit, in the same order")
    correct = tuple(freeze_array(y_true[step.added] == step.pseudo_labels)
                    for step in model.trace_)
    n_added = np.array([0] + [len(c) for c in correct[1:]])
    n_wrong = np.array([0] + [int((~c).sum()) for c in correct[1:]])
    pool_size, pool_wrong = np.cumsum(n_added), np.cumsum(n_wrong)
    with np.errstate(invalid="ignore", divide="ignore"):
        added_rate = np.where(n_added > 0, n_wrong / np.maximum(n_added, 1), np.nan)
        pool_rate = np.where(pool_size > 0, pool_wrong / np.maximum(pool_size, 1), np.nan)
    return PseudoLabelReport(correct, n_added, n_wrong, added_rate, pool_size, pool_wrong,
                             pool_rate)


def labels_at_iteration(model, iteration):
    """Every training row's label at the end of ``iteration``: given or pseudo, -1 if unlabeled.

    Pseudo-labels are never revised, so this is ``transduction_`` restricted to the rows with
    ``0 <= labeled_iter_ <= iteration``. Shape (n_samples,), dtype of ``transduction_``.
    """
    check_is_fitted(model)
    model.trace_.iteration(iteration)  # refuses an iteration that was not recorded
    known = (model.labeled_iter_ >= 0) & (model.labeled_iter_ <= iteration)
    labels = np.array(model.transduction_, copy=True)
    labels[~known] = UNLABELED
    return labels


def estimator_at_iteration(model, iteration):
    """The classifier recorded at ``iteration`` (needs ``record="full"``)."""
    check_is_fitted(model)
    step = model.trace_.iteration(iteration)
    if step.estimator is None:
        raise ValueError("this model was fitted with record='summary'; refit with "
                         "record='full' to use the classifiers of earlier iterations")
    return step.estimator


def predict_at_iteration(model, X, iteration):
    """Predictions of the classifier recorded at ``iteration``, shape (n_samples,)."""
    return estimator_at_iteration(model, iteration).predict(model._checked(X))


def accuracy_by_iteration(model, X, y):
    """Accuracy on ``(X, y)`` of every recorded iteration's classifier, shape (n_iterations,)."""
    y = np.asarray(y)
    return np.array([np.mean(predict_at_iteration(model, X, i) == y)
                     for i in range(len(model.trace_))])
