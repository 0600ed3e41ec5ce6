"""Plots of Yarowsky runs (lecture 03): labels spreading over a map of the instances, the decision
list as a table, coverage / accuracy over the iterations and the hand-labeled comparison."""

from __future__ import annotations

import numpy as np
from matplotlib.colors import to_rgba
from matplotlib.lines import Line2D

from ..yarowsky import wrong_labels
from .common import (
    BLACK,
    BLUE,
    CLASS_COLORS,
    DARK_GREY,
    GREEN,
    GREY,
    MID_GREY,
    PALE_GREY,
    PURPLE,
    VERMILLION,
    plot_learning_curve,
)

UNLABELED_COLOR = PALE_GREY
WRONG_COLOR = BLACK  # crosses drawn over coloured points
NEW_EDGE_COLOR = MID_GREY
HEADER_COLOR = MID_GREY
COVERAGE_COLOR, LABELS_RIGHT_COLOR, TEST_ACCURACY_COLOR = GREEN, PURPLE, BLUE
SUPERVISED_COLOR, YAROWSKY_COLOR = BLUE, VERMILLION


def sense_colors(n_senses):
    """One colour per sense (colour-blind safe), in the order of the senses."""
    return [CLASS_COLORS[i % len(CLASS_COLORS)] for i in range(n_senses)]


# -- the map of instances -------------------------------------------------------------------------
def plot_label_map(ax, xy, sense_names, *, size=10):
    """Instances as points on a 2-D map, all unlabeled at first.

    Parameters
    ----------
    xy : array of shape (n_samples, 2)
        Positions (e.g. :func:`sslviz.experiments.yarowsky.instance_map`).
    sense_names : sequence of str
        Legend entries, one per sense, coloured by :func:`sense_colors`.

    Returns
    -------
    dict with ``"points"`` (PathCollection, one point per instance), ``"new"`` (rings around
    the instances labeled in the current iteration), ``"wrong"`` (crosses on wrong labels),
    ``"colors"`` (RGBA per sense) and ``"xy"``.
    """
    xy = np.asarray(xy, dtype=float)
    colors = [to_rgba(c) for c in sense_colors(len(sense_names))]
    points = ax.scatter(xy[:, 0], xy[:, 1], s=size, c=[to_rgba(UNLABELED_COLOR)] * len(xy),
                        linewidths=0, zorder=2)
    new = ax.scatter([], [], s=size * 3, facecolors="none", edgecolors=NEW_EDGE_COLOR,
                     linewidths=0.5, zorder=3)
    wrong = ax.scatter([], [], s=size * 1.6, marker="x", c=WRONG_COLOR, linewidths=0.9,
                       zorder=4)
    handles = [Line2D([], [], marker="o", linestyle="", color=c, label=name)
               for c, name in zip(colors, sense_names, strict=True)]
    handles += [
        Line2D([], [], marker="o", linestyle="", color=UNLABELED_COLOR, label="unlabeled"),
        Line2D([], [], marker="o", linestyle="", markerfacecolor="none",
               markeredgecolor=NEW_EDGE_COLOR, label="labeled in this iteration"),
        Line2D([], [], marker="x", linestyle="", color=WRONG_COLOR, label="label ≠ gold sense"),
    ]
    ax.legend(handles=handles, loc="upper left", fontsize="medium", framealpha=0.85)
    ax.set_xticks([])
    ax.set_yticks([])
    return {"points": points, "new": new, "wrong": wrong, "colors": colors, "xy": xy}


def update_label_map(artists, labels, *, new=(), wrong=()):
    """Colour the points by ``labels`` (sense index, ``-1`` = unlabeled, drawn grey), ring the
    instances in ``new`` and cross those in ``wrong`` (index arrays)."""
    labels = np.asarray(labels)
    palette = np.array([to_rgba(UNLABELED_COLOR)] + list(artists["colors"]))
    artists["points"].set_facecolors(palette[labels + 1])
    xy = artists["xy"]
    artists["new"].set_offsets(xy[np.asarray(new, dtype=int)].reshape(-1, 2))
    artists["wrong"].set_offsets(xy[np.asarray(wrong, dtype=int)].reshape(-1, 2))
    return artists


def update_iteration_map(ax, artists, model, gold, iteration, *, detailed=False):
    """Show iteration ``iteration`` of a fitted Yarowsky ``model`` on a :func:`plot_label_map`.

    Labels colour the points, this iteration's new labels are ringed, labels that differ from
    ``gold`` (the instances' gold senses) are crossed, and the title counts them.
    """
    step = model.trace_.iteration(iteration)
    wrong = wrong_labels(model, gold, iteration)
    update_label_map(artists, step.labels, new=step.added, wrong=wrong)
    if detailed:
        ax.set_title(f"iteration {iteration}: {step.n_labeled} of {len(step.labels)} instances "
                     f"labeled ({step.coverage:.0%}), {len(step.added)} new, "
                     f"{len(wrong)} wrong")
    else:
        ax.set_title(f"iteration {iteration}: {step.coverage:.0%} labeled, "
                     f"{len(step.added)} new")
    return artists


def plot_iteration_maps(axes, xy, model, gold, iterations):
    """The lecture's picture: one map per recorded iteration of a Yarowsky run.

    Parameters
    ----------
    axes : sequence of Axes, one per iteration
    xy : array of shape (n_samples, 2)
        Positions of the instances ``model`` was fitted on.
    model : fitted :class:`sslviz.yarowsky.Yarowsky`
    gold : array of shape (n_samples,)
        Gold senses, to cross the wrong labels.
    iterations : sequence of int

    Returns
    -------
    list of the artists dicts of :func:`plot_label_map`
    """
    drawn = []
    for ax, iteration in zip(axes, iterations, strict=True):
        artists = plot_label_map(ax, xy, list(model.classes_), size=6)
        update_iteration_map(ax, artists, model, gold, iteration)
        if ax is not axes[0]:
            ax.get_legend().remove()
        drawn.append(artists)
    return drawn


# -- the decision list as a table -----------------------------------------------------------------
def plot_rule_table(ax, n_rows, senses, *, fontsize=12):
    """An empty table of ``n_rows`` decision-list rules (score, feature, sense).

    Parameters
    ----------
    senses : sequence
        The senses, coloured as by :func:`sense_colors`.

    Returns
    -------
    dict with ``"title"`` (Text), ``"rows"`` (list of (score, feature, sense) Text triples) and
    ``"colors"`` (sense -> colour)
    """
    ax.set_axis_off()
    ax.set_xlim(0, 1)
    ax.set_ylim(n_rows + 1.5, 0)
    title = ax.text(0.0, 0.3, "", ha="left", va="center", fontsize=fontsize + 1,
                    fontweight="bold")
    header = dict(va="center", fontsize=fontsize - 1, color=HEADER_COLOR)
    ax.text(0.13, 1.1, "score", ha="right", **header)
    ax.text(0.17, 1.1, "feature", ha="left", **header)
    ax.text(0.70, 1.1, "→ sense  (P(s|f), count)", ha="left", **header)
    cell = dict(va="center", fontsize=fontsize)
    rows = [(ax.text(0.13, r + 2, "", ha="right", family="monospace", **cell),
             ax.text(0.17, r + 2, "", ha="left", family="monospace", **cell),
             ax.text(0.70, r + 2, "", ha="left", **cell))
            for r in range(n_rows)]
    colors = dict(zip(senses, sense_colors(len(senses)), strict=True))
    return {"title": title, "rows": rows, "colors": colors}


def update_rule_table(artists, title, rules):
    """Fill the table with ``rules`` (:class:`sslviz.decision_list.Rule`, strongest first);
    rows beyond the rules are blanked."""
    artists["title"].set_text(title)
    for r, texts in enumerate(artists["rows"]):
        if r >= len(rules):
            for text in texts:
                text.set_text("")
            continue
        rule = rules[r]
        score, feature, sense = texts
        score.set_text(f"{rule.score:.2f}")
        feature.set_text(rule.feature)
        sense.set_text(f"{rule.sense}  ({rule.confidence:.3f}, {rule.count})")
        for text in texts:
            text.set_color(artists["colors"][rule.sense])
    return artists


def update_decision_list(artists, rules, n_rules):
    """Show ``rules`` (the strongest of a list of ``n_rules``, from
    :func:`sslviz.yarowsky.strongest_rules`) in the table."""
    title = f"decision list trained on these labels: top {len(rules)} of {n_rules} rules"
    return update_rule_table(artists, title, rules)


# -- scores over the iterations -------------------------------------------------------------------
def plot_run_curves(ax, curves, *, baselines=None):
    """Several quantities per iteration (in %), each with a marker on the current iteration.

    Parameters
    ----------
    curves : dict of label -> (values in [0, 1], colour)
    baselines : dict of label -> (value in [0, 1], colour, linestyle), optional
        Horizontal reference lines.

    Returns
    -------
    dict with ``"lines"``, ``"markers"`` (label -> Line2D), ``"values"`` (label -> array in %)
    and ``"baselines"`` (label -> Line2D)
    """
    artists = {"lines": {}, "markers": {}, "values": {}, "baselines": {}}
    n = 0
    for label, (values, color) in curves.items():
        values = np.asarray(values, dtype=float) * 100
        n = max(n, len(values))
        (line,) = ax.plot(np.arange(len(values)), values, "-o", color=color, markersize=4,
                          label=label)
        (marker,) = ax.plot([0], [values[0]], "o", markersize=11, markerfacecolor="none",
                            markeredgewidth=2, color=color)
        artists["lines"][label], artists["markers"][label] = line, marker
        artists["values"][label] = values
    for label, (value, color, linestyle) in (baselines or {}).items():
        artists["baselines"][label] = ax.axhline(value * 100, color=color, linestyle=linestyle,
                                                 linewidth=1.5, label=label)
    ax.set_xlabel("Yarowsky iteration")
    ax.set_ylabel("%")
    ax.set_xticks(np.arange(n) if n <= 12 else np.arange(0, n, max(1, n // 10)))
    ax.set_xlim(-0.3, max(n - 1, 1) + 0.3)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=10)
    return artists


def update_run_markers(artists, iteration):
    """Move every marker of :func:`plot_run_curves` to ``iteration``."""
    for label, marker in artists["markers"].items():
        values = artists["values"][label]
        marker.set_data([iteration], [values[min(iteration, len(values) - 1)]])
    return artists


def plot_run_scores(ax, run, *, supervised, n_hand, majority, title):
    """Coverage, labels right and test accuracy of a run against its two baselines.

    Parameters
    ----------
    run : :class:`sslviz.experiments.yarowsky.YarowskyRun`
    supervised : float
        Test accuracy of a decision list on ``n_hand`` hand-labeled instances (mean of draws).
    majority : float
        Test accuracy of the majority sense.
    """
    artists = plot_run_curves(
        ax,
        {"coverage": (run.coverage, COVERAGE_COLOR),
         "labels right": (run.label_accuracy, LABELS_RIGHT_COLOR),
         "test accuracy": (run.test_accuracy, TEST_ACCURACY_COLOR)},
        baselines={f"supervised list, {n_hand} hand labels": (supervised, DARK_GREY, "--"),
                   "majority sense": (majority, GREY, ":")})
    ax.set_ylim(0, 102)
    ax.set_title(title)
    return artists


# -- Yarowsky against hand labels -----------------------------------------------------------------
def plot_supervised_curve(ax, sizes, accuracy, *, yarowsky, yarowsky_label, majority, title):
    """Test accuracy of supervised lists vs hand labels, with Yarowsky and the majority sense.

    Parameters
    ----------
    sizes : array of shape (n_sizes,)
    accuracy : array of shape (n_sizes, n_draws), in [0, 1]
    yarowsky, majority : float
        Horizontal lines (test accuracy in [0, 1]).
    """
    artists = plot_learning_curve(ax, sizes, accuracy, label="supervised decision list",
                                  color=SUPERVISED_COLOR)
    artists["yarowsky"] = ax.axhline(yarowsky * 100, color=YAROWSKY_COLOR, linewidth=2,
                                     label=yarowsky_label)
    artists["majority"] = ax.axhline(majority * 100, color=GREY, linestyle=":",
                                     label="majority sense")
    ax.set_xlabel("hand-labeled pool instances")
    ax.legend(loc="lower right")
    ax.set_title(title)
    return artists


def plot_hand_vs_seeds(ax, supervised, yarowsky, *, n_hand, n_seeded):
    """Each draw of ``n_hand`` hand labels (test accuracies) beside Yarowsky's final accuracy,
    as dots on an axis narrowed to the values (two near-equal accuracies stay apart).

    Returns
    -------
    dict with ``"draws"`` and ``"yarowsky"`` (Line2D) and ``"mean"`` (the draws' mean line)
    """
    ax.clear()
    draws = np.asarray(supervised, dtype=float) * 100
    ours = float(yarowsky) * 100
    low, high = min(draws.min(), ours), max(draws.max(), ours)
    margin = max(1.0, 0.25 * (high - low))
    artists = {
        "draws": ax.plot(np.zeros(len(draws)), draws, "o", color=SUPERVISED_COLOR,
                         markersize=9, alpha=0.8)[0],
        "mean": ax.hlines(draws.mean(), -0.25, 0.25, color=SUPERVISED_COLOR, linewidth=2.5),
        "yarowsky": ax.plot([1], [ours], "D", color=YAROWSKY_COLOR, markersize=11)[0],
    }
    ax.text(0.3, draws.mean(), f"mean {draws.mean():.1f}%", va="center", ha="left",
            fontsize="large", color=SUPERVISED_COLOR)
    ax.text(1.12, ours, f"{ours:.1f}%", va="center", ha="left", fontsize="large",
            fontweight="bold", color=YAROWSKY_COLOR)
    ax.set_xticks([0, 1], [f"supervised\n{n_hand} hand labels",
                           f"Yarowsky\n{n_seeded} seed-labeled"])
    ax.set_xlim(-0.6, 1.8)
    ax.set_ylim(low - margin, high + margin)
    ax.set_ylabel("test accuracy (%)")
    ax.set_title("each dot a random draw of hand labels")
    ax.grid(alpha=0.3, axis="y")
    return artists
