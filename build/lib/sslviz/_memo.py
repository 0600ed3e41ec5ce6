"""A memo that several threads may share: each key's result is computed once."""

from __future__ import annotations

import threading
from concurrent.futures import Future

__all__ = ["Once"]


class Once:
    """The results of ``compute(key)``, each computed once, whichever thread asks first.

    ``once(key)`` returns the result for ``key``: kept from before, waited for while another
    thread computes it, or computed now. One computation runs at a time (``compute`` need not
    be thread-safe, and the thread limits of BLAS and OpenMP are process-wide). An error is
    raised to whoever asks for that key and then forgotten: the next request computes it again.
    An explorer's background work (:mod:`sslviz.widgets.ahead`) and its updates can share one.

    Parameters
    ----------
    compute : callable (key) -> result
        Deterministic: a result must not depend on which thread computed it.
    """

    def __init__(self, compute):
        self.compute = compute
        self._futures = {}  # key -> Future of its result
        self._lock = threading.Lock()  # guards _futures and who computes which key
        self._computing = threading.Lock()  # one computation at a time

    def __call__(self, key):
        future = self._future(key)
        if self._claim(future):
            self._run(key, future)
        return future.result()

    def __contains__(self, key):
        """``True`` once ``key``'s result is known (computed without error)."""
        future = self._futures.get(key)
        return future is not None and future.done() and future.exception() is None

    def _future(self, key):
        with self._lock:
            return self._futures.setdefault(key, Future())

    def _claim(self, future):
        """``True`` for the one caller that is to compute this future's result."""
        with self._lock:
            return (not (future.running() or future.done())
                    and future.set_running_or_notify_cancel())

    def _run(self, key, future):
        try:
            with self._computing:
                result = self.compute(key)
        except BaseException as error:  # handed to whoever waits; the next request recomputes
            with self._lock:
                if self._futures.get(key) is future:
                    del self._futures[key]
            future.set_exception(error)
        else:
            future.set_result(result)
