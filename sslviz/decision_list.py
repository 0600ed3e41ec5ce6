"""Decision lists over collocation features: the classifier Yarowsky's algorithm bootstraps.

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

Cost: one sparse product ``B.T @ Y`` (O(nnz)) to count, one pass over the non-zeros to find each
instance's first rule; sorting the rules is O(F log F) for F features.

References
----------
Yarowsky, D. (1995). Unsupervised word sense disambiguation rivaling supervised methods. ACL.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.feature_extraction import DictVectorizer
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .validation import check_int, check_labels, check_number

__all__ = ["DecisionList", "Rule", "collocation_matrix", "collocations", "presence_matrix",
           "rank_rules", "top_rules"]


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
    window = check_int("window", window, minimum=0)
    head = check_int("head", head)
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
    check_int("min_df", min_df, minimum=1)
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
    check_number("alpha", alpha, above=0)
    check_int("min_count", min_count, minimum=1)
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

    A supervised classifier: ``fit`` counts, for every feature, the labeled rows of each class
    that have it, and turns each feature into a rule "feature present → its most frequent
    class", scored by the smoothed log-odds of that class. The rules are sorted strongest first;
    a row gets the class of the first rule whose feature it has. It is the model that
    :class:`~sslviz.yarowsky.Yarowsky` bootstraps.

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
        Number of columns of the ``X`` seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names of ``X``; set only when ``X`` was a DataFrame with string column names.

    Notes
    -----
    Features are presence indicators: any non-zero value counts as "present". Dense data whose
    entries are all non-zero gives every instance every feature, and then every instance the same
    rule.

    References
    ----------
    Yarowsky, D. (1995). Unsupervised word sense disambiguation rivaling supervised methods. ACL.

    Examples
    --------
    >>> import numpy as np
    >>> from sslviz.decision_list import DecisionList
    >>> X = np.array([[1, 0, 1], [1, 0, 0], [0, 1, 1], [0, 1, 0], [1, 0, 1], [0, 1, 0]])
    >>> DecisionList().fit(X[:4], [0, 0, 1, 1]).predict(X).tolist()
    [0, 0, 1, 1, 0, 1]
    """

    def __init__(self, alpha=0.1, min_count=1):
        self.alpha = alpha
        self.min_count = min_count

    def fit(self, X, y):
        """Count features per class in ``X`` (sparse or dense) and rank the rules.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Binary features, e.g. from :func:`collocation_matrix`; any non-zero value counts as
            "present".
        y : array-like of shape (n_samples,)
            The class of every row (integers or strings). The list is supervised: every row is
            labeled, and ``-1`` is an ordinary class here.

        Returns
        -------
        self : DecisionList
            The fitted estimator.

        Raises
        ------
        ValueError
            If ``alpha`` is not positive or ``min_count`` below 1; if ``y`` holds missing
            labels, mixes string and number labels, or is continuous.
        """
        check_number("alpha", self.alpha, above=0)
        check_int("min_count", self.min_count, minimum=1)
        y = check_labels(y)
        X, y = validate_data(self, X, y, accept_sparse="csr")
        check_classification_targets(y)
        self.classes_, y_index = np.unique(y, return_inverse=True)
        onehot = sp.csr_matrix((np.ones(len(y)), (np.arange(len(y)), y_index)),
                               shape=(len(y), len(self.classes_)))
        counts = np.asarray((onehot.T @ presence_matrix(X)).todense())
        self._set_counts(counts, np.bincount(y_index, minlength=len(self.classes_)))
        return self

    @classmethod
    def from_counts(cls, classes, feature_count, class_count, *, alpha=0.1, min_count=1):
        """A fitted list from counts (e.g. those recorded in a Yarowsky trace).

        Parameters
        ----------
        classes : array-like of shape (n_classes,)
            The senses, in the order of the rows of ``feature_count``.
        feature_count : array-like of shape (n_classes, n_features)
            How many labeled instances of each sense hold each feature.
        class_count : array-like of shape (n_classes,)
            How many labeled instances each sense has.
        alpha : float, default=0.1
            The smoothing of ``P(s|f)``, as in the constructor.
        min_count : int, default=1
            A feature seen on fewer labeled instances makes no rule, as in the constructor.

        Returns
        -------
        model : DecisionList
            A fitted list, as ``fit`` would leave it on instances with these counts.

        Raises
        ------
        ValueError
            If ``alpha`` is not above 0 or ``min_count`` not an integer of at least 1.
        """
        check_number("alpha", alpha, above=0)
        check_int("min_count", min_count, minimum=1)
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

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Binary features with the columns of ``fit``; any non-zero value counts as present.

        Returns
        -------
        first : ndarray of int, shape (n_samples,)
            An index into ``rule_feature_`` (0: the strongest rule), or ``-1``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", reset=False)
        B = presence_matrix(X)
        n_rules = len(self.rule_feature_)
        first = np.full(B.shape[0], n_rules, dtype=np.int64)
        nonempty = np.flatnonzero(np.diff(B.indptr) > 0)
        if len(nonempty):
            first[nonempty] = np.minimum.reduceat(self._rank[B.indices], B.indptr[nonempty])
        first[first == n_rules] = -1
        return first

    def rule_proba(self, rules=None):
        """Smoothed ``P(s|f)`` of rules.

        Parameters
        ----------
        rules : array-like of int or None, default=None
            Positions in the list (as :meth:`first_rule` gives them); ``None``: every rule.

        Returns
        -------
        proba : ndarray of shape (n_rules, n_classes)
            One row per rule asked for, summing to one; columns in the order of ``classes_``.
        """
        check_is_fitted(self)
        features = self.rule_feature_ if rules is None else self.rule_feature_[rules]
        counts = self.feature_count_[:, features].T + self.alpha
        return counts / counts.sum(axis=1, keepdims=True)

    def apply_rules(self, X):
        """Which rule decides each row, for which sense, how confidently.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Binary features with the columns of ``fit``; any non-zero value counts as present.

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

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Binary features with the columns of ``fit``; any non-zero value counts as present.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Rows sum to one; columns in the order of ``classes_``.
        """
        check_is_fitted(self)
        first = self.first_rule(X)
        prior = self.class_count_ + self.alpha
        proba = np.tile(prior / prior.sum(), (len(first), 1))
        hit = first >= 0
        proba[hit] = self.rule_proba(first[hit])
        return proba

    def predict(self, X):
        """The sense of the first matching rule; the most frequent labeled class otherwise.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Binary features with the columns of ``fit``; any non-zero value counts as present.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Classes from ``classes_``.
        """
        check_is_fitted(self)
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        # rules test features as present or absent: on dense continuous data (every feature
        # present in every row) all rows meet the same rule, as MultinomialNB declares too
        tags.classifier_tags.poor_score = True
        return tags


def presence_matrix(X):
    """Binary CSR (float64) of the non-zero entries of ``X`` (features as presence indicators)."""
    B = sp.csr_matrix(X, dtype=np.float64, copy=True)
    B.eliminate_zeros()
    B.data[:] = 1.0
    B.sort_indices()
    return B


# -- summaries for display -----------------------------------------------------------------------
class Rule(NamedTuple):
    """One rule of a decision list, for display."""

    feature: str
    sense: object
    score: float
    confidence: float
    count: int


def top_rules(decision_list, feature_names, k=10):
    """The ``k`` strongest rules of a fitted :class:`DecisionList` as :class:`Rule` tuples.

    ``confidence`` is the rule's ``P(s*|f)``, ``count`` how many labeled instances have the
    feature.
    """
    check_is_fitted(decision_list)
    k = check_int("k", k, minimum=0)
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

