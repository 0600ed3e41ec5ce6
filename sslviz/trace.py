"""The per-iteration record shared by every iterative algorithm.

An estimator appends one frozen record per iteration while it runs; a widget that steps through
iterations replays these records and never refits. Arrays stored in a record are made read-only so
that a plot or a summary cannot change what the algorithm did.
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Iterator, Sequence

import numpy as np

__all__ = ["Trace", "freeze_array"]


def freeze_array(array):
    """Return ``array`` as a read-only ndarray (``None`` passes through)."""
    if array is None:
        return None
    frozen = np.array(array, copy=True)
    frozen.flags.writeable = False
    return frozen


class Trace(Sequence):
    """An immutable sequence of per-iteration records (frozen dataclasses).

    ``trace[i]`` is the record of iteration ``i`` (iteration 0 first); ``trace.values("objective")``
    collects one field over all iterations as an array.
    """

    def __init__(self, records):
        self._records = tuple(records)
        for record in self._records:
            if not dataclasses.is_dataclass(record):
                raise TypeError(f"trace records must be dataclasses, got {type(record).__name__}")

    def __getitem__(self, index):
        return self._records[index]

    def __len__(self) -> int:
        return len(self._records)

    def __iter__(self) -> Iterator:
        return iter(self._records)

    def __repr__(self) -> str:
        kind = type(self._records[0]).__name__ if self._records else "record"
        return f"Trace({len(self)} x {kind})"

    def values(self, field: str) -> np.ndarray:
        """One field of every record, stacked into an array of shape (n_iterations, ...)."""
        if not self._records:
            return np.array([])
        names = {f.name for f in dataclasses.fields(self._records[0])}
        if field not in names:
            raise KeyError(f"trace records have no field {field!r}; fields are {sorted(names)}")
        return np.array([getattr(record, field) for record in self._records])

    def iteration(self, iteration: int):
        """The record of ``iteration``, with an error naming the recorded range when out of it."""
        if isinstance(iteration, bool | np.bool_) or not isinstance(iteration, numbers.Integral):
            raise ValueError(f"iteration must be an integer (0 to {len(self) - 1}), "
                             f"got {iteration!r}")
        if not 0 <= iteration < len(self):
            raise IndexError(
                f"iteration {iteration} was not recorded: the trace holds iterations 0 to "
                f"{len(self) - 1}"
            )
        return self._records[iteration]
