"""Plots of Lecture 5 (feature selection): word weights, accuracy against vocabulary size, and
one word leading EM astray."""

from __future__ import annotations

import numpy as np

from .common import (
    BLACK,
    BLUE,
    CLASS_COLORS,
    DARK_GREY,
    EM_COLOR,
    GREEN,
    MID_GREY,
    NB_COLOR,
    ORANGE,
    PURPLE,
    SKY,
    TEXT,
    VERMILLION,
    WRONG,
    plot_iteration_curve,
    update_size_marker,
)

GOOD_COLOR = GREEN  # discriminative words
NOISE_COLOR = VERMILLION  # noise words
MISLEADING_COLOR = WRONG  # top words that are no evidence for the class with every label
NEIGHBOUR_COLORS = (VERMILLION, ORANGE, BLUE, GREEN, PURPLE, SKY)  # words that followed one word
RUN_STYLES = ("-", "--")


# -- the lecture's picture: weights of discriminative and noise words ---------------------------
def plot_feature_weights(ax, true_weights, discriminative, *, names=None):
    """Bars for every word's learned weight (green: discriminative, red: noise), true weights as
    black ticks. Fill the bars with :func:`update_feature_weights`.

    Returns
    -------
    dict with ``"bars"`` (BarContainer) and ``"ticks"`` (Line2D)
    """
    positions = np.arange(len(true_weights))
    colors = np.where(discriminative, GOOD_COLOR, NOISE_COLOR)
    bars = ax.bar(positions, np.zeros(len(positions)), color=colors, width=0.75)
    (ticks,) = ax.plot(positions, true_weights, "_", color=BLACK, markersize=14,
                       markeredgewidth=2.5, label="true weight")
    ax.axhline(0, color=MID_GREY, linewidth=0.8)
    n_good = int(np.sum(discriminative))
    ax.axvspan(-0.5, n_good - 0.5, color=GOOD_COLOR, alpha=0.08, linewidth=0)
    if names is not None:
        ax.set_xticks(positions, names, rotation=90, fontsize=10)
    else:
        ax.set_xticks([])
    ax.set_xlim(-0.6, len(positions) - 0.4)
    ax.set_xlabel("words: discriminative (green) | noise (red)")
    ax.set_ylabel("weight  log P(w|c₁) − log P(w|c₂)")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(handles=[ticks], loc="upper right")
    return {"bars": bars, "ticks": ticks}


def update_feature_weights(artists, weights, *, ylim=None, title=None):
    """Set the bar heights to ``weights`` (and the y-limits and title, if given)."""
    for bar, weight in zip(artists["bars"], weights, strict=True):
        bar.set_height(weight)
    ax = artists["bars"][0].axes
    if ylim is not None:
        ax.set_ylim(*ylim)
    if title is not None:
        ax.set_title(title)
    return artists


# -- accuracy against vocabulary size -----------------------------------------------------------
def plot_vocabulary_curves(ax, size_labels):
    """Empty NB and EM curves over vocabulary sizes (equally spaced, labelled ``size_labels``);
    clears ``ax`` first.

    Returns
    -------
    dict with ``"lines"`` and ``"bands"`` (keyed "NB", "EM"), ``"marker"`` (a vertical line)
    and ``"x"``.
    """
    ax.clear()
    x = np.arange(len(size_labels))
    lines, bands = {}, {}
    for method, color, label in (("NB", NB_COLOR, "Naive Bayes (labeled only)"),
                                 ("EM", EM_COLOR, "EM (+ unlabeled)")):
        (lines[method],) = ax.plot(x, np.full(len(x), np.nan), "-o", color=color, label=label)
        bands[method] = None
    marker = update_size_marker(ax, None, 0)
    ax.set_xticks(x, size_labels)
    ax.set_xlim(-0.3, len(x) - 0.7)
    ax.set_ylim(0, 100)
    ax.set_xlabel("vocabulary size (words kept)")
    ax.set_ylabel("test accuracy (%)")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    return {"lines": lines, "bands": bands, "marker": marker, "x": x}


def update_vocabulary_curves(ax, artists, nb, em, *, current, title=None):
    """Show NB and EM accuracies (each (n_sizes, n_seeds), fractions): mean line and min-max
    band; move the marker to size index ``current``; set the title, if given."""
    x = artists["x"]
    for method, accuracy in (("NB", nb), ("EM", em)):
        accuracy = np.asarray(accuracy) * 100
        line = artists["lines"][method]
        line.set_ydata(accuracy.mean(axis=1))
        if artists["bands"][method] is not None:
            artists["bands"][method].remove()
        artists["bands"][method] = ax.fill_between(x, accuracy.min(axis=1), accuracy.max(axis=1),
                                                   color=line.get_color(), alpha=0.18,
                                                   linewidth=0)
    update_size_marker(ax, artists["marker"], current)
    if title is not None:
        ax.set_title(title, fontsize=11)
    return artists


def plot_method_bars(ax, methods, nb, em, *, highlight=None, title=None):
    """NB and EM accuracy of every feature set at one vocabulary size: bars = mean over seeds,
    dots = seeds, the mean written right of them; clears ``ax`` first. ``nb``/``em`` are lists
    of arrays (n_seeds,) in ``methods`` order; the ``highlight``-th method is written in bold.

    Returns
    -------
    list of BarContainer
    """
    ax.clear()
    y = np.arange(len(methods))
    containers = []
    for offset, (values, color, label) in enumerate(((nb, NB_COLOR, "NB"),
                                                     (em, EM_COLOR, "EM"))):
        means = np.array([np.mean(v) * 100 for v in values])
        position = y + (offset - 0.5) * 0.38
        containers.append(ax.barh(position, means, height=0.36, color=color, alpha=0.55,
                                  label=label))
        for row, seeds in zip(position, values, strict=True):
            ax.plot(np.asarray(seeds) * 100, np.full(len(seeds), row), "o", color=color,
                    markersize=4)
        for row, mean, seeds in zip(position, means, values, strict=True):
            right = max(mean, np.max(seeds) * 100)  # right of the dots, so they do not hide it
            ax.text(right + 1.5, row, f"{mean:.0f}", va="center", fontsize=9)
    ax.set_yticks(y, methods)
    for index, tick in enumerate(ax.get_yticklabels()):
        tick.set_fontweight("bold" if index == highlight else "normal")
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("test accuracy (%)")
    ax.grid(alpha=0.3, axis="x")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncols=2, fontsize=9)
    if title is not None:
        ax.set_title(title, fontsize=11)
    return containers


def plot_word_list(ax, title, words, *, fontsize=10):
    """A column of words under a title (e.g. the first words a method keeps); clears ``ax``."""
    ax.clear()
    ax.set_axis_off()
    ax.text(0, 1, title, transform=ax.transAxes, va="top", fontweight="bold", fontsize=fontsize)
    return [ax.text(0, 0.9 - i * 0.8 / max(len(words), 1), word, transform=ax.transAxes,
                    va="top", family="monospace", fontsize=fontsize)
            for i, word in enumerate(words)]


# -- leading astray -----------------------------------------------------------------------------
def plot_class_intake(ax, run_names, class_names, target):
    """Horizontal stacked bars, one per run: the unlabeled documents EM assigns to class
    ``target``, split by their true class. Fill with :func:`update_class_intake`.

    Returns
    -------
    dict with ``"bars"`` (list over classes of BarContainer) and ``"labels"`` (Text per run)
    """
    y = np.arange(len(run_names))
    bars = []
    for c, name in enumerate(class_names):
        color = CLASS_COLORS[c % len(CLASS_COLORS)]
        bars.append(ax.barh(y, np.zeros(len(y)), height=0.55, color=color,
                            label=f"truly {name}" + (" (correct)" if c == target else ""),
                            hatch=None if c == target else "//", edgecolor="white"))
    labels = [ax.text(0, row, "", va="center", ha="left", fontsize=10) for row in y]
    ax.set_yticks(y, run_names)
    ax.invert_yaxis()
    ax.set_xlabel(f"unlabeled documents EM puts in '{class_names[target]}'")
    ax.grid(alpha=0.3, axis="x")
    ax.legend(loc="best", fontsize=9)  # placed at draw time, clear of the bars and counts
    return {"bars": bars, "labels": labels, "target": target}


def update_class_intake(artists, counts, *, xmax=None):
    """``counts[r]`` (n_classes,) = documents of each true class assigned to the target in run
    ``r``; the target's own class is drawn first."""
    counts = np.asarray(counts)
    target = artists["target"]
    order = [target] + [c for c in range(counts.shape[1]) if c != target]
    left = np.zeros(counts.shape[0])
    for c in order:
        for row, bar in enumerate(artists["bars"][c]):
            bar.set_x(left[row])
            bar.set_width(counts[row, c])
        left += counts[:, c]
    for row, text in enumerate(artists["labels"]):
        wrong = counts[row].sum() - counts[row, target]
        text.set_x(left[row] + 0.01 * (xmax or left.max() or 1))
        text.set_text(f"{counts[row].sum()}\n({wrong} wrong)")
    if xmax is not None:
        artists["bars"][0][0].axes.set_xlim(0, xmax)
    return artists


def plot_association_paths(ax, paths, *, styles=None, colors=None, widths=None):
    """One line per word: its class association at every recorded iteration, with a marker.

    Parameters
    ----------
    paths : dict of str -> array of shape (n_iterations,)
        Label -> association per iteration (NaN where the word is not in the feature set).

    Returns
    -------
    dict with ``"lines"`` and ``"markers"`` (label -> Line2D) and ``"paths"``
    """
    lines, markers = {}, {}
    for index, (label, values) in enumerate(paths.items()):
        values = np.asarray(values, dtype=float)
        style = (styles or {}).get(label, "-")
        color = (colors or {}).get(label, CLASS_COLORS[index % len(CLASS_COLORS)])
        width = (widths or {}).get(label, 1.5)
        (lines[label],) = ax.plot(np.arange(len(values)), values, style, color=color,
                                  linewidth=width, label=label, marker="o", markersize=3)
        (markers[label],) = ax.plot([0], [values[0]], "o", color=color, markersize=9,
                                    markerfacecolor="none", markeredgewidth=2)
    ax.axhline(0, color=MID_GREY, linewidth=0.8)
    ax.set_xlabel("EM iteration")
    ax.grid(alpha=0.3)
    return {"lines": lines, "markers": markers,
            "paths": {k: np.asarray(v, dtype=float) for k, v in paths.items()}}


def update_association_paths(artists, iteration):
    """Move every marker of :func:`plot_association_paths` to ``iteration``."""
    for label, marker in artists["markers"].items():
        marker.set_data([iteration], [artists["paths"][label][iteration]])
    return artists


def plot_word_paths(ax, word_paths, neighbour_paths, *, ylabel, title):
    """The association paths of one word in several runs (thick, black, one line style per run)
    and of the words that followed it (thin, coloured): :func:`plot_association_paths` with the
    lecture's styles.

    Parameters
    ----------
    word_paths, neighbour_paths : dict of str -> array of shape (n_iterations,)
        Label -> association per iteration.
    """
    styles = dict(zip(word_paths, RUN_STYLES, strict=False))
    colors = {label: BLACK for label in word_paths}
    colors.update({label: NEIGHBOUR_COLORS[index % len(NEIGHBOUR_COLORS)]
                   for index, label in enumerate(neighbour_paths)})
    artists = plot_association_paths(ax, {**word_paths, **neighbour_paths}, styles=styles,
                                     colors=colors, widths={label: 3.0 for label in word_paths})
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=10, loc="best", ncols=2)
    ax.set_title(title, fontsize=11)
    return artists


def plot_run_accuracies(ax, accuracies):
    """Test accuracy (fractions) per recorded iteration of several runs, one line style each.

    Returns
    -------
    dict of run name -> artists of :func:`sslviz.plots.common.plot_iteration_curve`
    """
    curves = {}
    for (name, accuracy), style in zip(accuracies.items(), RUN_STYLES, strict=False):
        curves[name] = plot_iteration_curve(ax, np.asarray(accuracy) * 100, label=name,
                                            ylabel="test accuracy (%)", color=DARK_GREY)
        curves[name]["line"].set_linestyle(style)
    ax.legend(loc="best")
    ax.set_title("test accuracy after each iteration", fontsize=11)
    return curves


def update_flagged_word_columns(artists, headers, columns, flags):
    """Fill a table of :func:`sslviz.plots.common.plot_word_columns`: ``columns[c]`` lists the words
    under ``headers[c]``; words whose entry in ``flags[c]`` is true are drawn bold in
    :data:`MISLEADING_COLOR`."""
    for header, cells, title, words, marks in zip(artists["headers"], artists["cells"], headers,
                                                  columns, flags, strict=True):
        header.set_text(title)
        for row, cell in enumerate(cells):
            flagged = row < len(marks) and marks[row]
            cell.set_text(words[row] if row < len(words) else "")
            cell.set_color(MISLEADING_COLOR if flagged else TEXT)
            cell.set_fontweight("bold" if flagged else "normal")
    return artists
