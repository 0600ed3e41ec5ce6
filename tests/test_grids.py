"""The one 2-D decision grid, against scikit-learn's predict_proba point by point."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from sslviz.grids import decision_grid, grid_extent
from sslviz.metrics import majority_accuracy


def test_grid_matches_predict_proba_in_image_layout():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = np.repeat([0, 1, 2], 20)
    model = LogisticRegression().fit(X, y)
    extent = grid_extent(X, margin=0.5)
    grid = decision_grid(model, extent, resolution=7)
    assert grid.proba.shape == (7, 7, 3)
    assert grid.extent == pytest.approx(extent)
    i, j = 2, 5  # row = y index, column = x index
    point = np.array([[grid.xs[j], grid.ys[i]]])
    np.testing.assert_allclose(grid.proba[i, j], model.predict_proba(point)[0])
    np.testing.assert_allclose(grid.proba.sum(axis=2), 1.0)


def test_grid_extent():
    assert grid_extent(np.array([[0, 1], [2, -1]]), margin=1) == (-1, 3, -2, 2)
    with pytest.raises(ValueError, match=r"2-D points, got an array of shape \(3,\)"):
        grid_extent(np.zeros(3))


def test_majority_accuracy():
    assert majority_accuracy(["a", "b", "b", "c"]) == 0.5
    assert majority_accuracy(["a", "b", "b", "c"], classes=["a", "c"]) == 0.25
    with pytest.raises(ValueError, match="at least one test row"):
        majority_accuracy([])
