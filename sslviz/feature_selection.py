"""Feature selection for semi-supervised text classification, and the experiments of Lecture 5.

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

A **stop list** (``stop_words="smart"`` or ``"sklearn"``, or any set of words) is removed before
ranking; ``n_features=None`` keeps every remaining word, so stop-word removal alone is
``select_features(X, "frequency", None, vocabulary=..., stop_words="smart")``.

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

Parts 2-4 of the module hold the lecture's experiments (pure functions, no drawing): accuracy
against vocabulary size for Naive Bayes and EM (:func:`vocabulary_sweep`, cached on disk; its
cost is that of the EM fits, see its docstring), a "leading astray" case study read from EM's
recorded trace (:func:`astray_run`, :func:`rank_misleading_words`, :func:`word_pull`,
:func:`neighbour_words`), and the toy word weights of the lecture's picture
(:func:`toy_feature_weights`).

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

import hashlib
import json
import numbers
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed
from scipy.special import logsumexp
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin, chi2
from sklearn.naive_bayes import MultinomialNB
from sklearn.utils.validation import check_is_fitted, check_non_negative, validate_data
from tqdm.auto import tqdm

from . import datasets
from ._io import atomic_write_path
from .em import SemiSupervisedNB, accuracy_by_iteration
from .splits import is_unlabeled, split_labeled
from .text import STOP_LISTS, stop_list

__all__ = [
    "ALL_WORDS",
    "LABEL_BASED",
    "METHODS",
    "AstrayRun",
    "FeatureSelector",
    "VocabularySweep",
    "WordPull",
    "astray_run",
    "class_association",
    "feature_scores",
    "labeled_rows",
    "mutual_information",
    "neighbour_words",
    "pointwise_mutual_information",
    "rank_misleading_words",
    "select_features",
    "stop_word_mask",
    "sweep_split",
    "ToyWeights",
    "toy_feature_weights",
    "vocabulary_sweep",
    "word_pull",
]

METHODS = ("frequency", "document_frequency", "mutual_info", "chi2", "pmi")
LABEL_BASED = ("mutual_info", "chi2", "pmi")


# =================================================================================================
# Part 1 — selectors
# =================================================================================================
def labeled_rows(y):
    """Boolean mask of the labeled rows of ``y`` (``-1`` marks an unlabeled row)."""
    return ~is_unlabeled(y)


def feature_scores(X, method, *, y=None):
    """The score of every column of ``X`` under ``method`` (higher = kept first).

    Parameters
    ----------
    X : sparse matrix or array of shape (n_documents, n_words)
        Word counts (non-negative).
    method : {"frequency", "document_frequency", "mutual_info", "chi2", "pmi"}
    y : array-like of shape (n_documents,) or None
        Classes, ``-1`` for unlabeled rows. Needed by the label-based methods, which look at
        the labeled rows only; ignored by the others.

    Returns
    -------
    ndarray of shape (n_words,)
        Frequency methods: counts. ``"mutual_info"``: nats, 0 for words no labeled document
        contains. ``"chi2"``: 0 for those words. ``"pmi"``: nats, ``-inf`` for those words.
    """
    return _scores(X, method, y)[0]


def _scores(X, method, y):
    """(scores, tie-break key) of every column; the key is the word's total count in X."""
    _check_method(method)
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
    contains, class_sizes = _class_word_table(occurrence, labels)
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
    contains, class_sizes = _class_word_table(occurrence, labels)
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
    stop_words : {"smart", "sklearn"}, iterable of str, or None
        A named list (:func:`sslviz.text.stop_list`; the SMART list is read from the data
        folder) or the words themselves. ``None``: no word is a stop word.
    """
    vocabulary = np.asarray(vocabulary, dtype=str)
    if stop_words is None:
        return np.zeros(len(vocabulary), dtype=bool)
    if isinstance(stop_words, str):
        if stop_words not in STOP_LISTS:
            raise ValueError(f"unknown stop list {stop_words!r}; choose one of {STOP_LISTS} "
                             "or pass the words themselves")
        stop_words = stop_list(stop_words)
    return np.isin(vocabulary, np.array(sorted(set(stop_words)), dtype=str))


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
    stop_words : {"smart", "sklearn"}, iterable of str, or None
        Words removed before ranking.

    Returns
    -------
    ndarray of int, shape (n_kept,)
        Column indices, highest score first (ties: see the module docstring).

    Raises
    ------
    ValueError
        Unknown method, ``n_features`` out of range, a label-based method without labeled rows
        of at least two classes, ``stop_words`` without a matching ``vocabulary``.
    """
    ranking = _ranking(X, method, y=y, vocabulary=vocabulary, stop_words=stop_words)
    n_available = len(ranking)
    if n_features is None:
        return ranking
    if (not isinstance(n_features, numbers.Integral) or isinstance(n_features, bool)
            or not 1 <= n_features <= n_available):
        removed = X.shape[1] - n_available
        after = f" (the {X.shape[1]} columns of X minus {removed} stop words)" if removed else ""
        raise ValueError(f"n_features must be None or an integer from 1 to {n_available}"
                         f"{after}, got {n_features!r}")
    return ranking[: int(n_features)]


def _ranking(X, method, *, y, vocabulary, stop_words):
    _check_method(method)
    X = _check_counts(X)
    stop = np.zeros(X.shape[1], dtype=bool)
    if stop_words is not None:
        if vocabulary is None:
            raise ValueError("stop_words needs vocabulary: pass the column names of X "
                             "(e.g. corpus.vocabulary)")
        if len(vocabulary) != X.shape[1]:
            raise ValueError(f"vocabulary has {len(vocabulary)} words but X has {X.shape[1]} "
                             "columns")
        stop = stop_word_mask(vocabulary, stop_words)
    scores, tie_break = _scores(X, method, y)
    columns = np.flatnonzero(~stop)
    order = np.lexsort((columns, -tie_break[columns], -scores[columns]))
    return columns[order]


def _check_method(method):
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {list(METHODS)}")


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
    labeled = labeled_rows(y)
    classes = np.unique(y[labeled])
    if len(classes) < 2:
        raise ValueError(f"method {method!r} needs labeled rows of at least two classes; y has "
                         f"{labeled.sum()} labeled rows of {len(classes)} class(es)")
    occurrence = (X[labeled] > 0).astype(float)
    return occurrence, y[labeled]


def _class_word_table(occurrence, labels):
    """(n_wc: documents of class c containing w, (n_classes, n_words); n_c, (n_classes,))."""
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
    method : str, default="frequency"
        One of :data:`METHODS`.
    n_features : int or None, default=None
        Words to keep; ``None`` keeps all words outside the stop list.
    stop_words : {"smart", "sklearn"}, iterable of str, or None, default=None
    vocabulary : sequence of str or None, default=None
        Column names of ``X`` (needed with ``stop_words``).

    Attributes
    ----------
    scores_ : ndarray of shape (n_features_in_,)
        Score of every column (see :func:`feature_scores`).
    ranking_ : ndarray of int
        The kept columns, best first.
    n_features_in_ : int
    """

    def __init__(self, method="frequency", n_features=None, stop_words=None, vocabulary=None):
        self.method = method
        self.n_features = n_features
        self.stop_words = stop_words
        self.vocabulary = vocabulary

    def fit(self, X, y=None):
        """Score and rank the columns of ``X``; ``y`` (``-1`` = unlabeled) for label-based."""
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


# =================================================================================================
# Part 2 — the lecture's experiments: accuracy against vocabulary size
# =================================================================================================
CACHE_VERSION = 1
ALL_WORDS = 0  # in ``sizes``: every word of the feature set


@dataclass(frozen=True)
class VocabularySweep:
    """Test accuracy of Naive Bayes and EM for every feature set, labeled-set size, vocabulary
    size and seed.

    Attributes
    ----------
    feature_sets : tuple of str
        Names of the feature sets (rows of the accuracy arrays).
    label_sizes : ndarray of shape (n_label_sizes,)
        Labeled documents **per class**.
    sizes : ndarray of shape (n_sizes,)
        Requested vocabulary sizes; ``0`` (:data:`ALL_WORDS`) means every word of the set.
    seeds : ndarray of shape (n_seeds,)
    n_features : ndarray of shape (n_sets, n_sizes)
        Words actually used (a size larger than the feature set keeps the whole set).
    nb_accuracy, em_accuracy : ndarray of shape (n_sets, n_label_sizes, n_sizes, n_seeds)
        Naive Bayes on the labeled documents alone (EM's iteration 0) and EM after its last
        iteration, on the same split and the same columns.
    top_words : ndarray of str, shape (n_sets, n_label_sizes, n_seeds, n_top)
        The first words of each ranking (what a feature set keeps first).
    """

    feature_sets: tuple
    label_sizes: np.ndarray
    sizes: np.ndarray
    seeds: np.ndarray
    n_features: np.ndarray
    nb_accuracy: np.ndarray
    em_accuracy: np.ndarray
    top_words: np.ndarray

    def at(self, feature_set, n_labeled):
        """(NB, EM) accuracies of one feature set and labeled-set size, each (n_sizes, n_seeds)."""
        i = self._index(self.feature_sets, feature_set, "feature set")
        j = self._index(self.label_sizes.tolist(), n_labeled, "labeled-set size")
        return self.nb_accuracy[i, j], self.em_accuracy[i, j]

    def ranges(self, feature_set, n_labeled):
        """How much the vocabulary size matters: (NB, EM) largest minus smallest mean accuracy
        over the sizes, for one feature set and labeled-set size."""
        nb, em = self.at(feature_set, n_labeled)
        return tuple(float(np.ptp(a.mean(axis=1))) for a in (nb, em))

    def size_labels(self):
        """Tick labels of the vocabulary sizes ("all" for :data:`ALL_WORDS`)."""
        return ["all" if s == ALL_WORDS else f"{s:,}" for s in self.sizes.tolist()]

    @staticmethod
    def _index(options, value, what):
        options = list(options)
        if value not in options:
            raise ValueError(f"{what} {value!r} was not run; the sweep has {options}")
        return options.index(value)


def sweep_split(y, n_labeled, seed, *, test_rows, n_unlabeled):
    """The split of one sweep job: ``n_labeled`` documents per class, seeded."""
    return split_labeled(y, n_labeled, per_class=True, n_unlabeled=n_unlabeled,
                         test_rows=test_rows, random_state=seed)


def _sweep_job(X, y, vocabulary, specs, n_labeled, seed, sizes, *, test_rows, n_unlabeled,
               em_params, n_top):
    """One split; for every feature set one ranking, then NB and EM at every vocabulary size.

    Returns an array of shape (n_sets, n_sizes, 3) (words used, NB accuracy, EM accuracy) and
    the first ``n_top`` words of every ranking, (n_sets, n_top).
    """
    split = sweep_split(y, n_labeled, seed, test_rows=test_rows, n_unlabeled=n_unlabeled)
    y_train = split.semi_supervised_targets(y)
    X_train, y_test = X[split.train], np.asarray(y)[split.test]
    train_csc, test_csc = X_train.tocsc(), X[split.test].tocsc()
    n_lab = len(split.labeled)
    params = {**em_params, "record": "summary"}
    results = np.zeros((len(specs), len(sizes), 3))
    top = np.empty((len(specs), n_top), dtype=object)
    for s, (method, stop_words) in enumerate(specs):
        ranking = select_features(X_train, method, None, y=y_train, vocabulary=vocabulary,
                                  stop_words=stop_words)
        top[s] = vocabulary[ranking[:n_top]]
        for k, size in enumerate(sizes):
            columns = np.sort(ranking if size == ALL_WORDS else ranking[:size])
            Xs_train = train_csc[:, columns].tocsr()
            Xs_test = test_csc[:, columns].tocsr()
            nb = SemiSupervisedNB(**{**params, "max_iter": 0}).fit(Xs_train[:n_lab],
                                                                   y_train[:n_lab])
            em = SemiSupervisedNB(**params).fit(Xs_train, y_train)
            results[s, k] = (len(columns), np.mean(nb.predict(Xs_test) == y_test),
                             np.mean(em.predict(Xs_test) == y_test))
    return results, top.astype(str)


def vocabulary_sweep(X, y, vocabulary, *, feature_sets, sizes, label_sizes, seeds, test_rows,
                     n_unlabeled, n_top=12, use_cache=True, progress=True,
                     description="vocabulary sweep", n_jobs=None, **em_params):
    """Naive Bayes vs EM test accuracy against vocabulary size, per feature-selection method.

    For every labeled-set size and seed, one split (:func:`sweep_split`: ``n_labeled``
    documents per class, ``n_unlabeled`` unlabeled documents, fixed test rows) is shared by all
    feature sets. Each feature set ranks the vocabulary on that split's training documents
    (labeled + unlabeled; label-based methods use only the labels of the labeled ones, as a
    practitioner would), keeps the first ``size`` words, and fits on those columns

    * Naive Bayes on the labeled documents (:class:`sslviz.em.SemiSupervisedNB` with
      ``max_iter=0``, i.e. EM's iteration 0), and
    * EM on the labeled and unlabeled documents,

    both scored on the test rows. Results are cached on disk
    (``sslviz.datasets.cache_dir()/feature_selection``, an ``.npz`` keyed by the data and every
    parameter, written atomically). Cost: ``len(feature_sets) × len(label_sizes) × len(seeds)``
    rankings and ``len(sizes)`` times as many EM fits.

    Parameters
    ----------
    X : sparse matrix of shape (n_documents, n_words)
    y : ndarray of int, shape (n_documents,)
    vocabulary : ndarray of str, shape (n_words,)
    feature_sets : dict of str -> (method, stop_words)
        E.g. ``{"frequency, SMART": ("frequency", "smart"), "MI": ("mutual_info", None)}``.
    sizes : sequence of int
        Vocabulary sizes; ``0`` (:data:`ALL_WORDS`) = all words of the feature set.
    label_sizes : sequence of int
        Labeled documents per class.
    seeds : sequence of int
    test_rows : array-like of int
    n_unlabeled : int
    n_top : int, default=12
        First words of every ranking kept in the result (``top_words``).
    use_cache, progress : bool
    n_jobs : int or None
        Parallel processes (joblib); results do not depend on it.
    **em_params
        Of :class:`sslviz.em.SemiSupervisedNB` (``alpha``, ``max_iter``, ...).

    Returns
    -------
    VocabularySweep
    """
    names = tuple(feature_sets)
    specs = [feature_sets[name] for name in names]
    for method, _ in specs:
        _check_method(method)
    sizes, label_sizes = np.asarray(sizes, dtype=int), np.asarray(label_sizes, dtype=int)
    seeds, test_rows = np.asarray(seeds, dtype=int), np.asarray(test_rows, dtype=int)
    vocabulary = np.asarray(vocabulary, dtype=str)
    if np.any(sizes < 0):
        raise ValueError(f"sizes must be positive, or 0 for all words; got {sizes.tolist()}")
    key = {"version": CACHE_VERSION, "sets": [[n, m, _stop_key(s)] for n, (m, s)
                                              in zip(names, specs, strict=True)],
           "sizes": sizes.tolist(), "label_sizes": label_sizes.tolist(), "seeds": seeds.tolist(),
           "n_unlabeled": n_unlabeled, "n_top": n_top,
           "em": {k: em_params[k] for k in sorted(em_params)}}
    path = _cache_path("sweep", [X.data, X.indices, X.indptr, np.array(X.shape), np.asarray(y),
                                 test_rows, np.char.encode(vocabulary, "utf-8")], key)
    if use_cache and path.exists():
        return _read_sweep(path)
    resolved = [(method, _resolve_stop_words(stop)) for method, stop in specs]  # read files once
    X = sp.csr_matrix(X)
    jobs = [(int(n), int(seed)) for n in label_sizes for seed in seeds]
    parallel = Parallel(n_jobs=n_jobs, return_as="generator")
    finished = parallel(
        delayed(_sweep_job)(X, y, vocabulary, resolved, n, seed, sizes.tolist(),
                            test_rows=test_rows, n_unlabeled=n_unlabeled, em_params=em_params,
                            n_top=n_top)
        for n, seed in jobs)
    outputs = list(tqdm(finished, total=len(jobs), desc=description, disable=not progress,
                        leave=False))
    results = np.array([numbers for numbers, _ in outputs])
    top = np.array([words for _, words in outputs]).reshape(len(label_sizes), len(seeds),
                                                            len(names), n_top)
    # (label sizes, seeds, sets, sizes, 3) -> (sets, label sizes, sizes, seeds, 3)
    results = results.reshape(len(label_sizes), len(seeds), len(names), len(sizes), 3)
    results = results.transpose(2, 0, 3, 1, 4)
    sweep = VocabularySweep(names, label_sizes, sizes, seeds,
                            results[:, 0, :, 0, 0].astype(int), results[..., 1], results[..., 2],
                            top.transpose(2, 0, 1, 3))
    if use_cache:
        _write_sweep(path, sweep)
    return sweep


def _stop_key(stop_words):
    if stop_words is None or isinstance(stop_words, str):
        return stop_words
    return sorted(set(stop_words))


def _resolve_stop_words(stop_words):
    if isinstance(stop_words, str):
        if stop_words not in STOP_LISTS:
            raise ValueError(f"unknown stop list {stop_words!r}; choose one of {STOP_LISTS} "
                             "or pass the words themselves")
        return stop_list(stop_words)
    return stop_words


def _cache_path(kind, arrays, key):
    digest = hashlib.sha256()
    for array in arrays:
        digest.update(np.ascontiguousarray(array).tobytes())
    digest.update(json.dumps(key, sort_keys=True, default=str).encode())
    return datasets.cache_dir() / "feature_selection" / f"{kind}-{digest.hexdigest()[:24]}.npz"


def _write_sweep(path, sweep):
    with atomic_write_path(path) as tmp:
        np.savez(tmp, feature_sets=np.asarray(sweep.feature_sets, dtype=str),
                 label_sizes=sweep.label_sizes, sizes=sweep.sizes, seeds=sweep.seeds,
                 n_features=sweep.n_features, nb_accuracy=sweep.nb_accuracy,
                 em_accuracy=sweep.em_accuracy, top_words=sweep.top_words)


def _read_sweep(path):
    with np.load(path, allow_pickle=False) as f:
        return VocabularySweep(tuple(f["feature_sets"].tolist()), f["label_sizes"], f["sizes"],
                               f["seeds"], f["n_features"], f["nb_accuracy"], f["em_accuracy"],
                               f["top_words"])


# =================================================================================================
# Part 3 — "leading astray": one coincidental word, followed through EM's recorded trace
# =================================================================================================
def class_association(feature_log_prob, class_log_prior, target):
    """``log P(w|c) - log P(w|not c)`` for every word, where ``not c`` mixes the other classes
    by their priors. Positive: the word is evidence for class ``target``. Shape (n_words,)."""
    feature_log_prob = np.asarray(feature_log_prob)
    class_log_prior = np.asarray(class_log_prior)
    others = np.arange(len(class_log_prior)) != target
    other_prior = class_log_prior[others] - logsumexp(class_log_prior[others])
    not_target = logsumexp(feature_log_prob[others] + other_prior[:, None], axis=0)
    return feature_log_prob[target] - not_target


@dataclass(frozen=True)
class AstrayRun:
    """One EM run on a chosen set of columns, with what is needed to judge it afterwards.

    Attributes
    ----------
    split : sslviz.splits.Split
    columns : ndarray of int, shape (n_used,)
        Columns of the corpus' ``X`` the run used (sorted).
    model : SemiSupervisedNB
        Fitted with ``record="full"``: its trace holds every iteration's parameters and the
        unlabeled documents' posteriors.
    test_accuracy : ndarray of shape (n_iterations,)
    reference_log_prob : ndarray of shape (n_classes, n_used)
        log P(w|c) of ``MultinomialNB`` on all training documents (labeled and unlabeled) with
        their **true** labels: what an oracle with every label would believe.
    reference_log_prior : ndarray of shape (n_classes,)
    labeled_labels : ndarray of shape (n_labeled,)
        Classes of the labeled documents (as EM saw them).
    unlabeled_labels : ndarray of shape (n_unlabeled,)
        True classes of the unlabeled documents (never shown to EM; used to judge it).
    """

    split: object
    columns: np.ndarray
    model: SemiSupervisedNB
    test_accuracy: np.ndarray
    reference_log_prob: np.ndarray
    reference_log_prior: np.ndarray
    labeled_labels: np.ndarray
    unlabeled_labels: np.ndarray

    def local(self, word):
        """Position of corpus column ``word`` in this run's columns, or ``None`` if not used."""
        position = int(np.searchsorted(self.columns, word))
        if position < len(self.columns) and self.columns[position] == word:
            return position
        return None

    def association(self, iteration, target):
        """:func:`class_association` of every used column at one recorded iteration."""
        step = self.model.trace_.iteration(iteration)
        return class_association(step.feature_log_prob, step.class_log_prior, target)

    def reference_association(self, target):
        return class_association(self.reference_log_prob, self.reference_log_prior, target)

    def assigned(self, iteration):
        """Most probable class of every unlabeled document at one iteration, (n_unlabeled,)."""
        return self.model.trace_.iteration(iteration).unlabeled_posteriors.argmax(axis=1)


def astray_run(X, y, columns=None, *, n_labeled, seed, test_rows, n_unlabeled, alpha=0.1,
               max_iter=10):
    """Fit EM (full trace) on ``X[:, columns]`` for the split of :func:`sweep_split`.

    Parameters
    ----------
    X : sparse matrix of shape (n_documents, n_words)
    y : ndarray of shape (n_documents,)
    columns : array-like of int or None
        The feature set (e.g. from :func:`select_features`); ``None`` = every column.
    n_labeled : int
        Labeled documents per class.
    seed, test_rows, n_unlabeled
        As in :func:`vocabulary_sweep` (same seed, same split).
    alpha, max_iter
        Of :class:`sslviz.em.SemiSupervisedNB`.

    Returns
    -------
    AstrayRun
    """
    y = np.asarray(y)
    columns = np.arange(X.shape[1]) if columns is None else np.unique(np.asarray(columns, int))
    split = sweep_split(y, n_labeled, seed, test_rows=test_rows, n_unlabeled=n_unlabeled)
    Xs = sp.csc_matrix(X)[:, columns].tocsr()
    model = SemiSupervisedNB(alpha=alpha, max_iter=max_iter).fit(
        Xs[split.train], split.semi_supervised_targets(y))
    reference = MultinomialNB(alpha=alpha).fit(Xs[split.train], y[split.train])
    return AstrayRun(split, columns, model,
                     accuracy_by_iteration(model, Xs[split.test], y[split.test]),
                     reference.feature_log_prob_, reference.class_log_prior_,
                     y[split.labeled], y[split.unlabeled])


def rank_misleading_words(run, X, *, min_df=20):
    """Words that lead EM astray in ``run``, worst first: ``(columns, classes, pulls)``.

    The rule (the lecture's "chosen word" is the first of this list):

    1. every labeled document containing the word belongs to one class ``c`` (at least one
       does): to Naive Bayes on the labeled documents the word looks like evidence for ``c``;
    2. that is a coincidence: with all training labels (``run.reference_*``) the word is *not*
       evidence for ``c`` (its association with ``c`` is at most 0);
    3. it occurs in at least ``min_df`` unlabeled documents;
    4. ranked by its **pull**: how many more unlabeled documents that contain the word but are
       *not* of class ``c`` EM's last iteration assigns to ``c`` than iteration 0 did.
       Ties: larger iteration-0 association first, then column order.

    Parameters
    ----------
    run : AstrayRun
    X : sparse matrix
        The counts ``run`` was computed from (all columns).
    min_df : int, default=20

    Returns
    -------
    columns : ndarray of int
        Corpus columns, worst first.
    classes : ndarray of int
        The class ``c`` each word was coincidentally tied to.
    pulls : ndarray of int
    """
    if not isinstance(min_df, numbers.Integral) or min_df < 1:
        raise ValueError(f"min_df must be an integer >= 1, got {min_df!r}")
    labels = run.model.classes_
    Xs = sp.csc_matrix(X)[:, run.columns]
    labeled = (Xs[run.split.labeled] > 0).astype(float).tocsc()
    unlabeled = (Xs[run.split.unlabeled] > 0).astype(float).tocsc()
    y_labeled = np.searchsorted(labels, run.labeled_labels)
    contains, _ = _class_word_table(labeled, y_labeled)  # (n_classes, n_used) documents
    n_classes_seen = (contains > 0).sum(axis=0)
    target = contains.argmax(axis=0)
    df = np.asarray(unlabeled.sum(axis=0)).ravel()
    last = len(run.model.trace_) - 1
    first_assigned, last_assigned = run.assigned(0), run.assigned(last)
    truth = np.searchsorted(labels, run.unlabeled_labels)
    candidates = []
    for c in range(len(labels)):
        reference = run.reference_association(c)
        eligible = np.flatnonzero((n_classes_seen == 1) & (target == c) & (df >= min_df)
                                  & (reference <= 0))
        if not len(eligible):
            continue
        wrong_before = ((first_assigned == c) & (truth != c)).astype(float)
        wrong_after = ((last_assigned == c) & (truth != c)).astype(float)
        block = unlabeled[:, eligible]
        pull = np.asarray(block.T @ (wrong_after - wrong_before)).ravel()
        start = run.association(0, c)[eligible]
        candidates += [(int(p), float(a), int(run.columns[w]), c)
                       for p, a, w in zip(pull, start, eligible, strict=True)]
    candidates.sort(key=lambda item: (-item[0], -item[1], item[2]))
    columns = np.array([item[2] for item in candidates], dtype=int)
    classes = np.array([item[3] for item in candidates], dtype=int)
    pulls = np.array([item[0] for item in candidates], dtype=int)
    return columns, classes, pulls


@dataclass(frozen=True)
class WordPull:
    """How one word and class ``target`` moved over a run's recorded iterations.

    Attributes
    ----------
    word, target : int
        Corpus column of the word, index of the class.
    present : bool
        Whether the run's feature set holds the word (if not, ``association`` is NaN).
    association : ndarray of shape (n_iterations,)
        :func:`class_association` of the word with ``target`` at every iteration.
    reference : float
        Its association with all training labels (NaN when absent).
    n_labeled_docs, n_unlabeled_docs : int
        Labeled / unlabeled documents containing the word.
    docs_to_target, wrong_docs_to_target : ndarray of shape (n_iterations,)
        Unlabeled documents containing the word that EM assigns to ``target``; and of those,
        the ones whose true class is another.
    assigned_by_truth : ndarray of shape (n_iterations, n_classes)
        All unlabeled documents EM assigns to ``target``, counted by their true class.
    """

    word: int
    target: int
    present: bool
    association: np.ndarray
    reference: float
    n_labeled_docs: int
    n_unlabeled_docs: int
    docs_to_target: np.ndarray
    wrong_docs_to_target: np.ndarray
    assigned_by_truth: np.ndarray

    @property
    def class_wrong(self):
        """Unlabeled documents of other classes assigned to ``target``, per iteration."""
        return self.assigned_by_truth.sum(axis=1) - self.assigned_by_truth[:, self.target]


def word_pull(run, X, word, target):
    """The :class:`WordPull` of corpus column ``word`` and class index ``target`` in ``run``."""
    n_classes = len(run.model.classes_)
    if not isinstance(target, numbers.Integral) or not 0 <= target < n_classes:
        raise ValueError(f"target must be a class index in [0, {n_classes}), got {target!r}")
    if not isinstance(word, numbers.Integral) or not 0 <= word < X.shape[1]:
        raise ValueError(f"word must be a column of X in [0, {X.shape[1]}), got {word!r}")
    X = sp.csc_matrix(X)
    containing = X[run.split.unlabeled][:, [word]].nonzero()[0]
    n_labeled_docs = int(X[run.split.labeled][:, [word]].nnz)
    truth = np.searchsorted(run.model.classes_, run.unlabeled_labels)
    n_iterations = len(run.model.trace_)
    local = run.local(word)
    association = np.full(n_iterations, np.nan)
    docs, wrong = np.zeros(n_iterations, int), np.zeros(n_iterations, int)
    by_truth = np.zeros((n_iterations, n_classes), int)
    for t in range(n_iterations):
        assigned = run.assigned(t)
        to_target = assigned[containing] == target
        docs[t] = to_target.sum()
        wrong[t] = (to_target & (truth[containing] != target)).sum()
        by_truth[t] = np.bincount(truth[assigned == target], minlength=n_classes)
        if local is not None:
            association[t] = run.association(t, target)[local]
    reference = float(run.reference_association(target)[local]) if local is not None else np.nan
    return WordPull(int(word), int(target), local is not None, association, reference,
                    n_labeled_docs, len(containing), docs, wrong, by_truth)


def neighbour_words(run, X, word, target, *, min_df=20, k=5):
    """Words that followed ``word`` towards ``target``: ``(columns, associations)``.

    Among the words of the run's feature set that occur together with ``word`` in at least
    ``min_df`` unlabeled documents, and that are *not* evidence for ``target`` with all training
    labels (reference association at most 0), the ``k`` whose association with ``target`` rose
    most from iteration 0 to the last (ties: column order).

    Returns
    -------
    columns : ndarray of int, shape (<= k,)
        Corpus columns.
    associations : ndarray of shape (n_iterations, <= k)
        Their :func:`class_association` with ``target`` at every iteration.
    """
    X = sp.csc_matrix(X)
    containing = X[run.split.unlabeled][:, [word]].nonzero()[0]
    rows = X[run.split.unlabeled[containing]][:, run.columns]
    together = np.asarray((rows > 0).sum(axis=0)).ravel()
    last = len(run.model.trace_) - 1
    rise = run.association(last, target) - run.association(0, target)
    eligible = (together >= min_df) & (run.reference_association(target) <= 0)
    eligible &= run.columns != word
    candidates = np.flatnonzero(eligible)
    chosen = candidates[np.lexsort((candidates, -rise[candidates]))][:k]
    associations = np.array([run.association(t, target)[chosen]
                             for t in range(len(run.model.trace_))])
    return run.columns[chosen], associations


# =================================================================================================
# Part 4 — the lecture's picture: feature weights learned from few and from many labels
# =================================================================================================
@dataclass(frozen=True)
class ToyWeights:
    """Naive Bayes word weights on a toy vocabulary of discriminative and noise words.

    Attributes
    ----------
    weights : ndarray of shape (n_words,)
        ``log P(w|c1) - log P(w|c2)`` estimated from the labeled documents (add-``alpha``): the
        weight ``w_i`` of word ``i`` in the linear score ``g(x) = Σ_i x_i w_i + b``.
    true_weights : ndarray of shape (n_words,)
        The same from the distributions that generated the documents.
    discriminative : ndarray of bool, shape (n_words,)
        True for the words whose distributions differ between the classes.
    n_labeled : int
        Labeled documents per class.
    """

    weights: np.ndarray
    true_weights: np.ndarray
    discriminative: np.ndarray
    n_labeled: int

    @property
    def noise_weight(self):
        """Mean absolute weight of the noise words (their true weight is 0)."""
        return float(np.mean(np.abs(self.weights[~self.discriminative])))

    @property
    def n_noise_outweighing(self):
        """Noise words whose |weight| exceeds that of the weakest discriminative word."""
        weakest = np.min(np.abs(self.weights[self.discriminative]))
        return int(np.sum(np.abs(self.weights[~self.discriminative]) > weakest))


def toy_feature_weights(n_labeled, seed=0, *, n_discriminative=6, n_noise=24, doc_length=30,
                        strength=3.0, alpha=1.0, max_labeled=500):
    """Word weights learned by Naive Bayes from ``n_labeled`` toy documents per class.

    Two classes share one vocabulary: the first ``n_discriminative`` words are ``strength``
    times more frequent in one class (half of them in each class), the other ``n_noise`` words
    are equally frequent in both. Documents of ``doc_length`` words are drawn from these
    distributions; the first ``n_labeled`` of each class (the same draw for every
    ``n_labeled``, so a larger set extends a smaller one) train Naive Bayes.

    Returns
    -------
    ToyWeights
    """
    if not isinstance(n_labeled, numbers.Integral) or not 1 <= n_labeled <= max_labeled:
        raise ValueError(f"n_labeled must be an integer from 1 to {max_labeled}, "
                         f"got {n_labeled!r}")
    n_words = n_discriminative + n_noise
    rates = np.ones((2, n_words))
    half = n_discriminative // 2
    rates[0, :half] = strength
    rates[1, half:n_discriminative] = strength
    probabilities = rates / rates.sum(axis=1, keepdims=True)
    rng = np.random.default_rng(seed)
    counts = [rng.multinomial(doc_length, probabilities[c], size=max_labeled)[:n_labeled]
              for c in range(2)]
    totals = np.array([c.sum(axis=0) for c in counts], dtype=float) + alpha
    log_prob = np.log(totals / totals.sum(axis=1, keepdims=True))
    discriminative = np.arange(n_words) < n_discriminative
    true_weights = np.log(probabilities[0]) - np.log(probabilities[1])
    return ToyWeights(log_prob[0] - log_prob[1], true_weights, discriminative, int(n_labeled))
