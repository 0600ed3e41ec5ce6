"""The EM explorers, driven from code as a notebook user would drive them with the mouse."""

import os
from pathlib import Path

import numpy as np
import pytest
from matplotlib.colors import same_color
from scipy.special import logsumexp
from synthetic import four_topic_corpus
from traitlets import TraitError

import sslviz.experiments.em
from sslviz.experiments.em import (
    LearningCurve,
    em_run,
    learning_curve,
    refit_at_size,
)
from sslviz.export import figure_basename
from sslviz.plots.common import EM_COLOR, NB_COLOR
from sslviz.plots.common import NEW_WORD as NEW_WORD_COLOR
from sslviz.widgets.em import learning_curve_explorer, top_words_explorer

N_UNLABELED, K = 200, 10
TEST_ROWS = np.arange(220, 320)


@pytest.fixture(scope="module")
def corpus():
    return four_topic_corpus()


def reference_run(corpus, seed):
    """The run the top-words explorer should show, fitted here independently."""
    return em_run(corpus.X, corpus.y, n_labeled=1, per_class=True, n_unlabeled=N_UNLABELED,
                  seed=seed, alpha=1.0, max_iter=10)


def reference_scores(model, iteration, c, by):
    """P(w|c) or Nigam's P(w|c) log(P(w|c)/P(w|not c)), recomputed from the trace."""
    step = model.trace_[iteration]
    log_prob, log_prior = step.feature_log_prob, step.class_log_prior
    p = np.exp(log_prob[c])
    if by == "probability":
        return p
    others = np.arange(len(log_prior)) != c
    weights = np.exp(log_prior[others] - logsumexp(log_prior[others]))
    p_not = weights @ np.exp(log_prob[others])
    return p * (log_prob[c] - np.log(p_not))


def assert_top_words(words, scores, vocabulary):
    """``words`` are the k best by ``scores``, best first (ties may come in any order)."""
    index = {word: i for i, word in enumerate(vocabulary)}
    assert len(words) == K and len(set(words)) == K
    shown = scores[[index[w] for w in words]]
    best = np.sort(scores)[::-1][:K]
    np.testing.assert_allclose(shown, best, rtol=1e-9, atol=0)


def table(explorer):
    """(headers, columns of words) as drawn in the word table, read back from the axes."""
    ax = explorer.figure.axes[0]
    headers, cells = {}, {}
    for text in ax.texts:
        x, y = text.get_position()
        column = int(x)
        if y < 1:
            headers[column] = text
        else:
            cells.setdefault(column, []).append((y, text))
    columns = [[t.get_text() for _, t in sorted(cells[c], key=lambda pair: pair[0])]
               for c in sorted(cells)]
    return [headers[c] for c in sorted(headers)], [col for col in columns if any(col)]


def caption_for(values):
    return ", ".join(f"{key}={value:g}" if isinstance(value, float) else f"{key}={value}"
                     for key, value in values.items())


@pytest.fixture
def explorer(corpus):
    return top_words_explorer(corpus, target="topic1", n_unlabeled=N_UNLABELED, k=K,
                              iteration=0)


# -- top words ------------------------------------------------------------------------------------
def test_top_words_explorer_starts_drawn_and_captioned(explorer):
    assert explorer.last_error is None
    assert explorer.error.value == ""
    assert bytes(explorer.image.value).startswith(b"\x89PNG\r\n\x1a\n")
    assert explorer.caption.value == caption_for(explorer.values())
    assert explorer.caption.value == ("iteration=0, target=topic1, seed=0, "
                                      "ranking=weighted log-odds")
    assert set(explorer.controls) == {"iteration", "target", "seed", "ranking"}


def test_top_words_explorer_opens_on_the_last_iteration_beside_iteration_zero(corpus):
    explorer = top_words_explorer(corpus, target="topic1", n_unlabeled=N_UNLABELED, k=K)
    last = explorer.controls["iteration"].max
    assert last > 0 and explorer.controls["iteration"].value == last
    headers, _ = table(explorer)
    assert headers[0].get_text() == "iteration 0"
    assert headers[-1].get_text() == f"iteration {last}"


def test_iteration_change_redraws_and_shows_the_recorded_ranking(corpus, explorer):
    model = reference_run(corpus, 0).model
    before = bytes(explorer.image.value)
    explorer.controls["iteration"].value = 2
    assert explorer.last_error is None
    assert bytes(explorer.image.value) != before
    assert bytes(explorer.image.value).startswith(b"\x89PNG")
    assert "iteration=2" in explorer.caption.value
    assert explorer.caption.value == caption_for(explorer.values())

    headers, columns = table(explorer)
    assert [h.get_text() for h in headers[:3]] == ["iteration 0", "iteration 1", "iteration 2"]
    assert headers[3].get_text() == ""
    assert same_color(headers[2].get_color(), NEW_WORD_COLOR)  # the current iteration
    assert len(columns) == 3
    for iteration, words in zip([0, 1, 2], columns, strict=True):
        assert_top_words(words, reference_scores(model, iteration, 1, "log_odds"),
                         corpus.vocabulary)
    # EM brings in words the single labeled document did not rank highly
    assert set(columns[2]) != set(columns[0])
    # the marker on both curves follows the iteration
    for ax in explorer.figure.axes[1:]:
        markers = [line for line in ax.lines if len(line.get_xdata()) == 1]
        assert len(markers) == 1
        np.testing.assert_array_equal(markers[0].get_xdata(), [2])


def test_recent_iterations_are_shown_beside_iteration_zero(corpus, explorer):
    model = reference_run(corpus, 0).model
    last = len(model.trace_) - 1
    explorer.controls["iteration"].value = last
    headers, columns = table(explorer)
    shown = [0, last - 2, last - 1, last]
    assert [h.get_text() for h in headers] == [f"iteration {i}" for i in shown]
    for iteration, words in zip(shown, columns, strict=True):
        assert_top_words(words, reference_scores(model, iteration, 1, "log_odds"),
                         corpus.vocabulary)


def test_a_single_column_table_follows_the_iteration(corpus):
    explorer = top_words_explorer(corpus, target="topic1", n_unlabeled=N_UNLABELED, k=K,
                                  n_columns=1)
    explorer.controls["iteration"].value = 2
    assert explorer.last_error is None, explorer.error.value
    headers, _ = table(explorer)
    assert "iteration 2" in [h.get_text() for h in headers]


def test_iteration_slider_ends_at_the_last_recorded_iteration(corpus, explorer):
    assert explorer.controls["iteration"].max == len(reference_run(corpus, 0).model.trace_) - 1


def test_seed_change_refits_once_and_keeps_the_slider_consistent(corpus, explorer, monkeypatch):
    calls = []
    real_em_run = sslviz.experiments.em.em_run

    def counting_em_run(*args, **kwargs):
        calls.append(kwargs["seed"])
        return real_em_run(*args, **kwargs)

    monkeypatch.setattr(sslviz.experiments.em, "em_run", counting_em_run)
    seed0, seed3 = reference_run(corpus, 0), reference_run(corpus, 3)
    # seed 3 converges earlier than seed 0 on this corpus: the slider must shrink
    assert len(seed3.model.trace_) < len(seed0.model.trace_)
    assert not np.array_equal(seed3.split.labeled, seed0.split.labeled)

    explorer.controls["iteration"].value = len(seed0.model.trace_) - 1
    explorer.controls["seed"].value = 3
    last = len(seed3.model.trace_) - 1
    assert explorer.last_error is None
    assert calls == [3]
    assert explorer.controls["iteration"].max == last
    assert explorer.controls["iteration"].value == last
    assert explorer.caption.value == caption_for(explorer.values())
    assert f"iteration={last}" in explorer.caption.value and "seed=3" in explorer.caption.value
    objective = explorer.figure.axes[1].lines[0].get_ydata()
    np.testing.assert_allclose(objective, seed3.model.trace_.values("objective"))
    accuracy = explorer.figure.axes[2].lines[0].get_ydata()
    np.testing.assert_allclose(accuracy, seed3.test_accuracy * 100)
    _, columns = table(explorer)
    assert_top_words(columns[-1], reference_scores(seed3.model, last, 1, "log_odds"),
                     corpus.vocabulary)

    explorer.controls["seed"].value = 0  # cached: no new fit
    assert calls == [3]
    assert explorer.controls["iteration"].max == len(seed0.model.trace_) - 1
    np.testing.assert_allclose(explorer.figure.axes[1].lines[0].get_ydata(),
                               seed0.model.trace_.values("objective"))


def test_ranking_change_ranks_by_probability(corpus, explorer):
    model = reference_run(corpus, 0).model
    explorer.controls["iteration"].value = 1
    _, by_log_odds = table(explorer)
    explorer.controls["ranking"].value = "P(w|c)"
    assert explorer.last_error is None
    assert "ranking=P(w|c)" in explorer.caption.value
    _, by_probability = table(explorer)
    assert by_probability != by_log_odds
    for iteration, words in zip([0, 1], by_probability, strict=True):
        assert_top_words(words, reference_scores(model, iteration, 1, "probability"),
                         corpus.vocabulary)
    assert "P(w|c)" in explorer.figure.axes[0].get_title()


def test_class_change_retitles_and_reranks(corpus, explorer):
    model = reference_run(corpus, 0).model
    assert "'topic1'" in explorer.figure.axes[0].get_title()
    explorer.controls["target"].value = "topic2"
    assert explorer.last_error is None
    title = explorer.figure.axes[0].get_title()
    assert "'topic2'" in title and "'topic1'" not in title
    assert "target=topic2" in explorer.caption.value
    _, columns = table(explorer)
    assert_top_words(columns[0], reference_scores(model, 0, 2, "log_odds"), corpus.vocabulary)


def test_replaying_an_iteration_redraws_without_error(explorer):
    # Speed is measured by `python -m sslviz.bench`, never asserted here.
    for iteration in (1, 2, 3, 2, 1):
        explorer.controls["iteration"].value = iteration
        assert explorer.last_error is None
        assert f"iteration={iteration}" in explorer.caption.value


def test_export_button_saves_the_figure_named_by_its_parameters(explorer):
    explorer.controls["iteration"].value = 2
    explorer.controls["target"].value = "topic3"
    size = explorer.figure.get_size_inches().copy()
    folder = Path(os.environ["SSLVIZ_FIGURES"])
    base = figure_basename("04_em_naive_bayes-top_words", explorer.values())
    assert "iteration-2" in base and "target-topic3" in base and "seed-0" in base
    for ext in ("png", "svg", "pdf"):
        (folder / f"{base}.{ext}").unlink(missing_ok=True)

    explorer.export.controls["button"].click()
    paths = explorer.export.last_paths
    assert [p.name for p in paths] == [f"{base}.{ext}" for ext in ("png", "svg", "pdf")]
    assert all(p.parent.resolve() == folder.resolve() for p in paths)
    assert paths[0].read_bytes().startswith(b"\x89PNG")
    assert b"<svg" in paths[1].read_bytes()[:2000]
    assert paths[2].read_bytes().startswith(b"%PDF")
    assert explorer.export.controls["label"].value.startswith(f"Saved {base}.")
    np.testing.assert_array_equal(explorer.figure.get_size_inches(), size)


# -- learning curves ------------------------------------------------------------------------------
SIZES = np.array([4, 8, 16, 32])


def hand_curve(seed):
    rng = np.random.default_rng(seed)
    nb = np.sort(rng.uniform(0.3, 0.8, (len(SIZES), 3)), axis=0)
    return LearningCurve(SIZES, np.arange(3), nb, np.minimum(nb + 0.1, 1.0),
                         np.full((len(SIZES), 3), 5))


class FakeLive:
    """Records its calls; raises for the λ values in ``fail_at``."""

    def __init__(self, nb=(0.5, 0.6), em=(0.7, 0.9), fail_at=(), fail_sizes=()):
        self.calls, self.nb, self.em = [], np.array(nb), np.array(em)
        self.fail_at, self.fail_sizes = fail_at, fail_sizes

    def __call__(self, n_labeled, unlabeled_weight, alpha):
        self.calls.append((n_labeled, unlabeled_weight, alpha))
        if unlabeled_weight in self.fail_at or n_labeled in self.fail_sizes:
            raise ValueError(f"cannot refit <{n_labeled}> at λ={unlabeled_weight}")
        return self.nb, self.em


def size_markers(ax):
    return [line for line in ax.lines if len(line.get_xdata()) == 2
            and line.get_xdata()[0] == line.get_xdata()[1]]


@pytest.fixture
def lives():
    return {"SMART stop list": FakeLive(), "no stop list": FakeLive(nb=(0.2,), em=(0.4,))}


@pytest.fixture
def curve_explorer(lives):
    curves = {"SMART stop list": hand_curve(0), "no stop list": hand_curve(1)}
    return learning_curve_explorer(curves, lives, size=8)


def test_learning_curve_explorer_draws_the_curves_and_asks_live_once(curve_explorer, lives):
    assert curve_explorer.last_error is None
    assert lives["SMART stop list"].calls == [(8, 1.0, 0.1)]
    assert lives["no stop list"].calls == []
    assert curve_explorer.caption.value == ("n_labeled=8, features=SMART stop list, "
                                            "unlabeled_weight=1, alpha=0.1")
    curve_ax, point_ax = curve_explorer.figure.axes
    curves = {"SMART stop list": hand_curve(0), "no stop list": hand_curve(1)}
    by_label = {line.get_label(): line for line in curve_ax.lines}
    for name, curve in curves.items():
        np.testing.assert_allclose(by_label[f"NB, {name}"].get_ydata(),
                                   curve.nb_accuracy.mean(axis=1) * 100)
        np.testing.assert_allclose(by_label[f"EM, {name}"].get_ydata(),
                                   curve.em_accuracy.mean(axis=1) * 100)
    [marker] = size_markers(curve_ax)
    np.testing.assert_array_equal(marker.get_xdata(), [8, 8])
    heights = [patch.get_height() for patch in point_ax.patches]
    np.testing.assert_allclose(heights, [55.0, 80.0])
    assert all(same_color(patch.get_facecolor()[:3], color)
               for patch, color in zip(point_ax.patches, (NB_COLOR, EM_COLOR), strict=True))
    dots = [line for line in point_ax.lines if line.get_linestyle() == "None"]
    np.testing.assert_allclose(dots[0].get_ydata(), [50.0, 60.0])  # one dot per seed
    np.testing.assert_allclose(dots[1].get_ydata(), [70.0, 90.0])
    assert [t.get_text() for t in point_ax.texts] == ["55.0%", "80.0%"]
    assert [t.get_text() for t in point_ax.get_xticklabels()] == ["NB (labeled only)",
                                                                 "EM (+ unlabeled)"]
    assert by_label["NB, no stop list"].get_linestyle() == "--"
    assert same_color(by_label["EM, no stop list"].get_color(), EM_COLOR)


def test_moving_n_labeled_moves_the_one_marker_and_refits_there(curve_explorer, lives):
    curve_ax = curve_explorer.figure.axes[0]
    n_lines = len(curve_ax.lines)
    before = bytes(curve_explorer.image.value)
    for size in (16, 4, 32):
        curve_explorer.controls["n_labeled"].value = size
        assert curve_explorer.last_error is None
        assert len(curve_ax.lines) == n_lines
        [marker] = size_markers(curve_ax)
        np.testing.assert_array_equal(marker.get_xdata(), [size, size])
        assert lives["SMART stop list"].calls[-1] == (size, 1.0, 0.1)
        assert f"n_labeled={size}," in curve_explorer.caption.value
        assert f"{size} labeled" in curve_explorer.figure.axes[1].get_title()
    assert bytes(curve_explorer.image.value) != before
    assert len(lives["SMART stop list"].calls) == 4


def test_lambda_alpha_and_features_reach_live(curve_explorer, lives):
    controls = curve_explorer.controls
    controls["n_labeled"].value = 16
    controls["unlabeled_weight"].value = 0.5
    assert lives["SMART stop list"].calls[-1] == (16, 0.5, 0.1)
    assert "unlabeled_weight=0.5" in curve_explorer.caption.value
    assert "λ=0.5" in curve_explorer.figure.axes[1].get_title()
    controls["alpha"].value = 1.0
    assert lives["SMART stop list"].calls[-1] == (16, 0.5, 1.0)
    assert curve_explorer.caption.value == ("n_labeled=16, features=SMART stop list, "
                                            "unlabeled_weight=0.5, alpha=1")
    controls["features"].value = "no stop list"
    assert lives["no stop list"].calls == [(16, 0.5, 1.0)]
    np.testing.assert_allclose([p.get_height() for p in curve_explorer.figure.axes[1].patches],
                               [20.0, 40.0])


def test_an_error_in_live_is_shown_then_cleared(curve_explorer, lives):
    lives["SMART stop list"].fail_at = (0.3,)
    caption = curve_explorer.caption.value
    curve_explorer.controls["unlabeled_weight"].value = 0.3
    error = curve_explorer.last_error
    assert isinstance(error, ValueError)
    assert "cannot refit <8> at λ=0.3" in str(error)
    assert "ValueError" in curve_explorer.error.value
    assert "cannot refit &lt;8&gt; at λ=0.3" in curve_explorer.error.value  # escaped HTML
    assert curve_explorer.caption.value == caption  # the image still shows the old values

    curve_explorer.controls["unlabeled_weight"].value = 0.4
    assert curve_explorer.last_error is None
    assert curve_explorer.error.value == ""
    assert "unlabeled_weight=0.4" in curve_explorer.caption.value


def test_a_failed_refit_leaves_the_figure_as_on_screen(curve_explorer, lives):
    """After an error the image is not re-rendered, so the figure (which the export button saves)
    must still be the one on screen: the size marker may not move before ``live`` succeeded."""
    lives["SMART stop list"].fail_sizes = (16,)
    curve_ax = curve_explorer.figure.axes[0]
    curve_explorer.controls["n_labeled"].value = 16
    assert isinstance(curve_explorer.last_error, ValueError)
    [marker] = size_markers(curve_ax)
    np.testing.assert_array_equal(marker.get_xdata(), [8, 8])
    curve_explorer.controls["n_labeled"].value = 32
    assert curve_explorer.last_error is None
    [marker] = size_markers(curve_ax)
    np.testing.assert_array_equal(marker.get_xdata(), [32, 32])


def test_controls_that_refit_wait_for_the_mouse_release(curve_explorer, lives):
    """Every change of n_labeled, λ or α calls ``live`` (a refit per seed, seconds on a real
    corpus), so none of them may fire while the slider is dragged (CONVENTIONS: expensive
    controls use continuous_update=False)."""
    for name, value in (("n_labeled", 16), ("unlabeled_weight", 0.5), ("alpha", 0.3)):
        calls = len(lives["SMART stop list"].calls)
        curve_explorer.controls[name].value = value
        assert len(lives["SMART stop list"].calls) == calls + 1, name  # it does refit
        assert curve_explorer.controls[name].continuous_update is False, name


def test_a_size_that_was_not_run_is_refused(curve_explorer, lives):
    with pytest.raises(TraitError):
        curve_explorer.controls["n_labeled"].value = 12
    with pytest.raises(TraitError):
        curve_explorer.controls["alpha"].value = 0.5
    assert curve_explorer.controls["n_labeled"].value == 8
    assert lives["SMART stop list"].calls == [(8, 1.0, 0.1)]


# -- refit_at_size (what it shares between settings: tests/test_em_refits.py) --------------------
LIVE = {"seeds": (0, 1, 2), "test_rows": TEST_ROWS, "n_unlabeled": 150, "max_iter": 5}


def test_learning_curve_explorer_with_computed_curves_and_refits(corpus):
    params = {"alpha": 1.0, "unlabeled_weight": 1.0, "max_iter": LIVE["max_iter"]}
    curve = learning_curve(corpus.X, corpus.y, sizes=[4, 8, 16], seeds=LIVE["seeds"],
                           test_rows=TEST_ROWS, n_unlabeled=150, use_cache=False,
                           progress=False, **params)
    live = refit_at_size(corpus.X, corpus.y, **LIVE)
    explorer = learning_curve_explorer({"words": curve}, {"words": live}, size=8, alpha=1.0)
    assert explorer.last_error is None
    # the live refit at a recorded size and the curve's settings reproduces the curve
    nb, em = live(8, 1.0, 1.0)
    np.testing.assert_array_equal(nb, curve.at(8)[0])
    np.testing.assert_array_equal(em, curve.at(8)[1])
    point_ax = explorer.figure.axes[1]
    np.testing.assert_allclose([p.get_height() for p in point_ax.patches],
                               [nb.mean() * 100, em.mean() * 100])
    # EM helps on this corpus, so the curves say something
    assert curve.em_accuracy.mean() > curve.nb_accuracy.mean()
    explorer.controls["n_labeled"].value = 16
    assert explorer.last_error is None
    np.testing.assert_allclose([p.get_height() for p in point_ax.patches],
                               [curve.at(16)[0].mean() * 100, curve.at(16)[1].mean() * 100])


def test_learning_curve_explorer_replays_the_curves_at_their_own_parameters(lives):
    curves = {"SMART stop list": hand_curve(0), "no stop list": hand_curve(1)}
    explorer = learning_curve_explorer(curves, lives, size=8, curves_computed_with=(1.0, 0.1))
    explorer.controls["n_labeled"].value = 16
    assert lives["SMART stop list"].calls == []  # recorded numbers, no refit
    _, point_ax = explorer.figure.axes
    nb, em = curves["SMART stop list"].at(16)
    heights = [patch.get_height() for patch in point_ax.patches]
    np.testing.assert_allclose(heights, [nb.mean() * 100, em.mean() * 100])
    explorer.controls["unlabeled_weight"].value = 0.5
    assert lives["SMART stop list"].calls == [(16, 0.5, 0.1)]
