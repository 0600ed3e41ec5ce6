"""Yarowsky's algorithm: a decision list that bootstraps itself from a few seed collocations.

Word-sense disambiguation (Yarowsky, 1995) with the decision lists of
:mod:`sslviz.decision_list` (collocation features, rules scored by smoothed log-odds, the first
matching rule decides).

**The Yarowsky loop** (:class:`Yarowsky`).

0. Label every instance that has a seed collocation of exactly one sense (instances with seeds of
   two senses stay unlabeled); train the decision list on them.
1. Apply the list to all instances; those whose first matching rule has confidence above
   ``threshold`` are labeled with its sense. With ``mode="keep"`` earlier labels are never
   revised (the labeled set only grows); with ``mode="rejudge"`` every label except the seeds'
   is judged anew, so an instance can change sense or drop out again. Abney (2004) discusses
   both kinds of variant: labels that stay once assigned, and a labeling recomputed every round.
2. Train a new decision list on the labeled set and repeat from 1 until the labels stop changing
   or ``max_iter`` rounds have run.

The trace (``trace_``) keeps, per iteration, the labels, what changed, the coverage and the
counts of the decision list trained on those labels, so every iteration can be replayed; the
summaries at the end of this module (:func:`decision_list_at`, :func:`label_accuracy`,
:func:`wrong_labels`, ...) read it without refitting.

Cost per iteration: one sparse product to count and one pass over the non-zeros to find each
instance's first rule (O(nnz)); sorting the rules is O(F log F) for F features.

References
----------
Yarowsky, D. (1995). Unsupervised word sense disambiguation rivaling supervised methods. ACL.
Abney, S. (2004). Understanding the Yarowsky algorithm. Computational Linguistics 30(3).
Wiegand, M. (2009). An introduction to semi-supervised learning (lecture), "The Yarowsky
Algorithm" and "A Word of Warning".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from .decision_list import DecisionList, presence_matrix, top_rules
from .splits import UNLABELED
from .trace import Trace, freeze_array
from .validation import (
    check_choice,
    check_classes,
    check_int,
    check_number,
    resolve_classes,
    semi_supervised_target,
)

__all__ = ["MODES", "Yarowsky", "YarowskyStep", "accuracy_by_iteration", "decision_list_at",
           "label_accuracy", "strongest_rules", "wrong_labels"]

MODES = ("keep", "rejudge")


# -- the Yarowsky loop ---------------------------------------------------------------------------
@dataclass(frozen=True)
class YarowskyStep:
    """One iteration of the Yarowsky loop: the labels it produced and the list trained on them.

    Attributes
    ----------
    iteration : int
        0 = the seed labels.
    labels : ndarray of int, shape (n_samples,)
        Class index of every instance after this iteration's labeling; ``-1`` = unlabeled.
        At iteration ``t > 0`` these are the seed labels plus the labels that iteration
        ``t - 1``'s decision list gave with confidence above the threshold.
    added, removed, relabeled : ndarray of int
        Instances labeled now but not before (at iteration 0: the seed instances), labeled
        before but not now (``"rejudge"`` only), labeled before and now with another sense
        (``"rejudge"`` only).
    coverage : float
        Fraction of instances labeled.
    feature_count : ndarray of shape (n_classes, n_features)
        Counts of the decision list trained on ``labels``.
    class_count : ndarray of shape (n_classes,)
    rule_feature, rule_class, rule_score : ndarray
        Its first ``n_top_rules`` rules (see :func:`rank_rules`).
    n_rules : int
        How many rules the whole list has.
    """

    iteration: int
    labels: np.ndarray
    added: np.ndarray
    removed: np.ndarray
    relabeled: np.ndarray
    coverage: float
    feature_count: np.ndarray
    class_count: np.ndarray
    rule_feature: np.ndarray
    rule_class: np.ndarray
    rule_score: np.ndarray
    n_rules: int

    @property
    def labeled(self) -> np.ndarray:
        """Indices of the labeled instances."""
        return np.flatnonzero(self.labels != UNLABELED)

    @property
    def n_labeled(self) -> int:
        return int(np.count_nonzero(self.labels != UNLABELED))


class Yarowsky(ClassifierMixin, BaseEstimator):
    """Yarowsky's bootstrapping of a decision list from seed collocations.

    The instances that have a seed collocation of one sense (or a label in ``y``) train a
    :class:`~sslviz.decision_list.DecisionList`; the list then labels every instance whose first
    matching rule is confident enough, a new list is trained on the grown labeled set, and so on
    until the labels stop changing. ``predict`` applies the final list to any instances.

    Parameters
    ----------
    seeds : dict of sense -> list of (str or int), or None, default=None
        Seed rules per sense: feature names (looked up in ``feature_names`` passed to ``fit``,
        e.g. ``{"product": ["W=manufacturer"], "phone": ["W=telephone"]}``) or column indices.
        ``None``: start from the labels in ``y`` alone.
    threshold : float in [0.5, 1), default=0.95
        An instance joins the labeled set when its first matching rule gives its sense a
        probability ``P(s|f)`` above this (equivalently a score above
        ``log(threshold / (1 - threshold))``: 2.94 for 0.95).
    mode : {"keep", "rejudge"}, default="keep"
        ``"keep"``: a label, once given, stays. ``"rejudge"``: every non-seed label is judged
        anew each round (it may change sense or be withdrawn).
    max_iter : int, default=20
        Rounds after iteration 0.
    alpha : float, default=0.1
        Smoothing of the decision list.
    min_count : int, default=1
        Features seen in fewer labeled instances give no rule.
    classes : array-like or None, default=None
        All senses. When given, every seed sense and every label in ``y`` must be one of them
        and each needs a labeled instance at iteration 0. Default: the seed senses and the
        labels in ``y``.
    n_top_rules : int, default=30
        Rules kept per iteration in the trace for display (the counts, kept in full, give the
        whole list).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    labels_ : ndarray of int, shape (n_samples,)
        Final class index of each training instance, ``-1`` if unlabeled.
    seed_labels_ : ndarray of int, shape (n_samples,)
        The labels of iteration 0 (seeds and ``y``), ``-1`` elsewhere.
    n_seed_conflicts_ : int
        Instances left unlabeled at iteration 0 because they have seeds of several senses.
    decision_list_ : DecisionList
        The list trained on the final labels (what ``predict`` uses).
    n_iter_ : int
        Rounds run after iteration 0.
    converged_ : bool
        Whether the labels stopped changing before ``max_iter``.
    trace_ : Trace of YarowskyStep
        One record per iteration, iteration 0 (the seed labels) first.
    n_features_in_ : int
        Number of columns of the ``X`` seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names of ``X``; set only when ``X`` was a DataFrame with string column names.

    Notes
    -----
    Instances labeled in ``y`` (anything but ``-1``) and instances labeled by the seeds are the
    *given* labels: they stay fixed in both modes; a label in ``y`` wins over a seed.

    References
    ----------
    Yarowsky, D. (1995). Unsupervised word sense disambiguation rivaling supervised methods.
    ACL. Abney, S. (2004). Understanding the Yarowsky algorithm. Computational Linguistics 30(3).

    Examples
    --------
    >>> import numpy as np
    >>> from sslviz.yarowsky import Yarowsky
    >>> X = np.array([[1, 0, 1], [1, 0, 0], [0, 1, 1], [0, 1, 0], [1, 0, 1], [0, 1, 0]])
    >>> Yarowsky().fit(X, np.array([0, -1, 1, -1, -1, -1])).predict(X).tolist()
    [0, 0, 1, 1, 0, 1]
    """

    def __init__(self, seeds=None, *, threshold=0.95, mode="keep", max_iter=20, alpha=0.1,
                 min_count=1, classes=None, n_top_rules=30):
        self.seeds = seeds
        self.threshold = threshold
        self.mode = mode
        self.max_iter = max_iter
        self.alpha = alpha
        self.min_count = min_count
        self.classes = classes
        self.n_top_rules = n_top_rules

    def fit(self, X, y=None, *, feature_names=None):
        """Run the loop on the instances ``X`` (binary features, sparse or dense).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Binary features of the instances, e.g. from
            :func:`~sslviz.decision_list.collocation_matrix`; any non-zero value counts as
            "present".
        y : array-like of shape (n_samples,) or None, default=None
            Hand labels (senses, integers or strings), ``-1`` for unlabeled instances;
            ``None`` = all unlabeled (the seeds alone start the loop).
        feature_names : sequence of str or None, default=None
            Names of the columns of ``X``; needed when seed rules are given by name.

        Returns
        -------
        self : Yarowsky
            The fitted estimator.

        Raises
        ------
        ValueError
            If a parameter is out of its range or ``seeds`` is not a dict; if a seed rule is
            empty, not a feature of ``feature_names`` (or given by name without them), out of
            range, or matches no instance; if fewer than two senses are given, a seed sense is
            not in ``classes``, the senses mix strings and numbers, or a sense has no labeled
            instance at iteration 0; if ``y`` does not have one entry per row of ``X`` or
            breaks the label rule (:func:`sslviz.validation.semi_supervised_target`).
        """
        for _ in self.iter_fit(X, y, feature_names=feature_names):
            pass
        return self

    def iter_fit(self, X, y=None, *, feature_names=None):
        """Fit step by step: a generator yielding each :class:`YarowskyStep` as it is recorded.

        ``fit`` runs it to the end; the fitted attributes always describe the last yielded step.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            As for :meth:`fit`.
        y : array-like of shape (n_samples,) or None, default=None
            As for :meth:`fit`.
        feature_names : sequence of str or None, default=None
            As for :meth:`fit`.

        Yields
        ------
        step : YarowskyStep
            One round's record, iteration 0 (the seeds and hand labels) first; the loop stops
            without a further record once the labels no longer change.

        Raises
        ------
        ValueError
            As :meth:`fit`, at the first ``next()``.
        """
        self._check_params()
        X = validate_data(self, X, accept_sparse="csr")
        B = presence_matrix(X)
        given = self._given_labels(B, y, feature_names)
        fixed = given != UNLABELED
        labels = given.copy()
        records = []
        step, decision_list = self._step(B, 0, labels, np.full_like(labels, UNLABELED))
        self.n_iter_, self.converged_ = 0, False
        self._set_fitted(records, step, decision_list, given)
        yield step
        for iteration in range(1, self.max_iter + 1):
            _, sense, confidence = decision_list.apply_rules(B)
            confident = confidence > self.threshold  # NaN (no rule matches) is never above
            if self.mode == "keep":
                new = labels.copy()
                take = confident & (labels == UNLABELED)
            else:
                new = np.full_like(labels, UNLABELED)
                take = confident & ~fixed
            new[take] = sense[take]
            new[fixed] = given[fixed]
            if np.array_equal(new, labels):
                self.converged_ = True
                return
            step, decision_list = self._step(B, iteration, new, labels)
            labels = new
            self.n_iter_ = iteration
            self._set_fitted(records, step, decision_list, given)
            yield step

    def _step(self, B, iteration, labels, previous):
        """Train the list on ``labels`` and record the iteration."""
        counts, class_count = _count(B, labels, len(self.classes_))
        decision_list = DecisionList.from_counts(self.classes_, counts, class_count,
                                                 alpha=self.alpha, min_count=self.min_count)
        was, now = previous != UNLABELED, labels != UNLABELED
        k = self.n_top_rules
        step = YarowskyStep(
            iteration=iteration,
            labels=freeze_array(labels),
            added=freeze_array(np.flatnonzero(now & ~was)),
            removed=freeze_array(np.flatnonzero(was & ~now)),
            relabeled=freeze_array(np.flatnonzero(was & now & (labels != previous))),
            coverage=float(now.mean()),
            feature_count=freeze_array(counts.astype(np.int32)),
            class_count=freeze_array(class_count),
            rule_feature=freeze_array(decision_list.rule_feature_[:k]),
            rule_class=freeze_array(decision_list.rule_class_[:k]),
            rule_score=freeze_array(decision_list.rule_score_[:k]),
            n_rules=len(decision_list.rule_feature_),
        )
        return step, decision_list

    def _set_fitted(self, records, step, decision_list, given):
        records.append(step)
        self.trace_ = Trace(records)
        self.labels_ = np.array(step.labels)
        self.seed_labels_ = given
        self.decision_list_ = decision_list

    # -- validation ------------------------------------------------------------------------------
    def _check_params(self):
        check_number("alpha", self.alpha, above=0)
        check_int("min_count", self.min_count, minimum=1)
        threshold = self.threshold
        if not (np.isscalar(threshold) and not isinstance(threshold, str)
                and 0.5 <= threshold < 1):
            raise ValueError(f"threshold must lie in [0.5, 1) (a probability P(s|f) the first "
                             f"matching rule must exceed), got {threshold!r}")
        check_choice("mode", self.mode, MODES)
        check_int("max_iter", self.max_iter, minimum=0)
        check_int("n_top_rules", self.n_top_rules, minimum=0)
        if self.seeds is not None and not isinstance(self.seeds, dict):
            raise ValueError(
                "seeds must be a dict mapping each sense to its seed rules, e.g. "
                f"{{'product': ['W=manufacturer'], 'phone': ['W=telephone']}}; got {self.seeds!r}"
            )

    def _given_labels(self, B, y, feature_names):
        """Iteration 0's labels (class indices, -1 unlabeled); sets classes_ and the conflicts."""
        y, hand = _hand_labels(y, B.shape[0])
        seeds = {sense: [rules] if isinstance(rules, str | int | np.integer) else list(rules)
                 for sense, rules in (self.seeds or {}).items()}
        self.classes_ = self._senses(seeds, y[hand])
        index = {sense: i for i, sense in enumerate(self.classes_.tolist())}
        votes = _seed_votes(B, seeds, feature_names, index)
        n_votes = votes.sum(axis=1)
        self.n_seed_conflicts_ = int(np.count_nonzero(n_votes > 1))
        given = np.where(n_votes == 1, np.argmax(votes, axis=1), UNLABELED).astype(np.int64)
        given[hand] = [index[label] for label in y[hand].tolist()]
        missing = [str(s) for i, s in enumerate(self.classes_) if not np.any(given == i)]
        if missing:
            raise ValueError(
                f"no instance has a label for sense(s) {missing} at iteration 0: give each "
                "sense a seed rule that matches instances without seeds of another sense (or "
                "labeled instances in y)"
            )
        return given

    def _senses(self, seeds, hand_labels):
        """The sorted senses: ``classes`` if given, else the seed senses and the hand labels."""
        if check_classes(self.classes) is not None:
            known = np.unique(np.asarray(self.classes))
            unknown = sorted(map(str, set(seeds) - set(known.tolist())))
            if unknown:
                raise ValueError(f"seed sense(s) {unknown} are not in classes="
                                 f"{known.tolist()}")
        kinds = {isinstance(v, str | bytes) for v in list(seeds) + hand_labels.tolist()}
        if len(kinds) > 1:
            raise ValueError(f"the seed senses {list(seeds)} and the labels of y "
                             f"({sorted(set(hand_labels.tolist()), key=str)[:5]}) mix strings "
                             "and numbers: name the senses the way y labels them")
        labels = np.asarray(list(seeds) + hand_labels.tolist())
        senses = resolve_classes(labels, self.classes, require_every_class=False,
                                 min_classes=0)
        if len(senses) < 2:
            raise ValueError(
                f"Yarowsky needs at least two senses (classes), got {len(senses)} class(es): "
                f"{sorted(map(str, senses))}; give seed rules (or labeled instances in y) for two "
                "senses or more"
            )
        return senses

    # -- prediction ------------------------------------------------------------------------------
    def predict(self, X):
        """Senses from the final decision list (its default where no rule matches).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Binary features with the columns of ``fit``; any instances, not only the fitted
            ones (whose loop labels are ``labels_``).

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Senses from ``classes_``; where no rule matches, the sense most frequent among
            the final labeled instances.
        """
        check_is_fitted(self)
        return self.decision_list_.predict(self._check_X(X))

    def predict_proba(self, X):
        """``P(s|f)`` of the final list's first matching rule (class prior where none).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Binary features with the columns of ``fit``; any instances, not only the fitted
            ones.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Rows sum to one; columns in the order of ``classes_``.
        """
        check_is_fitted(self)
        return self.decision_list_.predict_proba(self._check_X(X))

    def _check_X(self, X):
        return validate_data(self, X, accept_sparse="csr", reset=False)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        # rules test features as present or absent: on dense continuous data (every feature
        # present in every row) all rows meet the same rule, as MultinomialNB declares too
        tags.classifier_tags.poor_score = True
        tags.target_tags.required = False  # seeds alone can label the instances
        return tags


def _count(B, labels, n_classes):
    """(n(s, f) of the labeled rows, labeled rows per class)."""
    labeled = np.flatnonzero(labels != UNLABELED)
    onehot = sp.csr_matrix((np.ones(len(labeled)), (labels[labeled], labeled)),
                           shape=(n_classes, B.shape[0]))
    counts = np.asarray((onehot @ B).todense(), dtype=np.int64)
    return counts, np.bincount(labels[labeled], minlength=n_classes).astype(np.int64)


def _hand_labels(y, n_samples):
    """``y`` as a 1-D array (all ``-1`` if ``None``) and the mask of its labeled rows."""
    y = np.full(n_samples, UNLABELED) if y is None else np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = column_or_1d(y, warn=True)
    if y.shape != (n_samples,):
        raise ValueError(f"y must have shape ({n_samples},) like the rows of X, "
                         f"got {y.shape}")
    return semi_supervised_target(y)


def _seed_votes(B, seeds, feature_names, index):
    """Boolean (n_samples, n_classes): which senses' seed rules each instance matches."""
    votes = np.zeros((B.shape[0], len(index)), dtype=bool)
    columns = B.T.tocsr()  # row f: the instances having feature f
    for sense, rules in seeds.items():
        if not rules:
            raise ValueError(f"sense {sense!r} has an empty list of seed rules")
        for rule in rules:
            rows = columns[_seed_column(rule, feature_names, B.shape[1])].indices
            if len(rows) == 0:
                raise ValueError(f"seed rule {rule!r} of sense {sense!r} matches no instance;"
                                 " choose a collocation that occurs in the data")
            votes[rows, index[sense]] = True
    return votes


def _seed_column(rule, feature_names, n_features):
    if isinstance(rule, int | np.integer) and not isinstance(rule, bool):
        if not 0 <= rule < n_features:
            raise ValueError(f"seed rule column {rule} is out of range: X has {n_features} "
                             "features")
        return int(rule)
    if not isinstance(rule, str):
        raise ValueError(f"a seed rule must be a feature name (str) or a column index, "
                         f"got {rule!r}")
    if feature_names is None:
        raise ValueError(f"seed rule {rule!r} is a feature name: pass feature_names to fit "
                         "(e.g. the names from collocation_matrix)")
    names = np.asarray(feature_names)
    if len(names) != n_features:
        raise ValueError(f"{len(names)} feature names for {n_features} columns of X")
    hits = np.flatnonzero(names == rule)
    if len(hits) == 0:
        raise ValueError(f"seed rule {rule!r} is not a feature; features look like 'L1=the', "
                         "'R1=of', 'W=telephone'")
    return int(hits[0])


# -- summaries of a fitted run (pure functions over the trace) -----------------------------------
def decision_list_at(model, iteration=None):
    """The decision list a :class:`Yarowsky` run trained at ``iteration`` (default: the last).

    Rebuilt from the counts recorded in the trace; nothing is refitted.
    """
    check_is_fitted(model)
    step = model.trace_.iteration(len(model.trace_) - 1 if iteration is None else iteration)
    return DecisionList.from_counts(model.classes_, step.feature_count, step.class_count,
                                    alpha=model.alpha, min_count=model.min_count)


def strongest_rules(model, feature_names, iteration, k):
    """``(rules, n_rules)``: the ``k`` strongest rules (:func:`sslviz.decision_list.top_rules`) of
    the decision list ``model`` trained at ``iteration``, and how many rules that list has."""
    decision_list = decision_list_at(model, iteration)
    return top_rules(decision_list, feature_names, k=k), len(decision_list.rule_feature_)


def accuracy_by_iteration(model, X, y):
    """Accuracy on ``(X, y)`` of every recorded iteration's decision list, shape (n_iterations,).

    Rows no rule matches get the list's default (the most frequent labeled sense).
    """
    y = np.asarray(y)
    return np.array([np.mean(decision_list_at(model, i).predict(X) == y)
                     for i in range(len(model.trace_))])


def label_accuracy(model, y):
    """Fraction of the labeled training instances whose label is right, per iteration.

    Parameters
    ----------
    model : fitted Yarowsky
    y : array-like of shape (n_samples,)
        Gold senses of the instances ``model`` was fitted on.

    Returns
    -------
    ndarray of shape (n_iterations,)
    """
    check_is_fitted(model)
    return np.array([np.mean(_labels_right(model, step, y)[1]) for step in model.trace_])


def wrong_labels(model, gold, iteration=None):
    """Instances labeled at ``iteration`` (default: the last) whose label is not their gold sense.

    Parameters
    ----------
    model : fitted Yarowsky
    gold : array-like of shape (n_samples,)
        Gold senses of the instances ``model`` was fitted on.

    Returns
    -------
    ndarray of int
        Indices of the wrongly labeled instances, increasing.
    """
    check_is_fitted(model)
    step = model.trace_.iteration(len(model.trace_) - 1 if iteration is None else iteration)
    labeled, right = _labels_right(model, step, gold)
    return labeled[~right]


def _labels_right(model, step, gold):
    """(indices of the instances labeled at ``step``, whether each label equals ``gold``)."""
    gold = np.asarray(gold)
    if len(gold) != len(model.labels_):
        raise ValueError(f"y has {len(gold)} entries but the model was fitted on "
                         f"{len(model.labels_)} instances")
    labeled = step.labeled
    return labeled, model.classes_[step.labels[labeled]] == gold[labeled]
