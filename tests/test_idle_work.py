"""Work done while the kernel idles: the steps of :class:`IdleWork`, and the control values
next to the ones on screen that a refit explorer works out ahead (:func:`values_ahead`)."""

from __future__ import annotations

import asyncio

import ipywidgets as widgets
from test_explorer_frames import in_fresh_thread

from sslviz.widgets.frames import IdleWork, values_ahead


def task(done, name, n):
    for i in range(n):
        done.append((name, i))
        yield


def test_idle_work_runs_steps_in_order_and_start_drops_what_was_queued():
    done = []
    async def scenario():
        work = IdleWork(delay=0)
        assert work.start([task(done, "a", 3), lambda: done.append(("b", 0)), task(done, "c", 2)])
        for _ in range(20):
            await asyncio.sleep(0.01)
        first = list(done)
        work.start([task(done, "d", 10**6)])
        await asyncio.sleep(0.03)
        work.start([task(done, "e", 1)])  # d is dropped
        for _ in range(10):
            await asyncio.sleep(0.01)
        return first

    first = in_fresh_thread(lambda: asyncio.run(scenario()))
    assert first == [("a", 0), ("a", 1), ("a", 2), ("b", 0), ("c", 0), ("c", 1)]
    assert done[-1] == ("e", 0) and ("d", 10**6 - 1) not in done
    assert IdleWork().start([task(done, "x", 1)]) is False  # no event loop: nothing runs
    assert not any(name == "x" for name, _ in done)


def test_idle_work_drops_a_failing_task_and_goes_on():
    done = []

    def failing():
        yield
        raise ValueError("no")

    async def scenario():
        IdleWork(delay=0).start([failing(), lambda: done.append("next")])
        for _ in range(10):
            await asyncio.sleep(0.01)

    in_fresh_thread(lambda: asyncio.run(scenario()))
    assert done == ["next"]


def test_values_ahead_step_along_options_and_number_boxes_the_last_change_first():
    controls = {"size": widgets.SelectionSlider(options=[2, 4, 8, 16], value=4),
                "corpus": widgets.Dropdown(options=[("A corpus", "a"), ("B corpus", "b")]),
                "seed": widgets.BoundedIntText(0, min=0, max=9)}
    values = {"size": 4, "corpus": "a", "seed": 0}
    names = ("size", "seed", "corpus")
    assert values_ahead(controls, values, None, names) == [
        {**values, "size": 8}, {**values, "size": 2}, {**values, "seed": 1},
        {**values, "corpus": "b"}]
    down = {**values, "size": 2}
    assert values_ahead(controls, down, values, names, limit=2) == [
        {**down, "seed": 1}, {**down, "corpus": "b"}]  # no smaller size; 4 was seen
    assert values_ahead(controls, {**values, "size": 8}, values, names)[0] == {**values,
                                                                            "size": 16}
    at_seed = {**values, "seed": 5}
    assert values_ahead(controls, at_seed, {**values, "seed": 6}, names)[:2] == [
        {**at_seed, "seed": 4}, {**at_seed, "size": 8}]  # the seed went down: down first
    assert values_ahead(controls, values, values, ()) == []


def test_idle_work_drops_a_failing_callable_only():
    done = []

    def failing():
        raise ValueError("no")

    async def scenario():
        IdleWork(delay=0).start([failing, lambda: done.append("next"), task(done, "t", 1)])
        for _ in range(10):
            await asyncio.sleep(0.01)

    in_fresh_thread(lambda: asyncio.run(scenario()))
    assert done == ["next", ("t", 0)]
