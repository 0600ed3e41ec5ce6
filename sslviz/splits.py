"""Labeled / unlabeled / test sampling: stratified, seeded, returned as row indices.

Every experiment in the lectures starts from a :class:`Split` of one corpus: a few labeled rows,
a pool of unlabeled rows (whose labels the learner never sees) and held-out test rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.utils import check_random_state

from .validation import UNLABELED, is_unlabeled  # the rule lives with the other checks

__all__ = ["UNLABELED", "Split", "is_unlabeled", "split_labeled"]


@dataclass(frozen=True)
class Split:
    """Row indices of one labeled / unlabeled / test split (disjoint, each sorted)."""

    labeled: np.ndarray
    unlabeled: np.ndarray
    test: np.ndarray

    @property
    def train(self) -> np.ndarray:
        """Labeled rows followed by unlabeled rows: the rows a semi-supervised learner sees."""
        return np.concatenate([self.labeled, self.unlabeled])

    def semi_supervised_targets(self, y) -> np.ndarray:
        """Targets for :attr:`train`: true labels on labeled rows, ``-1`` on unlabeled rows."""
        y = np.asarray(y)
        if y.dtype.kind in "iu":
            return np.concatenate([y[self.labeled], np.full(len(self.unlabeled), UNLABELED)])
        targets = np.full(len(self.labeled) + len(self.unlabeled), UNLABELED, dtype=object)
        targets[: len(self.labeled)] = y[self.labeled]
        return targets


def split_labeled(y, n_labeled, *, n_unlabeled=None, n_test=None, per_class=False,
                  test_rows=None, random_state=None) -> Split:
    """Draw a stratified labeled set, an unlabeled pool and a test set from labels ``y``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        True labels of the whole corpus.
    n_labeled : int
        Size of the labeled set; with ``per_class=True`` the number of labeled rows *per class*.
        Without it the labeled set is spread over the classes in proportion to their sizes, with at
        least one row of every class (so ``n_labeled`` must be at least the number of classes).
    n_unlabeled : int, optional
        Size of the unlabeled pool, drawn at random from what is left; default: all that is left.
    n_test : int, optional
        Size of the test set, drawn first, stratified; ignored when ``test_rows`` is given.
        Default: no test rows unless ``test_rows`` is given.
    test_rows : array-like of int, optional
        Fixed test rows (e.g. the corpus' official test split); excluded from the other two sets.
    random_state : int, RandomState or None
        Seed of every draw.

    Returns
    -------
    Split
    """
    from .validation import check_bool, check_int  # validation imports this module

    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be one label per row (1-D), got an array of shape {y.shape}")
    n_labeled = check_int("n_labeled", n_labeled, minimum=1)
    n_unlabeled = None if n_unlabeled is None else check_int("n_unlabeled", n_unlabeled,
                                                             minimum=0)
    n_test = None if n_test is None else check_int("n_test", n_test, minimum=0)
    per_class = check_bool("per_class", per_class)
    rng = check_random_state(random_state)
    classes, counts = np.unique(y, return_counts=True)
    available = np.arange(len(y))
    if test_rows is not None:
        test = np.unique(_row_indices(test_rows, len(y)))
    elif n_test:
        test = _stratified_sample(y, available, n_test, rng)
    else:
        test = np.array([], dtype=int)
    available = np.setdiff1d(available, test)
    if per_class:
        labeled = np.concatenate([_sample_class(y, available, c, n_labeled, rng) for c in classes])
    else:
        if n_labeled < len(classes):
            raise ValueError(
                f"n_labeled={n_labeled} is smaller than the number of classes ({len(classes)}): "
                "every class needs at least one labeled row"
            )
        labeled = _stratified_sample(y, available, n_labeled, rng)
    available = np.setdiff1d(available, labeled)
    if n_unlabeled is not None:
        if n_unlabeled > len(available):
            raise ValueError(
                f"n_unlabeled={n_unlabeled} exceeds the {len(available)} rows left after the "
                "labeled and test rows"
            )
        available = np.sort(rng.choice(available, size=n_unlabeled, replace=False))
    return Split(np.sort(labeled), available, np.sort(test))


def _row_indices(rows, n_rows):
    """``rows`` as integer row indices of an array of ``n_rows`` rows, or a clear error."""
    rows = np.asarray(rows)
    if rows.size and (rows.dtype.kind not in "iu" or rows.ndim != 1):
        raise ValueError(f"test_rows must be a 1-D sequence of row indices (integers), got "
                         f"{rows.dtype} values of shape {rows.shape}")
    outside = rows[(rows < 0) | (rows >= n_rows)] if rows.size else rows
    if outside.size:
        raise ValueError(f"test_rows holds {outside[:3].tolist()}, outside the rows 0..{n_rows - 1}"
                         " of y")
    return rows.astype(int)


def _sample_class(y, rows, label, n, rng) -> np.ndarray:
    members = rows[y[rows] == label]
    if len(members) < n:
        raise ValueError(f"class {_plain(label)!r} has only {len(members)} rows left; "
                         f"{n} were asked for")
    return rng.choice(members, size=n, replace=False)


def _stratified_sample(y, rows, n, rng) -> np.ndarray:
    """``n`` rows with class shares as in ``rows``; at least one per class (largest remainders)."""
    classes, counts = np.unique(y[rows], return_counts=True)
    if n > len(rows):
        raise ValueError(f"asked for {n} rows but only {len(rows)} are available")
    exact = counts / counts.sum() * n
    quota = np.floor(exact).astype(int)
    if n >= len(classes):  # every class gets a row when there are enough rows to go round
        quota = np.maximum(quota, 1)
    while quota.sum() > n:  # take back from classes that keep at least one row
        excess = np.where(quota > 1, quota - exact, -np.inf)
        quota[np.argmax(excess)] -= 1
    remainder = exact - quota
    for index in np.argsort(-remainder)[: n - quota.sum()]:
        quota[index] += 1
    return np.concatenate(
        [_sample_class(y, rows, c, q, rng) for c, q in zip(classes, quota, strict=True)]
    )


def _plain(label):
    """A numpy scalar as the Python value it holds (so messages read ``3``, not ``np.int64(3)``)."""
    return label.item() if isinstance(label, np.generic) else label
