"""Seeded self-training runs of the bootstrapping lecture (02): on a text corpus, and on 2-D points.

A run draws a seeded labeled / unlabeled split (:func:`sslviz.splits.split_labeled`), self-trains
with a full trace (:class:`sslviz.self_training.SelfTraining`) and scores every iteration's
classifier on test rows; the explorers ask for runs through small in-memory caches
(:func:`self_training_runs`, :func:`runs_2d`), so each setting is fitted once. Cost: one
self-training fit per run, plus (2-D runs) one ``predict_proba`` on a grid per iteration shown.
:func:`seed_threshold_table` runs the 2-D loop over seeds x thresholds (cached on disk), so that
a lecture shows how typical the run it steps through is.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from sklearn.base import clone

from ..cache import data_digest
from ..grids import decision_grid, grid_extent
from ..self_training import (
    PseudoLabelReport,
    SelfTraining,
    accuracy_by_iteration,
    labels_at_iteration,
    pseudo_label_correctness,
)
from ..splits import split_labeled
from ..threads import one_thread
from ..tuning import choose_nb_alpha
from .runner import axis_index, run_grid

RESULT_VERSION = 1  # bump for a change sslviz.code_digest cannot see (a dependency's)


# -- seeded runs on a corpus ---------------------------------------------------------------------
@dataclass(frozen=True)
class SelfTrainingRun:
    """One seeded self-training run: split, fitted model, and per-iteration scores."""

    split: object  # sslviz.splits.Split
    model: SelfTraining
    test_accuracy: np.ndarray  # (n_iterations,) accuracy of each iteration's classifier
    pseudo_labels: PseudoLabelReport
    alpha: object = None  # sslviz.tuning.Choice of the NB smoothing (``tune_alpha``), or None


def self_training_run(X, y, estimator, *, n_labeled, seed, n_unlabeled=None, per_class=False,
                      test_rows=None, tune_alpha=False, alpha_choice=None, **params):
    """Split (seeded), self-train with a full trace, score every iteration on the test rows.

    ``params`` go to :class:`SelfTraining` (``threshold``, ``criterion``, ``k_best``,
    ``max_iter``). Test rows default to every row outside the labeled and unlabeled sets.
    With ``tune_alpha`` the estimator's ``alpha`` (multinomial NB's smoothing) is chosen on the
    split's labeled rows by :func:`sslviz.tuning.choose_nb_alpha` (the Dirichlet evidence); the
    supervised start (iteration 0) and every retrained model use it, so both sides of the
    comparison get the same tuning. ``alpha_choice`` is a callable ``(X_train, y_semi) ->
    Choice`` making that choice instead (e.g. :func:`self_training_runs` remembers it for runs
    that differ only in their threshold); it must choose as ``tune_alpha`` would.
    """
    y = np.asarray(y)
    split = split_labeled(y, n_labeled, n_unlabeled=n_unlabeled, per_class=per_class,
                          test_rows=test_rows, random_state=seed)
    test = split.test if len(split.test) else np.setdiff1d(np.arange(len(y)), split.train)
    if len(test) == 0:
        raise ValueError("no rows are left to test on: pass test_rows, or n_unlabeled smaller "
                         "than the rows left after the labeled ones")
    X_train, y_semi = X[split.train], split.semi_supervised_targets(y)
    alpha = None
    if tune_alpha:
        alpha = (choose_nb_alpha(X_train, y_semi) if alpha_choice is None
                 else alpha_choice(X_train, y_semi))
        estimator = clone(estimator).set_params(alpha=alpha.value)
    model = SelfTraining(estimator, record="full", **params).fit(X_train, y_semi)
    return SelfTrainingRun(split, model, accuracy_by_iteration(model, X[test], y[test]),
                           pseudo_label_correctness(model, y[split.train]), alpha)


def wrong_pseudo_labels_by_class(run, y):
    """How the wrong pseudo-labels of a :class:`SelfTrainingRun` are spread over the classes.

    Returns
    -------
    ndarray of shape (n_classes,)
        Row ``i``: the share of all wrong pseudo-labels that say ``run.model.classes_[i]``
        (sums to 1; all zeros when no pseudo-label is wrong).
    """
    model = run.model
    truth = np.asarray(y)[run.split.train]
    wrong = (model.labeled_iter_ > 0) & (model.transduction_ != truth)
    counts = np.array([np.sum(model.transduction_[wrong] == c) for c in model.classes_])
    return counts / max(counts.sum(), 1)


def self_training_runs(X, y, estimator, **fixed):
    """A cached ``(n_labeled, threshold, seed) -> SelfTrainingRun`` with the other settings fixed.

    For explorers whose sliders refit: each setting is fitted once and remembered. With
    ``tune_alpha=True`` the α chosen on a split's labeled rows does not depend on the threshold:
    it is chosen once per (n_labeled, seed) and shared by the runs of every threshold.
    """
    chosen = {}

    def alpha_choice(n_labeled, seed):
        def choose(X_train, y_semi):
            if (n_labeled, seed) not in chosen:
                chosen[(n_labeled, seed)] = choose_nb_alpha(X_train, y_semi)
            return chosen[(n_labeled, seed)]
        return choose

    @lru_cache(maxsize=128)
    def run(n_labeled, threshold, seed):
        return self_training_run(X, y, estimator, n_labeled=n_labeled, seed=seed,
                                 threshold=threshold, alpha_choice=alpha_choice(n_labeled, seed),
                                 **fixed)

    return run


# -- a recorded 2-D run (what the lecture's stepper replays) --------------------------------------
@dataclass(frozen=True)
class IterationPicture:
    """What the 2-D scatter shows at one iteration (arrays of shape (n_train,)).

    Attributes
    ----------
    class_index : ndarray of int
        Position in ``classes_`` of each row's given or pseudo-label, -1 while unlabeled.
    given, new, wrong : bool ndarrays
        Rows with a given label; rows added at this iteration; rows whose pseudo-label is wrong.
    """

    class_index: np.ndarray
    given: np.ndarray
    new: np.ndarray
    wrong: np.ndarray


def iteration_picture(model, y_true, iteration):
    """The labels and masks of :class:`IterationPicture` for a fitted ``SelfTraining`` model.

    ``y_true`` holds the gold label of every row the model was fitted on.
    """
    labels = labels_at_iteration(model, iteration)
    known = (model.labeled_iter_ >= 0) & (model.labeled_iter_ <= iteration)
    class_index = np.full(len(labels), -1)
    class_index[known] = np.searchsorted(model.classes_, labels[known])
    given = model.labeled_iter_ == 0
    new = (model.labeled_iter_ == iteration) & (iteration > 0)
    wrong = known & ~given & (labels != np.asarray(y_true))
    return IterationPicture(class_index, given, new, wrong)


class SelfTrainingRun2D:
    """One recorded self-training run on 2-D points: split, model, pseudo-label report, accuracy.

    ``grid(iteration)`` and ``picture(iteration)`` are what a figure of that iteration shows;
    both only read the trace (grids are computed once per iteration).

    Fits and grids run with one BLAS thread: their matrices are a few hundred rows (a Gaussian
    process's Cholesky factor), where a second thread on a busy 2-core machine only waits (a
    refit took 1-4 s instead of 0.15 s). Pseudo-labels and accuracies are those of a direct fit;
    probabilities agree to about 1e-11 (BLAS adds in another order).
    """

    def __init__(self, X, y, estimator, *, n_labeled, seed, threshold, max_iter, X_test,
                 y_test, resolution):
        self.split = split_labeled(y, n_labeled, per_class=True, random_state=seed)
        self.X = X[self.split.train]
        self.y = np.asarray(y)[self.split.train]
        self.model = SelfTraining(estimator, threshold=threshold, max_iter=max_iter)
        with one_thread():
            self.model.fit(self.X, self.split.semi_supervised_targets(y))
            self.test_accuracy = accuracy_by_iteration(self.model, X_test, y_test)
        self.report = pseudo_label_correctness(self.model, self.y)
        self.resolution = resolution
        self.extent = grid_extent(np.vstack([X, X_test]))
        self._grids = {}

    @property
    def last(self):
        """The last recorded iteration."""
        return len(self.model.trace_) - 1

    def grid(self, iteration):
        """The :class:`sslviz.grids.Grid` of the classifier of ``iteration``, computed once."""
        if iteration not in self._grids:
            with one_thread():
                self._grids[iteration] = decision_grid(self.model.trace_[iteration].estimator,
                                                       self.extent, resolution=self.resolution)
        return self._grids[iteration]

    def picture(self, iteration):
        """The :class:`IterationPicture` of ``iteration``."""
        return iteration_picture(self.model, self.y, iteration)


def runs_2d(X, y, estimator, *, X_test, y_test, max_iter, resolution):
    """A cached ``(n_labeled, seed, threshold) -> SelfTrainingRun2D`` with the rest fixed."""
    X, X_test = np.asarray(X, dtype=float), np.asarray(X_test, dtype=float)

    @lru_cache(maxsize=32)
    def run(n_labeled, seed, threshold):
        return SelfTrainingRun2D(X, y, estimator, n_labeled=n_labeled, seed=seed,
                                 threshold=threshold, max_iter=max_iter, X_test=X_test,
                                 y_test=y_test, resolution=resolution)

    return run


# -- how typical one 2-D run is: every seed at every threshold -----------------------------------
@dataclass(frozen=True)
class SeedThresholdTable:
    """Self-training on 2-D points for every (threshold, seed): where each run starts and ends.

    Arrays indexed ``[threshold, seed]`` unless said otherwise; accuracies on the test points.
    """

    thresholds: np.ndarray  # (n_thresholds,)
    seeds: np.ndarray  # (n_seeds,)
    start: np.ndarray  # (n_seeds,) the supervised start (iteration 0; the same at every threshold)
    end: np.ndarray  # accuracy of the last model
    n_first: np.ndarray  # pseudo-labels added at iteration 1
    n_pseudo: np.ndarray  # pseudo-labels at the end
    n_wrong: np.ndarray  # wrong ones among them

    @property
    def gain(self):
        """``end - start``, shape (n_thresholds, n_seeds)."""
        return self.end - self.start[None, :]

    def row(self, threshold):
        """Index of ``threshold`` in :attr:`thresholds` (:class:`~.runner.NotRun` if it was not
        run)."""
        return axis_index("threshold", self.thresholds, threshold)


def seed_threshold_table(X, y, estimator, *, X_test, y_test, seeds, thresholds, n_labeled=2,
                         max_iter=30, use_cache=True, n_jobs=None):
    """Self-train ``estimator`` from ``n_labeled`` points per class for every seed and threshold.

    Each seed draws the labeled points (:func:`sslviz.splits.split_labeled`, ``per_class``) from
    ``X, y`` as the stepper does; every run is cached on disk (:func:`runner.run_grid`).

    Returns
    -------
    SeedThresholdTable
    """
    seeds = np.asarray(list(seeds), dtype=int)
    thresholds = np.asarray(thresholds, dtype=float)
    if len(seeds) == 0 or len(thresholds) == 0:
        raise ValueError("seed_threshold_table needs at least one seed and one threshold")
    digest = data_digest(np.asarray(X, dtype=float), np.asarray(y), np.asarray(X_test, dtype=float),
                         np.asarray(y_test))
    fixed = {"n_labeled": int(n_labeled), "max_iter": int(max_iter), "estimator": repr(estimator)}
    grid = run_grid(_table_cell, {"threshold": thresholds, "seed": seeds}, kind="bootstrapping_2d",
                    shared={"X": X, "y": y, "X_test": X_test, "y_test": y_test,
                            "estimator": estimator, "n_labeled": n_labeled, "max_iter": max_iter},
                    key=lambda job: {**job, **fixed, "data": digest, "version": RESULT_VERSION},
                    use_cache=use_cache, n_jobs=n_jobs, progress=False)
    return SeedThresholdTable(thresholds, seeds, grid["start"][0].astype(float),
                              grid["end"].astype(float),
                              *(grid[n].astype(int) for n in ("n_first", "n_pseudo", "n_wrong")))


def _table_cell(X, y, X_test, y_test, estimator, n_labeled, max_iter, threshold, seed):
    split = split_labeled(y, n_labeled, per_class=True, random_state=seed)
    with one_thread():
        model = SelfTraining(estimator, threshold=threshold, max_iter=max_iter)
        model.fit(X[split.train], split.semi_supervised_targets(y))
        accuracy = accuracy_by_iteration(model, X_test, y_test)
    report = pseudo_label_correctness(model, np.asarray(y)[split.train])
    return {"start": accuracy[0], "end": accuracy[-1],
            "n_first": report.n_added[1] if len(report.n_added) > 1 else 0,
            "n_pseudo": report.pool_size[-1], "n_wrong": np.sum(report.n_wrong_added)}
