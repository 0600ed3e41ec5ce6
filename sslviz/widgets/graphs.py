"""Explorers of the graph lecture (11).

* :func:`toy_explorer` -- two moons, one label each: the harmonic propagation replayed step by
  step (which nodes the labels have reached, and with which class), beside the share of nodes
  reached and the largest change per step.
* :func:`sense_explorer` -- the same replay on the graph of a word's Senseval instances, drawn on
  lecture 03's map of the instances, for each labeled fraction.
* :func:`curves_explorer` -- accuracy against the labeled setting for every method and task,
  and at one setting a bar per method with a dot per seed.

Every control replays or looks up what the experiments computed; nothing is refitted here.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from ..label_propagation import step_summary
from ..lectures import explorer_prefix
from ..plots.common import plot_iteration_curve, plot_seed_bars, update_iteration_marker
from ..plots.graphs import (
    METHOD_COLORS,
    METHOD_LABELS,
    mark_setting,
    plot_graph_nodes,
    plot_method_curves,
    update_graph_nodes,
)
from .base import Explorer, PerSetting, iteration_control, new_figure

LECTURE = explorer_prefix(__name__)  # its explorers' names (and exported files) begin so


def _step_panel(ax, model, truth, rows):
    """Share of ``rows`` reached (%) per step, with a marker; returns the marker artists."""
    reached, accuracy = step_summary(model.trace_, truth, rows)
    ax.clear()
    artists = plot_iteration_curve(ax, 100 * reached, ylabel="% of unlabeled nodes",
                                   label="reached by a label", xlabel="propagation step")
    ax.plot(100 * accuracy, color="0.3", linestyle="--", label="right, among those reached")
    ax.set_ylim(0, 102)
    ax.legend(loc="lower right", fontsize=11)
    return artists


def _replay(nodes_ax, steps_ax, run_of, title_of, run_control):
    """The update and setup both replay explorers share: a new run (``run_control`` changed)
    draws the graph and its step curve; then the nodes and the marker show step ``iteration``
    of the recorded trace (the slider spans the longest run: a shorter one stays at its end).

    ``run_of(values)`` -> ``(model, y_semi, truth, draw_nodes)``, where
    ``draw_nodes(ax, predicted, labeled)`` draws the graph's nodes; ``title_of(values, model,
    y_semi, step)`` is the title of the node panel. Returns the explorer's keyword arguments.
    """

    def draw_run(values):
        model, y_semi, truth, draw_nodes = run_of(values)
        return {"nodes": draw_nodes(nodes_ax, model.trace_[0].predicted, y_semi != -1),
                "marker": _step_panel(steps_ax, model, truth, np.flatnonzero(y_semi == -1))}

    def update(values, drawn):
        model, y_semi, _, _ = run_of(values)
        step = min(values["iteration"], len(model.trace_) - 1)
        update_graph_nodes(drawn["run"]["nodes"], model.trace_[step].predicted, ax=nodes_ax,
                           title=title_of(values, model, y_semi, step))
        update_iteration_marker(drawn["run"]["marker"], step)

    return {"update": update, "setup": {"run": PerSetting((run_control,), draw_run)}}


def toy_explorer(runs, *, seed, iteration=0):
    """Replay recorded harmonic propagations on 2-D points, one per seed.

    ``runs``: dict seed -> ``(X, y, y_semi, model)`` (model fitted with ``record="full"``, as
    :func:`sslviz.experiments.graphs.toy_propagation` returns).
    """
    last = max(len(run[3].trace_) for run in runs.values()) - 1
    slider, play = iteration_control(last, iteration, description="step")
    controls = {"seed": widgets.Dropdown(options=sorted(runs), value=seed, description="seed",
                                         layout=widgets.Layout(width="160px")),
                "iteration": slider}
    with new_figure((12.5, 5.2)) as figure:
        nodes_ax, steps_ax = figure.subplots(1, 2, width_ratios=[1.3, 1])

    def run_of(values):
        X, y, y_semi, model = runs[values["seed"]]

        def draw_nodes(ax, predicted, labeled):
            return plot_graph_nodes(ax, X, predicted, labeled, edges=_graph_of(model, X),
                                    size=18)

        return model, y_semi, np.searchsorted(model.classes_, y), draw_nodes

    def title_of(values, model, y_semi, step):
        y = runs[values["seed"]][1]
        reached = np.mean(model.trace_[step].predicted[y_semi == -1] >= 0)
        return (f"step {step}: labels reached {reached:.0%} of the points "
                f"(exact solution: {np.mean(model.transduction_ == y):.0%} right)")

    return Explorer(f"{LECTURE}-toy", figure, controls,
                    **_replay(nodes_ax, steps_ax, run_of, title_of, "seed"),
                    extra_controls=[play], main="iteration")


def _graph_of(model, X):
    from ..label_propagation import knn_affinity

    return knn_affinity(X, model.n_neighbors, model.metric)


def sense_explorer(task, coords, runs, *, fraction, iteration=0):
    """Replay the propagation on a word's instances for each labeled fraction.

    Parameters
    ----------
    task : GraphTask of the word
    coords : (n_instances, 2) map of the instances
    runs : dict fraction -> (y_semi, model fitted with record="full")
        (:func:`sslviz.experiments.graphs.sense_propagation` for each fraction)
    """
    by_name = {f"{100 * f:g}%": f for f in sorted(runs)}  # the caption shows what the slider shows
    last = max(len(model.trace_) for _, model in runs.values()) - 1
    slider, play = iteration_control(last, iteration, description="step")
    controls = {
        "n_labeled": widgets.SelectionSlider(
            options=list(by_name), value=f"{100 * fraction:g}%", description="labeled",
            continuous_update=False, style={"description_width": "initial"}),
        "iteration": slider,
    }
    with new_figure((13, 5.6)) as figure:
        map_ax, steps_ax = figure.subplots(1, 2, width_ratios=[1.3, 1])

    def draw_nodes(ax, predicted, labeled):
        # hundreds of labeled instances: small, thinly ringed, so the map stays readable
        return plot_graph_nodes(ax, coords, predicted, labeled, size=6, labeled_scale=3,
                                ring_width=0.5, class_names=task.class_names)

    def run_of(values):
        y_semi, model = runs[by_name[values["n_labeled"]]]
        return model, y_semi, task.y, draw_nodes

    def title_of(values, model, y_semi, step):
        unlabeled = y_semi == -1
        predicted, truth = model.trace_[step].predicted[unlabeled], task.y[unlabeled]
        reached = predicted >= 0
        right = f"{np.mean(predicted[reached] == truth[reached]):.0%}" if reached.any() else "none"
        return (f"{task.name}, {int((~unlabeled).sum())} labeled, step {step}: "
                f"{reached.mean():.0%} reached, {right} of those right")

    return Explorer(f"{LECTURE}-senses", figure, controls,
                    **_replay(map_ax, steps_ax, run_of, title_of, "n_labeled"),
                    extra_controls=[play], main="n_labeled")


def curves_explorer(experiments, *, name, setting=None):
    """Accuracy curves of several experiments over the same settings, and the spread over seeds
    at one setting.

    Parameters
    ----------
    experiments : dict title -> (Curves, methods, x label); all with the same ``settings``
    name : str
        The explorer's name in exported files (``11_graphs-<name>``).
    """
    titles = list(experiments)
    settings = experiments[titles[0]][0].settings
    if any(not np.array_equal(c.settings, settings) for c, _, _ in experiments.values()):
        raise ValueError("every experiment of one explorer needs the same settings")
    options = [f"{s:g}" for s in settings]
    controls = {
        "experiment": widgets.Dropdown(options=titles, description="task",
                                       layout=widgets.Layout(width="420px")),
        "n_labeled": widgets.SelectionSlider(
            options=options, value=f"{setting if setting is not None else settings[0]:g}",
            description=experiments[titles[0]][2], continuous_update=False,
            style={"description_width": "initial"}),
    }
    with new_figure((13, 5.2)) as figure:
        curve_ax, bar_ax = figure.subplots(1, 2, width_ratios=[1.4, 1])

    def draw_curves(values):  # the task's curves; its marker is made by the first update
        curves, methods, xlabel = experiments[values["experiment"]]
        plot_method_curves(curve_ax, curves.settings, curves.results, methods, xlabel=xlabel)
        curve_ax.set_title(values["experiment"])
        return {"marker": None}

    def update(values, drawn):
        curves, methods, xlabel = experiments[values["experiment"]]
        row, kept = options.index(values["n_labeled"]), drawn["curves"]
        kept["marker"] = mark_setting(curve_ax, kept["marker"], curves.settings[row])
        plot_seed_bars(bar_ax, [(METHOD_LABELS[m].replace(" ", "\n", 1), curves[m][row],
                                 METHOD_COLORS[m]) for m in methods],
                       title=f"{xlabel} {values['n_labeled']}: a dot per seed")
        bar_ax.tick_params(axis="x", labelsize=10)

    return Explorer(f"{LECTURE}-{name}", figure, controls, update, main="n_labeled",
                    setup={"curves": PerSetting(("experiment",), draw_curves)})
