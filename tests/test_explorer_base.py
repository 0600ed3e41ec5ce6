"""The explorer shell: main control, CSS classes for the browser tests, reset, export of all
live explorers, projector style. Driven from code, with a tiny figure wired to one slider."""

from __future__ import annotations

import gc

import ipywidgets as widgets
import numpy as np
import pytest
from matplotlib.figure import Figure

import sslviz.export
from sslviz.export import figure_basename, style_context, use_projector_style
from sslviz.widgets import Explorer, export_explorers, live_explorers


def line_explorer(name="test-line", main=None, n_labeled=3):
    """A line whose slope is the ``n_labeled`` slider; a title that states it."""
    controls = {
        "n_labeled": widgets.IntSlider(n_labeled, min=1, max=10),
        "iteration": widgets.IntSlider(0, min=0, max=5),
        "kind": widgets.Dropdown(options=["a", "b"]),
    }
    with style_context():
        figure = Figure(figsize=(4, 3))
        ax = figure.add_subplot()
        (line,) = ax.plot([0, 1], [0, 0])

    def update(values):
        line.set_ydata([0, values["n_labeled"]])
        ax.set_title(f"slope {values['n_labeled']}")

    return Explorer(name, figure, controls, update, main=main)


@pytest.fixture(autouse=True)
def _no_projector():
    use_projector_style(False)
    yield
    use_projector_style(False)


def test_main_control_defaults_to_labeled_set_size_and_is_marked():
    explorer = line_explorer()
    assert explorer.main == "n_labeled"
    assert "sslviz-main" in explorer.controls["n_labeled"]._dom_classes
    assert "sslviz-main" not in explorer.controls["iteration"]._dom_classes
    assert "sslviz-explorer" in explorer._dom_classes
    assert "sslviz-figure" in explorer.image._dom_classes
    assert "sslviz-caption" in explorer.caption._dom_classes
    assert "sslviz-error" in explorer.error._dom_classes
    assert "sslviz-export" in explorer.export._dom_classes


def test_iteration_is_the_main_control_without_a_labeled_set_size():
    controls = {"seed": widgets.IntSlider(0), "iteration": widgets.IntSlider(0)}
    explorer = Explorer("t", Figure(), controls, lambda values: None)
    assert explorer.main == "iteration"
    explorer = Explorer("t", Figure(), {"seed": widgets.IntSlider(0)}, lambda values: None)
    assert explorer.main == "seed"


def test_unknown_main_control_is_refused():
    with pytest.raises(ValueError, match=r"main control 'size' is not one of the controls "
                                         r"\['n_labeled', 'iteration', 'kind'\]"):
        line_explorer(main="size")


def test_caption_shows_numbers_as_exported_file_names_do():
    explorer = line_explorer()
    explorer.controls["kind"].value = "b"
    assert explorer.caption.value == "n_labeled=3, iteration=0, kind=b"
    float_explorer = Explorer("t", Figure(), {"lam": widgets.FloatSlider(1 / 3)}, lambda v: None)
    assert float_explorer.caption.value == "lam=0.333"
    assert figure_basename("t", {"lam": 0.333}) == "t__lam-0.333"


def test_reset_restores_the_opening_values_and_redraws():
    explorer = line_explorer(n_labeled=3)
    explorer.controls["n_labeled"].value = 8
    explorer.controls["kind"].value = "b"
    assert explorer.figure.axes[0].get_title() == "slope 8"
    explorer.reset()
    assert explorer.values() == {"n_labeled": 3, "iteration": 0, "kind": "a"}
    assert explorer.figure.axes[0].get_title() == "slope 3"


def test_export_explorers_saves_every_live_explorer_at_its_opening_values(tmp_path):
    first, second = line_explorer("first", n_labeled=2), line_explorer("second", n_labeled=5)
    first.controls["n_labeled"].value = 9
    assert live_explorers()[-2:] == [first, second]
    paths = export_explorers(tmp_path, formats=("png",))
    names = sorted(path.name for path in paths)
    assert f"{figure_basename('first', first.initial_values)}.png" in names
    assert f"{figure_basename('second', second.initial_values)}.png" in names
    assert first.controls["n_labeled"].value == 2
    assert all(path.read_bytes().startswith(b"\x89PNG") for path in paths)


def test_closed_explorers_are_forgotten():
    explorer = line_explorer()
    assert explorer in live_explorers()
    explorer.close()
    assert explorer not in live_explorers()
    del explorer
    gc.collect()  # the registry holds explorers weakly: nothing is kept alive by it


def test_projector_style_applies_to_explorers_created_while_it_is_on():
    plain = line_explorer()
    use_projector_style(True)
    projected = line_explorer()
    use_projector_style(False)  # switching off later does not change an existing explorer
    projected.controls["n_labeled"].value = 4
    plain.controls["n_labeled"].value = 4
    style = sslviz.export.projector_style()
    assert projected.figure.axes[0].title.get_fontsize() == style["axes.titlesize"]
    assert plain.figure.axes[0].title.get_fontsize() != style["axes.titlesize"]
    assert projected.figure.axes[0].lines[0].get_linewidth() == style["lines.linewidth"]
    assert projected.figure.axes[0].lines[0].get_color() == sslviz.export.OKABE_ITO[0]
    np.testing.assert_array_equal(projected.figure.axes[0].lines[0].get_ydata(), [0, 4])


@pytest.mark.parametrize(("value", "on"), [("1", True), ("yes", True), ("0", False),
                                           ("", False), ("off", False)])
def test_projector_environment_variable(value, on):
    assert sslviz.export._env_flag(value) is on
