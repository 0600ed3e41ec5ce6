"""Plots of the EM lecture (04): one run's curves, NB vs EM (the word table is in plots.common).

The curves and the "bar plus a dot per seed" panel come from :mod:`sslviz.plots.common`; this
module arranges them as the lecture shows them.
"""

from __future__ import annotations

import numpy as np

from .common import (
    EM_COLOR,
    NB_COLOR,
    SEMI_SUPERVISED,
    plot_iteration_curve,
    plot_learning_curve,
    plot_seed_bars,
    update_iteration_marker,
)


def plot_run_curves(objective_ax, accuracy_ax, objective, test_accuracy, *, n_labeled,
                    n_unlabeled):
    """Clear both axes and draw one EM run: its objective and its test accuracy per iteration.

    Parameters
    ----------
    objective : array of shape (n_iterations,)
        The log posterior L(θ) EM climbs.
    test_accuracy : array of shape (n_iterations,)
        In [0, 1]; drawn in percent.
    n_labeled, n_unlabeled : int
        Sizes of the run's split (for the accuracy panel's title).

    Returns
    -------
    dict with ``"objective"`` and ``"accuracy"`` (artists of :func:`plot_iteration_curve`)
    """
    for ax in (objective_ax, accuracy_ax):
        ax.clear()
    curves = {
        "objective": plot_iteration_curve(objective_ax, objective, ylabel="log posterior L(θ)"),
        "accuracy": plot_iteration_curve(accuracy_ax, np.asarray(test_accuracy) * 100,
                                         ylabel="test accuracy (%)", color=SEMI_SUPERVISED),
    }
    objective_ax.set_title("what EM climbs")
    accuracy_ax.set_title(f"{n_labeled} labeled, {n_unlabeled} unlabeled")
    return curves


def update_run_markers(curves, iteration):
    """Move the markers of :func:`plot_run_curves` to ``iteration``."""
    for artists in curves.values():
        update_iteration_marker(artists, iteration)
    return curves


def plot_nb_em_curves(ax, curves):
    """NB and EM learning curves of several feature sets, one line style per set.

    Parameters
    ----------
    curves : dict of str -> LearningCurve
        At most three feature sets (solid, dashed, dotted).

    Returns
    -------
    dict of (method, feature set name) -> artists of :func:`plot_learning_curve`
    """
    artists = {}
    for name, linestyle in zip(curves, ["-", "--", ":"], strict=False):
        for method, accuracy, color in (("NB", curves[name].nb_accuracy, NB_COLOR),
                                        ("EM", curves[name].em_accuracy, EM_COLOR)):
            artists[method, name] = plot_learning_curve(
                ax, curves[name].sizes, accuracy, label=f"{method}, {name}", color=color,
                linestyle=linestyle)
    ax.legend(loc="upper left")
    ax.set_title("supervised NB vs EM with unlabeled documents (spread over seeds)")
    return artists


def plot_nb_em_bars(ax, nb, em, *, title):
    """NB and EM accuracies over seeds at one setting: a bar at each mean, a dot per seed."""
    return plot_seed_bars(ax, [("NB (labeled only)", nb, NB_COLOR),
                               ("EM (+ unlabeled)", em, EM_COLOR)], title=title)
