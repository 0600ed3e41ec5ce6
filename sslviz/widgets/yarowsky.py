"""Explorers of the Yarowsky lecture (03): a stepper through the iterations of a run, and a
decision list trained on hand-labeled instances for comparison."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from ..experiments.yarowsky import YarowskyRuns
from ..lectures import explorer_prefix
from ..metrics import majority_accuracy
from ..plots.common import update_size_marker
from ..plots.yarowsky import (
    plot_hand_vs_seeds,
    plot_iteration_maps,
    plot_label_map,
    plot_rule_table,
    plot_run_scores,
    plot_supervised_curve,
    update_decision_list,
    update_iteration_map,
    update_run_markers,
)
from ..yarowsky import MODES, strongest_rules
from .base import Explorer, PerSetting, iteration_control, new_figure

LECTURE = explorer_prefix(__name__)  # its explorers' names (and exported files) begin so

THRESHOLDS = (0.8, 0.9, 0.95, 0.98, 0.99)


def yarowsky_explorer(runs=None, *, word="line", seed_set=None, threshold=0.95, mode="keep",
                      n_rules=14):
    """Step through a recorded Yarowsky run: labels spreading, the decision list, the scores.

    Left: the pool instances on a 2-D map (:func:`sslviz.experiments.yarowsky.instance_map`),
    coloured by their current label (grey: unlabeled), ringed when they joined in this
    iteration, crossed when their label is wrong. Top right: the strongest rules of the decision
    list trained on these labels. Bottom right: coverage, fraction of labels right and test
    accuracy per iteration, against a decision list trained on as many hand-labeled instances as
    the seeds labeled (mean over draws) and the majority sense.

    Moving ``iteration`` replays the trace; ``word``, ``seeds``, ``threshold`` and ``mode`` refit
    (cached). The maps of the neighbouring words are computed in the explorer's background
    thread as soon as a figure is shown (``prepare``: :meth:`YarowskyRuns.map`, about two
    seconds each, kept in the disk cache), so a new word usually finds its map ready.

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
    seed_set = _first_seed_set(runs, word) if seed_set is None else seed_set
    first = runs.run(word, seed_set, threshold, mode)
    iteration, play = iteration_control(len(first.model.trace_) - 1, interval=1500)
    controls = {"iteration": iteration, **_run_controls(runs, word, seed_set, threshold, mode)}
    with new_figure((13.5, 7)) as figure:
        grid = figure.add_gridspec(2, 2, width_ratios=[1.15, 1], height_ratios=[1.15, 1])
        axes = {"map": figure.add_subplot(grid[:, 0]), "table": figure.add_subplot(grid[0, 1]),
                "curves": figure.add_subplot(grid[1, 1])}
    setting = ("word", "seeds", "threshold", "mode")

    def run_of(values):
        return runs.run(*(values[name] for name in setting))

    def draw_run(values):  # the map's points, the rule table and the curves of a new run
        return _draw_run(axes, runs, run_of(values), runs.task(values["word"]), n_rules)

    def update(values, drawn):
        run, task, current = run_of(values), runs.task(values["word"]), values["iteration"]
        state = drawn["run"]
        update_iteration_map(axes["map"], state["map"], run.model, task.y[task.pool], current,
                             detailed=True)
        update_decision_list(state["table"], *strongest_rules(
            run.model, task.feature_names, current, k=len(state["table"]["rows"])))
        update_run_markers(state["curves"], current)

    def prepare(values):
        runs.map(values["word"])
        yield

    ranges = {"seeds": lambda values: list(runs.catalog[values["word"]]["seeds"]),
              "iteration": lambda values: (0, len(run_of(values).model.trace_) - 1)}
    return Explorer(f"{LECTURE}-stepper", figure, controls, update, extra_controls=[play],
                    ranges=ranges, setup={"run": PerSetting(setting, draw_run)},
                    prepare=prepare, prepare_in_background=True)


def _first_seed_set(runs, word):
    return list(runs.catalog[word]["seeds"])[0]


def _run_controls(runs, word, seed_set, threshold, mode):
    """The controls that choose a run: word, seed set, threshold, mode."""
    return {
        "word": widgets.Dropdown(options=list(runs.catalog), value=word, description="word"),
        "seeds": widgets.Dropdown(options=list(runs.catalog[word]["seeds"]), value=seed_set,
                                  description="seeds", layout=widgets.Layout(width="380px")),
        "threshold": widgets.SelectionSlider(options=list(THRESHOLDS), value=threshold,
                                             description="threshold", continuous_update=False),
        "mode": widgets.Dropdown(options=list(MODES), value=mode, description="mode",
                                 layout=widgets.Layout(width="200px")),
    }


def _draw_run(axes, runs, run, task, n_rules):
    """Redraw the map's points, the empty rule table and the curves for a new run."""
    senses = list(run.model.classes_)
    for ax in axes.values():
        ax.clear()
    n_seeded = run.model.trace_[0].n_labeled
    title = (f"{task.word}: {len(task.pool)} unlabeled pool instances, "
             f"{len(task.test)} test instances")
    return {
        "map": plot_label_map(axes["map"], runs.map(task.word), senses, size=9),
        "table": plot_rule_table(axes["table"], n_rules, senses),
        "curves": plot_run_scores(
            axes["curves"], run, supervised=runs.supervised(task.word, n_seeded).mean(),
            n_hand=n_seeded, majority=majority_accuracy(task.y[task.test], senses),
            title=title),
    }


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
    seed_set = _first_seed_set(runs, word) if seed_set is None else seed_set
    run, task = runs.run(word, seed_set, threshold, mode), runs.task(word)
    sizes = sorted({int(s) for s in sizes if s < len(task.pool)} | {len(task.pool)})
    n_seeded = run.model.trace_[0].n_labeled
    accuracy = np.array([runs.supervised(word, size) for size in sizes])
    final = run.test_accuracy[-1]
    controls = {"n_labeled": widgets.SelectionSlider(
        options=sizes, value=sizes[len(sizes) // 2] if n_labeled is None else n_labeled,
        description="hand labels")}
    with new_figure((13, 5.4)) as figure:
        curve_ax, point_ax = figure.subplots(1, 2, width_ratios=[1.6, 1])
        plot_supervised_curve(
            curve_ax, sizes, accuracy, yarowsky=final,
            yarowsky_label=f"Yarowsky ({seed_set}; {n_seeded} seed-labeled)",
            majority=majority_accuracy(task.y[task.test], run.model.classes_),
            title=f"{word}: {' vs '.join(run.model.classes_)}, threshold {threshold}, {mode}")
    state = {"marker": None}

    def update(values):
        size = values["n_labeled"]
        state["marker"] = update_size_marker(curve_ax, state["marker"], size)
        plot_hand_vs_seeds(point_ax, accuracy[sizes.index(size)], final, n_hand=size,
                           n_seeded=n_seeded)

    return Explorer(f"{LECTURE}-supervised", figure, controls, update)


def iteration_maps_figure(runs=None, *, word="line", seed_set=None, threshold=0.95,
                          mode="keep", iterations=(0, 1, 2)):
    """A static figure of the lecture's picture: the labeled pool after ``iterations``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    runs = YarowskyRuns() if runs is None else runs
    seed_set = _first_seed_set(runs, word) if seed_set is None else seed_set
    run, task = runs.run(word, seed_set, threshold, mode), runs.task(word)
    with new_figure((4.4 * len(iterations), 4.6), dpi=80) as figure:
        axes = figure.subplots(1, len(iterations), squeeze=False)[0]
        plot_iteration_maps(axes, runs.map(word), run.model, task.y[task.pool], iterations)
    return figure
