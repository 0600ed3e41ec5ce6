"""Plots of Lecture 1: labeled and unlabeled points with decision boundaries, the lecture's picture
in steps, the accuracy sweep from favourable to unfavourable data, and words' class associations
before and after EM.

Colours are shared by the pictures: the supervised model (labeled data only) is dark grey and
dashed, the semi-supervised one green and solid; the two classes are blue and vermillion.
"""

from __future__ import annotations

import numpy as np
from matplotlib.colors import ListedColormap, to_rgba

from .common import (
    BLACK,
    BLUE,
    DARK_GREY,
    GREY,
    LIGHT_GREY,
    SEMI_SUPERVISED,
    TEXT,
    VERMILLION,
    plot_iteration_curve,
    update_iteration_marker,
    update_size_marker,
)

TOY_CLASS_COLORS = (BLUE, VERMILLION)
CLASS_MARKERS = ("o", "s")
UNLABELED_COLOR = GREY
SUPERVISED_COLOR = DARK_GREY
REFERENCE_COLOR = BLACK
STEPS = (
    "a few labeled points",
    "the boundary they suggest on their own",
    "the unlabeled cloud",
    "labels spread through the cloud",
    "a boundary that respects both",
)
_SHADING = ListedColormap(np.linspace(to_rgba(TOY_CLASS_COLORS[0]), to_rgba(TOY_CLASS_COLORS[1]),
                                      256))


# -- the toy data -------------------------------------------------------------------------------
def plot_toy_panel(ax, extent):
    """Empty artists for the ``update_toy_*`` functions on ``ax`` (fixed ``extent``
    ``(x_min, x_max, y_min, y_max)``, equal aspect).

    Returns
    -------
    dict with ``"shading"`` (AxesImage, hidden), ``"unlabeled"`` (PathCollection),
    ``"labeled"`` (one PathCollection per class) and ``"boundaries"`` (dict, filled by
    :func:`update_boundary`)
    """
    shading = ax.imshow(np.full((2, 2), 0.5), extent=extent, origin="lower", cmap=_SHADING,
                        vmin=0, vmax=1, alpha=0.18, aspect="auto", interpolation="bilinear",
                        visible=False, zorder=0)
    unlabeled = ax.scatter(np.empty(0), np.empty(0), s=12, color=UNLABELED_COLOR, linewidths=0,
                           zorder=2, label="unlabeled")
    labeled = [ax.scatter(np.empty(0), np.empty(0), s=140, marker=marker, color=color,
                          edgecolors=BLACK, linewidths=1.5, zorder=4, label=f"labeled, class {c}")
               for c, (marker, color) in enumerate(zip(CLASS_MARKERS, TOY_CLASS_COLORS,
                                                       strict=True))]
    ax.set_xlim(*extent[:2])
    ax.set_ylim(*extent[2:])
    ax.set_aspect("equal")
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    return {"shading": shading, "unlabeled": unlabeled, "labeled": labeled, "boundaries": {}}


def update_toy_points(artists, X_labeled, y_labeled, X_unlabeled=None, unlabeled_labels=None):
    """Show the labeled points (marker and colour by class) and, optionally, the unlabeled ones.

    Parameters
    ----------
    X_labeled : ndarray of shape (n_labeled, 2)
    y_labeled : ndarray of shape (n_labeled,) of 0/1
    X_unlabeled : ndarray of shape (n_unlabeled, 2) or None
        ``None`` hides the unlabeled points.
    unlabeled_labels : ndarray of shape (n_unlabeled,) or None
        Labels to colour the unlabeled points with; ``None`` draws them grey.
    """
    X_labeled, y_labeled = np.asarray(X_labeled), np.asarray(y_labeled)
    for c, collection in enumerate(artists["labeled"]):
        collection.set_offsets(X_labeled[y_labeled == c].reshape(-1, 2))
    unlabeled = artists["unlabeled"]
    if X_unlabeled is None:
        unlabeled.set_offsets(np.empty((0, 2)))
        return artists
    unlabeled.set_offsets(np.asarray(X_unlabeled).reshape(-1, 2))
    if unlabeled_labels is None:
        unlabeled.set_facecolors([to_rgba(UNLABELED_COLOR)])
    else:
        palette = np.array([to_rgba(color, 0.55) for color in TOY_CLASS_COLORS])
        unlabeled.set_facecolors(palette[np.asarray(unlabeled_labels, dtype=int)])
    return artists


def update_shading(artists, grid):
    """Shade the plane by P(class 1) of a :class:`sslviz.grids.Grid`; ``None`` hides it."""
    image = artists["shading"]
    if grid is None:
        image.set_visible(False)
        return image
    image.set_data(_class_one(grid))
    image.set_visible(True)
    return image


def update_boundary(ax, artists, name, grid, *, color, linestyle="-", linewidth=2.5):
    """Draw (or remove, with ``grid=None``) the boundary P(class 1) = 0.5 named ``name``.

    ``grid`` is a two-class :class:`sslviz.grids.Grid`. A contour cannot be edited, so the old
    one is removed and a new one drawn; returns the new ContourSet (or ``None``).
    """
    old = artists["boundaries"].pop(name, None)
    if old is not None:
        old.remove()
    if grid is None:
        return None
    proba = _class_one(grid)
    if proba.min() > 0.5 or proba.max() < 0.5:  # one class everywhere: no boundary to draw
        return None
    contour = ax.contour(grid.xs, grid.ys, proba, levels=[0.5], colors=[color],
                         linestyles=[linestyle], linewidths=linewidth, zorder=3)
    artists["boundaries"][name] = contour
    return contour


def update_toy_fit(ax, artists, fit, *, unlabeled=None, supervised=None, semi_supervised=None,
                   shading=None):
    """Show a :class:`sslviz.experiments.what_is_ssl.ToyFit` on :func:`plot_toy_panel`'s artists.

    Parameters
    ----------
    unlabeled : {None, "grey", "spread", "true"}
        Hide the unlabeled points, draw them grey, coloured by the labels the semi-supervised
        learner gave them, or by their true class.
    supervised, semi_supervised : Grid or None
        Boundaries to draw (dashed dark grey / solid green); ``None`` removes one.
    shading : Grid or None
        Grid whose P(class 1) shades the plane.
    """
    labeled, rest = fit.split.labeled, fit.split.unlabeled
    colours = {"grey": None, "spread": fit.unlabeled_predictions, "true": fit.y[rest]}
    update_toy_points(artists, fit.X[labeled], fit.y[labeled],
                      None if unlabeled is None else fit.X[rest], colours.get(unlabeled))
    update_shading(artists, shading)
    update_boundary(ax, artists, "supervised", supervised, color=SUPERVISED_COLOR,
                    linestyle="--")
    update_boundary(ax, artists, "semi_supervised", semi_supervised, color=SEMI_SUPERVISED)
    return artists


def update_toy_step(ax, artists, fit, step, *, supervised, semi_supervised):
    """Show step ``step`` (0-based) of :data:`STEPS`: labeled points; then the supervised
    boundary; then the grey cloud; then the labels spread through it; then both boundaries."""
    update_toy_fit(ax, artists, fit, unlabeled=(None, None, "grey", "spread", "spread")[step],
                   supervised=supervised if step >= 1 else None,
                   semi_supervised=semi_supervised if step >= 4 else None,
                   shading=semi_supervised if step >= 4 else
                   (supervised if step in (1, 2) else None))
    ax.set_title(f"step {step + 1} of {len(STEPS)}: {STEPS[step]}")
    return artists


def step_note(fit, step):
    """The text under the step list at ``step`` (0-based): what is shown and how well it does."""
    split = fit.split
    lines = [f"{len(split.labeled)} labeled points, " + (f"{len(split.unlabeled)} unlabeled"
                                                         if step >= 2 else "unlabeled hidden"),
             f"angle between class boundary and cluster gap: {fit.angle:g}°"]
    if step >= 1:
        lines.append(f"test accuracy on {len(split.test)} held-out points:")
        lines.append(f"   labeled only (dashed): {fit.supervised_accuracy:.0%}")
    if step >= 4:
        lines.append(f"   labeled + unlabeled (solid): {fit.semi_supervised_accuracy:.0%}")
    return "\n".join(lines)


def _class_one(grid):
    if grid.proba.shape[-1] != 2:
        raise ValueError("a toy boundary needs a grid of a classifier with exactly two classes, "
                         f"got {grid.proba.shape[-1]}")
    return grid.proba[..., 1]


# -- the steps of the picture -------------------------------------------------------------------
def plot_step_list(ax, steps, *, fontsize=13):
    """A numbered list of ``steps`` on an axis of its own, and an empty note under it.

    Returns
    -------
    dict with ``"steps"`` (list of Text) and ``"note"`` (Text)
    """
    ax.set_axis_off()
    ax.set_xlim(0, 1)
    ax.set_ylim(1, 0)
    texts = [ax.text(0.02, 0.08 + 0.085 * k, f"{k + 1}. {step}", fontsize=fontsize, va="center")
             for k, step in enumerate(steps)]
    note = ax.text(0.02, 0.2 + 0.085 * len(steps), "", fontsize=fontsize - 1, va="top",
                   linespacing=1.6)
    return {"steps": texts, "note": note}


def update_step_list(artists, current, note=""):
    """Highlight step ``current`` (0-based; earlier steps dark, later ones faint); set the note."""
    for k, text in enumerate(artists["steps"]):
        text.set_fontweight("bold" if k == current else "normal")
        text.set_color(SEMI_SUPERVISED if k == current else (TEXT if k < current else LIGHT_GREY))
    artists["note"].set_text(note)
    return artists


# -- the sweep ------------------------------------------------------------------------------------
def plot_accuracy_sweep(ax, angles, supervised, semi_supervised, *,
                        labels=("supervised", "semi-supervised")):
    """Mean test accuracy over seeds against the angle, with the min-max spread shaded.

    Parameters
    ----------
    angles : array of shape (n_angles,)
    supervised, semi_supervised : arrays of shape (n_angles, n_seeds), accuracies in [0, 1]

    Returns
    -------
    dict with ``"lines"`` (two Line2D), ``"bands"`` (two PolyCollection), ``"angles"`` and
    ``"marker"`` (the chosen angle's line, drawn by :func:`update_accuracy_sweep`)
    """
    artists = {"lines": [], "bands": [None, None], "angles": np.asarray(angles, dtype=float),
               "marker": None}
    for label, color, style in ((labels[0], SUPERVISED_COLOR, "--"),
                                (labels[1], SEMI_SUPERVISED, "-")):
        (line,) = ax.plot(artists["angles"], np.zeros(len(artists["angles"])), marker="o",
                          linestyle=style, color=color, label=label, linewidth=2.5)
        artists["lines"].append(line)
    update_accuracy_sweep(ax, artists, supervised, semi_supervised)
    ax.set_xticks(artists["angles"], [f"{a:g}°" for a in artists["angles"]])
    ax.set_xlabel("angle between class boundary and cluster gap")
    ax.set_ylabel("test accuracy (%)")
    ax.axhline(50, color=GREY, linewidth=1, linestyle=":")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower left")
    return artists


def update_accuracy_sweep(ax, artists, supervised, semi_supervised, *, angle=None):
    """Show other accuracies (e.g. of another labeled-set size) on :func:`plot_accuracy_sweep`,
    and mark ``angle`` (if given) with a dotted line.

    The y range runs from 40% (or lower, to the lowest accuracy shown) to 100%.
    """
    lowest = min(np.min(supervised), np.min(semi_supervised)) * 100
    ax.set_ylim(min(40.0, 10 * np.floor(lowest / 10)), 102)
    for k, accuracy in enumerate((supervised, semi_supervised)):
        accuracy = np.asarray(accuracy, dtype=float) * 100
        line = artists["lines"][k]
        line.set_ydata(accuracy.mean(axis=1))
        if artists["bands"][k] is not None:
            artists["bands"][k].remove()
        artists["bands"][k] = ax.fill_between(artists["angles"], accuracy.min(axis=1),
                                              accuracy.max(axis=1), color=line.get_color(),
                                              alpha=0.15, linewidth=0)
    if angle is not None:
        artists["marker"] = update_size_marker(ax, artists["marker"], angle)
    return artists


# -- words ----------------------------------------------------------------------------------------
def plot_association_bars(ax, words, before, after, reference, *, class_names, seen=None):
    """Each word's class association before EM, after EM and with all labels, as bars.

    Parameters
    ----------
    words : list of str (n_words)
    before, after, reference : arrays of shape (n_words,)
        ``log P(w|c1) - log P(w|c2)``; positive points to ``class_names[0]``.
    class_names : (str, str)
    seen : array of bool (n_words) or None
        Words that occur in a labeled document get a ``*`` after their name.

    Returns
    -------
    dict with ``"before"``, ``"after"`` (BarContainer) and ``"reference"`` (Line2D of markers)
    """
    n = len(words)
    rows = np.arange(n)
    height = 0.38
    seen = np.zeros(n, dtype=bool) if seen is None else np.asarray(seen, dtype=bool)
    before_bars = ax.barh(rows - height / 2, before, height=height, color=SUPERVISED_COLOR,
                          alpha=0.55, label="before EM (labeled only)")
    after_bars = ax.barh(rows + height / 2, after, height=height, color=SEMI_SUPERVISED,
                         label="after EM (+ unlabeled)")
    (reference_marks,) = ax.plot(reference, rows + height / 2, linestyle="none", marker="|",
                                 markersize=16, markeredgewidth=3, color=REFERENCE_COLOR,
                                 label="with all training labels")
    ax.axvline(0, color=BLACK, linewidth=1)
    ax.set_yticks(rows, [f"{w}*" if s else w for w, s in zip(words, seen, strict=True)])
    ax.set_ylim(max(n, 1) - 0.5, -0.5)
    limit = max(1.0, float(np.max(np.abs(np.concatenate([before, after, reference]))))
                if n else 1.0) * 1.1
    ax.set_xlim(-limit, limit)
    ax.set_xlabel(f"← {class_names[1]}      log P(w|{class_names[0]}) − log P(w|{class_names[1]})"
                  f"      {class_names[0]} →")
    ax.grid(alpha=0.3, axis="x")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=3, fontsize="large")
    return {"before": before_bars, "after": after_bars, "reference": reference_marks}


def plot_word_association(bar_ax, accuracy_ax, result, shown, *, vocabulary, class_names,
                          n_ranked, typed=False):
    """Redraw both panels of a :class:`sslviz.experiments.what_is_ssl.WordAssociation`.

    Left: :func:`plot_association_bars` of the words ``shown`` (column indices, the first
    ``n_ranked`` of them ranked, the rest ``typed`` by the user). Right: test accuracy of every
    EM iteration, the last one marked.
    """
    bar_ax.clear()
    accuracy_ax.clear()
    plot_association_bars(bar_ax, np.asarray(vocabulary)[shown].tolist(), result.before[shown],
                          result.after[shown], result.reference[shown],
                          class_names=class_names, seen=~result.absent[shown])
    curve = plot_iteration_curve(accuracy_ax, result.test_accuracy * 100,
                                 ylabel="test accuracy (%)", color=SEMI_SUPERVISED)
    update_iteration_marker(curve, len(result.test_accuracy) - 1)
    unseen = result.before[result.absent]
    bar_ax.set_title(f"{n_ranked} words in no labeled post that EM made predictive"
                     + (", then yours (* = in a labeled post)" if typed else "")
                     + "\nbefore EM every word absent from the labeled posts scores "
                     + (f"{unseen[0]:+.2f}" if len(unseen) else "-"))
    accuracy_ax.set_title(f"{len(result.split.labeled)} labeled, "
                          f"{len(result.split.unlabeled)} unlabeled posts:\n"
                          f"NB {result.test_accuracy[0]:.0%} → EM {result.test_accuracy[-1]:.0%}")
    accuracy_ax.set_ylim(40, 100)
    return curve
