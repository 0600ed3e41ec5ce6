"""Plots of the classification-EM lecture (07): the 2-D CEM stepper, the Figure-1 analog, the
C-step's share of relevant sentences per iteration, and NB-CEM vs NB-EM learning curves."""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from .common import (
    BLACK,
    BLUE,
    CLASS_COLORS,
    EM_COLOR,
    GREEN,
    GREY,
    NB_COLOR,
    ORANGE,
    PURPLE,
    plot_learning_curve,
    plot_seed_bars,
)

MODEL_STYLE = {  # name -> (label, colour, line style)
    "logistic": ("logistic, labeled stories only", BLUE, "-"),
    "logistic_cem": ("Logistic-CEM", ORANGE, "-"),
    "gaussian": ("Gaussian, labeled stories only", PURPLE, ":"),
    "gaussian_cem": ("Generative-CEM (Gaussian)", GREEN, "--"),
}
BOW_STYLE = {"nb": ("NB (labeled only)", NB_COLOR, "-"), "nb_em": ("NB-EM (soft)", EM_COLOR, "-"),
             "nb_cem": ("NB-CEM (hard)", GREEN, "--"),
             "logistic": ("logistic (labeled only)", PURPLE, ":")}


# -- the 2-D stepper -----------------------------------------------------------------------------
def plot_cem_panel(ax, X, labeled_rows, labeled_classes, extent):
    """Points of one CEM run: unlabeled ones (coloured later by partition), labeled ones large.

    Returns
    -------
    dict of artists for :func:`update_cem_panel`
    """
    ax.clear()
    unlabeled = np.setdiff1d(np.arange(len(X)), labeled_rows)
    points = ax.scatter(X[unlabeled, 0], X[unlabeled, 1], s=14, color=GREY, alpha=0.8,
                        linewidths=0)
    colors = [CLASS_COLORS[c] for c in labeled_classes]
    ax.scatter(X[labeled_rows, 0], X[labeled_rows, 1], s=130, c=colors, marker="*",
               edgecolors=BLACK, linewidths=1.0, zorder=5)
    ax.set_xlim(extent[0], extent[1])
    ax.set_ylim(extent[2], extent[3])
    ax.set_xticks([])
    ax.set_yticks([])
    return {"ax": ax, "points": points, "boundary": None, "start": None}


def update_cem_panel(artists, partition, grid_xy, decision, start_decision, *, title):
    """Colour the unlabeled points by their class in ``partition``; draw the boundary
    (``decision == 0`` on the grid) and, dashed, iteration 0's boundary."""
    ax = artists["ax"]
    artists["points"].set_facecolor([CLASS_COLORS[c] for c in partition])
    for key, values, style in (("start", start_decision, {"linestyles": "--", "colors": GREY}),
                               ("boundary", decision, {"linestyles": "-", "colors": BLACK})):
        if artists[key] is not None:
            artists[key].remove()
        artists[key] = ax.contour(grid_xy[0], grid_xy[1], values, levels=[0.0], linewidths=2,
                                  **style)
    ax.set_title(title)
    return artists


# -- the Figure-1 analog -------------------------------------------------------------------------
def plot_figure1(ax, fig1, *, models=tuple(MODEL_STYLE)):
    """Average precision (%) against the % of labeled training stories, min-max over seeds
    shaded; the lead rule (rank by position) as a horizontal band.

    Returns
    -------
    dict of model -> artists
    """
    ax.clear()
    percent = fig1.fractions * 100
    artists = {}
    for name in models:
        label, color, linestyle = MODEL_STYLE[name]
        artists[name] = plot_learning_curve(ax, percent, fig1.ap[name], label=label,
                                            color=color, linestyle=linestyle)
    lead = fig1.lead_ap * 100
    artists["lead"] = ax.axhline(lead.mean(), color=BLACK, linewidth=2, linestyle="-.",
                                 label="lead rule (rank by position)")
    ax.axhspan(lead.min(), lead.max(), color=BLACK, alpha=0.08, linewidth=0)
    ax.set_xscale("linear")
    ax.set_xticks(percent, [f"{p:g}" for p in percent])
    ax.set_xlabel("% of the training stories labeled")
    ax.set_ylabel("average precision (%)")
    ax.legend(loc="lower right", fontsize=9)
    return artists


def plot_extraction_bars(ax, result, *, title):
    """Supervised model, its CEM and the lead rule at one setting: a bar per method, a dot per
    seed (average precision)."""
    bars = [("labeled only", result["supervised_ap"], BLUE),
            ("CEM", result["cem_ap"], ORANGE),
            ("lead rule", result["lead_ap"], BLACK)]
    low = min(np.min(values) for _, values, _ in bars) * 100
    containers = plot_seed_bars(ax, bars, title=title, ymax=100)
    ax.set_ylim(max(0, low - 15), ax.get_ylim()[1])  # the top holds the labels above the dots
    ax.set_ylabel("average precision (%)")
    return containers


def plot_relevant_share(ax, shares, true_share):
    """Share of unlabeled sentences the C-step calls relevant, per iteration, and the truth."""
    ax.clear()
    ax.plot(np.arange(len(shares)), np.asarray(shares) * 100, "-o", color=ORANGE, markersize=4,
            label="called relevant by the C-step")
    ax.axhline(true_share * 100, color=GREY, linestyle="--", label="truly relevant")
    ax.set_ylim(0, max(50, float(np.max(shares)) * 110))
    ax.set_xlabel("CEM iteration")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("unlabeled sentences (%)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=9)
    ax.set_title("does CEM collapse? (first seed)")


# -- bag of words ----------------------------------------------------------------------------------
def plot_bow_curves(ax, sizes, curves):
    """Test accuracy of NB, NB-EM, NB-CEM and logistic regression against labeled docs per class."""
    ax.clear()
    artists = {}
    for name, (label, color, linestyle) in BOW_STYLE.items():
        artists[name] = plot_learning_curve(ax, sizes, curves[name], label=label, color=color,
                                            linestyle=linestyle)
    ax.set_xlabel("labeled documents per class")
    ax.legend(loc="lower right", fontsize=9)
    return artists
