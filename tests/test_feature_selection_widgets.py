"""The Lecture 5 explorers, driven from code: what they draw against independent computations."""


import numpy as np
import pytest
from explorer_checks import assert_exports
from synthetic import astray_corpus

from sslviz.experiments.feature_selection import (
    VocabularySweep,
    astray_run,
    toy_feature_weights,
)
from sslviz.feature_selection_astray import class_top_words, word_pull
from sslviz.plots.common import TEXT
from sslviz.plots.feature_selection import MISLEADING_COLOR
from sslviz.widgets.feature_selection import (
    astray_explorer,
    feature_weights_explorer,
    vocabulary_explorer,
)


# -- feature weights ------------------------------------------------------------------------------
def test_feature_weights_explorer_draws_the_learned_weights():
    explorer = feature_weights_explorer(n_labeled=1, seed=0)
    assert explorer.main == "n_labeled" and explorer.last_error is None
    assert explorer.caption.value == "n_labeled=1, seed=0"
    explorer.controls["n_labeled"].value = 50
    explorer.controls["seed"].value = 4
    assert explorer.last_error is None
    assert explorer.caption.value == "n_labeled=50, seed=4"
    bars = explorer.figure.axes[0].containers[0]
    expected = toy_feature_weights(50, 4)
    np.testing.assert_allclose([bar.get_height() for bar in bars], expected.weights)
    assert f"{expected.noise_weight:.2f}" in explorer.figure.axes[0].get_title()
    assert_exports(explorer)


# -- vocabulary sweep -----------------------------------------------------------------------------
def hand_sweep(label_sizes, sets, seed):
    rng = np.random.default_rng(seed)
    shape = (len(sets), len(label_sizes), 3, 2)
    words = np.array([[[[f"{s}{n}w{k}" for k in range(4)] for _ in range(2)]
                       for n in label_sizes] for s in range(len(sets))])
    return VocabularySweep(tuple(sets), np.array(label_sizes), np.array([10, 100, 0]),
                           np.array([0, 1]), np.array([[10, 100, 500]] * len(sets)),
                           rng.uniform(0.2, 0.6, shape), rng.uniform(0.4, 0.9, shape), words)


@pytest.fixture
def sweeps():
    return {"alpha": hand_sweep((1, 5, 50), ("frequency", "MI"), 0),
            "beta": hand_sweep((2, 20), ("frequency", "PMI", "chi2"), 1)}


def test_vocabulary_explorer_replays_the_chosen_curves(sweeps):
    explorer = vocabulary_explorer(sweeps)
    assert explorer.main == "n_labeled" and explorer.last_error is None
    assert explorer.caption.value == ("corpus=alpha, n_labeled=1, method=frequency, "
                                      "n_features=100")
    explorer.controls["n_labeled"].value = 5
    explorer.controls["method"].value = "MI"
    explorer.controls["n_features"].value = "all"
    assert explorer.last_error is None
    curve_ax, bar_ax, word_ax = explorer.figure.axes
    nb, em = sweeps["alpha"].at("MI", 5)
    lines = {line.get_label(): line for line in curve_ax.get_lines()}
    np.testing.assert_allclose(lines["Naive Bayes (labeled only)"].get_ydata(),
                               nb.mean(axis=1) * 100)
    np.testing.assert_allclose(lines["EM (+ unlabeled)"].get_ydata(), em.mean(axis=1) * 100)
    marker = [line for line in curve_ax.get_lines() if line.get_linestyle() == ":"][0]
    assert marker.get_xdata()[0] == 2  # "all" is the third size
    # the bars: every feature set at the chosen size, EM means in the second container
    em_bars = bar_ax.containers[1]
    expected = [sweeps["alpha"].at(name, 5)[1][2].mean() * 100 for name in ("frequency", "MI")]
    np.testing.assert_allclose([bar.get_width() for bar in em_bars], expected)
    shown = [text.get_text() for text in word_ax.texts[1:]]
    assert shown == sweeps["alpha"].top_words[1, 1, 0].tolist()
    assert_exports(explorer)


def test_vocabulary_explorer_takes_the_options_of_the_chosen_corpus(sweeps):
    explorer = vocabulary_explorer(sweeps, n_labeled=5, method="MI")
    explorer.controls["corpus"].value = "beta"
    assert explorer.last_error is None
    assert list(explorer.controls["n_labeled"].options) == [2, 20]
    assert explorer.controls["n_labeled"].value == 2
    assert list(explorer.controls["method"].options) == ["frequency", "PMI", "chi2"]
    assert explorer.caption.value == "corpus=beta, n_labeled=2, method=frequency, n_features=100"
    explorer.controls["n_labeled"].value = 20
    nb, _ = sweeps["beta"].at("frequency", 20)
    lines = {line.get_label(): line for line in explorer.figure.axes[0].get_lines()}
    np.testing.assert_allclose(lines["Naive Bayes (labeled only)"].get_ydata(),
                               nb.mean(axis=1) * 100)
    explorer.reset()
    assert explorer.last_error is None
    assert explorer.values() == explorer.initial_values


# -- leading astray -------------------------------------------------------------------------------

def test_astray_explorer_replays_both_runs():
    X, y, _ = astray_corpus()
    params = {"n_labeled": 1, "seed": 0, "test_rows": np.arange(160, 200), "n_unlabeled": 150,
              "alpha": 0.5, "max_iter": 6}
    runs = {"all words": astray_run(X, y, None, **params),
            "without 24": astray_run(X, y, np.arange(24), **params)}
    vocabulary = np.array([f"w{i}" for i in range(25)])
    explorer = astray_explorer(runs, X, vocabulary, ["zero", "one"], word=24, target=0,
                               neighbours=[12, 13])
    assert explorer.main == "iteration" and explorer.last_error is None
    assert explorer.controls["iteration"].max == 6
    explorer.controls["iteration"].value = 3
    assert explorer.last_error is None and explorer.caption.value == "iteration=3"
    intake_ax, path_ax, accuracy_ax, word_ax = explorer.figure.axes
    # stacked bars: per run, the documents put in class 0 by true class (own class first)
    for row, run in enumerate(runs.values()):
        counts = word_pull(run, X, 24, 0).assigned_by_truth[3]
        widths = [bar.patches[row].get_width() for bar in intake_ax.containers]
        np.testing.assert_array_equal(widths, counts)
        assert intake_ax.containers[1].patches[row].get_x() == counts[0]
    markers = [line for line in path_ax.get_lines() if line.get_markersize() == 9]
    first = markers[0]
    assert first.get_xdata()[0] == 3
    assert first.get_ydata()[0] == pytest.approx(runs["all words"].association(3, 0)[24])
    assert np.isnan(markers[1].get_ydata()[0])  # the word is not in the second feature set
    # the word table: each run's top words of class 0 at iteration 3, misleading ones coloured
    texts = [text.get_text() for text in word_ax.texts]
    assert texts[:2] == ["all words\niteration 3", "without 24\niteration 3"]
    cells = word_ax.texts[2:]
    for column, run in enumerate(runs.values()):
        words, misleading = class_top_words(run, vocabulary, 0, k=12)
        shown = cells[column * 12:(column + 1) * 12]
        assert [cell.get_text() for cell in shown][:len(words[3])] == words[3]
        assert [cell.get_color() == MISLEADING_COLOR for cell in shown][:len(words[3])] == \
            misleading[3]
        assert all(cell.get_color() in (TEXT, MISLEADING_COLOR) for cell in shown)
    assert_exports(explorer)
