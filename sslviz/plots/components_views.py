"""Drawing for lecture 10: component top words per iteration, co-training's wrong labels per
view, error bars."""

from __future__ import annotations

import numpy as np

from .common import BLUE, CLASS_COLORS, GREY, ORANGE, SEMI_SUPERVISED, update_size_marker

VIEW_NAMES = ("page view", "link view")
VIEW_MARKERS = ("o", "s")
VIEW_COLORS = (BLUE, ORANGE)
ERROR_BARS = (("page", "supervised_page", BLUE), ("link", "supervised_link", ORANGE),
              ("both", "supervised_combined", GREY), ("co page", "co_page", BLUE),
              ("co link", "co_link", ORANGE), ("co both", "co_combined", SEMI_SUPERVISED),
              ("self", "self_both", CLASS_COLORS[3]))


def wrong_picks_so_far(run):
    """Per view: the labels it added up to each iteration, and how many of them were wrong.

    Returns ``(iterations, {view name: (wrong, added)})``, both counts per iteration 1..last.
    """
    iterations = np.asarray(run["added_iteration"])
    wrong = np.asarray(run["added_label"]) != np.asarray(run["added_true"])
    views = np.asarray(run["added_view"])
    steps = np.arange(1, int(iterations.max()) + 1)
    upto = iterations[None, :] <= steps[:, None]  # (iteration, pick)
    counts = {name: ((upto & (wrong & (views == view))).sum(axis=1),
                     (upto & (views == view)).sum(axis=1))
              for view, name in enumerate(VIEW_NAMES)}
    return steps, counts


def plot_wrong_picks(ax, run):
    """The wrong labels co-training has added so far, one curve per view that picked them.

    Returns the artists for :func:`update_wrong_picks`.
    """
    from matplotlib.ticker import MaxNLocator

    ax.clear()
    steps, counts = wrong_picks_so_far(run)
    for (name, (wrong, _)), color, marker in zip(counts.items(), VIEW_COLORS, VIEW_MARKERS,
                                                 strict=True):
        ax.plot(steps, wrong, marker=marker, markersize=5, color=color, label=name)
    top = max(int(wrong[-1]) for wrong, _ in counts.values())
    ax.set_xlim(0.5, steps[-1] + 0.5)
    ax.set_ylim(0, top + 2)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("co-training iteration")
    ax.set_ylabel("wrong labels added so far")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize=11)
    return {"ax": ax, "counts": counts, "marker": None}


def update_wrong_picks(artists, iteration):
    """Mark ``iteration`` and state each view's wrong and added labels up to it."""
    ax, counts = artists["ax"], artists["counts"]
    artists["marker"] = update_size_marker(ax, artists["marker"], iteration)
    row = min(iteration, len(next(iter(counts.values()))[0])) - 1
    shown = ", ".join(f"{name} {wrong[row]} of {added[row]}"
                      for name, (wrong, added) in counts.items())
    ax.set_title(f"wrong labels up to iteration {iteration}: {shown}")
    return artists


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
