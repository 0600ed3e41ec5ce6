"""The explorer benchmark's plan of visits and its bookkeeping (no timing is asserted)."""

from __future__ import annotations

import asyncio

import ipywidgets as widgets
import pytest
from helpers import in_fresh_thread
from matplotlib.figure import Figure

from sslviz.bench_explorers import (
    control_kind,
    format_explorer_table,
    measure_explorer,
    visit_plan,
)
from sslviz.widgets import Explorer


def test_control_kinds():
    assert control_kind(widgets.IntSlider(0, min=0, max=5)) == "replay"
    assert control_kind(widgets.IntSlider(0, min=0, max=5, continuous_update=False)) == "refit"
    assert control_kind(widgets.Dropdown(options=["a", "b"])) == "refit"
    assert control_kind(widgets.BoundedIntText(0, min=0, max=9)) == "refit"


def test_visit_plan_steps_out_and_back_marking_first_visits():
    plan = visit_plan(widgets.IntSlider(1, min=0, max=10), n_steps=3)
    assert plan == [(2, True), (3, True), (4, True), (3, False), (2, False), (1, False)]
    top = visit_plan(widgets.IntSlider(10, min=0, max=10), n_steps=2)
    assert top == [(9, True), (8, True), (9, False), (10, False)]
    options = visit_plan(widgets.Dropdown(options=[("A", "a"), ("B", "b"), ("C", "c")], value="b"),
                         n_steps=3)
    assert options == [("c", True), ("a", True), ("c", False), ("b", False)]
    assert visit_plan(widgets.Text("b1, exam")) == []


def test_measure_explorer_moves_every_control_and_resets():
    controls = {"iteration": widgets.IntSlider(0, min=0, max=3),
                "seed": widgets.BoundedIntText(5, min=0, max=9)}
    figure = Figure()
    ax = figure.add_subplot()
    seen = []

    def update(values):
        seen.append(dict(values))
        ax.set_title(str(values))

    explorer = Explorer("bench-demo", figure, controls, update)
    rows = in_fresh_thread(lambda: asyncio.run(measure_explorer(explorer, n_steps=2, pause=0)))
    assert [(r["control"], r["kind"], len(r["first"]), len(r["revisit"])) for r in rows] == [
        ("iteration", "replay", 2, 2), ("seed", "refit", 2, 2)]
    assert explorer.values() == {"iteration": 0, "seed": 5}
    assert {v["seed"] for v in seen} == {5, 6, 7}
    table = format_explorer_table([{"notebook": "x", **r} for r in rows])
    assert "bench-demo" in table and "replay" in table and "100ms" in table


def test_nothing_measured_is_never_reported_as_met():
    """A row without a first visit (no step taken) says so; it is never "yes"."""
    row = {"notebook": "x", "explorer": "demo", "control": "seed", "error": None}
    table = format_explorer_table([{**row, "kind": "refit", "first": [], "revisit": []},
                                   {**row, "kind": "replay", "first": [], "revisit": [0.001]}])
    verdicts = [line.split()[-1] for line in table.splitlines()[2:]]
    assert verdicts == ["measured", "measured"]
    assert all(line.endswith("not measured") for line in table.splitlines()[2:])


def test_zero_or_negative_steps_are_refused():
    for steps in (0, -3):
        with pytest.raises(ValueError, match=r"^n_steps must be an integer >= 1, got "):
            visit_plan(widgets.IntSlider(1, min=0, max=10), n_steps=steps)
