"""Co-training (Blum & Mitchell 1998): two views of each example teach each other.

Each example is described twice, by two sets of features that are each enough to classify it
(for a web page: the words on the page, and the words of the links that point to it). One
classifier is trained per view on the labeled rows. Every iteration, each view's classifier looks
at a small *pool* of unlabeled rows drawn at random, labels the rows it is most confident about
— a fixed number per class — and those rows join the labeled set *for both views*. The pool is
then refilled from the remaining unlabeled rows. Because the views are different, a row that one
view finds easy can be a hard, informative example for the other.

The paper's setting (its Table 2): 12 labeled pages (3 course, 9 non-course), a pool of 75, each
view adds 1 positive and 3 negatives per iteration, 30 iterations, Naive Bayes in each view, and
a combined classifier that multiplies the two views' class probabilities.

"Most confident for class c" is the largest log-odds ``log P(c | x_view) − log P(not c | x_view)``
among the pool rows, computed from the classifier's joint log-likelihood
(``predict_joint_log_proba`` when it has one). With Naive Bayes on long documents
``P(c | x_view)`` rounds to exactly 1.0, and a ranking by probability would leave the choice among
those rows to the pool order; the log-odds still tell them apart. They also favour long
documents (one factor per word); the trace records what was picked.

:class:`TrainedVocabularyNB` is Naive Bayes over the words of its training rows only: with a
vocabulary built from all rows, words no training row holds favour the class with fewer tokens,
which on a short view (link text) swamps the classifier.

``mode="self"`` runs the same schedule with one classifier on both views' features together
(self-training with co-training's pool and growth), the comparison the lecture makes.

Cost: two fits and two pool predictions per iteration (one of each with ``mode="self"``).

References
----------
Blum & Mitchell (1998), Combining labeled and unlabeled data with co-training. COLT.
Wiegand, *An Introduction to Semi-Supervised Learning* (lecture), "Co-Training".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.naive_bayes import MultinomialNB
from sklearn.utils import check_random_state, get_tags
from sklearn.utils.validation import check_is_fitted, check_non_negative, validate_data

from .trace import Trace, freeze_array
from .validation import (
    check_choice,
    check_int,
    check_number,
    resolve_classes,
    semi_supervised_target,
)

__all__ = ["CoTraining", "CoTrainingStep", "MODES", "TrainedVocabularyNB"]

MODES = ("co", "self")


@dataclass(frozen=True)
class CoTrainingStep:
    """What one iteration added (iteration 0: the given labels, nothing added).

    Attributes
    ----------
    iteration : int
    added : ndarray of int (n_added,)
        Rows of the training ``X`` labeled in this iteration.
    labels : ndarray (n_added,)
        The labels they received.
    by_view : ndarray of int (n_added,)
        Which view's classifier chose each row (0 or 1; 0 in ``mode="self"``).
    pool : ndarray of int
        The pool the classifiers chose from in this iteration, ``added`` among it (iteration 0:
        the first pool drawn).
    n_labeled : int
        Labeled rows after this iteration (given + added).
    """

    iteration: int
    added: np.ndarray
    labels: np.ndarray
    by_view: np.ndarray
    pool: np.ndarray
    n_labeled: int


def _log_odds(estimator, X):
    """``log P(c | x) − log Σ_{c' ≠ c} P(c' | x)`` per row and class, from the joint
    log-likelihood (``predict_joint_log_proba``) or else ``predict_log_proba``: finite where a
    probability rounds to exactly 1.0."""
    if hasattr(estimator, "predict_joint_log_proba"):
        joint = estimator.predict_joint_log_proba(X)
    else:
        joint = estimator.predict_log_proba(X)
    joint = np.asarray(joint, dtype=float)
    others = np.empty_like(joint)
    for c in range(joint.shape[1]):
        others[:, c] = logsumexp(np.delete(joint, c, axis=1), axis=1)
    return joint - others


class TrainedVocabularyNB(ClassifierMixin, BaseEstimator):
    """Multinomial Naive Bayes over the words its training rows contain.

    A word that no training row holds gets ``P(w | c) = α / (N_c + Vα)`` from a plain
    ``MultinomialNB`` fitted on a vocabulary built from *all* rows: larger for the class with
    fewer tokens, so a page made of such words leans to that class. Here those columns are
    dropped, at fit and at prediction, as if the vocabulary had been built from the training
    rows only (a short view such as link text, fitted on a dozen pages, lacks most words).

    Parameters
    ----------
    alpha : float > 0, default 1.0
        ``MultinomialNB``'s smoothing.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    vocabulary_ : ndarray of int
        The columns kept: those with a count on some training row.
    estimator_ : MultinomialNB
        Fitted on the kept columns.
    n_features_in_ : int
        Columns of the ``X`` given to ``fit`` (kept or not).

    References
    ----------
    Blum, A. and Mitchell, T. (1998). Combining labeled and unlabeled data with co-training.
    COLT. (Its Naive Bayes views; the dropped columns are this package's choice, lecture 10.)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[3, 0, 0], [0, 3, 0], [0, 0, 5]])
    >>> model = TrainedVocabularyNB().fit(X[:2], [0, 1])
    >>> model.vocabulary_.tolist(), model.predict_proba(X[2:]).round(2).tolist()
    ([0, 1], [[0.5, 0.5]])
    """

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def fit(self, X, y):
        """Keep the columns with a count on some row of ``X``; fit ``MultinomialNB`` on them.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Non-negative word counts of the training rows (all labeled: a supervised model).
        y : array-like of shape (n_samples,)
            Their classes.

        Returns
        -------
        self : TrainedVocabularyNB

        Raises
        ------
        ValueError
            If ``alpha`` is not > 0, ``X`` holds a negative count, or no training row holds
            any word.
        """
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype="numeric")
        check_number("alpha", self.alpha, above=0)
        check_non_negative(X, "TrainedVocabularyNB (word counts)")
        totals = np.asarray(X.sum(axis=0)).ravel()
        self.vocabulary_ = np.flatnonzero(totals > 0)
        if len(self.vocabulary_) == 0:
            raise ValueError("the training rows hold no word at all: give rows with counts")
        self.estimator_ = MultinomialNB(alpha=self.alpha).fit(X[:, self.vocabulary_], y)
        self.classes_ = self.estimator_.classes_
        return self

    def _kept(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype="numeric", reset=False)
        return X[:, self.vocabulary_]

    def predict_joint_log_proba(self, X):
        """``log P(c) + Σ_w N(w, x) log P(w | c)`` over the kept words.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Word counts on the columns of the training ``X``.

        Returns
        -------
        joint : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        X = self._kept(X)  # first: it raises NotFittedError before a fit
        return self.estimator_.predict_joint_log_proba(X)

    def predict_log_proba(self, X):
        """Class log-probabilities from the kept words.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Word counts on the columns of the training ``X``.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        X = self._kept(X)  # first: it raises NotFittedError before a fit
        return self.estimator_.predict_log_proba(X)

    def predict_proba(self, X):
        """Class probabilities from the kept words.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Word counts on the columns of the training ``X``; the columns no training row
            held are ignored.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Rows sum to one.
        """
        X = self._kept(X)  # first: it raises NotFittedError before a fit
        return self.estimator_.predict_proba(X)

    def predict(self, X):
        """The class of largest probability.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Word counts on the columns of the training ``X``.

        Returns
        -------
        ndarray of shape (n_samples,)
            A class of ``classes_`` per row.
        """
        X = self._kept(X)  # first: it raises NotFittedError before a fit
        return self.estimator_.predict(X)

    def __sklearn_tags__(self):
        """Sparse, non-negative counts, as ``MultinomialNB``."""
        tags = super().__sklearn_tags__()
        base = get_tags(MultinomialNB())
        tags.input_tags.sparse = base.input_tags.sparse
        tags.input_tags.positive_only = base.input_tags.positive_only
        tags.classifier_tags.poor_score = base.classifier_tags.poor_score
        return tags


def _check_estimator(estimator):
    """Refuse an ``estimator`` the views cannot use: a class instead of an instance, or an
    object without ``fit``, ``predict_proba`` and a log-probability to rank the pool by."""
    if estimator is None:
        return
    if isinstance(estimator, type):
        raise ValueError(f"estimator must be a classifier instance, got the class "
                         f"{estimator.__name__}: write {estimator.__name__}()")
    missing = [name for name in ("fit", "predict_proba", "get_params")
               if not hasattr(estimator, name)]
    if not (hasattr(estimator, "predict_log_proba")
            or hasattr(estimator, "predict_joint_log_proba")):
        missing.append("predict_log_proba")
    if missing:
        raise ValueError(f"estimator must be a scikit-learn classifier with fit, predict_proba "
                         f"and predict_log_proba (e.g. MultinomialNB()); {estimator!r} has no "
                         f"{', '.join(missing)}")


def _per_class_counts(per_class, n_classes):
    """``per_class`` as a list of counts (ints >= 0), or a clear error naming it."""
    try:
        one_dimensional = (not isinstance(per_class, str | bytes | dict)
                           and np.ndim(per_class) == 1)
    except ValueError:  # a ragged nesting
        one_dimensional = False
    if not one_dimensional:
        raise ValueError(f"per_class must be a sequence of one count per class ({n_classes} "
                         f"classes), e.g. [1, 3], got {per_class!r}")
    return [check_int("per_class", c, minimum=0) for c in per_class]


class CoTraining(ClassifierMixin, BaseEstimator):
    """Blum & Mitchell's co-training of two classifiers on two views, with a trace.

    Parameters
    ----------
    n_view0_features : int
        The first ``n_view0_features`` columns of ``X`` are view 0, the rest view 1 (stack the
        views with ``scipy.sparse.hstack``).
    estimator : classifier with ``predict_proba``, default ``MultinomialNB()``
        Cloned once per view.
    per_class : sequence of int or None, default None
        Rows each view labels per iteration, per class in ``classes_`` order. ``None``: the
        labeled rows' class ratio with 1 for the rarest class (3 course : 9 other gives 1 : 3).
    pool_size : int, default 75
    max_iter : int, default 30
    mode : {"co", "self"}, default "co"
        "self": one classifier on both views, adding twice ``per_class`` per iteration.
    random_state : int, RandomState or None

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    estimators_ : list of classifiers
        One per view (``mode="co"``), or one on both views (``"self"``), fitted last.
    trace_ : Trace of CoTrainingStep
        Per iteration: the pool chosen from, the rows each view labeled, the labels given.
    transduction_ : ndarray of shape (n_samples,)
        The label of every row that was labeled (given or added); ``-1`` for rows never labeled.
    n_iter_ : int
        Iterations run.
    n_features_in_ : int
        Columns of ``X`` (both views).

    References
    ----------
    Blum, A. and Mitchell, T. (1998). Combining labeled and unlabeled data with co-training.
    COLT: the two-view loop (a pool of 75, 1 positive and 3 negatives per view per round, 30
    rounds) and the product of the views' probabilities.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y_true = np.repeat([0, 1], 40)
    >>> X = np.hstack([rng.poisson(np.where(y_true[:, None] == 0, [4, 1], [1, 4])),
    ...                rng.poisson(np.where(y_true[:, None] == 0, [3, 1], [1, 3]))])
    >>> y = np.full(80, -1); y[[0, 1, 40, 41]] = [0, 0, 1, 1]
    >>> model = CoTraining(n_view0_features=2, pool_size=10, max_iter=5, random_state=0)
    >>> int((model.fit(X, y).predict(X) == y_true).mean() > 0.8)
    1
    """

    def __init__(self, n_view0_features, estimator=None, per_class=None, pool_size=75,
                 max_iter=30, mode="co", random_state=None):
        self.n_view0_features = n_view0_features
        self.estimator = estimator
        self.per_class = per_class
        self.pool_size = pool_size
        self.max_iter = max_iter
        self.mode = mode
        self.random_state = random_state

    def _check_params(self, n_features):
        """The checked split point of the views; a clear error for a value the fit cannot
        use (the split must leave both views at least one of the ``n_features`` columns)."""
        check_choice("mode", self.mode, MODES)
        check_int("pool_size", self.pool_size, minimum=1)
        check_int("max_iter", self.max_iter, minimum=0)
        return check_int("n_view0_features", self.n_view0_features, minimum=1,
                         maximum=n_features - 1)

    def fit(self, X, y):
        """Co-train on ``X`` (both views side by side) with ``y == -1`` marking unlabeled rows.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            View 0's columns (the first ``n_view0_features``) then view 1's, in the form the
            views' classifier takes (word counts for the default Naive Bayes).
        y : array-like of shape (n_samples,)
            The class of each labeled row, ``-1`` for an unlabeled one; every class needs a
            labeled row.

        Returns
        -------
        self : CoTraining

        Raises
        ------
        ValueError
            If ``estimator`` is not a classifier with ``predict_proba`` and log-probabilities,
            ``n_view0_features`` leaves a view without columns, ``per_class`` is not one count
            per class, or a view has no feature on any labeled row.
        """
        _check_estimator(self.estimator)  # first: validate_data reads the estimator's tags
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype="numeric")
        self._split = self._check_params(X.shape[1])
        y, labeled = semi_supervised_target(y)
        self.classes_ = resolve_classes(np.asarray(y)[labeled], min_classes=2)
        counts = self._growth(np.asarray(y)[labeled])
        self._check_views(X, labeled)
        rng = check_random_state(self.random_state)
        labels = np.where(labeled, y, -1).astype(object)
        unlabeled = list(rng.permutation(np.flatnonzero(~labeled)))
        pool, unlabeled = unlabeled[:self.pool_size], unlabeled[self.pool_size:]
        steps = [CoTrainingStep(0, freeze_array(np.flatnonzero(labeled)),
                                freeze_array(np.asarray(y)[labeled]),
                                freeze_array(np.zeros(int(labeled.sum()), dtype=int)),
                                freeze_array(np.array(pool, dtype=int)), int(labeled.sum()))]
        for iteration in range(1, self.max_iter + 1):
            if not pool:
                break
            estimators = self._fit_views(X, labels)
            chosen_from = freeze_array(np.array(pool, dtype=int))
            added, added_labels, by_view = self._choose(estimators, X, pool, counts)
            labels[added] = added_labels
            chosen = set(added)
            pool = [row for row in pool if row not in chosen]
            refill, unlabeled = unlabeled[:len(added)], unlabeled[len(added):]
            pool += refill
            steps.append(CoTrainingStep(
                iteration, freeze_array(np.array(added, dtype=int)),
                freeze_array(np.array(added_labels)), freeze_array(np.array(by_view, dtype=int)),
                chosen_from, int((labels != -1).sum())))
        self.n_iter_ = len(steps) - 1
        self.estimators_ = self._fit_views(X, labels)
        self.trace_ = Trace(steps)
        done = labels != -1
        self.transduction_ = np.where(done, labels, -1)
        return self

    def _growth(self, y_labeled):
        if self.per_class is not None:
            counts = _per_class_counts(self.per_class, len(self.classes_))
            if len(counts) != len(self.classes_) or sum(counts) == 0:
                raise ValueError(f"per_class must give one count per class ({len(self.classes_)}"
                                 f" classes) and add at least one row, got {self.per_class!r}")
            return np.array(counts)
        sizes = np.array([np.sum(y_labeled == c) for c in self.classes_], dtype=float)
        return np.maximum(np.rint(sizes / sizes.min()), 1).astype(int)

    def _views(self, X):
        if self.mode == "self":
            return [X]
        return [X[:, :self._split], X[:, self._split:]]

    def _check_views(self, X, labeled):
        for index, view in enumerate(self._views(X)):
            words = np.asarray(view.sum(axis=1) if sp.issparse(view)
                               else np.sum(view, axis=1)).ravel()
            if not np.any(words[labeled] > 0):
                raise ValueError(f"view {index} has no features on any labeled row: check "
                                 "n_view0_features and that both views were filled")

    def _fit_views(self, X, labels):
        rows = np.flatnonzero(labels != -1)
        template = MultinomialNB() if self.estimator is None else self.estimator
        return [clone(template).fit(view[rows], labels[rows].astype(self.classes_.dtype))
                for view in self._views(X)]

    def _choose(self, estimators, X, pool, counts):
        """Each view labels its pool rows of largest log-odds per class; a row is taken once."""
        scale = 2 if self.mode == "self" else 1
        added, added_labels, by_view, taken = [], [], [], set()
        for view_index, (estimator, view) in enumerate(zip(estimators, self._views(X),
                                                           strict=True)):
            scores = _log_odds(estimator, view[pool])
            for c, label in enumerate(self.classes_):
                column = list(estimator.classes_).index(label)
                order = np.argsort(-scores[:, column], kind="stable")
                picks = [pool[i] for i in order if pool[i] not in taken][:scale * counts[c]]
                taken.update(picks)
                added += picks
                added_labels += [label] * len(picks)
                by_view += [view_index] * len(picks)
        return added, added_labels, by_view

    def predict_proba(self, X):
        """The views' class probabilities multiplied and renormalised (Blum & Mitchell).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows of both views, laid out as in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Rows sum to one.
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype="numeric", reset=False)
        product = np.ones((X.shape[0], len(self.classes_)))
        for estimator, view in zip(self.estimators_, self._views(X), strict=True):
            product *= estimator.predict_proba(view)
        total = product.sum(axis=1, keepdims=True)
        return np.divide(product, total, out=np.full_like(product, 1 / product.shape[1]),
                         where=total > 0)

    def predict(self, X):
        """The class of largest combined probability.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows of both views, laid out as in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples,)
            A class of ``classes_`` per row.
        """
        proba = self.predict_proba(X)  # first: it raises NotFittedError before a fit
        return self.classes_[np.argmax(proba, axis=1)]

    def __sklearn_tags__(self):
        """The views' classifier's input and score tags (the default Naive Bayes: sparse,
        non-negative counts, a poor fit of continuous data)."""
        tags = super().__sklearn_tags__()
        base = get_tags(MultinomialNB() if self.estimator is None else self.estimator)
        tags.input_tags.sparse = base.input_tags.sparse
        tags.input_tags.positive_only = base.input_tags.positive_only
        tags.classifier_tags.poor_score = base.classifier_tags.poor_score
        return tags

    def predict_view(self, X, view):
        """The prediction of one view's classifier alone (``mode="co"`` only).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows of both views, laid out as in ``fit``.
        view : {0, 1}
            The view whose classifier predicts: 0 the first block of columns, 1 the rest.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            A class of ``classes_`` per row.

        Raises
        ------
        ValueError
            If the model was fitted with ``mode="self"`` (one classifier, no views), or
            ``view`` is neither 0 nor 1.
        """
        check_is_fitted(self)
        if self.mode != "co":
            raise ValueError("predict_view needs mode='co' (self-training has one classifier)")
        check_choice("view", view, (0, 1))
        X = validate_data(self, X, accept_sparse="csr", dtype=None, reset=False)
        return self.estimators_[view].predict(self._views(X)[view])
