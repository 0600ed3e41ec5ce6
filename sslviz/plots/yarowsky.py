"""Plots of Yarowsky runs: labels spreading over a map of the instances, the decision list as a
table, and coverage / accuracy over the iterations."""

from __future__ import annotations

import numpy as np
from matplotlib.colors import to_rgba
from matplotlib.lines import Line2D

from ..export import OKABE_ITO

SENSE_COLORS = (OKABE_ITO[0], OKABE_ITO[1], OKABE_ITO[2], OKABE_ITO[4], OKABE_ITO[5],
                OKABE_ITO[3])
UNLABELED_COLOR = "#d0d0d0"
WRONG_COLOR = "#000000"
NEW_EDGE_COLOR = "#444444"


def sense_colors(n_senses):
    """One colour per sense (colour-blind safe), in the order of the senses."""
    return [SENSE_COLORS[i % len(SENSE_COLORS)] for i in range(n_senses)]


def plot_label_map(ax, xy, sense_names, *, size=10):
    """Instances as points on a 2-D map, all unlabeled at first.

    Parameters
    ----------
    xy : array of shape (n_samples, 2)
        Positions (e.g. :func:`sslviz.yarowsky.instance_map`).
    sense_names : sequence of str
        Legend entries, one per sense, coloured by :func:`sense_colors`.

    Returns
    -------
    dict with ``"points"`` (PathCollection, one point per instance), ``"new"`` (rings around
    the instances labeled in the current iteration), ``"wrong"`` (crosses on wrong labels) and
    ``"colors"`` (RGBA per sense).
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
    ax.legend(handles=handles, loc="upper left", fontsize="small", framealpha=0.85)
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


def plot_rule_table(ax, n_rows, *, fontsize=10):
    """An empty table of ``n_rows`` decision-list rules (score, feature, sense).

    Returns
    -------
    dict with ``"title"`` (Text) and ``"rows"`` (list of (score, feature, sense) Text triples)
    """
    ax.set_axis_off()
    ax.set_xlim(0, 1)
    ax.set_ylim(n_rows + 1.5, 0)
    title = ax.text(0.0, 0.3, "", ha="left", va="center", fontsize=fontsize + 1,
                    fontweight="bold")
    header = dict(va="center", fontsize=fontsize - 1, color="0.35")
    ax.text(0.13, 1.1, "score", ha="right", **header)
    ax.text(0.17, 1.1, "feature", ha="left", **header)
    ax.text(0.70, 1.1, "→ sense  (P(s|f), count)", ha="left", **header)
    rows = [(ax.text(0.13, r + 2, "", ha="right", va="center", fontsize=fontsize,
                     family="monospace"),
             ax.text(0.17, r + 2, "", ha="left", va="center", fontsize=fontsize,
                     family="monospace"),
             ax.text(0.70, r + 2, "", ha="left", va="center", fontsize=fontsize))
            for r in range(n_rows)]
    return {"title": title, "rows": rows}


def update_rule_table(artists, title, rules, colors, sense_index):
    """Fill the table with ``rules`` (:class:`sslviz.yarowsky.Rule`, strongest first).

    ``sense_index`` maps a rule's sense to its colour in ``colors``; rows beyond the rules are
    blanked.
    """
    artists["title"].set_text(title)
    for r, (score, feature, sense) in enumerate(artists["rows"]):
        if r < len(rules):
            rule = rules[r]
            color = colors[sense_index[rule.sense]]
            score.set_text(f"{rule.score:.2f}")
            feature.set_text(rule.feature)
            sense.set_text(f"{rule.sense}  ({rule.confidence:.3f}, {rule.count})")
            for text in (score, feature, sense):
                text.set_color(color)
        else:
            for text in (score, feature, sense):
                text.set_text("")
    return artists


def plot_run_curves(ax, curves, *, baselines=None):
    """Several quantities per iteration (in %), each with a marker on the current iteration.

    Parameters
    ----------
    curves : dict of label -> (values in [0, 1], colour)
    baselines : dict of label -> (value in [0, 1], colour, linestyle), optional
        Horizontal reference lines.

    Returns
    -------
    dict with ``"lines"``, ``"markers"`` (label -> Line2D) and ``"values"`` (label -> array in %)
    """
    artists = {"lines": {}, "markers": {}, "values": {}, "baselines": {}}
    n = 0
    for label, (values, color) in curves.items():
        values = np.asarray(values, dtype=float) * 100
        n = max(n, len(values))
        iterations = np.arange(len(values))
        (line,) = ax.plot(iterations, values, "-o", color=color, markersize=4, label=label)
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
    ax.legend(loc="lower right", fontsize="small")
    return artists


def update_run_markers(artists, iteration):
    """Move every marker of :func:`plot_run_curves` to ``iteration``."""
    for label, marker in artists["markers"].items():
        values = artists["values"][label]
        marker.set_data([iteration], [values[min(iteration, len(values) - 1)]])
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
    gold = np.asarray(gold)
    drawn = []
    for ax, iteration in zip(axes, iterations, strict=True):
        step = model.trace_.iteration(iteration)
        artists = plot_label_map(ax, xy, list(model.classes_), size=6)
        labeled = step.labeled
        wrong = labeled[model.classes_[step.labels[labeled]] != gold[labeled]]
        update_label_map(artists, step.labels, new=step.added, wrong=wrong)
        ax.set_title(f"iteration {iteration}: {step.coverage:.0%} labeled, "
                     f"{len(step.added)} new")
        if ax is not axes[0]:
            ax.get_legend().remove()
        drawn.append(artists)
    return drawn
