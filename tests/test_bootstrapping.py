"""The bootstrapping lecture (02) beyond the estimator: seeded runs (experiments), plots, and the
explorers driven from code, each checked against a direct SelfTraining fit."""

import numpy as np
import pytest
from explorer_checks import assert_exports
from matplotlib.colors import same_color
from matplotlib.figure import Figure
from sklearn.datasets import make_blobs, make_moons
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import MultinomialNB
from sklearn.semi_supervised import SelfTrainingClassifier
from synthetic import topic_corpus

from sslviz.experiments.bootstrapping import (
    SelfTrainingRun2D,
    iteration_picture,
    runs_2d,
    seed_threshold_table,
    self_training_run,
    self_training_runs,
)
from sslviz.experiments.runner import NotRun
from sslviz.grids import decision_grid, grid_extent
from sslviz.plots.bootstrapping import (
    confidence_image,
    plot_run_curves,
    plot_self_training_points,
    update_self_training_points,
)
from sslviz.plots.common import BLACK
from sslviz.self_training import SelfTraining, labels_at_iteration, pseudo_label_correctness
from sslviz.splits import split_labeled
from sslviz.widgets.bootstrapping import stepper_explorer, threshold_explorer


# -- seeded runs -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def moons_model():
    X, y = make_moons(200, noise=0.25, random_state=0)
    y_semi = np.where(np.random.RandomState(0).rand(200) < 0.1, y, -1)
    return X, y, y_semi, SelfTraining(LogisticRegression(), threshold=0.7).fit(X, y_semi)


def test_self_training_run_scores_every_iteration_on_the_test_rows():
    X, y, _ = topic_corpus(300, 40, 0, 2)
    run = self_training_run(X, y, MultinomialNB(), n_labeled=6, seed=3, n_unlabeled=150,
                            threshold=0.99, max_iter=4)
    split = split_labeled(y, 6, n_unlabeled=150, random_state=3)
    np.testing.assert_array_equal(run.split.labeled, split.labeled)
    test = np.setdiff1d(np.arange(len(y)), split.train)
    assert run.test_accuracy[-1] == pytest.approx(np.mean(run.model.predict(X[test]) == y[test]))
    np.testing.assert_array_equal(run.pseudo_labels.pool_size,
                                  pseudo_label_correctness(run.model,
                                                           y[split.train]).pool_size)
    runs = self_training_runs(X, y, MultinomialNB(), n_unlabeled=150, max_iter=4)
    assert runs(6, 0.99, 3) is runs(6, 0.99, 3)  # cached
    np.testing.assert_array_equal(runs(6, 0.99, 3).test_accuracy, run.test_accuracy)


def test_iteration_picture_against_the_labeled_iterations(moons_model):
    _, y, y_semi, model = moons_model
    for i in range(len(model.trace_)):
        picture = iteration_picture(model, y, i)
        known = (model.labeled_iter_ >= 0) & (model.labeled_iter_ <= i)
        np.testing.assert_array_equal(picture.class_index >= 0, known)
        np.testing.assert_array_equal(picture.class_index[known], model.transduction_[known])
        np.testing.assert_array_equal(picture.given, y_semi != -1)
        np.testing.assert_array_equal(picture.new, (model.labeled_iter_ == i) & (i > 0))
        np.testing.assert_array_equal(picture.wrong,
                                      known & (y_semi == -1) & (model.transduction_ != y))
    assert picture.wrong.any()


def test_run_2d_grids_are_the_recorded_classifiers_on_the_points_extent(blobs):
    X, y, X_test, y_test = blobs
    run = SelfTrainingRun2D(X, y, LogisticRegression(), n_labeled=2, seed=0, threshold=0.7,
                            max_iter=30, X_test=X_test, y_test=y_test, resolution=7)
    points = np.vstack([X, X_test])
    assert run.extent == pytest.approx((points[:, 0].min() - 0.4, points[:, 0].max() + 0.4,
                                        points[:, 1].min() - 0.4, points[:, 1].max() + 0.4))
    assert run.extent == grid_extent(points)
    grid = run.grid(1)
    assert run.grid(1) is grid  # computed once
    assert grid.proba.shape == (7, 7, 2) and grid.extent == pytest.approx(run.extent)
    point = np.array([[grid.xs[5], grid.ys[2]]])
    np.testing.assert_allclose(grid.proba[2, 5],
                               run.model.trace_[1].estimator.predict_proba(point)[0])
    with pytest.raises(ValueError, match=r"2-D points, got an array of shape \(3, 4\)"):
        grid_extent(np.ones((3, 4)))
    _, model = reference_stepper_model(blobs)
    np.testing.assert_array_equal(run.model.labeled_iter_, model.labeled_iter_)
    np.testing.assert_allclose(run.test_accuracy,
                               [np.mean(s.estimator.predict(X_test) == y_test)
                                for s in model.trace_])


def test_runs_2d_caches_each_setting(blobs):
    X, y, X_test, y_test = blobs
    runs = runs_2d(X, y, LogisticRegression(), X_test=X_test, y_test=y_test, max_iter=5,
                   resolution=5)
    assert runs(2, 0, 0.7) is runs(2, 0, 0.7)
    assert runs(2, 0, 0.8) is not runs(2, 0, 0.7)
    assert runs(2, 0, 0.7).model.max_iter == 5


# -- plots ---------------------------------------------------------------------------------------
def test_confidence_image_colours_the_winner_and_fades_at_chance():
    proba = np.array([[[0.5, 0.5], [1.0, 0.0], [0.25, 0.75]]])
    image = confidence_image(proba, ["#0000ff", "#ff0000"], strength=0.6)
    np.testing.assert_allclose(image[0, :, 3], [0.0, 0.6, 0.3])
    np.testing.assert_allclose(image[0, 1, :3], [0, 0, 1])
    np.testing.assert_allclose(image[0, 2, :3], [1, 0, 0])


def test_update_self_training_points_draws_the_picture_and_the_boundary(moons_model):
    X, y, _, model = moons_model
    extent = grid_extent(X)
    figure = Figure()
    ax = figure.add_subplot()
    artists = plot_self_training_points(ax, X, extent)
    picture = iteration_picture(model, y, 2)
    grid = decision_grid(model.trace_[2].estimator, extent, resolution=20)
    previous = decision_grid(model.trace_[1].estimator, extent, resolution=20)
    update_self_training_points(artists, picture, grid, previous)
    offsets = {key: np.asarray(artists[key].get_offsets()) for key in ("new", "wrong", "given")}
    np.testing.assert_allclose(offsets["new"], X[picture.new])
    np.testing.assert_allclose(offsets["wrong"], X[picture.wrong])
    np.testing.assert_allclose(offsets["given"], X[picture.given])
    assert artists["boundary"] is not None and artists["previous"] is not None
    np.testing.assert_allclose(artists["image"].get_array()[..., 3],
                               confidence_image(grid.proba)[..., 3])


def test_run_curves_plot_accuracy_and_pool_error_in_percent():
    ax = Figure().add_subplot()
    accuracy, error = np.array([0.5, 0.75, 0.8]), np.array([np.nan, 0.1, 0.2])
    artists = plot_run_curves(ax, accuracy, error)
    np.testing.assert_allclose(artists["line"].get_ydata(), [50, 75, 80])
    np.testing.assert_allclose(artists["pool_error"].get_ydata(), [np.nan, 10, 20])
    assert ax.get_xlabel() == "self-training iteration"


# -- the 2-D stepper explorer --------------------------------------------------------------------
@pytest.fixture(scope="module")
def blobs():
    X, y = make_blobs(160, centers=[[-2, 0], [2, 0]], cluster_std=1.3, random_state=0)
    X_test, y_test = make_blobs(200, centers=[[-2, 0], [2, 0]], cluster_std=1.3,
                                random_state=1)
    return X, y, X_test, y_test


@pytest.fixture
def stepper(blobs):
    X, y, X_test, y_test = blobs
    return stepper_explorer(X, y, LogisticRegression(), X_test=X_test, y_test=y_test,
                            n_labeled=2, seed=0, threshold=0.7,
                            thresholds=(0.6, 0.7, 0.8), resolution=30)


def reference_stepper_model(blobs, n_labeled=2, seed=0, threshold=0.7):
    X, y, _, _ = blobs
    split = split_labeled(y, n_labeled, per_class=True, random_state=seed)
    model = SelfTraining(LogisticRegression(), threshold=threshold, max_iter=30)
    return split, model.fit(X[split.train], split.semi_supervised_targets(y))


def scatter_points(collection):
    return np.asarray(collection.get_offsets()).reshape(-1, 2)


def test_stepper_shows_the_rows_added_at_each_iteration(stepper, blobs):
    X, y, X_test, y_test = blobs
    split, model = reference_stepper_model(blobs)
    assert stepper.last_error is None
    assert stepper.controls["iteration"].max == model.n_iter_ >= 2
    points_ax = stepper.figure.axes[0]
    new, given, wrong = (points_ax.collections[i] for i in (2, 3, 4))
    X_train, y_train = X[split.train], y[split.train]
    np.testing.assert_allclose(scatter_points(given), X_train[model.labeled_iter_ == 0])
    assert len(scatter_points(new)) == 0
    for i in (1, 2, model.n_iter_):  # each step renders the figure: a few are enough
        stepper.controls["iteration"].value = i
        assert stepper.last_error is None
        np.testing.assert_allclose(scatter_points(new), X_train[model.labeled_iter_ == i])
        labels = labels_at_iteration(model, i)
        is_wrong = (labels != -1) & (labels != y_train) & (model.labeled_iter_ > 0)
        np.testing.assert_allclose(scatter_points(wrong), X_train[is_wrong])
        accuracy = np.mean(model.trace_[i].estimator.predict(X_test) == y_test)
        assert f"test accuracy {accuracy:.1%}" in points_ax.get_title()
    assert stepper.caption.value == (f"iteration={model.n_iter_}, threshold=0.7, seed=0, "
                                     "n_labeled=2")
    assert same_color(wrong.get_facecolor()[0], BLACK)  # readable on both classes' shading
    assert_exports(stepper, "02_bootstrapping-stepper")


def test_stepper_main_control_is_the_labeled_set_size(stepper):
    assert stepper.main == "n_labeled"
    for name in ("n_labeled", "iteration"):  # ArrowRight must change the one a test drags
        slider = stepper.controls[name]
        assert slider.min <= slider.value < slider.max


def test_stepper_replays_without_refitting_and_refits_other_settings(stepper, blobs,
                                                                     monkeypatch):
    import sslviz.self_training as module  # the class the experiments fit

    fits = []
    original = module.SelfTraining.fit

    def counting(self, X, y):
        fits.append(self.threshold)
        return original(self, X, y)

    _, model = reference_stepper_model(blobs, threshold=0.8)
    monkeypatch.setattr(module.SelfTraining, "fit", counting)
    stepper.controls["iteration"].value = 1
    stepper.controls["iteration"].value = 0
    assert fits == []  # the slider only replays the trace
    stepper.controls["threshold"].value = 0.8
    assert fits == [0.8]
    assert stepper.controls["iteration"].max == model.n_iter_
    stepper.controls["threshold"].value = 0.7
    assert fits == [0.8]  # cached
    assert stepper.controls["threshold"].continuous_update is False
    assert stepper.controls["n_labeled"].continuous_update is False




# -- the threshold explorer ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def text_runs():
    X, y, _ = topic_corpus(360, 40, 0, 4)
    test_rows = np.arange(300, 360)
    return {"topics": self_training_runs(X, y, MultinomialNB(), n_unlabeled=150,
                                         test_rows=test_rows, max_iter=5)}, (X, y, test_rows)


def test_threshold_explorer_draws_every_threshold_and_refits_per_size(text_runs):
    runs, (X, y, test_rows) = text_runs
    thresholds = (0.5, 0.99, 0.999999)
    explorer = threshold_explorer(runs, sizes=(3, 6, 12), thresholds=thresholds, n_labeled=6,
                                  threshold=0.99)
    assert explorer.last_error is None and explorer.main == "n_labeled"
    assert explorer.controls["n_labeled"].continuous_update is False
    explorer.controls["n_labeled"].value = 12
    assert explorer.last_error is None
    accuracy_ax, error_ax, size_ax = explorer.figure.axes
    for threshold, label in zip(thresholds, ("0.5", "0.99", "1-1e-06"), strict=True):
        expected = self_training_run(X, y, MultinomialNB(), n_labeled=12, seed=0,
                                     n_unlabeled=150, test_rows=test_rows,
                                     threshold=threshold, max_iter=5)
        [line] = [ln for ln in accuracy_ax.get_lines() if ln.get_label() == label]
        np.testing.assert_allclose(line.get_ydata(), expected.test_accuracy * 100)
        [line] = [ln for ln in error_ax.get_lines() if ln.get_label() == label]
        np.testing.assert_allclose(line.get_ydata(),
                                   expected.pseudo_labels.pool_error_rate * 100)
        [line] = [ln for ln in size_ax.get_lines() if ln.get_label() == label]
        np.testing.assert_allclose(line.get_ydata(), expected.pseudo_labels.pool_size)
    widths = {ln.get_label(): ln.get_linewidth() for ln in accuracy_ax.get_lines()}
    assert widths["0.99"] > widths["0.5"]
    explorer.controls["threshold"].value = "0.5"
    widths = {ln.get_label(): ln.get_linewidth() for ln in explorer.figure.axes[0].get_lines()}
    assert widths["0.5"] > widths["0.99"]
    assert explorer.caption.value == "n_labeled=12, threshold=0.5, corpus=topics, seed=0"
    explorer.controls["threshold"].value = "1-1e-06"
    assert explorer.caption.value == ("n_labeled=12, threshold=1-1e-06, corpus=topics, "
                                      "seed=0")
    assert_exports(explorer, "02_bootstrapping-thresholds")
    assert "threshold-1-1e-06" in explorer.export.last_paths[0].name
    with pytest.raises(ValueError, match=r"threshold=0.7 is not one of the thresholds"):
        threshold_explorer(runs, sizes=(3, 6), thresholds=thresholds, n_labeled=6,
                           threshold=0.7)


def test_threshold_explorer_shows_an_error_and_keeps_the_figure(text_runs):
    runs, _ = text_runs
    explorer = threshold_explorer(runs, sizes=(3, 6, 400), thresholds=(0.5, 0.9), n_labeled=6,
                                  threshold=0.9)
    lines = [ln.get_ydata().copy() for ln in explorer.figure.axes[0].get_lines()]
    explorer.controls["n_labeled"].value = 400  # more labeled rows than the corpus allows
    assert isinstance(explorer.last_error, ValueError)
    assert "ValueError" in explorer.error.value
    after = [ln.get_ydata() for ln in explorer.figure.axes[0].get_lines()]
    assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(lines, after, strict=True))
    explorer.controls["n_labeled"].value = 3
    assert explorer.last_error is None


def test_tuned_alpha_is_chosen_on_the_labeled_rows_and_used_from_iteration_0():
    from sslviz.experiments.bootstrapping import wrong_pseudo_labels_by_class
    from sslviz.tuning import ALPHA_GRID, log_evidence

    X, y, _ = topic_corpus(300, 40, 0, 2)
    run = self_training_run(X, y, MultinomialNB(), n_labeled=20, seed=3, n_unlabeled=150,
                            threshold=0.9, max_iter=4, tune_alpha=True)
    labeled = run.split.labeled
    values = [c["alpha"] for c in run.alpha.candidates]  # ALPHA_GRID, extended to an interior best
    assert set(ALPHA_GRID) <= set(values)
    evidence = [log_evidence(X[labeled], y[labeled], a) for a in values]
    np.testing.assert_allclose(run.alpha.scores, evidence)
    assert run.alpha.value == values[int(np.argmax(evidence))]
    assert min(values) < run.alpha.value < max(values)
    assert run.alpha.criterion == "evidence"
    fixed = self_training_run(X, y, MultinomialNB(alpha=run.alpha.value), n_labeled=20, seed=3,
                              n_unlabeled=150, threshold=0.9, max_iter=4)
    np.testing.assert_array_equal(run.test_accuracy, fixed.test_accuracy)
    assert fixed.alpha is None
    # where the wrong pseudo-labels went, counted by hand
    shares = wrong_pseudo_labels_by_class(run, y)
    truth = y[run.split.train]
    wrong = (run.model.labeled_iter_ > 0) & (run.model.transduction_ != truth)
    if wrong.any():
        np.testing.assert_allclose(shares.sum(), 1)
        for i, c in enumerate(run.model.classes_):
            assert shares[i] == np.sum(run.model.transduction_[wrong] == c) / wrong.sum()
    else:
        np.testing.assert_array_equal(shares, 0)


def test_wrong_pseudo_labels_by_class_on_a_planted_run():
    from types import SimpleNamespace

    from sslviz.experiments.bootstrapping import wrong_pseudo_labels_by_class

    model = SimpleNamespace(classes_=np.array([0, 1, 2]),
                            labeled_iter_=np.array([0, 1, 1, 2, 2, -1]),
                            transduction_=np.array([0, 1, 2, 2, 0, -1]))
    run = SimpleNamespace(model=model, split=SimpleNamespace(train=np.array([5, 4, 3, 2, 1, 0])))
    y = np.array([1, 1, 2, 0, 0, 0])  # y[train] = [0, 0, 0, 2, 1, 1]
    # pseudo-labeled rows 1..4 say 1, 2, 2, 0 against truths 0, 0, 2, 1: three wrong, saying
    # 1, 2 and 0 (row 3's "2" is right; row 0 is given, row 5 unlabeled)
    np.testing.assert_allclose(wrong_pseudo_labels_by_class(run, y), [1 / 3, 1 / 3, 1 / 3])
    y_right = np.array([1, 1, 2, 2, 1, 0])  # y[train] = [0, 1, 2, 2, 1, 1]: only row 4 wrong
    np.testing.assert_array_equal(wrong_pseudo_labels_by_class(run, y_right), [1, 0, 0])


# -- what refits share, and what is fitted while the kernel idles ------------------------------
def test_runs_of_every_threshold_share_the_alpha_chosen_on_their_split(monkeypatch):
    from collections import Counter

    import sslviz.experiments.bootstrapping as module

    chosen = []
    original = module.choose_nb_alpha

    def counting(X, y, **kwargs):
        chosen.append(X[np.asarray(y) != -1].toarray().tobytes())  # which split chose
        return original(X, y, **kwargs)

    X, y, _ = topic_corpus(300, 40, 0, 2)
    settings = {"n_unlabeled": 150, "max_iter": 4, "tune_alpha": True}
    runs = self_training_runs(X, y, MultinomialNB(), **settings)
    monkeypatch.setattr(module, "choose_nb_alpha", counting)
    for threshold in (0.5, 0.9, 0.99):
        for seed in (3, 4):
            run = runs(20, threshold, seed)
            fresh = self_training_run(X, y, MultinomialNB(), n_labeled=20, seed=seed,
                                      threshold=threshold, **settings)
            assert run.alpha.params == fresh.alpha.params
            np.testing.assert_array_equal(run.alpha.scores, fresh.alpha.scores)
            np.testing.assert_array_equal(run.test_accuracy, fresh.test_accuracy)
            np.testing.assert_array_equal(run.model.labeled_iter_, fresh.model.labeled_iter_)
    # the fresh runs chose 3 times per split, the cached runs once per split
    assert sorted(Counter(chosen).values()) == [4, 4]


def test_a_2d_run_with_one_blas_thread_equals_a_direct_fit():
    """The lecture's run of section 5 (its moons, its Gaussian process; the first iterations):
    the stepper fits with one BLAS thread, the notebook's cells directly; same pseudo-labels
    and accuracies."""
    from sklearn.gaussian_process import GaussianProcessClassifier
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel

    X, y = make_moons(200, noise=0.15, random_state=0)
    X_test, y_test = make_moons(500, noise=0.15, random_state=1)
    gpc = GaussianProcessClassifier(ConstantKernel(30.0, "fixed") * RBF(0.4, "fixed"),
                                    optimizer=None)
    run = SelfTrainingRun2D(X, y, gpc, n_labeled=2, seed=3, threshold=0.75, max_iter=6,
                            X_test=X_test, y_test=y_test, resolution=20)
    split = split_labeled(y, 2, per_class=True, random_state=3)
    model = SelfTraining(gpc, threshold=0.75, max_iter=6).fit(X[split.train],
                                                               split.semi_supervised_targets(y))
    assert model.n_iter_ == 6 and run.report.n_wrong_added.sum() > 0  # where it goes wrong
    np.testing.assert_array_equal(run.model.labeled_iter_, model.labeled_iter_)
    np.testing.assert_array_equal(run.model.transduction_, model.transduction_)
    np.testing.assert_array_equal(run.test_accuracy,
                                  [np.mean(s.estimator.predict(X_test) == y_test)
                                   for s in model.trace_])
    last = len(model.trace_) - 1
    np.testing.assert_allclose(run.grid(last).proba,  # BLAS sums in another order: 1e-11
                               decision_grid(model.trace_[last].estimator, run.extent,
                                             resolution=20).proba, rtol=1e-9)


def test_threshold_explorer_fits_the_next_settings_while_idle(text_runs, monkeypatch):
    import sslviz.experiments.bootstrapping as module

    runs, (X, y, test_rows) = text_runs
    fitted = []
    original = module.self_training_run

    def counting(*args, **kwargs):
        fitted.append((kwargs["n_labeled"], kwargs["threshold"], kwargs["seed"]))
        return original(*args, **kwargs)

    monkeypatch.setattr(module, "self_training_run", counting)
    thresholds = (0.5, 0.99)
    own = {"topics": self_training_runs(X, y, MultinomialNB(), n_unlabeled=150,
                                        test_rows=test_rows, max_iter=5)}
    expected = {(n, t, s) for n, s in ((12, 0), (3, 0), (6, 1)) for t in thresholds}

    explorer = threshold_explorer(own, sizes=(3, 6, 12), thresholds=thresholds,
                                  n_labeled=6, threshold=0.99)
    assert not expected & set(fitted)  # no event loop here: nothing was prepared yet
    explorer.ahead.run_pending()  # what the kernel does while the class looks
    assert expected <= set(fitted)  # next size, previous size, next seed
    count = len(fitted)
    explorer.controls["n_labeled"].value = 12
    assert explorer.last_error is None and len(fitted) == count  # fitted ahead: no refit
    fresh = original(X, y, MultinomialNB(), n_labeled=12, seed=0, n_unlabeled=150,
                     test_rows=test_rows, threshold=0.5, max_iter=5)
    [line] = [ln for ln in explorer.figure.axes[0].get_lines() if ln.get_label() == "0.5"]
    np.testing.assert_allclose(line.get_ydata(), fresh.test_accuracy * 100)


def test_seed_threshold_table_against_scikit_learns_self_training(result_cache):
    X, y = make_moons(120, noise=0.2, random_state=0)
    X_test, y_test = make_moons(200, noise=0.2, random_state=1)
    base = LogisticRegression()
    table = seed_threshold_table(X, y, base, X_test=X_test, y_test=y_test, seeds=[0, 4],
                                 thresholds=[0.6, 0.8], n_labeled=3, max_iter=10)
    assert table.end.shape == table.n_wrong.shape == (2, 2)
    for i, threshold in enumerate([0.6, 0.8]):
        for j, seed in enumerate([0, 4]):
            split = split_labeled(y, 3, per_class=True, random_state=seed)
            y_semi = split.semi_supervised_targets(y)
            direct = SelfTrainingClassifier(base, threshold=threshold, max_iter=10)
            direct.fit(X[split.train], y_semi)
            given = base.fit(X[split.labeled], y[split.labeled])
            assert table.start[j] == pytest.approx(np.mean(given.predict(X_test) == y_test))
            assert table.end[i, j] == pytest.approx(np.mean(direct.predict(X_test) == y_test))
            pseudo = direct.labeled_iter_ > 0
            assert table.n_pseudo[i, j] == pseudo.sum()
            assert table.n_wrong[i, j] == np.sum(direct.transduction_[pseudo]
                                                 != y[split.train][pseudo])
            assert table.n_first[i, j] == np.sum(direct.labeled_iter_ == 1)
    np.testing.assert_allclose(table.gain, table.end - table.start)
    assert table.row(0.8) == 1
    with pytest.raises(NotRun, match=r"^threshold 0.7 was not run; the grid has threshold "
                                     r"\[0.6, 0.8\]"):
        table.row(0.7)
    again = seed_threshold_table(X, y, base, X_test=X_test, y_test=y_test, seeds=[0, 4],
                                 thresholds=[0.6, 0.8], n_labeled=3, max_iter=10)
    np.testing.assert_array_equal(again.end, table.end)  # read back from the cache
    assert any(result_cache.rglob("*"))
