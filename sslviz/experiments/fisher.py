"""Lecture 06 (the Fisher kernel): Table 1 and Figure 1 of Takamura & Okumura, cached per split
and method; paper scale from ``python -m sslviz.experiments fisher-table``."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass
from functools import lru_cache

import numpy as np
from joblib import Parallel, delayed
from tqdm.auto import tqdm

from .. import datasets
from .._io import atomic_write
from ..fisher import ANNEALING, FisherKernelNB
from ..splits import split_labeled

# ================================================================================================
# Lecture 06 - the Fisher kernel: Table 1 and Figure 1 of Takamura & Okumura
# ================================================================================================
#
# Every method of the paper's Table 1 on seeded splits of 20 Newsgroups: SVMs on Fisher scores of
# the three Naive Bayes models (n-cat, ul-cat, ul-cl; sslviz.fisher), the linear SVM on labeled
# posts, the transductive linear SVM (sslviz.tsvm), NB+EM and NB. One *job* is one split at one
# labeled and one unlabeled size; each method's accuracy is cached on its own (a small JSON file,
# written atomically, keyed by the data and every setting that affects it), so an interrupted
# paper-scale run resumes where it stopped, and the lecture reuses what the paper-scale run (or an
# earlier lecture run) computed. Paper scale: ``python -m sslviz.experiments fisher-table``.

FISHER_CACHE_VERSION = 1
#: Methods in the column order of Table 1.
FISHER_METHODS = ("n-cat", "ul-cat", "ul-cl", "linear", "tsvm", "nb+em", "nb")
FISHER_METHOD_NAMES = {
    "n-cat": "SVM (n-cat)", "ul-cat": "SVM (ul-cat)", "ul-cl": "SVM (ul-cl)",
    "linear": "SVM (linear)", "tsvm": "TSVM (linear)", "nb+em": "NB+EM (ul-cat)", "nb": "NB",
}
#: Methods whose result does not depend on the unlabeled posts (computed once per labeled set).
LABELED_ONLY_METHODS = ("n-cat", "linear", "nb")
#: Methods that share a fitted model run in one job; other methods run in separate jobs.
_METHOD_GROUPS = (("n-cat", "nb"), ("ul-cat", "nb+em"), ("ul-cl",), ("linear",), ("tsvm",))
#: Methods by decreasing cost of their job (jobs are started in this order).
_METHOD_COST_ORDER = ("tsvm", "ul-cl", "ul-cat", "nb+em", "n-cat", "nb", "linear")
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
        if method != "tsvm":
            settings.pop("tsvm_max_unlabeled")
        if method in ("linear", "tsvm"):
            for name in ("alpha", "annealing", "max_iter", "tol"):
                settings.pop(name)
        if method in ("nb", "nb+em"):
            for name in ("C", "svm_max_iter"):
                settings.pop(name)
        if method == "nb":
            for name in ("annealing", "max_iter", "tol"):
                settings.pop(name)
        return settings


def load_fisher_corpus(min_count=10):
    """20 Newsgroups prepared as in the paper: counts, words seen < ``min_count`` times dropped.

    Tokens as everywhere in sslviz (lower case, digits mapped to ``D``, no stop list); the
    vocabulary is pruned on the whole corpus, as the paper did (section 5).

    Returns
    -------
    sslviz.text.CountCorpus
    """
    from .text import CountCorpus, TextOptions, load_counts

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

    unknown = sorted(set(methods) - set(FISHER_METHODS))
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; choose from {list(FISHER_METHODS)}")
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
        kernel = FisherKernelNB(variant=variant, alpha=settings.alpha,
                                annealing=settings.annealing, max_iter=settings.max_iter,
                                tol=settings.tol, random_state=seed).fit(X_train, y_train)
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
        from .tsvm import TransductiveSVM

        start = time.perf_counter()
        k = n_unlabeled if settings.tsvm_max_unlabeled is None else min(
            n_unlabeled, settings.tsvm_max_unlabeled)
        subset = split_labeled(y, n_labeled, n_unlabeled=k, test_rows=test_rows,
                               random_state=seed)
        model = TransductiveSVM(C=settings.C, C_unlabeled=settings.C, random_state=seed)
        model.fit(normalize(X[subset.train]), subset.semi_supervised_targets(y))
        record("tsvm", model.predict(normalize(X_test)), start)
    return accuracy, seconds


def _fisher_job(number, X, y, **kwargs):
    """:func:`fisher_split_accuracies` tagged with its job number (results arrive unordered)."""
    return (number, *fisher_split_accuracies(X, y, **kwargs))


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
        """Mean accuracy (%) over splits, shape (n_sizes, n_methods), at one unlabeled size."""
        j = -1 if n_unlabeled is None else self._index(self.unlabeled_sizes, n_unlabeled,
                                                       "unlabeled size")
        return self.accuracy[:, j].mean(axis=1) * 100

    def unlabeled_curve(self, method, n_labeled):
        """Mean accuracy (%) over splits against the unlabeled sizes: (n_unlabeled_sizes,)."""
        i = self._index(self.sizes, n_labeled, "labeled size")
        m = self._index(self.methods, method, "method")
        return self.accuracy[i, :, :, m].mean(axis=1) * 100


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
    methods : sequence of str
        Subset of :data:`FISHER_METHODS`. Those in :data:`LABELED_ONLY_METHODS` are run once per
        labeled set (at the largest unlabeled size) and repeated along the unlabeled axis.
    unlabeled_methods : sequence of str or None
        Methods run at *every* unlabeled size; the others (except the labeled-only ones) run
        at the largest only and are NaN elsewhere. ``None``: every method at every size. E.g.
        Table 1 plus Figure 1 in one call: all methods, ``unlabeled_methods=("ul-cat",)``.
    settings : FisherSettings
    use_cache : bool
        Read and write each method's result in ``sslviz.datasets.cache_dir()/fisher``.
    n_jobs : int or None
        Jobs (one split at one labeled and unlabeled size, one fitted model: e.g. ul-cat and
        NB+EM together, the TSVM alone) run in parallel processes (joblib; ``-1`` = all cores),
        the slowest kinds first; each result is cached as soon as its job ends. Results do not
        depend on it.

    Returns
    -------
    FisherGrid
    """
    sizes = np.asarray(sizes, dtype=int)
    unlabeled_sizes = np.asarray(unlabeled_sizes, dtype=int)
    splits = np.asarray(splits, dtype=int)
    methods = tuple(methods)
    unknown = sorted(set(methods) - set(FISHER_METHODS))
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; choose from {list(FISHER_METHODS)}")
    if len(splits) and (splits.min() < 0 or splits.max() >= len(test_folds)):
        raise ValueError(f"splits must lie in 0..{len(test_folds) - 1} (one per test fold), "
                         f"got {splits.tolist()}")
    digest = _data_digest(X, y, test_folds) if use_cache else None
    largest = unlabeled_sizes.max()
    accuracy = np.full((len(sizes), len(unlabeled_sizes), len(splits), len(methods)), np.nan)
    seconds = np.full_like(accuracy, np.nan)
    jobs = []
    for i, size in enumerate(sizes):
        for j, n_unlabeled in enumerate(unlabeled_sizes):
            for k, split in enumerate(splits):
                wanted = [m for m in methods if n_unlabeled == largest or (
                    m not in LABELED_ONLY_METHODS
                    and (unlabeled_methods is None or m in unlabeled_methods))]
                missing = []
                for method in wanted:
                    cached = (_read_fisher_result(digest, method, size, n_unlabeled, split,
                                                  settings) if use_cache else None)
                    if cached is None:
                        missing.append(method)
                    else:
                        m = methods.index(method)
                        accuracy[i, j, k, m], seconds[i, j, k, m] = cached
                for group in _METHOD_GROUPS:
                    job_methods = [m for m in missing if m in group]
                    if job_methods:
                        jobs.append(((i, j, k), int(size), int(n_unlabeled), int(split),
                                     job_methods))
    # slowest first (the TSVM, then the clustering EM ...; more data first): a shorter tail
    jobs.sort(key=lambda job: (_METHOD_COST_ORDER.index(job[4][0]), -job[2], -job[1]))
    parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    finished = parallel(
        delayed(_fisher_job)(number, X, y, n_labeled=size, n_unlabeled=n_unlabeled,
                             test_rows=test_folds[split], seed=split, methods=missing,
                             settings=settings)
        for number, (_, size, n_unlabeled, split, missing) in enumerate(jobs))
    for number, acc, secs in tqdm(finished, total=len(jobs), desc=description,
                                  disable=not progress, leave=False):
        index, size, n_unlabeled, split, _ = jobs[number]
        for method, value in acc.items():
            accuracy[index + (methods.index(method),)] = value
            seconds[index + (methods.index(method),)] = secs[method]
            if use_cache:
                _write_fisher_result(digest, method, size, n_unlabeled, split, settings, value,
                                     secs[method])
    # labeled-only methods: the same labeled set, hence the same result, at every unlabeled size
    j_largest = int(np.argmax(unlabeled_sizes))
    for m, method in enumerate(methods):
        if method in LABELED_ONLY_METHODS:
            accuracy[:, :, :, m] = accuracy[:, j_largest, None, :, m]
    return FisherGrid(sizes, unlabeled_sizes, splits, methods, accuracy, seconds)


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
        kernel = FisherKernelNB(variant=variant, alpha=settings.alpha,
                                annealing=settings.annealing, max_iter=settings.max_iter,
                                tol=settings.tol, random_state=seed)
        return split, kernel.fit(X[split.train], split.semi_supervised_targets(y))

    return model

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


def _data_digest(X, y, test_folds):
    digest = hashlib.sha256()
    for array in (np.array(X.shape), X.data, X.indices, X.indptr, np.asarray(y),
                  *[np.asarray(fold) for fold in test_folds]):
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()[:20]


def _fisher_result_path(digest, method, size, n_unlabeled, split, settings):
    key = json.dumps({"version": FISHER_CACHE_VERSION, "settings": settings.key(method)},
                     sort_keys=True)
    settings_digest = hashlib.sha256(key.encode()).hexdigest()[:12]
    name = f"{method}-l{size}-u{n_unlabeled}-s{split}-{settings_digest}.json"
    return datasets.cache_dir() / "fisher" / digest / name


def _read_fisher_result(digest, method, size, n_unlabeled, split, settings):
    if method in LABELED_ONLY_METHODS:
        n_unlabeled = 0  # one result per labeled set
    path = _fisher_result_path(digest, method, size, n_unlabeled, split, settings)
    if not path.exists():
        return None
    record = json.loads(path.read_text(encoding="utf-8"))
    return record["accuracy"], record["seconds"]


def _write_fisher_result(digest, method, size, n_unlabeled, split, settings, value, seconds):
    if method in LABELED_ONLY_METHODS:
        n_unlabeled = 0
    path = _fisher_result_path(digest, method, size, n_unlabeled, split, settings)
    record = {"method": method, "n_labeled": size, "n_unlabeled": n_unlabeled, "split": split,
              "settings": settings.key(method), "accuracy": value, "seconds": seconds}
    with atomic_write(path, "w") as handle:
        json.dump(record, handle, indent=1)


def fisher_figure_text(grid, method="ul-cat"):
    """Figure 1 as text: mean accuracy (%) of ``method`` per labeled size (rows) and unlabeled
    size (columns)."""
    header = "#labeled \\ #unlabeled " + " ".join(f"{int(u):>6}" for u in grid.unlabeled_sizes)
    rows = [f"{int(size):>21} " + " ".join(f"{a:6.1f}" for a in grid.unlabeled_curve(method,
                                                                                    size))
            for size in grid.sizes]
    return "\n".join([f"{FISHER_METHOD_NAMES[method]}", header, *rows])


def main(argv=None):
    """``python -m sslviz.experiments fisher-table | fisher-figure [options]`` (paper scale)."""
    import argparse

    import sslviz.experiments.fisher as experiments  # jobs pickled by module name

    parser = argparse.ArgumentParser(
        prog="python -m sslviz.experiments",
        description="Paper-scale experiments. fisher-table: Table 1 of Takamura & Okumura "
        "(every method, 10,000 unlabeled posts, 5 splits); fisher-figure: their Figure 1 "
        "(SVM on ul-cat Fisher scores, 1,000-10,000 unlabeled posts). Results are cached per "
        "split and method; an interrupted run resumes.")
    parser.add_argument("command", choices=["fisher-table", "fisher-figure"])
    parser.add_argument("--sizes", type=int, nargs="+", help="labeled-set sizes")
    parser.add_argument("--unlabeled", type=int, nargs="+", help="unlabeled-set sizes")
    parser.add_argument("--splits", type=int, nargs="+", default=list(range(PAPER_N_SPLITS)),
                        help="splits to run, 0-4 (default: all five)")
    parser.add_argument("--methods", nargs="+", choices=FISHER_METHODS,
                        help="methods (default: all for the table, ul-cat and nb+em for the "
                        "figure)")
    parser.add_argument("--tsvm-max-unlabeled", type=int, default=None,
                        help="give the TSVM at most this many unlabeled posts (default: all)")
    parser.add_argument("--n-jobs", type=int, default=-1, help="parallel processes (-1: all "
                        "cores)")
    parser.add_argument("--no-cache", action="store_true", help="recompute everything")
    args = parser.parse_args(argv)
    table = args.command == "fisher-table"
    sizes = args.sizes or (PAPER_SIZES if table else PAPER_FIGURE_1_SIZES)
    unlabeled = args.unlabeled or ((PAPER_N_UNLABELED,) if table else PAPER_FIGURE_1_UNLABELED)
    methods = args.methods or (FISHER_METHODS if table else ("ul-cat", "nb+em"))
    corpus = experiments.load_fisher_corpus()
    folds = experiments.paper_test_folds(corpus.y)
    settings = experiments.FisherSettings(tsvm_max_unlabeled=args.tsvm_max_unlabeled)
    print(f"20 Newsgroups: {corpus.X.shape[0]} posts, {corpus.X.shape[1]} words; "
          f"sizes {list(sizes)}, unlabeled {list(unlabeled)}, splits {args.splits}, "
          f"methods {list(methods)}", flush=True)
    start = time.perf_counter()
    grid = experiments.fisher_grid(corpus.X, corpus.y, sizes=sizes, unlabeled_sizes=unlabeled,
                                   splits=args.splits, test_folds=folds, methods=methods,
                                   settings=settings, use_cache=not args.no_cache,
                                   n_jobs=args.n_jobs, description=args.command)
    print(fisher_table_text(grid) if table else fisher_figure_text(grid, methods[0]))
    print(f"wall time {time.perf_counter() - start:.0f} s; compute time of the cells "
          f"{np.nansum(grid.seconds):.0f} s (cached cells included)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
