"""Seeded 2-D toy data for pictures of the cluster assumption.

:func:`make_rotated_clusters` draws two long, thin clusters side by side and labels every point by
the side of a straight class boundary through the origin. The ``angle`` between that boundary and
the gap separating the clusters moves the data from favourable to unfavourable for
semi-supervised learning (Wiegand's lecture, "A Dataset favourable / unfavourable for
Semi-Supervised Learning"):

* ``angle=0``: the class boundary runs along the empty gap; every cluster holds one class, so the
  unlabeled points cluster with the labeled points of their class (the cluster assumption holds);
* ``angle=90``: the class boundary is horizontal and cuts both clusters in half; each cluster
  holds both classes in equal parts, so following the clusters is following the wrong structure.

The points do not depend on ``angle``, only their labels do: with the same ``random_state`` the
same cloud is relabeled as the angle moves. Cost: O(n_samples).
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import check_random_state

__all__ = ["class_of", "make_rotated_clusters"]


def make_rotated_clusters(n_samples=600, *, angle=0.0, separation=1.6, spread=(0.55, 2.0),
                          return_clusters=False, random_state=None):
    """Two elongated Gaussian clusters, labeled by a line at ``angle`` degrees to their gap.

    Each point belongs to one of two clusters (probability 1/2 each), centred at
    ``(-separation, 0)`` and ``(+separation, 0)``, with independent Gaussian noise of standard
    deviation ``spread[0]`` across and ``spread[1]`` along the cluster. Its class is

    ``y = 1 if x1 * cos(angle) + x2 * sin(angle) > 0 else 0``,

    i.e. the side of a class boundary through the origin whose normal makes ``angle`` with the
    horizontal axis.

    Parameters
    ----------
    n_samples : int, default=600
        Number of points (at least 2).
    angle : float in [0, 90], default=0.0
        Angle in degrees between the class boundary and the gap between the clusters. 0 puts the
        boundary in the gap (labels follow the clusters); 90 makes it cut across both clusters.
    separation : float > 0, default=1.6
        Distance of each cluster centre from the vertical axis.
    spread : (float, float), default=(0.55, 2.0)
        Standard deviations across (horizontal) and along (vertical) each cluster; both > 0.
    return_clusters : bool, default=False
        Also return each point's cluster (0 = left, 1 = right).
    random_state : int, RandomState or None, default=None
        Seeds the points (the labels then follow from ``angle``).

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,) of int, classes 0 and 1
    clusters : ndarray of shape (n_samples,) of int
        Only when ``return_clusters=True``.

    Notes
    -----
    With the defaults about 99.8% of the points have the label of their cluster at ``angle=0``
    and about 50% at ``angle=90``. The two classes are balanced in expectation at every angle.
    """
    if not isinstance(n_samples, numbers.Integral) or isinstance(n_samples, bool) \
            or n_samples < 2:
        raise ValueError(f"n_samples must be an integer >= 2, got {n_samples!r}")
    if not isinstance(angle, numbers.Real) or not 0 <= angle <= 90:
        raise ValueError(f"angle must be a number of degrees in [0, 90], got {angle!r}")
    if not isinstance(separation, numbers.Real) or not separation > 0:
        raise ValueError(f"separation must be a positive number, got {separation!r}")
    spread = np.asarray(spread, dtype=float)
    if spread.shape != (2,) or not np.all(spread > 0):
        raise ValueError("spread must be two positive standard deviations (across, along), "
                         f"got {spread.tolist()!r}")
    rng = check_random_state(random_state)
    clusters = rng.randint(0, 2, size=n_samples)
    noise = rng.standard_normal((n_samples, 2)) * spread
    X = np.column_stack([np.where(clusters == 1, separation, -separation), np.zeros(n_samples)])
    X += noise
    y = class_of(X, angle)
    return (X, y, clusters) if return_clusters else (X, y)


def class_of(X, angle):
    """The class ``make_rotated_clusters`` gives to points ``X`` (n, 2) for ``angle`` degrees."""
    theta = np.deg2rad(angle)
    return (X[:, 0] * np.cos(theta) + X[:, 1] * np.sin(theta) > 0).astype(int)
