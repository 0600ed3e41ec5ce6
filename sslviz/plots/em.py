"""Plots of the EM lecture (04): one run's curves, NB vs EM (the word table is in plots.common),
and what the smoothing constant α does (pseudo-tokens against real ones, the collapse into one
class, accuracy against α).

The curves and the "bar plus a dot per seed" panel come from :mod:`sslviz.plots.common`; this
module arranges them as the lecture shows them.
"""

from __future__ import annotations

import numpy as np

from .common import (
    EM_COLOR,
    GREY,
    NB_COLOR,
    SEMI_SUPERVISED,
    WRONG,
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


def plot_smoothing_mass(ax, tokens, pseudo_tokens, class_names):
    """Clear ``ax``; one bar per class of labeled tokens N(c), a line at α·|V| pseudo-tokens.

    Parameters
    ----------
    tokens : array of shape (n_classes,)
    pseudo_tokens : float
        α·|V|, the same for every class.
    class_names : sequence of str

    Returns
    -------
    dict with ``"bars"`` and ``"line"``
    """
    ax.clear()
    positions = np.arange(len(tokens))
    bars = ax.barh(positions, tokens, color=NB_COLOR, alpha=0.6, label="real tokens N(c)")
    line = ax.axvline(pseudo_tokens, color=WRONG, linewidth=2.5,
                      label=f"α·|V| = {pseudo_tokens:,.0f} pseudo-tokens")
    ax.set_yticks(positions, list(class_names), fontsize=11 if len(tokens) > 8 else 12)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("tokens in the labeled documents of the class")
    ax.legend(loc="lower right", fontsize=9)
    ax.set_title("smoothing mass against the data")
    return {"bars": bars, "line": line}


def plot_prediction_shares(ax, nb_counts, em_counts, class_names):
    """Clear ``ax``; the share of test documents NB and EM assign to each class (percent), with
    the share of a balanced assignment dashed.

    Parameters
    ----------
    nb_counts, em_counts : array of int, shape (n_classes,)
        Test documents predicted in each class.
    """
    ax.clear()
    positions = np.arange(len(nb_counts))
    artists = {}
    for offset, name, counts, color in ((-0.2, "NB", nb_counts, NB_COLOR),
                                        (0.2, "EM", em_counts, EM_COLOR)):
        share = np.asarray(counts, dtype=float) / np.sum(counts) * 100
        artists[name] = ax.barh(positions + offset, share, height=0.4, color=color,
                                label=f"{name}: largest class {share.max():.0f}%")
    artists["balanced"] = ax.axvline(100 / len(nb_counts), color=GREY, linestyle="--")
    ax.set_yticks(positions, list(class_names), fontsize=11 if len(nb_counts) > 8 else 12)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("test documents predicted in the class (%)")
    ax.legend(loc="lower right", fontsize=9)
    ax.set_title("where the test documents go")
    return artists


def plot_alpha_curves(ax, alphas, nb_accuracy, em_accuracy, *, chosen, current):
    """Clear ``ax``; NB and EM test accuracy against α (mean, min-max band over seeds), a dot per
    seed at the α chosen on its labeled rows, and a vertical line at ``current``.

    Parameters
    ----------
    alphas : array of shape (n_alphas,)
    nb_accuracy, em_accuracy : array of shape (n_alphas, n_seeds), in [0, 1]
    chosen : array of shape (n_seeds,)
        The α chosen on each seed's labeled rows.
    current : float
    """
    ax.clear()
    order = np.argsort(alphas)
    alphas = np.asarray(alphas)[order]
    artists = {}
    for name, accuracy, color in (("NB", nb_accuracy, NB_COLOR), ("EM", em_accuracy, EM_COLOR)):
        accuracy = np.asarray(accuracy)[order] * 100
        (artists[name],) = ax.plot(alphas, accuracy.mean(axis=1), "-o", color=color, label=name)
        ax.fill_between(alphas, accuracy.min(axis=1), accuracy.max(axis=1), color=color,
                        alpha=0.15, linewidth=0)
        at_chosen = [accuracy[np.flatnonzero(np.isclose(alphas, a))[0], j]
                     for j, a in enumerate(chosen)]
        artists[f"{name} chosen"] = ax.plot(chosen, at_chosen, "*", markersize=14, color=color,
                                            markeredgecolor="black")[0]
    artists["current"] = ax.axvline(current, color="0.4", linestyle=":", linewidth=2)
    ax.set_xscale("log")
    ax.set_xlabel("smoothing α (★ = chosen on the labeled rows, one per seed)")
    ax.set_ylabel("test accuracy (%)")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower left")
    ax.set_title("accuracy against α (band: spread over seeds)")
    return artists
