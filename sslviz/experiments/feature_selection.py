"""The experiments of Lecture 5 (feature selection): vocabulary sweeps, a word leading EM astray,
and the toy word weights of the lecture's picture.

* :func:`vocabulary_sweep` — test accuracy of Naive Bayes and EM against vocabulary size, per
  feature-selection method (:mod:`sslviz.feature_selection`), labeled-set size and seed; one
  cached job per (labeled-set size, seed) on :func:`sslviz.experiments.runner.run_jobs`.
* :func:`astray_run` — EM with its full trace on a chosen feature set, plus an oracle fitted with
  every training label: the "leading astray" case study, read from it by
  :mod:`sslviz.feature_selection_astray`.
* :func:`toy_feature_weights` — Naive Bayes weights of discriminative and noise words learned from
  few or many toy documents.

No drawing here (see :mod:`sslviz.plots.feature_selection`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.naive_bayes import MultinomialNB

from ..cache import data_digest
from ..em import SemiSupervisedNB, accuracy_by_iteration
from ..feature_selection import METHODS, select_features
from ..feature_selection_astray import AstrayRun
from ..splits import split_labeled
from ..text import STOP_LISTS, stop_list
from ..tuning import ALPHA_GRID, Choice, best_index, choose_nb_alpha, loo_log_likelihood
from ..validation import check_choice, check_int, check_number
from ..words import log_odds_pair
from .runner import run_jobs

RESULT_VERSION = 1  # bump for a change sslviz.code_digest cannot see (a dependency's)
ALL_WORDS = 0  # in ``sizes``: every word of the feature set
#: Why a sweep's job may use an α that stopped at a bound of α's range (1e-6 to 100): it records
#: where its choices stopped (``alpha_at_bound``), and the lecture states them.
SWEEP_EDGE = "a sweep records its edge choices (alpha_at_bound); the lecture states them"


# -- accuracy against vocabulary size -----------------------------------------------------------
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
    alpha : ndarray of shape (n_sets, n_label_sizes, n_sizes, n_seeds)
        The smoothing NB and EM used: with ``alpha="chosen"``, picked by the evidence on the
        labeled documents of those columns (:func:`sslviz.tuning.choose_nb_alpha`, its grid
        extended while the best α is an end), so a larger vocabulary does not silently carry
        more smoothing mass.
    loo : ndarray of shape (n_sets, n_label_sizes, n_sizes, n_seeds)
        Naive Bayes' leave-one-out log-likelihood of the labels
        (:func:`sslviz.tuning.loo_log_likelihood`) at the α used, per labeled document: a score
        of each vocabulary size computed on the labeled documents alone. NaN when a class has
        fewer than two labeled documents.
    """

    feature_sets: tuple
    label_sizes: np.ndarray
    sizes: np.ndarray
    seeds: np.ndarray
    n_features: np.ndarray
    nb_accuracy: np.ndarray
    em_accuracy: np.ndarray
    top_words: np.ndarray
    alpha: np.ndarray | None = None
    loo: np.ndarray | None = None
    alpha_at_bound: np.ndarray | None = None  # like ``alpha``: True where α stopped at a bound

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

    def size_choices(self, feature_set, n_labeled):
        """Per seed, the :class:`sslviz.tuning.Choice` of the vocabulary size (``n_words``, the
        words used) by NB's leave-one-out log-likelihood per labeled document (:attr:`loo`).

        The held-out log-likelihood, the project's criterion for a parameter without a study of
        its own; ties go to the middle tied size. The sizes are the sweep's: a choice at its
        smallest or largest size is an edge (``at_bound``) that the grid cannot extend.
        Raises ``ValueError`` when a class has fewer than two labeled documents.
        """
        i = self._index(self.feature_sets, feature_set, "feature set")
        j = self._index(self.label_sizes.tolist(), n_labeled, "labeled-set size")
        scores = self.loo[i, j]  # (n_sizes, n_seeds)
        if np.isnan(scores).any():
            raise ValueError(f"no leave-one-out score with {n_labeled} labeled document(s) per "
                             "class: a class needs at least 2")
        order = np.argsort(self.n_features[i], kind="stable")  # smallest vocabulary first
        candidates = [{"n_words": int(self.n_features[i, k])} for k in order]
        return [Choice(candidates[best_index(column[order])], candidates, column[order],
                       "leave-one-out log-likelihood per labeled document")
                for column in scores.T]

    def chosen_size(self, feature_set, n_labeled, *, edge_reason=None):
        """Per seed, the index (into :attr:`sizes`) of the size :meth:`size_choices` picks.

        ``edge_reason``: why a choice at the smallest or largest size may be used; without it,
        such a choice warns (raises under ``SSLVIZ_STRICT_CLAIMS=1``).
        """
        i = self._index(self.feature_sets, feature_set, "feature set")
        words = self.n_features[i].tolist()
        picked = []
        for choice in self.size_choices(feature_set, n_labeled):
            if choice.at_bound and edge_reason:
                choice = choice.acknowledge_edge(edge_reason)
            picked.append(words.index(choice.value))
        return np.array(picked)

    def at_chosen_size(self, feature_set, n_labeled, *, edge_reason=None):
        """(NB, EM) accuracies, (n_seeds,) each, at the size :meth:`chosen_size` picks."""
        chosen = self.chosen_size(feature_set, n_labeled, edge_reason=edge_reason)
        seeds = np.arange(len(self.seeds))
        return tuple(a[chosen, seeds] for a in self.at(feature_set, n_labeled))

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


def _sweep_job(X, y, vocabulary, specs, sizes, n_labeled, seed, *, test_rows, n_unlabeled,
              em_params, n_top):
    """One split of :func:`vocabulary_sweep`: per feature set one ranking, then NB and EM at
    every vocabulary size.

    Returns
    -------
    dict with ``"results"`` (n_sets, n_sizes, 6): words used, NB accuracy, EM accuracy, α used,
    NB's leave-one-out log-likelihood per labeled document (NaN below 2 per class), 1.0 where
    the chosen α stopped at a bound of its range (acknowledged, :data:`SWEEP_EDGE`); and
    ``"top_words"`` (n_sets, n_top): the first words of every ranking.
    """
    split = sweep_split(y, n_labeled, seed, test_rows=test_rows, n_unlabeled=n_unlabeled)
    y_train = split.semi_supervised_targets(y)
    X_train, y_test = X[split.train], np.asarray(y)[split.test]
    train_csc, test_csc = X_train.tocsc(), X[split.test].tocsc()
    n_lab = len(split.labeled)
    params = {**em_params, "record": "summary"}
    alpha, grid = params.pop("alpha", 1.0), params.pop("alpha_grid", ALPHA_GRID)
    results = np.zeros((len(specs), len(sizes), 6))
    top = np.empty((len(specs), n_top), dtype=object)
    for s, (method, stop_words) in enumerate(specs):
        ranking = select_features(X_train, method, None, y=y_train, vocabulary=vocabulary,
                                  stop_words=stop_words)
        top[s] = vocabulary[ranking[:n_top]]
        for k, size in enumerate(sizes):
            columns = np.sort(ranking if size == ALL_WORDS else ranking[:size])
            Xs_train = train_csc[:, columns].tocsr()
            Xs_test = test_csc[:, columns].tocsr()
            used, edge = _resolve_alpha(Xs_train[:n_lab], y_train[:n_lab], alpha, grid)
            nb = SemiSupervisedNB(**{**params, "alpha": used, "max_iter": 0}).fit(
                Xs_train[:n_lab], y_train[:n_lab])
            em = SemiSupervisedNB(**{**params, "alpha": used}).fit(Xs_train, y_train)
            results[s, k] = (len(columns), np.mean(nb.predict(Xs_test) == y_test),
                             np.mean(em.predict(Xs_test) == y_test), used,
                             _loo_per_document(Xs_train[:n_lab], y_train[:n_lab], used), edge)
    return {"results": results, "top_words": top.astype(str)}


def vocabulary_sweep(X, y, vocabulary, *, feature_sets, sizes, label_sizes, seeds, test_rows,
                     n_unlabeled, n_top=12, use_cache=True, progress=True,
                     description="vocabulary sweep", n_jobs=None, **em_params):
    """Naive Bayes vs EM test accuracy against vocabulary size, per feature-selection method.

    For every labeled-set size and seed, one split (:func:`sweep_split`: ``n_labeled``
    documents per class, ``n_unlabeled`` unlabeled documents, fixed test rows) is shared by all
    feature sets. Each feature set ranks the vocabulary on that split's training documents
    (labeled + unlabeled; label-based methods use only the labels of the labeled ones, as a
    practitioner would), keeps the first ``size`` words, and fits on those columns Naive Bayes
    on the labeled documents (:class:`sslviz.em.SemiSupervisedNB` with ``max_iter=0``, i.e.
    EM's iteration 0) and EM on the labeled and unlabeled documents, both scored on the test
    rows. Each (labeled-set size, seed) is one job of :func:`sslviz.experiments.runner.run_jobs`
    (cache kind ``"feature_selection"``, keyed by the data's digest, every parameter and
    :data:`RESULT_VERSION`). Cost: ``len(feature_sets) × len(label_sizes) × len(seeds)``
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
    use_cache, progress : bool, default=True
        ``use_cache=False`` recomputes every job (and overwrites its entry).
    description : str, default="vocabulary sweep"
        Label of the progress bar.
    n_jobs : int or None
        Parallel processes (joblib); results do not depend on it.
    **em_params
        Of :class:`sslviz.em.SemiSupervisedNB` (``alpha``, ``max_iter``, ...). ``alpha="chosen"``
        picks α for every feature set, vocabulary size and split by the evidence of its labeled
        documents (:func:`sslviz.tuning.choose_nb_alpha`), starting from ``alpha_grid``
        (default :data:`sslviz.tuning.ALPHA_GRID`); NB and EM use the same α.

    Returns
    -------
    VocabularySweep
    """
    names = tuple(feature_sets)
    specs = [feature_sets[name] for name in names]
    for method, _ in specs:
        check_choice("method", method, METHODS)
    sizes, label_sizes = np.asarray(sizes, dtype=int), np.asarray(label_sizes, dtype=int)
    seeds, test_rows = np.asarray(seeds, dtype=int), np.asarray(test_rows, dtype=int)
    vocabulary = np.asarray(vocabulary, dtype=str)
    if np.any(sizes < 0):
        raise ValueError(f"sizes must be positive, or 0 for all words; got {sizes.tolist()}")
    X = sp.csr_matrix(X)
    common = {"version": RESULT_VERSION, "data": data_digest(X, np.asarray(y), test_rows,
                                                            vocabulary),
              "sets": [[name, method, _stop_key(stop)] for name, (method, stop)
                       in zip(names, specs, strict=True)],
              "sizes": sizes.tolist(), "n_unlabeled": n_unlabeled, "n_top": n_top,
              "em": {k: (list(v) if isinstance(v, tuple) else v)
                     for k, v in sorted(em_params.items())}}
    shared = {"X": X, "y": y, "vocabulary": vocabulary, "sizes": sizes.tolist(),
              "specs": [(method, stop_words(stop)) for method, stop in specs],
              "test_rows": test_rows, "n_unlabeled": n_unlabeled, "em_params": em_params,
              "n_top": n_top}
    jobs = [{"n_labeled": int(n), "seed": int(seed)} for n in label_sizes for seed in seeds]
    outputs = run_jobs(_sweep_job, jobs, kind="feature_selection",
                       key=lambda job: {**common, **job}, shared=shared, use_cache=use_cache,
                       n_jobs=n_jobs, progress=progress, description=description)
    # (label sizes, seeds, sets, sizes, 6) -> (sets, label sizes, sizes, seeds, 6)
    results = np.array([output["results"] for output in outputs])
    results = results.reshape(len(label_sizes), len(seeds), len(names), len(sizes), 6)
    results = results.transpose(2, 0, 3, 1, 4)
    top = np.array([output["top_words"] for output in outputs])
    top = top.reshape(len(label_sizes), len(seeds), len(names), n_top).transpose(2, 0, 1, 3)
    return VocabularySweep(names, label_sizes, sizes, seeds, results[:, 0, :, 0, 0].astype(int),
                           results[..., 1], results[..., 2], top, results[..., 3],
                           results[..., 4], results[..., 5].astype(bool))


def _loo_per_document(X_labeled, y_labeled, alpha):
    """NB's leave-one-out log-likelihood per labeled document, NaN below 2 per class."""
    if np.unique(y_labeled, return_counts=True)[1].min() < 2:
        return np.nan
    return loo_log_likelihood(X_labeled, y_labeled, alpha) / len(y_labeled)


def _resolve_alpha(X_labeled, y_labeled, alpha, grid):
    """``(α, at_bound)``: ``alpha`` itself, or when ``alpha == "chosen"`` the α the evidence
    picks on the labeled rows (:func:`sslviz.tuning.choose_nb_alpha`; an edge is acknowledged
    with :data:`SWEEP_EDGE` and reported as ``at_bound``)."""
    if isinstance(alpha, str):
        if alpha != "chosen":
            raise ValueError(f"alpha must be a number > 0 or 'chosen', got {alpha!r}")
        choice = choose_nb_alpha(X_labeled, y_labeled, grid=grid)
        if choice.at_bound:
            choice = choice.acknowledge_edge(SWEEP_EDGE)
        return float(choice.value), choice.at_bound
    return check_number("alpha", alpha, above=0), False


def _stop_key(stop_words):
    if stop_words is None or isinstance(stop_words, str):
        return stop_words
    return sorted(set(stop_words))


# -- leading astray: one EM run with its full trace, and an oracle --------------------------------
def astray_run(X, y, columns=None, *, n_labeled, seed, test_rows, n_unlabeled, alpha=0.1,
               max_iter=10, alpha_grid=ALPHA_GRID):
    """Fit EM (full trace) on ``X[:, columns]`` for the split of :func:`sweep_split`.

    Parameters
    ----------
    X : sparse matrix of shape (n_documents, n_words)
    y : ndarray of shape (n_documents,)
    columns : array-like of int or None
        The feature set (e.g. from :func:`sslviz.feature_selection.select_features`);
        ``None`` = every column.
    n_labeled : int
        Labeled documents per class.
    seed, test_rows, n_unlabeled
        As in :func:`vocabulary_sweep` (same seed, same split).
    alpha, max_iter
        Of :class:`sslviz.em.SemiSupervisedNB`; ``alpha="chosen"`` picks α by the evidence on the
        labeled documents of these columns, starting from ``alpha_grid``
        (:func:`sslviz.tuning.choose_nb_alpha`; ``run.model.alpha`` says which). The oracle uses
        the same α.

    Returns
    -------
    sslviz.feature_selection_astray.AstrayRun
    """
    y = np.asarray(y)
    columns = np.arange(X.shape[1]) if columns is None else np.unique(np.asarray(columns, int))
    split = sweep_split(y, n_labeled, seed, test_rows=test_rows, n_unlabeled=n_unlabeled)
    Xs = sp.csc_matrix(X)[:, columns].tocsr()
    alpha, _ = _resolve_alpha(Xs[split.labeled], y[split.labeled], alpha, alpha_grid)
    model = SemiSupervisedNB(alpha=alpha, max_iter=max_iter).fit(
        Xs[split.train], split.semi_supervised_targets(y))
    reference = MultinomialNB(alpha=alpha).fit(Xs[split.train], y[split.train])
    return AstrayRun(split, columns, model,
                     accuracy_by_iteration(model, Xs[split.test], y[split.test]),
                     reference.feature_log_prob_, reference.class_log_prior_,
                     y[split.labeled], y[split.unlabeled])


# -- the lecture's picture: word weights learned from few and from many labels ------------------
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
    check_int("n_labeled", n_labeled, minimum=1, maximum=max_labeled)
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
    return ToyWeights(log_odds_pair(log_prob), log_odds_pair(np.log(probabilities)),
                      discriminative, int(n_labeled))


def stop_words(stop):
    """The words of a stop list: a named list (``"smart"``, ``"sklearn"``; see
    :func:`sslviz.text.stop_list`) is read, a collection of words (or ``None``) passes as it is."""
    if isinstance(stop, str):
        if stop not in STOP_LISTS:
            raise ValueError(f"unknown stop list {stop!r}; choose one of {STOP_LISTS} "
                             "or pass the words themselves")
        return stop_list(stop)
    return stop
