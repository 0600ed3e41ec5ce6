"""One BLAS/OpenMP thread for the package's own work, set one way whoever runs it.

The lectures' models are small (a Gaussian process on 200 points, an NB on a few thousand
documents, a 2-D grid of probabilities): a second BLAS or OpenMP thread only waits, and on a
busy two-core machine it competes with the other process. Measured: self-training a Gaussian
process on the two moons takes 26 s with the libraries' default threads and 1 s with one, on
the same loaded machine.

:func:`one_thread` is the only way the package limits threads. The runner
(:func:`sslviz.experiments.runner.run_jobs`) applies it around every job, whoever executes it
(in the kernel, in a joblib worker, on a Dask worker), so a job gets the same threads whoever
runs it; experiments and explorers use it around their own fits; a lecture wraps a cell's direct
fits in it. The limit is process-wide (that is how BLAS libraries work): while any thread holds
it, the whole process computes with one thread, and the original limits come back when the last
holder leaves -- never earlier, so an explorer's background fit cannot lift the limit under a
fit of the kernel's main thread, and never later.

Seen with OpenBLAS 0.3.31 (pthreads, numpy's wheel): once the kernel's main thread has set and
restored a limit, a limit set from another thread is not applied (the count stays at the
default, and a restore from another thread leaves one thread), while a limit the main thread
holds applies to every thread. So the limit is reliable
where jobs run (the kernel's main thread, joblib's worker processes; Dask's nanny starts its
workers with one OpenBLAS/OpenMP thread) and around an explorer's update run by the kernel's
main thread (:class:`sslviz.widgets.base.Explorer` holds it around every update, in whichever
thread). A lecture whose cells fit models
directly wraps those fits in ``with one_thread():``; none limits its whole kernel.
"""

from __future__ import annotations

import contextlib
import threading

from threadpoolctl import threadpool_limits

__all__ = ["holders", "one_thread"]

_lock = threading.Lock()
_state = {"holders": 0, "limiter": None}


@contextlib.contextmanager
def one_thread():
    """Run the block with one BLAS and one OpenMP thread (process-wide, counted by holders)."""
    with _lock:
        if _state["holders"] == 0:
            _state["limiter"] = threadpool_limits(limits=1)
        _state["holders"] += 1
    try:
        yield
    finally:
        with _lock:
            _state["holders"] -= 1
            if _state["holders"] == 0:
                _state["limiter"].restore_original_limits()
                _state["limiter"] = None


def holders():
    """How many blocks hold the limit now (0: the libraries' own limits are in force)."""
    return _state["holders"]
