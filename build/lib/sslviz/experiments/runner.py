"""The one runner every experiment uses: cached jobs, run in parallel, with a progress bar.

An experiment is a list of *jobs* (one seeded split at one setting, say); each job's result is a
dict of arrays. :func:`run_jobs` returns the results in job order: those found in the cache
(:class:`sslviz.cache.ResultCache`, keyed by the data's digest, the job and the code version) are
read, the others are computed in parallel processes (joblib) and stored as soon as each finishes,
so an interrupted run resumes where it stopped: results are stored in the order they finish.

Inside :func:`use_scheduler` the jobs go to a Dask cluster instead (``dask.distributed``, an
optional dependency: ``pip install sslviz[cluster]``): the same cache, the same resume, the same
progress bar, the results stored as each finishes. A job whose worker dies is run again on
another worker (Dask's rescheduling), so a killed worker costs its running jobs, not the run.

:class:`Prefetched` serves an explorer's refits: each setting's result is computed once, either
when it is asked for or ahead of time, in a background thread, while the class looks at another.
"""

from __future__ import annotations

import contextlib
import threading
from concurrent.futures import Future

import numpy as np
from joblib import Parallel, delayed
from tqdm.auto import tqdm

from ..cache import ResultCache

_CLUSTER = threading.local()  # .client: the dask.distributed Client of use_scheduler, if any


@contextlib.contextmanager
def use_scheduler(address):
    """Send the jobs :func:`run_jobs` computes to the Dask scheduler at ``address`` while inside.

    ``address`` is a scheduler address (``tcp://host:8786``) or a ``dask.distributed`` cluster
    object (e.g. a ``LocalCluster``). Every worker needs sslviz installed (the same version) and
    the corpora only if the jobs read them (experiments send the data with the jobs).
    """
    try:
        from dask.distributed import Client
    except ImportError:
        raise ImportError("running on a cluster needs dask.distributed: pip install "
                          "'sslviz[cluster]' (or: pip install 'dask[distributed]')") from None
    client = Client(address, set_as_default=False, timeout="20s")
    previous = getattr(_CLUSTER, "client", None)
    _CLUSTER.client = client
    try:
        yield client
    finally:
        _CLUSTER.client = previous
        client.close()


def run_jobs(function, jobs, *, kind, key, shared=None, use_cache=True, n_jobs=None,
             progress=True, description=None):
    """Run ``function(**shared, **job)`` for every job; return the results in job order.

    Parameters
    ----------
    function : callable returning a dict of name -> array
        Must be importable by name (joblib sends it to worker processes).
    jobs : list of dict
        Keyword arguments of each job.
    kind : str
        Cache folder of these results.
    key : callable (job) -> dict
        The cache key of a job: everything its result depends on (data digest, parameters,
        version).
    shared : dict, optional
        Keyword arguments common to every job (e.g. the data), not part of the key.
    use_cache : bool, default=True
        ``False`` recomputes every job and overwrites its entry.
    n_jobs : int or None
        Parallel processes (joblib; ``-1`` = all cores). Results do not depend on it.
    progress : bool
        Show a progress bar over the jobs that are computed.
    """
    shared = shared or {}
    cache = ResultCache(kind)
    results = [cache.load(key(job)) if use_cache else None for job in jobs]
    todo = [i for i, result in enumerate(results) if result is None]
    if not todo:
        return results
    client = getattr(_CLUSTER, "client", None)
    if client is not None:
        finished = _on_cluster(client, function, [(i, jobs[i]) for i in todo], shared)
    else:
        parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
        finished = parallel(delayed(_numbered)(i, function, {**shared, **jobs[i]}) for i in todo)
    bar = tqdm(finished, total=len(todo), desc=description or kind, disable=not progress,
               leave=False)
    for i, result in bar:  # in the order they finish: each is stored at once
        result = {name: np.asarray(value) for name, value in result.items()}
        cache.save(key(jobs[i]), result)
        results[i] = result
    return results


def _numbered(number, function, kwargs):
    return number, function(**kwargs)


def _same(value):
    return value


def _numbered_with_shared(number, function, shared, job):
    return number, function(**shared, **job)


def _on_cluster(client, function, numbered_jobs, shared):
    """``(number, result)`` of each job computed on the cluster, in the order they finish.

    The shared arguments (the data) go to the cluster once, as the result of a task of their own,
    not with every job: unlike scattered data, a task's result is computed again if the worker
    holding it dies, so a killed worker never loses the data its neighbours' jobs need.
    """
    from dask.distributed import as_completed

    shared_on_workers = client.submit(_same, shared, pure=False)
    futures = [client.submit(_numbered_with_shared, number, function, shared_on_workers, job,
                             pure=False) for number, job in numbered_jobs]
    try:
        for future in as_completed(futures, loop=client.loop):
            yield future.result()
    finally:
        client.cancel(futures)


class Prefetched:
    """The results of ``compute(key)``, each computed once: when asked for, or ahead of time.

    ``prefetched(key)`` returns the result for ``key``: kept from before, waited for while the
    background thread computes it, or computed now (also a key the thread has not reached yet).
    :meth:`prefetch` starts a daemon thread that computes the given keys in order, so that an
    explorer can prepare the settings a class is likely to pick next while it looks at the
    figure. One computation runs at a time (``compute`` need not be thread-safe, and the thread
    limits of BLAS and OpenMP are process-wide). An error is raised to whoever asks for that key
    and then forgotten: the next request computes it again.

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

    def prefetch(self, keys):
        """Compute the results of ``keys`` not known yet in a background (daemon) thread.

        A daemon thread does not keep a kernel that shuts down alive. Returns the thread, or
        ``None`` when every result is known or under way.
        """
        pending = [(key, self._future(key)) for key in keys]
        pending = [(key, future) for key, future in pending
                   if not (future.running() or future.done())]
        if not pending:
            return None
        thread = threading.Thread(target=self._run_all, args=(pending,), daemon=True,
                                  name="sslviz-prefetch")
        thread.start()
        return thread

    def _future(self, key):
        with self._lock:
            return self._futures.setdefault(key, Future())

    def _claim(self, future):
        """``True`` for the one caller that is to compute this future's result."""
        with self._lock:
            return (not (future.running() or future.done())
                    and future.set_running_or_notify_cancel())

    def _run_all(self, pending):
        for key, future in pending:
            if self._claim(future):
                self._run(key, future)

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
