"""The one runner every experiment uses: cached jobs, run in parallel, with a progress bar.

An experiment is a list of *jobs* (one seeded split at one setting, say); each job's result is a
dict of arrays. :func:`run_jobs` returns the results in job order: those found in the cache
(:class:`sslviz.cache.ResultCache`, keyed by the job's key -- the data's digest and every setting --
and the code of the job function's module and of everything it imports) are read, the others
are computed in parallel processes (joblib) and stored as soon as each finishes, so an
interrupted run resumes where it stopped: results are stored in the order they finish.

Inside :func:`use_scheduler` the jobs go to a Dask cluster instead (``dask.distributed``, an
optional dependency: ``pip install sslviz[cluster]``): the same cache, the same resume, the same
progress bar, the results stored as each finishes. A job whose worker dies is run again on
another worker (Dask's rescheduling), so a killed worker costs its running jobs, not the run.
Connecting is bounded as a whole (:data:`CONNECT_TIMEOUT_S`, Dask's handshake included: a port
where something else listens, silent or speaking HTTP, ends in :class:`SchedulerError`, never a
hang), and with ``lazy=True`` it waits until a job must be computed, so a command checks its own
arguments (and reads its cache) first.

Every job runs inside :func:`sslviz.threads.one_thread` (one BLAS/OpenMP thread), whoever
executes it: its speed and its numbers do not depend on where it ran.

Work an explorer does ahead of the class (refits of the settings next to the one on screen) is
not the runner's: it lives in :mod:`sslviz.widgets.ahead`.

An experiment over a product of settings runs as :func:`run_grid`: its jobs are the product of
named axes, its result a :class:`Grid` (one array per recorded field, indexed by those axes) read
with ``.at(size=8, seed=0)``; a value not on an axis raises :class:`NotRun`, with the one message
every experiment uses (:func:`axis_index`).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import itertools
import threading
from dataclasses import dataclass

import numpy as np
from joblib import Parallel, delayed
from tqdm.auto import tqdm

from ..cache import ResultCache
from ..cli import UsageError
from ..threads import one_thread

_CLUSTER = threading.local()  # .client: the Client of use_scheduler (or .pending: lazy)
CONNECT_TIMEOUT_S = 20.0
"""Bound on connecting to a scheduler, handshake included (Dask's own timeout bounds only the
TCP connect: a silent server would be waited for without end)."""


_STORED_ONLY = contextvars.ContextVar("sslviz_stored_only", default=None)


@contextlib.contextmanager
def stored_only(store, on_missing):
    """Within the block, every :func:`run_jobs` reads its results from the project's store
    ``store`` alone and computes nothing (a report over what the lectures stored).

    ``on_missing(kind, n_missing, n_jobs)`` returns the exception raised when the store lacks
    some of a call's jobs (say which lecture and which command stores them).
    """
    token = _STORED_ONLY.set((store, on_missing))
    try:
        yield
    finally:
        _STORED_ONLY.reset(token)


def _read_stored(function, jobs, kind, key, store, on_missing):
    cache = ResultCache(kind, code=function, store=store)
    results = [cache.load_stored(key(job)) for job in jobs]
    missing = sum(result is None for result in results)
    if missing:
        raise on_missing(kind, missing, len(results))
    return results


class SchedulerError(UsageError):
    """No Dask scheduler answered at the address given; the message says what to check."""


@contextlib.contextmanager
def use_scheduler(address, *, lazy=False, option=None):
    """Send the jobs :func:`run_jobs` computes to the Dask scheduler at ``address`` while inside.

    ``address`` is a scheduler address (``tcp://host:8786``) or a ``dask.distributed`` cluster
    object (e.g. a ``LocalCluster``). Every worker needs sslviz installed (the same version) and
    the corpora only if the jobs read them (experiments send the data with the jobs).
    ``lazy=True`` connects when the first job must be computed (and yields ``None``);
    ``option`` names the command-line option of the address in error messages.

    Raises
    ------
    SchedulerError
        When nothing at ``address`` completes Dask's handshake within :data:`CONNECT_TIMEOUT_S`.
    """
    _import_client()
    previous = (getattr(_CLUSTER, "client", None), getattr(_CLUSTER, "pending", None))
    _CLUSTER.client, _CLUSTER.pending = None, (address, option)
    try:
        if not lazy:
            _cluster_client()
        yield _CLUSTER.client
    finally:
        client = _CLUSTER.client
        _CLUSTER.client, _CLUSTER.pending = previous
        if client is not None:
            client.close()


def _import_client():
    try:
        from dask.distributed import Client
    except ImportError:
        raise ImportError("running on a cluster needs dask.distributed: pip install "
                          "'sslviz[cluster]' (or: pip install 'dask[distributed]')") from None
    return Client


def _cluster_client():
    """The Client of the innermost :func:`use_scheduler`, connected now if it was lazy; None
    outside one."""
    client, pending = getattr(_CLUSTER, "client", None), getattr(_CLUSTER, "pending", None)
    if client is not None or pending is None:
        return client
    address, option = pending
    if isinstance(address, str):
        _check_handshake(address, option)
    _CLUSTER.client = _import_client()(address, set_as_default=False,
                                       timeout=f"{CONNECT_TIMEOUT_S}s")
    return _CLUSTER.client


def _check_handshake(address, option):
    """Complete Dask's handshake with ``address`` within :data:`CONNECT_TIMEOUT_S` (in a thread
    of its own: a notebook's event loop may be running) or raise :class:`SchedulerError`."""
    from distributed.comm import connect

    async def handshake():
        comm = await asyncio.wait_for(connect(address, timeout=CONNECT_TIMEOUT_S),
                                      CONNECT_TIMEOUT_S)
        await comm.close()

    failure = []

    def attempt():
        try:
            asyncio.run(handshake())
        except Exception as error:  # noqa: BLE001 -- every failure is reported as one line
            failure.append(error)

    thread = threading.Thread(target=attempt, daemon=True, name="sslviz-scheduler-check")
    thread.start()
    thread.join(CONNECT_TIMEOUT_S + 5)
    if thread.is_alive() or failure:
        reason = ("no answer" if thread.is_alive()
                  or isinstance(failure[0], TimeoutError | asyncio.TimeoutError)
                  else " ".join(str(failure[0]).split()) or type(failure[0]).__name__)
        name = f"{option} {address}" if option else f"the scheduler address {address}"
        raise SchedulerError(
            f"{name}: no Dask scheduler completed the handshake within {CONNECT_TIMEOUT_S:g} s "
            f"({reason[:160]}); check the address (e.g. tcp://host:8786) and that "
            "`dask scheduler` runs there")


def run_jobs(function, jobs, *, kind, key, shared=None, use_cache=True, n_jobs=None,
             progress=True, description=None, cached_only=False):
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
        The cache key of a job: everything its result depends on (data digest, parameters) but
        the code, which the cache adds (``function``'s module and what it imports).
    shared : dict, optional
        Keyword arguments common to every job (e.g. the data), not part of the key.
    use_cache : bool, default=True
        ``False`` recomputes every job and overwrites its entry.
    n_jobs : int or None
        Parallel processes (joblib; ``-1`` = all cores). Results do not depend on it.
    progress : bool
        Show a progress bar over the jobs that are computed.
    cached_only : bool, default=False
        Compute nothing: the results the cache (or the project's store) holds, ``None`` for
        the jobs it does not hold (a run not made yet, or made by other code).
    """
    if _STORED_ONLY.get() is not None:
        return _read_stored(function, jobs, kind, key, *_STORED_ONLY.get())
    shared = shared or {}
    cache = ResultCache(kind, code=function)
    if cached_only:
        return [cache.load(key(job)) for job in jobs]
    results = [cache.load(key(job)) if use_cache else None for job in jobs]
    todo = [i for i, result in enumerate(results) if result is None]
    if not todo:
        return results
    client = _cluster_client()
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
    with one_thread():  # the same threads in the kernel, a joblib worker or a Dask worker
        return number, function(**kwargs)


def _same(value):
    return value


def _numbered_with_shared(number, function, shared, job):
    with one_thread():
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


# -- a product of settings run as one grid ------------------------------------------------------
class NotRun(ValueError):
    """A value asked of a grid's axis at which the experiment was not run."""


def axis_index(axis, values, value):
    """Position of ``value`` among ``values``, the values of axis ``axis`` (floats match to
    ``np.isclose``, others exactly); :class:`NotRun` when it is not there.

    >>> axis_index("size", [2, 4, 8], 4)
    1
    """
    values = np.asarray(values)
    if values.dtype.kind == "f" and isinstance(value, int | float | np.number):
        found = np.flatnonzero(np.isclose(values, float(value)))
    else:
        found = [i for i, v in enumerate(values.tolist()) if v == value]
    if len(found) == 0:
        value = value.item() if isinstance(value, np.generic) else value
        raise NotRun(f"{axis} {value!r} was not run; the grid has {axis} {values.tolist()}: "
                     "ask for one of these, or run the experiment with it")
    return int(found[0])


@dataclass(frozen=True, eq=False)
class Grid:
    """Results over named axes: ``fields[name]`` has shape ``shape`` (+ the shape of one job's
    array). ``missing[cell]``: the job was not run (its values NaN, or None in a field of
    strings); ``None`` when none is.

    >>> grid = Grid({"size": np.array([2, 4]), "seed": np.array([0, 1, 2])},
    ...             {"accuracy": np.arange(6.0).reshape(2, 3)})
    >>> float(grid.at(size=4, seed=1)["accuracy"])
    4.0
    """

    axes: dict  # name -> 1-D ndarray of values, in stacking order
    fields: dict  # name -> ndarray
    missing: np.ndarray | None = None

    @property
    def shape(self):
        """Number of values of each axis."""
        return tuple(len(values) for values in self.axes.values())

    def __getitem__(self, field):
        return self.fields[field]

    def index(self, axis, value):
        """Position of ``value`` on ``axis`` (:class:`NotRun` if it was not run)."""
        if axis not in self.axes:
            raise KeyError(f"the grid has no axis {axis!r}; its axes are {list(self.axes)}")
        return axis_index(axis, self.axes[axis], value)

    def at(self, **coordinates):
        """The sub-grid at one value of each axis named (those axes removed)."""
        for axis in set(coordinates) - set(self.axes):
            self.index(axis, coordinates[axis])  # the unknown axis's error
        where = tuple(self.index(axis, coordinates[axis]) if axis in coordinates else slice(None)
                      for axis in self.axes)
        return Grid({axis: values for axis, values in self.axes.items()
                     if axis not in coordinates},
                    {name: array[where] for name, array in self.fields.items()},
                    None if self.missing is None else self.missing[where])


def run_grid(function, axes, *, kind, key, fixed=None, **run_jobs_kwargs):
    """:func:`run_jobs` over every combination of ``axes`` (name -> values), the last axis
    varying fastest; each job is ``{**fixed, name: value, ...}`` (``fixed``: job arguments that
    are the same in every job, part of its key). Returns a :class:`Grid`.

    With ``cached_only=True`` a job the cache does not hold is a missing cell: NaN in every
    field, ``True`` in :attr:`Grid.missing`.

    Example: ``run_grid(job, {"size": [2, 4], "seed": range(3)}, kind="k", key=dict)`` runs the
    six jobs ``{"size": 2, "seed": 0}``, ``{"size": 2, "seed": 1}``, ..., ``{"size": 4, "seed":
    2}``; then ``.at(size=4)["accuracy"]`` holds one accuracy per seed.
    """
    axes = {name: _axis(name, values) for name, values in axes.items()}
    jobs = [{**(fixed or {}), **dict(zip(axes, cell, strict=True))}
            for cell in itertools.product(*(values.tolist() for values in axes.values()))]
    results = run_jobs(function, jobs, kind=kind, key=key, **run_jobs_kwargs)
    shape = tuple(len(values) for values in axes.values())
    missing = np.array([result is None for result in results]).reshape(shape)
    found = [result for result in results if result is not None]
    fields = {}
    for name in found[0] if found else ():
        template = np.asarray(found[0][name])
        fill = (np.full(template.shape, np.nan) if template.dtype.kind in "biufc"
                else np.full(template.shape, None, dtype=object))
        fields[name] = np.stack([fill if result is None
                                 else _field(result, name, template.shape)
                                 for result in results]).reshape(shape + template.shape)
    return Grid(axes, fields, missing if missing.any() else None)


def _axis(name, values):
    """The values of axis ``name`` as a 1-D array of plain values (a clear error otherwise)."""
    try:
        values = np.asarray([value.item() if isinstance(value, np.generic) else value
                             for value in values])
    except TypeError:
        values = np.asarray(values)
    if values.ndim != 1 or len(values) == 0:
        raise ValueError(f"axis {name!r} must be a non-empty sequence of single values, got "
                         f"{values.tolist()}")
    return values


def _field(result, name, shape):
    if name not in result or np.shape(result[name]) != shape:
        raise ValueError(f"every job must return {name!r} of shape {shape}; one returned "
                         f"{ {k: np.shape(v) for k, v in result.items()} }")
    return np.asarray(result[name])
