"""Helpers shared by several test modules (import them as ``from helpers import ...``)."""

from __future__ import annotations

import asyncio
import threading
import time


def in_fresh_thread(function):
    """``function()`` in a new thread: one where no event loop runs (another test's may run in
    this one), so that ``asyncio.run`` starts its own."""
    result = {}
    thread = threading.Thread(target=lambda: result.update(value=function()))
    thread.start()
    thread.join()
    return result["value"]


async def until(condition, timeout=120):
    """Let the running event loop work until ``condition()`` holds (a functional timeout far
    above what the work takes, not a measurement); returns whether it did."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True
