"""Explorers of Lecture 5 (feature selection in semi-supervised learning).

* :func:`feature_weights_explorer` — the lecture's picture: Naive Bayes weights of
  discriminative (green) and noise (red) words, learned from few or many labeled documents.
* :func:`vocabulary_explorer` — Naive Bayes vs EM accuracy against vocabulary size, per
  selection method, labeled-set size and corpus (replays a precomputed
  :class:`sslviz.experiments.feature_selection.VocabularySweep`; nothing is refit).
* :func:`astray_explorer` — one coincidental word leading EM astray, replayed iteration by
  iteration from the recorded traces of two runs (all words vs a cleaner feature set).
"""

from __future__ import annotations

from functools import lru_cache

import ipywidgets as widgets
import numpy as np

from ..experiments.feature_selection import toy_feature_weights
from ..feature_selection_astray import class_top_words, word_pull
from ..lectures import explorer_prefix
from ..plots.common import plot_word_columns, update_iteration_marker
from ..plots.feature_selection import (
    plot_class_intake,
    plot_feature_weights,
    plot_method_bars,
    plot_run_accuracies,
    plot_vocabulary_curves,
    plot_word_list,
    plot_word_paths,
    update_association_paths,
    update_class_intake,
    update_feature_weights,
    update_flagged_word_columns,
    update_vocabulary_curves,
)
from .base import Explorer, PerSetting, iteration_control, new_figure, seed_control

LECTURE = explorer_prefix(__name__)  # its explorers' names (and exported files) begin so

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
    sizes : sequence of int, default=TOY_SIZES
        Choices of the labeled-set slider.
    **toy_params
        Of :func:`sslviz.experiments.feature_selection.toy_feature_weights`.

    Returns
    -------
    Explorer
        Controls ``n_labeled`` and ``seed`` (a refit takes milliseconds).
    """
    controls = {"n_labeled": _selection_slider(sizes, n_labeled, "labeled/class"),
                "seed": seed_control(seed)}
    fit = lru_cache(maxsize=128)(lambda n, s: toy_feature_weights(n, s, **toy_params))
    first = fit(n_labeled, seed)
    with new_figure((12, 5.2)) as figure:
        bars = plot_feature_weights(figure.add_subplot(), first.true_weights,
                                    first.discriminative)
    limit = 1.15 * max(np.abs(fit(min(sizes), s).weights).max() for s in range(3))
    limit = max(limit, 1.2 * np.abs(first.true_weights).max())

    def update(values):
        n = values["n_labeled"]
        result = fit(n, values["seed"])
        title = (f"{n} labeled {'document' if n == 1 else 'documents'} per class: noise words "
                 f"weigh {result.noise_weight:.2f} on average (truly 0); "
                 f"{result.n_noise_outweighing} of {int(np.sum(~result.discriminative))} "
                 "outweigh the weakest green word")
        update_feature_weights(bars, result.weights, ylim=(-limit, limit), title=title)

    return Explorer(f"{LECTURE}-weights", figure, controls, update)


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
    controls = _vocabulary_controls(sweeps, corpus, n_labeled, method, n_features)
    with new_figure((14, 5.8)) as figure:
        grid = figure.add_gridspec(1, 3, width_ratios=[1.45, 1.25, 0.5])
        curve_ax, bar_ax, word_ax = (figure.add_subplot(cell) for cell in grid)

    def curves(values):  # one curve per vocabulary size of the corpus, drawn once per corpus
        return plot_vocabulary_curves(curve_ax, sweeps[values["corpus"]].size_labels())

    def update(values, drawn):
        sweep = sweeps[values["corpus"]]
        n, chosen, size = values["n_labeled"], values["method"], values["n_features"]
        index = sweep.size_labels().index(size)
        update_vocabulary_curves(curve_ax, drawn["curves"], *sweep.at(chosen, n), current=index,
                                 title=f"{values['corpus']}, {n} labeled/class: {chosen}\n"
                                       f"mean of {len(sweep.seeds)} seeds (band: min to max)")
        at_size = [sweep.at(name, n) for name in sweep.feature_sets]
        plot_method_bars(bar_ax, list(sweep.feature_sets), [nb[index] for nb, _ in at_size],
                         [em[index] for _, em in at_size],
                         highlight=sweep.feature_sets.index(chosen),
                         title=f"every feature set at {size} words")
        words = sweep.top_words[sweep.feature_sets.index(chosen),
                                sweep.label_sizes.tolist().index(n), 0]
        plot_word_list(word_ax, f"kept first\n(seed {int(sweep.seeds[0])})", words.tolist())

    return Explorer(f"{LECTURE}-vocabulary", figure, controls, update,
                    ranges=_vocabulary_ranges(sweeps),
                    setup={"curves": PerSetting(("corpus",), curves)})


def _selection_slider(options, value, description):
    return widgets.SelectionSlider(options=list(options), value=value, description=description,
                                   continuous_update=False, style=WIDE)


def _vocabulary_controls(sweeps, corpus, n_labeled, method, n_features):
    """The controls of :func:`vocabulary_explorer`, with the options of the start corpus."""
    corpus = next(iter(sweeps)) if corpus is None else corpus
    sweep = sweeps[corpus]
    labels = sweep.size_labels()
    return {
        "corpus": widgets.Dropdown(options=list(sweeps), value=corpus, description="corpus"),
        "n_labeled": _selection_slider(
            sweep.label_sizes.tolist(),
            int(sweep.label_sizes[0]) if n_labeled is None else n_labeled, "labeled/class"),
        "method": widgets.Dropdown(options=list(sweep.feature_sets),
                                   value=sweep.feature_sets[0] if method is None else method,
                                   description="features", layout=widgets.Layout(width="340px")),
        "n_features": _selection_slider(
            labels, labels[len(labels) // 2] if n_features is None else n_features,
            "vocabulary"),
    }


def _vocabulary_ranges(sweeps):
    """The options of the label-size, method and size controls: those of the chosen corpus's
    sweep (a value the new options have is kept)."""
    return {"n_labeled": lambda values: sweeps[values["corpus"]].label_sizes.tolist(),
            "method": lambda values: list(sweeps[values["corpus"]].feature_sets),
            "n_features": lambda values: sweeps[values["corpus"]].size_labels()}


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
        Two runs of :func:`sslviz.experiments.feature_selection.astray_run` on the same split.
    X : sparse matrix
        The counts the runs were computed from (all columns).
    vocabulary : ndarray of str
    class_names : list of str
    word : int
        Corpus column of the word (e.g. from ``rank_misleading_words``).
    target : int
        Class index it is coincidentally tied to.
    neighbours : sequence of int, default=()
        Corpus columns of the words that followed it (``neighbour_words``).
    iteration : int, default=0
    k : int, default=12
        Words per column of the table.

    Returns
    -------
    Explorer
        Controls ``iteration`` (with a Play button); every step replays the recorded traces.
    """
    names = list(runs)
    pulls = {name: word_pull(run, X, word, target) for name, run in runs.items()}
    last = min(len(run.model.trace_) for run in runs.values()) - 1
    slider, play = iteration_control(last, iteration)
    tables = {name: class_top_words(run, vocabulary, target, k=k) for name, run in runs.items()}
    with new_figure((14, 8.2)) as figure:
        grid = figure.add_gridspec(2, 2, width_ratios=[1.2, 1], height_ratios=[1, 1.1])
        intake_ax, path_ax, accuracy_ax, word_ax = (figure.add_subplot(cell) for cell in grid)
        intake = plot_class_intake(intake_ax, names, class_names, target)
        paths = plot_word_paths(
            path_ax, {f"'{vocabulary[word]}' ({name})": pulls[name].association for name in names},
            {str(vocabulary[column]): runs[names[0]].association_path(column, target)[:last + 1]
             for column in neighbours},
            ylabel=f"association with '{class_names[target]}'",
            title=f"'{vocabulary[word]}' and the words that rose with it")
        accuracy = plot_run_accuracies(accuracy_ax, {name: runs[name].test_accuracy
                                                     for name in names})
        table = plot_word_columns(word_ax, len(names), k, fontsize=10)
        for header in table["headers"]:  # two-line headers (run, iteration) grow upwards
            header.set_verticalalignment("bottom")
            header.set_y(0.75)
    xmax = 1.08 * max(pull.assigned_by_truth.sum(axis=1).max() for pull in pulls.values())

    def update(values):
        t = values["iteration"]
        update_class_intake(intake, [pulls[name].assigned_by_truth[t] for name in names],
                            xmax=xmax)
        intake_ax.set_title(f"iteration {t}: unlabeled documents in class "
                            f"'{class_names[target]}'", fontsize=11)
        update_association_paths(paths, t)
        for curve in accuracy.values():
            update_iteration_marker(curve, t)
        update_flagged_word_columns(table, [f"{name}\niteration {t}" for name in names],
                                    [tables[name][0][t] for name in names],
                                    [tables[name][1][t] for name in names])

    return Explorer(f"{LECTURE}-astray", figure, {"iteration": slider}, update,
                    extra_controls=[play])
