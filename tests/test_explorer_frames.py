"""Frames kept and drawn ahead: a revisit swaps the image without rendering, a frame drawn ahead
is the frame a fresh render gives, and the artists always match the image on screen."""

from __future__ import annotations

import asyncio
import io
import threading

import ipywidgets as widgets
import pytest
from matplotlib.figure import Figure

from sslviz.widgets import Explorer
from sslviz.widgets.frames import (
    Frames,
    call_when_idle,
    frame_key,
    neighbour_values,
    replay_controls,
)


def in_fresh_thread(function):
    """``function()`` in a new thread: one where no event loop runs (another test's may run in
    this one), so that ``asyncio.run`` starts its own."""
    result = {}
    thread = threading.Thread(target=lambda: result.update(value=function()))
    thread.start()
    thread.join()
    return result["value"]


def make_explorer():
    controls = {"iteration": widgets.IntSlider(0, min=0, max=4),
                "scale": widgets.IntSlider(1, min=1, max=3, continuous_update=False)}
    figure = Figure(figsize=(3, 2))
    ax = figure.add_subplot()
    (line,) = ax.plot([0, 1], [0, 0])
    calls = []

    def update(values):
        calls.append(dict(values))
        line.set_ydata([0, values["iteration"] * values["scale"]])
        ax.set_ylim(0, 12)
        ax.set_title(f"iteration {values['iteration']}")

    explorer = Explorer("frames-demo", figure, controls, update)
    return explorer, line, calls


@pytest.fixture
def counted_renders(monkeypatch):
    renders = []
    original = Explorer._render

    def render(self):
        renders.append(dict(self._figure_values))  # what is being rendered
        return original(self)

    monkeypatch.setattr(Explorer, "_render", render)
    return renders


def test_frames_keep_the_most_recent():
    frames = Frames(capacity=2)
    for key in "abc":
        frames.put(key, key.encode())
    assert "a" not in frames and frames.get("b") == b"b"
    frames.put("d", b"d")  # "c" is now the least recently used
    assert "c" not in frames and len(frames) == 2
    assert frame_key({"b": 1, "a": 2}) == frame_key({"a": 2, "b": 1})


def test_replay_controls_and_their_neighbours():
    controls = {"iteration": widgets.IntSlider(2, min=0, max=3),
                "n": widgets.IntSlider(1, min=1, max=5, continuous_update=False),
                "seed": widgets.BoundedIntText(0, min=0, max=9)}
    assert replay_controls(controls) == ("iteration",)
    values = {"iteration": 2, "n": 1, "seed": 0}
    found = neighbour_values(controls, values, ("iteration",), limit=5)
    assert [v["iteration"] for v in found] == [3, 1, 0]
    assert all(v["n"] == 1 and v["seed"] == 0 for v in found)
    assert in_fresh_thread(lambda: call_when_idle(lambda: None)) is False  # no loop runs there


def test_a_revisit_runs_the_update_but_not_the_render(counted_renders):
    explorer, line, calls = make_explorer()
    first = bytes(explorer.image.value)
    explorer.controls["iteration"].value = 3
    explorer.controls["iteration"].value = 0
    assert [r["iteration"] for r in counted_renders] == [0, 3]  # no render for the revisit
    assert calls[-1]["iteration"] == 0 and list(line.get_ydata()) == [0, 0]
    assert bytes(explorer.image.value) == first
    assert explorer.caption.value == "iteration=0, scale=1"


def test_frames_drawn_ahead_equal_fresh_renders_and_leave_the_artists_alone(counted_renders):
    async def scenario():
        explorer, line, _ = make_explorer()
        explorer.controls["iteration"].value = 2  # inside a running loop: frames drawn ahead
        for _ in range(40):
            await asyncio.sleep(0.02)
        return explorer, line

    explorer, line = in_fresh_thread(lambda: asyncio.run(scenario()))
    drawn_ahead = {r["iteration"] for r in counted_renders[2:]}
    assert {1, 3, 4} <= drawn_ahead
    assert list(line.get_ydata()) == [0, 2]  # the artists show the frame on screen
    assert explorer.figure_on_screen() is explorer.figure
    renders = len(counted_renders)
    explorer.controls["iteration"].value = 3
    assert len(counted_renders) == renders  # served from the frame drawn ahead
    fresh, _, _ = make_explorer()
    fresh.controls["iteration"].value = 3
    assert bytes(explorer.image.value) == bytes(fresh.image.value)


def test_after_the_first_render_the_layout_engine_is_gone_and_frames_are_unchanged():
    """Later renders skip the layout engine's extra draw pass (even where rcParams ask for an
    automatic layout) and give the bytes a figure with matplotlib's placeholder engine gives."""
    import matplotlib as mpl

    with mpl.rc_context({"figure.autolayout": True}):
        explorer, _, _ = make_explorer()
        positions = [ax.get_position().bounds for ax in explorer.figure.axes]
        explorer.controls["iteration"].value = 3
    assert explorer.figure.get_layout_engine() is None
    assert [ax.get_position().bounds for ax in explorer.figure.axes] == positions
    with mpl.rc_context({"figure.autolayout": True}):
        twin, _, _ = make_explorer()  # laid out as the explorer was, then frozen by hand:
    twin.figure.set_layout_engine("none")  # matplotlib's placeholder, one more draw pass
    buffer = io.BytesIO()
    with twin._style():
        twin._update({"iteration": 3, "scale": 1})
        twin.figure.savefig(buffer, format="png", dpi=twin._dpi, pil_kwargs={"compress_level": 1})
    assert bytes(explorer.image.value) == buffer.getvalue()


def test_a_layout_engine_an_outside_save_brings_back_is_cleared_before_the_next_render():
    """An export's ``savefig`` restores the engine through rcParams (a tight one where
    ``figure.autolayout`` is on); the next render must not run it and move the axes."""
    import matplotlib as mpl

    explorer, _, _ = make_explorer()  # no layout engine: matplotlib's default axes positions
    positions = [ax.get_position().bounds for ax in explorer.figure.axes]
    with mpl.rc_context({"figure.autolayout": True}):
        explorer.figure.savefig(io.BytesIO(), format="png")  # as an export would
        assert explorer.figure.get_layout_engine() is not None
        explorer.controls["iteration"].value = 3
    assert explorer.figure.get_layout_engine() is None
    assert [ax.get_position().bounds for ax in explorer.figure.axes] == positions
