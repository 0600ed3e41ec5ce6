"""Plots of the Fisher-kernel lecture (06): one post's posterior, counts and Fisher score;
Table 1 as curves against the labeled-set size; Figure 1 against the number of unlabeled posts.

The ``plot_*_panels`` functions lay out what an explorer shows; ``update_*_panels`` redraw it
from a view computed in :mod:`sslviz.experiments.fisher_views`.
"""

from __future__ import annotations

import numpy as np

from ..export import style_context
from .common import (
    BLACK,
    BLUE,
    FAINT_GREY,
    GREEN,
    GREY,
    ORANGE,
    PURPLE,
    SKY,
    VERMILLION,
    update_size_marker,
)

#: One colour per method of Table 1 (Okabe-Ito, colour-blind safe).
METHOD_COLORS = {
    "n-cat": SKY, "ul-cat": VERMILLION, "ul-cl": PURPLE, "counts": ORANGE, "linear": BLACK,
    "tsvm": GREY, "nb+em": GREEN, "nb": BLUE,
}
#: Font size of the table panel's legend: readable on a projector from the back of a room.
LEGEND_FONTSIZE = 12
TRUE_COLOR, PREDICTED_COLOR, OTHER_COLOR = GREEN, VERMILLION, FAINT_GREY
#: Curves of the labeled sizes that are not highlighted.
BACKGROUND_CURVE_COLOR = GREY


# -- one document ----------------------------------------------------------------------------
def plot_posterior(ax, class_names):
    """Horizontal bars for ``P(c|x)`` of one document, one per class (empty until updated).

    Returns
    -------
    dict with ``"bars"`` (BarContainer) and ``"names"``
    """
    positions = np.arange(len(class_names))
    bars = ax.barh(positions, np.zeros(len(class_names)), color=OTHER_COLOR)
    ax.set_yticks(positions, class_names)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("P(c | x)")
    ax.grid(alpha=0.3, axis="x")
    return {"bars": bars, "names": list(class_names)}


def component_color(component, true_index, predicted_index):
    """The true class's colour, a wrong prediction's colour, or the neutral one."""
    return (TRUE_COLOR if component == true_index
            else PREDICTED_COLOR if component == predicted_index else OTHER_COLOR)


def update_posterior(artists, posterior, *, true_index, predicted_index):
    """Set the bar lengths; the true class in green, a wrong prediction in vermillion."""
    for c, (bar, value) in enumerate(zip(artists["bars"], posterior, strict=True)):
        bar.set_width(float(value))
        bar.set_color(component_color(c, true_index, predicted_index))
    return artists


def plot_entry_bars(ax, k, *, xlabel):
    """``k`` horizontal bars with a label each, largest on top (empty until updated).

    Returns
    -------
    dict with ``"bars"`` and ``"labels"`` (Text inside the axis, one per bar)
    """
    positions = np.arange(k)
    bars = ax.barh(positions, np.zeros(k), color=OTHER_COLOR)
    labels = [ax.text(0.01, p, "", va="center", ha="left", fontsize=9,
                      transform=ax.get_yaxis_transform()) for p in positions]
    ax.set_yticks([])
    ax.set_ylim(k - 0.5, -0.5)
    ax.set_xlim(0, 1)
    ax.set_xlabel(xlabel)
    ax.grid(alpha=0.3, axis="x")
    return {"bars": bars, "labels": labels}


def update_entry_bars(artists, labels, values, colors):
    """Show ``values`` (at most ``k``) with their ``labels`` and ``colors``; the x-axis fits."""
    bars, texts = artists["bars"], artists["labels"]
    values = list(values)
    for i, (bar, text) in enumerate(zip(bars, texts, strict=True)):
        shown = i < len(values)
        bar.set_width(values[i] if shown else 0.0)
        bar.set_color(colors[i] if shown else OTHER_COLOR)
        text.set_text(labels[i] if shown else "")
    top = max(values, default=1.0)
    bars[0].axes.set_xlim(0, top * 1.05)
    return artists


def plot_document_panels(post_ax, counts_ax, score_ax, k):
    """The document explorer's three panels: posterior (drawn by the first update), the ``k``
    largest entries of the unit-length counts and of the Fisher score.

    Returns
    -------
    dict with ``"post_ax"``, ``"counts"``, ``"score"`` (see :func:`plot_entry_bars`)
    """
    counts = plot_entry_bars(counts_ax, k, xlabel="entry of the unit-length count vector")
    score = plot_entry_bars(score_ax, k, xlabel="entry of the unit-length Fisher score")
    counts_ax.set_title("what the linear SVM sees:\nthe largest word counts")
    score_ax.set_title("what the Fisher-kernel SVM sees: the largest\n"
                       "N(w,x) P(c|x) / √P(w|c)  (word | component)")
    return {"post_ax": post_ax, "counts": counts, "score": score, "posterior": None,
            "names": None}


def update_document_panels(artists, view):
    """Show a :class:`~sslviz.experiments.fisher.FisherDocumentView`; the posterior panel is
    redrawn when the components change (another model)."""
    post_ax, names = artists["post_ax"], view.component_names
    if artists["names"] != names:
        post_ax.clear()
        with style_context():
            artists["posterior"] = plot_posterior(post_ax, names)
        artists["names"] = names
    update_posterior(artists["posterior"], view.posterior, true_index=view.true_index,
                     predicted_index=view.predicted_index)
    post_ax.set_title(view.model_name)
    update_entry_bars(artists["counts"], [f"{w}  (N={n})" for w, n, _ in view.counts],
                      [v for _, _, v in view.counts], [OTHER_COLOR] * len(view.counts))
    update_entry_bars(
        artists["score"],
        [f"ρ[{names[c]}]" if w is None else f"{w} | {names[c]}" for c, w, _ in view.entries],
        [v for _, _, v in view.entries],
        [component_color(c, view.true_index, view.predicted_index) for c, _, _ in view.entries])
    post_ax.figure.suptitle(view.title, fontsize=12)
    return artists


# -- Table 1 and Figure 1 ----------------------------------------------------------------------
def plot_method_curves(ax, sizes, table, methods, names, *, paper_sizes=None, paper=None):
    """Accuracy (%) against labeled-set size, one line per method; the paper's values dotted
    (hidden until :func:`highlight_method` shows the highlighted method's; NaN columns, methods
    the paper did not run, get no line).

    Parameters
    ----------
    sizes : array of shape (n_sizes,)
    table : array of shape (n_sizes, n_methods)
        Our accuracies (%), columns in the order of ``methods``.
    methods : sequence of str
        Keys of :data:`METHOD_COLORS`.
    names : dict of str -> str
        Legend name of every method.
    paper_sizes, paper : optional
        The paper's sizes and accuracies (%), shape (n_paper_sizes, n_methods), same column
        order.

    Returns
    -------
    dict with ``"lines"`` and ``"paper"`` (method -> Line2D)
    """
    lines, paper_lines = {}, {}
    for m, method in enumerate(methods):
        color = METHOD_COLORS[method]
        (lines[method],) = ax.plot(sizes, table[:, m], "-o", color=color, markersize=5,
                                   label=names[method])
        if paper is not None and not np.isnan(paper[:, m]).all():
            (paper_lines[method],) = ax.plot(paper_sizes, paper[:, m], ":", marker="o",
                                             markerfacecolor="none", color=color, linewidth=2.5,
                                             markersize=7, visible=False)
    ax.set_xscale("log")
    ticks = np.union1d(sizes, paper_sizes) if paper is not None else np.asarray(sizes)
    ax.set_xticks(ticks, [str(int(s)) for s in ticks])
    ax.minorticks_off()
    ax.set_ylim(0, 95)
    ax.set_xlabel("labeled posts", fontsize=LEGEND_FONTSIZE)
    ax.set_ylabel("test accuracy (%)", fontsize=LEGEND_FONTSIZE)
    ax.tick_params(labelsize=LEGEND_FONTSIZE - 1)
    ax.grid(alpha=0.3)
    return {"lines": lines, "paper": paper_lines}


def update_method_curve(artists, method, values):
    """Replace the y-values of one method's line (e.g. at another number of unlabeled posts)."""
    artists["lines"][method].set_ydata(values)
    return artists


def highlight_method(artists, method):
    """Draw ``method`` thick and opaque, the others thin; show the paper's line of ``method``
    only (one dotted line at a time stays readable on a projector)."""
    for name, line in artists["lines"].items():
        line.set_linewidth(4.0 if name == method else 1.5)
        line.set_alpha(1.0 if name == method else 0.6)
        line.set_zorder(3 if name == method else 2)
    for name, line in artists["paper"].items():
        line.set_visible(name == method)
    return artists


def plot_unlabeled_curves(ax, unlabeled_sizes, n_curves):
    """Accuracy (%) against the number of unlabeled posts: ``n_curves`` lines, a current point
    and a dashed reference level (all empty until :func:`update_unlabeled_curves`).

    Returns
    -------
    dict with ``"lines"``, ``"point"``, ``"reference"`` and ``"labels"``
    """
    lines = [ax.plot(unlabeled_sizes, np.full(len(unlabeled_sizes), np.nan), "-o",
                     markersize=4)[0] for _ in range(n_curves)]
    labels = [ax.text(unlabeled_sizes[-1], 0, "", fontsize=LEGEND_FONTSIZE - 1, va="center",
                      ha="left")
              for _ in range(n_curves)]
    (point,) = ax.plot([np.nan], [np.nan], "o", markersize=14, markerfacecolor="none",
                       markeredgewidth=2.5, color=BLACK)
    reference = ax.axhline(np.nan, color=BLACK, linestyle="--", linewidth=1.5)
    ax.set_xscale("log")
    ax.set_xticks(unlabeled_sizes, [f"{int(u):,}" for u in unlabeled_sizes])
    ax.minorticks_off()
    ax.set_xlim(unlabeled_sizes[0] / 1.3, unlabeled_sizes[-1] * 2.2)
    ax.set_xlabel("unlabeled posts used to estimate the model", fontsize=LEGEND_FONTSIZE)
    ax.set_ylabel("test accuracy (%)", fontsize=LEGEND_FONTSIZE)
    ax.tick_params(labelsize=LEGEND_FONTSIZE - 1)
    ax.grid(alpha=0.3)
    return {"lines": lines, "point": point, "reference": reference, "labels": labels,
            "x": np.asarray(unlabeled_sizes)}


def update_unlabeled_curves(artists, curves, *, current, n_unlabeled, color, reference=None):
    """Draw ``curves`` (label -> values over the unlabeled sizes); ``current`` highlighted.

    The point marks ``n_unlabeled`` on the current curve; ``reference`` (a level in %, e.g. the
    linear SVM at the current labeled size) is drawn dashed, or hidden when ``None``.
    """
    x = artists["x"]
    for (label, values), line, text in zip(curves.items(), artists["lines"], artists["labels"],
                                           strict=True):
        line.set_ydata(values)
        is_current = label == current
        line.set_color(color if is_current else BACKGROUND_CURVE_COLOR)
        line.set_linewidth(3.0 if is_current else 1.2)
        line.set_zorder(3 if is_current else 2)
        text.set_position((x[-1] * 1.08, values[-1]))
        text.set_text(label)
        text.set_fontweight("bold" if is_current else "normal")
    j = int(np.flatnonzero(x == n_unlabeled)[0])
    artists["point"].set_data([n_unlabeled], [curves[current][j]])
    artists["reference"].set_ydata([np.nan, np.nan] if reference is None
                                   else [reference, reference])
    return artists


def plot_table_panels(table_ax, curve_ax, *, sizes, table, methods, names, unlabeled_sizes,
                      paper_sizes=None, paper=None):
    """The table explorer's two panels: Table 1 as curves (:func:`plot_method_curves`, with a
    legend) and Figure 1 (:func:`plot_unlabeled_curves`, one curve per labeled size).

    Returns
    -------
    dict with ``"table"``, ``"unlabeled"`` (the artists of both) and ``"marker"``
    """
    lines = plot_method_curves(table_ax, sizes, table, methods, names,
                               paper_sizes=paper_sizes, paper=paper)
    table_ax.legend(loc="lower right", fontsize=LEGEND_FONTSIZE, ncol=2, framealpha=0.9)
    curves = plot_unlabeled_curves(curve_ax, np.asarray(unlabeled_sizes), len(sizes))
    return {"table": lines, "unlabeled": curves, "marker": None, "table_ax": table_ax,
            "curve_ax": curve_ax}


def update_table_panels(artists, view):
    """Show a :class:`~sslviz.experiments.fisher_views.FisherTableView`: the complete methods at its
    unlabeled size, its method highlighted, the size marked, Figure 1 for the method."""
    table_ax, curve_ax = artists["table_ax"], artists["curve_ax"]
    for method, values in view.table.items():  # the others stay at the largest size
        update_method_curve(artists["table"], method, values)
    highlight_method(artists["table"], view.method)
    artists["marker"] = update_size_marker(table_ax, artists["marker"], view.n_labeled)
    paper = (f"dotted: Takamura & Okumura's {view.method_name}"
             if view.method in artists["table"]["paper"]
             else f"no paper value for {view.method_name}")
    table_ax.set_title(f"Table 1 with {view.n_unlabeled:,} unlabeled posts (methods run at "
                       f"{view.largest:,} only stay there)\nsolid: ours; {paper}",
                       fontsize=LEGEND_FONTSIZE)
    update_unlabeled_curves(artists["unlabeled"], view.curves, current=view.current,
                            n_unlabeled=view.n_unlabeled, color=METHOD_COLORS[view.method],
                            reference=view.reference)
    curve_ax.relim()
    curve_ax.autoscale_view(scalex=False)
    curve_ax.set_title(f"Figure 1: {view.method_name} against unlabeled posts\n"
                       "dashed: linear SVM at the highlighted labeled size",
                       fontsize=LEGEND_FONTSIZE)
    return artists
