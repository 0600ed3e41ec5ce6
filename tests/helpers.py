"""Helpers shared by several test modules (import them as ``from helpers import ...``)."""

from __future__ import annotations

import asyncio
import threading
import time

#: A functional timeout, in seconds: how long a test waits for work that normally takes seconds
#: (a subprocess, JupyterLab answering, a widget redrawing, a background thread) before calling it
#: hung. It is far above what the benchmarks measure for that work on an idle machine (at least
#: 5x; most of these waits take under 10 s idle), so a busy machine makes the suite slower,
#: never red. Long waits print their progress (captured, shown with a failure).
PATIENCE_S = 600


def in_fresh_thread(function):
    """``function()`` in a new thread: one where no event loop runs (another test's may run in
    this one), so that ``asyncio.run`` starts its own."""
    result = {}
    thread = threading.Thread(target=lambda: result.update(value=function()))
    thread.start()
    thread.join()
    return result["value"]


async def until(condition, timeout=PATIENCE_S):
    """Let the running event loop work until ``condition()`` holds (a functional timeout far
    above what the work takes, not a measurement); returns whether it did."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True


def refusing(job, message="refitted although cached"):
    """A stand-in for the job function ``job`` that fails if called. It carries ``job``'s module,
    so the runner keys it by the same code (a cache key holds the job function's module's
    digest) and a cached result is still found."""

    def refuse(*args, **kwargs):
        raise AssertionError(message)

    refuse.__module__, refuse.__qualname__ = job.__module__, job.__qualname__
    return refuse
