"""Which words pull a class away during EM: pure summaries of one recorded EM run (Lecture 5).

With one labeled document per class, a word can be tied to a class by coincidence: every labeled
document containing it belongs to that class, although with every label it is not evidence for
the class. The slide's mechanism (Wiegand's lecture) says EM then pulls the unlabeled documents
containing the word into that class, and the words they share follow; lecture 5 tests that
mechanism by intervention (removing the word, or the stop words) and finds the stop words, not
the chance word, decide the outcome on its featured cell. An :class:`AstrayRun` (built by
:func:`sslviz.experiments.feature_selection.astray_run`) holds the run's full trace and an oracle
fitted with every training label; the functions here read the case study from it, without
refitting: :func:`rank_misleading_words` (which word), :func:`word_pull` (how it moved),
:func:`neighbour_words` (which words followed it) and :func:`class_top_words` (the class's top words
at every iteration). Cost: one pass over the unlabeled documents per recorded iteration.

The association of word ``w`` with class ``c`` is ``log P(w|c) - log P(w|not c)``
(:func:`sslviz.words.log_odds_vs_rest`): positive means evidence for ``c``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .em import SemiSupervisedNB, word_scores
from .feature_selection import class_word_table
from .validation import check_int
from .words import log_odds_vs_rest, top_indices

__all__ = ["AstrayRun", "WordPull", "class_top_words", "neighbour_words",
           "rank_misleading_words", "word_pull"]


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
        """``log P(w|c) - log P(w|not c)`` (:func:`sslviz.words.log_odds_vs_rest`) of every used
        column with class index ``target`` at one recorded iteration, (n_used,)."""
        step = self.model.trace_.iteration(iteration)
        return log_odds_vs_rest(step.feature_log_prob, step.class_log_prior, target)

    def reference_association(self, target):
        """The same association under the oracle with every training label, (n_used,)."""
        return log_odds_vs_rest(self.reference_log_prob, self.reference_log_prior, target)

    def association_path(self, word, target):
        """The association of corpus column ``word`` with ``target`` at every recorded
        iteration, (n_iterations,); NaN if the run's feature set lacks the word."""
        local = self.local(word)
        if local is None:
            return np.full(len(self.model.trace_), np.nan)
        return np.array([self.association(t, target)[local]
                         for t in range(len(self.model.trace_))])

    def assigned(self, iteration):
        """Most probable class of every unlabeled document at one iteration, (n_unlabeled,)."""
        return self.model.trace_.iteration(iteration).unlabeled_posteriors.argmax(axis=1)


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
    check_int("min_df", min_df, minimum=1)
    labels = run.model.classes_
    Xs = sp.csc_matrix(X)[:, run.columns]
    labeled = (Xs[run.split.labeled] > 0).astype(float).tocsc()
    unlabeled = (Xs[run.split.unlabeled] > 0).astype(float).tocsc()
    y_labeled = np.searchsorted(labels, run.labeled_labels)
    contains, _ = class_word_table(labeled, y_labeled)  # (n_classes, n_used) documents
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
        :meth:`AstrayRun.association` of the word with ``target`` at every iteration.
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
    check_int("target", target, minimum=0, maximum=n_classes - 1)
    check_int("word", word, minimum=0, maximum=X.shape[1] - 1)
    X = sp.csc_matrix(X)
    containing = X[run.split.unlabeled][:, [word]].nonzero()[0]
    n_labeled_docs = int(X[run.split.labeled][:, [word]].nnz)
    truth = np.searchsorted(run.model.classes_, run.unlabeled_labels)
    n_iterations = len(run.model.trace_)
    local = run.local(word)
    docs, wrong = np.zeros(n_iterations, int), np.zeros(n_iterations, int)
    by_truth = np.zeros((n_iterations, n_classes), int)
    for t in range(n_iterations):
        assigned = run.assigned(t)
        to_target = assigned[containing] == target
        docs[t] = to_target.sum()
        wrong[t] = (to_target & (truth[containing] != target)).sum()
        by_truth[t] = np.bincount(truth[assigned == target], minlength=n_classes)
    reference = float(run.reference_association(target)[local]) if local is not None else np.nan
    return WordPull(int(word), int(target), local is not None,
                    run.association_path(word, target), reference,
                    n_labeled_docs, len(containing), docs, wrong, by_truth)


def neighbour_words(run, X, word, target, *, min_df=20, k=5):
    """Words that followed ``word`` into ``target``: ``(columns, associations)``.

    Among the words of the run's feature set that occur together with ``word`` in at least
    ``min_df`` unlabeled documents, and that are *not* evidence for ``target`` with all training
    labels (reference association at most 0), the ``k`` whose association with ``target`` at the
    last iteration lies furthest **above** that reference (ties: column order). A word that only
    moved from a poor one-document estimate back towards its reference does not count: it has
    to end on the wrong side of what every label says.

    Returns
    -------
    columns : ndarray of int, shape (<= k,)
        Corpus columns.
    associations : ndarray of shape (n_iterations, <= k)
        Their association (:meth:`AstrayRun.association`) with ``target`` at every iteration.
    """
    X = sp.csc_matrix(X)
    containing = X[run.split.unlabeled][:, [word]].nonzero()[0]
    rows = X[run.split.unlabeled[containing]][:, run.columns]
    together = np.asarray((rows > 0).sum(axis=0)).ravel()
    last = len(run.model.trace_) - 1
    reference = run.reference_association(target)
    excess = run.association(last, target) - reference
    eligible = (together >= min_df) & (reference <= 0) & (run.columns != word)
    candidates = np.flatnonzero(eligible)
    chosen = candidates[np.lexsort((candidates, -excess[candidates]))][:k]
    associations = np.array([run.association(t, target)[chosen]
                             for t in range(len(run.model.trace_))])
    return run.columns[chosen], associations


def class_top_words(run, vocabulary, target, *, k):
    """Class ``target``'s top ``k`` words at every recorded iteration (Nigam's weighted
    log-odds, :func:`sslviz.em.word_scores`), and which of them are *not* evidence for the class
    with all training labels (reference association at most 0).

    Returns
    -------
    words : list over iterations of list of str
    misleading : list over iterations of list of bool
    """
    misleading = run.reference_association(target) <= 0
    vocabulary = np.asarray(vocabulary)[run.columns]
    tops = [top_indices(word_scores(run.model, iteration=t, by="log_odds")[target], k)
            for t in range(len(run.model.trace_))]
    return [vocabulary[top].tolist() for top in tops], [misleading[top].tolist() for top in tops]
