"""All the work an explorer does ahead of the class, in one place.

Rendering a lecture figure to PNG takes a few hundred milliseconds on a 2-core machine and a refit
up to seconds, while a slider that replays a recorded trace should answer within 0.1 s and one
that refits within about a second. So an :class:`~sslviz.widgets.base.Explorer`, after showing a
figure, works on the values a class is likely to pick next, found by one walker
(:func:`neighbouring_values`):

* along **replay** controls (:func:`replay_controls`: live integer sliders such as the iteration
  stepper) it renders the frames next to the one on screen and keeps their PNGs (:class:`Frames`);
* along **refit** controls (every other control that has neighbouring values: sizes, λ, α, seeds,
  dropdowns) it runs the explorer's ``prepare(values)`` hook, a generator of small steps (one EM
  iteration, one fit) run on the kernel's event loop between messages (:class:`IdleWork`), or,
  for work that cannot be cut into steps (a Fisher model, a 2-D map), run whole in one
  background thread (:class:`BackgroundWork`) with results shared through a thread-safe memo
  (:class:`sslviz._memo.Once`).

Steps run only while the kernel idles, one per callback, so a control moved meanwhile is served
after at most one step. Where no event loop runs (tests, nbval, scripts), nothing is done ahead
on the loop; :meth:`IdleWork.run_pending` runs the queue at once (tests).
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict

from ..threads import one_thread


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


def refit_controls(controls):
    """Names of the other controls that have neighbouring values (what ``prepare`` serves)."""
    replay = replay_controls(controls)
    return tuple(name for name, control in controls.items()
                 if name not in replay and steppable(control))


def neighbouring_values(controls, values, names, *, previous=None, limit=6, depth=3):
    """The control values a class is likely to pick next, nearest first, at most ``limit``.

    Steps along each control of ``names`` (the next or previous option of a slider or dropdown,
    a number's value plus or minus its step, within its range). If exactly one control changed
    from ``previous`` (the values shown before), up to ``depth`` steps further the way it went
    come first; then every control one step each way (forward first), then two, and so on.
    ``previous`` itself is left out: it was on screen just now.
    """
    names = [name for name in names if steppable(controls[name])]
    way = dict.fromkeys(names, 1)
    changed = [] if previous is None else [n for n in names if previous.get(n) != values[n]]
    moves = []
    if len(changed) == 1:
        name = changed[0]
        control = controls[name]
        if _position(control, values[name]) < _position(control, previous[name]):
            way[name] = -1
        moves += [(name, way[name] * d) for d in range(1, depth + 1)]
    moves += [(name, sign * way[name] * d) for d in range(1, limit + 1) for name in names
              for sign in (1, -1)]
    found = []
    for name, step in moves:
        value = _stepped(controls[name], values[name], step)
        other = {**values, name: value}
        if value is not None and other != previous and other not in found:
            found.append(other)
            if len(found) == limit:
                break
    return found


def steppable(control):
    """Whether a control has neighbouring values: options, or a number (not a bool or text)."""
    if hasattr(control, "options"):
        return True
    return isinstance(control.value, int | float) and not isinstance(control.value, bool)


def option_values(control):
    """The values a control with options can take (the second item of a (label, value) pair)."""
    return [o[1] if isinstance(o, tuple) else o for o in control.options]


def _position(control, value):
    if hasattr(control, "options"):
        options = option_values(control)
        return options.index(value) if value in options else -1
    return value


def _stepped(control, value, step):
    """``value`` moved ``step`` steps along ``control``, or ``None`` outside its range."""
    if hasattr(control, "options"):
        options = option_values(control)
        index = options.index(value) + step if value in options else -1
        return options[index] if 0 <= index < len(options) else None
    moved = value + step * (getattr(control, "step", 1) or 1)
    if isinstance(moved, float):
        moved = round(moved, 10)  # 0.7, not 0.7000000000000001
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
        self._queue = []

    def start(self, tasks):
        """Queue ``tasks`` (dropping the ones queued before); ``False`` if no event loop runs."""
        self._chain += 1
        chain, queue = self._chain, list(tasks)
        self._queue = queue

        def step():
            if chain != self._chain:
                return
            self._step(queue)
            if queue:
                call_when_idle(step, self.delay)

        return bool(queue) and call_when_idle(step, self.delay)

    def run_pending(self):
        """Run every queued step now, in order (where no event loop runs: tests, scripts)."""
        queue = self._queue
        while queue:
            self._step(queue)

    @staticmethod
    def _step(queue):
        """Advance the first task of ``queue`` by one step (finished tasks leave the queue)."""
        while queue:
                task = queue[0]
                try:
                    with one_thread():  # work ahead: one BLAS thread, as every job
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

    def stop(self):
        """Drop the queued tasks (a step that is running finishes)."""
        self._chain += 1
        self._queue = []


class BackgroundWork:
    """One daemon thread that runs queued callables in order, for work that cannot be cut into
    steps. :meth:`start` replaces what is still queued (a task that runs finishes); a task that
    fails is dropped (the visit will show the error). A daemon thread never keeps a kernel that
    shuts down alive."""

    def __init__(self):
        self._lock = threading.Lock()
        self._queue = []
        self._thread = None

    def start(self, tasks):
        """Queue ``tasks`` instead of the ones queued before; start the thread if it is idle."""
        with self._lock:
            self._queue = list(tasks)
            if self._queue and self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True,
                                                name="sslviz-ahead")
                self._thread.start()

    def wait(self, timeout=None):
        """Wait until the queue is done (tests); ``True`` if it is."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return self._thread is None

    def _run(self):
        while True:
            with self._lock:
                if not self._queue:
                    self._thread = None
                    return
                task = self._queue.pop(0)
            try:
                with one_thread():
                    task()
            except Exception:  # noqa: S112  the visit recomputes it and shows the error
                continue
