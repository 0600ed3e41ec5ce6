"""Explorers of the Yarowsky lecture (03): a stepper through the iterations of a run, and a
decision list trained on hand-labeled instances for comparison."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from ..export import OKABE_ITO, style_context
from ..plots.em import plot_learning_curve, update_size_marker
from ..plots.yarowsky import (
    plot_iteration_maps,
    plot_label_map,
    plot_rule_table,
    plot_run_curves,
    sense_colors,
    update_label_map,
    update_rule_table,
    update_run_markers,
)
from ..yarowsky import YarowskyRuns, decision_list_at, top_rules
from .base import Explorer

THRESHOLDS = (0.8, 0.9, 0.95, 0.98, 0.99)
MODES = ("keep", "rejudge")
CURVE_COLORS = {"coverage": OKABE_ITO[2], "labels right": OKABE_ITO[4],
                "test accuracy": OKABE_ITO[0]}


def yarowsky_explorer(runs=None, *, word="line", seed_set=None, threshold=0.95, mode="keep",
                      n_rules=14):
    """Step through a recorded Yarowsky run: labels spreading, the decision list, the scores.

    Left: the pool instances on a 2-D map (:func:`sslviz.yarowsky.instance_map`), coloured by
    their current label (grey: unlabeled), ringed when they joined in this iteration, crossed
    when their label is wrong. Top right: the strongest rules of the decision list trained on
    these labels. Bottom right: coverage, fraction of labels right and test accuracy per
    iteration, against a decision list trained on as many hand-labeled instances as the seeds
    labeled (mean over draws) and the majority sense.

    Moving ``iteration`` replays the trace; ``word``, ``seeds``, ``threshold`` and ``mode`` refit
    (cached; a new word also computes its map, a few seconds).

    Parameters
    ----------
    runs : YarowskyRuns or None
        Shared cache (default: a new one over ``LECTURE_SEEDS``).

    Returns
    -------
    Explorer
        Controls ``iteration`` (with a Play button), ``word``, ``seeds``, ``threshold``, ``mode``.
    """
    runs = YarowskyRuns() if runs is None else runs
    seed_names = list(runs.catalog[word]["seeds"])
    seed_set = seed_names[0] if seed_set is None else seed_set
    first = runs.run(word, seed_set, threshold, mode)
    iteration = widgets.IntSlider(0, min=0, max=len(first.model.trace_) - 1,
                                  description="iteration")
    play = widgets.Play(0, min=0, max=iteration.max, interval=1500, description="play")
    widgets.jslink((play, "value"), (iteration, "value"))
    controls = {
        "iteration": iteration,
        "word": widgets.Dropdown(options=list(runs.catalog), value=word, description="word"),
        "seeds": widgets.Dropdown(options=seed_names, value=seed_set, description="seeds",
                                  layout=widgets.Layout(width="380px")),
        "threshold": widgets.SelectionSlider(options=list(THRESHOLDS), value=threshold,
                                             description="threshold", continuous_update=False),
        "mode": widgets.Dropdown(options=list(MODES), value=mode, description="mode",
                                 layout=widgets.Layout(width="200px")),
    }
    with style_context():
        figure = Figure(figsize=(13.5, 7), layout="constrained")
        grid = figure.add_gridspec(2, 2, width_ratios=[1.15, 1], height_ratios=[1.15, 1])
        map_ax = figure.add_subplot(grid[:, 0])
        table_ax, curve_ax = figure.add_subplot(grid[0, 1]), figure.add_subplot(grid[1, 1])
        table = plot_rule_table(table_ax, n_rules)
    state = {"key": None}

    def update(values):
        word_now = values["word"]
        names = list(runs.catalog[word_now]["seeds"])
        if list(controls["seeds"].options) != names:  # a new word: its own seed sets
            controls["seeds"].options = names
            controls["seeds"].value = names[0]
        seeds_now = controls["seeds"].value
        run = runs.run(word_now, seeds_now, values["threshold"], values["mode"])
        task = runs.task(word_now)
        last = len(run.model.trace_) - 1
        iteration.max = play.max = last
        current = min(values["iteration"], last)
        key = (word_now, seeds_now, values["threshold"], values["mode"])
        if state["key"] != key:
            _draw_run(map_ax, curve_ax, runs, word_now, run, task, state)
            state["key"] = key
        _show_iteration(run, task, current, state, table, map_ax)

    return Explorer("03_yarowsky-stepper", figure, controls, update, extra_controls=[play])


def _draw_run(map_ax, curve_ax, runs, word, run, task, state):
    """Redraw the map's artists and the curves for a new run (the map itself is cached)."""
    senses = list(run.model.classes_)
    map_ax.clear()
    curve_ax.clear()
    n0 = run.model.trace_[0].n_labeled
    supervised = runs.supervised(word, n0)
    majority = max(np.mean(task.y[task.test] == s) for s in senses)
    with style_context():
        state["map"] = plot_label_map(map_ax, runs.map(word), senses, size=9)
        state["curves"] = plot_run_curves(
            curve_ax,
            {"coverage": (run.coverage, CURVE_COLORS["coverage"]),
             "labels right": (run.label_accuracy, CURVE_COLORS["labels right"]),
             "test accuracy": (run.test_accuracy, CURVE_COLORS["test accuracy"])},
            baselines={f"supervised list, {n0} hand labels": (supervised.mean(), "0.25", "--"),
                       "majority sense": (majority, "0.55", ":")})
    curve_ax.set_ylim(0, 102)
    curve_ax.set_title(f"{task.word}: {len(task.pool)} unlabeled pool instances, "
                       f"{len(task.test)} test instances")
    state["senses"] = {sense: i for i, sense in enumerate(senses)}
    state["colors"] = sense_colors(len(senses))


def _show_iteration(run, task, iteration, state, table, map_ax):
    """Replay one recorded iteration: labels on the map, its decision list, the markers."""
    step = run.model.trace_[iteration]
    gold = task.y[task.pool]
    labeled = step.labeled
    wrong = labeled[run.model.classes_[step.labels[labeled]] != gold[labeled]]
    update_label_map(state["map"], step.labels, new=step.added, wrong=wrong)
    map_ax.set_title(f"iteration {iteration}: {step.n_labeled} of {len(step.labels)} instances "
                     f"labeled ({step.coverage:.0%}), {len(step.added)} new, "
                     f"{len(wrong)} wrong")
    decision_list = decision_list_at(run.model, iteration)
    rules = top_rules(decision_list, task.feature_names, k=len(table["rows"]))
    title = (f"decision list trained on these labels: top {len(rules)} of "
             f"{len(decision_list.rule_feature_)} rules")
    update_rule_table(table, title, rules, state["colors"], state["senses"])
    update_run_markers(state["curves"], iteration)


def supervised_explorer(runs=None, *, word="line", seed_set=None, threshold=0.95, mode="keep",
                        sizes=(10, 20, 50, 100, 200, 500, 1000), n_labeled=None):
    """How many hand-labeled instances does a supervised decision list need to match Yarowsky?

    Left: test accuracy of a decision list trained on ``n_labeled`` randomly drawn hand-labeled
    pool instances (mean over the draws, spread shaded), with Yarowsky's final test accuracy
    (from its seeds alone) and the majority sense as horizontal lines. Right: each draw at the
    chosen size beside Yarowsky. ``sizes`` larger than the pool are dropped and the whole pool
    is added as the last size. All sizes are fitted once, when the explorer is built.

    Returns
    -------
    Explorer
        Control ``n_labeled`` (a replay of the precomputed accuracies).
    """
    runs = YarowskyRuns() if runs is None else runs
    seed_set = list(runs.catalog[word]["seeds"])[0] if seed_set is None else seed_set
    run = runs.run(word, seed_set, threshold, mode)
    task = runs.task(word)
    sizes = sorted({int(s) for s in sizes if s < len(task.pool)} | {len(task.pool)})
    n0 = run.model.trace_[0].n_labeled
    n_labeled = sizes[len(sizes) // 2] if n_labeled is None else n_labeled
    accuracy = np.array([runs.supervised(word, size) for size in sizes])
    final = run.test_accuracy[-1]
    majority = max(np.mean(task.y[task.test] == s) for s in run.model.classes_)
    controls = {"n_labeled": widgets.SelectionSlider(options=sizes, value=n_labeled,
                                                     description="hand labels")}
    with style_context():
        figure = Figure(figsize=(13, 5.4), layout="constrained")
        curve_ax, point_ax = figure.subplots(1, 2, width_ratios=[1.6, 1])
        plot_learning_curve(curve_ax, sizes, accuracy, label="supervised decision list",
                            color=OKABE_ITO[0])
        curve_ax.axhline(final * 100, color=OKABE_ITO[3], linewidth=2,
                         label=f"Yarowsky ({seed_set}; {n0} seed-labeled)")
        curve_ax.axhline(majority * 100, color="0.5", linestyle=":", label="majority sense")
        curve_ax.set_xlabel("hand-labeled pool instances")
        curve_ax.legend(loc="lower right")
        curve_ax.set_title(f"{word}: {' vs '.join(run.model.classes_)}, "
                           f"threshold {threshold}, {mode}")
    state = {"marker": None}

    def update(values):
        size = values["n_labeled"]
        state["marker"] = update_size_marker(curve_ax, state["marker"], size)
        _draw_comparison(point_ax, accuracy[sizes.index(size)], final, size, n0)

    return Explorer("03_yarowsky-supervised", figure, controls, update)


def _draw_comparison(ax, supervised, final, size, n0):
    ax.clear()
    with style_context():
        bars = ((f"supervised\n{size} hand labels", np.asarray(supervised) * 100, OKABE_ITO[0]),
                (f"Yarowsky\n{n0} seed-labeled", np.array([final * 100]), OKABE_ITO[3]))
        for x, (_, values, color) in enumerate(bars):
            ax.bar(x, values.mean(), color=color, alpha=0.35, width=0.6)
            ax.plot(np.full(len(values), x), values, "o", color=color)
            ax.text(x, values.mean() + 1, f"{values.mean():.1f}%", ha="center", va="bottom",
                    fontweight="bold")
        ax.set_xticks([0, 1], [label for label, _, _ in bars])
        ax.set_ylim(0, 105)
        ax.set_ylabel("test accuracy (%)")
        ax.set_title("each dot a random draw of hand labels")
        ax.grid(alpha=0.3, axis="y")


def iteration_maps_figure(runs=None, *, word="line", seed_set=None, threshold=0.95,
                          mode="keep", iterations=(0, 1, 2)):
    """A static figure of the lecture's picture: the labeled pool after ``iterations``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    runs = YarowskyRuns() if runs is None else runs
    seed_set = list(runs.catalog[word]["seeds"])[0] if seed_set is None else seed_set
    run = runs.run(word, seed_set, threshold, mode)
    task = runs.task(word)
    with style_context():
        figure = Figure(figsize=(4.4 * len(iterations), 4.6), dpi=80, layout="constrained")
        axes = figure.subplots(1, len(iterations), squeeze=False)[0]
        plot_iteration_maps(axes, runs.map(word), run.model, task.y[task.pool], iterations)
    return figure
