"""The one runner every experiment uses: cached jobs, run in parallel, with a progress bar.

An experiment is a list of *jobs* (one seeded split at one setting, say); each job's result is a
dict of arrays. :func:`run_jobs` returns the results in job order: those found in the cache
(:class:`sslviz.cache.ResultCache`, keyed by the data's digest, the job and the code version) are
read, the others are computed in parallel processes (joblib) and stored as soon as each finishes,
so an interrupted run resumes where it stopped: results are stored in the order they finish.
"""

from __future__ import annotations

import numpy as np
from joblib import Parallel, delayed
from tqdm.auto import tqdm

from ..cache import ResultCache


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
