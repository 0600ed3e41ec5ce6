"""Lecture 11's replay explorers: the nodes and the title show the recorded step asked for."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from sslviz.experiments.graphs import toy_propagation
from sslviz.widgets.graphs import sense_explorer, toy_explorer


def test_toy_explorer_replays_the_recorded_steps_of_each_seed():
    runs = {seed: toy_propagation(n_samples=60, seed=seed) for seed in (0, 1)}
    explorer = toy_explorer(runs, seed=0)
    nodes_ax = explorer.figure.axes[0]
    for seed, step in ((0, 3), (1, 3), (1, 0), (0, 500)):
        explorer.controls["seed"].value = seed
        explorer.controls["iteration"].value = min(step, explorer.controls["iteration"].max)
        X, y, y_semi, model = runs[seed]
        shown = min(explorer.controls["iteration"].value, len(model.trace_) - 1)
        predicted = model.trace_[shown].predicted
        reached = np.mean(predicted[y_semi == -1] >= 0)
        assert explorer.last_error is None
        assert nodes_ax.get_title() == (
            f"step {shown}: labels reached {reached:.0%} of the points (exact solution: "
            f"{np.mean(model.transduction_ == y):.0%} right)")
        assert any(np.array_equal(c.get_offsets(), X) for c in nodes_ax.collections)


def test_sense_explorer_counts_reached_and_right_among_the_unlabeled():
    X, y, y_semi, model = toy_propagation(n_samples=60, seed=2)
    task = SimpleNamespace(name="toy", y=y, class_names=("left", "right"))
    explorer = sense_explorer(task, X, {0.05: (y_semi, model)}, fraction=0.05)
    legend = explorer.figure.axes[0].get_legend()  # the senses' colours, named, >= 10 pt
    assert [t.get_text() for t in legend.get_texts()] == ["left", "right", "labeled (ringed)",
                                                          "no label yet"]
    assert min(t.get_fontsize() for t in legend.get_texts()) >= 10
    explorer.controls["iteration"].value = 2
    step = min(2, len(model.trace_) - 1)
    predicted, truth = model.trace_[step].predicted[y_semi == -1], y[y_semi == -1]
    reached = predicted >= 0
    right = f"{np.mean(predicted[reached] == truth[reached]):.0%}" if reached.any() else "none"
    assert explorer.figure.axes[0].get_title() == (
        f"toy, 2 labeled, step {step}: {reached.mean():.0%} reached, {right} of those right")
