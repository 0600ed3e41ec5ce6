"""Lecture 06 (the Fisher kernel): Table 1 and Figure 1 of Takamura & Okumura.

Every method of the paper's Table 1 on seeded splits of 20 Newsgroups: SVMs on Fisher scores of
the three Naive Bayes models (n-cat, ul-cat, ul-cl; :mod:`sslviz.fisher`), the linear SVM on
labeled posts, the transductive linear SVM (:mod:`sslviz.tsvm`), NB+EM and NB.

One *job* is one split at one labeled and one unlabeled size for one group of methods that share
a fitted model (:data:`METHOD_GROUPS`). Jobs run on :func:`sslviz.experiments.runner.run_jobs`,
in parallel, slowest first, each result (accuracy and seconds per method) cached as soon as it is
computed: an interrupted paper-scale run (:mod:`sslviz.experiments.__main__`) resumes, and the
lecture reuses earlier results. Labeled-only methods are cached once per labeled set.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from functools import lru_cache
from itertools import product

import numpy as np

from ..cache import data_digest
from ..fisher import ANNEALING, FisherKernelNB, top_count_entries, top_entries
from ..splits import split_labeled
from .runner import run_jobs

FISHER_CACHE_VERSION = 2

#: Methods in the column order of Table 1.
FISHER_METHODS = ("n-cat", "ul-cat", "ul-cl", "linear", "tsvm", "nb+em", "nb")
FISHER_METHOD_NAMES = {
    "n-cat": "SVM (n-cat)", "ul-cat": "SVM (ul-cat)", "ul-cl": "SVM (ul-cl)",
    "linear": "SVM (linear)", "tsvm": "TSVM (linear)", "nb+em": "NB+EM (ul-cat)", "nb": "NB",
}
#: Methods whose result does not depend on the unlabeled posts (computed once per labeled set).
LABELED_ONLY_METHODS = ("n-cat", "linear", "nb")
#: Methods that share a fitted model run in one job, the slowest groups first.
METHOD_GROUPS = (("tsvm",), ("ul-cl",), ("ul-cat", "nb+em"), ("n-cat", "nb"), ("linear",))
PAPER_SIZES = (100, 200, 300, 500, 1000, 2000, 5000)
PAPER_N_UNLABELED = 10_000
PAPER_N_SPLITS = 5
#: Table 1 of Takamura & Okumura: accuracy (%) per labeled-set size (rows, PAPER_SIZES) and
#: method (columns, FISHER_METHODS); 10,000 unlabeled posts, mean of 5 splits.
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


@dataclass(frozen=True)
class FisherSettings:
    """Settings of every model in the Fisher table (defaults: the paper's, where it gives them).

    Parameters
    ----------
    alpha : float, default=1.0
        Naive Bayes smoothing; the paper's Dirichlet α = 2.0.
    annealing : tuple of float, default=sslviz.fisher.ANNEALING
        Deterministic annealing schedule of EM (ours: the paper gives none).
    max_iter : int, default=20
        EM iterations per annealing stage.
    tol : float, default=1e-6
        EM's relative convergence threshold.
    C : float, default=1.0
        Soft-margin cost of every SVM (and C* of the TSVM), as in the paper.
    svm_max_iter : int, default=10_000
        Iteration cap of liblinear (``LinearSVC``); the hinge loss converges slowly.
    tsvm_max_unlabeled : int or None, default=None
        Give the TSVM at most this many of the split's unlabeled posts (a random subset of
        them); ``None`` gives it all. The TSVM is the slowest method by far.
    """

    alpha: float = 1.0
    annealing: tuple = ANNEALING
    max_iter: int = 20
    tol: float = 1e-6
    C: float = 1.0
    svm_max_iter: int = 10_000
    tsvm_max_unlabeled: int | None = None

    def key(self, method):
        """The settings that affect ``method`` (for cache keys)."""
        settings = asdict(self)
        settings["annealing"] = list(self.annealing)
        unused = {"tsvm_max_unlabeled"} if method != "tsvm" else set()
        if method in ("linear", "tsvm"):
            unused |= {"alpha", "annealing", "max_iter", "tol"}
        if method in ("nb", "nb+em"):
            unused |= {"C", "svm_max_iter"}
        if method == "nb":
            unused |= {"annealing", "max_iter", "tol"}
        return {name: value for name, value in settings.items() if name not in unused}

    def group_key(self, methods):
        """The settings that affect any of ``methods`` (one job's cache key)."""
        return {name: value for method in methods for name, value in self.key(method).items()}


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
    """Fit the requested methods on one seeded split; test accuracy and seconds for each.

    The labeled posts (stratified) and the unlabeled posts are drawn by
    :func:`sslviz.splits.split_labeled` with ``random_state=seed`` from the posts outside
    ``test_rows``. For the same seed, the labeled set does not depend on ``n_unlabeled`` and
    smaller unlabeled sets are subsets of larger ones. SVMs: ``LinearSVC(C, loss="hinge")``,
    one-vs-rest (the SVM of TinySVM and SVM-light, which the paper used). The plain and
    transductive SVMs see word counts scaled to unit length; the Fisher SVMs see unit-length
    Fisher scores. NB is the n-cat model itself, NB+EM the ul-cat model.

    Returns
    -------
    accuracy : dict of str -> float
    seconds : dict of str -> float
        Time spent on each method (a shared model is charged to the first method that needs it).
    """
    from sklearn.preprocessing import normalize
    from sklearn.svm import LinearSVC

    _check_methods(methods)
    split = split_labeled(y, n_labeled, n_unlabeled=n_unlabeled, test_rows=test_rows,
                          random_state=seed)
    X_train, y_train = X[split.train], split.semi_supervised_targets(y)
    X_labeled, y_labeled = X[split.labeled], np.asarray(y)[split.labeled]
    X_test, y_test = X[split.test], np.asarray(y)[split.test]
    accuracy, seconds = {}, {}

    def svm():
        return LinearSVC(C=settings.C, loss="hinge", max_iter=settings.svm_max_iter,
                         random_state=0)

    def record(method, predictions, start):
        accuracy[method] = float(np.mean(predictions == y_test))
        seconds[method] = time.perf_counter() - start

    for variant, nb_method in (("n-cat", "nb"), ("ul-cat", "nb+em"), ("ul-cl", None)):
        if variant not in methods and nb_method not in methods:
            continue
        start = time.perf_counter()
        kernel = _fisher_model(variant, settings, seed).fit(X_train, y_train)
        if nb_method in methods:
            record(nb_method, kernel.nb_.predict(X_test), start)
            start = time.perf_counter()
        if variant in methods:
            model = svm().fit(kernel.transform(X_labeled), y_labeled)
            record(variant, model.predict(kernel.transform(X_test)), start)
    if "linear" in methods:
        start = time.perf_counter()
        model = svm().fit(normalize(X_labeled), y_labeled)
        record("linear", model.predict(normalize(X_test)), start)
    if "tsvm" in methods:
        from ..tsvm import TransductiveSVM

        start = time.perf_counter()
        k = n_unlabeled if settings.tsvm_max_unlabeled is None else min(
            n_unlabeled, settings.tsvm_max_unlabeled)
        subset = split_labeled(y, n_labeled, n_unlabeled=k, test_rows=test_rows,
                               random_state=seed)
        model = TransductiveSVM(C=settings.C, C_unlabeled=settings.C, random_state=seed)
        model.fit(normalize(X[subset.train]), subset.semi_supervised_targets(y))
        record("tsvm", model.predict(normalize(X_test)), start)
    return accuracy, seconds


def _fisher_model(variant, settings, seed):
    return FisherKernelNB(variant=variant, alpha=settings.alpha, annealing=settings.annealing,
                          max_iter=settings.max_iter, tol=settings.tol, random_state=seed)


def fisher_models_by_variant(X, y, *, n_labeled, n_unlabeled, test_rows, seed,
                             settings=FisherSettings()):
    """A cached ``variant -> (split, fitted FisherKernelNB)`` on one seeded split.

    The split is the one :func:`fisher_split_accuracies` draws with the same arguments; for
    explorers that show the scores of single documents (each variant is fitted once).
    """
    split = split_labeled(y, n_labeled, n_unlabeled=n_unlabeled, test_rows=test_rows,
                          random_state=seed)

    @lru_cache(maxsize=4)
    def model(variant):
        kernel = _fisher_model(variant, settings, seed)
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
    """

    sizes: np.ndarray
    unlabeled_sizes: np.ndarray
    splits: np.ndarray
    methods: tuple
    accuracy: np.ndarray
    seconds: np.ndarray

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
    X : sparse matrix of shape (n_documents, n_words)
        Word counts (e.g. :func:`load_fisher_corpus`).
    y : ndarray of shape (n_documents,)
    sizes, unlabeled_sizes : sequence of int
        Labeled and unlabeled set sizes.
    splits : sequence of int
        Split ``k`` tests on ``test_folds[k]`` and draws its training posts with seed ``k``.
    test_folds : list of arrays of int
        Test rows of every split (e.g. :func:`paper_test_folds`).
    methods : sequence of str, default=FISHER_METHODS
        Those in :data:`LABELED_ONLY_METHODS` are run once per labeled set (at the largest
        unlabeled size) and repeated along the unlabeled axis.
    unlabeled_methods : sequence of str or None, default=None
        Methods run at *every* unlabeled size; the others (except the labeled-only ones) run
        at the largest only and are NaN elsewhere. ``None``: every method at every size. E.g.
        Table 1 plus Figure 1 in one call: all methods, ``unlabeled_methods=("ul-cat",)``.
    settings : FisherSettings, default=FisherSettings()
    use_cache : bool, default=True
        Read the jobs' results from the ``fisher`` cache (they are always written to it).
    progress : bool, default=True
        Show a progress bar labeled ``description``.
    n_jobs : int or None, default=None
        Parallel processes (joblib; ``-1`` = all cores). Results do not depend on it.

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
    cells, jobs = _grid_jobs(sizes, unlabeled_sizes, splits, methods, unlabeled_methods)
    digest = data_digest(X, np.asarray(y), *[np.asarray(fold) for fold in test_folds])
    results = run_jobs(_run_job, jobs, kind="fisher", key=lambda job: _job_key(job, digest,
                                                                               settings),
                       shared={"X": X, "y": y, "test_folds": test_folds, "settings": settings},
                       use_cache=use_cache, n_jobs=n_jobs, progress=progress,
                       description=description)
    accuracy, seconds = _assemble(cells, jobs, results, methods,
                                  shape=(len(sizes), len(unlabeled_sizes), len(splits)))
    j_largest = int(np.argmax(unlabeled_sizes))
    for m, method in enumerate(methods):  # the same labeled set gives the same result
        if method in LABELED_ONLY_METHODS:
            accuracy[:, :, :, m] = accuracy[:, j_largest, None, :, m]
    return FisherGrid(sizes, unlabeled_sizes, splits, methods, accuracy, seconds)


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
    return {"version": FISHER_CACHE_VERSION, "data": digest, **job,
            "n_unlabeled": 0 if labeled_only else job["n_unlabeled"],
            "settings": settings.group_key(job["methods"])}


def _run_job(X, y, *, test_folds, settings, n_labeled, n_unlabeled, split, methods):
    """One job for :func:`sslviz.experiments.runner.run_jobs`: accuracy and seconds arrays
    (one entry per method of the group)."""
    accuracy, seconds = fisher_split_accuracies(
        X, y, n_labeled=n_labeled, n_unlabeled=n_unlabeled, test_rows=test_folds[split],
        seed=split, methods=methods, settings=settings)
    return {"accuracy": np.array([accuracy[m] for m in methods]),
            "seconds": np.array([seconds[m] for m in methods])}


def _assemble(cells, jobs, results, methods, *, shape):
    """Accuracy and seconds of shape ``shape + (n_methods,)``; NaN where nothing was wanted."""
    accuracy = np.full(shape + (len(methods),), np.nan)
    seconds = np.full_like(accuracy, np.nan)
    for (i, j, k, wanted), job, result in zip(cells, jobs, results, strict=True):
        for g, method in enumerate(job["methods"]):
            if method in wanted:
                accuracy[i, j, k, methods.index(method)] = result["accuracy"][g]
                seconds[i, j, k, methods.index(method)] = result["seconds"][g]
    return accuracy, seconds


# -- what the explorers show --------------------------------------------------------------------
@dataclass(frozen=True)
class FisherDocumentView:
    """One test post seen by one model: the posterior ``P(c|x)`` over the components, the
    largest entries of its unit-length counts ``(word, count, value)`` and of its Fisher score
    ``(component, word or None, value)``; ``true_index`` is ``None`` for clusters."""

    title: str
    model_name: str
    component_names: list
    posterior: np.ndarray
    true_index: int | None
    predicted_index: int
    counts: list
    entries: list


def fisher_document_view(corpus, model, *, row, position, variant, k):
    """The :class:`FisherDocumentView` of corpus row ``row`` (test post number ``position``)
    under the fitted :class:`~sslviz.fisher.FisherKernelNB` ``model`` of ``variant``."""
    clusters = variant == "ul-cl"
    names = list(corpus.target_names)
    components = ([f"cluster {c}" for c in model.classes_] if clusters
                  else [names[c] for c in model.classes_])
    x, true_class = corpus.X[row], int(corpus.y[row])
    posterior = model.nb_.predict_proba(x)[0]
    predicted = int(np.argmax(posterior))
    true_index = None if clusters else int(np.flatnonzero(model.classes_ == true_class)[0])
    score = model.transform(x)
    verdict = ("" if clusters else "  (right)" if predicted == true_index
               else f"  (model says {components[predicted]})")
    return FisherDocumentView(
        title=f"test post {position} (corpus row {row}): {names[true_class]}{verdict} — "
        f"{x.nnz} distinct words, {score.nnz} non-zero Fisher entries",
        model_name=f"{'cluster' if clusters else 'class'} posterior\n({variant} model)",
        component_names=components, posterior=posterior, true_index=true_index,
        predicted_index=predicted, counts=top_count_entries(x, corpus.vocabulary, k),
        entries=top_entries(score, components, corpus.vocabulary, k))


def paper_table(methods):
    """The paper's sizes and its Table 1 (%) restricted to ``methods`` (columns in that order)."""
    return np.array(PAPER_SIZES), PAPER_TABLE_1[:, [FISHER_METHODS.index(m) for m in methods]]


@dataclass(frozen=True)
class FisherTableView:
    """Table 1 at ``n_unlabeled`` posts and Figure 1 for ``method``, from a :class:`FisherGrid`.

    ``table``: method -> accuracy (%) per labeled size, for the methods run at every unlabeled
    size; ``curves``: ``"<size> labeled"`` -> accuracy (%) per unlabeled size; ``reference``:
    the linear SVM at ``n_labeled`` and the largest unlabeled size (``None`` if not run).
    """

    method: str
    method_name: str
    n_labeled: int
    n_unlabeled: int
    largest: int
    table: dict
    curves: dict
    current: str
    reference: float | None


def fisher_table_view(grid, *, method, n_labeled, n_unlabeled):
    """The :class:`FisherTableView` of ``method`` at ``n_labeled`` and ``n_unlabeled`` posts."""
    at_size, largest = grid.table(n_unlabeled), int(np.max(grid.unlabeled_sizes))
    reference = None
    if "linear" in grid.methods:
        reference = grid.mean("linear", n_labeled, largest) * 100
    return FisherTableView(
        method=method, method_name=FISHER_METHOD_NAMES[method], n_labeled=n_labeled,
        n_unlabeled=n_unlabeled, largest=largest,
        table={m: at_size[:, grid.methods.index(m)] for m in grid.complete_methods()},
        curves={f"{int(s)} labeled": grid.unlabeled_curve(method, s) for s in grid.sizes},
        current=f"{n_labeled} labeled", reference=reference)


# -- Table 1 and Figure 1 as text ------------------------------------------------------------
def fisher_table_text(grid, *, n_unlabeled=None, paper=True):
    """Table 1 as text: mean accuracy (%) per size and method, the paper's value in brackets."""
    table = grid.table(n_unlabeled)
    names = [FISHER_METHOD_NAMES[m] for m in grid.methods]
    width = max(len(n) for n in names) if paper else 8
    width = max(width, 13 if paper else 6)
    lines = ["#labeled " + " ".join(f"{n:>{width}}" for n in names)]
    for i, size in enumerate(grid.sizes):
        cells = []
        for m, method in enumerate(grid.methods):
            ours = "  -  " if np.isnan(table[i, m]) else f"{table[i, m]:5.1f}"
            if paper and int(size) in PAPER_SIZES:
                theirs = PAPER_TABLE_1[PAPER_SIZES.index(int(size)),
                                       FISHER_METHODS.index(method)]
                cells.append(f"{ours} ({theirs:4.1f})")
            else:
                cells.append(ours)
        lines.append(f"{int(size):>8} " + " ".join(f"{c:>{width}}" for c in cells))
    return "\n".join(lines)


def fisher_figure_text(grid, method="ul-cat"):
    """Figure 1 as text: mean accuracy (%) of ``method`` per labeled size (rows) and unlabeled
    size (columns)."""
    header = "#labeled \\ #unlabeled " + " ".join(f"{int(u):>6}" for u in grid.unlabeled_sizes)
    rows = [f"{int(size):>21} " + " ".join(f"{a:6.1f}" for a in grid.unlabeled_curve(method,
                                                                                    size))
            for size in grid.sizes]
    return "\n".join([f"{FISHER_METHOD_NAMES[method]}", header, *rows])
