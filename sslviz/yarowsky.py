"""Yarowsky's algorithm: a decision list that bootstraps itself from a few seed collocations.

Word-sense disambiguation (Yarowsky, 1995). Each instance is one occurrence of an ambiguous word
(*line*: a product line or a telephone line?) with the words around it. The instance is described
by binary **collocation features** (:func:`collocations`): the word immediately to the left
(``L1=phone``), immediately to the right (``R1=of``) and every word within ``±window`` positions
(``W=telephone``).

**Decision list.** From labeled instances, count ``n(s, f)``, the number of instances of sense
``s`` that have feature ``f``. With additive smoothing ``alpha`` and ``K`` senses,

    P(s|f) = (n(s, f) + alpha) / (n(f) + K alpha),        n(f) = Σ_s n(s, f)

and the rule for ``f`` predicts the sense ``s*`` with the largest count, with score

    score(f) = log P(s*|f) / P(not s*|f)
             = log (n(s*, f) + alpha) / (n(f) - n(s*, f) + (K - 1) alpha).

For two senses this is Yarowsky's log-likelihood ratio ``log P(s1|f) / P(s2|f)``; for more senses
it is the log-odds of the best sense against all the others together, which keeps the meaning
"how much more likely is the rule right than wrong". Rules are sorted by score, strongest first
(ties: the more frequent feature first, then the feature's column). An instance is classified by
the **first rule whose feature it has**, with that rule's ``P(s*|f)`` as confidence; an instance
that no rule matches gets the most frequent sense of the labeled data (and no confidence). Rules
whose score is not positive (no sense beats the others) and features seen fewer than
``min_count`` times are left out.

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
counts of the decision list trained on those labels, so every iteration can be replayed.

Cost: one sparse product ``B.T @ Y`` (O(nnz)) to count and one pass over the non-zeros to find
each instance's first rule, per iteration; sorting the rules is O(F log F) for F features.

References
----------
Yarowsky, D. (1995). Unsupervised word sense disambiguation rivaling supervised methods. ACL.
Abney, S. (2004). Understanding the Yarowsky algorithm. Computational Linguistics 30(3).
Wiegand, M. (2009). An introduction to semi-supervised learning (lecture), "The Yarowsky
Algorithm" and "A Word of Warning".
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction import DictVectorizer
from sklearn.model_selection import train_test_split
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from .splits import UNLABELED, is_unlabeled, split_labeled
from .trace import Trace, freeze_array

MODES = ("keep", "rejudge")


# -- features ------------------------------------------------------------------------------------
def collocations(tokens, head, *, window=10, stop_words=()) -> list[str]:
    """The collocation features of one instance.

    Parameters
    ----------
    tokens : sequence of str
        The words of the context.
    head : int
        Position of the ambiguous word in ``tokens``.
    window : int, default=10
        ``W=`` features come from the words at most ``window`` positions away from the head.
    stop_words : collection of str, default=()
        Words that give no ``W=`` feature (they still give ``L1=``/``R1=``).

    Returns
    -------
    list of str
        ``"L1=<word>"`` (left neighbour; absent at the start), ``"R1=<word>"`` (right
        neighbour), then ``"W=<word>"`` for every distinct word in the window that contains a
        letter or digit (punctuation gives no ``W=`` feature), the head itself excluded.
        No duplicates.
    """
    if not 0 <= head < len(tokens):
        raise ValueError(f"head index {head} is outside the {len(tokens)} tokens of the context")
    features = []
    if head > 0:
        features.append(f"L1={tokens[head - 1]}")
    if head + 1 < len(tokens):
        features.append(f"R1={tokens[head + 1]}")
    seen = set()
    for j in range(max(0, head - window), min(len(tokens), head + window + 1)):
        word = tokens[j]
        if (j != head and word not in seen and word not in stop_words
                and any(ch.isalnum() for ch in word)):
            seen.add(word)
            features.append(f"W={word}")
    return features


def collocation_matrix(contexts, heads, *, window=10, stop_words=(), min_df=1):
    """Binary instance × feature matrix of :func:`collocations`.

    Parameters
    ----------
    contexts : sequence of sequence of str
        Tokens of each instance (e.g. ``SensevalCorpus.tokens``).
    heads : sequence of int
        Position of the ambiguous word in each context.
    window, stop_words
        As in :func:`collocations`.
    min_df : int, default=1
        Keep the features of at least this many instances.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_instances, n_features), float64, entries 0 or 1
    feature_names : ndarray of str, shape (n_features,), sorted
    """
    if len(contexts) != len(heads):
        raise ValueError(f"{len(contexts)} contexts but {len(heads)} head positions")
    rows = [dict.fromkeys(collocations(tokens, int(head), window=window,
                                       stop_words=stop_words), 1)
            for tokens, head in zip(contexts, heads, strict=True)]
    vectorizer = DictVectorizer(dtype=np.float64, sort=True)
    X = vectorizer.fit_transform(rows).tocsr()
    names = np.asarray(vectorizer.get_feature_names_out(), dtype=str)
    if min_df > 1:
        keep = np.flatnonzero(np.asarray((X != 0).sum(axis=0)).ravel() >= min_df)
        X, names = X[:, keep], names[keep]
    return X, names


# -- the decision list ---------------------------------------------------------------------------
def rank_rules(feature_count, alpha, min_count=1):
    """Rules of a decision list from counts: which features, which sense, which score, in order.

    Parameters
    ----------
    feature_count : array of shape (n_classes, n_features)
        ``n(s, f)``: labeled instances of sense ``s`` having feature ``f``.
    alpha : float
        Additive smoothing.
    min_count : int, default=1
        Features seen in fewer labeled instances give no rule.

    Returns
    -------
    features : ndarray of int, shape (n_rules,)
        Feature columns, strongest rule first.
    classes : ndarray of int, shape (n_rules,)
        Index of each rule's sense (the sense with the largest count; ties: the first).
    scores : ndarray of float, shape (n_rules,)
        ``log P(s*|f) / P(not s*|f)`` (see the module docstring); all positive.
    """
    counts = np.asarray(feature_count, dtype=np.float64)
    n_classes = counts.shape[0]
    empty = np.array([], dtype=np.int64)
    if n_classes < 2:
        return empty, empty, np.array([], dtype=np.float64)
    total = counts.sum(axis=0)
    best = np.argmax(counts, axis=0)
    best_count = counts[best, np.arange(counts.shape[1])]
    with np.errstate(divide="ignore"):
        scores = (np.log(best_count + alpha)
                  - np.log(total - best_count + (n_classes - 1) * alpha))
    usable = np.flatnonzero((total >= max(min_count, 1)) & (scores > 0))
    order = np.lexsort((usable, -total[usable], -scores[usable]))
    features = usable[order]
    return features.astype(np.int64), best[features].astype(np.int64), scores[features]


class DecisionList(ClassifierMixin, BaseEstimator):
    """Yarowsky's decision list over binary features: the first matching rule decides.

    Parameters
    ----------
    alpha : float, default=0.1
        Additive smoothing of ``P(s|f)`` (see the module docstring).
    min_count : int, default=1
        Features present in fewer labeled instances give no rule.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
        Labeled instances per class.
    feature_count_ : ndarray of shape (n_classes, n_features)
        Labeled instances of each class having each feature (a feature is present when its
        value is non-zero).
    rule_feature_, rule_class_, rule_score_ : ndarray of shape (n_rules,)
        The rules, strongest first: feature column, class index, score (see :func:`rank_rules`).
    n_features_in_ : int

    Notes
    -----
    Features are presence indicators: any non-zero value counts as "present". Dense data whose
    entries are all non-zero gives every instance every feature, and then every instance the same
    rule.
    """

    def __init__(self, alpha=0.1, min_count=1):
        self.alpha = alpha
        self.min_count = min_count

    def fit(self, X, y):
        """Count features per class in ``X`` (sparse or dense) and rank the rules.

        Returns
        -------
        self
        """
        _check_alpha_min_count(self.alpha, self.min_count)
        X, y = validate_data(self, X, y, accept_sparse="csr")
        check_classification_targets(y)
        self.classes_, y_index = np.unique(y, return_inverse=True)
        onehot = sp.csr_matrix((np.ones(len(y)), (np.arange(len(y)), y_index)),
                               shape=(len(y), len(self.classes_)))
        counts = np.asarray((onehot.T @ _presence(X)).todense())
        self._set_counts(counts, np.bincount(y_index, minlength=len(self.classes_)))
        return self

    @classmethod
    def from_counts(cls, classes, feature_count, class_count, *, alpha=0.1, min_count=1):
        """A fitted list from counts (e.g. those recorded in a Yarowsky trace)."""
        _check_alpha_min_count(alpha, min_count)
        model = cls(alpha=alpha, min_count=min_count)
        model.classes_ = np.asarray(classes)
        model.n_features_in_ = np.asarray(feature_count).shape[1]
        model._set_counts(np.asarray(feature_count), np.asarray(class_count))
        return model

    def _set_counts(self, feature_count, class_count):
        self.feature_count_ = feature_count.astype(np.int64)
        self.class_count_ = class_count.astype(np.int64)
        self.rule_feature_, self.rule_class_, self.rule_score_ = rank_rules(
            self.feature_count_, self.alpha, self.min_count)
        rank = np.full(self.feature_count_.shape[1], len(self.rule_feature_), dtype=np.int64)
        rank[self.rule_feature_] = np.arange(len(self.rule_feature_))
        self._rank = rank

    # -- applying the rules ----------------------------------------------------------------------
    def first_rule(self, X):
        """Position in the list of the first rule each row matches; ``-1`` where none does.

        Returns
        -------
        ndarray of int, shape (n_samples,)
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", reset=False)
        B = _presence(X)
        n_rules = len(self.rule_feature_)
        first = np.full(B.shape[0], n_rules, dtype=np.int64)
        nonempty = np.flatnonzero(np.diff(B.indptr) > 0)
        if len(nonempty):
            first[nonempty] = np.minimum.reduceat(self._rank[B.indices], B.indptr[nonempty])
        first[first == n_rules] = -1
        return first

    def rule_proba(self, rules=None):
        """Smoothed ``P(s|f)`` of rules, shape (n_rules, n_classes) (all rules if ``None``)."""
        check_is_fitted(self)
        features = self.rule_feature_ if rules is None else self.rule_feature_[rules]
        counts = self.feature_count_[:, features].T + self.alpha
        return counts / counts.sum(axis=1, keepdims=True)

    def apply_rules(self, X):
        """Which rule decides each row, for which sense, how confidently.

        Returns
        -------
        rule : ndarray of int, shape (n_samples,)
            Position of the first matching rule in the list, ``-1`` where none matches.
        sense : ndarray of int, shape (n_samples,)
            Index into ``classes_`` of that rule's sense, ``-1`` where none matches.
        confidence : ndarray of float, shape (n_samples,)
            That rule's ``P(s*|f)``, NaN where none matches.
        """
        rule = self.first_rule(X)
        hit = rule >= 0
        sense = np.full(len(rule), -1, dtype=np.int64)
        sense[hit] = self.rule_class_[rule[hit]]
        confidence = np.full(len(rule), np.nan)
        proba = self.rule_proba(rule[hit])
        confidence[hit] = proba[np.arange(len(proba)), sense[hit]]
        return rule, sense, confidence

    def predict_proba(self, X):
        """``P(s|f)`` of the first matching rule; the smoothed class prior where none matches.

        Returns
        -------
        ndarray of shape (n_samples, n_classes); rows sum to one.
        """
        check_is_fitted(self)
        first = self.first_rule(X)
        prior = self.class_count_ + self.alpha
        proba = np.tile(prior / prior.sum(), (len(first), 1))
        hit = first >= 0
        proba[hit] = self.rule_proba(first[hit])
        return proba

    def predict(self, X):
        """The sense of the first matching rule; the most frequent labeled class otherwise."""
        check_is_fitted(self)
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def _presence(X):
    """Binary CSR (float64) of the non-zero entries of X."""
    B = sp.csr_matrix(X, dtype=np.float64, copy=True)
    B.eliminate_zeros()
    B.data[:] = 1.0
    B.sort_indices()
    return B


def _check_alpha_min_count(alpha, min_count):
    if not (np.isscalar(alpha) and not isinstance(alpha, str) and alpha > 0):
        raise ValueError(f"alpha must be a positive number, got {alpha!r}")
    if not isinstance(min_count, int | np.integer) or min_count < 1:
        raise ValueError(f"min_count must be an integer >= 1, got {min_count!r}")


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
    n_features_in_ : int

    Notes
    -----
    Instances labeled in ``y`` (anything but ``-1``) and instances labeled by the seeds are the
    *given* labels: they stay fixed in both modes; a label in ``y`` wins over a seed.
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
        y : array-like of shape (n_samples,) or None
            Hand labels, ``-1`` for unlabeled instances; ``None`` = all unlabeled.
        feature_names : sequence of str or None
            Names of the columns of ``X``; needed when seed rules are given by name.

        Returns
        -------
        self
        """
        for _ in self.iter_fit(X, y, feature_names=feature_names):
            pass
        return self

    def iter_fit(self, X, y=None, *, feature_names=None):
        """Fit step by step: a generator yielding each :class:`YarowskyStep` as it is recorded."""
        self._validate_params()
        X = validate_data(self, X, accept_sparse="csr")
        B = _presence(X)
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
    def _validate_params(self):
        _check_alpha_min_count(self.alpha, self.min_count)
        threshold = self.threshold
        if not (np.isscalar(threshold) and not isinstance(threshold, str)
                and 0.5 <= threshold < 1):
            raise ValueError(f"threshold must lie in [0.5, 1) (a probability P(s|f) the first "
                             f"matching rule must exceed), got {threshold!r}")
        if self.mode not in MODES:
            raise ValueError(f"mode must be 'keep' or 'rejudge', got {self.mode!r}")
        for name in ("max_iter", "n_top_rules"):
            value = getattr(self, name)
            if not isinstance(value, int | np.integer) or value < 0:
                raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
        if self.seeds is not None and not isinstance(self.seeds, dict):
            raise ValueError(
                "seeds must be a dict mapping each sense to its seed rules, e.g. "
                f"{{'product': ['W=manufacturer'], 'phone': ['W=telephone']}}; got {self.seeds!r}"
            )

    def _given_labels(self, B, y, feature_names):
        """Iteration 0's labels (class indices, -1 unlabeled); sets classes_ and the conflicts."""
        n_samples = B.shape[0]
        y = np.full(n_samples, UNLABELED) if y is None else np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = column_or_1d(y, warn=True)
        if y.shape != (n_samples,):
            raise ValueError(f"y must have shape ({n_samples},) like the rows of X, "
                             f"got {y.shape}")
        hand = ~is_unlabeled(y)
        if hand.any():
            check_classification_targets(y[hand])
        seeds = {sense: [rules] if isinstance(rules, str | int | np.integer) else list(rules)
                 for sense, rules in (self.seeds or {}).items()}
        senses = set(seeds) | set(y[hand].tolist())
        if self.classes is not None:
            known = np.unique(np.asarray(self.classes))
            unknown = sorted(map(str, set(seeds) - set(known.tolist())))
            if unknown:
                raise ValueError(f"seed sense(s) {unknown} are not in classes="
                                 f"{known.tolist()}")
            unknown = sorted(map(str, set(y[hand].tolist()) - set(known.tolist())))
            if unknown:
                raise ValueError(f"y holds labels {unknown} that are not in classes="
                                 f"{known.tolist()}; use -1 for unlabeled instances")
            senses = set(known.tolist())
        if len(senses) < 2:
            raise ValueError(
                f"Yarowsky needs at least two senses (classes), got {len(senses)} class(es): "
                f"{sorted(map(str, senses))}; give seed rules (or labeled instances in y) for two "
                "senses or more"
            )
        self.classes_ = np.array(sorted(senses))
        index = {sense: i for i, sense in enumerate(self.classes_.tolist())}
        votes = np.zeros((n_samples, len(self.classes_)), dtype=bool)
        columns = B.T.tocsr()  # row f: the instances having feature f
        for sense, rules in seeds.items():
            if not rules:
                raise ValueError(f"sense {sense!r} has an empty list of seed rules")
            for rule in rules:
                column = _seed_column(rule, feature_names, B.shape[1])
                rows = columns[column].indices
                if len(rows) == 0:
                    raise ValueError(f"seed rule {rule!r} of sense {sense!r} matches no instance;"
                                     " choose a collocation that occurs in the data")
                votes[rows, index[sense]] = True
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

    # -- prediction ------------------------------------------------------------------------------
    def predict(self, X):
        """Senses from the final decision list (its default where no rule matches)."""
        check_is_fitted(self)
        return self.decision_list_.predict(self._check_X(X))

    def predict_proba(self, X):
        """``P(s|f)`` of the final list's first matching rule (class prior where none)."""
        check_is_fitted(self)
        return self.decision_list_.predict_proba(self._check_X(X))

    def _check_X(self, X):
        return validate_data(self, X, accept_sparse="csr", reset=False)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.required = False  # seeds alone can label the instances
        return tags


def _count(B, labels, n_classes):
    """(n(s, f) of the labeled rows, labeled rows per class)."""
    labeled = np.flatnonzero(labels != UNLABELED)
    onehot = sp.csr_matrix((np.ones(len(labeled)), (labels[labeled], labeled)),
                           shape=(n_classes, B.shape[0]))
    counts = np.asarray((onehot @ B).todense(), dtype=np.int64)
    return counts, np.bincount(labels[labeled], minlength=n_classes).astype(np.int64)


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
class Rule(NamedTuple):
    """One rule of a decision list, for display."""

    feature: str
    sense: object
    score: float
    confidence: float
    count: int


def decision_list_at(model, iteration=None):
    """The decision list a :class:`Yarowsky` run trained at ``iteration`` (default: the last).

    Rebuilt from the counts recorded in the trace; nothing is refitted.
    """
    check_is_fitted(model)
    step = model.trace_.iteration(len(model.trace_) - 1 if iteration is None else iteration)
    return DecisionList.from_counts(model.classes_, step.feature_count, step.class_count,
                                    alpha=model.alpha, min_count=model.min_count)


def top_rules(decision_list, feature_names, k=10):
    """The ``k`` strongest rules of a fitted :class:`DecisionList` as :class:`Rule` tuples.

    ``confidence`` is the rule's ``P(s*|f)``, ``count`` how many labeled instances have the
    feature.
    """
    check_is_fitted(decision_list)
    names = np.asarray(feature_names)
    if len(names) != decision_list.n_features_in_:
        raise ValueError(f"{len(names)} feature names for a list over "
                         f"{decision_list.n_features_in_} features")
    rules = np.arange(min(k, len(decision_list.rule_feature_)))
    proba = decision_list.rule_proba(rules)
    return [Rule(str(names[f]), decision_list.classes_[c], float(score), float(p[c]),
                 int(decision_list.feature_count_[:, f].sum()))
            for f, c, score, p in zip(decision_list.rule_feature_[rules],
                                      decision_list.rule_class_[rules],
                                      decision_list.rule_score_[rules], proba, strict=True)]


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
    y = np.asarray(y)
    if len(y) != len(model.labels_):
        raise ValueError(f"y has {len(y)} entries but the model was fitted on "
                         f"{len(model.labels_)} instances")
    accuracy = []
    for step in model.trace_:
        labeled = step.labeled
        accuracy.append(np.mean(model.classes_[step.labels[labeled]] == y[labeled]))
    return np.array(accuracy)


def supervised_decision_list(X, y, n_labeled, *, random_state=None, alpha=0.1, min_count=1):
    """A decision list trained on ``n_labeled`` hand-labeled instances drawn at random.

    The draw is stratified (class shares as in ``y``, at least one instance of every class; see
    :func:`sslviz.splits.split_labeled`): the comparison a Yarowsky run should beat.

    Returns
    -------
    model : fitted DecisionList
    rows : ndarray of int
        The instances drawn.
    """
    y = np.asarray(y)
    rows = split_labeled(y, n_labeled, random_state=random_state).labeled
    return DecisionList(alpha=alpha, min_count=min_count).fit(X[rows], y[rows]), rows


def instance_map(X, *, random_state=0, n_lsa=30, perplexity=30.0):
    """2-D map of instances for pictures: LSA of the tf-idf weighted features, then t-SNE.

    Instances that share collocations land near each other. The algorithm never sees this map;
    it only shows where labels spread. Cost: a few seconds for 2,000 instances.

    Returns
    -------
    ndarray of shape (n_samples, 2)
    """
    from sklearn.feature_extraction.text import TfidfTransformer
    from sklearn.manifold import TSNE
    from sklearn.preprocessing import normalize
    from threadpoolctl import threadpool_limits  # a dependency of scikit-learn

    weighted = normalize(TfidfTransformer().fit_transform(_presence(X)))
    n_lsa = min(n_lsa, weighted.shape[1] - 1, weighted.shape[0] - 1)
    perplexity = min(perplexity, (weighted.shape[0] - 1) / 3)
    # One thread: t-SNE's OpenMP loop is about 4x slower on a busy 2-core machine with two.
    with threadpool_limits(1):
        reduced = TruncatedSVD(n_lsa, random_state=random_state).fit_transform(weighted)
        return TSNE(2, perplexity=perplexity, init="pca", random_state=random_state,
                    max_iter=500).fit_transform(reduced)


# -- one word-sense experiment: pool, test, run --------------------------------------------------
@dataclass(frozen=True)
class SenseTask:
    """Instances of some senses of one word, vectorized, split into a pool and a test set.

    Attributes
    ----------
    word : str
    senses : tuple of str
    X : csr_matrix of shape (n_instances, n_features)
        Collocation features of every instance (:func:`collocation_matrix`).
    y : ndarray of str, shape (n_instances,)
        Gold senses.
    feature_names : ndarray of str
    pool, test : ndarray of int
        The instances Yarowsky bootstraps on (as unlabeled data), and the held-out ones every
        classifier is scored on (stratified, seeded).
    contexts : list of str
        Each instance as text, the ambiguous word in brackets.
    """

    word: str
    senses: tuple
    X: sp.csr_matrix
    y: np.ndarray
    feature_names: np.ndarray
    pool: np.ndarray
    test: np.ndarray
    contexts: list


def sense_task(corpus, senses=None, *, window=10, stop_words=(), test_size=0.25,
               random_state=0):
    """Vectorize a :class:`~sslviz.datasets.SensevalCorpus` and split it into pool and test.

    Parameters
    ----------
    corpus : SensevalCorpus
    senses : sequence of str or None
        Senses to keep (default: all of the corpus).
    window, stop_words
        Feature options (:func:`collocations`).
    test_size : float in (0, 1)
        Fraction of instances held out for testing (stratified by sense).
    random_state : int
        Seed of the split.
    """
    gold = corpus.senses
    senses = tuple(corpus.sense_names if senses is None else senses)
    unknown = sorted(set(senses) - set(corpus.sense_names))
    if unknown:
        raise ValueError(f"unknown senses {unknown} of {corpus.word!r}; valid senses: "
                         f"{list(corpus.sense_names)}")
    rows = np.flatnonzero(np.isin(gold, senses))
    X, names = collocation_matrix([corpus.tokens[i] for i in rows], corpus.head[rows],
                                  window=window, stop_words=stop_words)
    y = np.asarray(gold[rows], dtype=str)
    n_test = int(round(test_size * len(rows)))
    if not 0 < n_test < len(rows):
        raise ValueError(f"test_size={test_size} leaves no test or no pool instances")
    pool, test = train_test_split(np.arange(len(rows)), test_size=n_test, stratify=y,
                                  random_state=random_state)
    pool, test = np.sort(pool), np.sort(test)
    return SenseTask(corpus.word, senses, X, y, names, pool, test,
                     [corpus.context(int(i)) for i in rows])


def load_sense_task(word, senses, *, window=10, stop_words="sklearn", test_size=0.25,
                    random_state=0, data_dir=None):
    """Load a Senseval word (:func:`sslviz.datasets.load_senseval`) and make a :class:`SenseTask`.

    ``stop_words`` names a stop list of :func:`sslviz.datasets.load_stoplist` (``"sklearn"``,
    ``"smart"``) or is ``None``.
    """
    from .datasets import load_senseval, load_stoplist

    corpus = load_senseval(word, senses, data_dir=data_dir)
    stop = () if stop_words is None else load_stoplist(stop_words, data_dir=data_dir)
    return sense_task(corpus, window=window, stop_words=stop, test_size=test_size,
                      random_state=random_state)


#: Senses and seed collocations for the lecture: word -> {"senses", "glosses", "seeds"}, where
#: "seeds" maps a name to a seed dict for :class:`Yarowsky`. Some seed sets work, some are meant
#: to fail (see the notebook's "word of warning").
LECTURE_SEEDS = {
    "line": {
        "senses": ("phone", "product"),
        "glosses": {"phone": "a telephone connection", "product": "a line of products"},
        "seeds": {
            "telephone / products": {"phone": ["W=telephone"], "product": ["W=products"]},
            "telephone, calls / introduced, sell": {"phone": ["W=telephone", "W=calls"],
                                                    "product": ["W=introduced", "W=sell"]},
            "phone / product": {"phone": ["W=phone"], "product": ["W=product"]},
            "telephone / manufacturer": {"phone": ["W=telephone"],
                                         "product": ["W=manufacturer"]},
        },
    },
    "serve": {
        "senses": ("SERVE10", "SERVE12"),
        "glosses": {"SERVE10": "serve food or drink", "SERVE12": "hold an office, do duty"},
        "seeds": {
            "dinner, food / board, chairman": {"SERVE10": ["W=dinner", "W=food"],
                                               "SERVE12": ["W=board", "W=chairman"]},
            "sauce / president": {"SERVE10": ["W=sauce"], "SERVE12": ["W=president"]},
        },
    },
    "interest": {
        "senses": ("interest_5", "interest_6"),
        "glosses": {"interest_5": "a share in a company", "interest_6": "money paid on a loan"},
        "seeds": {
            "stake / rates (right)": {"interest_5": ["W=stake"], "interest_6": ["R1=rates"]},
        },
    },
    "hard": {
        "senses": ("HARD1", "HARD2"),
        "glosses": {"HARD1": "difficult", "HARD2": "tough, harsh (hard work, a hard look)"},
        "seeds": {
            "to (right) / work (right)": {"HARD1": ["R1=to"], "HARD2": ["R1=work"]},
            "difficult / work": {"HARD1": ["W=difficult"], "HARD2": ["W=work"]},
        },
    },
}


@dataclass(frozen=True)
class YarowskyRun:
    """A Yarowsky run on a task's pool, scored per iteration.

    Attributes
    ----------
    model : Yarowsky
        Fitted on ``task.X[task.pool]``.
    coverage : ndarray (n_iterations,)
        Fraction of pool instances labeled.
    label_accuracy : ndarray (n_iterations,)
        Fraction of the labeled pool instances labeled right.
    test_accuracy : ndarray (n_iterations,)
        Accuracy of each iteration's decision list on the test instances.
    """

    model: Yarowsky
    coverage: np.ndarray
    label_accuracy: np.ndarray
    test_accuracy: np.ndarray


def yarowsky_run(task, seeds, **params):
    """Fit :class:`Yarowsky` with ``seeds`` on the pool of ``task`` and score every iteration."""
    model = Yarowsky(seeds, **params).fit(task.X[task.pool], feature_names=task.feature_names)
    return YarowskyRun(model, model.trace_.values("coverage"),
                       label_accuracy(model, task.y[task.pool]),
                       accuracy_by_iteration(model, task.X[task.test], task.y[task.test]))


def supervised_accuracy(task, n_labeled, *, seeds=(0, 1, 2, 3, 4), alpha=0.1):
    """Test accuracy of :func:`supervised_decision_list` on ``n_labeled`` pool instances, per seed.

    Returns
    -------
    ndarray of shape (len(seeds),)
    """
    X_pool, y_pool = task.X[task.pool], task.y[task.pool]
    X_test, y_test = task.X[task.test], task.y[task.test]
    return np.array([np.mean(supervised_decision_list(X_pool, y_pool, n_labeled, alpha=alpha,
                                                      random_state=seed)[0].predict(X_test)
                             == y_test)
                     for seed in seeds])


# -- cached runs behind the lecture's explorers ---------------------------------------------------
class YarowskyRuns:
    """Cached tasks, maps and runs behind the stepper (one fit per setting, one map per word).

    Parameters
    ----------
    catalog : dict
        ``word -> {"senses": ..., "seeds": {name: seed dict}}`` (e.g. ``LECTURE_SEEDS``).
    load_task : callable (word, senses, random_state=...) -> SenseTask
        Default :func:`sslviz.yarowsky.load_sense_task`.
    supervised_seeds : sequence of int
        Draws of the hand-labeled comparison list.
    random_state : int
        Seed of the pool/test split (passed to ``load_task``) and of the map.
    **run_params
        Further parameters of :class:`sslviz.yarowsky.Yarowsky` (``alpha``, ``max_iter``...).
    """

    def __init__(self, catalog=LECTURE_SEEDS, load_task=load_sense_task,
                 supervised_seeds=(0, 1, 2, 3, 4), random_state=0, **run_params):
        self.catalog = catalog
        self._load_task = load_task
        self.random_state = random_state
        self.supervised_seeds = tuple(supervised_seeds)
        self.run_params = run_params
        self.task = lru_cache(maxsize=8)(self._task)
        self.map = lru_cache(maxsize=8)(self._map)
        self.run = lru_cache(maxsize=64)(self._run)
        self.supervised = lru_cache(maxsize=64)(self._supervised)

    def _task(self, word):
        if word not in self.catalog:
            raise ValueError(f"no seeds for {word!r}; words: {list(self.catalog)}")
        return self._load_task(word, tuple(self.catalog[word]["senses"]),
                               random_state=self.random_state)

    def _map(self, word):
        task = self.task(word)
        return instance_map(task.X[task.pool], random_state=self.random_state)

    def _run(self, word, seed_set, threshold, mode):
        seeds = self.catalog[word]["seeds"][seed_set]
        return yarowsky_run(self.task(word), seeds, threshold=threshold, mode=mode,
                            **self.run_params)

    def _supervised(self, word, n_labeled):
        return supervised_accuracy(self.task(word), n_labeled, seeds=self.supervised_seeds,
                                   alpha=self.run_params.get("alpha", 0.1))
