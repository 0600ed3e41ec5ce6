"""Why unlabeled text helps: how EM gives a class to words the labeled documents never showed.

With a handful of labeled documents most of the vocabulary never occurs in them. Naive Bayes
trained on those documents alone (EM's iteration 0) gives every such word the same smoothed
probability in each class, so its **class association**

    a(w) = log P(w | c1) - log P(w | c2)

is the same number for all of them (it only reflects which class's labeled documents hold more
words). The word is useless for classification. The unlabeled documents that contain it, though,
also contain words the labeled documents *did* show; the labeled-only model already leans each of
those documents towards a class, the M-step counts the word there, and after a few EM rounds the
word points to a class of its own. This module measures that change with
:class:`sslviz.em.SemiSupervisedNB` and its trace (iteration 0 = labeled documents only), and
compares it with the association estimated from *all* training documents with their true labels
(the reference an oracle would have).

Cost: one EM run (see :mod:`sslviz.em`) plus O(n_features) summaries; a few tens of milliseconds
for two newsgroups.

References
----------
Wiegand, *An Introduction to Semi-Supervised Learning* (lecture, 2009), "Why are unlabeled data
useful?". Nigam, McCallum, Thrun & Mitchell (2000), Text classification from labeled and
unlabeled documents using EM (the introduction's account of why unlabeled documents help).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from sklearn.naive_bayes import MultinomialNB
from sklearn.utils.validation import check_is_fitted

from .experiments import em_run
from .splits import Split

__all__ = [
    "WordAssociation",
    "WordStory",
    "cached_word_associations",
    "class_association",
    "rank_new_words",
    "word_association",
    "word_indices",
    "word_story",
]


def class_association(feature_log_prob, pair=(0, 1)):
    """``log P(w|c1) - log P(w|c2)`` for every word, shape (n_features,).

    Parameters
    ----------
    feature_log_prob : ndarray of shape (n_classes, n_features)
        log P(w|c), e.g. a trace record's ``feature_log_prob`` or MultinomialNB's.
    pair : (int, int), default=(0, 1)
        Row indices of c1 and c2. Positive values point to c1, negative ones to c2.
    """
    feature_log_prob = np.asarray(feature_log_prob)
    i, j = _check_pair(pair, feature_log_prob.shape[0])
    return feature_log_prob[i] - feature_log_prob[j]


@dataclass(frozen=True)
class WordAssociation:
    """One seeded EM run and every word's class association before, after and with all labels.

    Attributes
    ----------
    split : Split
        Rows of the corpus: labeled, unlabeled, test.
    model : SemiSupervisedNB
        Fitted on labeled + unlabeled rows, with a full trace.
    pair : (int, int)
        The two classes compared.
    before, after, reference : ndarray of shape (n_features,)
        Class association at iteration 0 (labeled rows only), after the last EM iteration, and
        from MultinomialNB on all training rows (labeled and unlabeled) with their true labels.
    labeled_df, unlabeled_df : ndarray of shape (n_features,)
        Number of labeled / unlabeled documents containing each word.
    test_accuracy : ndarray of shape (n_iterations,)
        Accuracy on the test rows of every recorded iteration (0 = supervised Naive Bayes).
    """

    split: Split
    model: object
    pair: tuple
    before: np.ndarray
    after: np.ndarray
    reference: np.ndarray
    labeled_df: np.ndarray
    unlabeled_df: np.ndarray
    test_accuracy: np.ndarray

    @property
    def absent(self):
        """Boolean mask of the words no labeled document contains, (n_features,)."""
        return self.labeled_df == 0


def word_association(X, y, *, n_labeled, seed, test_rows, n_unlabeled=None, pair=(0, 1),
                     alpha=0.1, max_iter=10, per_class=False):
    """Split (seeded), run EM, and measure every word's class association before and after.

    Parameters
    ----------
    X : sparse matrix of shape (n_documents, n_words)
        Word counts.
    y : ndarray of shape (n_documents,)
        True classes (0 .. n_classes - 1).
    n_labeled : int
        Labeled documents (stratified over the classes; see :func:`sslviz.splits.split_labeled`).
    seed : int
    test_rows : array-like of int
        Held-out documents (e.g. the corpus' official test split).
    n_unlabeled : int or None
        Unlabeled documents drawn from the rest; ``None``: all of the rest.
    pair : (int, int), default=(0, 1)
        The classes whose association is measured.
    alpha : float, default=0.1
        Smoothing of :class:`sslviz.em.SemiSupervisedNB` and of the reference MultinomialNB.
    max_iter : int, default=10
        EM iterations after iteration 0.
    per_class : bool, default=False
        ``n_labeled`` counts documents per class instead of in total.

    Returns
    -------
    WordAssociation
    """
    y = np.asarray(y)
    n_classes = len(np.unique(y))
    pair = _check_pair(pair, n_classes)
    run = em_run(X, y, n_labeled=n_labeled, seed=seed, n_unlabeled=n_unlabeled,
                 per_class=per_class, test_rows=test_rows, alpha=alpha, max_iter=max_iter)
    split, model = run.split, run.model
    trace = model.trace_
    reference = MultinomialNB(alpha=alpha).fit(X[split.train], y[split.train])
    return WordAssociation(
        split=split,
        model=model,
        pair=pair,
        before=class_association(trace[0].feature_log_prob, pair),
        after=class_association(trace[len(trace) - 1].feature_log_prob, pair),
        reference=class_association(reference.feature_log_prob_, pair),
        labeled_df=_document_frequency(X[split.labeled]),
        unlabeled_df=_document_frequency(X[split.unlabeled]),
        test_accuracy=run.test_accuracy,
    )


def cached_word_associations(X, y, **params):
    """A cached ``(n_labeled, seed) -> WordAssociation``: :func:`word_association` with fixed
    settings (for explorers whose sliders refit)."""

    @lru_cache(maxsize=32)
    def fit(n_labeled, seed):
        return word_association(X, y, n_labeled=n_labeled, seed=seed, **params)

    return fit


def rank_new_words(result, *, min_df=10, k=None):
    """Words EM made predictive although no labeled document contains them, strongest first.

    The rule (the notebook's "chosen word" is the first of this list):

    1. the word occurs in **no** labeled document (so iteration 0 knows nothing about it);
    2. it occurs in at least ``min_df`` unlabeled documents (rare words are left out: a name in
       three posts can get any association);
    3. after EM it points to the **correct** class: its association has the sign of the
       reference association estimated with all training labels;
    4. ranked by Nigam's weighted log-odds for the class it points to,
       ``P(w|c) |log P(w|c1) - log P(w|c2)|`` after EM, which favours words that are both
       frequent in that class and much more frequent there than in the other one.

    Parameters
    ----------
    result : WordAssociation
    min_df : int, default=10
    k : int or None
        Keep the first ``k``; ``None`` keeps all.

    Returns
    -------
    ndarray of int
        Word (column) indices.
    """
    if not isinstance(min_df, numbers.Integral) or min_df < 1:
        raise ValueError(f"min_df must be an integer >= 1, got {min_df!r}")
    strength = _strength(result)
    eligible = (result.absent & (result.unlabeled_df >= min_df)
                & (np.sign(result.after) == np.sign(result.reference)) & (result.after != 0))
    candidates = np.flatnonzero(eligible)
    order = candidates[np.argsort(-strength[candidates], kind="stable")]
    return order if k is None else order[:k]


def _strength(result):
    """P(w|c*) |a(w)| after EM, where c* is the class the word points to."""
    log_prob = result.model.trace_[len(result.model.trace_) - 1].feature_log_prob
    i, j = result.pair
    pointed = np.where(result.after > 0, log_prob[i], log_prob[j])
    return np.exp(pointed) * np.abs(result.after)


@dataclass(frozen=True)
class WordStory:
    """What happened to one word: the numbers a lecture prints.

    Attributes
    ----------
    index : int
        Column of the word.
    n_labeled_docs, n_unlabeled_docs : int
        Labeled / unlabeled documents containing the word.
    before, after, reference : float
        Its class association at iteration 0, after EM, and with all training labels.
    share_before, share_after : float
        Mean P(c*|x) over the unlabeled documents containing the word, under the labeled-only
        model (iteration 0) and after EM, where c* is the class the word points to after EM.
        (NaN when no unlabeled document contains it.)
    pointed_class : int
        c*: the class (index) the word points to after EM.
    evidence : list of (int, float)
        The words that carried the class into those documents: words seen in the labeled
        documents, by their total contribution ``Σ_x N(v, x) a_0(v)`` to the iteration-0 log-odds
        of the unlabeled documents ``x`` containing the word, signed towards c* (largest first).
    """

    index: int
    n_labeled_docs: int
    n_unlabeled_docs: int
    before: float
    after: float
    reference: float
    share_before: float
    share_after: float
    pointed_class: int
    evidence: list


def word_story(result, X, index, *, k=5):
    """The :class:`WordStory` of word ``index`` in ``result`` (``X``: the corpus' counts).

    Parameters
    ----------
    result : WordAssociation
    X : sparse matrix of shape (n_documents, n_words)
        The counts ``result`` was computed from.
    index : int
        Word column.
    k : int, default=5
        Number of evidence words.
    """
    check_is_fitted(result.model)
    n_features = len(result.after)
    if not isinstance(index, numbers.Integral) or not 0 <= index < n_features:
        raise ValueError(f"index must be a word column in [0, {n_features}), got {index!r}")
    X_unlabeled = X[result.split.unlabeled].tocsc()
    containing = X_unlabeled[:, index].nonzero()[0]
    toward_first = result.after[index] >= 0
    i, j = result.pair
    pointed = i if toward_first else j
    sign = 1.0 if toward_first else -1.0
    trace = result.model.trace_
    column = list(result.model.classes_).index(pointed)
    share_before = share_after = float("nan")
    if len(containing):
        share_before = float(np.mean(trace[0].unlabeled_posteriors[containing, column]))
        share_after = float(np.mean(trace[len(trace) - 1].unlabeled_posteriors[containing,
                                                                                 column]))
    counts = np.asarray(X_unlabeled.tocsr()[containing].sum(axis=0)).ravel()
    contribution = sign * counts * result.before
    seen = ~result.absent
    seen[index] = False
    candidates = np.flatnonzero(seen & (contribution > 0))
    top = candidates[np.argsort(-contribution[candidates], kind="stable")[:k]]
    return WordStory(
        index=int(index),
        n_labeled_docs=int(result.labeled_df[index]),
        n_unlabeled_docs=int(len(containing)),
        before=float(result.before[index]),
        after=float(result.after[index]),
        reference=float(result.reference[index]),
        share_before=share_before,
        share_after=share_after,
        pointed_class=int(pointed),
        evidence=[(int(v), float(contribution[v])) for v in top],
    )


def word_indices(vocabulary, words):
    """Column indices of ``words`` in ``vocabulary``; a clear error for words not in it."""
    position = {word: i for i, word in enumerate(np.asarray(vocabulary).tolist())}
    missing = [word for word in words if word not in position]
    if missing:
        raise ValueError(f"not in the vocabulary: {missing} (words are lower-case, digits are "
                         "written D, stop words are removed)")
    return np.array([position[word] for word in words], dtype=int)


def _document_frequency(X):
    return np.asarray((X > 0).sum(axis=0)).ravel().astype(int)


def _check_pair(pair, n_classes):
    try:
        i, j = (int(c) for c in pair)
    except (TypeError, ValueError):
        raise ValueError(f"pair must be two class indices, got {pair!r}") from None
    if not (0 <= i < n_classes and 0 <= j < n_classes) or i == j:
        raise ValueError(f"pair must be two different class indices in [0, {n_classes}), "
                         f"got {pair!r}")
    return i, j
