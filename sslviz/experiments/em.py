"""Experiments of the EM lecture (04): seeded EM runs, NB vs EM learning curves and the refits
its explorer makes ahead; the α criteria, the smoothing sweep and λ are in
:mod:`sslviz.experiments.em_settings`.

A learning curve repeats, for every labeled-set size and every seed, one stratified split of a
vectorized corpus (:func:`sslviz.splits.split_labeled`) and fits the supervised Naive Bayes (EM's
iteration 0) and semi-supervised EM on it. Each (size, seed) is one job of
:func:`sslviz.experiments.runner.run_jobs`: cached on disk (kind ``"curves"``, keyed by the data's
digest and every parameter; the cache adds the code), run in parallel, resumable. Cost:
``len(sizes) × len(seeds)`` EM fits the first time, nothing afterwards.

Smoothing is chosen, not fixed. ``alpha`` may name a criterion of
:func:`sslviz.tuning.choose_nb_alpha` (:data:`ALPHA_CRITERIA`; ``"evidence"`` is the one its
validation study supports): on every split α is chosen from a grid on the *labeled rows only*,
the grid extended by decades while the best value is an end of it, and both NB and EM's M-step
use it. EM gets no separate choice: the α that is best for the labeled documents is the one EM
starts from and keeps.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from ..cache import data_digest
from ..em import SemiSupervisedNB, accuracy_by_iteration
from ..splits import split_labeled
from ..tuning import (
    ALPHA_CRITERIA,
    ALPHA_GRID,
    choose_nb_alpha,
)
from ..validation import check_number
from .runner import run_jobs

RESULT_VERSION = 1  # bump for a change sslviz.code_digest cannot see (a dependency's)
WIDE_ALPHA_GRID = (*ALPHA_GRID, 0.0003, 0.0001)
""":data:`sslviz.tuning.ALPHA_GRID` extended downwards, for 20 Newsgroups' 166,000 words: the grid
the lecture's smoothing sweep fits NB and EM on (a chooser extends any grid past its ends)."""


#: Why a study's job may use a choice at a bound of its grid: it records where its choices
#: stopped (``at_bound``), and the lecture acknowledges an edge where it states the result.
STUDY_EDGE = "a study records its edge choices (at_bound); the lecture states them"


def alpha_choice(X, y, alpha, *, grid=ALPHA_GRID, random_state=None, edge_reason=None):
    """The :class:`sslviz.tuning.Choice` of α that ``alpha`` names, on the labeled rows of (X, y).

    ``alpha``: a criterion of :data:`ALPHA_CRITERIA` (:func:`sslviz.tuning.choose_nb_alpha`,
    ``grid`` extended while its best value is an end). ``edge_reason``: why a choice at a bound
    of the grid may be used (then acknowledged; without it, using such a choice warns or raises).
    """
    if alpha not in ALPHA_CRITERIA:
        raise ValueError(f"alpha must be a number > 0 or a criterion of "
                         f"sslviz.tuning.choose_nb_alpha {sorted(ALPHA_CRITERIA)}, got {alpha!r}")
    choice = choose_nb_alpha(X, y, criterion=alpha, grid=grid)
    if choice.at_bound and edge_reason:
        choice = choice.acknowledge_edge(edge_reason)
    return choice


def chosen_alpha(X, y, alpha, *, grid=ALPHA_GRID, random_state=None, edge_reason=None):
    """``alpha`` itself, or, when it names a criterion, the α that
    :func:`alpha_choice` picks from ``grid`` on the labeled rows of (X, y) (``-1`` =
    unlabeled)."""
    if isinstance(alpha, str):
        return float(alpha_choice(X, y, alpha, grid=grid, random_state=random_state,
                                  edge_reason=edge_reason).value)
    return check_number("alpha", alpha, above=0)


@dataclass(frozen=True)
class LearningCurve:
    """Test accuracy of NB and EM for every labeled-set size (rows) and seed (columns)."""

    sizes: np.ndarray  # (n_sizes,)
    seeds: np.ndarray  # (n_seeds,)
    nb_accuracy: np.ndarray  # (n_sizes, n_seeds)
    em_accuracy: np.ndarray  # (n_sizes, n_seeds)
    em_iterations: np.ndarray  # (n_sizes, n_seeds) EM iterations run
    alpha: np.ndarray | None = None  # (n_sizes, n_seeds) the smoothing NB and EM used

    def at(self, size):
        """(NB accuracies, EM accuracies) over the seeds at one recorded size."""
        matches = np.flatnonzero(self.sizes == size)
        if len(matches) == 0:
            raise ValueError(f"size {size} was not run; the curve has sizes {self.sizes.tolist()}")
        return self.nb_accuracy[matches[0]], self.em_accuracy[matches[0]]


class SplitAccuracies(NamedTuple):
    """What :func:`split_accuracies` measured on one split."""

    nb_accuracy: float
    em_accuracy: float
    em_iterations: int
    alpha: float  # the smoothing both models used (chosen on the labeled rows, or given)


def split_accuracies(X, y, n_labeled, seed, *, test_rows, n_unlabeled, alpha=1.0,
                     alpha_grid=ALPHA_GRID, **em_params):
    """Fit NB and EM on one seeded split (the same α for both); returns
    :class:`SplitAccuracies`. ``alpha`` naming a criterion picks α on the split's labeled rows
    (:func:`chosen_alpha`)."""
    split = split_labeled(y, n_labeled, n_unlabeled=n_unlabeled, test_rows=test_rows,
                          random_state=seed)
    X_train, y_train = _float_counts(X[split.train]), split.semi_supervised_targets(y)
    alpha = chosen_alpha(X_train, y_train, alpha, grid=alpha_grid, random_state=seed)
    X_test, y_test = _float_counts(X[split.test]), y[split.test]
    em = SemiSupervisedNB(**{**em_params, "alpha": alpha, "record": "summary"})
    nb_guess, em_guess = _nb_and_em_predictions(em, X_train, y_train, X_test)
    return SplitAccuracies(float(np.mean(nb_guess == y_test)),
                           float(np.mean(em_guess == y_test)), int(em.n_iter_), alpha)


def _nb_and_em_predictions(em, X_train, y_train, X_test):
    """Fit ``em`` and predict ``X_test`` with its iteration 0 (the supervised Naive Bayes, the
    model ``max_iter=0`` gives) and with its last iteration: one fit serves both models."""
    fitting = em.iter_fit(X_train, y_train)
    next(fitting)  # iteration 0: the fitted attributes are those of Naive Bayes
    nb_guess = em.predict(X_test)
    for _ in fitting:
        pass
    return nb_guess, em.predict(X_test)


def split_result(X, y, n_labeled, seed, **kwargs):
    """:func:`split_accuracies` as the dict of arrays a :func:`run_jobs` job returns."""
    nb, em, n_iter, alpha = split_accuracies(X, y, n_labeled, seed, **kwargs)
    return {"nb_accuracy": np.float64(nb), "em_accuracy": np.float64(em),
            "em_iterations": np.int64(n_iter), "alpha": np.float64(alpha)}


def refit_at_size(X, y, *, seeds, test_rows, n_unlabeled, max_iter=10, alpha_grid=ALPHA_GRID):
    """A cached ``(n_labeled, unlabeled_weight, alpha) -> (nb, em)`` of accuracies over ``seeds``.

    For explorers whose λ and smoothing sliders refit one labeled-set size: see
    :class:`SizeRefits` (what is shared between settings, and ``steps`` for idle time).
    ``alpha`` may name a criterion (picked from ``alpha_grid`` on each split's labeled rows).
    """
    return SizeRefits(X, y, seeds=seeds, test_rows=test_rows, n_unlabeled=n_unlabeled,
                      max_iter=max_iter, alpha_grid=alpha_grid)


class SizeRefits:
    """NB and EM refitted on the seeded splits of one labeled-set size, for any λ and α.

    ``refits(n_labeled, unlabeled_weight, alpha)`` returns ``(nb, em)``, arrays of test accuracy
    over ``seeds``: on every split exactly what :func:`split_accuracies` returns for the same
    arguments, but what does not depend on λ is computed once and shared between settings:

    * the split and its count matrices, per (size, seed) (those of the last three sizes);
    * the α chosen on the labeled rows (``alpha`` a criterion's name), per (size, seed): read
      from the cache of :func:`learning_curve` when a curve with the same data, split settings
      and grid chose it already (the same computation), else chosen here once;
    * Naive Bayes (EM's iteration 0, the same for every λ), per (size, seed, α);
    * EM, per (size, seed, λ, α): a setting is fitted once and remembered.

    :meth:`steps` does the same work in small steps (one EM iteration each), so an explorer can
    refit the settings next to the one on screen while the kernel idles; a refit asked for
    while its steps are under way continues them instead of starting over.

    Parameters
    ----------
    X : sparse matrix of shape (n_documents, n_words)
    y : ndarray of shape (n_documents,)
    seeds : sequence of int
    test_rows : array-like of int
    n_unlabeled : int
    max_iter : int, default=10
    alpha_grid : sequence of float, default=:data:`sslviz.tuning.ALPHA_GRID`
    """

    def __init__(self, X, y, *, seeds, test_rows, n_unlabeled, max_iter=10,
                 alpha_grid=ALPHA_GRID):
        self.X, self.y = X, np.asarray(y)
        self.seeds = tuple(int(seed) for seed in seeds)
        self.test_rows = np.asarray(test_rows)
        self.n_unlabeled, self.max_iter = n_unlabeled, max_iter
        self.alpha_grid = tuple(alpha_grid)
        self._test = None  # (X_test, y_test)
        self._splits = OrderedDict()  # (n_labeled, seed) -> (X_train, y_train), last used last
        self._alphas = {}  # (n_labeled, seed, criterion) -> the chosen α
        self._nb = {}  # (n_labeled, seed, α) -> accuracy
        self._em = {}  # (n_labeled, seed, λ, α) -> accuracy
        self._running = {}  # (n_labeled, seed, λ, α) -> the steps of an EM fit under way
        self._digest = None

    def __call__(self, n_labeled, unlabeled_weight, alpha):
        for _ in self.steps(n_labeled, unlabeled_weight, alpha):
            pass
        return self.cached(n_labeled, unlabeled_weight, alpha)

    def cached(self, n_labeled, unlabeled_weight, alpha):
        """``(nb, em)`` if this setting was fitted on every seed already, else ``None``."""
        nb, em = [], []
        for seed in self.seeds:
            value = (self._alphas.get((n_labeled, seed, alpha)) if isinstance(alpha, str)
                     else alpha)
            key = (n_labeled, seed, value)
            if key not in self._nb or (*key[:2], unlabeled_weight, value) not in self._em:
                return None
            nb.append(self._nb[key])
            em.append(self._em[(*key[:2], unlabeled_weight, value)])
        return np.array(nb), np.array(em)

    def steps(self, n_labeled, unlabeled_weight, alpha):
        """The work of ``self(n_labeled, unlabeled_weight, alpha)``, yielding after every small
        step (a split, a choice of α, a Naive Bayes fit, one EM iteration); nothing to do for a
        setting fitted before."""
        for seed in self.seeds:
            X_train, y_train = self._split(n_labeled, seed)
            if isinstance(alpha, str) and (n_labeled, seed, alpha) not in self._alphas:
                self._alphas[(n_labeled, seed, alpha)] = self._choose_alpha(
                    n_labeled, seed, X_train, y_train, alpha)
                yield
            value = self._alphas[(n_labeled, seed, alpha)] if isinstance(alpha, str) else alpha
            if (n_labeled, seed, value) not in self._nb:
                nb = SemiSupervisedNB(alpha=value, max_iter=0, record="summary")
                self._nb[(n_labeled, seed, value)] = self._accuracy(nb.fit(X_train, y_train))
                yield
            key = (n_labeled, seed, unlabeled_weight, value)
            if key not in self._em:
                work = self._running.get(key)
                if work is None:
                    work = self._running[key] = self._fit_em(key, X_train, y_train)
                for _ in work:  # not ``yield from``: closing this generator must not stop the fit
                    yield
                if key not in self._em:  # the fit failed where another caller ran it: rerun
                    for _ in self._fit_em(key, X_train, y_train):
                        yield

    def _fit_em(self, key, X_train, y_train):
        _, _, unlabeled_weight, alpha = key
        model = SemiSupervisedNB(alpha=alpha, unlabeled_weight=unlabeled_weight,
                                 max_iter=self.max_iter, record="summary")
        try:
            for _ in model.iter_fit(X_train, y_train):
                yield
            self._em[key] = self._accuracy(model)
        finally:
            self._running.pop(key, None)

    def _split(self, n_labeled, seed):
        if (n_labeled, seed) in self._splits:
            self._splits.move_to_end((n_labeled, seed))
            return self._splits[(n_labeled, seed)]
        split = split_labeled(self.y, n_labeled, n_unlabeled=self.n_unlabeled,
                              test_rows=self.test_rows, random_state=seed)
        data = (_float_counts(self.X[split.train]), split.semi_supervised_targets(self.y))
        self._splits[(n_labeled, seed)] = data
        while len(self._splits) > 3 * len(self.seeds):  # this size and the two next to it
            self._splits.popitem(last=False)
        return data

    def _choose_alpha(self, n_labeled, seed, X_train, y_train, alpha):
        if alpha not in ALPHA_CRITERIA:
            alpha_choice(X_train, y_train, alpha)  # raises the error that names the choices
        if self._digest is None:
            self._digest = data_digest(self.X, self.y, self.test_rows)
        em_params = {"alpha": alpha, "alpha_grid": self.alpha_grid, "max_iter": self.max_iter}
        [recorded] = run_jobs(split_result, [{"n_labeled": n_labeled, "seed": seed}],
                              kind="curves", cached_only=True, key=lambda job: _curve_key(
                                  self._digest, self.n_unlabeled, em_params, job))
        if recorded is not None:
            return float(recorded["alpha"])
        return chosen_alpha(X_train, y_train, alpha, grid=self.alpha_grid, random_state=seed)

    def _accuracy(self, model):
        if self._test is None:
            test = np.unique(self.test_rows.astype(int))  # a split's test rows
            self._test = (_float_counts(self.X[test]), self.y[test])
        X_test, y_test = self._test
        return float(np.mean(model.predict(X_test) == y_test))


def _float_counts(X):
    """``X`` as the CSR float64 matrix with sorted indices that every fit converts it to (done
    once, not in every fit)."""
    X = sp.csr_matrix(X, dtype=np.float64)
    X.sort_indices()
    return X


def _curve_key(digest, n_unlabeled, em_params, job):
    """The cache key of one (size, seed) job of :func:`learning_curve`."""
    return {"data": digest, "n_unlabeled": n_unlabeled, "em": em_params,
            "version": RESULT_VERSION, **job}


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
        Parameters of :class:`SemiSupervisedNB` (``alpha``, ``unlabeled_weight``, ``max_iter``...);
        ``alpha`` naming a criterion (e.g. ``"evidence"``, :func:`alpha_choice`) picks α on
        every split's labeled rows, from ``alpha_grid`` (default
        :data:`sslviz.tuning.ALPHA_GRID`).

    Returns
    -------
    LearningCurve
        ``alpha`` holds the smoothing used at every size and seed.
    """
    sizes, seeds = np.asarray(sizes, dtype=int), np.asarray(seeds, dtype=int)
    test_rows = np.asarray(test_rows)
    digest = data_digest(X, np.asarray(y), test_rows)
    shared = {"X": X, "y": y, "test_rows": test_rows, "n_unlabeled": n_unlabeled, **em_params}

    def key(job):
        return _curve_key(digest, n_unlabeled, em_params, job)

    jobs = [{"n_labeled": int(size), "seed": int(seed)} for size in sizes for seed in seeds]
    results = run_jobs(split_result, jobs, kind="curves", key=key, shared=shared,
                       use_cache=use_cache, n_jobs=n_jobs, progress=progress,
                       description=description)
    table = {name: np.array([r[name] for r in results]).reshape(len(sizes), len(seeds))
             for name in ("nb_accuracy", "em_accuracy", "em_iterations", "alpha")}
    return LearningCurve(sizes, seeds, table["nb_accuracy"], table["em_accuracy"],
                         table["em_iterations"].astype(int), table["alpha"])


@dataclass(frozen=True)
class EMRun:
    """One seeded EM run: the split, the fitted model, and test accuracy at every iteration."""

    split: object  # sslviz.splits.Split
    model: SemiSupervisedNB
    test_accuracy: np.ndarray  # (n_iterations,)


def em_run(X, y, *, n_labeled, seed, n_unlabeled=None, per_class=False, test_rows=None,
           alpha=1.0, alpha_grid=ALPHA_GRID, **em_params):
    """Split (seeded), fit :class:`SemiSupervisedNB` with a full trace, score every iteration.

    Test rows default to every document outside the labeled and unlabeled sets.
    ``alpha`` naming a criterion picks α on the labeled rows (:func:`chosen_alpha`); the model's
    ``alpha`` says which.
    """
    split = split_labeled(y, n_labeled, n_unlabeled=n_unlabeled, per_class=per_class,
                          test_rows=test_rows, random_state=seed)
    X_train, y_train = X[split.train], split.semi_supervised_targets(y)
    alpha = chosen_alpha(X_train, y_train, alpha, grid=alpha_grid, random_state=seed)
    model = SemiSupervisedNB(alpha=alpha, **em_params).fit(X_train, y_train)
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

