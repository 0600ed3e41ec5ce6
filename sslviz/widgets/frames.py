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
runs (tests, nbval, scripts), nothing is drawn ahead.
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


def call_when_idle(callback, delay=0.02):
    """Run ``callback`` on the running event loop after ``delay`` s; ``False`` if none runs."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return False
    loop.call_later(delay, callback)
    return True
