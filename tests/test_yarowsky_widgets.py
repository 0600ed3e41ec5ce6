"""The Yarowsky plots and explorers (lecture 03) driven from code."""

import numpy as np
import pytest
from explorer_checks import assert_exports
from matplotlib.colors import to_rgba
from yarowsky_corpus import SEEDS, FakeCorpus, small_runs

from sslviz.decision_list import top_rules
from sslviz.experiments.yarowsky import supervised_accuracy
from sslviz.plots.yarowsky import UNLABELED_COLOR, sense_colors
from sslviz.yarowsky import decision_list_at


@pytest.fixture(scope="module")
def corpus():
    return FakeCorpus()


@pytest.fixture(scope="module")
def runs(corpus):
    return small_runs(corpus)


@pytest.fixture(scope="module")
def shared_stepper(runs):
    from sslviz.widgets.yarowsky import yarowsky_explorer

    return yarowsky_explorer(runs, word="w", threshold=0.9)


@pytest.fixture
def stepper(shared_stepper):
    """The module's stepper, its controls put back to the values it opened with: a redraw of
    what a test moved costs less than a new explorer (a figure, a background map)."""
    shared_stepper.reset()
    assert shared_stepper.last_error is None
    assert shared_stepper.values() == shared_stepper.initial_values == {
        "iteration": 0, "word": "w", "seeds": "a0 / b0", "threshold": 0.9, "mode": "keep"}
    return shared_stepper


def map_colors(explorer):
    return explorer.figure.axes[0].collections[0].get_facecolors()


def expected_colors(labels):
    palette = [to_rgba(UNLABELED_COLOR)] + [to_rgba(c) for c in sense_colors(2)]
    return np.array([palette[label + 1] for label in labels])


def test_stepper_replays_the_trace(runs, stepper):
    run = runs.run("w", "a0 / b0", 0.9, "keep")
    task = runs.task("w")
    assert stepper.last_error is None
    assert stepper.caption.value == ("iteration=0, word=w, seeds=a0 / b0, threshold=0.9, "
                                     "mode=keep")
    assert stepper.controls["iteration"].max == len(run.model.trace_) - 1 >= 2
    images = [bytes(stepper.image.value)]
    for iteration in (1, 2, 0):
        stepper.controls["iteration"].value = iteration
        assert stepper.last_error is None
        images.append(bytes(stepper.image.value))
        assert images[-1] != images[-2]
        step = run.model.trace_[iteration]
        np.testing.assert_allclose(map_colors(stepper), expected_colors(step.labels))
        map_ax, table_ax, curve_ax = stepper.figure.axes
        xy = runs.map("w")
        np.testing.assert_allclose(map_ax.collections[1].get_offsets(), xy[step.added])
        gold = task.y[task.pool]
        wrong = step.labeled[run.model.classes_[step.labels[step.labeled]] != gold[step.labeled]]
        np.testing.assert_allclose(map_ax.collections[2].get_offsets().reshape(-1, 2),
                                   xy[wrong].reshape(-1, 2))
        rules = top_rules(decision_list_at(run.model, iteration), task.feature_names, k=14)
        shown = [t.get_text() for t in table_ax.texts if t.get_text().startswith(("W=", "L1=",
                                                                                   "R1="))]
        assert shown == [rule.feature for rule in rules]
        markers = [line for line in curve_ax.lines if len(line.get_xdata()) == 1]
        assert len(markers) == 3 and all(m.get_xdata()[0] == iteration for m in markers)
        assert f"iteration={iteration}," in stepper.caption.value
    lines = {line.get_label(): line for line in stepper.figure.axes[2].lines}
    np.testing.assert_allclose(lines["coverage"].get_ydata(), run.coverage * 100)
    np.testing.assert_allclose(lines["test accuracy"].get_ydata(), run.test_accuracy * 100)
    n0 = run.model.trace_[0].n_labeled
    baseline = lines[f"supervised list, {n0} hand labels"].get_ydata()[0]
    assert baseline == pytest.approx(supervised_accuracy(task, n0).mean() * 100)


def test_stepper_refits_on_threshold_mode_and_seeds_once(runs, stepper, monkeypatch):
    import sslviz.experiments.yarowsky as module

    calls = []
    real = module.yarowsky_run

    def counting(task, seeds, **params):
        calls.append((seeds, params["threshold"], params["mode"]))
        return real(task, seeds, **params)

    monkeypatch.setattr(module, "yarowsky_run", counting)
    runs.run.cache_clear()
    stepper.controls["threshold"].value = 0.8
    stepper.controls["mode"].value = "rejudge"
    stepper.controls["seeds"].value = "a1 / b1"
    stepper.controls["threshold"].value = 0.8  # unchanged: no new fit
    stepper.controls["seeds"].value = "a0 / b0"
    stepper.controls["seeds"].value = "a1 / b1"  # cached
    assert stepper.last_error is None
    a1 = {"a": ["W=a1"], "b": ["W=b1"]}
    assert calls == [(SEEDS, 0.8, "keep"), (SEEDS, 0.8, "rejudge"), (a1, 0.8, "rejudge")]
    run = runs.run("w", "a1 / b1", 0.8, "rejudge")
    assert stepper.controls["iteration"].max == len(run.model.trace_) - 1
    step = run.model.trace_[stepper.controls["iteration"].value]
    np.testing.assert_allclose(map_colors(stepper), expected_colors(step.labels))
    assert stepper.controls["threshold"].continuous_update is False


def test_stepper_new_word_brings_its_seed_sets(runs, stepper):
    stepper.controls["iteration"].value = 2
    stepper.controls["word"].value = "v"
    assert stepper.last_error is None
    assert list(stepper.controls["seeds"].options) == ["a2 / b2"]
    assert "word=v, seeds=a2 / b2" in stepper.caption.value
    run = runs.run("v", "a2 / b2", 0.9, "keep")
    iteration = stepper.controls["iteration"].value
    assert iteration == min(2, len(run.model.trace_) - 1)
    np.testing.assert_allclose(map_colors(stepper),
                               expected_colors(run.model.trace_[iteration].labels))


def test_stepper_steps_and_exports(stepper):
    for iteration in (1, 2, 1, 0):
        stepper.controls["iteration"].value = iteration
        assert stepper.last_error is None
    paths = assert_exports(stepper, "03_yarowsky-stepper")
    assert paths[0].name.startswith("03_yarowsky-stepper__iteration-0_word-w_seeds-a0-b0")


def test_supervised_explorer(runs):
    from sslviz.widgets.yarowsky import supervised_explorer

    explorer = supervised_explorer(runs, word="w", threshold=0.9, sizes=(4, 10, 40))
    task = runs.task("w")
    assert explorer.last_error is None
    slider = explorer.controls["n_labeled"]
    assert list(slider.options) == [4, 10, 40, 122] and slider.value == 40
    curve_ax, point_ax = explorer.figure.axes
    expected = [supervised_accuracy(task, n).mean() * 100 for n in (4, 10, 40, 122)]
    np.testing.assert_allclose(curve_ax.lines[0].get_ydata(), expected)
    final = runs.run("w", "a0 / b0", 0.9, "keep").test_accuracy[-1] * 100
    assert any(np.allclose(line.get_ydata(), final) for line in curve_ax.lines[1:])
    slider.value = 10
    assert explorer.last_error is None
    draws, yarowsky = point_ax.lines  # each draw of hand labels, then Yarowsky's final accuracy
    assert np.mean(draws.get_ydata()) == pytest.approx(expected[1])
    assert yarowsky.get_ydata().tolist() == pytest.approx([final])
    marker = [line for line in curve_ax.lines if len(line.get_xdata()) == 2
              and line.get_xdata()[0] == line.get_xdata()[1]]
    assert len(marker) == 1 and marker[0].get_xdata()[0] == 10
    paths = assert_exports(explorer, "03_yarowsky-supervised")
    assert paths[0].name.startswith("03_yarowsky-supervised__n-labeled-10")



def test_iteration_maps_figure(runs):
    from sslviz.widgets.yarowsky import iteration_maps_figure

    figure = iteration_maps_figure(runs, word="w", threshold=0.9, iterations=(0, 1, 2))
    run = runs.run("w", "a0 / b0", 0.9, "keep")
    assert len(figure.axes) == 3
    for ax, iteration in zip(figure.axes, (0, 1, 2), strict=True):
        np.testing.assert_allclose(ax.collections[0].get_facecolors(),
                                   expected_colors(run.model.trace_[iteration].labels))
        assert ax.get_title().startswith(f"iteration {iteration}:")


def test_stepper_prepares_the_maps_of_the_other_words(corpus, monkeypatch):
    import threading

    import sslviz.experiments.yarowsky as module
    from sslviz.widgets.yarowsky import yarowsky_explorer

    calls, lock = [], threading.Lock()
    real_map = module.instance_map

    def counting(X, **params):
        with lock:
            calls.append((X.shape[0], threading.current_thread().name))
        return real_map(X, **params)

    monkeypatch.setattr(module, "instance_map", counting)
    runs = small_runs(corpus)
    stepper = yarowsky_explorer(runs, word="w", threshold=0.9)
    assert stepper.ahead.wait(60)  # the class looks at "w" meanwhile
    assert sorted(calls) == sorted([(len(runs.task("w").pool), threading.main_thread().name),
                                    (len(runs.task("v").pool), "sslviz-ahead")])
    stepper.controls["word"].value = "v"
    stepper.controls["word"].value = "w"
    assert stepper.last_error is None
    assert len(calls) == 2  # the new word's map was ready: no t-SNE on a visit
    np.testing.assert_allclose(stepper.figure.axes[0].collections[0].get_offsets(),
                               runs.map("w"))
