"""Drawing for lecture 10: component top words per iteration, co-training picks, error bars."""

from __future__ import annotations

import numpy as np

from .common import BLUE, CLASS_COLORS, GREY, ORANGE, SEMI_SUPERVISED, WRONG

VIEW_MARKERS = ("o", "s")  # page view, link view
ERROR_BARS = (("page", "supervised_page", BLUE), ("link", "supervised_link", ORANGE),
              ("both", "supervised_combined", GREY), ("co page", "co_page", BLUE),
              ("co link", "co_link", ORANGE), ("co both", "co_combined", SEMI_SUPERVISED),
              ("self", "self_both", CLASS_COLORS[3]))


def plot_picks(ax, run):
    """Axes for the pages co-training added: one column per iteration, a circle for the page
    view's picks and a square for the link view's, red when the label was wrong. Returns the
    artists for :func:`update_picks`."""
    ax.clear()
    iterations = np.asarray(run["added_iteration"])
    wrong_label = np.asarray(run["added_label"]) != np.asarray(run["added_true"])
    rank = _rank_within_iteration(run)
    groups = []
    for view, marker in enumerate(VIEW_MARKERS):
        for wrong, color in ((False, SEMI_SUPERVISED), (True, WRONG)):
            mask = (np.asarray(run["added_view"]) == view) & (wrong_label == wrong)
            points = np.column_stack([iterations[mask], rank[mask]])
            artist = ax.scatter(points[:, 0], points[:, 1], marker=marker, color=color, s=55,
                                label=f"{('page', 'link')[view]} view, "
                                      f"{'wrong' if wrong else 'right'}")
            groups.append((artist, points))
    ax.set_xlim(0.3, int(iterations.max()) + 0.7)
    ax.set_ylim(-0.7, 9.9)
    ax.set_xlabel("co-training iteration")
    ax.set_ylabel("pick in its iteration (page view first)")
    ax.legend(loc="upper left", fontsize=9, ncol=2)
    return groups


def update_picks(ax, groups, iteration):
    """Show the picks up to ``iteration``."""
    for artist, points in groups:
        artist.set_offsets(points[points[:, 0] <= iteration] if len(points) else points)
    ax.set_title(f"pages added up to iteration {iteration}")


def _rank_within_iteration(run):
    """Row of each pick in its iteration's column: the page view's picks first."""
    iterations = np.asarray(run["added_iteration"])
    rank = np.zeros(len(iterations))
    for it in np.unique(iterations):
        rows = np.flatnonzero(iterations == it)
        rank[rows] = np.arange(len(rows))
    return rank


def plot_error_bars(ax, results, *, title):
    """Mean test error of each classifier over the runs, one dot per run; each mean's label
    sits above the bar's highest dot, so no dot covers it."""
    ax.clear()
    highest = 0.0
    for x, (_, name, color) in enumerate(ERROR_BARS):
        errors = np.array([float(r[name]) for r in results])
        ax.bar(x, errors.mean(), color=color, alpha=0.35, width=0.6)
        ax.plot(np.full(len(errors), x), errors, "o", color=color)
        ax.text(x, errors.max() + 2, f"{errors.mean():.1f}", ha="center", va="bottom")
        highest = max(highest, errors.max())
    ax.set_xticks(range(len(ERROR_BARS)), [label for label, _, _ in ERROR_BARS], rotation=30)
    ax.set_ylim(0, max(70.0, highest + 10))
    ax.set_ylabel("test error (%)")
    ax.set_title(title)
    ax.grid(alpha=0.3, axis="y")
