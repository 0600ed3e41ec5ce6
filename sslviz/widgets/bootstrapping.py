"""Explorers of the bootstrapping lecture (02): a 2-D self-training stepper, and thresholds on text.

* :func:`stepper_explorer` replays a recorded self-training run on 2-D points: the rows added at
  each iteration, which of their pseudo-labels are wrong, and the decision boundary before and
  after. The iteration slider only replays the trace; a new threshold, seed or labeled-set size
  fits a new run (cached, a fraction of a second on a few hundred points).
* :func:`threshold_explorer` compares confidence thresholds on a text corpus: test accuracy and
  the error rate of the pseudo-labeled pool at every iteration, one curve per threshold. Each
  (corpus, labeled-set size, seed) is fitted once for all thresholds and remembered; the settings
  next to the one on screen are fitted while the kernel idles.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from ..experiments.bootstrapping import runs_2d
from ..export import style_context
from ..lectures import explorer_prefix
from ..plots.bootstrapping import (
    plot_added_counts,
    plot_run_curves,
    plot_self_training_points,
    plot_threshold_panels,
    update_iteration_span,
    update_self_training_points,
)
from ..plots.common import update_iteration_marker
from .base import Explorer, PerSetting, iteration_control, new_figure, seed_control

LECTURE = explorer_prefix(__name__)  # its explorers' names (and exported files) begin so


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
    n_labeled : int, default=2
        Labeled points per class (slider from 1 to 5).
    thresholds : sequence of float
        Choices of the threshold slider; ``threshold`` must be one of them.
    max_iter : int, default=30
        Upper bound on the iterations of a run.

    Returns
    -------
    Explorer
        Controls ``iteration`` (replays the trace; with a Play button), ``threshold``, ``seed``
        and ``n_labeled`` (refit, cached).
    """
    run_for = runs_2d(X, y, estimator, X_test=X_test, y_test=y_test, max_iter=max_iter,
                      resolution=resolution)
    first = run_for(n_labeled, seed, threshold)
    iteration, play = iteration_control(first.last, interval=1000)
    controls = {
        "iteration": iteration,
        "threshold": widgets.SelectionSlider(options=list(thresholds), value=threshold,
                                             description="threshold", continuous_update=False),
        "seed": seed_control(seed),
        "n_labeled": widgets.IntSlider(n_labeled, min=1, max=5, description="labeled/class",
                                       continuous_update=False),
    }
    with new_figure((13, 6.2)) as figure:
        grid = figure.add_gridspec(2, 2, width_ratios=[1.75, 1])
        points_ax = figure.add_subplot(grid[:, 0])
        side_axes = (figure.add_subplot(grid[0, 1]), figure.add_subplot(grid[1, 1]))
        points = plot_self_training_points(points_ax, first.X, first.extent,
                                           n_classes=len(first.model.classes_),
                                           class_names=class_names)
    def run_of(values):
        return run_for(values["n_labeled"], values["seed"], values["threshold"])

    def side_panels(values):  # a new run: its counts and curves
        return _draw_run_panels(side_axes, run_of(values))

    def update(values, drawn):
        run, current = run_of(values), values["iteration"]
        update_self_training_points(points, run.picture(current), run.grid(current),
                                    run.grid(current - 1) if current > 0 else None)
        points_ax.set_title(_stepper_title(run, current, values["threshold"]))
        update_iteration_span(drawn["side"]["counts"], current)
        update_iteration_marker(drawn["side"]["accuracy"], current)

    return Explorer(f"{LECTURE}-stepper", figure, controls, update, extra_controls=[play],
                    ranges={"iteration": lambda values: (0, run_of(values).last)},
                    setup={"side": PerSetting(("threshold", "seed", "n_labeled"), side_panels)})


def _draw_run_panels(axes, run):
    """Redraw the side panels for a new run: pseudo-labels added, and the curves."""
    counts_ax, curve_ax = axes
    report = run.report
    for ax in axes:
        ax.clear()
    with style_context():
        counts = plot_added_counts(counts_ax, report.n_added - report.n_wrong_added,
                                   report.n_wrong_added)
        counts_ax.set_title(f"{run.model.n_iter_} iterations, stopped: "
                            f"{run.model.termination_condition_}")
        accuracy = plot_run_curves(curve_ax, run.test_accuracy, report.pool_error_rate)
    return {"counts": counts, "accuracy": accuracy}


def _stepper_title(run, iteration, threshold):
    report = run.report
    if iteration == 0:
        what = f"{run.model.trace_[0].n_labeled} given labels, supervised start"
    else:
        what = (f"iteration {iteration}: +{report.n_added[iteration]} pseudo-labels "
                f"({report.n_wrong_added[iteration]} wrong); pool error "
                f"{_percent(report.pool_error_rate[iteration])}")
    return (f"{what}\ntest accuracy {run.test_accuracy[iteration]:.1%}, "
            f"threshold {threshold:g}")


def _percent(value):
    return "–" if np.isnan(value) else f"{value:.0%}"


# -- thresholds on text ----------------------------------------------------------------------
def threshold_explorer(runs, *, sizes, thresholds, n_labeled, threshold, seed=0):
    """Accuracy and pseudo-label error per iteration, one curve per confidence threshold.

    Parameters
    ----------
    runs : dict of str -> callable (n_labeled, threshold, seed) -> SelfTrainingRun
        One entry per corpus (e.g. :func:`sslviz.experiments.bootstrapping.self_training_runs`);
        the callable should cache its results.
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
        ``seed``. While the kernel idles, the runs one step away along ``n_labeled``, ``seed``
        and ``corpus`` are fitted (the way the last change went first).
    """
    labels = {t: _threshold_label(t) for t in thresholds}
    if threshold not in labels:
        raise ValueError(f"threshold={threshold!r} is not one of the thresholds {thresholds}")
    controls = {
        "n_labeled": widgets.SelectionSlider(options=list(sizes), value=n_labeled,
                                             description="labeled docs",
                                             continuous_update=False),
        # the labels are the values: captions and file names then tell 1-1e-04 from 1-1e-06
        "threshold": widgets.SelectionSlider(options=list(labels.values()),
                                             value=labels[threshold], description="threshold"),
        "corpus": widgets.Dropdown(options=list(runs), description="corpus"),
        "seed": seed_control(seed),
    }
    with new_figure((13, 5.4)) as figure:
        axes = figure.subplots(1, 3)
    def prepare(values):  # one step per threshold
        for t in thresholds:
            runs[values["corpus"]](values["n_labeled"], t, values["seed"])
            yield

    def update(values):
        fitted = {labels[t]: runs[values["corpus"]](values["n_labeled"], t, values["seed"])
                  for t in thresholds}  # may fail: nothing is drawn before this
        for ax in axes:
            ax.clear()
        with style_context():
            plot_threshold_panels(
                axes, {label: run.test_accuracy for label, run in fitted.items()},
                {label: run.pseudo_labels.pool_error_rate for label, run in fitted.items()},
                {label: run.pseudo_labels.pool_size for label, run in fitted.items()},
                highlight=values["threshold"])
        figure.suptitle(_threshold_title(values, fitted[values["threshold"]]))

    return Explorer(f"{LECTURE}-thresholds", figure, controls, update, prepare=prepare)


def _threshold_title(values, run):
    return (f"{values['corpus']}: {values['n_labeled']} labeled, "
            f"{len(run.split.unlabeled)} unlabeled, seed {values['seed']} — threshold "
            f"{values['threshold']}: accuracy {run.test_accuracy[0]:.1%} → "
            f"{run.test_accuracy[-1]:.1%}, pool error "
            f"{_percent(run.pseudo_labels.pool_error_rate[-1])}")


def _threshold_label(threshold):
    """``0.999999`` -> ``"1-1e-06"``; ``0.9`` -> ``"0.9"`` (short labels for thresholds)."""
    if threshold > 0.999:
        return f"1-{1 - threshold:.0e}"
    return f"{threshold:g}"
