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


def reference_svm_c(X, y, grid, folds, *, lower=1e-4, upper=1e4, max_iter=10_000):
    """An SVM's C as the project chooses it, recomputed with scikit-learn's ``GridSearchCV`` on
    the given ``folds``: the best cross-validated balanced accuracy, exact ties to the better
    held-out hinge loss, then to the middle tied C; while the best C is an end of the grid the
    grid grows by a decade on that side, up to ``lower`` and ``upper``.

    Returns ``(C, values)``: the chosen C and the grid it was chosen from, in increasing order.
    """
    import numpy as np
    from sklearn.metrics import hinge_loss, make_scorer
    from sklearn.model_selection import GridSearchCV
    from sklearn.svm import LinearSVC

    hinge = make_scorer(lambda truth, decision: -hinge_loss(truth, decision),
                        response_method="decision_function")
    values = sorted(grid)
    while True:
        search = GridSearchCV(LinearSVC(loss="hinge", max_iter=max_iter, random_state=0),
                              {"C": values}, cv=folds, refit=False,
                              scoring={"balanced": "balanced_accuracy", "hinge": hinge})
        search.fit(X, y)
        results = search.cv_results_
        balanced = results["mean_test_balanced"]
        tied = np.flatnonzero(np.isclose(balanced, balanced.max(), rtol=1e-12, atol=1e-12))
        if len(tied) > 1:
            second = results["mean_test_hinge"][tied]
            tied = tied[np.isclose(second, second.max(), rtol=1e-12, atol=1e-12)]
        best = int(tied[(len(tied) - 1) // 2])
        if best == len(values) - 1 and values[-1] < upper:
            values.append(min(values[-1] * 10, upper))
        elif best == 0 and values[0] > lower:
            values.insert(0, max(values[0] / 10, lower))
        else:
            return values[best], values
