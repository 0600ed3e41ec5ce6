"""Supervised vs semi-supervised learning on 2-D toy data, as the cluster assumption breaks.

The experiment of Lecture 1. Points come from :func:`sslviz.datasets.toy.make_rotated_clusters`:
two long clusters, labeled by a line whose ``angle`` to the gap between the clusters moves the
data from favourable (0°, each cluster is one class) to unfavourable (90°, each cluster is half of
each class). On every seeded split (:func:`sslviz.splits.split_labeled`: a few labeled points,
the rest of the training points unlabeled, held-out test points) two classifiers are fitted:

* the **supervised** one sees only the labeled points (default: scikit-learn's
  ``LogisticRegression``);
* the **semi-supervised** one also sees the unlabeled points (default: scikit-learn's
  ``LabelSpreading`` with an RBF graph, Zhou et al. 2004): labels flow from the labeled points
  along the graph of nearby points, so whole clusters take the label of the labeled points in
  them. That is exactly right when clusters are classes and exactly wrong when they are not.

Both are scored on the same test points. Neither algorithm is re-implemented here; this module
only draws data, splits, fits and summarises.

Cost: one fit is a logistic regression on ``n_labeled`` points plus label spreading on
``n_train`` points (a dense ``n_train × n_train`` affinity matrix and up to a few hundred
propagation steps): about 10-20 ms for 300 points. A sweep costs
``len(angles) × len(sizes) × len(seeds)`` fits (280 by default: about 3 s), optionally spread
over processes by joblib.

References
----------
Wiegand, *An Introduction to Semi-Supervised Learning* (lecture, 2009): "A Dataset favourable /
unfavourable for Semi-Supervised Learning" and "A Word of Warning". Zhou, Bousquet, Lal, Weston &
Schölkopf (2004), Learning with local and global consistency (label spreading). Chapelle,
Schölkopf & Zien (2006), *Semi-Supervised Learning*, chapter 1 (the cluster assumption).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.semi_supervised import LabelSpreading
from tqdm.auto import tqdm

from .datasets.toy import make_rotated_clusters
from .splits import Split, split_labeled

__all__ = [
    "Sweep",
    "ToyFit",
    "cached_toy_fits",
    "decision_grid",
    "default_semi_supervised",
    "default_supervised",
    "fit_toy",
    "sweep_cluster_assumption",
]


def default_supervised():
    """The supervised classifier of the lecture: scikit-learn's ``LogisticRegression``.

    The ``newton-cholesky`` solver finds the same optimum as the default ``lbfgs`` (an L2 penalty
    with ``C=1``), but on a handful of points it does not pay ``lbfgs``'s thread start-up cost,
    which made a sweep several times slower on two cores.
    """
    return LogisticRegression(solver="newton-cholesky")


def default_semi_supervised():
    """The semi-supervised classifier of the lecture: scikit-learn's ``LabelSpreading``.

    An RBF graph (``gamma=2``: points about 0.7 apart are strongly linked, a good match for the
    toy clusters) and ``alpha=0.99`` (labels spread far; 0.2, scikit-learn's default, keeps them
    near the labeled points), with enough iterations to converge.
    """
    return LabelSpreading(kernel="rbf", gamma=2.0, alpha=0.99, max_iter=1000)


@dataclass(frozen=True)
class ToyFit:
    """One seeded split of the toy data and both classifiers fitted on it.

    Attributes
    ----------
    angle : float
    n_labeled, seed : int
    X : ndarray of shape (n_train + n_test, 2)
    y : ndarray of shape (n_train + n_test,)
    split : Split
        Row indices into ``X``: labeled, unlabeled, test.
    supervised : fitted estimator (labeled rows only)
    semi_supervised : fitted estimator (labeled and unlabeled rows)
    supervised_accuracy, semi_supervised_accuracy : float
        Accuracy on the test rows.
    """

    angle: float
    n_labeled: int
    seed: int
    X: np.ndarray
    y: np.ndarray
    split: Split
    supervised: object
    semi_supervised: object
    supervised_accuracy: float
    semi_supervised_accuracy: float

    @property
    def unlabeled_predictions(self):
        """Labels the semi-supervised classifier gave the unlabeled rows, ``(n_unlabeled,)``.

        Its ``transduction_`` where it has one (label spreading: the labels that spread to these
        points while fitting), else its predictions for them.
        """
        transduction = getattr(self.semi_supervised, "transduction_", None)
        if transduction is not None:
            return np.asarray(transduction)[len(self.split.labeled):]
        return self.semi_supervised.predict(self.X[self.split.unlabeled])


def fit_toy(angle, n_labeled, seed, *, n_train=300, n_test=300, supervised=None,
            semi_supervised=None):
    """Draw the toy data at ``angle``, split it (seeded) and fit both classifiers.

    Parameters
    ----------
    angle : float in [0, 90]
        Degrees between the class boundary and the gap between the clusters
        (see :func:`sslviz.datasets.toy.make_rotated_clusters`).
    n_labeled : int
        Labeled points (stratified; at least one per class, so at least 2).
    seed : int
        Seeds both the points and the split.
    n_train : int, default=300
        Points the semi-supervised classifier sees (labeled + unlabeled).
    n_test : int, default=300
        Held-out points both classifiers are scored on.
    supervised, semi_supervised : estimator or None
        Unfitted templates (cloned); ``None`` means :func:`default_supervised` /
        :func:`default_semi_supervised`. The semi-supervised one must accept ``y == -1`` for
        unlabeled rows.

    Returns
    -------
    ToyFit
    """
    _check_size("n_train", n_train, 2)
    _check_size("n_test", n_test, 1)
    if not isinstance(n_labeled, numbers.Integral) or not 2 <= n_labeled <= n_train:
        raise ValueError(f"n_labeled must be an integer between 2 (one point per class) and "
                         f"n_train={n_train}, got {n_labeled!r}")
    X, y = make_rotated_clusters(n_train + n_test, angle=angle, random_state=seed)
    split = split_labeled(y, int(n_labeled), n_test=n_test, random_state=seed)
    sup = clone(default_supervised() if supervised is None else supervised)
    sup.fit(X[split.labeled], y[split.labeled])
    ssl = clone(default_semi_supervised() if semi_supervised is None else semi_supervised)
    ssl.fit(X[split.train], split.semi_supervised_targets(y))
    X_test, y_test = X[split.test], y[split.test]
    return ToyFit(float(angle), int(n_labeled), int(seed), X, y, split, sup, ssl,
                  float(np.mean(sup.predict(X_test) == y_test)),
                  float(np.mean(ssl.predict(X_test) == y_test)))


def cached_toy_fits(**fit_params):
    """A cached ``(angle, n_labeled, seed) -> ToyFit``: :func:`fit_toy` with fixed settings."""

    @lru_cache(maxsize=128)
    def fit(angle, n_labeled, seed):
        return fit_toy(angle, n_labeled, seed, **fit_params)

    return fit


def decision_grid(estimator, xlim, ylim, *, resolution=120):
    """P(class 1 | x) of a fitted binary classifier on a regular grid, for drawing boundaries.

    Parameters
    ----------
    estimator : fitted classifier with ``predict_proba`` and two classes
    xlim, ylim : (float, float)
    resolution : int, default=120
        Grid points along each axis.

    Returns
    -------
    xs : ndarray of shape (resolution,)
    ys : ndarray of shape (resolution,)
    proba : ndarray of shape (resolution, resolution)
        ``proba[i, j]`` is P(class 1) at ``(xs[j], ys[i])`` (image layout: rows are y).
    """
    if len(getattr(estimator, "classes_", ())) != 2:
        raise ValueError("decision_grid needs a fitted classifier with exactly two classes")
    xs = np.linspace(*xlim, resolution)
    ys = np.linspace(*ylim, resolution)
    grid_x, grid_y = np.meshgrid(xs, ys)
    points = np.column_stack([grid_x.ravel(), grid_y.ravel()])
    proba = estimator.predict_proba(points)[:, 1].reshape(resolution, resolution)
    return xs, ys, proba


@dataclass(frozen=True)
class Sweep:
    """Test accuracy of both classifiers over angles, labeled-set sizes and seeds.

    Attributes
    ----------
    angles : ndarray of shape (n_angles,)
    sizes : ndarray of shape (n_sizes,)
    seeds : ndarray of shape (n_seeds,)
    supervised, semi_supervised : ndarray of shape (n_sizes, n_angles, n_seeds)
        Test accuracies.
    fit_params : dict
        The keyword arguments of :func:`fit_toy` the sweep used (``n_train``, ``n_test`` and the
        estimator templates), so that one cell can be refitted exactly.
    """

    angles: np.ndarray
    sizes: np.ndarray
    seeds: np.ndarray
    supervised: np.ndarray
    semi_supervised: np.ndarray
    fit_params: dict

    def at(self, n_labeled):
        """(supervised, semi-supervised) accuracies at one size, each (n_angles, n_seeds)."""
        index = self._size_index(n_labeled)
        return self.supervised[index], self.semi_supervised[index]

    def ends(self, n_labeled):
        """Mean accuracies at the favourable and unfavourable ends of the angle range.

        Returns
        -------
        dict
            ``{"favourable": (angle, supervised, semi), "unfavourable": (angle, supervised,
            semi)}`` with the first and last recorded angle.
        """
        sup, ssl = self.at(n_labeled)
        sup, ssl = sup.mean(axis=1), ssl.mean(axis=1)
        return {"favourable": (float(self.angles[0]), float(sup[0]), float(ssl[0])),
                "unfavourable": (float(self.angles[-1]), float(sup[-1]), float(ssl[-1]))}

    def _size_index(self, n_labeled):
        matches = np.flatnonzero(self.sizes == n_labeled)
        if len(matches) == 0:
            raise ValueError(f"n_labeled={n_labeled} was not swept; the sweep has sizes "
                             f"{self.sizes.tolist()}")
        return matches[0]


def _accuracies(angle, n_labeled, seed, fit_params):
    fit = fit_toy(angle, n_labeled, seed, **fit_params)
    return fit.supervised_accuracy, fit.semi_supervised_accuracy


def sweep_cluster_assumption(angles=(0, 15, 30, 45, 60, 75, 90), sizes=(2, 4, 8, 16),
                             seeds=range(10), *, n_train=300, n_test=300, supervised=None,
                             semi_supervised=None, progress=True, n_jobs=None):
    """Supervised vs semi-supervised test accuracy as the data move from favourable to not.

    Parameters
    ----------
    angles : sequence of float in [0, 90], increasing
        Angles between class boundary and cluster gap (0 = favourable, 90 = unfavourable).
    sizes : sequence of int
        Labeled-set sizes.
    seeds : sequence of int
        One data draw and split per seed (the same seeds at every angle and size).
    n_train, n_test, supervised, semi_supervised
        As in :func:`fit_toy`.
    progress : bool, default=True
        Show a progress bar (``tqdm.auto``: a widget in a notebook).
    n_jobs : int or None
        Fits run in parallel processes (joblib; ``-1`` = all cores). Results do not depend on it.

    Returns
    -------
    Sweep
    """
    angles = np.asarray(angles, dtype=float)
    sizes = np.asarray(sizes, dtype=int)
    seeds = np.asarray(list(seeds), dtype=int)
    if angles.ndim != 1 or len(angles) < 2 or np.any(np.diff(angles) <= 0) \
            or angles[0] < 0 or angles[-1] > 90:
        raise ValueError("angles must be at least two increasing angles in [0, 90] degrees, "
                         f"got {angles.tolist()}")
    if len(sizes) == 0 or len(seeds) == 0:
        raise ValueError("sweep_cluster_assumption needs at least one size and one seed")
    for size in sizes:  # fail before starting any fit
        if not 2 <= size <= n_train:
            raise ValueError(f"every size must lie between 2 and n_train={n_train}, "
                             f"got {size}")
    fit_params = {"n_train": n_train, "n_test": n_test,
                  "supervised": default_supervised() if supervised is None else supervised,
                  "semi_supervised": (default_semi_supervised() if semi_supervised is None
                                      else semi_supervised)}
    jobs = [(float(a), int(n), int(s)) for n in sizes for a in angles for s in seeds]
    parallel = Parallel(n_jobs=n_jobs, return_as="generator")
    finished = parallel(delayed(_accuracies)(a, n, s, fit_params) for a, n, s in jobs)
    results = np.array(list(tqdm(finished, total=len(jobs), desc="cluster-assumption sweep",
                                 disable=not progress, leave=False)))
    results = results.reshape(len(sizes), len(angles), len(seeds), 2)
    return Sweep(angles, sizes, seeds, results[..., 0], results[..., 1], fit_params)


def _check_size(name, value, minimum):
    if not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
