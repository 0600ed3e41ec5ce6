"""Learning curves over seeded splits: the experiments behind the lectures' accuracy plots.

A curve repeats, for every labeled-set size and every seed, one stratified split of a vectorized
corpus (:func:`sslviz.splits.split_labeled`) and fits the supervised Naive Bayes (EM's iteration 0)
and semi-supervised EM on it. Results are cached on disk (``sslviz.datasets.cache_dir()/curves``,
an ``.npz`` keyed by the data and every parameter, written atomically), so re-running a notebook
or moving a slider over recorded sizes costs nothing. Cost: ``len(sizes) × len(seeds)`` EM fits.

The last section reruns Table 1 and Figure 1 of Takamura & Okumura (Fisher kernels on Naive Bayes,
Lecture 06): :func:`fisher_grid`, cached per split and method; at paper scale from the command
line, ``python -m sslviz.experiments fisher-table`` (or ``fisher-figure``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from joblib import Parallel, delayed
from tqdm.auto import tqdm

from .. import datasets
from .._io import atomic_write_path
from ..em import SemiSupervisedNB, accuracy_by_iteration
from ..splits import split_labeled

CACHE_VERSION = 1


@dataclass(frozen=True)
class LearningCurve:
    """Test accuracy of NB and EM for every labeled-set size (rows) and seed (columns)."""

    sizes: np.ndarray  # (n_sizes,)
    seeds: np.ndarray  # (n_seeds,)
    nb_accuracy: np.ndarray  # (n_sizes, n_seeds)
    em_accuracy: np.ndarray  # (n_sizes, n_seeds)
    em_iterations: np.ndarray  # (n_sizes, n_seeds) EM iterations run

    def at(self, size):
        """(NB accuracies, EM accuracies) over the seeds at one recorded size."""
        matches = np.flatnonzero(self.sizes == size)
        if len(matches) == 0:
            raise ValueError(f"size {size} was not run; the curve has sizes {self.sizes.tolist()}")
        return self.nb_accuracy[matches[0]], self.em_accuracy[matches[0]]


def split_accuracies(X, y, n_labeled, seed, *, test_rows, n_unlabeled, **em_params):
    """Fit NB and EM on one seeded split; returns (NB accuracy, EM accuracy, EM iterations)."""
    split = split_labeled(y, n_labeled, n_unlabeled=n_unlabeled, test_rows=test_rows,
                          random_state=seed)
    X_train, y_train = X[split.train], split.semi_supervised_targets(y)
    params = {**em_params, "record": "summary"}
    nb = SemiSupervisedNB(**{**params, "max_iter": 0}).fit(X_train, y_train)
    em = SemiSupervisedNB(**params).fit(X_train, y_train)
    X_test, y_test = X[split.test], y[split.test]
    return (float(np.mean(nb.predict(X_test) == y_test)),
            float(np.mean(em.predict(X_test) == y_test)), em.n_iter_)


def refit_at_size(X, y, *, seeds, test_rows, n_unlabeled, max_iter=10):
    """A cached ``(n_labeled, unlabeled_weight, alpha) -> (nb, em)`` of accuracies over ``seeds``.

    For explorers whose λ and smoothing sliders refit one labeled-set size: each setting is
    fitted once (``len(seeds)`` splits) and remembered.
    """

    @lru_cache(maxsize=64)
    def refit(n_labeled, unlabeled_weight, alpha):
        results = [split_accuracies(X, y, n_labeled, seed, test_rows=test_rows,
                                    n_unlabeled=n_unlabeled, alpha=alpha,
                                    unlabeled_weight=unlabeled_weight, max_iter=max_iter)
                   for seed in seeds]
        nb, em, _ = zip(*results, strict=True)
        return np.array(nb), np.array(em)

    return refit


def learning_curve(X, y, *, sizes, seeds, test_rows, n_unlabeled, use_cache=True,
                   progress=True, description="learning curve", n_jobs=None, **em_params):
    """NB vs EM test accuracy over labeled-set sizes and seeds.

    Parameters
    ----------
    X : sparse matrix of shape (n_documents, n_words)
    y : ndarray of shape (n_documents,)
    sizes : sequence of int
        Labeled-set sizes (stratified over the classes).
    seeds : sequence of int
        One split per seed and size.
    test_rows : array-like of int
        Fixed test documents (e.g. the corpus' official test split).
    n_unlabeled : int
        Unlabeled documents drawn for every split.
    n_jobs : int or None
        Fits run in parallel processes (joblib; ``-1`` = all cores). Results do not depend on it.
    **em_params
        Parameters of :class:`SemiSupervisedNB` (``alpha``, ``unlabeled_weight``, ``max_iter``...).

    Returns
    -------
    LearningCurve
    """
    sizes, seeds = np.asarray(sizes, dtype=int), np.asarray(seeds, dtype=int)
    path = _cache_path(X, y, sizes, seeds, test_rows, n_unlabeled, em_params)
    if use_cache and path.exists():
        return _read_curve(path)
    jobs = [(int(size), int(seed)) for size in sizes for seed in seeds]
    parallel = Parallel(n_jobs=n_jobs, return_as="generator")
    finished = parallel(delayed(split_accuracies)(X, y, size, seed, test_rows=test_rows,
                                                  n_unlabeled=n_unlabeled, **em_params)
                        for size, seed in jobs)
    results = np.array(list(tqdm(finished, total=len(jobs), desc=description,
                                 disable=not progress, leave=False)))
    results = results.reshape(len(sizes), len(seeds), 3)
    curve = LearningCurve(sizes, seeds, results[..., 0], results[..., 1],
                          results[..., 2].astype(int))
    if use_cache:
        _write_curve(path, curve)
    return curve


def _cache_path(X, y, sizes, seeds, test_rows, n_unlabeled, em_params):
    digest = hashlib.sha256()
    for array in (np.array(X.shape), X.data, X.indices, X.indptr, np.asarray(y),
                  np.asarray(test_rows)):
        digest.update(np.ascontiguousarray(array).tobytes())
    digest.update(json.dumps({
        "version": CACHE_VERSION, "sizes": sizes.tolist(), "seeds": seeds.tolist(),
        "n_unlabeled": n_unlabeled, "em": {k: em_params[k] for k in sorted(em_params)},
    }, sort_keys=True, default=str).encode())
    return datasets.cache_dir() / "curves" / f"curve-{digest.hexdigest()[:24]}.npz"


def _write_curve(path, curve):
    with atomic_write_path(path) as tmp:
        np.savez(tmp, sizes=curve.sizes, seeds=curve.seeds, nb_accuracy=curve.nb_accuracy,
                 em_accuracy=curve.em_accuracy, em_iterations=curve.em_iterations)


def _read_curve(path):
    with np.load(path, allow_pickle=False) as f:
        return LearningCurve(f["sizes"], f["seeds"], f["nb_accuracy"], f["em_accuracy"],
                             f["em_iterations"])


@dataclass(frozen=True)
class EMRun:
    """One seeded EM run: the split, the fitted model, and test accuracy at every iteration."""

    split: object  # sslviz.splits.Split
    model: SemiSupervisedNB
    test_accuracy: np.ndarray  # (n_iterations,)


def em_run(X, y, *, n_labeled, seed, n_unlabeled=None, per_class=False, test_rows=None,
           **em_params):
    """Split (seeded), fit :class:`SemiSupervisedNB` with a full trace, score every iteration.

    Test rows default to every document outside the labeled and unlabeled sets.
    """
    split = split_labeled(y, n_labeled, n_unlabeled=n_unlabeled, per_class=per_class,
                          test_rows=test_rows, random_state=seed)
    model = SemiSupervisedNB(**em_params).fit(X[split.train], split.semi_supervised_targets(y))
    test = split.test if len(split.test) else np.setdiff1d(np.arange(len(y)), split.train)
    if len(test) == 0:
        raise ValueError("no documents are left to test on: pass test_rows, or n_unlabeled "
                         "smaller than the documents left after the labeled ones")
    return EMRun(split, model, accuracy_by_iteration(model, X[test], np.asarray(y)[test]))


def em_runs_by_seed(X, y, **run_params):
    """A cached ``seed -> EMRun``: :func:`em_run` with fixed settings, fitted once per seed."""

    @lru_cache(maxsize=16)
    def run(seed):
        return em_run(X, y, seed=seed, **run_params)

    return run


