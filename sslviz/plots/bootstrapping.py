"""Plots of self-training runs (Lecture 02): a 2-D picture of one iteration, curves over iterations.

The 2-D picture (:func:`plot_self_training_points`) shows the classifier's confidence as a
background image (the colour of the predicted class, paler where the classifier is less sure),
its decision boundary, the given labels, the pseudo-labels added so far, the rows added at the
current iteration (ringed) and the wrong pseudo-labels (crossed).
:func:`update_self_training_points` changes those artists for another iteration, so stepping
through a recorded run is cheap. The other functions draw per-iteration counts and curves.
"""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps
from matplotlib.colors import to_rgb
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from .common import (
    BLACK,
    BLUE,
    CLASS_COLORS,
    GREEN,
    GREY,
    MID_GREY,
    WRONG,
    plot_iteration_curve,
)

PSEUDO_LABELED = MID_GREY  # legend swatch of pseudo-labeled points (their fill is the class)
HIGHLIGHT = GREY  # the span marking the current iteration
X_LABEL = "self-training iteration"

WRONG_MARK = BLACK
"""Colour of the crosses on wrong pseudo-labels in the 2-D picture: black reads on either class's
shading, where vermillion was hard to tell from the orange class (the bars keep ``WRONG``)."""


def confidence_image(proba, colors=CLASS_COLORS, *, strength=0.55):
    """RGBA image of a probability grid: the predicted class's colour, faded by uncertainty.

    Parameters
    ----------
    proba : ndarray of shape (n_rows, n_cols, n_classes)
    colors : sequence of colours, at least ``n_classes``
    strength : float in (0, 1]
        Opacity where the classifier is certain; at chance level (1 / n_classes) it is 0.

    Returns
    -------
    ndarray of shape (n_rows, n_cols, 4), floats in [0, 1]
    """
    proba = np.asarray(proba, dtype=float)
    n_classes = proba.shape[-1]
    if len(colors) < n_classes:
        raise ValueError(f"{len(colors)} colours for {n_classes} classes")
    rgb = np.array([to_rgb(c) for c in colors[:n_classes]])
    winner = proba.argmax(axis=-1)
    certainty = (proba.max(axis=-1) - 1 / n_classes) / (1 - 1 / n_classes)
    image = np.empty(proba.shape[:-1] + (4,))
    image[..., :3] = rgb[winner]
    image[..., 3] = strength * np.clip(certainty, 0, 1)
    return image


def plot_self_training_points(ax, X, extent, *, n_classes=2, colors=CLASS_COLORS,
                              class_names=None, size=28):
    """Create the artists of the 2-D picture (filled in by :func:`update_self_training_points`).

    Parameters
    ----------
    X : ndarray of shape (n_samples, 2)
        Every point of the run, labeled and unlabeled, in the order of the fit.
    extent : (x_min, x_max, y_min, y_max)
        Area of the confidence image (e.g. :func:`sslviz.grids.grid_extent`).

    Returns
    -------
    dict of artists: ``"image"``, ``"unlabeled"``, ``"pseudo"``, ``"new"``, ``"given"``,
    ``"wrong"`` (scatter collections), ``"boundary"`` and ``"previous"`` (contour sets or None),
    plus ``"X"``, ``"colors"``.
    """
    X = np.asarray(X, dtype=float)
    empty = np.empty((0, 2))
    image = ax.imshow(np.zeros((2, 2, 4)), extent=extent, origin="lower", aspect="auto",
                      interpolation="antialiased", zorder=0)
    artists = {
        "image": image,
        "unlabeled": ax.scatter(*X.T, s=size * 0.5, color=GREY, alpha=0.7, linewidths=0,
                                zorder=2),
        "pseudo": ax.scatter(*empty.T, s=size, linewidths=0, alpha=0.8, zorder=3),
        "new": ax.scatter(*empty.T, s=size * 2.2, edgecolors=BLACK, linewidths=1.6, zorder=4),
        "given": ax.scatter(*empty.T, s=size * 5, marker="*", edgecolors=BLACK,
                            linewidths=1.0, zorder=5),
        "wrong": ax.scatter(*empty.T, s=size * 2.5, marker="x", color=WRONG_MARK, linewidths=2.2,
                            zorder=6),
        "boundary": None,
        "previous": None,
        "X": X,
        "colors": np.array(colors[:n_classes]),
    }
    ax.set_xlim(extent[0], extent[1])
    ax.set_ylim(extent[2], extent[3])
    ax.set_xticks([])
    ax.set_yticks([])
    names = class_names if class_names is not None else [f"class {c}" for c in range(n_classes)]
    ax.legend(handles=_legend_handles(names, colors), loc="upper center",
              bbox_to_anchor=(0.5, -0.01), ncol=3, fontsize="large", frameon=False)
    return artists


def _legend_handles(names, colors):
    """Legend entries of the 2-D picture: one star per class, then the kinds of points."""
    handles = [Line2D([], [], marker="*", linestyle="", markersize=13, color=colors[c],
                      markeredgecolor=BLACK, label=f"given label: {name}")
               for c, name in enumerate(names)]
    return handles + [
        Line2D([], [], marker="o", linestyle="", markersize=6, color=PSEUDO_LABELED, alpha=0.8,
               label="pseudo-labeled earlier"),
        Line2D([], [], marker="o", linestyle="", markersize=8, color=PSEUDO_LABELED,
               markeredgecolor=BLACK, markeredgewidth=1.6, label="added at this iteration"),
        Line2D([], [], marker="x", linestyle="", markersize=9, color=WRONG_MARK,
               markeredgewidth=2.2,
               label="wrong pseudo-label"),
        Line2D([], [], marker="o", linestyle="", markersize=4, color=GREY, label="unlabeled"),
        Line2D([], [], color=BLACK, linewidth=2, label="decision boundary"),
        Line2D([], [], color=BLACK, linewidth=1.2, linestyle="--",
               label="boundary one iteration earlier"),
    ]


def update_self_training_points(artists, picture, grid, previous_grid=None):
    """Show one iteration.

    Parameters
    ----------
    picture : IterationPicture
        ``class_index`` (position in ``classes_`` of every labeled or pseudo-labeled row, -1 for
        rows still unlabeled) and the bool masks ``given``, ``new`` (added at this iteration)
        and ``wrong`` (wrong pseudo-label), see
        :func:`sslviz.experiments.bootstrapping.iteration_picture`.
    grid : sslviz.grids.Grid
        The current classifier on a grid.
    previous_grid : Grid or None
        The classifier of the previous iteration (dashed boundary); ``None`` draws none.
    """
    X, colors = artists["X"], artists["colors"]
    labels = np.asarray(picture.class_index)
    labeled = labels >= 0
    pseudo = labeled & ~picture.given & ~picture.new
    artists["unlabeled"].set_offsets(X[~labeled])
    for key, mask in (("pseudo", pseudo), ("new", picture.new), ("given", picture.given)):
        artists[key].set_offsets(X[mask])
        artists[key].set_facecolor(colors[labels[mask]] if mask.any() else [])
    artists["wrong"].set_offsets(X[picture.wrong])
    artists["image"].set_data(confidence_image(grid.proba, list(colors)))
    ax = artists["image"].axes
    for key in ("boundary", "previous"):
        if artists[key] is not None:
            artists[key].remove()
            artists[key] = None
    artists["boundary"] = _boundary(ax, grid, linestyles="solid", linewidths=2.0)
    if previous_grid is not None:
        artists["previous"] = _boundary(ax, previous_grid, linestyles="dashed", linewidths=1.2)
    return artists


def _boundary(ax, grid, **style):
    """Contour where the predicted class changes (P(class 1) = 1/2 for two classes)."""
    proba = grid.proba
    if proba.shape[-1] == 2:
        field, levels = proba[..., 1], [0.5]
    else:
        field, levels = proba.argmax(axis=-1).astype(float), np.arange(proba.shape[-1] - 1) + 0.5
    if field.min() >= levels[-1] or field.max() <= levels[0]:
        return None  # one class everywhere: no boundary to draw
    return ax.contour(grid.xs, grid.ys, field, levels=levels, colors=BLACK, zorder=1, **style)


def plot_added_counts(ax, n_correct, n_wrong):
    """Stacked bars: pseudo-labels added per iteration, right ones below and wrong ones on top.

    Returns
    -------
    dict with ``"correct"``, ``"wrong"`` (bar containers) and ``"highlight"`` (a span marking the
    current iteration; move it with :func:`update_iteration_span`).
    """
    iterations = np.arange(len(n_correct))
    correct = ax.bar(iterations, n_correct, color=GREEN, label="right pseudo-label")
    wrong = ax.bar(iterations, n_wrong, bottom=n_correct, color=WRONG,
                   label="wrong pseudo-label")
    highlight = ax.axvspan(-0.5, 0.5, color=HIGHLIGHT, alpha=0.18, linewidth=0)
    ax.set_xlim(-0.6, max(len(iterations), 2) - 0.4)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(X_LABEL)
    ax.set_ylabel("rows added")
    ax.legend(loc="upper right", fontsize=10)
    ax.grid(alpha=0.3, axis="y")
    return {"correct": correct, "wrong": wrong, "highlight": highlight}


def update_iteration_span(artists, iteration):
    """Move the highlight of :func:`plot_added_counts` to ``iteration``."""
    artists["highlight"].set_x(iteration - 0.5)
    return artists


def plot_run_curves(ax, test_accuracy, pool_error_rate):
    """Test accuracy (with a current-iteration marker) and pool error per iteration, in percent.

    Returns
    -------
    dict of :func:`sslviz.plots.common.plot_iteration_curve` (move its marker with
    ``update_iteration_marker``) plus ``"pool_error"`` (Line2D)
    """
    artists = plot_iteration_curve(ax, np.asarray(test_accuracy) * 100, ylabel="%",
                                   color=BLUE, label="test accuracy", xlabel=X_LABEL)
    pool_error = np.asarray(pool_error_rate) * 100
    (artists["pool_error"],) = ax.plot(np.arange(len(pool_error)), pool_error, "-s",
                                       color=WRONG, markersize=3,
                                       label="pseudo-label pool error")
    ax.set_ylim(-3, 103)
    ax.legend(loc="center right", fontsize=10)
    return artists


def plot_threshold_curves(ax, curves, *, highlight, ylabel, percent=True):
    """One line per threshold over the iterations; the highlighted threshold drawn thick.

    Parameters
    ----------
    curves : dict of label -> ndarray of shape (n_iterations,)
        The values per iteration (NaN where undefined, e.g. an empty pseudo-labeled pool).
    highlight : label
        The curve drawn thick and on top.

    Returns
    -------
    dict of label -> Line2D
    """
    lines = {}
    colors = dict(zip(curves, _sequential_colors(len(curves)), strict=True))
    for label, values in curves.items():
        values = np.asarray(values, dtype=float) * (100 if percent else 1)
        chosen = label == highlight
        (lines[label],) = ax.plot(np.arange(len(values)), values, "-o",
                                  color=colors[label], label=str(label),
                                  linewidth=3.0 if chosen else 1.2,
                                  markersize=5 if chosen else 2.5,
                                  alpha=1.0 if chosen else 0.55, zorder=3 if chosen else 2)
    ax.set_xlabel(X_LABEL)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    return lines


def plot_threshold_panels(axes, accuracy, pool_error, pool_size, *, highlight):
    """The three panels comparing thresholds: accuracy, pool error rate and pool size.

    Parameters
    ----------
    axes : three Axes
    accuracy, pool_error, pool_size : dict of threshold label -> ndarray (n_iterations,)
        Test accuracy and pool error rate in [0, 1]; pool size in documents.
    highlight : label
        The threshold drawn thick.

    Returns
    -------
    list of three dicts of label -> Line2D
    """
    accuracy_ax, error_ax, size_ax = axes
    lines = [plot_threshold_curves(accuracy_ax, accuracy, highlight=highlight,
                                   ylabel="test accuracy (%)")]
    start = next(iter(accuracy.values()))[0] * 100
    accuracy_ax.axhline(start, color=MID_GREY, linestyle=":", linewidth=1.5,
                        label="supervised start")
    accuracy_ax.legend(title="threshold", fontsize=10, loc="best")
    accuracy_ax.set_title("accuracy of each iteration's model")
    lines.append(plot_threshold_curves(error_ax, pool_error, highlight=highlight,
                                       ylabel="wrong pseudo-labels in the pool (%)"))
    error_ax.set_ylim(0, 100)
    error_ax.set_title("error rate of the pseudo-labeled pool")
    lines.append(plot_threshold_curves(size_ax, pool_size, highlight=highlight,
                                       ylabel="pseudo-labeled documents", percent=False))
    size_ax.set_title("size of the pseudo-labeled pool")
    return lines


def _sequential_colors(n):
    """``n`` colours from light to dark (low to high threshold), readable on white."""
    cmap = colormaps["viridis"]
    return [cmap(x) for x in np.linspace(0.75, 0.0, n)] if n > 1 else [cmap(0.3)]
