"""Lecture 1's plots and explorers, driven from code as a student would drive them."""


import numpy as np
import pytest
from explorer_checks import assert_exports
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from synthetic import HIDDEN_TEST_ROWS as TEST_ROWS
from synthetic import HIDDEN_WORDS as HIDDEN
from synthetic import hidden_word_corpus

from sslviz.experiments.what_is_ssl import (
    fit_toy,
    rank_new_words,
    sweep_cluster_assumption,
    word_association,
)
from sslviz.grids import Grid
from sslviz.plots.common import GREY
from sslviz.plots.what_is_ssl import (
    STEPS,
    TOY_CLASS_COLORS,
    plot_accuracy_sweep,
    plot_association_bars,
    plot_toy_panel,
    step_note,
    update_accuracy_sweep,
    update_boundary,
    update_toy_points,
)
from sslviz.widgets.what_is_ssl import stepper_explorer, sweep_explorer, word_association_explorer

N_TRAIN, N_TEST = 120, 60


def boundary_vertices(contour_set):
    """All vertices of the paths of a one-level ContourSet."""
    return np.concatenate([path.vertices for path in contour_set.get_paths() if len(path)])


def note_text(explorer):
    return explorer.figure.axes[1].texts[-1].get_text()


def explorer_steps(explorer):
    return explorer.figure.axes[1].texts[:len(STEPS)]


def two_class_grid(xs, ys, proba_one):
    """A :class:`Grid` whose P(class 1) is ``proba_one``."""
    return Grid(xs, ys, np.stack([1 - proba_one, proba_one], axis=-1))


# -- plots ----------------------------------------------------------------------------------------
def test_toy_points_show_classes_and_optional_unlabeled_colours():
    ax = Figure().add_subplot()
    artists = plot_toy_panel(ax, (-1, 1, -1, 1))
    X_lab, y_lab = np.array([[0.0, 0.1], [0.5, 0.5], [-0.5, 0.2]]), np.array([0, 1, 0])
    X_unl = np.array([[0.1, 0.1], [0.2, 0.2]])
    update_toy_points(artists, X_lab, y_lab)
    np.testing.assert_array_equal(artists["labeled"][0].get_offsets(), X_lab[[0, 2]])
    np.testing.assert_array_equal(artists["labeled"][1].get_offsets(), X_lab[[1]])
    assert len(artists["unlabeled"].get_offsets()) == 0
    update_toy_points(artists, X_lab, y_lab, X_unl, np.array([1, 0]))
    np.testing.assert_array_equal(artists["unlabeled"].get_offsets(), X_unl)
    colours = artists["unlabeled"].get_facecolors()
    np.testing.assert_allclose(colours[0, :3], to_rgba(TOY_CLASS_COLORS[1])[:3])
    np.testing.assert_allclose(colours[1, :3], to_rgba(TOY_CLASS_COLORS[0])[:3])


def test_boundary_is_the_half_level_and_is_replaced_not_stacked():
    ax = Figure().add_subplot()
    artists = plot_toy_panel(ax, (-1, 1, -1, 1))
    xs = ys = np.linspace(-1, 1, 41)
    proba = np.tile(1 / (1 + np.exp(-(xs - 0.25) * 8)), (41, 1))  # P = 0.5 at x = 0.25
    grid = two_class_grid(xs, ys, proba)
    first = update_boundary(ax, artists, "b", grid, color="k")
    np.testing.assert_allclose(boundary_vertices(first)[:, 0], 0.25, atol=1e-9)
    second = update_boundary(ax, artists, "b", grid, color="k")
    assert first not in ax.collections and second in ax.collections
    assert update_boundary(ax, artists, "b", None, color="k") is None
    assert second not in ax.collections
    assert update_boundary(ax, artists, "c", two_class_grid(xs, ys, np.ones((41, 41))),
                           color="k") is None


def test_boundary_refuses_a_three_class_grid():
    ax = Figure().add_subplot()
    artists = plot_toy_panel(ax, (-1, 1, -1, 1))
    xs = ys = np.linspace(-1, 1, 5)
    with pytest.raises(ValueError, match="exactly two classes, got 3"):
        update_boundary(ax, artists, "b", Grid(xs, ys, np.full((5, 5, 3), 1 / 3)), color="k")


def test_step_note_says_what_the_step_shows():
    fit = fit_toy(90, 4, 0, n_train=N_TRAIN, n_test=N_TEST)
    first, last = step_note(fit, 0), step_note(fit, 4)
    assert first == ("4 labeled points, unlabeled hidden\n"
                     "angle between class boundary and cluster gap: 90°")
    assert last.splitlines()[0] == f"4 labeled points, {N_TRAIN - 4} unlabeled"
    assert last.splitlines()[-2:] == [
        f"   labeled only (dashed): {fit.supervised_accuracy:.0%}",
        f"   labeled + unlabeled (solid): {fit.semi_supervised_accuracy:.0%}"]


def test_accuracy_sweep_lines_are_percent_means():
    ax = Figure().add_subplot()
    sup = np.array([[0.9, 0.7], [0.6, 0.8]])
    ssl = np.array([[1.0, 1.0], [0.2, 0.4]])
    artists = plot_accuracy_sweep(ax, [0, 90], sup, ssl)
    np.testing.assert_allclose(artists["lines"][0].get_ydata(), [80, 70])
    np.testing.assert_allclose(artists["lines"][1].get_ydata(), [100, 30])
    assert ax.get_ylim()[0] == 20  # shows the lowest accuracy (20%)
    update_accuracy_sweep(ax, artists, ssl, sup, angle=90)
    update_accuracy_sweep(ax, artists, ssl, sup, angle=0)
    np.testing.assert_allclose(artists["lines"][0].get_ydata(), [100, 30])
    assert [line.get_xdata() for line in ax.lines[3:]] == [[0, 0]]  # after the 50% line: one marker


def test_association_bars_have_the_given_lengths():
    ax = Figure().add_subplot()
    artists = plot_association_bars(ax, ["x", "y"], np.array([0.1, -0.2]), np.array([3.0, -2.0]),
                                    np.array([4.0, -5.0]), class_names=("A", "B"),
                                    seen=np.array([False, True]))
    assert [bar.get_width() for bar in artists["before"]] == [0.1, -0.2]
    assert [bar.get_width() for bar in artists["after"]] == [3.0, -2.0]
    np.testing.assert_array_equal(artists["reference"].get_xdata(), [4.0, -5.0])
    assert [t.get_text() for t in ax.get_yticklabels()] == ["x", "y*"]


# -- stepper --------------------------------------------------------------------------------------
@pytest.fixture
def stepper():
    return stepper_explorer(n_labeled=2, seed=7, n_train=N_TRAIN, n_test=N_TEST, resolution=60)


def test_stepper_starts_with_the_labeled_points_only(stepper):
    fit = fit_toy(0, 2, 7, n_train=N_TRAIN, n_test=N_TEST)
    ax = stepper.figure.axes[0]
    assert stepper.last_error is None
    assert stepper.caption.value == "step=1, n_labeled=2, angle=0, seed=7"
    assert stepper.main == "n_labeled"
    labeled = [c.get_offsets() for c in ax.collections[1:3]]
    for c in (0, 1):
        rows = fit.split.labeled[fit.y[fit.split.labeled] == c]
        np.testing.assert_array_equal(labeled[c], fit.X[rows])
    assert len(ax.collections[0].get_offsets()) == 0
    assert len(ax.collections) == 3  # no boundary yet
    assert ax.get_title() == f"step 1 of 5: {STEPS[0]}"


def test_stepping_to_the_end_shows_cloud_spread_labels_and_both_boundaries(stepper):
    fit = fit_toy(0, 2, 7, n_train=N_TRAIN, n_test=N_TEST)
    ax = stepper.figure.axes[0]
    stepper.controls["step"].value = 5
    assert stepper.last_error is None
    unlabeled = ax.collections[0]
    np.testing.assert_array_equal(unlabeled.get_offsets(), fit.X[fit.split.unlabeled])
    spread = fit.semi_supervised.transduction_[2:]
    expected = np.array([to_rgba(TOY_CLASS_COLORS[c], 0.55) for c in spread])
    np.testing.assert_allclose(unlabeled.get_facecolors(), expected)
    contours = ax.collections[3:]
    assert len(contours) == 2
    # the dashed boundary is where the logistic regression's decision function is 0
    w, b = fit.supervised.coef_[0], fit.supervised.intercept_[0]
    dashed = boundary_vertices(contours[0])
    np.testing.assert_allclose(dashed @ w + b, 0, atol=0.05)
    # the solid one separates the spread labels
    solid = boundary_vertices(contours[1])
    assert np.allclose(fit.semi_supervised.predict_proba(solid)[:, 1], 0.5, atol=0.12)
    note = note_text(stepper)
    assert f"labeled only (dashed): {fit.supervised_accuracy:.0%}" in note
    assert f"labeled + unlabeled (solid): {fit.semi_supervised_accuracy:.0%}" in note
    steps = explorer_steps(stepper)
    assert [t.get_text() for t in steps] == [f"{k + 1}. {step}" for k, step in enumerate(STEPS)]
    assert [t.get_fontweight() for t in steps] == ["normal"] * 4 + ["bold"]


def test_steps_show_and_hide_what_they_say(stepper):
    ax = stepper.figure.axes[0]
    grey = to_rgba(GREY)
    for step, (n_boundaries, cloud) in enumerate([(0, False), (1, False), (1, "grey"),
                                                  (1, "coloured"), (2, "coloured")]):
        stepper.controls["step"].value = step + 1
        assert len(ax.collections) == 3 + n_boundaries
        offsets = ax.collections[0].get_offsets()
        assert (len(offsets) > 0) == bool(cloud)
        if cloud:
            is_grey = np.allclose(ax.collections[0].get_facecolors()[0], grey)
            assert is_grey == (cloud == "grey")
        assert ax.get_title().endswith(STEPS[step])
        bold = [t.get_fontweight() == "bold" for t in explorer_steps(stepper)]
        assert bold == [k == step for k in range(len(STEPS))]
        assert ("labeled only (dashed)" in note_text(stepper)) == (step >= 1)


def test_n_labeled_and_angle_refit(stepper):
    stepper.controls["step"].value = 5
    stepper.controls["n_labeled"].value = 6
    stepper.controls["angle"].value = 90
    assert stepper.last_error is None
    fit = fit_toy(90, 6, 7, n_train=N_TRAIN, n_test=N_TEST)
    ax = stepper.figure.axes[0]
    shown = np.concatenate([c.get_offsets() for c in ax.collections[1:3]])
    assert len(shown) == 6
    np.testing.assert_array_equal(np.sort(shown, axis=0),
                                  np.sort(fit.X[fit.split.labeled], axis=0))
    assert f"{fit.supervised_accuracy:.0%}" in note_text(stepper)
    assert stepper.caption.value == "step=5, n_labeled=6, angle=90, seed=7"
    assert stepper.controls["n_labeled"].continuous_update is False


def test_stepping_redraws_and_exports(stepper):
    for step in (2, 3, 4, 5, 4, 3):
        stepper.controls["step"].value = step
        assert stepper.last_error is None
        assert stepper.caption.value.startswith(f"step={step},")
    assert_exports(stepper, "01_what_is_ssl-stepper")


# -- sweep ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sweep(module_result_cache):
    return sweep_cluster_assumption(angles=(0, 45, 90), sizes=(2, 4, 8), seeds=(0, 1),
                                    n_train=N_TRAIN, n_test=N_TEST, progress=False)


def test_sweep_explorer_replays_the_sweep(sweep):
    explorer = sweep_explorer(sweep)
    curve_ax = explorer.figure.axes[0]
    assert explorer.last_error is None and explorer.main == "n_labeled"
    assert explorer.values() == {"n_labeled": 4, "angle": 0}
    sup, ssl = sweep.at(4)
    np.testing.assert_allclose(curve_ax.lines[0].get_ydata(), sup.mean(axis=1) * 100)
    np.testing.assert_allclose(curve_ax.lines[1].get_ydata(), ssl.mean(axis=1) * 100)
    explorer.controls["n_labeled"].value = 8
    explorer.controls["angle"].value = 90
    assert explorer.last_error is None
    sup, ssl = sweep.at(8)
    np.testing.assert_allclose(curve_ax.lines[0].get_ydata(), sup.mean(axis=1) * 100)
    np.testing.assert_allclose(curve_ax.lines[1].get_ydata(), ssl.mean(axis=1) * 100)
    markers = [line for line in curve_ax.lines if np.array_equal(line.get_xdata(), [90, 90])]
    assert len(markers) == 1
    # the right panel is the sweep's own first-seed fit at (90°, 8)
    title = explorer.figure.axes[1].get_title()
    assert (f"labeled only {sweep.supervised[2, 2, 0]:.0%}, + unlabeled "
            f"{sweep.semi_supervised[2, 2, 0]:.0%}") in title
    fit = fit_toy(90, 8, 0, n_train=N_TRAIN, n_test=N_TEST)
    np.testing.assert_array_equal(explorer.figure.axes[1].collections[0].get_offsets(),
                                  fit.X[fit.split.unlabeled])
    assert_exports(explorer, "01_what_is_ssl-sweep")


# -- words ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def corpus():
    return hidden_word_corpus()


def test_word_explorer_shows_the_ranked_words_and_typed_ones(corpus):
    explorer = word_association_explorer(corpus, test_rows=TEST_ROWS, n_labeled=4, k=3,
                                         sizes=(2, 4, 8), words=("a0",))
    assert explorer.last_error is None and explorer.main == "n_labeled"
    result = word_association(corpus.X, corpus.y, n_labeled=4, seed=0, test_rows=TEST_ROWS)
    ranked = rank_new_words(result, k=3).tolist()
    assert set(HIDDEN) <= set(ranked)
    shown = ranked + [0]
    bar_ax, accuracy_ax = explorer.figure.axes
    labels = [t.get_text() for t in bar_ax.get_yticklabels()]
    assert labels == corpus.vocabulary[ranked].tolist() + ["a0*"]
    after = [p.get_width() for p in bar_ax.containers[1]]
    np.testing.assert_allclose(after, result.after[shown])
    before = [p.get_width() for p in bar_ax.containers[0]]
    np.testing.assert_allclose(before, result.before[shown])
    np.testing.assert_allclose(accuracy_ax.lines[0].get_ydata(), result.test_accuracy * 100)
    assert f"{result.before[HIDDEN[0]]:+.2f}" in bar_ax.get_title()


def test_word_explorer_refits_on_n_labeled_and_reports_unknown_words(corpus):
    explorer = word_association_explorer(corpus, test_rows=TEST_ROWS, n_labeled=4, k=3,
                                         sizes=(2, 4, 8))
    explorer.controls["n_labeled"].value = 8
    assert explorer.last_error is None
    result = word_association(corpus.X, corpus.y, n_labeled=8, seed=0, test_rows=TEST_ROWS)
    ranked = rank_new_words(result, k=3)
    assert set(HIDDEN) <= set(ranked.tolist())
    after = [p.get_width() for p in explorer.figure.axes[0].containers[1]]
    np.testing.assert_allclose(after, result.after[ranked])
    image = bytes(explorer.image.value)
    explorer.controls["words"].value = "b1, nosuchword"
    assert isinstance(explorer.last_error, ValueError)
    assert "nosuchword" in explorer.error.value
    assert bytes(explorer.image.value) == image
    explorer.controls["words"].value = "b1"
    assert explorer.last_error is None and explorer.error.value == ""
    assert "b1*" in [t.get_text() for t in explorer.figure.axes[0].get_yticklabels()]
    assert_exports(explorer, "01_what_is_ssl-word_association")


def test_word_explorer_needs_two_classes(corpus):
    three = corpus.__class__(corpus.X, corpus.y, ["a", "b", "c"], corpus.vocabulary,
                             corpus.filenames)
    with pytest.raises(ValueError, match="compares two classes; load a corpus with two "
                                         r"categories \(got 3\)"):
        word_association_explorer(three, test_rows=TEST_ROWS)


def test_word_explorer_fits_the_next_settings_while_idle(corpus, monkeypatch):
    import sslviz.experiments.what_is_ssl as module

    fitted = []
    original = module.word_association

    def counting(X, y, **kwargs):
        fitted.append((kwargs["n_labeled"], kwargs["seed"]))
        return original(X, y, **kwargs)

    monkeypatch.setattr(module, "word_association", counting)

    explorer = word_association_explorer(corpus, test_rows=TEST_ROWS, n_labeled=4, k=3,
                                         sizes=(2, 4, 8))
    assert fitted == [(4, 0)]  # no event loop here: nothing was prepared yet
    explorer.ahead.run_pending()  # what the kernel does while the class looks
    assert fitted[0] == (4, 0) and {(8, 0), (2, 0), (4, 1)} <= set(fitted)
    count = len(fitted)
    explorer.controls["n_labeled"].value = 8
    assert explorer.last_error is None and len(fitted) == count  # fitted ahead: no refit
    result = original(corpus.X, corpus.y, n_labeled=8, seed=0, test_rows=TEST_ROWS)
    after = [p.get_width() for p in explorer.figure.axes[0].containers[1]]
    np.testing.assert_allclose(after, result.after[rank_new_words(result, k=3)])
