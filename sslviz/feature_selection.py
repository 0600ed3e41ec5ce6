"""Feature selection for semi-supervised text classification (Lecture 5): the selectors.

A feature set is a subset of the vocabulary (the columns of a count matrix ``X``, documents ×
words). This module ranks the columns by a **score** and keeps the first ``n_features``:

==========================  ======================================================  ==========
method                      score of word ``w``                                     uses labels
==========================  ======================================================  ==========
``"frequency"``             total count of ``w`` in all rows of ``X``               no
``"document_frequency"``    number of rows (documents) containing ``w``             no
``"mutual_info"``           mutual information of "w occurs" and the class          yes
``"chi2"``                  scikit-learn's χ² of "w occurs" against the class       yes
``"pmi"``                   largest point-wise mutual information of "w occurs"     yes
                            with a class, ``max_c log P(w, c) / (P(w) P(c))``
==========================  ======================================================  ==========

A **stop list** (a set of words, e.g. ``sslviz.text.stop_list("smart")``) is removed before
ranking; ``n_features=None`` keeps every remaining word, so stop-word removal alone is
``select_features(X, "frequency", None, vocabulary=..., stop_words=stop_list("smart"))``. The
estimator never reads a file: the experiments resolve a list's name to its words.

The label-based scores see only the **labeled** rows: ``y == -1`` marks an unlabeled row, and
those rows are dropped before counting (whatever their true class). All three work on word
*occurrence* (binary: does the document contain the word?), the usual choice for documents; for
``"mutual_info"`` that is a 2 × n_classes contingency table per word, computed here for all
words at once (scikit-learn's ``mutual_info_classif`` is meant for continuous or dense features).
``"chi2"`` is ``sklearn.feature_selection.chi2`` on the occurrence matrix: per word, Pearson's
statistic comparing the class distribution of the documents containing it with the class
distribution of all labeled documents.

Ranking: higher score first. Ties are broken by the word's total count in ``X`` (all rows,
labeled or not: no label is used), then by column order. Ties are common with few labels: with
one labeled document per class, every word that no labeled document contains scores the same
under every label-based method (nothing is known about it), and so does every word seen in just
one labeled document under χ² and PMI; the tie-break then fills the list with the most frequent
of them, as a practitioner would.

Cost: one pass over the non-zeros of ``X`` (or of its labeled rows) plus a sort of the
vocabulary: O(nnz + n_words log n_words).

The lecture's experiments (accuracy against vocabulary size, a word leading EM astray, the toy
weights of its picture) live in :mod:`sslviz.experiments.feature_selection`.

References
----------
Wiegand, *An Introduction to Semi-Supervised Learning* (lecture, 2009), section "The Importance
of Feature Selection in Semi-Supervised Learning". Nigam, McCallum, Thrun & Mitchell (2000),
Text classification from labeled and unlabeled documents using EM, Machine Learning 39
(the EM setup, see :mod:`sslviz.em`). Yang & Pedersen (1997), A
comparative study on feature selection in text categorization (document frequency, mutual
information, χ²). Manning, Raghavan & Schütze (2008), Introduction to Information Retrieval,
section 13.5 (mutual information of word occurrence and class).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin, chi2
from sklearn.utils.validation import check_is_fitted, check_non_negative, validate_data

from .validation import check_choice, check_int, semi_supervised_target

__all__ = [
    "LABEL_BASED",
    "METHODS",
    "FeatureSelector",
    "class_word_table",
    "feature_scores",
    "mutual_information",
    "pointwise_mutual_information",
    "select_features",
    "stop_word_mask",
]

METHODS = ("frequency", "document_frequency", "mutual_info", "chi2", "pmi")
LABEL_BASED = ("mutual_info", "chi2", "pmi")


def feature_scores(X, method, *, y=None):
    """The score of every column of ``X`` under ``method`` (higher = kept first).

    Parameters
    ----------
    X : sparse matrix or array of shape (n_documents, n_words)
        Word counts (non-negative).
    method : {"frequency", "document_frequency", "mutual_info", "chi2", "pmi"}
    y : array-like of shape (n_documents,) or None
        Classes, ``-1`` for unlabeled rows. Needed by the label-based methods, which look at
        the labeled rows only (and refuse the string ``"-1"`` and missing labels, see
        :func:`sslviz.validation.semi_supervised_target`); ignored by the others.

    Returns
    -------
    ndarray of shape (n_words,)
        Frequency methods: counts. ``"mutual_info"``: nats, 0 for words no labeled document
        contains. ``"chi2"``: 0 for those words. ``"pmi"``: nats, ``-inf`` for those words.
    """
    return _scores(X, method, y)[0]


def _scores(X, method, y):
    """(scores, tie-break key) of every column; the key is the word's total count in X."""
    check_choice("method", method, METHODS)
    X = _check_counts(X)
    frequency = np.asarray(X.sum(axis=0), dtype=float).ravel()
    if method == "frequency":
        return frequency, frequency
    if method == "document_frequency":
        return np.asarray((X > 0).sum(axis=0), dtype=float).ravel(), frequency
    occurrence, labels = _labeled_occurrence(X, y, method)
    if method == "mutual_info":
        return mutual_information(occurrence, labels), frequency
    if method == "pmi":
        return pointwise_mutual_information(occurrence, labels), frequency
    statistic, _ = chi2(occurrence, labels)
    return np.nan_to_num(statistic, nan=0.0), frequency  # 0/0 for words in no labeled row


def mutual_information(occurrence, labels):
    """Mutual information (nats) of each word's occurrence with the class, by counting.

    For word ``w`` with ``n_wc`` documents of class ``c`` containing it, ``n_c`` documents of
    class ``c`` and ``n`` documents in all, the 2 × n_classes table has cells
    ``P(w=1, c) = n_wc / n`` and ``P(w=0, c) = (n_c - n_wc) / n``, and

        I(w; C) = Σ_{e in {0,1}} Σ_c P(w=e, c) log P(w=e, c) / (P(w=e) P(c))

    with ``0 log 0 = 0``. Equals ``sklearn.metrics.mutual_info_score(occurs, labels)`` column by
    column, for all columns at once.

    Parameters
    ----------
    occurrence : sparse matrix of shape (n_documents, n_words)
        1 where a document contains a word (any positive value counts as 1).
    labels : array of shape (n_documents,)
        Class of every row (no unlabeled rows).

    Returns
    -------
    ndarray of shape (n_words,)
    """
    contains, class_sizes = class_word_table(occurrence, labels)
    n = class_sizes.sum()
    df = contains.sum(axis=0)
    p_class = (class_sizes / n)[:, None]
    total = np.zeros(contains.shape[1])
    for cell, p_word in ((contains, df / n), (class_sizes[:, None] - contains, 1 - df / n)):
        joint = cell / n
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = joint * np.log(joint / (p_word[None, :] * p_class))
        total += np.where(joint > 0, terms, 0.0).sum(axis=0)
    return np.maximum(total, 0.0)  # rounding can leave -1e-17 for independent words


def pointwise_mutual_information(occurrence, labels):
    """``max_c log P(w=1, c) / (P(w=1) P(c))`` per word (nats); ``-inf`` if no document has it.

    PMI rewards a word for appearing *only* with one class, however rarely: a word seen in a
    single labeled document gets the largest possible value, ``log 1/P(c)`` — the coincidences
    that Wiegand's lecture warns about.
    """
    contains, class_sizes = class_word_table(occurrence, labels)
    n = class_sizes.sum()
    df = contains.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        pmi = np.log(contains * n) - np.log(df[None, :] * class_sizes[:, None])
    pmi = np.where(contains > 0, pmi, -np.inf)
    return pmi.max(axis=0)


def stop_word_mask(vocabulary, stop_words):
    """Boolean mask, True for the words of ``vocabulary`` that are in the stop list.

    Parameters
    ----------
    vocabulary : sequence of str
    stop_words : iterable of str or None
        The words (e.g. :func:`sslviz.text.stop_list`). ``None``: no word is a stop word.
    """
    vocabulary = np.asarray(vocabulary, dtype=str)
    if stop_words is None:
        return np.zeros(len(vocabulary), dtype=bool)
    stop_words = resolve_stop_words(stop_words)
    return np.isin(vocabulary, np.array(sorted(set(stop_words)), dtype=str))


def resolve_stop_words(stop_words):
    """The words of a stop list (a collection of str) or ``None``; a name is refused: the
    estimators never read data (name a list with :func:`sslviz.text.stop_list`)."""
    if isinstance(stop_words, str):
        raise ValueError(f"stop_words={stop_words!r}: pass the words themselves, e.g. "
                         f"sslviz.text.stop_list({stop_words!r}), not the name of a list")
    return stop_words


def select_features(X, method, n_features=None, *, y=None, vocabulary=None, stop_words=None):
    """The columns of ``X`` to keep, ranked: best first.

    Parameters
    ----------
    X : sparse matrix or array of shape (n_documents, n_words)
        Word counts. Frequency methods count over all its rows (pass the rows the learner sees,
        labeled and unlabeled).
    method : {"frequency", "document_frequency", "mutual_info", "chi2", "pmi"}
        See the module docstring.
    n_features : int or None, default=None
        How many columns to keep, from 1 to the number of words left after removing the stop
        list. ``None`` keeps them all (ranked).
    y : array-like of shape (n_documents,) or None
        Classes with ``-1`` for unlabeled rows; required by the label-based methods.
    vocabulary : sequence of str or None
        Column names of ``X``; required with ``stop_words``.
    stop_words : iterable of str or None
        Words removed before ranking.

    Returns
    -------
    ndarray of int, shape (n_kept,)
        Column indices, highest score first (ties: see the module docstring).

    Raises
    ------
    ValueError
        Unknown method, ``n_features`` out of range, a label-based method without labeled rows
        of at least two classes (or with NaN / ``"-1"`` labels), ``stop_words`` without a
        matching ``vocabulary``.
    """
    ranking = _ranking(X, method, y=y, vocabulary=vocabulary, stop_words=stop_words)
    if n_features is None:
        return ranking
    removed = X.shape[1] - len(ranking)
    name = (f"n_features (the {X.shape[1]} columns of X minus {removed} stop words)" if removed
            else "n_features")
    return ranking[: check_int(name, n_features, minimum=1, maximum=len(ranking))]


def _ranking(X, method, *, y, vocabulary, stop_words):
    check_choice("method", method, METHODS)
    X = _check_counts(X)
    stop = np.zeros(X.shape[1], dtype=bool)
    if vocabulary is not None and (isinstance(vocabulary, str | bytes | dict)
                                   or np.ndim(vocabulary) != 1):
        raise ValueError(f"vocabulary must be None or a sequence of words (the column names of "
                         f"X), got {vocabulary!r}"[:200])
    if vocabulary is not None and len(vocabulary) != X.shape[1]:
        raise ValueError(f"vocabulary has {len(vocabulary)} words but X has {X.shape[1]} "
                         "columns")
    if stop_words is not None:
        if vocabulary is None:
            raise ValueError("stop_words needs vocabulary: pass the column names of X "
                             "(e.g. corpus.vocabulary)")
        stop = stop_word_mask(vocabulary, stop_words)
    scores, tie_break = _scores(X, method, y)
    columns = np.flatnonzero(~stop)
    order = np.lexsort((columns, -tie_break[columns], -scores[columns]))
    return columns[order]


def _check_counts(X):
    if sp.issparse(X):
        # a copy: a converted matrix can share its index arrays with the caller's, and scipy
        # sorts indices in place (which would scramble the caller's unsorted matrix)
        X = sp.csr_matrix(X, dtype=float, copy=True)
    else:
        X = np.asarray(X, dtype=float)
        if X.ndim != 2:
            raise ValueError(f"X must be a 2-d (documents × words) matrix, got shape {X.shape}")
        X = sp.csr_matrix(X)
    check_non_negative(X, "feature selection (X must hold word counts)")
    return X


def _labeled_occurrence(X, y, method):
    """Occurrence matrix (0/1, csr) and labels of the labeled rows, with checks."""
    if y is None:
        raise ValueError(f"method {method!r} scores words by their labels: pass y "
                         "(the classes, with -1 for unlabeled rows)")
    y = np.asarray(y)
    if y.ndim != 1 or len(y) != X.shape[0]:
        raise ValueError(f"y must hold one label per row of X ({X.shape[0]}), got shape {y.shape}")
    y, labeled = semi_supervised_target(y)
    classes = np.unique(y[labeled])
    if len(classes) < 2:
        raise ValueError(f"method {method!r} needs labeled rows of at least two classes; y has "
                         f"{labeled.sum()} labeled rows of {len(classes)} class(es)")
    occurrence = (X[labeled] > 0).astype(float)
    return occurrence, y[labeled]


def class_word_table(occurrence, labels):
    """Documents of each class containing each word, and documents of each class.

    Parameters
    ----------
    occurrence : sparse matrix of shape (n_documents, n_words)
        Any positive value counts as "contains".
    labels : array of shape (n_documents,)
        Class of every row (no unlabeled rows).

    Returns
    -------
    contains : ndarray of shape (n_classes, n_words)
        ``n_wc``, classes in sorted order.
    class_sizes : ndarray of shape (n_classes,)
        ``n_c``.
    """
    classes, index = np.unique(np.asarray(labels), return_inverse=True)
    n_rows = len(index)
    Y = sp.csr_matrix((np.ones(n_rows), (np.arange(n_rows), index)),
                      shape=(n_rows, len(classes)))
    occurrence = (sp.csr_matrix(occurrence) > 0).astype(float)
    contains = np.asarray((Y.T @ occurrence).todense())
    return contains, np.bincount(index, minlength=len(classes)).astype(float)


class FeatureSelector(SelectorMixin, BaseEstimator):
    """Keep the ``n_features`` best-ranked words: :func:`select_features` as a transformer.

    ``fit(X, y)`` ranks the columns (label-based methods on the rows with ``y != -1`` only);
    ``transform`` keeps the selected columns in their original order (scikit-learn's
    ``SelectorMixin``), so it can sit in a ``Pipeline`` before
    :class:`sslviz.em.SemiSupervisedNB`.

    Parameters
    ----------
    method : {"frequency", "document_frequency", "mutual_info", "chi2", "pmi"}, default="frequency"
        The score (see the module docstring); the last three use the labels.
    n_features : int or None, default=None
        Words to keep; ``None`` keeps all words outside the stop list.
    stop_words : iterable of str or None, default=None
        Words removed before ranking (e.g. ``sslviz.text.stop_list("smart")``); ``None``: none.
    vocabulary : sequence of str or None, default=None
        Column names of ``X`` (needed with ``stop_words``).

    Attributes
    ----------
    scores_ : ndarray of shape (n_features_in_,)
        Score of every column (see :func:`feature_scores`).
    ranking_ : ndarray of int, shape (n_kept,)
        The kept columns, best first.
    n_features_in_ : int
        Number of columns (words) of the ``X`` seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names of ``X``; set only when ``X`` was a DataFrame with string column names.

    References
    ----------
    Wiegand (2009), *An Introduction to Semi-Supervised Learning* (lecture), "The Importance of
    Feature Selection in Semi-Supervised Learning". Yang & Pedersen (1997), A comparative study
    on feature selection in text categorization.

    Examples
    --------
    >>> import numpy as np
    >>> from sslviz.feature_selection import FeatureSelector
    >>> X = np.array([[3, 0, 1], [2, 0, 0], [0, 3, 1], [0, 2, 0], [4, 1, 0], [0, 4, 1]])
    >>> FeatureSelector("frequency", n_features=2).fit(X).ranking_.tolist()
    [1, 0]
    """

    def __init__(self, method="frequency", n_features=None, stop_words=None, vocabulary=None):
        self.method = method
        self.n_features = n_features
        self.stop_words = stop_words
        self.vocabulary = vocabulary

    def fit(self, X, y=None):
        """Score and rank the columns of ``X``; ``y`` (``-1`` = unlabeled) for label-based.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Word counts (non-negative). The frequency methods count over every row, so pass
            the rows the learner sees, labeled and unlabeled.
        y : array-like of shape (n_samples,) or None, default=None
            Classes, ``-1`` for an unlabeled row. Required by the label-based methods, which
            read the labeled rows only; ignored by the frequency methods.

        Returns
        -------
        self : FeatureSelector
            The fitted selector; ``transform`` keeps the columns of ``ranking_``, in their
            original order.

        Raises
        ------
        ValueError
            If ``method`` is unknown; if ``X`` has a negative entry; if a label-based method
            gets no ``y`` or fewer than two labeled classes (or labels the label rule refuses);
            if ``n_features`` is out of range; if ``stop_words`` is a list's name or comes
            without a ``vocabulary``, or ``vocabulary`` does not match the columns of ``X``.
        """
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64)
        self.scores_ = feature_scores(X, self.method, y=y)
        self.ranking_ = select_features(X, self.method, self.n_features, y=y,
                                        vocabulary=self.vocabulary, stop_words=self.stop_words)
        return self

    def _get_support_mask(self):
        check_is_fitted(self)
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.ranking_] = True
        return mask

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        tags.target_tags.required = self.method in LABEL_BASED
        return tags


