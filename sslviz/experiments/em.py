"""Experiments of the EM lecture (04): seeded EM runs, NB vs EM learning curves, the α criteria
side by side, choosing λ, and what the smoothing constant does.

A learning curve repeats, for every labeled-set size and every seed, one stratified split of a
vectorized corpus (:func:`sslviz.splits.split_labeled`) and fits the supervised Naive Bayes (EM's
iteration 0) and semi-supervised EM on it. Each (size, seed) is one job of
:func:`sslviz.experiments.runner.run_jobs`: cached on disk (kind ``"curves"``, keyed by the data's
digest, every parameter and :data:`RESULT_VERSION`), run in parallel, resumable. Cost:
``len(sizes) × len(seeds)`` EM fits the first time, nothing afterwards.

Smoothing is chosen, not fixed. ``alpha`` may name a criterion of
:func:`sslviz.tuning.choose_nb_alpha` (:data:`ALPHA_CRITERIA`; ``"evidence"`` is the one its
validation study supports): on every split α is chosen from a grid on the *labeled rows only*,
the grid extended by decades while the best value is an end of it, and both NB and EM's M-step
use it. EM gets no separate choice: the α that is best for the labeled documents is the one EM
starts from and keeps.
:func:`criterion_comparison` runs NB and EM at the α of every criterion on the same splits;
:func:`smoothing_sweep` fits them at every α of a grid, to show what the choice is worth and
what a bad α does (the share of test documents sent to one class). EM's λ is chosen by
leave-one-out accuracy on the labeled rows (:func:`choose_unlabeled_weight`), Nigam et al.'s
criterion as Fujino, Ueda & Saito (2005) report it.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp
from sklearn.base import clone

from ..cache import data_digest
from ..em import SemiSupervisedNB, accuracy_by_iteration
from ..em_smoothing import smoothing_mass
from ..splits import split_labeled
from ..tuning import (
    ALPHA_CRITERIA,
    ALPHA_GRID,
    LEAVE_ONE_OUT,
    _loo_class_scores,
    choose_by_cv_interior,
    choose_nb_alpha,
    held_out_log_likelihood,
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


# -- the α criteria side by side -------------------------------------------------------------
@dataclass(frozen=True)
class CriterionComparison:
    """NB and EM on the same seeded splits, α chosen on the labeled rows by each criterion.

    Attributes
    ----------
    criteria : tuple of str
        Keys of :data:`ALPHA_CRITERIA`.
    seeds : ndarray of shape (n_seeds,)
    alpha : ndarray of shape (n_criteria, n_seeds)
        The α each criterion chose on each split (NB and EM share it).
    at_bound : ndarray of bool, shape (n_criteria, n_seeds)
        The choice stopped at a bound of α's range (acknowledged, see :func:`criterion_comparison`).
    nb_accuracy, em_accuracy : ndarray of shape (n_criteria, n_seeds)
    """

    criteria: tuple
    seeds: np.ndarray
    alpha: np.ndarray
    at_bound: np.ndarray
    nb_accuracy: np.ndarray
    em_accuracy: np.ndarray

    def row(self, criterion):
        """Position of ``criterion`` in :attr:`criteria`."""
        if criterion not in self.criteria:
            raise ValueError(f"criterion {criterion!r} was not run; the comparison has "
                             f"{list(self.criteria)}")
        return self.criteria.index(criterion)


def criterion_job(X, y, seed, *, n_labeled, test_rows, n_unlabeled, criteria, alpha_grid,
                  edge_reasons, **em_params):
    """One split of :func:`criterion_comparison`: α by every criterion, NB and EM once per
    distinct α."""
    split = split_labeled(y, n_labeled, n_unlabeled=n_unlabeled, test_rows=test_rows,
                          random_state=seed)
    X_train, y_train = _float_counts(X[split.train]), split.semi_supervised_targets(y)
    X_test, y_test = _float_counts(X[split.test]), y[split.test]
    choices = [alpha_choice(X_train, y_train, criterion, grid=alpha_grid,
                            edge_reason=edge_reasons.get(criterion, STUDY_EDGE))
               for criterion in criteria]
    alphas = [float(choice.value) for choice in choices]
    fitted = {}
    for alpha in sorted(set(alphas)):
        em = SemiSupervisedNB(**{**em_params, "alpha": alpha, "record": "summary"})
        fitted[alpha] = [np.mean(guess == y_test)
                         for guess in _nb_and_em_predictions(em, X_train, y_train, X_test)]
    return {"alpha": np.array(alphas), "at_bound": np.array([c.at_bound for c in choices]),
            "nb_accuracy": np.array([fitted[a][0] for a in alphas]),
            "em_accuracy": np.array([fitted[a][1] for a in alphas])}


def criterion_comparison(X, y, *, n_labeled, seeds, test_rows, n_unlabeled, criteria,
                         alpha_grid=ALPHA_GRID, edge_reasons=None, use_cache=True, progress=True,
                         description="α criteria", n_jobs=None, **em_params):
    """NB against EM with α chosen on the labeled rows by each of ``criteria``, split by split.

    Parameters
    ----------
    criteria : sequence of str
        Keys of :data:`ALPHA_CRITERIA` (:func:`sslviz.tuning.choose_nb_alpha`).
    alpha_grid : sequence of float
        The starting grid; each criterion extends it by decades while its best is an end.
    edge_reasons : dict of str -> str, optional
        Per criterion, why a choice at a bound of α's range may be used (the lecture's reason);
        a criterion without one raises (under the test command) when it stops at a bound.
    **em_params
        Other parameters of :class:`SemiSupervisedNB` (``max_iter``, ``unlabeled_weight``).

    Returns
    -------
    CriterionComparison

    Notes
    -----
    One cached :func:`run_jobs` job per seed (kind ``"em_criteria"``); cost one NB and EM fit
    per distinct chosen α per split.
    """
    criteria = tuple(criteria)
    unknown = sorted(set(criteria) - set(ALPHA_CRITERIA))
    if unknown:
        raise ValueError(f"unknown α criteria {unknown}; choose from {sorted(ALPHA_CRITERIA)}")
    y, test_rows = np.asarray(y), np.asarray(test_rows)
    digest = data_digest(X, y, test_rows)
    settings = {"n_labeled": int(n_labeled), "n_unlabeled": int(n_unlabeled),
                "criteria": criteria, "alpha_grid": tuple(map(float, alpha_grid)), **em_params}

    def key(job):
        return {"data": digest, "version": RESULT_VERSION, **settings, **job}

    results = run_jobs(criterion_job, [{"seed": int(s)} for s in seeds], kind="em_criteria",
                       key=key, shared={"X": X, "y": y, "test_rows": test_rows,
                                        "edge_reasons": dict(edge_reasons or {}), **settings},
                       use_cache=use_cache, n_jobs=n_jobs, progress=progress,
                       description=description)
    table = {name: np.stack([r[name] for r in results], axis=1)
             for name in ("alpha", "at_bound", "nb_accuracy", "em_accuracy")}
    return CriterionComparison(criteria, np.asarray(seeds, dtype=int), table["alpha"],
                               table["at_bound"].astype(bool), table["nb_accuracy"],
                               table["em_accuracy"])


def loo_label_scores(X, y, alpha):
    """Per labeled document (``y != -1``): ``log P(y_i | x_i)`` under NB fitted without it, and
    whether that NB classifies it correctly.

    Their sum is :func:`sslviz.tuning.loo_log_likelihood` and the mean of the second
    :func:`sslviz.tuning.loo_accuracy` (exact, no refits); the constant guess 1/K scores
    ``log(1/K)`` on every document.
    """
    y = np.asarray(y)
    labeled = y != -1
    sizes = np.unique(y[labeled], return_counts=True)[1]
    if len(sizes) == 0 or sizes.min() < 2:
        raise ValueError("leave-one-out scores need at least 2 labeled documents in every "
                         "class; label more documents or use the evidence")
    scores, _, y_idx = _loo_class_scores(sp.csr_matrix(X)[labeled], y[labeled], alpha)
    own = scores[np.arange(len(y_idx)), y_idx] - logsumexp(scores, axis=1)
    return own, np.argmax(scores, axis=1) == y_idx


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


def choose_unlabeled_weight(estimator, X, y, grid, *, cv=LEAVE_ONE_OUT, random_state=None):
    """Pick λ (``unlabeled_weight``) by leave-one-out accuracy on the labeled rows.

    Nigam et al.'s criterion, as Fujino, Ueda & Saito (2005, "Experimental Settings") report it:
    every fold trains on the other labeled rows plus *all* unlabeled rows and classifies its
    held-out labeled row. Exact ties of accuracy go to the held-out log-likelihood
    (:func:`sslviz.tuning.held_out_log_likelihood`), then to the middle tied λ
    (:func:`sslviz.tuning.choose_by_cv_interior`, kind ``"unlabeled_weight"``).

    Parameters
    ----------
    estimator : SemiSupervisedNB
        Unfitted template; its other parameters are kept.
    grid : sequence of float in [0, 1]
    cv : "loo" or int, default="loo"
        An int gives stratified folds instead (lowered to the smallest class, at least 2).

    Returns
    -------
    sslviz.tuning.Choice
        ``.value`` the chosen λ, ``.scores`` every candidate's accuracy, ``.score_table()``;
        λ = 0 or 1 is a bound of the parameter (``at_bound``: acknowledge it before use).
    """
    labels = np.asarray(y)[np.asarray(y) != -1]
    smallest = np.unique(labels, return_counts=True)[1].min() if len(labels) else 0
    if smallest < 2:
        raise ValueError(f"choosing λ needs at least 2 labeled rows in every class (a held-out "
                         f"row's class must keep a labeled row); the smallest class has "
                         f"{smallest}: label more documents, or keep λ = 1")
    template = clone(estimator).set_params(record="summary")
    return choose_by_cv_interior(template, "unlabeled_weight", grid, X, y,
                                 kind="unlabeled_weight", cv=cv, scoring="accuracy",
                                 tie_break=held_out_log_likelihood, semi_supervised=True,
                                 random_state=random_state)


# -- what the smoothing constant does ---------------------------------------------------------
@dataclass(frozen=True)
class SmoothingSweep:
    """NB and EM at every α of a grid, on the same seeded splits, beside the α chosen on the
    labeled rows of each split.

    Attributes
    ----------
    alphas : ndarray of shape (n_alphas,)
    seeds : ndarray of shape (n_seeds,)
    nb_accuracy, em_accuracy : ndarray of shape (n_alphas, n_seeds)
        Test accuracy of NB (labeled rows only) and EM (labeled + unlabeled) at each α.
    nb_predicted, em_predicted : ndarray of int, shape (n_alphas, n_seeds, n_classes)
        Test documents each model assigns to every class (the collapse shows here).
    chosen : ndarray of shape (n_seeds,)
        The α :func:`alpha_choice` picks on each split's labeled rows.
    criteria : ndarray of str, shape (n_seeds,)
        How it was chosen (e.g. "evidence").
    tokens : ndarray of shape (n_seeds, n_classes)
        Word tokens of the labeled documents of every class (to set against α·|V|).
    n_words : int
        Vocabulary size |V|.
    """

    alphas: np.ndarray
    seeds: np.ndarray
    nb_accuracy: np.ndarray
    em_accuracy: np.ndarray
    nb_predicted: np.ndarray
    em_predicted: np.ndarray
    chosen: np.ndarray
    criteria: np.ndarray
    tokens: np.ndarray
    n_words: int

    def index(self, alpha):
        """Position of ``alpha`` in :attr:`alphas`."""
        matches = np.flatnonzero(np.isclose(self.alphas, alpha))
        if len(matches) == 0:
            raise ValueError(f"alpha {alpha!r} was not run; the sweep has {self.alphas.tolist()}")
        return int(matches[0])

    def majority_share(self, method="nb"):
        """Share of test documents in the most-predicted class, shape (n_alphas, n_seeds)."""
        counts = {"nb": self.nb_predicted, "em": self.em_predicted}[method]
        return counts.max(axis=2) / counts.sum(axis=2)

    def majority_share_at_chosen(self, method="nb"):
        """Share of test documents in the most-predicted class at each seed's chosen α."""
        shares = self.majority_share(method)
        return np.array([shares[self.index(alpha), j] for j, alpha in enumerate(self.chosen)])

    def at_chosen(self):
        """(NB, EM) test accuracy of every seed at the α chosen on its labeled rows."""
        rows = [self.index(alpha) for alpha in self.chosen]
        columns = np.arange(len(self.seeds))
        return self.nb_accuracy[rows, columns], self.em_accuracy[rows, columns]

    def best_on_test(self, method="nb"):
        """The α with the best *mean test* accuracy: a diagnostic of the choice, never a way to
        make it."""
        accuracy = {"nb": self.nb_accuracy, "em": self.em_accuracy}[method]
        return float(self.alphas[int(np.argmax(accuracy.mean(axis=1)))])


def smoothing_job(X, y, seed, *, n_labeled, per_class, test_rows, n_unlabeled, alphas,
                  alpha_grid, alpha_criterion="evidence", **em_params):
    """One split of :func:`smoothing_sweep`: the chosen α, then NB and EM at every α."""
    split = split_labeled(y, n_labeled, n_unlabeled=n_unlabeled, per_class=per_class,
                          test_rows=None if test_rows is None else np.asarray(test_rows),
                          random_state=seed)
    test = split.test if len(split.test) else np.setdiff1d(np.arange(len(y)), split.train)
    X_train, y_train = _float_counts(X[split.train]), split.semi_supervised_targets(y)
    X_test = _float_counts(X[test])
    choice = alpha_choice(X_train, y_train, alpha_criterion, grid=alpha_grid, random_state=seed)
    classes = np.unique(y)
    tokens = smoothing_mass(X_train, y_train, choice.value).tokens  # every class is labeled
    predicted = np.zeros((2, len(alphas), len(classes)), dtype=np.int64)
    accuracy = np.zeros((2, len(alphas)))
    for i, alpha in enumerate(alphas):
        em = SemiSupervisedNB(**{**em_params, "alpha": alpha, "record": "summary"})
        for m, guess in enumerate(_nb_and_em_predictions(em, X_train, y_train, X_test)):
            accuracy[m, i] = np.mean(guess == y[test])
            predicted[m, i] = np.bincount(np.searchsorted(classes, guess),
                                          minlength=len(classes))
    return {"accuracy": accuracy, "predicted": predicted, "chosen": np.float64(choice.value),
            "criterion": np.str_(choice.criterion), "tokens": tokens.astype(float)}


def smoothing_sweep(X, y, *, n_labeled, seeds, n_unlabeled, test_rows=None, per_class=False,
                    alphas=ALPHA_GRID, alpha_grid=None, alpha_criterion="evidence",
                    use_cache=True, progress=True, description="smoothing", n_jobs=None,
                    **em_params):
    """NB and EM test accuracy at every α of ``alphas``, and the α chosen on the labeled rows.

    Parameters
    ----------
    X : sparse matrix of shape (n_documents, n_words)
    y : ndarray of int, shape (n_documents,)
    n_labeled : int
        Labeled documents (per class with ``per_class=True``).
    seeds : sequence of int
        One split per seed (:func:`sslviz.splits.split_labeled`).
    n_unlabeled : int
    test_rows : array-like of int or None
        Fixed test documents; ``None`` = every document outside the split.
    alphas : sequence of float
        The α at which NB and EM are fitted.
    alpha_grid : sequence of float or None
        The grid α is chosen from (default: ``alphas``).
    alpha_criterion : str, default="evidence"
        How α is chosen on each split's labeled rows (:func:`alpha_choice`).
    **em_params
        Other parameters of :class:`SemiSupervisedNB` (``max_iter``, ``unlabeled_weight``).

    Returns
    -------
    SmoothingSweep

    Notes
    -----
    One cached :func:`run_jobs` job per seed (kind ``"smoothing"``); cost
    ``2 × len(alphas) × len(seeds)`` fits the first time.
    """
    alphas = tuple(check_number("alpha", a, above=0) for a in alphas)
    alpha_grid = alphas if alpha_grid is None else tuple(map(float, alpha_grid))
    seeds = np.asarray(seeds, dtype=int)
    y = np.asarray(y)
    test = None if test_rows is None else np.asarray(test_rows, dtype=int)
    digest = data_digest(X, y, np.array([]) if test is None else test)
    shared = {"X": X, "y": y, "n_labeled": n_labeled, "per_class": per_class, "test_rows": test,
              "n_unlabeled": n_unlabeled, "alphas": alphas, "alpha_grid": alpha_grid,
              "alpha_criterion": alpha_criterion, **em_params}

    def key(job):
        return {"data": digest, "version": RESULT_VERSION, "n_labeled": n_labeled,
                "per_class": per_class, "n_unlabeled": n_unlabeled, "alphas": list(alphas),
                "grid": list(alpha_grid), "criterion": alpha_criterion, "em": em_params, **job}

    results = run_jobs(smoothing_job, [{"seed": int(s)} for s in seeds], kind="smoothing",
                       key=key, shared=shared, use_cache=use_cache, n_jobs=n_jobs,
                       progress=progress, description=description)
    accuracy = np.stack([r["accuracy"] for r in results], axis=-1)  # (2, n_alphas, n_seeds)
    predicted = np.stack([r["predicted"] for r in results], axis=2)  # (2, n_alphas, n_seeds, C)
    return SmoothingSweep(np.array(alphas), seeds, accuracy[0], accuracy[1], predicted[0],
                          predicted[1], np.array([float(r["chosen"]) for r in results]),
                          np.array([str(r["criterion"]) for r in results]),
                          np.stack([r["tokens"] for r in results]), int(X.shape[1]))


# -- EM-λ: which weight of the unlabeled documents, chosen on the labeled ones -----------------
@dataclass(frozen=True)
class UnlabeledWeightStudy:
    """λ chosen by leave-one-out accuracy on each split's labeled rows, beside every λ's test
    accuracy, with α chosen on the labeled rows (the evidence) and with α = 1.

    Attributes
    ----------
    weights : ndarray of shape (n_weights,)
        The λ grid (from 0 to 1).
    seeds : ndarray of shape (n_seeds,)
    alphas : ndarray of shape (n_seeds, 2)
        The α of each fit: chosen on the labeled rows, then 1.
    test_accuracy : ndarray of shape (n_seeds, 2, n_weights)
    cv_scores : ndarray of shape (n_seeds, 2, n_weights)
        The leave-one-out accuracy of every λ.
    chosen : ndarray of shape (n_seeds, 2)
        The λ chosen (ties broken by the held-out log-likelihood).
    criterion : str
    """

    weights: np.ndarray
    seeds: np.ndarray
    alphas: np.ndarray
    test_accuracy: np.ndarray
    cv_scores: np.ndarray
    chosen: np.ndarray
    criterion: str

    def choice(self, seed_index, alpha_index):
        """The :class:`sslviz.tuning.Choice` of λ made on split ``seed_index`` with α number
        ``alpha_index`` (0: chosen, 1: α = 1); at 0 or 1 it is at the bound of λ."""
        from ..tuning import PARAMETER_KINDS, Choice

        value = float(self.chosen[seed_index, alpha_index])
        candidates = [{"unlabeled_weight": float(w)} for w in self.weights]
        at_bound = value in (self.weights[0], self.weights[-1])
        message = (f"unlabeled_weight = {value:g} is at the "
                   f"{'upper' if value == self.weights[-1] else 'lower'} bound of its grid "
                   f"({PARAMETER_KINDS['unlabeled_weight'].bounds_reason})" if at_bound else "")
        return Choice({"unlabeled_weight": value}, candidates,
                      self.cv_scores[seed_index, alpha_index], self.criterion,
                      at_bound=at_bound, edge_message=message)


def unlabeled_weight_job(X, y, *, seed, n_labeled, n_unlabeled, weights, max_iter):
    """One split of :func:`unlabeled_weight_study` (a :func:`run_jobs` job)."""
    split = split_labeled(y, n_labeled, per_class=True, n_unlabeled=n_unlabeled,
                          random_state=seed)
    X_train, y_train = _float_counts(X[split.train]), split.semi_supervised_targets(y)
    test = np.setdiff1d(np.arange(len(y)), split.train)
    X_test = _float_counts(X[test])
    alphas = (chosen_alpha(X_train, y_train, "evidence", edge_reason=STUDY_EDGE), 1.0)
    accuracy, scores, chosen = [], [], []
    for alpha in alphas:
        template = SemiSupervisedNB(alpha=alpha, max_iter=max_iter)
        choice = choose_unlabeled_weight(template, X_train, y_train, weights, random_state=seed)
        scores.append(choice.scores)
        chosen.append(choice.params["unlabeled_weight"])  # the study reports where it lies
        accuracy.append([np.mean(clone(template).set_params(unlabeled_weight=w)
                                 .fit(X_train, y_train).predict(X_test) == y[test])
                         for w in weights])
    return {"alphas": np.array(alphas), "test_accuracy": np.array(accuracy),
            "cv_scores": np.array(scores), "chosen": np.array(chosen),
            "criterion": np.str_(choice.criterion)}


def unlabeled_weight_study(X, y, *, seeds, n_labeled, n_unlabeled, weights, max_iter=10,
                           use_cache=True, progress=True, n_jobs=None):
    """λ chosen on the labeled rows (leave-one-out accuracy, :func:`choose_unlabeled_weight`)
    against every λ's test accuracy, on one split per seed (``n_labeled`` per class), with α
    chosen by the evidence and with α = 1.

    ``weights`` must run from 0 to 1 (the bounds of λ), so that no choice extends the grid.
    One cached :func:`run_jobs` job per seed (kind ``"em_lambda"``).

    Returns
    -------
    UnlabeledWeightStudy
    """
    weights = tuple(sorted(check_number("unlabeled_weight", w, minimum=0, maximum=1)
                           for w in weights))
    if len(weights) < 3 or weights[0] != 0 or weights[-1] != 1:
        raise ValueError(f"weights must hold 0, 1 and at least one λ between them (λ's whole "
                         f"range, so that no choice extends the grid), got {list(weights)}")
    y = np.asarray(y)
    digest = data_digest(X, y)
    settings = {"n_labeled": int(n_labeled), "n_unlabeled": int(n_unlabeled),
                "weights": weights, "max_iter": int(max_iter)}

    def key(job):
        return {"data": digest, "version": RESULT_VERSION, **settings, **job}

    results = run_jobs(unlabeled_weight_job, [{"seed": int(s)} for s in seeds], kind="em_lambda",
                       key=key, shared={"X": X, "y": y, **settings}, use_cache=use_cache,
                       n_jobs=n_jobs, progress=progress, description="λ on labeled rows")
    return UnlabeledWeightStudy(np.array(weights), np.asarray(seeds, dtype=int),
                                *(np.stack([r[name] for r in results])
                                  for name in ("alphas", "test_accuracy", "cv_scores", "chosen")),
                                str(results[0]["criterion"]))
