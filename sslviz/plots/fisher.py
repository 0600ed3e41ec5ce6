"""Plots of the Fisher-kernel lecture: one document's score, Table 1 as curves, Figure 1."""

from __future__ import annotations

import numpy as np

#: One Okabe-Ito colour per method of Table 1 (colour-blind safe).
METHOD_COLORS = {
    "n-cat": "#56B4E9", "ul-cat": "#D55E00", "ul-cl": "#CC79A7", "linear": "#000000",
    "tsvm": "#999999", "nb+em": "#009E73", "nb": "#0072B2",
}
TRUE_COLOR, PREDICTED_COLOR, OTHER_COLOR = "#009E73", "#D55E00", "#BBBBBB"


# -- one document ----------------------------------------------------------------------------
def plot_posterior(ax, class_names):
    """Horizontal bars for ``P(c|x)`` of one document, one per class (empty until updated).

    Returns
    -------
    dict with ``"bars"`` (BarContainer) and ``"names"``
    """
    positions = np.arange(len(class_names))
    bars = ax.barh(positions, np.zeros(len(class_names)), color=OTHER_COLOR)
    ax.set_yticks(positions, class_names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("P(c | x)")
    ax.grid(alpha=0.3, axis="x")
    return {"bars": bars, "names": list(class_names)}


def update_posterior(artists, posterior, *, true_index, predicted_index):
    """Set the bar lengths; the true class in green, a wrong prediction in orange."""
    for c, (bar, value) in enumerate(zip(artists["bars"], posterior, strict=True)):
        bar.set_width(float(value))
        color = (TRUE_COLOR if c == true_index
                 else PREDICTED_COLOR if c == predicted_index else OTHER_COLOR)
        bar.set_color(color)
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


# -- Table 1 and Figure 1 ----------------------------------------------------------------------
def plot_method_curves(ax, sizes, table, methods, names, *, paper_sizes=None, paper=None):
    """Accuracy (%) against labeled-set size, one line per method; the paper's values dotted.

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
        if paper is not None:
            (paper_lines[method],) = ax.plot(paper_sizes, paper[:, m], ":", marker="o",
                                             markerfacecolor="none", color=color, alpha=0.35,
                                             markersize=5)
    ax.set_xscale("log")
    ticks = np.union1d(sizes, paper_sizes) if paper is not None else np.asarray(sizes)
    ax.set_xticks(ticks, [str(int(s)) for s in ticks])
    ax.minorticks_off()
    ax.set_ylim(0, 95)
    ax.set_xlabel("labeled posts")
    ax.set_ylabel("test accuracy (%)")
    ax.grid(alpha=0.3)
    return {"lines": lines, "paper": paper_lines}


def update_method_curve(artists, method, values):
    """Replace the y-values of one method's line (e.g. at another number of unlabeled posts)."""
    artists["lines"][method].set_ydata(values)
    return artists


def highlight_method(artists, method):
    """Draw ``method`` (and its paper line) thick and opaque, the others thin."""
    for name, line in artists["lines"].items():
        line.set_linewidth(3.5 if name == method else 1.2)
        line.set_alpha(1.0 if name == method else 0.55)
        line.set_zorder(3 if name == method else 2)
    for name, line in artists["paper"].items():
        line.set_alpha(0.9 if name == method else 0.25)
        line.set_linewidth(2.0 if name == method else 1.0)
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
    labels = [ax.text(unlabeled_sizes[-1], 0, "", fontsize=9, va="center", ha="left")
              for _ in range(n_curves)]
    (point,) = ax.plot([np.nan], [np.nan], "o", markersize=14, markerfacecolor="none",
                       markeredgewidth=2.5, color="black")
    reference = ax.axhline(np.nan, color="black", linestyle="--", linewidth=1.5)
    ax.set_xscale("log")
    ax.set_xticks(unlabeled_sizes, [f"{int(u):,}" for u in unlabeled_sizes])
    ax.minorticks_off()
    ax.set_xlim(unlabeled_sizes[0] / 1.3, unlabeled_sizes[-1] * 2.2)
    ax.set_xlabel("unlabeled posts used to estimate the model")
    ax.set_ylabel("test accuracy (%)")
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
        line.set_color(color if is_current else "0.6")
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
