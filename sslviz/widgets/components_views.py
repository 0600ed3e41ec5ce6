"""Explorers of lecture 10: the M-EM components stepper and the co-training stepper."""

from __future__ import annotations

import ipywidgets as widgets

from ..lectures import explorer_prefix
from ..plots.common import NEW_WORD, TEXT, plot_word_columns
from ..plots.components_views import plot_error_bars, plot_wrong_picks, update_wrong_picks
from .base import Explorer, PerSetting, iteration_control, new_figure, seed_control

LECTURE = explorer_prefix(__name__)  # its explorers' names (and exported files) begin so


def components_explorer(frames, *, n_negative_components, iteration=0, n_words=8):
    """Replay recorded M-EM iterations: the top words of every component (in colour: words
    that were not among the component's top words at iteration 0).

    Parameters
    ----------
    frames : list of ndarray (n_components_total, k) of str
        From :func:`sslviz.experiments.components_views.component_top_words`.
    n_negative_components : int
        The first components belong to the negative class.
    """
    slider, play = iteration_control(len(frames) - 1, iteration)
    n_columns = frames[0].shape[0]
    with new_figure((15, 4.6)) as figure:
        ax = figure.subplots()
        artists = plot_word_columns(ax, n_columns, n_words, fontsize=10)
    headers = [f"neg {c}" if c < n_negative_components else f"pos {c - n_negative_components}"
               for c in range(n_columns)]

    def update(values):
        frame, first = frames[values["iteration"]], frames[0]
        for c, (header, cells) in enumerate(zip(artists["headers"], artists["cells"],
                                                strict=True)):
            header.set_text(headers[c])
            for cell, word in zip(cells, frame[c][:n_words], strict=True):
                new = word not in first[c][:n_words]  # not among its iteration-0 top words
                cell.set_text(word)
                cell.set_color(NEW_WORD if new else TEXT)
                cell.set_fontweight("bold" if new else "normal")
        ax.set_title(f"top words of each component, EM iteration {values['iteration']}")

    return Explorer(f"{LECTURE}-components", figure, {"iteration": slider}, update,
                    extra_controls=[play])


def cotraining_explorer(runs, *, n_labeled, seed=0, iteration=30):
    """Co-training's wrong labels so far, by the view that added them, and the errors over
    seeds.

    Parameters
    ----------
    runs : dict of int -> list of dict
        Labeled-set size -> results of
        :func:`sslviz.experiments.components_views.cotraining_experiment` (one per seed).
    """
    sizes = sorted(runs)
    last = max(int(max(r["added_iteration"])) for rs in runs.values() for r in rs)
    slider, play = iteration_control(last, iteration, minimum=1)
    controls = {"iteration": slider,
                "n_labeled": widgets.SelectionSlider(options=sizes, value=n_labeled,
                                                     description="labeled",
                                                     continuous_update=False),
                "seed": seed_control(seed, maximum=len(runs[sizes[0]]) - 1)}
    with new_figure((14, 5.2)) as figure:
        pick_ax, bar_ax = figure.subplots(1, 2, width_ratios=[1.5, 1])


    def bars(values):  # the errors over seeds, once per labeled-set size
        plot_error_bars(bar_ax, runs[values["n_labeled"]],
                        title=f"{values['n_labeled']} labeled pages (dot = seed)")

    def picks(values):  # one run's wrong picks, once per size and seed
        return plot_wrong_picks(pick_ax, runs[values["n_labeled"]][values["seed"]])

    def update(values, drawn):
        update_wrong_picks(drawn["picks"], values["iteration"])

    return Explorer(f"{LECTURE}-co_training", figure, controls, update, extra_controls=[play],
                    setup={"bars": PerSetting(("n_labeled",), bars),
                           "picks": PerSetting(("n_labeled", "seed"), picks)})
