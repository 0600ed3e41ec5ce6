"""Lecture 1's experiments: when unlabeled points help (2-D toy data), and how EM teaches a word.

**The cluster assumption.** Points come from :func:`sslviz.datasets.toy.make_rotated_clusters`:
two long clusters, labeled by a line whose ``angle`` to the gap between them moves the data from
favourable (0°, each cluster is one class) to unfavourable (90°, each cluster is half of each
class). On every seeded split (:func:`sslviz.splits.split_labeled`) a **supervised** classifier
sees the labeled points only (default: ``LogisticRegression``) and a **semi-supervised** one also
the unlabeled points (default: ``LabelSpreading`` with an RBF graph, Zhou et al. 2004), which
gives whole clusters the label of the labeled points in them: right when clusters are classes,
wrong when they are not. Both are scored on the same held-out points. One fit costs 10-20 ms
for 300 points; the sweep (:func:`sweep_cluster_assumption`, 280 fits by default, about 3 s) runs
on :func:`sslviz.experiments.runner.run_grid` (cached on disk, parallel, with a progress bar).

**Why unlabeled text helps.** Naive Bayes trained on a handful of labeled documents (EM's
iteration 0) gives every word those documents never show the same class association
``a(w) = log P(w|c1) - log P(w|c2)`` (:func:`sslviz.words.log_odds_pair`): the word is useless.
The unlabeled documents containing it also contain words the labeled ones did show; EM counts it
there, and after a few rounds it points to a class of its own. :func:`word_association` measures
this with one EM run (:func:`sslviz.experiments.em.em_run`, tens of milliseconds for two
newsgroups) against the association estimated with all training labels.

References
----------
Wiegand, *An Introduction to Semi-Supervised Learning* (lecture, 2009): "A Dataset favourable /
unfavourable for Semi-Supervised Learning", "A Word of Warning", "Why are unlabeled data useful?".
Zhou, Bousquet, Lal, Weston & Schölkopf (2004), Learning with local and global consistency.
Chapelle, Schölkopf & Zien (2006), *Semi-Supervised Learning*, chapter 1. Nigam, McCallum, Thrun
& Mitchell (2000), Text classification from labeled and unlabeled documents using EM.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import MultinomialNB
from sklearn.semi_supervised import LabelSpreading
from sklearn.utils.validation import check_is_fitted

from ..datasets import load_20newsgroups
from ..datasets.toy import make_rotated_clusters
from ..grids import decision_grid
from ..splits import Split, split_labeled
from ..text import CountCorpus, strip_post, vectorize, without_dotted_words
from ..tuning import choose_nb_alpha
from ..validation import check_int
from ..words import log_odds_pair, top_indices
from .em import em_run
from .runner import axis_index, run_grid

TOY_EXTENT = (-4.5, 4.5, -6.5, 6.5)  # (x_min, x_max, y_min, y_max): the toy data's picture
RESULT_VERSION = 1  # bump for a change sslviz.code_digest cannot see (a dependency's)


# -- the cluster assumption on 2-D toy data ------------------------------------------------------
def default_supervised():
    """``LogisticRegression`` (``newton-cholesky``: the ``lbfgs`` optimum without its thread
    start-up cost, which made a sweep several times slower on two cores)."""
    return LogisticRegression(solver="newton-cholesky")


def default_semi_supervised():
    """``LabelSpreading`` on an RBF graph (``gamma=2``: points about 0.7 apart are strongly
    linked) with ``alpha=0.99`` (labels spread far; scikit-learn's 0.2 keeps them near the
    labeled points) and enough iterations to converge."""
    return LabelSpreading(kernel="rbf", gamma=2.0, alpha=0.99, max_iter=1000)


@dataclass(frozen=True)
class ToyFit:
    """One seeded split of the toy data and both classifiers fitted on it.

    Attributes
    ----------
    angle : float
    n_labeled, seed : int
    X : ndarray of shape (n_train + n_test, 2)
    y : ndarray of shape (n_train + n_test,)
    split : Split
        Row indices into ``X``: labeled, unlabeled, test.
    supervised, semi_supervised : fitted estimators
        On the labeled rows / on the labeled and unlabeled rows.
    supervised_accuracy, semi_supervised_accuracy : float
        Accuracy on the test rows.
    """

    angle: float
    n_labeled: int
    seed: int
    X: np.ndarray
    y: np.ndarray
    split: Split
    supervised: object
    semi_supervised: object
    supervised_accuracy: float
    semi_supervised_accuracy: float

    @property
    def unlabeled_predictions(self):
        """Labels the semi-supervised classifier gave the unlabeled rows, ``(n_unlabeled,)``:
        its ``transduction_`` where it has one (the labels that spread there), else predictions."""
        transduction = getattr(self.semi_supervised, "transduction_", None)
        if transduction is not None:
            return np.asarray(transduction)[len(self.split.labeled):]
        return self.semi_supervised.predict(self.X[self.split.unlabeled])


def fit_toy(angle, n_labeled, seed, *, n_train=300, n_test=300, supervised=None,
            semi_supervised=None):
    """Draw the toy data at ``angle``, split it (seeded) and fit both classifiers.

    Parameters
    ----------
    angle : float in [0, 90]
        Degrees between the class boundary and the gap between the clusters.
    n_labeled : int in [2, n_train]
        Labeled points (stratified; at least one per class).
    seed : int
        Seeds both the points and the split.
    n_train : int, default=300
        Points the semi-supervised classifier sees (labeled + unlabeled).
    n_test : int, default=300
        Held-out points both classifiers are scored on.
    supervised, semi_supervised : estimator or None
        Unfitted templates (cloned); ``None``: :func:`default_supervised` /
        :func:`default_semi_supervised`. The semi-supervised one must accept ``y == -1``.

    Returns
    -------
    ToyFit
    """
    check_int("n_train", n_train, minimum=2)
    check_int("n_test", n_test, minimum=1)
    check_int("n_labeled", n_labeled, minimum=2, maximum=n_train)
    X, y = make_rotated_clusters(n_train + n_test, angle=angle, random_state=seed)
    split = split_labeled(y, int(n_labeled), n_test=n_test, random_state=seed)
    sup = clone(default_supervised() if supervised is None else supervised)
    sup.fit(X[split.labeled], y[split.labeled])
    ssl = clone(default_semi_supervised() if semi_supervised is None else semi_supervised)
    ssl.fit(X[split.train], split.semi_supervised_targets(y))
    X_test, y_test = X[split.test], y[split.test]
    return ToyFit(float(angle), int(n_labeled), int(seed), X, y, split, sup, ssl,
                  float(np.mean(sup.predict(X_test) == y_test)),
                  float(np.mean(ssl.predict(X_test) == y_test)))


def cached_toy_fits(**fit_params):
    """A cached ``(angle, n_labeled, seed) -> ToyFit``: :func:`fit_toy` with fixed settings."""

    @lru_cache(maxsize=128)
    def fit(angle, n_labeled, seed):
        return fit_toy(angle, n_labeled, seed, **fit_params)

    return fit


def cached_toy_grids(fits, extent=TOY_EXTENT, *, resolution=120):
    """A cached ``(angle, n_labeled, seed, which) -> Grid`` of ``fits(angle, n_labeled, seed)``'s
    ``"supervised"`` or ``"semi_supervised"`` classifier (:func:`sslviz.grids.decision_grid`)."""

    @lru_cache(maxsize=64)
    def grid(angle, n_labeled, seed, which):
        return decision_grid(getattr(fits(angle, n_labeled, seed), which), extent,
                             resolution=resolution)

    return grid


@dataclass(frozen=True)
class Sweep:
    """Test accuracy of both classifiers over angles, labeled-set sizes and seeds.

    Attributes
    ----------
    angles, sizes, seeds : ndarray of shape (n_angles,), (n_sizes,), (n_seeds,)
    supervised, semi_supervised : ndarray of shape (n_sizes, n_angles, n_seeds)
        Test accuracies.
    fit_params : dict
        The keyword arguments of :func:`fit_toy` the sweep used (``n_train``, ``n_test`` and the
        estimator templates), so that one cell can be refitted exactly.
    """

    angles: np.ndarray
    sizes: np.ndarray
    seeds: np.ndarray
    supervised: np.ndarray
    semi_supervised: np.ndarray
    fit_params: dict

    def at(self, n_labeled):
        """(supervised, semi-supervised) accuracies at one size, each (n_angles, n_seeds)."""
        row = axis_index("n_labeled", self.sizes, n_labeled)
        return self.supervised[row], self.semi_supervised[row]

    def ends(self, n_labeled):
        """``{"favourable": (angle, supervised, semi), "unfavourable": (...)}``: mean
        accuracies at the first and the last angle."""
        sup, ssl = (accuracy.mean(axis=1) for accuracy in self.at(n_labeled))
        return {"favourable": (float(self.angles[0]), float(sup[0]), float(ssl[0])),
                "unfavourable": (float(self.angles[-1]), float(sup[-1]), float(ssl[-1]))}


def sweep_cluster_assumption(angles=(0, 15, 30, 45, 60, 75, 90), sizes=(2, 4, 8, 16),
                             seeds=range(10), *, n_train=300, n_test=300, supervised=None,
                             semi_supervised=None, progress=True, n_jobs=None, use_cache=True):
    """Supervised vs semi-supervised test accuracy as the data move from favourable to not.

    Parameters
    ----------
    angles : sequence of float in [0, 90], increasing
        0 = favourable, 90 = unfavourable.
    sizes : sequence of int
        Labeled-set sizes.
    seeds : sequence of int
        One data draw and split per seed (the same seeds at every angle and size).
    n_train, n_test, supervised, semi_supervised
        As in :func:`fit_toy`.
    progress : bool, default=True
        Show a progress bar over the fits not found in the cache.
    n_jobs : int or None
        Parallel processes (joblib; ``-1`` = all cores). Results do not depend on it.
    use_cache : bool, default=True
        Read fits done before from the disk cache (``False`` refits and overwrites them).

    Returns
    -------
    Sweep
    """
    angles = np.asarray(angles, dtype=float)
    sizes = np.asarray(sizes, dtype=int)
    seeds = np.asarray(list(seeds), dtype=int)
    if angles.ndim != 1 or len(angles) < 2 or np.any(np.diff(angles) <= 0) \
            or angles[0] < 0 or angles[-1] > 90:
        raise ValueError("angles must be at least two increasing angles in [0, 90] degrees, "
                         f"got {angles.tolist()}")
    if len(sizes) == 0 or len(seeds) == 0:
        raise ValueError("sweep_cluster_assumption needs at least one size and one seed")
    for size in sizes:  # fail before starting any fit
        if not 2 <= size <= n_train:
            raise ValueError(f"every size must lie between 2 and n_train={n_train}, got {size}")
    fit_params = {"n_train": n_train, "n_test": n_test,
                  "supervised": default_supervised() if supervised is None else supervised,
                  "semi_supervised": (default_semi_supervised() if semi_supervised is None
                                      else semi_supervised)}
    settings = {key: _describe(value) for key, value in fit_params.items()}
    grid = run_grid(_sweep_cell, {"n_labeled": sizes, "angle": angles, "seed": seeds},
                    kind="cluster_assumption", shared=fit_params,
                    key=lambda job: {**job, **settings, "version": RESULT_VERSION},
                    use_cache=use_cache, n_jobs=n_jobs, progress=progress,
                    description="cluster-assumption sweep")
    return Sweep(angles, sizes, seeds, grid["supervised"].astype(float),
                 grid["semi_supervised"].astype(float), fit_params)


def _sweep_cell(angle, n_labeled, seed, **fit_params):
    fit = fit_toy(angle, n_labeled, seed, **fit_params)
    return {"supervised": fit.supervised_accuracy,
            "semi_supervised": fit.semi_supervised_accuracy}


def _describe(value):
    """A cache-key description of a setting: estimators by class and parameters."""
    if hasattr(value, "get_params"):
        kind = type(value)
        return {"class": f"{kind.__module__}.{kind.__qualname__}",
                "params": value.get_params(deep=False)}
    return value


# -- why unlabeled text helps: the class association of words before and after EM ---------------
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
        Labeled documents (stratified; see :func:`sslviz.splits.split_labeled`).
    seed : int
    test_rows : array-like of int
        Held-out documents (e.g. the corpus' official test split).
    n_unlabeled : int or None
        Unlabeled documents drawn from the rest; ``None``: all of the rest.
    pair : (int, int), default=(0, 1)
        The classes whose association is measured.
    alpha : float or "chosen", default=0.1
        Smoothing of :class:`sslviz.em.SemiSupervisedNB` (Naive Bayes at iteration 0 and every
        EM step) and of the reference MultinomialNB; ``"chosen"``: picked on the split's labeled
        documents by the Dirichlet evidence (:func:`sslviz.tuning.choose_nb_alpha`), the same α
        for NB and EM (``result.model.alpha``).
    max_iter : int, default=10
        EM iterations after iteration 0.
    per_class : bool, default=False
        ``n_labeled`` counts documents per class instead of in total.

    Returns
    -------
    WordAssociation
    """
    y = np.asarray(y)
    log_odds_pair(np.zeros((len(np.unique(y)), 1)), pair)  # refuse a bad pair before EM runs
    pair = (int(pair[0]), int(pair[1]))
    if isinstance(alpha, str) and alpha == "chosen":
        split = split_labeled(y, n_labeled, n_unlabeled=n_unlabeled, per_class=per_class,
                              test_rows=test_rows, random_state=seed)
        alpha = float(choose_nb_alpha(X[split.labeled], y[split.labeled]).value)
    run = em_run(X, y, n_labeled=n_labeled, seed=seed, n_unlabeled=n_unlabeled,
                 per_class=per_class, test_rows=test_rows, alpha=alpha, max_iter=max_iter)
    split, trace = run.split, run.model.trace_
    reference = MultinomialNB(alpha=run.model.alpha).fit(X[split.train], y[split.train])
    return WordAssociation(
        split=split, model=run.model, pair=pair,
        before=log_odds_pair(trace[0].feature_log_prob, pair),
        after=log_odds_pair(trace[len(trace) - 1].feature_log_prob, pair),
        reference=log_odds_pair(reference.feature_log_prob_, pair),
        labeled_df=_document_frequency(X[split.labeled]),
        unlabeled_df=_document_frequency(X[split.unlabeled]),
        test_accuracy=run.test_accuracy)


def cached_word_associations(X, y, **params):
    """A cached ``(n_labeled, seed) -> WordAssociation``: :func:`word_association` with fixed
    settings (for explorers whose sliders refit)."""

    @lru_cache(maxsize=32)
    def fit(n_labeled, seed):
        return word_association(X, y, n_labeled=n_labeled, seed=seed, **params)

    return fit


def rank_new_words(result, *, min_df=10, k=None):
    """Words EM made predictive although no labeled document contains them, strongest first.

    The rule (the notebook's "chosen word" is the first of this list): the word occurs in **no**
    labeled document; in at least ``min_df`` unlabeled ones (a name in three posts can get any
    association); after EM it points to the **correct** class (the sign of the reference
    association); ranked by Nigam's weighted log-odds for the class it points to after EM,
    ``P(w|c) |log P(w|c1) - log P(w|c2)|`` (frequent in that class, and much more so than in
    the other).

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
    check_int("min_df", min_df, minimum=1)
    log_prob = result.model.trace_[len(result.model.trace_) - 1].feature_log_prob
    i, j = result.pair
    strength = np.exp(np.where(result.after > 0, log_prob[i], log_prob[j])) * np.abs(result.after)
    eligible = (result.absent & (result.unlabeled_df >= min_df)
                & (np.sign(result.after) == np.sign(result.reference)) & (result.after != 0))
    candidates = np.flatnonzero(eligible)
    return candidates[top_indices(strength[candidates], len(candidates) if k is None else k)]


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
        Mean P(c*|x) over the unlabeled documents containing the word, at iteration 0 and after
        EM, where c* is the class the word points to after EM (NaN if no such document).
    pointed_class : int
        c*, as a class index.
    evidence : list of (int, float)
        The words seen in labeled documents that carried the class into those documents, by
        their total contribution ``Σ_x N(v, x) a_0(v)`` to the iteration-0 log-odds of the
        unlabeled documents ``x`` containing the word, signed towards c* (largest first).
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
    """The :class:`WordStory` of word ``index`` in ``result`` (``X``: the corpus' counts, the
    ones ``result`` was computed from); ``k`` evidence words."""
    check_is_fitted(result.model)
    check_int("index", index, minimum=0, maximum=len(result.after) - 1)
    X_unlabeled = X[result.split.unlabeled].tocsc()
    containing = X_unlabeled[:, index].nonzero()[0]
    toward_first = result.after[index] >= 0
    pointed = result.pair[0] if toward_first else result.pair[1]
    trace = result.model.trace_
    column = list(result.model.classes_).index(pointed)
    share_before = share_after = float("nan")
    if len(containing):
        share_before = float(np.mean(trace[0].unlabeled_posteriors[containing, column]))
        share_after = float(np.mean(trace[len(trace) - 1].unlabeled_posteriors[containing,
                                                                                 column]))
    counts = np.asarray(X_unlabeled.tocsr()[containing].sum(axis=0)).ravel()
    contribution = (1.0 if toward_first else -1.0) * counts * result.before
    seen = ~result.absent
    seen[index] = False
    candidates = np.flatnonzero(seen & (contribution > 0))
    top = candidates[top_indices(contribution[candidates], k)]
    return WordStory(
        index=int(index), n_labeled_docs=int(result.labeled_df[index]),
        n_unlabeled_docs=int(len(containing)), before=float(result.before[index]),
        after=float(result.after[index]), reference=float(result.reference[index]),
        share_before=share_before, share_after=share_after, pointed_class=int(pointed),
        evidence=[(int(v), float(contribution[v])) for v in top])


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


def headerless_newsgroups(categories, options, *, data_dir=None):
    """20 Newsgroups counted without what names a post's author: each post through
    :func:`sslviz.text.strip_post` (header, attribution lines, signature), then the words with a
    dot (host names) dropped (:func:`sslviz.text.without_dotted_words`). The posts keep the
    order of :func:`sslviz.text.load_counts`, so a seeded split draws the same posts.

    Returns
    -------
    CountCorpus
    """
    bunch = load_20newsgroups(categories=categories, data_dir=data_dir)
    X, vocabulary = vectorize([strip_post(text) for text in bunch.data], options)
    X, vocabulary = without_dotted_words(X, vocabulary)
    return CountCorpus(X.tocsr(), np.asarray(bunch.target), list(bunch.target_names),
                       vocabulary, np.asarray(bunch.filenames, dtype=str))
