"""Scores that several lectures print beside their models."""

from __future__ import annotations

import numpy as np

__all__ = ["majority_accuracy"]


def majority_accuracy(y_test, classes=None):
    """Accuracy of the best constant guess on ``y_test``: the share of its most frequent class.

    ``classes`` restricts the guesses (e.g. the senses a model knows); default: every class in
    ``y_test``.
    """
    y_test = np.asarray(y_test)
    if len(y_test) == 0:
        raise ValueError("majority_accuracy needs at least one test row")
    candidates = np.unique(y_test) if classes is None else np.asarray(classes)
    return float(max(np.mean(y_test == c) for c in candidates))
