"""Explorers of Lecture 5 (feature selection in semi-supervised learning).

* :func:`feature_weights_explorer` — the lecture's picture: Naive Bayes weights of
  discriminative (green) and noise (red) words, learned from few or many labeled documents.
* :func:`vocabulary_explorer` — Naive Bayes vs EM accuracy against vocabulary size, per
  selection method, labeled-set size and corpus (replays a precomputed
  :class:`sslviz.feature_selection.VocabularySweep`; nothing is refit).
* :func:`astray_explorer` — one coincidental word leading EM astray, replayed iteration by
  iteration from the recorded traces of two runs (all words vs a cleaner feature set).
"""

from __future__ import annotations

from functools import lru_cache

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from ..em import word_scores
from ..export import style_context
from ..feature_selection import toy_feature_weights, word_pull
from ..plots.em import plot_iteration_curve, update_iteration_marker
from ..plots.feature_selection import (
    EM_COLOR,
    GOOD_COLOR,
    NB_COLOR,
    NOISE_COLOR,
    RUN_STYLES,
    plot_association_paths,
    plot_class_intake,
    plot_feature_weights,
    plot_method_bars,
    plot_vocabulary_curves,
    plot_word_list,
    update_association_paths,
    update_class_intake,
    update_feature_weights,
    update_vocabulary_curves,
)
from .base import Explorer

TOY_SIZES = (1, 2, 5, 10, 20, 50, 200)
WIDE = {"description_width": "initial"}  # show a control's whole label


def feature_weights_explorer(*, n_labeled=1, seed=0, sizes=TOY_SIZES, **toy_params):
    """Word weights learned from ``n_labeled`` toy documents per class (green: discriminative
    words, red: noise words, black ticks: the true weights).

    Parameters
    ----------
    n_labeled : int, default=1
        Start value; one of ``sizes``.
    seed : int, default=0
    sizes : sequence of int
        Choices of the labeled-set slider.
    **toy_params
        Of :func:`sslviz.feature_selection.toy_feature_weights`.

    Returns
    -------
    Explorer
        Controls ``n_labeled`` and ``seed`` (a refit takes milliseconds).
    """
    controls = {
        "n_labeled": widgets.SelectionSlider(options=list(sizes), value=n_labeled,
                                             description="labeled/class",
                                             continuous_update=False, style=WIDE),
        "seed": widgets.BoundedIntText(seed, min=0, max=999, description="seed",
                                       layout=widgets.Layout(width="150px")),
    }
    fit = lru_cache(maxsize=128)(lambda n, s: toy_feature_weights(n, s, **toy_params))
    first = fit(n_labeled, seed)
    with style_context():
        figure = Figure(figsize=(12, 5.2), layout="constrained")
        ax = figure.add_subplot()
        bars = plot_feature_weights(ax, first.true_weights, first.discriminative)
        ax.legend(handles=[bars["ticks"]], loc="upper right")
    limit = 1.15 * max(np.abs(fit(min(sizes), s).weights).max() for s in range(3))
    limit = max(limit, 1.2 * np.abs(first.true_weights).max())

    def update(values):
        result = fit(values["n_labeled"], values["seed"])
        update_feature_weights(bars, result.weights, ylim=(-limit, limit))
        documents = "document" if values["n_labeled"] == 1 else "documents"
        ax.set_title(f"{values['n_labeled']} labeled {documents} per class: noise words weigh "
                     f"{result.noise_weight:.2f} on average (truly 0); "
                     f"{result.n_noise_outweighing} of {int(np.sum(~result.discriminative))} "
                     "outweigh the weakest green word")

    return Explorer("05_feature_selection-weights", figure, controls, update)


def vocabulary_explorer(sweeps, *, corpus=None, n_labeled=None, method=None, n_features=None):
    """Naive Bayes and EM accuracy against vocabulary size, replayed from precomputed sweeps.

    Left: for the chosen corpus, feature set and labeled-set size, mean test accuracy over the
    sweep's seeds (band: lowest to highest) against the number of words kept; a dotted line
    marks the chosen size. Middle: every feature set at that size (bars: mean, dots: seeds).
    Right: the first words the chosen feature set keeps on the first seed's split.

    Parameters
    ----------
    sweeps : dict of str -> VocabularySweep
        One sweep per corpus (label sizes and feature sets may differ between corpora).
    corpus, method : str or None
        Start values (default: the first).
    n_labeled : int or None
        Labeled documents per class at the start (default: the smallest).
    n_features : str or None
        Start vocabulary size as labelled in the sweep (e.g. ``"1,000"`` or ``"all"``).

    Returns
    -------
    Explorer
        Controls ``corpus``, ``n_labeled`` (main), ``method`` and ``n_features``; every change
        only replays recorded numbers.
    """
    names = list(sweeps)
    corpus = names[0] if corpus is None else corpus
    sweep = sweeps[corpus]
    labels = sweep.size_labels()
    controls = {
        "corpus": widgets.Dropdown(options=names, value=corpus, description="corpus"),
        "n_labeled": widgets.SelectionSlider(
            options=sweep.label_sizes.tolist(),
            value=int(sweep.label_sizes[0]) if n_labeled is None else n_labeled,
            description="labeled/class", continuous_update=False, style=WIDE),
        "method": widgets.Dropdown(options=list(sweep.feature_sets),
                                   value=sweep.feature_sets[0] if method is None else method,
                                   description="features",
                                   layout=widgets.Layout(width="340px")),
        "n_features": widgets.SelectionSlider(
            options=labels, value=labels[len(labels) // 2] if n_features is None else n_features,
            description="vocabulary", continuous_update=False, style=WIDE),
    }
    with style_context():
        figure = Figure(figsize=(14, 5.8), layout="constrained")
        grid = figure.add_gridspec(1, 3, width_ratios=[1.45, 1.25, 0.5])
        curve_ax, bar_ax = figure.add_subplot(grid[0]), figure.add_subplot(grid[1])
        word_ax = figure.add_subplot(grid[2])
    state = {"corpus": None, "curves": None}

    def update(values):
        current = sweeps[values["corpus"]]
        if state["corpus"] != values["corpus"]:
            _sync_options(controls, current)
            curve_ax.clear()
            with style_context():
                state["curves"] = plot_vocabulary_curves(curve_ax, current.size_labels())
            state["corpus"] = values["corpus"]
        values = {key: control.value for key, control in controls.items()}
        n, chosen = values["n_labeled"], values["method"]
        size_index = current.size_labels().index(values["n_features"])
        nb, em = current.at(chosen, n)
        update_vocabulary_curves(curve_ax, state["curves"], nb, em, current=size_index)
        curve_ax.set_title(f"{values['corpus']}, {n} labeled/class: {chosen}\n"
                           f"mean of {len(current.seeds)} seeds (band: min to max)", fontsize=11)
        bar_ax.clear()
        word_ax.clear()
        with style_context():
            at_size = [current.at(name, n) for name in current.feature_sets]
            plot_method_bars(bar_ax, list(current.feature_sets),
                             [a[0][size_index] for a in at_size],
                             [a[1][size_index] for a in at_size],
                             highlight=current.feature_sets.index(chosen))
            bar_ax.set_title(f"every feature set at {values['n_features']} words", fontsize=11)
            j = current.label_sizes.tolist().index(n)
            words = current.top_words[current.feature_sets.index(chosen), j, 0].tolist()
            plot_word_list(word_ax, f"kept first\n(seed {int(current.seeds[0])})", words)

    explorer = Explorer("05_feature_selection-vocabulary", figure, controls, update)
    return explorer


def _sync_options(controls, sweep):
    """Give the label-size, method and size controls the options of ``sweep`` (keeping the
    current values where the new options have them)."""
    for key, options in (("n_labeled", sweep.label_sizes.tolist()),
                         ("method", list(sweep.feature_sets)),
                         ("n_features", sweep.size_labels())):
        control = controls[key]
        if list(control.options) != options:
            keep = control.value
            control.options = options
            control.value = keep if keep in options else options[0]


def astray_explorer(runs, X, vocabulary, class_names, *, word, target, neighbours=(),
                    iteration=0, k=12):
    """Replay two EM runs on the same split — all words vs a cleaner feature set — and follow
    one coincidental word and the class it drags.

    Top left: the unlabeled documents each run puts in class ``target`` at the chosen iteration,
    by their true class (hatched: wrong). Top right: the class association
    ``log P(w|c) - log P(w|¬c)`` of the word (both runs) and of its ``neighbours`` (first run)
    over the iterations. Bottom left: test accuracy of both runs. Bottom right: the class's top
    ``k`` words at the chosen iteration in each run (weighted log-odds); in colour the words
    that are *not* evidence for the class with all training labels.

    Parameters
    ----------
    runs : dict of str -> AstrayRun
        Two runs of :func:`sslviz.feature_selection.astray_run` on the same split.
    X : sparse matrix
        The counts the runs were computed from (all columns).
    vocabulary : ndarray of str
    class_names : list of str
    word : int
        Corpus column of the word (e.g. from ``rank_misleading_words``).
    target : int
        Class index it is coincidentally tied to.
    neighbours : sequence of int
        Corpus columns of the words that followed it (``neighbour_words``).
    iteration : int, default=0

    Returns
    -------
    Explorer
        Controls ``iteration`` (with a Play button); every step replays the recorded traces.
    """
    run_names = list(runs)
    pulls = {name: word_pull(run, X, word, target) for name, run in runs.items()}
    last = min(len(run.model.trace_) for run in runs.values()) - 1
    slider = widgets.IntSlider(iteration, min=0, max=last, description="iteration")
    play = widgets.Play(iteration, min=0, max=last, interval=1200, description="play")
    widgets.jslink((play, "value"), (slider, "value"))
    first = runs[run_names[0]]
    paths = {f"'{vocabulary[word]}' ({name})": pulls[name].association for name in run_names}
    styles = {label: style for label, style in zip(paths, RUN_STYLES, strict=False)}
    widths = {label: 3.0 for label in paths}
    colors = {label: "black" for label in paths}
    for index, column in enumerate(neighbours):
        local = first.local(int(column))
        paths[str(vocabulary[column])] = [first.association(t, target)[local]
                                          for t in range(last + 1)]
        colors[str(vocabulary[column])] = (NOISE_COLOR, EM_COLOR, NB_COLOR, GOOD_COLOR,
                                           "#CC79A7", "#56B4E9")[index % 6]
    table = {name: _top_word_columns(run, vocabulary, target, k, last) for name, run in
             runs.items()}
    with style_context():
        figure = Figure(figsize=(14, 8.2), layout="constrained")
        grid = figure.add_gridspec(2, 2, width_ratios=[1.2, 1], height_ratios=[1, 1.1])
        intake_ax, path_ax = figure.add_subplot(grid[0, 0]), figure.add_subplot(grid[0, 1])
        accuracy_ax, word_ax = figure.add_subplot(grid[1, 0]), figure.add_subplot(grid[1, 1])
        intake = plot_class_intake(intake_ax, run_names, class_names, target)
        lines = plot_association_paths(path_ax, {key: np.asarray(v, dtype=float)
                                                 for key, v in paths.items()},
                                       styles=styles, colors=colors, widths=widths)
        path_ax.set_ylabel(f"association with '{class_names[target]}'")
        path_ax.legend(fontsize=8, loc="lower right", ncols=2)
        path_ax.set_title(f"'{vocabulary[word]}' and the words that followed it", fontsize=11)
        accuracy = {}
        for name, style in zip(run_names, RUN_STYLES, strict=False):
            accuracy[name] = plot_iteration_curve(accuracy_ax, runs[name].test_accuracy * 100,
                                                  ylabel="test accuracy (%)", label=name,
                                                  color="#333333")
            accuracy[name]["line"].set_linestyle(style)
        accuracy_ax.legend(loc="lower right")
        accuracy_ax.set_title("test accuracy after each iteration", fontsize=11)
        word_ax.set_axis_off()
        cells = {name: [word_ax.text(0.02 + 0.5 * c, 0.86 - r * 0.07, "", family="monospace",
                                     fontsize=10, transform=word_ax.transAxes)
                        for r in range(k)] for c, name in enumerate(run_names)}
        headers = {name: word_ax.text(0.02 + 0.5 * c, 0.97, "", fontweight="bold", fontsize=10,
                                      transform=word_ax.transAxes, va="top")
                   for c, name in enumerate(run_names)}
    xmax = 1.08 * max(pulls[name].assigned_by_truth.sum(axis=1).max() for name in run_names)

    def update(values):
        t = values["iteration"]
        update_class_intake(intake, [pulls[name].assigned_by_truth[t] for name in run_names],
                            xmax=xmax)
        intake_ax.set_title(f"iteration {t}: unlabeled documents in class "
                            f"'{class_names[target]}'", fontsize=11)
        update_association_paths(lines, t)
        for name in run_names:
            update_iteration_marker(accuracy[name], t)
            headers[name].set_text(f"{name}, iteration {t}")
            for cell, (text, foreign) in zip(cells[name], table[name][t], strict=True):
                cell.set_text(text)
                cell.set_color(NOISE_COLOR if foreign else "#222222")
                cell.set_fontweight("bold" if foreign else "normal")

    return Explorer("05_feature_selection-astray", figure, {"iteration": slider}, update,
                    extra_controls=[play])


def _top_word_columns(run, vocabulary, target, k, last):
    """For every iteration, the class's top ``k`` words (weighted log-odds) and whether each is
    *not* evidence for the class with all training labels."""
    reference = run.reference_association(target)
    columns = []
    for t in range(last + 1):
        scores = word_scores(run.model, iteration=t, by="log_odds")[target]
        top = np.argsort(-scores, kind="stable")[:k]
        columns.append([(str(vocabulary[run.columns[i]]), bool(reference[i] <= 0)) for i in top])
    return columns
