"""Work done ahead of the class (:mod:`sslviz.widgets.ahead`): frames kept and drawn ahead along
replay controls, the explorer's ``prepare`` along refit controls (idle steps or one background
thread), the one walker over neighbouring values, and the thread-safe memo they share."""

from __future__ import annotations

import asyncio
import io
import threading

import ipywidgets as widgets
import pytest
from helpers import in_fresh_thread, until
from matplotlib.figure import Figure

from sslviz._memo import Once
from sslviz.widgets import Explorer
from sslviz.widgets.ahead import (
    BackgroundWork,
    Frames,
    IdleWork,
    call_when_idle,
    frame_key,
    neighbouring_values,
    refit_controls,
    replay_controls,
)


def make_explorer(**kwargs):
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

    explorer = Explorer("frames-demo", figure, controls, update, **kwargs)
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
    assert refit_controls(controls) == ("n", "seed")
    values = {"iteration": 2, "n": 1, "seed": 0}
    found = neighbouring_values(controls, values, ("iteration",), limit=5)
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
        wanted = [{"iteration": i, "scale": 1} for i in (1, 3, 4)]
        assert await until(lambda: all(frame_key(v) in explorer._frames for v in wanted))
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


# -- the walker ---------------------------------------------------------------------------------
def test_neighbours_step_along_options_and_number_boxes_the_last_change_first():
    controls = {"size": widgets.SelectionSlider(options=[2, 4, 8, 16], value=4),
                "corpus": widgets.Dropdown(options=[("A corpus", "a"), ("B corpus", "b")]),
                "seed": widgets.BoundedIntText(0, min=0, max=9),
                "words": widgets.Text("car")}
    values = {"size": 4, "corpus": "a", "seed": 0, "words": "car"}
    names = ("size", "seed", "corpus", "words")  # text has no neighbours: left out
    assert neighbouring_values(controls, values, names, limit=4) == [
        {**values, "size": 8}, {**values, "size": 2}, {**values, "seed": 1},
        {**values, "corpus": "b"}]
    down = {**values, "size": 2}
    assert neighbouring_values(controls, down, names, previous=values, limit=2) == [
        {**down, "seed": 1}, {**down, "corpus": "b"}]  # no smaller size; 4 was on screen
    up = {**values, "size": 8}
    assert neighbouring_values(controls, up, names, previous=values)[:2] == [
        {**up, "size": 16}, {**up, "seed": 1}]
    at_seed = {**values, "seed": 5}
    assert neighbouring_values(controls, at_seed, names, previous={**values, "seed": 6})[:4] \
        == [{**at_seed, "seed": s} for s in (4, 3, 2)] + [{**at_seed, "size": 8}]
    assert neighbouring_values(controls, values, (), previous=values) == []


def test_float_steps_land_on_the_slider_grid():
    controls = {"weight": widgets.FloatSlider(0.6, min=0, max=1, step=0.1)}
    found = neighbouring_values(controls, {"weight": 0.6}, ("weight",), limit=4)
    assert [v["weight"] for v in found] == [0.7, 0.5, 0.8, 0.4]


# -- refits prepared ahead: on the idle loop, or in one background thread -----------------------
def test_prepare_runs_for_the_neighbours_while_the_kernel_idles_and_update_stays_pure():
    prepared = []

    def prepare(values):
        prepared.append(("start", values["scale"]))
        yield
        prepared.append(("end", values["scale"]))

    async def scenario():
        explorer, _, calls = make_explorer(prepare=prepare)
        assert await until(lambda: ("end", 2) in prepared)
        n_updates = len(calls)
        explorer.controls["scale"].value = 2  # the way it went: 3 next
        assert await until(lambda: ("end", 3) in prepared)
        return explorer, calls, n_updates

    explorer, calls, n_updates = in_fresh_thread(lambda: asyncio.run(scenario()))
    assert prepared[:2] == [("start", 2), ("end", 2)]  # scale 1's only neighbour
    assert prepared[-2:] == [("start", 3), ("end", 3)]  # not 1: it was on screen just now
    # updates drew scale 2 (on screen, and its frames ahead): none came from preparing scale 3
    assert calls[n_updates] == {"iteration": 0, "scale": 2}
    assert {c["scale"] for c in calls[n_updates:]} == {2}


def test_where_no_loop_runs_the_queue_waits_for_run_pending():
    prepared = []

    def prepare(values):
        prepared.append(values["scale"])
        yield

    explorer, _, _ = make_explorer(prepare=prepare)
    assert prepared == []
    explorer.ahead.run_pending()
    assert prepared == [2, 3]  # one step away, then two


def test_prepare_in_background_shares_a_memo_with_the_update():
    computed, release = [], threading.Event()

    def fit(scale):
        computed.append(scale)
        if scale == 2:
            assert release.wait(30)
        return scale * 10

    fits = Once(fit)
    shown = []

    def update(values):
        shown.append(fits(values["scale"]))

    def prepare(values):
        fits(values["scale"])
        yield

    controls = {"scale": widgets.IntSlider(1, min=1, max=3, continuous_update=False)}
    explorer = Explorer("background-demo", Figure(figsize=(2, 2)), controls, update,
                        prepare=prepare, prepare_in_background=True)
    assert isinstance(explorer.ahead, BackgroundWork)
    while computed != [1, 2]:  # the thread is inside the fit of scale 2
        threading.Event().wait(0.001)
    waiting = threading.Thread(target=lambda: setattr(explorer.controls["scale"], "value", 2))
    waiting.start()  # the visit waits for the thread's fit, never fits again
    release.set()
    waiting.join(30)
    assert explorer.ahead.wait(30)
    assert shown[-1] == 20 and computed.count(2) == 1
    assert sorted(computed) == [1, 2, 3]  # scale 2's neighbour 3 was prepared after the visit


# -- the queues ---------------------------------------------------------------------------------
def task(done, name, n):
    for i in range(n):
        done.append((name, i))
        yield


def test_idle_work_runs_steps_in_order_and_start_drops_what_was_queued():
    done = []

    async def scenario():
        work = IdleWork(delay=0)
        assert work.start([task(done, "a", 3), lambda: done.append(("b", 0)), task(done, "c", 2)])
        assert await until(lambda: ("c", 1) in done)
        first = list(done)
        work.start([task(done, "d", 10**6)])
        assert await until(lambda: ("d", 0) in done)
        work.start([task(done, "e", 1)])  # d is dropped
        assert await until(lambda: ("e", 0) in done)
        return first

    first = in_fresh_thread(lambda: asyncio.run(scenario()))
    assert first == [("a", 0), ("a", 1), ("a", 2), ("b", 0), ("c", 0), ("c", 1)]
    assert done[-1] == ("e", 0) and ("d", 10**6 - 1) not in done
    assert IdleWork().start([task(done, "x", 1)]) is False  # no event loop: nothing runs
    assert not any(name == "x" for name, _ in done)


def test_a_failing_task_is_dropped_and_the_queue_goes_on():
    done = []

    def failing_steps():
        yield
        raise ValueError("no")

    def failing():
        raise ValueError("no")

    work = IdleWork()
    work.start([failing_steps(), failing, lambda: done.append("next"), task(done, "t", 1)])
    work.run_pending()
    assert done == ["next", ("t", 0)]
    background = BackgroundWork()
    background.start([failing, lambda: done.append("after")])
    assert background.wait(30) and done[-1] == "after"


# -- the memo -----------------------------------------------------------------------------------
def test_each_key_is_computed_once_whoever_asks_first():
    calls, release = [], threading.Event()

    def compute(key):
        calls.append(key)
        if key == "slow":
            assert release.wait(30)
        return key.upper()

    results = Once(compute)
    first = threading.Thread(target=lambda: results("slow"))
    first.start()
    while calls != ["slow"]:  # the thread is inside "slow"
        threading.Event().wait(0.001)
    waiting = threading.Thread(target=lambda: calls.append(("got", results("slow"))))
    waiting.start()  # waits for the first thread's result, never computes it again
    release.set()
    first.join(30)
    waiting.join(30)
    assert calls == ["slow", ("got", "SLOW")]
    assert "slow" in results and "a" not in results


def test_one_computation_at_a_time():
    running, overlaps = [], []

    def compute(key):
        running.append(key)
        overlaps.append(len(running))
        threading.Event().wait(0.005)
        running.remove(key)
        return key

    results = Once(compute)
    threads = [threading.Thread(target=lambda i=i: [results(k) for k in range(i, 20, 3)])
               for i in range(3)]
    for thread in threads:
        thread.start()
    assert [results(k) for k in range(20)] == list(range(20))
    for thread in threads:
        thread.join(30)
    assert max(overlaps) == 1


def test_an_error_reaches_whoever_asks_and_is_not_kept():
    fail = [True]

    def compute(key):
        if fail[0]:
            raise ValueError(f"no {key}")
        return key

    results = Once(compute)
    with pytest.raises(ValueError, match="no x"):
        results("x")
    assert "x" not in results
    fail[0] = False
    assert results("x") == "x" and "x" in results
