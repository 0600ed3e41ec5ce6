"""The explorer shell: main control, CSS classes for the browser tests, reset, export of all
live explorers, projector style. Driven from code, with a tiny figure wired to one slider."""

from __future__ import annotations

import asyncio
import gc

import ipywidgets as widgets
import numpy as np
import pytest
from helpers import PATIENCE_S, in_fresh_thread, until
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
    for other in live_explorers():  # earlier tests' explorers: exporting them all takes long
        other.close()
    first, second = line_explorer("first", n_labeled=2), line_explorer("second", n_labeled=5)
    first.controls["n_labeled"].value = 9
    assert live_explorers() == [first, second]
    paths = export_explorers(tmp_path, formats=("png",))
    assert len(paths) == 2
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


# -- a failed update: the export button refuses, the figure stays the one on screen -------------
def failing_explorer():
    """A line whose slope is ``n_labeled``; slopes above 6 fail *after* the line was moved (the
    worst case: an update that changes artists before it fails)."""
    controls = {"n_labeled": widgets.IntSlider(3, min=1, max=10),
                "kind": widgets.Dropdown(options=["a", "b"])}
    with style_context():
        figure = Figure(figsize=(4, 3))
        ax = figure.add_subplot()
        (line,) = ax.plot([0, 1], [0, 0])

    def update(values):
        line.set_ydata([0, values["n_labeled"]])
        if values["n_labeled"] > 6:
            raise ValueError(f"slope {values['n_labeled']} is too steep")
        ax.set_title(f"slope {values['n_labeled']} ({values['kind']})")

    return Explorer("test-fail", figure, controls, update)


def click_export(explorer):
    explorer.export.controls["button"].click()
    return explorer.export.controls["label"].value


def test_export_button_refuses_after_a_failed_update_and_says_why(_figures_dir):
    explorer = failing_explorer()
    name = figure_basename("test-fail", {"n_labeled": 3, "kind": "a"})
    assert click_export(explorer).startswith(f"Saved {name}.")
    before = set(_figures_dir.iterdir())
    explorer.controls["n_labeled"].value = 8
    label = click_export(explorer)
    assert label.startswith("Not exported: not exporting test-fail: the figure does not match")
    assert "ValueError: slope 8 is too steep" in label
    assert explorer.export.last_paths == []
    assert set(_figures_dir.iterdir()) == before  # nothing named n_labeled-8 was written
    explorer.controls["kind"].value = "b"  # still failing: still refused
    assert click_export(explorer).startswith("Not exported:")
    explorer.controls["n_labeled"].value = 5
    name = figure_basename("test-fail", {"n_labeled": 5, "kind": "b"})
    assert click_export(explorer).startswith(f"Saved {name}.")
    assert explorer.export.last_paths[0].name == f"{name}.png"


def test_an_export_clicked_before_a_value_arrives_saves_the_figure_of_that_value(_figures_dir):
    """In the browser a control's value can reach the kernel after the click (the front end
    holds it back while the kernel redraws): the export waits until the figure stops changing."""
    async def scenario():
        explorer = line_explorer(n_labeled=3)
        label = click_export(explorer)  # inside a running loop: the export waits
        explorer.controls["n_labeled"].value = 7
        explorer.controls["iteration"].value = 2
        assert await until(lambda: explorer.export.last_paths)
        return explorer, label

    explorer, label = in_fresh_thread(lambda: asyncio.run(scenario()))
    assert label == "Exporting ..."
    name = figure_basename("test-line", {"n_labeled": 7, "iteration": 2, "kind": "a"})
    assert [path.name for path in explorer.export.last_paths] == [
        f"{name}.png", f"{name}.svg", f"{name}.pdf"]
    assert explorer.export.controls["label"].value.startswith(f"Saved {name}.")
    assert explorer.figure.axes[0].get_title() == "slope 7"


def test_an_export_waits_for_a_value_whose_redraw_waits_in_another_thread(_figures_dir):
    """A value set on a kernel subshell while the figure is busy: the export waits for its
    redraw instead of refusing the figure as not matching the controls."""
    import threading

    from sslviz.widgets.base import EXPORT_SETTLE_S

    async def scenario():
        explorer = line_explorer(n_labeled=3)
        explorer._lock.acquire()  # busy: e.g. a frame drawn ahead
        setter = threading.Thread(
            target=lambda: setattr(explorer.controls["n_labeled"], "value", 6))
        setter.start()  # the value is set; its redraw waits for the lock
        assert await until(lambda: explorer.controls["n_labeled"].value == 6)
        click_export(explorer)
        await asyncio.sleep(3 * EXPORT_SETTLE_S)  # the export looked, and waited
        explorer._lock.release()
        assert await until(lambda: explorer.export.last_paths or not setter.is_alive()
                           and explorer.export.controls["label"].value != "Exporting ...")
        setter.join(timeout=PATIENCE_S)
        return explorer

    explorer = in_fresh_thread(lambda: asyncio.run(scenario()))
    name = figure_basename("test-line", {"n_labeled": 6, "iteration": 0, "kind": "a"})
    assert explorer.export.controls["label"].value.startswith(f"Saved {name}.")


def test_a_value_set_in_another_thread_during_a_redraw_is_drawn_after_it_never_dropped():
    """JupyterLab may send a widget message on a kernel subshell (another thread) while the main
    thread redraws: the change waits for the redraw, then is drawn; the two never interleave."""
    import threading
    import time

    entered, release, inside = threading.Event(), threading.Event(), []
    controls = {"step": widgets.IntSlider(0, min=0, max=9)}
    figure = Figure(figsize=(3, 2))
    ax = figure.add_subplot()

    def update(values):
        inside.append(values["step"])
        assert len(inside) == 1, f"two updates at once: {inside}"
        if values["step"] == 1:
            entered.set()
            release.wait(timeout=PATIENCE_S)
        ax.set_title(f"step {values['step']}")
        inside.pop()

    explorer = Explorer("threads", figure, controls, update)
    first = threading.Thread(target=lambda: setattr(controls["step"], "value", 1))
    first.start()
    assert entered.wait(timeout=PATIENCE_S)
    second = threading.Thread(target=lambda: setattr(controls["step"], "value", 2))
    second.start()
    time.sleep(0.2)
    assert second.is_alive()  # waiting for the redraw of step 1 to finish
    release.set()
    first.join(timeout=PATIENCE_S)
    second.join(timeout=PATIENCE_S)
    assert explorer.caption.value == "step=2"
    assert ax.get_title() == "step 2"
    assert explorer.figure_on_screen() is figure


def test_a_failed_update_leaves_caption_image_and_figure_as_on_screen():
    explorer = failing_explorer()
    explorer.controls["n_labeled"].value = 5
    image, caption = bytes(explorer.image.value), explorer.caption.value
    explorer.controls["n_labeled"].value = 9
    assert isinstance(explorer.last_error, ValueError)
    assert "slope 9 is too steep" in explorer.error.value
    assert explorer.controls["n_labeled"].value == 9  # the student's value stays, to be fixed
    assert explorer.caption.value == caption == "n_labeled=5, kind=a"
    assert bytes(explorer.image.value) == image
    # the update had moved the line to slope 9 before failing: it is back at the slope on screen
    line = explorer.figure.axes[0].lines[0]
    np.testing.assert_array_equal(line.get_ydata(), [0, 5])
    assert explorer.figure.axes[0].get_title() == "slope 5 (a)"
    with pytest.raises(RuntimeError, match="the last update failed"):
        explorer.figure_on_screen()
    explorer.controls["n_labeled"].value = 2
    assert explorer.last_error is None and explorer.error.value == ""
    assert explorer.caption.value == "n_labeled=2, kind=a"
    assert explorer.figure_on_screen() is explorer.figure


def test_a_failure_in_the_restoring_update_still_refuses_export():
    explorer = failing_explorer()
    calls = []
    original = explorer._update

    def flaky(values):
        calls.append(dict(values))
        raise OSError("disk gone")

    explorer._update = flaky
    explorer.controls["n_labeled"].value = 4  # fails, and so does the restoring update
    assert calls == [{"n_labeled": 4, "kind": "a"}, {"n_labeled": 3, "kind": "a"}]
    explorer._update = original
    explorer.controls["n_labeled"].value = 3  # back at the caption's values, but not redrawn
    assert explorer.last_error is None  # this redraw succeeded: export is allowed again
    assert explorer.figure_on_screen() is explorer.figure


def test_the_restoring_update_does_not_move_the_students_controls():
    controls = {"corpus": widgets.Dropdown(options=["A", "B"]),
                "size": widgets.Dropdown(options=["1", "2"])}
    figure = Figure()
    options = {"A": ["1", "2"], "B": ["3", "4"]}

    def update(values):  # like the vocabulary explorer: a corpus brings its own options
        size = controls["size"]
        if list(size.options) != options[values["corpus"]]:
            size.options = options[values["corpus"]]
        if controls["size"].value == "4":
            raise ValueError("no run for size 4")

    explorer = Explorer("t", figure, controls, update)
    explorer.controls["corpus"].value = "B"
    explorer.controls["size"].value = "4"
    assert isinstance(explorer.last_error, ValueError)
    assert explorer.values() == {"corpus": "B", "size": "4"}
    assert explorer.caption.value == "corpus=B, size=3"


def test_export_explorers_refuses_an_explorer_in_error(tmp_path):
    for other in live_explorers():
        other.close()
    explorer = failing_explorer()
    explorer.controls["n_labeled"].value = 7
    with pytest.raises(RuntimeError, match="not exporting test-fail"):
        export_explorers(tmp_path, reset=False, formats=("png",))
    assert list(tmp_path.iterdir()) == []
    explorer.close()


# -- the two failures the issue reported, in the lecture explorers ------------------------------
def objective_curve(explorer):
    return explorer.figure.axes[1].lines[0].get_ydata()


def test_top_words_explorer_never_mixes_two_seeds():
    from synthetic import four_topic_corpus

    from sslviz.experiments.em import em_run
    from sslviz.widgets.em import top_words_explorer

    corpus = four_topic_corpus()
    explorer = top_words_explorer(corpus, target="topic1", n_unlabeled=200, k=5, iteration=0)

    def objectives(seed):  # the run the explorer should show, fitted here independently
        return em_run(corpus.X, corpus.y, n_labeled=1, per_class=True, n_unlabeled=200,
                      seed=seed, alpha=1.0, max_iter=10).model.trace_.values("objective")

    seed0, seed3 = objectives(0), objectives(3)
    assert not np.allclose(seed0[: len(seed3)], seed3[: len(seed0)])
    np.testing.assert_allclose(objective_curve(explorer), seed0)
    explorer.controls["target"].value = None  # no class chosen: the update fails
    explorer.controls["seed"].value = 3  # fails again, after drawing seed 3's curves
    assert explorer.last_error is not None
    np.testing.assert_allclose(objective_curve(explorer), seed0)  # back to the image's seed
    assert explorer.caption.value.startswith("iteration=0, target=topic1, seed=0")
    label = click_export(explorer)
    assert label.startswith("Not exported:") and explorer.export.last_paths == []
    explorer.controls["target"].value = "topic1"
    assert explorer.last_error is None
    np.testing.assert_allclose(objective_curve(explorer), seed3)
    assert click_export(explorer).startswith("Saved ")
    assert "seed-3" in explorer.export.last_paths[0].name


def test_word_box_typo_is_not_exported_under_the_typed_name(_figures_dir):
    from synthetic import HIDDEN_TEST_ROWS, hidden_word_corpus

    from sslviz.widgets.what_is_ssl import word_association_explorer

    explorer = word_association_explorer(hidden_word_corpus(), test_rows=HIDDEN_TEST_ROWS,
                                         n_labeled=4, k=3, sizes=(2, 4, 8))
    explorer.controls["words"].value = "b1, nosuchword"
    assert "nosuchword" in explorer.error.value
    label = click_export(explorer)
    assert label.startswith("Not exported:") and "nosuchword" in label
    assert not any("nosuchword" in path.name for path in _figures_dir.iterdir())
    explorer.controls["words"].value = "b1"
    assert click_export(explorer).startswith("Saved ")


# -- control labels that are never cut ------------------------------------------------------------
def _lecture_descriptions():
    """``(module, widget class name, description)`` of every control a lecture's widget module
    builds with a literal description (read from the source, so a new label is covered too)."""
    import ast
    from pathlib import Path

    import sslviz.widgets

    found = []
    for path in sorted(Path(sslviz.widgets.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "widgets"):
                continue
            for keyword in node.keywords:
                if keyword.arg == "description" and isinstance(keyword.value, ast.Constant):
                    found.append((path.stem, node.func.attr, keyword.value.value))
    return found


def test_the_source_scan_finds_the_long_labels_of_the_lectures():
    labels = {description for _, _, description in _lecture_descriptions()}
    assert {"labeled/class", "labeled share", "labeled docs", "smoothing α"} <= labels


def test_no_lecture_control_label_is_wider_than_the_width_it_is_given():
    from sslviz.widgets.base import allotted_px, description_px, shows_description_label

    controls = {}
    for module, kind, description in _lecture_descriptions():
        control = getattr(widgets, kind)(description=description) \
            if kind not in ("SelectionSlider", "SelectionRangeSlider") \
            else getattr(widgets, kind)(options=[1, 2], description=description)
        if shows_description_label(control):
            controls[f"{module}:{description}"] = control
    cut_by_default = [k for k, c in controls.items() if description_px(c.description) > 80]
    assert cut_by_default, "the test needs labels that ipywidgets' 80 px would cut"
    Explorer("t", Figure(figsize=(2, 1)), controls, lambda values: None)
    too_wide = {k: (description_px(c.description), allotted_px(c)) for k, c in controls.items()
                if description_px(c.description) > allotted_px(c)}
    assert not too_wide


def test_only_labels_that_would_be_cut_are_widened():
    from sslviz.widgets.base import DESCRIPTION_PX, allotted_px, description_px

    short = widgets.IntSlider(description="seed")
    long = widgets.IntSlider(description="labeled/class")
    narrow = widgets.Dropdown(description="labeled docs", style={"description_width": "40px"})
    play = widgets.Play(description="a long description Play never shows")
    Explorer("t", Figure(figsize=(2, 1)), {"a": short, "b": long, "c": narrow}, lambda v: None,
             extra_controls=[play])
    assert allotted_px(short) == DESCRIPTION_PX and short.style.description_width == ""
    assert long.style.description_width == narrow.style.description_width == "initial"
    assert description_px("labeled/class") > DESCRIPTION_PX > description_px("seed")
    assert play.style.description_width == ""


def test_allotted_width_reads_pixels_ems_and_initial_and_refuses_the_rest():
    from sslviz.widgets.base import allotted_px

    assert allotted_px(widgets.IntSlider(style={"description_width": "120px"})) == 120
    assert allotted_px(widgets.IntSlider(style={"description_width": "10em"})) == 130
    assert allotted_px(widgets.IntSlider(style={"description_width": "initial"})) == np.inf
    with pytest.raises(ValueError, match="cannot tell how wide"):
        allotted_px(widgets.IntSlider(style={"description_width": "30%"}))


# -- the pattern widgets/base.py tells a new stepper explorer to copy -----------------------------
RUN_LENGTHS = {0: 6, 1: 4, 2: 2}  # iterations recorded by the run of each seed


def stepper_pattern_explorer(seed=0, fail_setup_for=()):
    """A run per seed (of ``RUN_LENGTHS`` iterations) as ``widgets/base.py`` documents it: the
    slider's end given by ``ranges``, the curve drawn by a setup on the seed, the replay moving a
    marker only. ``calls`` records every update's values and every setup's; a setup fails, after
    clearing the axes, for the seeds in ``fail_setup_for``."""
    from sslviz.widgets.base import PerSetting, iteration_control

    runs = {seed: np.linspace(0, 1, n) ** (seed + 1) for seed, n in RUN_LENGTHS.items()}
    iteration, play = iteration_control(RUN_LENGTHS[seed] - 1)
    controls = {"iteration": iteration, "seed": widgets.Dropdown(options=list(runs), value=seed)}
    with style_context():
        figure = Figure(figsize=(4, 3))
        ax = figure.add_subplot()
    calls = {"update": [], "setup": []}

    def curve(values):
        calls["setup"].append(dict(values))
        ax.clear()  # changes the figure before it may fail: the worst case
        if values["seed"] in fail_setup_for:
            raise ValueError(f"no run for seed {values['seed']}")
        (line,) = ax.plot(runs[values["seed"]])
        return {"line": line, "marker": ax.axvline(0)}

    def update(values, drawn):
        calls["update"].append(dict(values))
        last = len(runs[values["seed"]]) - 1
        assert 0 <= values["iteration"] <= last, values  # never an out-of-range value
        drawn["curve"]["marker"].set_xdata([values["iteration"]] * 2)
        ax.set_title(f"iteration {values['iteration']} of {last}")

    explorer = Explorer("test-stepper", figure, controls, update, extra_controls=[play],
                        ranges={"iteration": lambda values: (0, len(runs[values["seed"]]) - 1)},
                        setup={"curve": PerSetting(("seed",), curve)})
    return explorer, calls


def test_limits_are_set_before_the_update_which_never_sees_a_value_outside_them():
    explorer, calls = stepper_pattern_explorer()
    explorer.controls["iteration"].value = 5
    before = len(calls["update"])
    explorer.controls["seed"].value = 2  # a run of two iterations: the slider ends at 1
    assert len(calls["update"]) == before + 1  # no redraw for the end and the value it moved
    assert calls["update"][-1] == {"iteration": 1, "seed": 2}  # clamped before the update
    assert explorer.last_error is None  # the update's own check held
    slider = explorer.controls["iteration"]
    play = next(c for c in explorer.children[0].children if isinstance(c, widgets.Play))
    assert (slider.max, slider.value, play.max) == (1, 1, 1)  # the Play button follows
    assert explorer.caption.value == "iteration=1, seed=2"
    assert explorer.figure.axes[0].get_title() == "iteration 1 of 1"
    explorer.controls["seed"].value = 0
    assert (slider.max, play.max, slider.value) == (5, 5, 1)


def test_options_that_depend_on_another_control_are_set_before_the_update():
    controls = {"corpus": widgets.Dropdown(options=["A", "B", "C"]),
                "size": widgets.Dropdown(options=["1", "2"], value="2")}
    options = {"A": ["1", "2"], "B": ["2", "3"], "C": ["4"]}
    seen = []
    explorer = Explorer("t", Figure(), controls, lambda values: seen.append(dict(values)),
                        ranges={"size": lambda values: options[values["corpus"]]})
    explorer.controls["corpus"].value = "B"  # "2" is an option of B: kept
    assert seen[-1] == {"corpus": "B", "size": "2"}
    assert list(controls["size"].options) == ["2", "3"]
    explorer.controls["corpus"].value = "C"  # "2" is not: the first option
    assert seen[-1] == {"corpus": "C", "size": "4"} and controls["size"].value == "4"
    assert len(seen) == 3  # one update per change of the corpus


def test_a_setup_is_drawn_once_per_setting_and_again_when_its_value_changes():
    explorer, calls = stepper_pattern_explorer()
    for step in (1, 2, 3):
        explorer.controls["iteration"].value = step
        assert list(explorer.figure.axes[0].lines[1].get_xdata()) == [step, step]
    assert calls["setup"] == [{"seed": 0}]  # the replay moved the kept artists only
    explorer.controls["seed"].value = 1
    explorer.controls["iteration"].value = 0
    explorer.controls["seed"].value = 0
    assert calls["setup"] == [{"seed": 0}, {"seed": 1}, {"seed": 0}]
    curve = explorer.figure.axes[0].lines[0].get_ydata()
    assert np.array_equal(curve, np.linspace(0, 1, RUN_LENGTHS[0]))


def test_a_setup_sees_only_the_values_it_declares():
    from sslviz.widgets.base import PerSetting

    controls = {"iteration": widgets.IntSlider(0, max=3), "seed": widgets.IntText(0)}
    explorer = Explorer("t", Figure(), controls, lambda values, drawn: None,
                        setup={"run": PerSetting(("iteration",), lambda values: values["seed"])})
    assert isinstance(explorer.last_error, KeyError)  # a key left out is an error, not stale
    explorer.close()  # an explorer in error would refuse export_explorers in later tests
    with pytest.raises(ValueError, match=r"setup 'run' names \['sed'\], which are not "
                                         r"controls of the explorer"):
        Explorer("t", Figure(), controls, lambda values, drawn: None,
                 setup={"run": PerSetting(("sed",), lambda values: None)})
    with pytest.raises(ValueError, match=r"ranges names \['iter'\]"):
        Explorer("t", Figure(), controls, lambda values: None, ranges={"iter": lambda v: (0, 1)})


def test_a_failing_setup_leaves_the_figure_as_it_was():
    explorer, calls = stepper_pattern_explorer(fail_setup_for={2})
    explorer.controls["iteration"].value = 3
    image, curve = bytes(explorer.image.value), explorer.figure.axes[0].lines[0].get_ydata()
    explorer.controls["seed"].value = 2  # its setup clears the axes, then fails
    assert isinstance(explorer.last_error, ValueError)
    assert bytes(explorer.image.value) == image
    assert explorer.caption.value == "iteration=3, seed=0"
    lines = explorer.figure.axes[0].lines  # the restore drew seed 0's artists again
    assert np.array_equal(lines[0].get_ydata(), curve)
    assert list(lines[1].get_xdata()) == [3, 3]
    assert calls["setup"][-2:] == [{"seed": 2}, {"seed": 0}]
    explorer.controls["seed"].value = 0  # back: the figure on screen is exported as it is
    assert explorer.figure_on_screen() is explorer.figure


def test_frames_drawn_ahead_use_the_setup_of_their_own_values():
    from sslviz.widgets.ahead import frame_key

    async def scenario():
        explorer, calls = stepper_pattern_explorer()
        explorer.controls["seed"].value = 1  # a run of four iterations
        explorer.controls["iteration"].value = 1  # frames 0, 2, 3 drawn ahead for seed 1
        wanted = [{"iteration": i, "seed": 1} for i in (0, 2, 3)]
        assert await until(lambda: all(frame_key(v) in explorer._frames for v in wanted))
        return explorer, calls

    explorer, calls = in_fresh_thread(lambda: asyncio.run(scenario()))
    assert calls["setup"] == [{"seed": 0}, {"seed": 1}]  # no setup for frames of the same run
    assert all(c["seed"] == 1 and c["iteration"] <= 3 for c in calls["update"][2:])
    fresh, _ = stepper_pattern_explorer(seed=1)  # opened at the values compared
    for step in (3, 0):
        explorer.controls["iteration"].value = step  # served from the frame drawn ahead
        fresh.controls["iteration"].value = step
        assert bytes(explorer.image.value) == bytes(fresh.image.value)


def test_the_picture_does_not_depend_on_the_order_of_visits():
    fresh, _ = stepper_pattern_explorer(seed=1)  # opened at the values compared
    fresh.controls["iteration"].value = 2
    travelled, _ = stepper_pattern_explorer()  # opened at seed 0, then moved around
    for seed, step in ((2, 1), (0, 5), (1, 2)):
        travelled.controls["seed"].value = seed
        travelled.controls["iteration"].value = step
    assert travelled.values() == fresh.values()
    assert np.array_equal(travelled.figure.axes[0].lines[0].get_ydata(),
                          fresh.figure.axes[0].lines[0].get_ydata())
    assert travelled.image.value == fresh.image.value


def test_limits_that_cannot_hold_a_value_are_refused_with_what_to_return():
    from sslviz.widgets.base import set_limits

    slider = widgets.IntSlider(2, max=5, description="iteration")
    with pytest.raises(ValueError, match=r"'iteration' gave the lowest value 4 above the highest "
                                         r"3: return \(lowest, highest\)"):
        set_limits(slider, (4, 3), 2)
    assert (slider.min, slider.max) == (0, 5)  # left as it was
    with pytest.raises(ValueError, match="'size' gave no options: return at least one"):
        set_limits(widgets.Dropdown(options=["1"], description="size"), [], "1")
    assert set_limits(slider, (3, 4), 2) == 3 and (slider.min, slider.max) == (3, 4)
