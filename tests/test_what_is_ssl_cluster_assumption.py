"""Supervised vs semi-supervised on the toy data, against scikit-learn fitted here directly."""

import numpy as np
import pytest
from scipy.special import expit
from sklearn.linear_model import LogisticRegression
from sklearn.semi_supervised import LabelSpreading
from sklearn.svm import SVC

import sslviz.experiments.what_is_ssl as ca
from sslviz.datasets.toy import make_rotated_clusters
from sslviz.experiments.runner import NotRun
from sslviz.experiments.what_is_ssl import (
    TOY_EXTENT,
    cached_toy_fits,
    cached_toy_grids,
    fit_toy,
    sweep_cluster_assumption,
)
from sslviz.splits import split_labeled


def reference_fit(angle, n_labeled, seed, n_train=300, n_test=300):
    """The same experiment written out with scikit-learn only."""
    X, y = make_rotated_clusters(n_train + n_test, angle=angle, random_state=seed)
    split = split_labeled(y, n_labeled, n_test=n_test, random_state=seed)
    sup = LogisticRegression(solver="newton-cholesky").fit(X[split.labeled], y[split.labeled])
    targets = np.full(len(y), -1)
    targets[split.labeled] = y[split.labeled]
    rows = np.concatenate([split.labeled, split.unlabeled])
    ssl = LabelSpreading(kernel="rbf", gamma=2.0, alpha=0.99, max_iter=1000)
    ssl.fit(X[rows], targets[rows])
    return X, y, split, sup, ssl


@pytest.mark.parametrize("angle, n_labeled, seed", [(0, 2, 7), (90, 6, 1), (45, 4, 0)])
def test_fit_toy_equals_scikit_learn_fitted_by_hand(angle, n_labeled, seed):
    fit = fit_toy(angle, n_labeled, seed)
    X, y, split, sup, ssl = reference_fit(angle, n_labeled, seed)
    np.testing.assert_array_equal(fit.X, X)
    np.testing.assert_array_equal(fit.split.labeled, split.labeled)
    np.testing.assert_allclose(fit.supervised.coef_, sup.coef_)
    test = split.test
    assert fit.supervised_accuracy == pytest.approx(np.mean(sup.predict(X[test]) == y[test]))
    assert fit.semi_supervised_accuracy == pytest.approx(np.mean(ssl.predict(X[test]) == y[test]))
    np.testing.assert_array_equal(fit.unlabeled_predictions, ssl.transduction_[len(split.labeled):])


def test_split_sizes_and_who_sees_what():
    fit = fit_toy(30, 5, 2, n_train=80, n_test=40)
    split = fit.split
    assert (len(split.labeled), len(split.unlabeled), len(split.test)) == (5, 75, 40)
    assert len(np.unique(np.concatenate([split.labeled, split.unlabeled, split.test]))) == 120
    assert set(fit.y[split.labeled]) == {0, 1}
    assert fit.semi_supervised.transduction_.shape == (80,)  # labeled + unlabeled rows
    np.testing.assert_array_equal(fit.unlabeled_predictions, fit.semi_supervised.transduction_[5:])
    assert fit.angle == 30.0 and fit.n_labeled == 5 and fit.seed == 2


def test_label_spreading_may_overrule_a_labeled_point_where_clusters_are_not_classes():
    """Label spreading (alpha=0.99) keeps only 1% of each point's own label at every step."""
    favourable, unfavourable = fit_toy(0, 8, 0), fit_toy(90, 8, 0)
    for fit, n_overruled in ((favourable, 0), (unfavourable, 1)):
        given = fit.y[fit.split.labeled]
        assert np.sum(fit.semi_supervised.transduction_[:8] != given) == n_overruled


def test_other_estimators_can_be_plugged_in():
    fit = fit_toy(0, 4, 0, n_train=60, n_test=30, supervised=SVC(kernel="linear", C=10.0))
    assert isinstance(fit.supervised, SVC)
    X, y, split, *_ = reference_fit(0, 4, 0, n_train=60, n_test=30)
    reference = SVC(kernel="linear", C=10.0).fit(X[split.labeled], y[split.labeled])
    np.testing.assert_allclose(fit.supervised.coef_, reference.coef_)


@pytest.mark.parametrize("kwargs, message", [
    ({"n_labeled": 1}, r"n_labeled must be an integer in \[2, 300\], got 1"),
    ({"n_labeled": 301}, r"n_labeled must be an integer in \[2, 300\], got 301"),
    ({"n_labeled": True}, r"n_labeled must be an integer"),
    ({"n_labeled": 4, "n_train": 1}, r"n_train must be an integer >= 2, got 1"),
    ({"n_labeled": 4, "n_test": 0}, r"n_test must be an integer >= 1, got 0"),
    ({"n_labeled": 4, "angle": 120}, r"angle must be a number of degrees in \[0, 90\]"),
])
def test_fit_toy_refuses_bad_settings(kwargs, message):
    params = {"angle": 0, "seed": 0, **kwargs}
    with pytest.raises(ValueError, match=message):
        fit_toy(params.pop("angle"), params.pop("n_labeled"), params.pop("seed"), **params)


def test_toy_grids_are_predict_proba_in_image_layout():
    fits = cached_toy_fits(n_train=60, n_test=30)
    grids = cached_toy_grids(fits, (-2, 2, -3, 3), resolution=7)
    fit, grid = fits(0, 4, 3), grids(0, 4, 3, "supervised")
    assert grid.proba.shape == (7, 7, 2) and grids(0, 4, 3, "supervised") is grid
    np.testing.assert_allclose(grid.xs, np.linspace(-2, 2, 7))
    np.testing.assert_allclose(grid.ys, np.linspace(-3, 3, 7))
    w, b = fit.supervised.coef_[0], fit.supervised.intercept_[0]
    for i in (0, 3, 6):
        for j in (0, 2, 5):
            assert grid.proba[i, j, 1] == pytest.approx(expit(w[0] * grid.xs[j]
                                                              + w[1] * grid.ys[i] + b))
    semi = grids(0, 4, 3, "semi_supervised")
    points = np.array([[grid.xs[2], grid.ys[5]]])
    np.testing.assert_allclose(semi.proba[5, 2], fit.semi_supervised.predict_proba(points)[0])
    assert cached_toy_grids(fits, resolution=3)(0, 4, 3, "supervised").extent == TOY_EXTENT


@pytest.fixture(scope="module")
def small_sweep(module_result_cache):
    return sweep_cluster_assumption(angles=(0, 45, 90), sizes=(2, 4), seeds=(0, 1),
                                    n_train=80, n_test=40, progress=False)


def test_every_cell_of_the_sweep_is_the_fit_it_names(small_sweep):
    assert small_sweep.supervised.shape == small_sweep.semi_supervised.shape == (2, 3, 2)
    for s, size in enumerate(small_sweep.sizes):
        for a, angle in enumerate(small_sweep.angles):
            for k, seed in enumerate(small_sweep.seeds):
                fit = fit_toy(angle, size, seed, n_train=80, n_test=40)
                assert small_sweep.supervised[s, a, k] == fit.supervised_accuracy
                assert small_sweep.semi_supervised[s, a, k] == fit.semi_supervised_accuracy


def test_at_and_ends_read_the_sweep(small_sweep):
    sup, ssl = small_sweep.at(4)
    np.testing.assert_array_equal(sup, small_sweep.supervised[1])
    np.testing.assert_array_equal(ssl, small_sweep.semi_supervised[1])
    ends = small_sweep.ends(4)
    assert ends["favourable"] == (0.0, sup[0].mean(), ssl[0].mean())
    assert ends["unfavourable"] == (90.0, sup[-1].mean(), ssl[-1].mean())
    with pytest.raises(NotRun, match=r"^n_labeled 3 was not run; the grid has n_labeled \[2, 4\]"):
        small_sweep.at(3)


def test_unlabeled_points_help_when_clusters_are_classes_and_hurt_when_not():
    """The lecture's warning, at the default settings over five seeds."""
    sweep = sweep_cluster_assumption(angles=(0, 90), sizes=(4,), seeds=range(5), progress=False)
    (_, sup_0, ssl_0), (_, sup_90, ssl_90) = sweep.ends(4).values()
    assert ssl_0 > sup_0 and ssl_0 > 0.95
    assert ssl_90 < sup_90 - 0.1 and ssl_90 < 0.7


@pytest.mark.parametrize("kwargs, message", [
    ({"angles": (45, 0)}, r"angles must be at least two increasing angles in \[0, 90\] degrees, "
                          r"got \[45.0, 0.0\]"),
    ({"angles": (0,)}, r"angles must be at least two increasing angles"),
    ({"angles": (0, 100)}, r"angles must be at least two increasing angles"),
    ({"sizes": (1, 4)}, r"every size must lie between 2 and n_train=300, got 1"),
    ({"seeds": ()}, r"needs at least one size and one seed"),
])
def test_sweep_refuses_bad_grids_before_fitting(kwargs, message, monkeypatch):
    monkeypatch.setattr(ca, "fit_toy", lambda *a, **k: pytest.fail("fitted before checking"))
    with pytest.raises(ValueError, match=message):
        sweep_cluster_assumption(progress=False, **kwargs)


def test_a_second_sweep_reads_every_fit_from_the_cache(small_sweep, monkeypatch):
    monkeypatch.setattr(ca, "fit_toy", lambda *a, **k: pytest.fail("refitted a cached cell"))
    again = sweep_cluster_assumption(angles=(0, 45, 90), sizes=(2, 4), seeds=(0, 1),
                                     n_train=80, n_test=40, progress=False)
    np.testing.assert_array_equal(again.supervised, small_sweep.supervised)
    np.testing.assert_array_equal(again.semi_supervised, small_sweep.semi_supervised)


def test_the_sweep_cache_tells_estimators_apart(small_sweep):
    other = sweep_cluster_assumption(angles=(0, 45, 90), sizes=(2, 4), seeds=(0, 1),
                                     n_train=80, n_test=40, progress=False,
                                     supervised=SVC(kernel="linear", C=10.0))
    fit = fit_toy(90, 4, 1, n_train=80, n_test=40, supervised=SVC(kernel="linear", C=10.0))
    assert other.supervised[1, 2, 1] == fit.supervised_accuracy
    np.testing.assert_array_equal(other.semi_supervised, small_sweep.semi_supervised)


def test_cached_fits_run_once_per_setting(monkeypatch):
    calls = []
    real = ca.fit_toy
    monkeypatch.setattr(ca, "fit_toy", lambda *a, **k: calls.append(a) or real(*a, **k))
    fits = cached_toy_fits(n_train=40, n_test=20)
    first = fits(0, 2, 0)
    assert fits(0, 2, 0) is first
    fits(90, 2, 0)
    assert calls == [(0, 2, 0), (90, 2, 0)]
