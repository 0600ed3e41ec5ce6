"""A classifier's class probabilities on a regular 2-D grid: what the toy lectures draw as
decision regions and boundaries."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Grid", "decision_grid", "grid_extent"]


@dataclass(frozen=True)
class Grid:
    """``proba[i, j, c]`` is P(class c) at ``(xs[j], ys[i])`` (image layout: rows are y)."""

    xs: np.ndarray  # (resolution,)
    ys: np.ndarray  # (resolution,)
    proba: np.ndarray  # (resolution, resolution, n_classes)

    @property
    def extent(self):
        """``(x_min, x_max, y_min, y_max)``, as ``imshow`` takes it."""
        return (float(self.xs[0]), float(self.xs[-1]), float(self.ys[0]), float(self.ys[-1]))


def grid_extent(X, *, margin=0.4):
    """``(x_min, x_max, y_min, y_max)`` of 2-D points ``X``, widened by ``margin`` on every side."""
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"a decision grid needs 2-D points, got an array of shape {X.shape}")
    low, high = X.min(axis=0) - margin, X.max(axis=0) + margin
    return (float(low[0]), float(high[0]), float(low[1]), float(high[1]))


def decision_grid(estimator, extent, *, resolution=120):
    """``estimator.predict_proba`` on a ``resolution`` × ``resolution`` grid over ``extent``.

    Parameters
    ----------
    estimator : fitted classifier with ``predict_proba`` on 2 features
    extent : (x_min, x_max, y_min, y_max)
        E.g. from :func:`grid_extent`.
    resolution : int, default=120

    Returns
    -------
    Grid
    """
    xs = np.linspace(extent[0], extent[1], resolution)
    ys = np.linspace(extent[2], extent[3], resolution)
    grid_x, grid_y = np.meshgrid(xs, ys)
    proba = estimator.predict_proba(np.column_stack([grid_x.ravel(), grid_y.ravel()]))
    return Grid(xs, ys, proba.reshape(resolution, resolution, -1))
