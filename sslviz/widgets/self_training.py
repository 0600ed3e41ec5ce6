"""Explorers of the bootstrapping lecture (02): a 2-D self-training stepper, and thresholds on text.

* :func:`stepper_explorer` replays a recorded self-training run on 2-D points: the rows added at
  each iteration, which of their pseudo-labels are wrong, and the decision boundary before and
  after. The iteration slider only replays the trace; a new threshold, seed or labeled-set size
  fits a new run (cached, a fraction of a second on a few hundred points).
* :func:`threshold_explorer` compares confidence thresholds on a text corpus: test accuracy and
  the error rate of the pseudo-labeled pool at every iteration, one curve per threshold. Each
  (corpus, labeled-set size, seed) is fitted once for all thresholds and remembered.
"""

from __future__ import annotations

from functools import lru_cache

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from ..export import style_context
from ..plots.em import plot_iteration_curve, update_iteration_marker
from ..plots.self_training import (
    plot_added_counts,
    plot_self_training_points,
    plot_threshold_curves,
    update_iteration_span,
    update_self_training_points,
)
from ..self_training import SelfTrainingRun2D
from .base import Explorer


def stepper_explorer(X, y, estimator, *, X_test, y_test, n_labeled=2, seed=0, threshold=0.7,
                     thresholds=(0.6, 0.65, 0.7, 0.75, 0.8), max_iter=30, resolution=100,
                     class_names=None):
    """Step through a recorded self-training run on 2-D points.

    Parameters
    ----------
    X : ndarray of shape (n_samples, 2)
        The training points; ``n_labeled`` per class get their label (seeded), the rest are
        unlabeled.
    y : ndarray of shape (n_samples,)
        Gold labels (used for the labeled rows, and to mark wrong pseudo-labels).
    estimator : classifier with ``predict_proba``
        The base classifier (e.g. a Gaussian-process classifier with a fixed RBF kernel).
    X_test, y_test : arrays
        Fresh points on which each iteration's classifier is scored.
    n_labeled : int
        Labeled points per class (slider from 1 to 5).
    thresholds : sequence of float
        Choices of the threshold slider; ``threshold`` must be one of them.
    max_iter : int
        Upper bound on the iterations of a run.

    Returns
    -------
    Explorer
        Controls ``iteration`` (replays the trace; with a Play button), ``threshold``, ``seed``
        and ``n_labeled`` (refit, cached).
    """
    X, X_test = np.asarray(X, dtype=float), np.asarray(X_test, dtype=float)

    @lru_cache(maxsize=32)
    def run_for(n_labeled, seed, threshold):
        return SelfTrainingRun2D(X, y, estimator, n_labeled=n_labeled, seed=seed,
                                 threshold=threshold, max_iter=max_iter, X_test=X_test,
                                 y_test=y_test, resolution=resolution)

    first = run_for(n_labeled, seed, threshold)
    iteration = widgets.IntSlider(0, min=0, max=first.last, description="iteration")
    play = widgets.Play(0, min=0, max=first.last, interval=1000, description="play")
    widgets.jslink((play, "value"), (iteration, "value"))
    controls = {
        "iteration": iteration,
        "threshold": widgets.SelectionSlider(options=list(thresholds), value=threshold,
                                             description="threshold", continuous_update=False),
        "seed": widgets.BoundedIntText(seed, min=0, max=999, description="seed",
                                       layout=widgets.Layout(width="150px")),
        "n_labeled": widgets.IntSlider(n_labeled, min=1, max=5, description="labeled/class",
                                       continuous_update=False),
    }
    n_classes = len(first.model.classes_)
    with style_context():
        figure = Figure(figsize=(13, 6.2), layout="constrained")
        grid = figure.add_gridspec(2, 2, width_ratios=[1.75, 1])
        points_ax = figure.add_subplot(grid[:, 0])
        counts_ax, curve_ax = figure.add_subplot(grid[0, 1]), figure.add_subplot(grid[1, 1])
        points = plot_self_training_points(points_ax, first.X, first.extent, n_classes=n_classes,
                                           class_names=class_names)
    state = {"run": None}
    side = {}

    def update(values):
        run = run_for(values["n_labeled"], values["seed"], values["threshold"])
        iteration.max = play.max = run.last
        current = min(values["iteration"], run.last)
        if state["run"] is not run:
            _draw_run_panels(counts_ax, curve_ax, run, side)
            state["run"] = run
        index, given, new, wrong = run.picture(current)
        update_self_training_points(points, index, given, new, wrong, run.grid(current),
                                    run.grid(current - 1) if current > 0 else None)
        step = run.model.trace_[current]
        report = run.report
        if current == 0:
            what = f"{step.n_labeled} given labels, supervised start"
        else:
            what = (f"iteration {current}: +{report.n_added[current]} pseudo-labels "
                    f"({report.n_wrong_added[current]} wrong); pool error "
                    f"{_percent(report.pool_error_rate[current])}")
        points_ax.set_title(f"{what}\ntest accuracy {run.test_accuracy[current]:.1%}, "
                            f"threshold {values['threshold']:g}")
        update_iteration_span(side["counts"], current)
        update_iteration_marker(side["accuracy"], current)

    return Explorer("02_bootstrapping-stepper", figure, controls, update,
                    extra_controls=[play])


def _draw_run_panels(counts_ax, curve_ax, run, side):
    report = run.report
    for ax in (counts_ax, curve_ax):
        ax.clear()
    with style_context():
        side["counts"] = plot_added_counts(counts_ax, report.n_added - report.n_wrong_added,
                                           report.n_wrong_added)
        counts_ax.set_title(f"{run.model.n_iter_} iterations, stopped: "
                            f"{run.model.termination_condition_}")
        side["accuracy"] = plot_iteration_curve(curve_ax, run.test_accuracy * 100,
                                                ylabel="test accuracy (%)", color="#0072B2",
                                                label="test accuracy")
        curve_ax.plot(np.arange(len(report.pool_error_rate)), report.pool_error_rate * 100,
                      "-s", color="#D55E00", markersize=3, label="pseudo-label pool error")
        curve_ax.set_ylim(-3, 103)
        curve_ax.set_ylabel("%")
        curve_ax.set_xlabel("iteration")
        curve_ax.legend(loc="center right", fontsize="small")


def _percent(value):
    return "–" if np.isnan(value) else f"{value:.0%}"


# -- thresholds on text ----------------------------------------------------------------------
def threshold_explorer(runs, *, sizes, thresholds, n_labeled, threshold, seed=0):
    """Accuracy and pseudo-label error per iteration, one curve per confidence threshold.

    Parameters
    ----------
    runs : dict of str -> callable (n_labeled, threshold, seed) -> SelfTrainingRun
        One entry per corpus (e.g. :func:`sslviz.self_training.self_training_runs`); the
        callable should cache its results.
    sizes : sequence of int
        Choices of the labeled-set size slider.
    thresholds : sequence of float
        The thresholds compared (all drawn; the chosen one thick).
    n_labeled, threshold, seed : start values (``threshold`` one of ``thresholds``).

    Returns
    -------
    Explorer
        Controls ``n_labeled`` (refit all thresholds, cached), ``threshold`` (highlight only; its
        values are the thresholds' labels, e.g. ``"0.99"`` or ``"1-1e-06"``), ``corpus`` and
        ``seed``.
    """
    names = list(runs)
    labels = {t: _threshold_label(t) for t in thresholds}
    by_label = {label: t for t, label in labels.items()}
    if threshold not in labels:
        raise ValueError(f"threshold={threshold!r} is not one of the thresholds {thresholds}")
    controls = {
        "n_labeled": widgets.SelectionSlider(options=list(sizes), value=n_labeled,
                                             description="labeled docs",
                                             continuous_update=False),
        # the labels are the values: captions and file names then tell 1-1e-04 from 1-1e-06
        "threshold": widgets.SelectionSlider(options=list(by_label), value=labels[threshold],
                                             description="threshold"),
        "corpus": widgets.Dropdown(options=names, description="corpus"),
        "seed": widgets.BoundedIntText(seed, min=0, max=999, description="seed",
                                       layout=widgets.Layout(width="150px")),
    }
    with style_context():
        figure = Figure(figsize=(13, 5.4), layout="constrained")
        axes = figure.subplots(1, 3)

    def update(values):
        fitted = {t: runs[values["corpus"]](values["n_labeled"], t, values["seed"])
                  for t in thresholds}  # may fail: nothing is drawn before this
        chosen = values["threshold"]
        for ax in axes:
            ax.clear()
        with style_context():
            _draw_threshold_panels(axes, fitted, labels, chosen)
        run = fitted[by_label[chosen]]
        figure.suptitle(
            f"{values['corpus']}: {values['n_labeled']} labeled, "
            f"{len(run.split.unlabeled)} unlabeled, seed {values['seed']} — threshold "
            f"{chosen}: accuracy {run.test_accuracy[0]:.1%} → {run.test_accuracy[-1]:.1%}, "
            f"pool error {_percent(run.pseudo_labels.pool_error_rate[-1])}")

    return Explorer("02_bootstrapping-thresholds", figure, controls, update)


def _draw_threshold_panels(axes, fitted, labels, chosen):
    accuracy_ax, error_ax, size_ax = axes
    curves = {labels[t]: run.test_accuracy for t, run in fitted.items()}
    plot_threshold_curves(accuracy_ax, curves, highlight=chosen, ylabel="test accuracy (%)")
    start = next(iter(fitted.values())).test_accuracy[0] * 100
    accuracy_ax.axhline(start, color="0.3", linestyle=":", linewidth=1.5,
                        label="supervised start")
    accuracy_ax.legend(title="threshold", fontsize="small", loc="best")
    accuracy_ax.set_title("accuracy of each iteration's model")
    errors = {labels[t]: run.pseudo_labels.pool_error_rate for t, run in fitted.items()}
    plot_threshold_curves(error_ax, errors, highlight=chosen,
                          ylabel="wrong pseudo-labels in the pool (%)")
    error_ax.set_ylim(0, 100)
    error_ax.set_title("error rate of the pseudo-labeled pool")
    sizes = {labels[t]: run.pseudo_labels.pool_size for t, run in fitted.items()}
    plot_threshold_curves(size_ax, sizes, highlight=chosen, ylabel="pseudo-labeled documents",
                          percent=False)
    size_ax.set_title("size of the pseudo-labeled pool")
    for ax in axes:
        ax.set_xlabel("self-training iteration")


def _threshold_label(threshold):
    """``0.999999`` -> ``"1-1e-06"``; ``0.9`` -> ``"0.9"`` (short labels for thresholds)."""
    if threshold > 0.999:
        return f"1-{1 - threshold:.0e}"
    return f"{threshold:g}"
