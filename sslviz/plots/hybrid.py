"""Plots of the hybrid lecture (09): Tables 1-3 as curves (ours beside the paper's), the weights
λ1, λ2 over the alternations, class shares of the unlabeled rows, and Figure 2 (perplexity)."""

from __future__ import annotations

import numpy as np

from .common import (
    BLACK,
    BLUE,
    CLASS_COLORS,
    EM_COLOR,
    GREEN,
    GREY,
    NB_COLOR,
    PURPLE,
    SKY,
    VERMILLION,
    plot_iteration_curve,
    plot_learning_curve,
    plot_seed_bars,
    update_iteration_marker,
)

METHOD_COLORS = {"hybrid": GREEN, "em-lambda": EM_COLOR, "mlr/mer": PURPLE, "nb": NB_COLOR,
                 "mlr": SKY}
CORPUS_COLORS = {"reuters": BLUE, "webkb": GREEN, "20news": VERMILLION}


def plot_table_curves(ax, sizes, accuracy, methods, labels, *, paper=None, highlight=None,
                      title=""):
    """Clear ``ax``; one learning curve per method (mean over seeds, min-max shaded).

    Parameters
    ----------
    sizes : array (n_sizes,)
    accuracy : array (n_sizes, n_seeds, n_methods) in [0, 1]
    methods, labels : sequences of str (method keys, legend labels)
    paper : dict size -> (means in %, sds) or None
        The paper's table, drawn dotted at the sizes it has.
    highlight : str or None
        The method drawn thick.
    """
    ax.clear()
    artists = {}
    for m, (method, label) in enumerate(zip(methods, labels, strict=True)):
        color = METHOD_COLORS[method]
        artists[method] = plot_learning_curve(ax, sizes, accuracy[:, :, m], label=label,
                                              color=color)
        artists[method]["line"].set_linewidth(3.5 if method == highlight else 1.5)
        if paper:
            paper_sizes = sorted(paper)
            ax.plot(paper_sizes, [paper[s][0][m] for s in paper_sizes], ":", color=color,
                    linewidth=1.5)
    if paper:
        ax.plot([], [], ":", color=GREY, label="paper (dotted)")
        ax.set_xticks(sorted(set(sizes) | set(paper)),
                      [str(s) for s in sorted(set(sizes) | set(paper))])
    ax.legend(fontsize=10, loc="lower right")
    ax.set_title(title)
    return artists


def plot_weight_trace(ax, weights):
    """λ1 and λ2 per alternation (array (n_iterations, 2)), with markers on the current one."""
    ax.clear()
    curves = [plot_iteration_curve(ax, weights[:, j], ylabel="weight", color=color, label=label,
                                   xlabel="alternation (ψ, then Λ)")
              for j, (color, label) in enumerate(((NB_COLOR, "λ1 (generative θ)"),
                                                  (GREEN, "λ2 (bias correction ψ)")))]
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=9)
    return curves


def update_weight_markers(curves, iteration):
    """Move the markers of :func:`plot_weight_trace` to ``iteration``."""
    for artists in curves:
        update_iteration_marker(artists, iteration)
    return curves


def plot_class_shares(ax, shares, class_names, *, title, truth=None):
    """Clear ``ax``; a horizontal bar per class: its share of the unlabeled rows (in %).

    ``truth`` (optional, same shape as ``shares``) is drawn as a black line across each bar: the
    true shares, explained in the axis label (a legend glyph inside the axes would look like data).
    """
    ax.clear()
    shares = np.asarray(shares) * 100
    positions = np.arange(len(class_names))
    colors = [CLASS_COLORS[i % len(CLASS_COLORS)] for i in positions]
    bars = ax.barh(positions, shares, color=colors, alpha=0.8, height=0.7)
    label = "share of the unlabeled documents (%)"
    if truth is not None:
        ax.vlines(np.asarray(truth) * 100, positions - 0.45, positions + 0.45, color=BLACK,
                  linewidth=2.5)
        label += "; black line: true share"
    ax.set_yticks(positions, class_names)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel(label)
    ax.set_title(title)
    ax.grid(alpha=0.3, axis="x")
    return bars


def plot_mer_sweep(ax, weights, accuracy, largest_share, *, chosen=None):
    """MLR/MER against λ (log axis): test accuracy and the largest class's share of the
    unlabeled rows, both in %; the cross-validated λ marked. Returns the current-λ marker."""
    ax.clear()
    ax.plot(weights, np.asarray(accuracy) * 100, "-o", color=PURPLE, label="test accuracy")
    ax.plot(weights, np.asarray(largest_share) * 100, "--s", color=VERMILLION,
            label="largest class share (unlabeled)")
    if chosen is not None:
        ax.axvline(chosen, color=GREY, linestyle=":", label="λ chosen by cv")
    marker = ax.axvline(weights[0], color="0.3", linewidth=2)
    ax.set_xscale("log")
    ax.set_ylim(0, 102)
    ax.set_xlabel("entropy weight λ")
    ax.set_ylabel("%")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=10, loc="lower left")
    return marker


def plot_method_bars(ax, accuracy, methods, labels, *, title):
    """Bars with a dot per seed for every method at one size (``accuracy`` (n_seeds, n_methods)).

    The mean is written above the highest dot of its bar, never on a dot; a method without
    results (NaN, e.g. MLR/MER at lecture scale) gets no label.
    """
    bars = [(label.replace(" (hybrid)", ""), accuracy[:, m], METHOD_COLORS[method])
            for m, (method, label) in enumerate(zip(methods, labels, strict=True))]
    containers = plot_seed_bars(ax, bars, title=title, ymax=108)
    for text, (_, values, _) in zip(ax.texts, bars, strict=True):
        top = np.nanmax(values) * 100 if np.isfinite(values).any() else np.nan
        if np.isfinite(top):
            text.set_y(top + 2.5)
        else:
            text.set_visible(False)
    return containers


def plot_perplexity(ax, curves):
    """Figure 2: NB test perplexity against training documents, one colour per corpus; solid with
    every test document, dashed without the longest 1 %."""
    ax.clear()
    for curve in curves:
        color = CORPUS_COLORS.get(curve.corpus, GREY)
        mean = curve.perplexity.mean(axis=1)
        ax.plot(curve.sizes, mean[:, 0], "-o", color=color, label=f"{curve.corpus}")
        ax.plot(curve.sizes, mean[:, 1], "--", color=color,
                label=f"{curve.corpus}, longest 1% removed")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("labeled training documents")
    ax.set_ylabel("test perplexity (eq. 11)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=10)
    return ax
