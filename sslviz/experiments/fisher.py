"""Lecture 06 (the Fisher kernel): Table 1 and Figure 1 of Takamura & Okumura.

Every method of the paper's Table 1 on seeded splits of 20 Newsgroups: SVMs on Fisher scores of
the three Naive Bayes models (n-cat, ul-cat, ul-cl; :mod:`sslviz.fisher`), the linear SVM on
labeled posts (twice: on unit-length counts, the paper's baseline, and on the features of
:class:`FisherSettings`, tf-idf by default), the transductive linear SVM (:mod:`sslviz.tsvm`),
NB+EM and NB.

One *job* is one split at one labeled and one unlabeled size for one group of methods that share
a fitted model (:data:`METHOD_GROUPS`). Jobs run on :func:`sslviz.experiments.runner.run_jobs`,
in parallel, slowest first, each result (accuracy, seconds, the chosen α or C per method and
whether that choice stopped at a bound of its parameter) cached as soon as it is computed: an
interrupted paper-scale run (:mod:`sslviz.experiments.fisher_command`) resumes, and the lecture
reuses earlier results.
Labeled-only methods are cached once per labeled set. By default every hyper-parameter is chosen
on the labeled posts (:class:`FisherSettings`); :data:`PAPER_SETTINGS` are the paper's.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from functools import lru_cache
from itertools import product

import numpy as np

from ..cache import data_digest
from ..fisher import (  # noqa: F401 (the document view is re-exported for the explorers)
    ANNEALING,
    VARIANTS,
    FisherDocumentView,
    FisherKernelNB,
    fisher_document_view,
)
from ..linear_svm import C_GRID, choose_svm_c, linear_svm, text_features
from ..splits import split_labeled
from ..tsvm import TransductiveSVM
from ..tuning import ALPHA_GRID, choose_nb_alpha
from .runner import run_jobs

RESULT_VERSION = 1  # bump for a change sslviz.code_digest cannot see (a dependency's)

#: Why a table cell may use a choice that stopped at a bound of its parameter (α in
#: [1e-6, 100], C in [1e-4, 1e4]): the cell records it (``at_bound``) and the lecture states it.
TABLE_EDGE = "the table records its edge choices (at_bound); the lecture states them"

#: Methods in the column order of Table 1; "counts" is the linear SVM on unit-length counts (the
#: paper's), "linear" the linear SVM on ``FisherSettings.features`` (tf-idf unless told).
FISHER_METHODS = ("n-cat", "ul-cat", "ul-cl", "counts", "linear", "tsvm", "nb+em", "nb")
FISHER_METHOD_NAMES = {
    "n-cat": "SVM (n-cat)", "ul-cat": "SVM (ul-cat)", "ul-cl": "SVM (ul-cl)",
    "counts": "SVM (counts)", "linear": "SVM (linear)", "tsvm": "TSVM (linear)",
    "nb+em": "NB+EM (ul-cat)", "nb": "NB",
}
#: Methods whose result does not depend on the unlabeled posts (computed once per labeled set).
LABELED_ONLY_METHODS = ("n-cat", "counts", "linear", "nb")
#: Methods that share a fitted model run in one job, the slowest groups first.
METHOD_GROUPS = (("tsvm",), ("ul-cl",), ("ul-cat", "nb+em"), ("n-cat", "nb"), ("linear",),
                 ("counts",))
PAPER_SIZES = (100, 200, 300, 500, 1000, 2000, 5000)
PAPER_N_UNLABELED = 10_000
PAPER_N_SPLITS = 5
#: The methods of the columns of the paper's Table 1 (its linear SVM and TSVM saw unit-length
#: counts: its linear SVM is our "counts"; our "linear" sees tf-idf and has no column there).
PAPER_METHODS = ("n-cat", "ul-cat", "ul-cl", "counts", "tsvm", "nb+em", "nb")
#: Table 1 of Takamura & Okumura: accuracy (%) per labeled-set size (rows, PAPER_SIZES) and
#: method (columns, PAPER_METHODS); 10,000 unlabeled posts, mean of 5 splits.
PAPER_TABLE_1 = np.array([
    [23.7, 30.0, 29.2, 31.8, 33.5, 26.7, 13.5],
    [41.3, 46.9, 43.2, 44.7, 46.0, 37.4, 24.1],
    [45.5, 53.3, 51.2, 51.4, 52.5, 41.2, 32.0],
    [54.2, 61.1, 57.2, 60.0, 60.8, 50.9, 43.1],
    [68.0, 71.0, 67.8, 68.9, 69.3, 65.0, 59.3],
    [78.7, 79.0, 74.6, 75.8, 76.1, 76.2, 74.1],
    [85.1, 85.4, 82.0, 82.1, 82.0, 83.6, 82.8],
])
#: Figure 1 of the paper: SVM (ul-cat) for these labeled sizes, 1,000 to 10,000 unlabeled posts.
PAPER_FIGURE_1_SIZES = (1000, 2000, 5000)
PAPER_FIGURE_1_UNLABELED = (1000, 2000, 4000, 6000, 8000, 10_000)


def paper_column(method):
    """The paper's Table 1 column (%) of ``method`` over :data:`PAPER_SIZES`; NaN for a method
    the paper did not run (the tf-idf linear SVM)."""
    _check_methods((method,))
    if method not in PAPER_METHODS:
        return np.full(len(PAPER_SIZES), np.nan)
    return PAPER_TABLE_1[:, PAPER_METHODS.index(method)]


@dataclass(frozen=True)
class FisherSettings:
    """Settings of every model in the Fisher table (defaults: tuned on the labeled posts).

    Parameters
    ----------
    alpha : float or None, default=None
        Smoothing of the NB and NB+EM classifiers; ``None``: chosen per split by the evidence on
        the labeled posts (:func:`sslviz.tuning.choose_nb_alpha`, ``alpha_grid`` extended by
        decades while its best value is an end; NB+EM takes NB's α).
    kernel_alpha : float or None, default=None
        Smoothing of the three models behind the Fisher SVMs; ``None``: NB's α, chosen on the
        labeled posts as for ``alpha`` (1.0 is the paper's Dirichlet α = 2).
    annealing, max_iter, tol : EM's annealing schedule (ours, :data:`sslviz.fisher.ANNEALING`),
        iterations per stage (20) and relative convergence threshold (1e-6).
    C : float or None, default=None
        Soft-margin cost of every SVM (and C* of the TSVM); ``None``: chosen per split and SVM
        by cross-validated balanced accuracy on the labeled posts, ties broken by the hinge loss
        (:func:`sslviz.linear_svm.choose_svm_c`, ``C_grid`` extended by decades while its best
        value is an end); the TSVM takes the C chosen for an inductive SVM on its own features.
        The paper: C = 1.
    features : {"tfidf", "tf"}, default="tfidf"
        What the linear SVM ("linear") and the TSVM see, scaled to unit length: tf-idf (idf from
        the labeled posts for the SVM, from all its posts for the TSVM) or counts (the paper's).
        The method "counts" always sees unit-length counts.
    svm_cv : int, default=5
        Folds of the cross-validation that chooses C (stratified, on the labeled posts; fewer
        when a class has fewer labeled posts). The lecture uses 3 to save time.
    svm_max_iter : int, default=10_000
        Iteration cap of liblinear (``LinearSVC``); the hinge loss converges slowly.
    tsvm_max_unlabeled : int or None, default=None
        Give the TSVM at most this many of the split's unlabeled posts (a random subset);
        ``None`` gives it all. The TSVM is the slowest method by far.
    alpha_grid, C_grid : tuple of float
        The grids α and C are chosen from first (each extended while its best value is an end).
    """

    alpha: float | None = None
    kernel_alpha: float | None = None
    annealing: tuple = ANNEALING
    max_iter: int = 20
    tol: float = 1e-6
    C: float | None = None
    features: str = "tfidf"
    svm_cv: int = 5
    svm_max_iter: int = 10_000
    tsvm_max_unlabeled: int | None = None
    alpha_grid: tuple = ALPHA_GRID
    C_grid: tuple = C_GRID

    def key(self, method):
        """The settings that affect ``method`` (for cache keys)."""
        settings = {name: list(value) if isinstance(value, tuple) else value
                    for name, value in asdict(self).items()}
        unused = {"tsvm_max_unlabeled"} if method != "tsvm" else set()
        em = {"annealing", "max_iter", "tol"}
        if method in ("linear", "counts", "tsvm"):
            unused |= {"alpha", "alpha_grid", "kernel_alpha"} | em
        if method == "counts":
            unused.add("features")  # always unit-length counts
        if method in ("nb", "nb+em"):
            unused |= {"C", "C_grid", "svm_cv", "svm_max_iter", "features", "kernel_alpha"}
        if method in ("n-cat", "ul-cat", "ul-cl"):
            unused |= {"alpha", "features"} | (
                {"alpha_grid"} if self.kernel_alpha is not None else set())
        if method in ("nb", "n-cat"):
            unused |= em
        if self.C is not None:
            unused |= {"C_grid", "svm_cv"}
        if self.alpha is not None and method in ("nb", "nb+em"):
            unused.add("alpha_grid")
        return {name: value for name, value in settings.items() if name not in unused}

    def group_key(self, methods):
        """The settings that affect any of ``methods`` (one job's cache key)."""
        return {name: value for method in methods for name, value in self.key(method).items()}


#: The paper's settings: α = 2 everywhere, C = 1, unit-length counts for the linear SVMs.
PAPER_SETTINGS = FisherSettings(alpha=1.0, kernel_alpha=1.0, C=1.0, features="tf")


def load_fisher_corpus(min_count=10):
    """20 Newsgroups prepared as in the paper: counts, words seen < ``min_count`` times dropped.

    Tokens as everywhere in sslviz (lower case, digits mapped to ``D``, no stop list); the
    vocabulary is pruned on the whole corpus, as the paper did (section 5).

    Returns
    -------
    sslviz.text.CountCorpus
    """
    from ..text import CountCorpus, TextOptions, load_counts

    corpus = load_counts("20newsgroups", TextOptions())
    keep = np.flatnonzero(np.asarray(corpus.X.sum(axis=0)).ravel() >= min_count)
    X = corpus.X[:, keep].tocsr()
    X.sort_indices()  # canonical rows (the column slice leaves them unsorted)
    return CountCorpus(X, corpus.y, corpus.target_names,
                       corpus.vocabulary[keep], corpus.filenames)


def paper_test_folds(y, n_folds=PAPER_N_SPLITS, seed=0):
    """Non-overlapping test sets, one per split: a shuffled stratified ``n_folds``-fold partition.

    The paper's five test sets of 3,765 posts partition its 18,828 posts in the same way.
    """
    from sklearn.model_selection import StratifiedKFold

    folds = StratifiedKFold(n_folds, shuffle=True, random_state=seed)
    return [np.sort(test) for _, test in folds.split(np.zeros(len(y)), y)]


def _check_methods(methods):
    unknown = sorted(set(methods) - set(FISHER_METHODS))
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; choose from {list(FISHER_METHODS)}")
    return tuple(methods)


def fisher_split_accuracies(X, y, *, n_labeled, n_unlabeled, test_rows, seed,
                            methods=FISHER_METHODS, settings=FisherSettings()):
    """Fit the requested methods on one seeded split; test accuracy, seconds and the chosen
    hyper-parameter of each.

    The labeled posts (stratified) and the unlabeled posts are drawn by
    :func:`sslviz.splits.split_labeled` with ``random_state=seed`` from the posts outside
    ``test_rows``. For the same seed, the labeled set does not depend on ``n_unlabeled`` and
    smaller unlabeled sets are subsets of larger ones. SVMs: ``LinearSVC(C, loss="hinge")``,
    one-vs-rest (the SVM of TinySVM and SVM-light, which the paper used). The plain ("linear")
    and transductive SVMs see ``settings.features``, "counts" unit-length counts; the Fisher
    SVMs see unit-length Fisher scores of models smoothed with ``settings.kernel_alpha``. NB is
    the n-cat model, NB+EM the ul-cat model, both smoothed with ``settings.alpha`` (or the α
    chosen on the labeled posts).

    Notes
    -----
    C of a Fisher SVM is cross-validated on the scores of the labeled posts under a model that
    was fitted with all of them (also the held-out fold); that can only flatter large C a little.

    Returns
    -------
    accuracy : dict of str -> float
    seconds : dict of str -> float
        Time spent on each method (a shared model is charged to the first method that needs it).
    chosen : dict of str -> float
        α of NB and NB+EM, C of every SVM (chosen or given).
    at_bound : dict of str -> bool
        Whether that choice stopped at a documented bound of its parameter (acknowledged with
        :data:`TABLE_EDGE`; False for a given value).
    """
    _check_methods(methods)
    split = split_labeled(y, n_labeled, n_unlabeled=n_unlabeled, test_rows=test_rows,
                          random_state=seed)
    X_train, y_train = X[split.train], split.semi_supervised_targets(y)
    X_labeled, y_labeled = X[split.labeled], np.asarray(y)[split.labeled]
    X_test, y_test = X[split.test], np.asarray(y)[split.test]
    accuracy, seconds, chosen, at_bound, fitted = {}, {}, {}, {}, {}

    def model(variant, alpha):
        if (variant, alpha) not in fitted:
            fitted[variant, alpha] = _fisher_model(variant, settings, seed, alpha).fit(
                X_train, y_train)
        return fitted[variant, alpha]

    def chosen_alpha(kernel=False):
        given = settings.kernel_alpha if kernel else settings.alpha
        if given is not None:
            return given, False
        if "alpha" not in fitted:
            fitted["alpha"] = _labeled_alpha(X_labeled, y_labeled, settings, seed)
        return fitted["alpha"].value, fitted["alpha"].at_bound

    def record(method, predictions, start, value, edge):
        accuracy[method] = float(np.mean(predictions == y_test))
        seconds[method] = time.perf_counter() - start
        chosen[method], at_bound[method] = float(value), bool(edge)

    for nb_method, variant in (("nb", "n-cat"), ("nb+em", "ul-cat")):
        if nb_method in methods:
            start = time.perf_counter()
            alpha, edge = chosen_alpha()
            record(nb_method, model(variant, alpha).nb_.predict(X_test), start, alpha, edge)
    for variant in VARIANTS:
        if variant in methods:
            start = time.perf_counter()
            kernel = model(variant, chosen_alpha(kernel=True)[0])
            train, test = _drop_unused_columns(kernel.transform(X_labeled),
                                               kernel.transform(X_test))
            svm, edge = _svm(train, y_labeled, settings, seed)
            record(variant, svm.predict(test), start, svm.C, edge)
    for method, kind in (("linear", settings.features), ("counts", "tf")):
        if method in methods:
            start = time.perf_counter()
            train, test = text_features(X_labeled, X_labeled, X_test, kind=kind)
            svm, edge = _svm(train, y_labeled, settings, seed)
            record(method, svm.predict(test), start, svm.C, edge)
    if "tsvm" in methods:
        start = time.perf_counter()
        k = n_unlabeled if settings.tsvm_max_unlabeled is None else min(
            n_unlabeled, settings.tsvm_max_unlabeled)
        subset = split_labeled(y, n_labeled, n_unlabeled=k, test_rows=test_rows,
                               random_state=seed)
        train, labeled, test = text_features(X[subset.train], X[subset.train],
                                             X[subset.labeled], X_test, kind=settings.features)
        svm, edge = _svm(labeled, np.asarray(y)[subset.labeled], settings, seed)
        tsvm = TransductiveSVM(C=svm.C, C_unlabeled=svm.C, random_state=seed)
        tsvm.fit(train, subset.semi_supervised_targets(y))
        record("tsvm", tsvm.predict(test), start, svm.C, edge)
    return accuracy, seconds, chosen, at_bound


def _labeled_alpha(X_labeled, y_labeled, settings, seed):
    """The :class:`~sslviz.tuning.Choice` of NB's α on the labeled posts: the evidence
    (:func:`sslviz.tuning.choose_nb_alpha`), an edge choice acknowledged (:data:`TABLE_EDGE`)."""
    choice = choose_nb_alpha(X_labeled, y_labeled, grid=settings.alpha_grid)
    return choice.acknowledge_edge(TABLE_EDGE) if choice.at_bound else choice


def _svm(X, y, settings, seed):
    """The fitted SVM and whether its C (chosen, not given) stopped at a bound of C."""
    if settings.C is not None:
        return linear_svm(X, y, C=settings.C, max_iter=settings.svm_max_iter), False
    choice = choose_svm_c(X, y, C_grid=settings.C_grid, cv=settings.svm_cv,
                          max_iter=settings.svm_max_iter, random_state=seed,
                          edge_reason=TABLE_EDGE)
    return (linear_svm(X, y, C=choice.value, max_iter=settings.svm_max_iter),
            choice.at_bound)


def _drop_unused_columns(train, *others):
    """``train`` and ``others`` restricted to the columns where ``train`` has an entry.

    Exact for a linear SVM fitted on ``train`` (and on any subset of its rows, as in
    cross-validation): liblinear's dual solver builds ``w`` from training rows, so a column
    that is zero in every training row gets weight exactly 0 and adds nothing to a decision
    value. The Fisher scores have 516,060 columns, of which a few labeled posts touch a few
    ten thousand; dropping the rest spares liblinear a dense weight vector per class of the
    full width, which made every fit of the C search several times slower.
    """
    used = np.unique(train.indices)
    return [matrix[:, used] for matrix in (train, *others)]


def _fisher_model(variant, settings, seed, alpha=None):
    return FisherKernelNB(variant=variant,
                          alpha=settings.kernel_alpha if alpha is None else alpha,
                          annealing=settings.annealing, max_iter=settings.max_iter,
                          tol=settings.tol, random_state=seed)


def fisher_models_by_variant(X, y, *, n_labeled, n_unlabeled, test_rows, seed,
                             settings=FisherSettings()):
    """A cached ``variant -> (split, fitted FisherKernelNB)`` on one seeded split.

    The split is the one :func:`fisher_split_accuracies` draws with the same arguments, the
    smoothing ``settings.kernel_alpha`` or (``None``) NB's α chosen on its labeled posts; for
    explorers that show the scores of single documents (each variant is fitted once).
    """
    split = split_labeled(y, n_labeled, n_unlabeled=n_unlabeled, test_rows=test_rows,
                          random_state=seed)

    @lru_cache(maxsize=4)
    def model(variant):
        alpha = settings.kernel_alpha
        if alpha is None:
            alpha = _labeled_alpha(X[split.labeled], np.asarray(y)[split.labeled], settings,
                                   seed).value
        kernel = _fisher_model(variant, settings, seed, alpha)
        return split, kernel.fit(X[split.train], split.semi_supervised_targets(y))

    return model


# -- the grid of Table 1 and Figure 1 -----------------------------------------------------------
@dataclass(frozen=True)
class FisherGrid:
    """Test accuracy (fraction) of the Fisher-table methods over sizes, unlabeled sizes, splits.

    ``accuracy[i, j, k, m]``: labeled size ``sizes[i]``, unlabeled size ``unlabeled_sizes[j]``,
    split ``splits[k]``, method ``methods[m]``; NaN where a method was not run.
    ``seconds`` has the same shape: the compute time recorded when each cell was computed (also
    for cells read from the cache); labeled-only methods have it at the largest unlabeled size.
    ``chosen`` (same shape, or ``None``): α of NB and NB+EM, C of the SVMs, in each cell;
    ``at_bound`` (same shape, or ``None``): 1.0 where that choice stopped at a bound of its
    parameter (acknowledged, :data:`TABLE_EDGE`), 0.0 where it is interior or was given.
    """

    sizes: np.ndarray
    unlabeled_sizes: np.ndarray
    splits: np.ndarray
    methods: tuple
    accuracy: np.ndarray
    seconds: np.ndarray
    chosen: np.ndarray | None = None
    at_bound: np.ndarray | None = None

    def _index(self, values, value, what):
        matches = np.flatnonzero(np.asarray(values) == value)
        if len(matches) == 0:
            raise ValueError(f"{what} {value} was not run; the grid has {list(values)}")
        return int(matches[0])

    def mean(self, method, n_labeled, n_unlabeled):
        """Mean accuracy over the splits of one method at one (labeled, unlabeled) size."""
        i = self._index(self.sizes, n_labeled, "labeled size")
        j = self._index(self.unlabeled_sizes, n_unlabeled, "unlabeled size")
        m = self._index(self.methods, method, "method")
        return float(np.mean(self.accuracy[i, j, :, m]))

    def table(self, n_unlabeled=None):
        """Mean accuracy (%) over splits, shape (n_sizes, n_methods), at one unlabeled size
        (default: the last)."""
        j = -1 if n_unlabeled is None else self._index(self.unlabeled_sizes, n_unlabeled,
                                                       "unlabeled size")
        return self.accuracy[:, j].mean(axis=1) * 100

    def unlabeled_curve(self, method, n_labeled):
        """Mean accuracy (%) over splits against the unlabeled sizes: (n_unlabeled_sizes,)."""
        i = self._index(self.sizes, n_labeled, "labeled size")
        m = self._index(self.methods, method, "method")
        return self.accuracy[i, :, :, m].mean(axis=1) * 100

    def complete_methods(self):
        """The methods with a result at every labeled size, unlabeled size and split."""
        return [method for m, method in enumerate(self.methods)
                if not np.isnan(self.accuracy[..., m]).any()]


def fisher_grid(X, y, *, sizes, unlabeled_sizes, splits, test_folds, methods=FISHER_METHODS,
                unlabeled_methods=None, settings=FisherSettings(), use_cache=True,
                progress=True, n_jobs=None, description="Fisher table"):
    """Run the Fisher-table methods for every labeled size, unlabeled size and split.

    Parameters
    ----------
    X, y : word counts (sparse, e.g. :func:`load_fisher_corpus`) and labels of every post
    sizes, unlabeled_sizes : sequence of int
    splits : sequence of int
        Split ``k`` tests on ``test_folds[k]`` (e.g. :func:`paper_test_folds`) and draws its
        training posts with seed ``k``.
    methods : sequence of str, default=FISHER_METHODS
        Those in :data:`LABELED_ONLY_METHODS` run once per labeled set (at the largest
        unlabeled size) and are repeated along the unlabeled axis. With ``settings.features ==
        "tf"`` "linear" is "counts" (both see unit-length counts): computed once, as "counts",
        and copied.
    unlabeled_methods : sequence of str or None, default=None
        Methods run at *every* unlabeled size; the others run at the largest only (NaN
        elsewhere). ``None``: every method at every size.
    settings : FisherSettings, default=FisherSettings()
    use_cache, progress, n_jobs, description
        Read results from the ``fisher`` cache (always written); show a progress bar;
        processes (joblib, ``-1`` = all cores; results do not depend on it); the bar's label.

    Returns
    -------
    FisherGrid
    """
    sizes, unlabeled_sizes, splits = (np.asarray(values, dtype=int)
                                      for values in (sizes, unlabeled_sizes, splits))
    methods = _check_methods(methods)
    if len(splits) and (splits.min() < 0 or splits.max() >= len(test_folds)):
        raise ValueError(f"splits must lie in 0..{len(test_folds) - 1} (one per test fold), "
                         f"got {splits.tolist()}")
    cells, jobs = _grid_jobs(sizes, unlabeled_sizes, splits, _methods_to_run(methods, settings),
                             unlabeled_methods)
    digest = data_digest(X, np.asarray(y), *[np.asarray(fold) for fold in test_folds])
    results = run_jobs(_run_job, jobs, kind="fisher", key=lambda job: _job_key(job, digest,
                                                                               settings),
                       shared={"X": X, "y": y, "test_folds": test_folds, "settings": settings},
                       use_cache=use_cache, n_jobs=n_jobs, progress=progress,
                       description=description)
    return _grid_from_results(cells, jobs, results, sizes, unlabeled_sizes, splits, methods,
                              settings)


def stored_fisher_grid(X, y, *, sizes, unlabeled_sizes, splits, test_folds,
                       methods=FISHER_METHODS, unlabeled_methods=None,
                       settings=FisherSettings()):
    """The :func:`fisher_grid` of these arguments read from the cache only, or ``None`` when
    any of its results is missing (nothing is computed; e.g. a paper-scale run not yet made)."""
    sizes, unlabeled_sizes, splits = (np.asarray(values, dtype=int)
                                      for values in (sizes, unlabeled_sizes, splits))
    methods = _check_methods(methods)
    cells, jobs = _grid_jobs(sizes, unlabeled_sizes, splits, _methods_to_run(methods, settings),
                             unlabeled_methods)
    digest = data_digest(X, np.asarray(y), *[np.asarray(fold) for fold in test_folds])
    results = run_jobs(_run_job, jobs, kind="fisher", cached_only=True,
                       key=lambda job: _job_key(job, digest, settings))
    if any(result is None for result in results):
        return None
    return _grid_from_results(cells, jobs, results, sizes, unlabeled_sizes, splits, methods,
                              settings)


def _grid_from_results(cells, jobs, results, sizes, unlabeled_sizes, splits, methods, settings):
    run = _methods_to_run(methods, settings)
    accuracy, seconds, chosen, at_bound = _assemble(
        cells, jobs, results, run, shape=(len(sizes), len(unlabeled_sizes), len(splits)))
    j_largest = int(np.argmax(unlabeled_sizes))
    for m, method in enumerate(run):  # the same labeled set gives the same result
        if method in LABELED_ONLY_METHODS:
            for array in (accuracy, chosen, at_bound):
                array[:, :, :, m] = array[:, j_largest, None, :, m]
    order = [run.index(_SAME_AS.get(m, m) if m not in run else m) for m in methods]
    seconds = seconds[..., order]
    for m, method in enumerate(methods):  # a copy costs nothing
        if method not in run:
            seconds[..., m] = 0.0
    return FisherGrid(sizes, unlabeled_sizes, splits, methods, accuracy[..., order], seconds,
                      chosen[..., order], at_bound[..., order])


#: With ``features="tf"`` the linear SVM sees what "counts" sees: it is run once, as "counts".
_SAME_AS = {"linear": "counts"}


def _methods_to_run(methods, settings):
    """``methods`` without those that would repeat another's computation exactly (the linear SVM
    on counts when "counts" is run too)."""
    if settings.features == "tf" and "counts" in methods:
        return tuple(m for m in methods if m != "linear")
    return tuple(methods)


def _grid_jobs(sizes, unlabeled_sizes, splits, methods, unlabeled_methods):
    """One job per cell and group of methods wanted there; the slowest groups, and within a
    group the most data, first. Returns the cells ``(i, j, k, wanted methods)`` and the jobs."""
    largest = unlabeled_sizes.max()
    planned = []
    for (i, size), (j, n_unlabeled), (k, split) in product(
            enumerate(sizes), enumerate(unlabeled_sizes), enumerate(splits)):
        wanted = [m for m in methods if n_unlabeled == largest or (
            m not in LABELED_ONLY_METHODS
            and (unlabeled_methods is None or m in unlabeled_methods))]
        for g, group in enumerate(METHOD_GROUPS):
            if set(group) & set(wanted):
                job = {"n_labeled": int(size), "n_unlabeled": int(n_unlabeled),
                       "split": int(split), "methods": group}
                planned.append(((g, -n_unlabeled, -size), (i, j, k, wanted), job))
    planned.sort(key=lambda plan: plan[0])
    return [cell for _, cell, _ in planned], [job for _, _, job in planned]


def _job_key(job, digest, settings):
    """Cache key of a job; groups of labeled-only methods are stored once per labeled set."""
    labeled_only = set(job["methods"]) <= set(LABELED_ONLY_METHODS)
    return {"version": RESULT_VERSION, "data": digest, **job,
            "n_unlabeled": 0 if labeled_only else job["n_unlabeled"],
            "settings": settings.group_key(job["methods"])}


def _run_job(X, y, *, test_folds, settings, n_labeled, n_unlabeled, split, methods):
    """One job for :func:`sslviz.experiments.runner.run_jobs`: accuracy and seconds arrays
    (one entry per method of the group)."""
    results = fisher_split_accuracies(
        X, y, n_labeled=n_labeled, n_unlabeled=n_unlabeled, test_rows=test_folds[split],
        seed=split, methods=methods, settings=settings)
    return {name: np.array([values[m] for m in methods], dtype=float)
            for name, values in zip(RESULT_ARRAYS, results, strict=True)}


RESULT_ARRAYS = ("accuracy", "seconds", "chosen", "at_bound")
"""What one job records per method (:func:`fisher_split_accuracies`'s four dicts)."""


def _assemble(cells, jobs, results, methods, *, shape):
    """The :data:`RESULT_ARRAYS` of shape ``shape + (n_methods,)``; NaN where nothing was
    wanted."""
    arrays = {name: np.full(shape + (len(methods),), np.nan) for name in RESULT_ARRAYS}
    for (i, j, k, wanted), job, result in zip(cells, jobs, results, strict=True):
        for g, method in enumerate(job["methods"]):
            if method in wanted:
                for name, array in arrays.items():
                    array[i, j, k, methods.index(method)] = result[name][g]
    return tuple(arrays[name] for name in RESULT_ARRAYS)
