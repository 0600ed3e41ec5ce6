"""What several lectures draw: the palette, curves over iterations, learning curves, size markers,
the "bar plus a dot per seed" panel and a table of word columns.

Colours come from here only (the Okabe-Ito palette, safe for colour-blind viewers and on a
projector), by meaning: a lecture asks for ``SUPERVISED`` or ``WRONG``, not for a hex code.
"""

from __future__ import annotations

import numpy as np

from ..export import OKABE_ITO

BLUE, ORANGE, GREEN, VERMILLION, PURPLE, SKY, YELLOW, BLACK = OKABE_ITO
TEXT = "#222222"  # words and labels
DARK_GREY = "#333333"
MID_GREY = "#444444"
GREY = "#9a9a9a"  # unlabeled points
LIGHT_GREY = "#b0b0b0"
PALE_GREY = "#d0d0d0"
FAINT_GREY = "#BBBBBB"
SEMI_SUPERVISED = GREEN
NB_COLOR, EM_COLOR = BLUE, ORANGE
WRONG = VERMILLION
NEW_WORD = VERMILLION
CLASS_COLORS = (BLUE, ORANGE, GREEN, PURPLE, SKY, YELLOW)


def plot_iteration_curve(ax, values, *, ylabel, color=None, label=None, xlabel="EM iteration"):
    """A quantity per recorded iteration, with a marker on the current iteration.

    Returns
    -------
    dict with ``"line"``, ``"marker"`` and ``"values"``
    """
    iterations = np.arange(len(values))
    (line,) = ax.plot(iterations, values, "-o", color=color, markersize=4, label=label)
    (marker,) = ax.plot([0], [values[0]], "o", markersize=12, markerfacecolor="none",
                        markeredgewidth=2.5, color=line.get_color())
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_xticks(iterations if len(iterations) <= 12 else iterations[:: len(iterations) // 10])
    ax.grid(alpha=0.3)
    return {"line": line, "marker": marker, "values": np.asarray(values)}


def update_iteration_marker(artists, iteration):
    """Move the marker of :func:`plot_iteration_curve` to ``iteration``."""
    artists["marker"].set_data([iteration], [artists["values"][iteration]])
    return artists


def plot_learning_curve(ax, sizes, accuracy, *, label, color=None, linestyle="-"):
    """Mean accuracy over seeds vs labeled-set size, with the min-max spread shaded.

    Parameters
    ----------
    sizes : array of shape (n_sizes,)
    accuracy : array of shape (n_sizes, n_seeds)
    """
    accuracy = np.asarray(accuracy) * 100
    mean = accuracy.mean(axis=1)
    (line,) = ax.plot(sizes, mean, marker="o", linestyle=linestyle, color=color, label=label)
    band = ax.fill_between(sizes, accuracy.min(axis=1), accuracy.max(axis=1),
                           color=line.get_color(), alpha=0.15, linewidth=0)
    ax.set_xscale("log")
    ax.set_xticks(sizes, [str(s) for s in sizes])
    ax.minorticks_off()
    ax.set_xlabel("labeled documents")
    ax.set_ylabel("test accuracy (%)")
    ax.grid(alpha=0.3)
    return {"line": line, "band": band}


def update_size_marker(ax, marker, size):
    """Draw (first call, ``marker=None``) or move the vertical line marking the current size."""
    if marker is None:
        return ax.axvline(size, color="0.4", linestyle=":", linewidth=2)
    marker.set_xdata([size, size])
    return marker


def plot_seed_bars(ax, bars, *, title, ymax=100):
    """One bar per method at its mean accuracy, one dot per seed, the mean written above the
    highest dot (never on a dot; the y axis grows to hold it).

    Parameters
    ----------
    bars : sequence of (label, accuracies in [0, 1], colour)
    title : str
    ymax : float
        Top of the y axis (percent).

    Returns
    -------
    list of the bar containers
    """
    ax.clear()
    containers, top = [], 0.0
    for x, (_, accuracy, color) in enumerate(bars):
        accuracy = np.asarray(accuracy, dtype=float) * 100
        containers.append(ax.bar(x, accuracy.mean(), color=color, alpha=0.35, width=0.6))
        ax.plot(np.full(len(accuracy), x), accuracy, "o", color=color)
        highest = np.nanmax(accuracy) if np.isfinite(accuracy).any() else accuracy.mean()
        ax.text(x, highest + 2.5, f"{accuracy.mean():.1f}%", ha="center", va="bottom",
                fontweight="bold")
        top = max(top, highest + 9) if np.isfinite(highest) else top
    ax.set_xticks(range(len(bars)), [label for label, _, _ in bars])
    ax.set_ylim(0, max(ymax, top))
    ax.set_ylabel("test accuracy (%)")
    ax.set_title(title)
    ax.grid(alpha=0.3, axis="y")
    return containers


def plot_word_columns(ax, n_columns, n_rows, *, fontsize=11):
    """Create an empty table of ``n_columns`` × ``n_rows`` words on ``ax``.

    Returns
    -------
    dict with ``"headers"`` (list of Text) and ``"cells"`` (list of columns of Text)
    """
    ax.set_axis_off()
    ax.set_xlim(0, n_columns)
    ax.set_ylim(n_rows + 1.2, 0)
    headers = [ax.text(c + 0.5, 0.4, "", ha="center", va="center", fontsize=fontsize + 1,
                       fontweight="bold") for c in range(n_columns)]
    cells = [[ax.text(c + 0.5, r + 1.4, "", ha="center", va="center", fontsize=fontsize,
                      family="monospace") for r in range(n_rows)] for c in range(n_columns)]
    return {"headers": headers, "cells": cells}


def update_word_columns(artists, headers, columns, *, highlight=None):
    """Fill the table: ``columns[c]`` is a list of words for header ``headers[c]``.

    Words not in the first column are drawn in colour and bold (what EM brought in); the column
    whose index is ``highlight`` gets a coloured header.
    """
    first = set(columns[0]) if columns else set()
    for c, (header_text, cells) in enumerate(zip(artists["headers"], artists["cells"],
                                                 strict=True)):
        words = columns[c] if c < len(columns) else []
        header_text.set_text(headers[c] if c < len(headers) else "")
        header_text.set_color(NEW_WORD if c == highlight else TEXT)
        for r, cell in enumerate(cells):
            word = words[r] if r < len(words) else ""
            new = c > 0 and word not in first
            cell.set_text(word)
            cell.set_color(NEW_WORD if new else TEXT)
            cell.set_fontweight("bold" if new else "normal")
    return artists
