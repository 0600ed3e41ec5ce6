"""Drawing for lecture 12: each α criterion's score curve, and the choices against the test-best.

Both functions take a view of :mod:`sslviz.experiments.model_selection_views` and only draw it.
"""

from __future__ import annotations

import numpy as np

from .common import BLUE, EM_COLOR, GREEN, GREY, NB_COLOR, PURPLE, VERMILLION

CRITERION_COLORS = {"evidence": BLUE, "loo_accuracy": GREEN, "loo_generative": PURPLE,
                    "loo_log_likelihood": VERMILLION}


def _grid_marks(ax, start, bounds):
    """The start grid's ends (dotted) and the bounds a chooser may extend to (dashed)."""
    for value in start:
        ax.axvline(value, color=GREY, linestyle=":", linewidth=1.2)
    for value in bounds:
        ax.axvline(value, color=GREY, linestyle="--", linewidth=1.2)


def plot_score_curves(axes, view, *, labels, start, bounds):
    """One panel per criterion (its score against α, a star at the study's choice, the start
    grid's ends dotted and α's bounds dashed; the constant guess 1/K on the LOO log P(y|x)
    panel), and a last panel with NB's and EM's test accuracy against α (reference only).

    Parameters
    ----------
    axes : sequence of len(view.scores) + 1 axes
    view : ScoreCurvesView
    labels : dict criterion -> panel title
    start, bounds : (low, high) α of the start grid and of α's documented bounds
    """
    for ax, (criterion, scores) in zip(axes, view.scores.items(), strict=False):
        ax.clear()
        color = CRITERION_COLORS[criterion]
        _grid_marks(ax, start, bounds)
        if np.isfinite(scores).any():
            ax.plot(view.alphas, scores, "-o", color=color, markersize=4)
            chosen = view.chosen[criterion]
            column = int(np.argmin(np.abs(np.log(view.alphas / chosen))))
            ax.plot([chosen], [scores[column]], "*", color=color, markersize=18,
                    markeredgecolor="black",
                    label=f"chosen α = {chosen:g}" + (" (at a bound)"
                                                      if view.at_bound[criterion] else ""))
            ax.legend(loc="lower center", fontsize=10)
        else:
            ax.text(0.5, 0.5, "not defined with one\nlabeled document per class",
                    transform=ax.transAxes, ha="center", va="center")
        if criterion == "loo_log_likelihood":
            ax.axhline(view.constant_guess, color="black", linewidth=1.5)
            ax.annotate("constant guess 1/K", (view.alphas[0], view.constant_guess),
                        xytext=(0, 4), textcoords="offset points", fontsize=10)
        ax.set_xscale("log")
        ax.set_title(labels[criterion], fontsize=11)
        ax.set_xlabel("α")
        ax.grid(alpha=0.3)
    ax = axes[len(view.scores)]
    ax.clear()
    _grid_marks(ax, start, bounds)
    ax.plot(view.alphas, 100 * view.nb_accuracy, "-o", color=NB_COLOR, markersize=4, label="NB")
    ax.plot(view.alphas, 100 * view.em_accuracy, "-o", color=EM_COLOR, markersize=4, label="EM")
    ax.set_xscale("log")
    ax.set_ylim(0, 100)
    ax.set_title("test accuracy (reference, never chooses)", fontsize=11)
    ax.set_xlabel("α")
    ax.set_ylabel("%")
    ax.legend(fontsize=10)
    ax.grid(alpha=0.3)


def plot_choices(scatter_ax, regret_ax, view, *, labels):
    """Left: per split, test accuracy at each criterion's choice against the test-best α's (the
    diagonal is no regret). Right: each criterion's regret in points, a dot per split, the share
    of splits whose choice stopped at a bound of α written under its name."""
    scatter_ax.clear()
    regret_ax.clear()
    best = 100 * view.test_best
    low = min(best.min(), 100 * np.nanmin(view.accuracy)) - 3
    scatter_ax.plot([low, 100], [low, 100], color=GREY, linewidth=1)
    regret = view.regret
    for i, criterion in enumerate(view.criteria):
        color = CRITERION_COLORS[criterion]
        scatter_ax.plot(best, 100 * view.accuracy[i], "o", color=color, alpha=0.8,
                        label=labels[criterion])
        regret_ax.bar(i, regret[i].mean(), color=color, alpha=0.35, width=0.6)
        regret_ax.plot(np.full(regret.shape[1], i), regret[i], "o", color=color)
        regret_ax.text(i, regret[i].max() + 1, f"{regret[i].mean():.1f}", ha="center",
                       va="bottom", fontweight="bold")
    top = max(best.max(), 100 * np.nanmax(view.accuracy)) + 3
    scatter_ax.set_xlim(low, top)
    scatter_ax.set_ylim(low, top)
    scatter_ax.set_xlabel("test accuracy at the test-best α (%)")
    scatter_ax.set_ylabel("test accuracy at the chosen α (%)")
    scatter_ax.legend(fontsize=9, loc="upper left")
    scatter_ax.grid(alpha=0.3)
    name = "EM" if view.model == "em" else "NB"
    scatter_ax.set_title(f"{view.corpus}, {view.n_labeled} labeled per class: {name}")
    regret_ax.set_xticks(range(len(view.criteria)),
                         [f"{labels[c].split(' (')[0]}\nat a bound {share:.0%}"
                          for c, share in zip(view.criteria, view.bound_share, strict=True)],
                         fontsize=9)
    regret_ax.set_ylim(0, max(10.0, regret.max() + 6))
    regret_ax.set_ylabel("regret (points below the test-best α)")
    regret_ax.set_title("what each criterion gives away (dot = split)")
    regret_ax.grid(alpha=0.3, axis="y")
