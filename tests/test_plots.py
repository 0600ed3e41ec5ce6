"""sslviz.plots.em and the curves of sslviz.plots.common it arranges: the artists drawn and how
the update functions change them."""

import numpy as np
import pytest
from matplotlib.colors import same_color
from matplotlib.figure import Figure

from sslviz.experiments.em import LearningCurve
from sslviz.plots.common import (
    EM_COLOR,
    NB_COLOR,
    SEMI_SUPERVISED,
    plot_iteration_curve,
    plot_learning_curve,
    plot_seed_bars,
    plot_word_columns,
    update_iteration_marker,
    update_size_marker,
    update_word_columns,
)
from sslviz.plots.common import NEW_WORD as NEW_WORD_COLOR
from sslviz.plots.common import TEXT as OLD_WORD_COLOR
from sslviz.plots.em import (
    plot_nb_em_bars,
    plot_nb_em_curves,
    plot_run_curves,
    update_run_markers,
)


@pytest.fixture
def ax():
    return Figure().add_subplot()


# -- word columns ---------------------------------------------------------------------------------
def test_word_columns_start_empty_with_the_requested_shape(ax):
    artists = plot_word_columns(ax, 3, 4)
    assert len(artists["headers"]) == 3
    assert [len(column) for column in artists["cells"]] == [4, 4, 4]
    texts = artists["headers"] + [cell for column in artists["cells"] for cell in column]
    assert all(text.get_text() == "" for text in texts)
    assert all(text.axes is ax for text in texts)
    assert not ax.axison


def test_update_word_columns_fills_texts_and_marks_new_words(ax):
    artists = plot_word_columns(ax, 3, 3)
    columns = [["the", "goal", "match"], ["goal", "team", "the"], ["team", "coach", "match"]]
    update_word_columns(artists, ["it 0", "it 1", "it 2"], columns, highlight=2)

    assert [h.get_text() for h in artists["headers"]] == ["it 0", "it 1", "it 2"]
    for words, cells in zip(columns, artists["cells"], strict=True):
        assert [cell.get_text() for cell in cells] == words
    first = set(columns[0])
    for c, (words, cells) in enumerate(zip(columns, artists["cells"], strict=True)):
        for word, cell in zip(words, cells, strict=True):
            new = c > 0 and word not in first
            assert same_color(cell.get_color(), NEW_WORD_COLOR if new else OLD_WORD_COLOR), word
            assert cell.get_fontweight() == ("bold" if new else "normal"), word
    # "team" and "coach" are new; a word of the first column is never new, even in column 2
    assert artists["cells"][1][1].get_fontweight() == "bold"
    assert artists["cells"][2][2].get_fontweight() == "normal"
    # only the highlighted header is coloured
    assert [same_color(h.get_color(), NEW_WORD_COLOR) for h in artists["headers"]] == [
        False, False, True]


def test_update_word_columns_clears_what_the_previous_update_left(ax):
    artists = plot_word_columns(ax, 3, 2)
    update_word_columns(artists, ["a", "b", "c"], [["x", "y"], ["z", "w"], ["v", "u"]],
                        highlight=2)
    update_word_columns(artists, ["a"], [["x", "y"]], highlight=0)
    assert [h.get_text() for h in artists["headers"]] == ["a", "", ""]
    assert [[cell.get_text() for cell in col] for col in artists["cells"]] == [
        ["x", "y"], ["", ""], ["", ""]]
    assert same_color(artists["headers"][0].get_color(), NEW_WORD_COLOR)
    assert not same_color(artists["headers"][2].get_color(), NEW_WORD_COLOR)


# -- iteration curve ------------------------------------------------------------------------------
def test_iteration_curve_draws_values_and_moves_its_marker(ax):
    values = np.array([-30.0, -12.5, -11.0, -10.75])
    artists = plot_iteration_curve(ax, values, ylabel="objective")
    x, y = artists["line"].get_data()
    np.testing.assert_array_equal(x, np.arange(4))
    np.testing.assert_array_equal(y, values)
    np.testing.assert_array_equal(np.ravel(artists["marker"].get_data()), [0, -30.0])
    assert ax.get_ylabel() == "objective"
    n_lines = len(ax.lines)

    for i in (2, 3, 1):
        assert update_iteration_marker(artists, i) is artists
        mx, my = artists["marker"].get_data()
        np.testing.assert_array_equal(mx, [i])
        np.testing.assert_array_equal(my, [values[i]])
    assert len(ax.lines) == n_lines
    np.testing.assert_array_equal(artists["line"].get_ydata(), values)  # the curve is untouched


# -- learning curve -------------------------------------------------------------------------------
def test_learning_curve_line_is_mean_percent_and_band_spans_min_to_max(ax):
    sizes = np.array([2, 8, 32])
    accuracy = np.array([[0.40, 0.50, 0.45, 0.61],
                         [0.70, 0.66, 0.72, 0.80],
                         [0.90, 0.91, 0.88, 0.93]])
    artists = plot_learning_curve(ax, sizes, accuracy, label="NB")
    x, y = artists["line"].get_data()
    np.testing.assert_array_equal(x, sizes)
    np.testing.assert_allclose(y, accuracy.mean(axis=1) * 100)
    assert artists["line"].get_label() == "NB"

    vertices = np.concatenate([path.vertices for path in artists["band"].get_paths()])
    for size, row in zip(sizes, accuracy, strict=True):
        at_size = vertices[np.isclose(vertices[:, 0], size), 1]
        assert len(at_size) > 0
        np.testing.assert_allclose([at_size.min(), at_size.max()],
                                   [row.min() * 100, row.max() * 100])
    assert vertices[:, 1].min() == pytest.approx(accuracy.min() * 100)
    assert vertices[:, 1].max() == pytest.approx(accuracy.max() * 100)
    assert same_color(artists["band"].get_facecolor()[0][:3], artists["line"].get_color())
    assert ax.get_xscale() == "log"


def test_size_marker_is_created_once_then_moved(ax):
    plot_learning_curve(ax, [2, 8, 32], np.full((3, 2), 0.5), label="NB")
    before = len(ax.lines)
    marker = update_size_marker(ax, None, 8)
    assert len(ax.lines) == before + 1
    np.testing.assert_array_equal(marker.get_xdata(), [8, 8])

    for size in (32, 2):
        assert update_size_marker(ax, marker, size) is marker
        np.testing.assert_array_equal(marker.get_xdata(), [size, size])
        assert len(ax.lines) == before + 1
    np.testing.assert_array_equal(marker.get_ydata(), [0, 1])  # spans the axes' height


# -- one EM run, NB vs EM -------------------------------------------------------------------------
def test_run_curves_draw_objective_and_accuracy_and_markers_follow(ax):
    accuracy_ax = Figure().add_subplot()
    ax.plot([0, 1], [0, 1])  # left over from a previous run: cleared
    objective, accuracy = np.array([-40.0, -31.0, -30.5]), np.array([0.5, 0.625, 0.75])
    curves = plot_run_curves(ax, accuracy_ax, objective, accuracy, n_labeled=4, n_unlabeled=200)
    assert len(ax.lines) == 2 and len(accuracy_ax.lines) == 2  # curve + marker each
    np.testing.assert_array_equal(curves["objective"]["line"].get_ydata(), objective)
    np.testing.assert_array_equal(curves["accuracy"]["line"].get_ydata(), [50.0, 62.5, 75.0])
    assert same_color(curves["accuracy"]["line"].get_color(), SEMI_SUPERVISED)
    assert accuracy_ax.get_title() == "4 labeled, 200 unlabeled"
    assert update_run_markers(curves, 2) is curves
    np.testing.assert_array_equal(np.ravel(curves["objective"]["marker"].get_data()), [2, -30.5])
    np.testing.assert_array_equal(np.ravel(curves["accuracy"]["marker"].get_data()), [2, 75.0])


def test_nb_em_curves_one_style_per_feature_set(ax):
    sizes = np.array([2, 8])
    curve = LearningCurve(sizes, np.arange(2), np.array([[0.2, 0.4], [0.6, 0.8]]),
                          np.array([[0.5, 0.7], [0.7, 0.9]]), np.ones((2, 2), int))
    artists = plot_nb_em_curves(ax, {"a": curve, "b": curve})
    assert set(artists) == {("NB", "a"), ("EM", "a"), ("NB", "b"), ("EM", "b")}
    np.testing.assert_allclose(artists["EM", "b"]["line"].get_ydata(), [60.0, 80.0])
    assert artists["NB", "b"]["line"].get_linestyle() == "--"
    assert same_color(artists["NB", "a"]["line"].get_color(), NB_COLOR)
    assert same_color(artists["EM", "a"]["line"].get_color(), EM_COLOR)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["NB, a", "EM, a", "NB, b",
                                                                   "EM, b"]


def test_nb_em_bars_are_the_seed_means(ax):
    plot_nb_em_bars(ax, [0.5, 0.7], [0.8, 0.9], title="here")
    np.testing.assert_allclose([p.get_height() for p in ax.patches], [60.0, 85.0])
    assert ax.get_title() == "here"


def test_hand_labels_against_yarowsky_on_an_axis_that_separates_near_equal_accuracies():
    from sslviz.plots.yarowsky import plot_hand_vs_seeds

    ax = Figure().subplots()
    artists = plot_hand_vs_seeds(ax, [0.900, 0.906, 0.914], 0.905, n_hand=276, n_seeded=276)
    low, high = ax.get_ylim()
    assert high - low < 5 and low < 90.0 and high > 91.4  # points, not bars from zero
    assert artists["yarowsky"].get_ydata().tolist() == [90.5]
    assert sorted(artists["draws"].get_ydata().tolist()) == pytest.approx([90.0, 90.6, 91.4])
    assert not ax.patches  # no bars


def test_seed_bar_labels_sit_above_every_dot_and_inside_the_axes(ax):
    plot_nb_em_bars(ax, [0.90, 0.99], [0.5, 0.7], title="near the top")
    dots = np.concatenate([line.get_ydata() for line in ax.get_lines()])
    labels = {text.get_text(): text.get_position()[1] for text in ax.texts}
    assert set(labels) == {"94.5%", "60.0%"}
    assert labels["94.5%"] > 99.0 and labels["60.0%"] > 70.0  # above the highest dot of each bar
    assert ax.get_ylim()[1] >= dots.max() + 9  # room for the text above the top dot


def test_graph_nodes_ring_the_labeled_ones_at_the_asked_size_and_width(ax):
    from sslviz.plots.graphs import plot_graph_nodes

    coords = np.arange(12.0).reshape(6, 2)
    labeled = np.array([True, False, False, True, False, False])
    artists = plot_graph_nodes(ax, coords, np.array([0, 1, -1, 1, 0, 0]), labeled, size=6,
                               labeled_scale=3, ring_width=0.5)
    assert artists["labeled"].get_sizes().tolist() == [18.0]
    assert artists["labeled"].get_linewidths().tolist() == [0.5]
    np.testing.assert_array_equal(artists["labeled"].get_offsets(), coords[labeled])
    default = plot_graph_nodes(ax, coords, np.zeros(6, dtype=int), labeled)
    assert default["labeled"].get_sizes().tolist() == [84.0]


def test_seed_bar_labels_sit_above_the_highest_dot_and_inside_the_axis(ax):
    plot_seed_bars(ax, [("a", [0.2, 0.9], "k"), ("b", [0.97, 0.99], "k"),
                        ("c", [np.nan, np.nan], "k")], title="t", ymax=100)
    a, b, c = ax.texts
    assert (a.get_text(), b.get_text()) == ("55.0%", "98.0%")
    assert a.get_position()[1] == pytest.approx(92.5)  # above the 90 % dot, not at the mean
    assert b.get_position()[1] == pytest.approx(101.5)
    assert ax.get_ylim() == (0, pytest.approx(108.0))  # grown to hold the label over 99 %
