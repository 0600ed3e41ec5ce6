"""The runner's grid result: jobs made as the product of named axes, results stacked along them in
that order, read with ``.at``, and one message for a value that was not run."""

from __future__ import annotations

import doctest
import re

import numpy as np
import pytest

from sslviz.experiments import runner
from sslviz.experiments.runner import Grid, NotRun, axis_index, run_grid, run_jobs


def cell(size, seed, offset=0):
    """A job whose result says where it was run: a scalar and a (2, 3) array."""
    return {"code": np.array(10 * size + seed + offset),
            "table": np.full((2, 3), float(size)) + np.arange(3) * seed}


def plain(size, seed):
    return {"value": size * seed}


def key(job):
    return {"version": 1, **job}


def test_jobs_are_the_product_of_the_axes_last_axis_fastest():
    grid = run_grid(cell, {"size": [2, 4, 8], "seed": range(2)}, kind="grid", key=key,
                    progress=False)
    assert list(grid.axes) == ["size", "seed"]
    assert grid.shape == (3, 2)
    # by hand: row = size, column = seed
    np.testing.assert_array_equal(grid["code"], [[20, 21], [40, 41], [80, 81]])
    assert grid["code"].dtype.kind == "i"  # nothing missing: the jobs' own dtype
    assert grid.missing is None
    # the same order as run_jobs over the jobs written out by hand
    jobs = [{"size": s, "seed": k} for s in (2, 4, 8) for k in (0, 1)]
    flat = run_jobs(cell, jobs, kind="grid", key=key, progress=False)
    np.testing.assert_array_equal(grid["code"].ravel(), [int(r["code"]) for r in flat])


def test_array_results_add_trailing_axes():
    grid = run_grid(cell, {"size": [2, 4], "seed": [0, 1, 2]}, kind="grid", key=key,
                    progress=False)
    assert grid["table"].shape == (2, 3, 2, 3)
    np.testing.assert_array_equal(grid["table"][1, 2], [[4, 6, 8], [4, 6, 8]])
    np.testing.assert_array_equal(grid.at(size=4, seed=2)["table"], grid["table"][1, 2])


def test_a_scalar_result_has_the_shape_of_the_axes():
    grid = run_grid(plain, {"size": [3, 5], "seed": [1, 2, 7]}, kind="plain", key=key,
                    progress=False)
    assert grid["value"].shape == (2, 3)
    np.testing.assert_array_equal(grid["value"], [[3, 6, 21], [5, 10, 35]])
    assert grid.at(size=5, seed=7)["value"] == 35
    assert grid.at(size=5, seed=7).shape == ()


def test_at_on_one_axis_or_several():
    grid = run_grid(cell, {"size": [2, 4, 8], "seed": [0, 1]}, kind="grid", key=key,
                    progress=False)
    by_seed = grid.at(seed=1)
    assert list(by_seed.axes) == ["size"]
    np.testing.assert_array_equal(by_seed.axes["size"], [2, 4, 8])
    np.testing.assert_array_equal(by_seed["code"], [21, 41, 81])
    np.testing.assert_array_equal(grid.at(size=8)["code"], [80, 81])
    assert int(grid.at(seed=0, size=4)["code"]) == 40  # order of the keywords does not matter
    np.testing.assert_array_equal(grid.at()["code"], grid["code"])  # no coordinates: all
    assert grid.index("size", 8) == 2


def test_the_one_message_for_a_value_not_run():
    grid = run_grid(cell, {"size": [2, 4, 8], "seed": [0, 1]}, kind="grid", key=key,
                    progress=False)
    message = ("size 7 was not run; the grid has size [2, 4, 8]: ask for one of these, or "
               "run the experiment with it")
    with pytest.raises(NotRun, match=f"^{re.escape(message)}$"):
        grid.at(size=7)
    with pytest.raises(ValueError, match=re.escape("seed 3 was not run; the grid has seed [0, 1]")):
        grid.at(size=2, seed=3)
    with pytest.raises(KeyError, match=re.escape("the grid has no axis 'n_labeled'; its axes "
                                                 "are ['size', 'seed']")):
        grid.at(n_labeled=2)


def test_axis_index_floats_within_rounding_strings_exactly():
    assert axis_index("threshold", [0.7, 0.75, 0.8], 0.1 + 0.65) == 1
    assert axis_index("threshold", np.array([0.7, 0.8]), np.float64(0.8)) == 1
    assert axis_index("criterion", ["evidence", "cv"], "cv") == 1
    with pytest.raises(NotRun, match=re.escape("criterion 'evidence ' was not run; the grid has "
                                               "criterion ['evidence', 'cv']")):
        axis_index("criterion", ["evidence", "cv"], "evidence ")
    with pytest.raises(NotRun, match=re.escape("threshold 0.5 was not run")):
        axis_index("threshold", np.array([0.7, 0.8]), np.float64(0.5))
    # integers match exactly (np.isclose would take 100001 for 100000)
    with pytest.raises(NotRun, match=re.escape("size 100001 was not run")):
        axis_index("size", [100000], 100001)


def test_cached_only_marks_the_cells_not_run_and_fills_them_with_nan():
    run_grid(cell, {"size": [2], "seed": [0, 1]}, kind="grid", key=key, progress=False)
    run_grid(cell, {"size": [8], "seed": [1]}, kind="grid", key=key, progress=False)
    grid = run_grid(cell, {"size": [2, 4, 8], "seed": [0, 1]}, kind="grid", key=key,
                    cached_only=True)
    np.testing.assert_array_equal(grid.missing, [[False, False], [True, True], [True, False]])
    np.testing.assert_array_equal(grid["code"], [[20, 21], [np.nan, np.nan], [np.nan, 81]])
    assert np.isnan(grid["table"][1]).all() and grid["table"].shape == (3, 2, 2, 3)
    np.testing.assert_array_equal(grid.at(size=8).missing, [True, False])
    nothing = run_grid(cell, {"size": [16]}, kind="grid",
                       key=lambda job: {**job, "seed": 0, "version": 1}, cached_only=True)
    assert nothing.fields == {} and nothing.missing.tolist() == [True]


def test_jobs_that_disagree_on_their_fields_are_refused():
    with pytest.raises(ValueError, match=re.escape("every job must return 'value' of shape ()")):
        run_grid(uneven, {"size": [1, 2]}, kind="uneven", key=key, progress=False)


def uneven(size):
    return {"value": np.zeros(size - 1) if size > 1 else 0.0}


def test_a_grid_built_by_hand_reads_the_same():
    grid = Grid({"size": np.array([2, 4]), "seed": np.array([0, 1, 2])},
                {"accuracy": np.arange(6.0).reshape(2, 3)})
    assert float(grid.at(size=4, seed=1)["accuracy"]) == 4.0
    np.testing.assert_array_equal(grid.at(seed=2)["accuracy"], [2.0, 5.0])


def test_the_docstring_examples_hold():
    result = doctest.testmod(runner, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 3 and result.failed == 0


@pytest.mark.parametrize("values, shown", [([], "[]"), ([(1, 2), (3, 4)], "[[1, 2], [3, 4]]"),
                                           (3, "3")])
def test_an_axis_must_be_values_one_by_one(values, shown):
    with pytest.raises(ValueError, match=re.escape(f"axis 'seed' must be a non-empty sequence of "
                                                   f"single values, got {shown}")):
        run_grid(plain, {"size": [1], "seed": values}, kind="plain", key=key)


def test_fixed_arguments_go_to_every_job_and_its_key():
    keys = []

    def recording_key(job):
        keys.append(dict(job))
        return {"version": 1, **job}

    grid = run_grid(cell, {"seed": [0, 1]}, kind="grid", key=recording_key, fixed={"size": 4},
                    progress=False)
    np.testing.assert_array_equal(grid["code"], [40, 41])
    assert list(grid.axes) == ["seed"]
    assert keys[:2] == [{"size": 4, "seed": 0}, {"size": 4, "seed": 1}]


def named(size):
    return {"name": np.array(f"size {size}"), "value": np.array(float(size))}


def test_a_missing_cell_of_a_field_of_strings_is_none():
    run_grid(named, {"size": [2]}, kind="named", key=key, progress=False)
    grid = run_grid(named, {"size": [2, 3]}, kind="named", key=key, cached_only=True)
    assert grid["name"].tolist() == ["size 2", None]
    np.testing.assert_array_equal(grid["value"], [2.0, np.nan])
    assert grid.missing.tolist() == [False, True]
