"""Experiments of the EM lecture (04): seeded EM runs, NB vs EM learning curves, choosing λ.

A learning curve repeats, for every labeled-set size and every seed, one stratified split of a
vectorized corpus (:func:`sslviz.splits.split_labeled`) and fits the supervised Naive Bayes (EM's
iteration 0) and semi-supervised EM on it. Each (size, seed) is one job of
:func:`sslviz.experiments.runner.run_jobs`: cached on disk (kind ``"curves"``, keyed by the data's
digest, every parameter and :data:`CACHE_VERSION`), run in parallel, resumable. Cost:
``len(sizes) × len(seeds)`` EM fits the first time, nothing afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from sklearn.base import clone

from ..cache import data_digest
from ..em import SemiSupervisedNB, accuracy_by_iteration
from ..splits import split_labeled
from ..tuning import choose_by_cv
from .runner import run_jobs

CACHE_VERSION = 2


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


def split_result(X, y, n_labeled, seed, **kwargs):
    """:func:`split_accuracies` as the dict of arrays a :func:`run_jobs` job returns."""
    nb, em, n_iter = split_accuracies(X, y, n_labeled, seed, **kwargs)
    return {"nb_accuracy": np.float64(nb), "em_accuracy": np.float64(em),
            "em_iterations": np.int64(n_iter)}


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
    use_cache : bool, default=True
        ``False`` refits every split (and overwrites its cache entry).
    progress : bool, default=True
        Show a progress bar (titled ``description``) over the splits that are fitted.
    n_jobs : int or None
        Fits run in parallel processes (joblib; ``-1`` = all cores). Results do not depend on it.
    **em_params
        Parameters of :class:`SemiSupervisedNB` (``alpha``, ``unlabeled_weight``, ``max_iter``...).

    Returns
    -------
    LearningCurve
    """
    sizes, seeds = np.asarray(sizes, dtype=int), np.asarray(seeds, dtype=int)
    test_rows = np.asarray(test_rows)
    digest = data_digest(X, np.asarray(y), test_rows)
    shared = {"X": X, "y": y, "test_rows": test_rows, "n_unlabeled": n_unlabeled, **em_params}

    def key(job):
        return {"data": digest, "n_unlabeled": n_unlabeled, "em": em_params,
                "version": CACHE_VERSION, **job}

    jobs = [{"n_labeled": int(size), "seed": int(seed)} for size in sizes for seed in seeds]
    results = run_jobs(split_result, jobs, kind="curves", key=key, shared=shared,
                       use_cache=use_cache, n_jobs=n_jobs, progress=progress,
                       description=description)
    table = {name: np.array([r[name] for r in results]).reshape(len(sizes), len(seeds))
             for name in ("nb_accuracy", "em_accuracy", "em_iterations")}
    return LearningCurve(sizes, seeds, table["nb_accuracy"], table["em_accuracy"],
                         table["em_iterations"].astype(int))


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


def choose_unlabeled_weight(estimator, X, y, grid, *, cv=5, random_state=None):
    """Pick λ (``unlabeled_weight``) by cross-validation on the labeled rows, as Nigam et al. did.

    Every fold trains on the other labeled rows plus *all* unlabeled rows and is scored by
    accuracy on its held-out labeled rows. Uses :func:`sslviz.tuning.choose_by_cv`.

    Parameters
    ----------
    estimator : SemiSupervisedNB
        Unfitted template; its other parameters are kept.
    grid : sequence of float in [0, 1]
    cv : int
        Folds; lowered to the size of the smallest class when that is smaller (at least 2).

    Returns
    -------
    best_weight : float
    mean_scores : ndarray of shape (len(grid),)
    """
    template = clone(estimator).set_params(record="summary")
    choice = choose_by_cv(template, {"unlabeled_weight": list(grid)}, X, y, cv=cv,
                          random_state=random_state, semi_supervised=True)
    return float(choice.value), choice.scores
