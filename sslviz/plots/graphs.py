"""Drawing for the graph lecture (11): labels spreading over a graph, and accuracy curves.

* :func:`plot_graph_nodes` / :func:`update_graph_nodes` -- nodes on a 2-D picture (points, or an
  instance map), coloured by the class with the most label mass at one step of the propagation;
  grey while no mass has reached a node; labeled nodes ringed in black; edges drawn faintly.
* :func:`plot_method_curves` -- mean accuracy of several methods against a labeled setting, with
  the spread over seeds shaded, and a marker at the setting shown.
"""

from __future__ import annotations

import numpy as np
from matplotlib.collections import LineCollection

from .common import (
    BLACK,
    BLUE,
    CLASS_COLORS,
    GREEN,
    ORANGE,
    PALE_GREY,
    PURPLE,
    SKY,
    VERMILLION,
    update_size_marker,
)

METHOD_COLORS = {"nb": BLUE, "svm": SKY, "harmonic": GREEN, "spreading": PURPLE,
                 "tsvm": ORANGE, "sgt": VERMILLION}
METHOD_LABELS = {"nb": "Naive Bayes", "svm": "linear SVM", "harmonic": "harmonic propagation",
                 "spreading": "label spreading", "tsvm": "transductive SVM",
                 "sgt": "spectral graph transducer"}
NO_MASS = PALE_GREY


def node_colors(predicted):
    """RGBA colour of each node: its class's colour, or grey for ``-1`` (no label mass yet)."""
    from matplotlib.colors import to_rgba

    palette = np.array([to_rgba(c) for c in CLASS_COLORS] + [to_rgba(NO_MASS)])
    index = np.where(np.asarray(predicted) < 0, len(CLASS_COLORS),
                     np.asarray(predicted) % len(CLASS_COLORS))
    return palette[index]


def plot_graph_nodes(ax, coords, predicted, labeled, *, edges=None, size=14, title="",
                     labeled_scale=6, ring_width=1.5, class_names=None):
    """Nodes at ``coords`` coloured by ``predicted`` (class index, -1: no mass); returns artists.

    ``labeled``: bool mask of the given labels (drawn ``labeled_scale`` times larger, ringed
    ``ring_width`` points wide: smaller and thinner where hundreds are labeled); ``edges``:
    optional sparse affinity matrix whose non-zero entries are drawn as faint lines;
    ``class_names``: a legend under the axes names each class's colour, the ring and the grey.
    """
    ax.clear()
    artists = {}
    if edges is not None:
        rows, cols = edges.nonzero()
        upper = rows < cols
        segments = np.stack([coords[rows[upper]], coords[cols[upper]]], axis=1)
        artists["edges"] = ax.add_collection(LineCollection(segments, colors="0.8",
                                                            linewidths=0.5, zorder=0))
    colors = node_colors(predicted)
    artists["nodes"] = ax.scatter(coords[:, 0], coords[:, 1], s=size, c=colors, linewidths=0,
                                  zorder=1)
    artists["labeled"] = ax.scatter(coords[labeled, 0], coords[labeled, 1],
                                    s=size * labeled_scale, c=colors[labeled], edgecolors=BLACK,
                                    linewidths=ring_width,
                                    zorder=2)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(title)
    if class_names is not None:
        _class_legend(ax, class_names, ring_width)
    return artists


def _class_legend(ax, class_names, ring_width):
    """One entry per class colour, then the labeled ring and the grey of no label mass."""
    from matplotlib.lines import Line2D

    def dot(label, face, edge="none", width=0.0):
        return Line2D([], [], linestyle="", marker="o", markersize=10, markerfacecolor=face,
                      markeredgecolor=edge, markeredgewidth=width, label=label)

    handles = [dot(str(name), node_colors([k])[0]) for k, name in enumerate(class_names)]
    handles += [dot("labeled (ringed)", "white", BLACK, max(ring_width, 1.0)),
                dot("no label yet", NO_MASS)]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.01),
              ncols=min(len(handles), 4), fontsize=11, frameon=False, handletextpad=0.2,
              columnspacing=1.0)


def update_graph_nodes(artists, predicted, *, title=None, ax=None):
    """Recolour the nodes for another step of the propagation."""
    artists["nodes"].set_facecolors(node_colors(predicted))
    if title is not None and ax is not None:
        ax.set_title(title)


def plot_method_curves(ax, settings, curves, methods, *, xlabel, log_x=True, ylabel=None):
    """Mean accuracy (%) of each method against ``settings``, min–max over seeds shaded.

    ``curves``: mapping method -> (n_settings, n_seeds) accuracies in [0, 1].
    Returns ``{method: line}``.
    """
    ax.clear()
    lines = {}
    for method in methods:
        values = np.asarray(curves[method]) * 100
        (line,) = ax.plot(settings, values.mean(axis=1), marker="o",
                          color=METHOD_COLORS.get(method), label=METHOD_LABELS.get(method, method))
        ax.fill_between(settings, values.min(axis=1), values.max(axis=1),
                        color=line.get_color(), alpha=0.12, linewidth=0)
        lines[method] = line
    if log_x:
        ax.set_xscale("log")
    ax.set_xticks(settings, [f"{s:g}" for s in settings])
    ax.minorticks_off()
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel or "accuracy on the unlabeled rows (%)")
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize=10)
    return lines


def mark_setting(ax, marker, setting):
    """Draw or move the vertical line at the setting shown (see ``update_size_marker``)."""
    return update_size_marker(ax, marker, setting)

