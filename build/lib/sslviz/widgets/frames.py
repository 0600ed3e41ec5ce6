"""Rendered frames of an explorer, kept by control values and drawn ahead while the class looks.

Rendering a lecture figure to PNG takes a few hundred milliseconds on a 2-core machine, too slow
for a slider that replays a recorded trace (a change should show within 0.1 s). So an
:class:`~sslviz.widgets.base.Explorer` keeps the PNG of every frame it rendered (:class:`Frames`,
least recently used first out) and, when the kernel is idle, renders the frames next to the one on
screen along each *replay* control (a live integer slider: iteration, step). Moving such a slider
to a rendered frame runs the explorer's (cheap) update, so the artists always match the image, and
swaps the image without rendering.

Drawing ahead runs on the kernel's event loop between messages (:func:`call_when_idle`), one frame
per callback, so a control moved meanwhile is served after at most one frame. Where no event loop
runs (tests, nbval, scripts), nothing is drawn ahead. :class:`IdleWork` does the same for refits:
an explorer hands it the computations of the settings next to the one on screen, cut into small
steps, and they run while the class looks at the figure.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict


class Frames:
    """PNG bytes by frame key, at most ``capacity`` of them (the least recently used go first)."""

    def __init__(self, capacity=32):
        self.capacity = capacity
        self._frames = OrderedDict()

    def __contains__(self, key):
        return key in self._frames

    def __len__(self):
        return len(self._frames)

    def get(self, key):
        """The frame stored for ``key``, or ``None``."""
        if key not in self._frames:
            return None
        self._frames.move_to_end(key)
        return self._frames[key]

    def put(self, key, png):
        self._frames[key] = png
        self._frames.move_to_end(key)
        while len(self._frames) > self.capacity:
            self._frames.popitem(last=False)


def frame_key(values):
    """A hashable key of control values (a frame is a function of them)."""
    return repr(sorted(values.items()))


def replay_controls(controls):
    """Names of the controls that replay a recorded trace: live integer sliders."""
    return tuple(name for name, control in controls.items()
                 if type(control).__name__ == "IntSlider" and control.continuous_update)


def neighbour_values(controls, values, replay, limit):
    """Control values one replay step away, then two, ... (forward first), within each slider's
    range; at most ``limit`` of them."""
    found = []
    for distance in range(1, limit + 1):
        for name in replay:
            control = controls[name]
            for value in (values[name] + distance, values[name] - distance):
                if control.min <= value <= control.max:
                    found.append({**values, name: value})
        if len(found) >= limit:
            break
    return found[:limit]


def values_ahead(controls, values, previous, names, *, limit=4):
    """Control values one step away along each control of ``names`` (the next or previous
    option of a slider or dropdown, a number box's value plus or minus its step, within its
    range), at most ``limit`` of them: the control changed last (from ``previous``) first, the
    way it went first. What a refit explorer works out ahead (:class:`IdleWork`)."""
    order, way = list(names), dict.fromkeys(names, 1)
    changed = [] if previous is None else [n for n in names if previous.get(n) != values[n]]
    if len(changed) == 1:
        name = changed[0]
        order = [name] + [n for n in order if n != name]
        control = controls[name]
        way[name] = (1 if _position(control, values[name]) > _position(control, previous[name])
                     else -1)
    found = []
    for name in order:
        for step in (way[name], -way[name]):
            value = _stepped(controls[name], values[name], step)
            if value is not None and {**values, name: value} != previous:  # shown just now
                found.append({**values, name: value})
    return found[:limit]


def _options(control):
    return [o[1] if isinstance(o, tuple) else o for o in control.options]


def _position(control, value):
    if hasattr(control, "options"):
        options = _options(control)
        return options.index(value) if value in options else -1
    return value


def _stepped(control, value, step):
    """``value`` moved ``step`` steps along ``control``, or ``None`` outside its range."""
    if hasattr(control, "options"):
        options = _options(control)
        index = options.index(value) + step if value in options else -1
        return options[index] if 0 <= index < len(options) else None
    moved = value + step * (getattr(control, "step", 1) or 1)
    low, high = getattr(control, "min", None), getattr(control, "max", None)
    if (low is not None and moved < low) or (high is not None and moved > high):
        return None
    return moved


def call_when_idle(callback, delay=0.02):
    """Run ``callback`` on the running event loop after ``delay`` s; ``False`` if none runs."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return False
    loop.call_later(delay, callback)
    return True


class IdleWork:
    """Computations advanced one small step per idle moment of the event loop.

    A task is a generator (one step per ``next``, e.g. one EM iteration; a refit of a setting next
    to the one on screen) or a plain callable (one step). :meth:`start` replaces whatever was
    still queued; tasks run in the order given. A task that fails is dropped: working ahead is an
    optimisation, the visit itself will show the error. Where no event loop runs, nothing runs.
    """

    def __init__(self, delay=0.02):
        self.delay = delay
        self._chain = 0

    def start(self, tasks):
        """Queue ``tasks`` (dropping the ones queued before); ``False`` if no event loop runs."""
        self._chain += 1
        chain, queue = self._chain, list(tasks)

        def step():
            if chain != self._chain:
                return
            while queue:
                task = queue[0]
                try:
                    if callable(task):
                        queue.pop(0)
                        task()
                    else:
                        next(task)
                    break
                except StopIteration:  # this task is done: on to the next, in this same step
                    if queue and queue[0] is task:
                        queue.pop(0)
                except Exception:  # the visit will show it
                    if queue and queue[0] is task:
                        queue.pop(0)
                    break
            if queue:
                call_when_idle(step, self.delay)

        return bool(queue) and call_when_idle(step, self.delay)

    def stop(self):
        """Drop the queued tasks (a step that is running finishes)."""
        self._chain += 1
