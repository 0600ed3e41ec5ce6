"""Plots of the EM lecture (04): ranked words per iteration (curves live in plots.common)."""

from __future__ import annotations

from .common import NEW_WORD as NEW_WORD_COLOR
from .common import TEXT as OLD_WORD_COLOR


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
        header_text.set_color(NEW_WORD_COLOR if c == highlight else OLD_WORD_COLOR)
        for r, cell in enumerate(cells):
            word = words[r] if r < len(words) else ""
            new = c > 0 and word not in first
            cell.set_text(word)
            cell.set_color(NEW_WORD_COLOR if new else OLD_WORD_COLOR)
            cell.set_fontweight("bold" if new else "normal")
    return artists
