"""Every notebook, live in JupyterLab in a real browser, as a student or an instructor uses it.

For each notebook of ``notebooks/`` (found anew on every run): open it, wait for the kernel, run
all cells, and check that no cell failed, every widget rendered and no static figure came out as
its text form (``<Figure size 700x420 with 1 Axes>``: a figure nothing displays). Then, for each
explorer: its controls and figure are on screen; moving its main slider one step with the
keyboard changes the figure and the caption shows the new value; its export button writes PNG,
SVG and PDF files named after the parameters in the caption, the PNG the picture on screen. One
notebook (the deck's) gets these checks in ``test_deck_slideshow.py``, which then presents it as
slides, where every explorer must be live too.
"""

from __future__ import annotations

import base64
import io
import re
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import PATIENCE_S
from PIL import Image

from sslviz.export import figure_basename

from .conftest import deck_name, notebook_names

pytestmark = [pytest.mark.browser, pytest.mark.slow]

RUN_TIMEOUT_MS = 3 * PATIENCE_S * 1000  # far above a cold run of the slowest notebook
REDRAW_TIMEOUT_S = PATIENCE_S / 5  # a refit answers within about a second on an idle machine
PROGRESS_EVERY_S = 60
MAGIC = {"png": b"\x89PNG\r\n\x1a\n", "pdf": b"%PDF-", "svg": b"<?xml"}
MATCH_LIMIT = 12.0
"""Mean absolute grey-level difference (0-255) allowed between an export scaled to the screen
image and that image: a lecture figure rendered at 200 and at 90 dpi differs by about 4 (text and
marker edges); a figure drawn over another or squeezed into a corner by far more."""
SHOWN_PNG_JS = """async img => {
    const bytes = new Uint8Array(await (await fetch(img.src)).arrayBuffer());
    let text = '';
    for (const byte of bytes) { text += String.fromCharCode(byte); }
    return btoa(text);
}"""
SAVED = re.compile(r"^Saved (?P<base>\S+)\.\{(?P<formats>[a-z,]+)\} in (?P<folder>.+)$")

RUN_STATE_JS = """() => {
    const notebooks = document.querySelectorAll('.jp-NotebookPanel');
    if (notebooks.length !== 1) { return {cells: 0, done: 0, busy: 0, errors: [],
                                          panels: notebooks.length}; }
    // a folded cell (a worked solution: its input collapsed) shows no execution count
    const shown = [...notebooks[0].querySelectorAll('.jp-CodeCell')]
        .filter(c => !c.querySelector('.jp-InputPlaceholder'));
    const prompts = shown.map(c => c.querySelector('.jp-InputPrompt')).filter(p => p);
    const outputs = [...notebooks[0].querySelectorAll('.jp-OutputArea-output')];
    return {
        cells: prompts.length,
        done: prompts.filter(p => /\\[\\d+\\]/.test(p.textContent)).length,
        busy: prompts.filter(p => p.textContent.includes('*')).length,
        errors: outputs.map(o => o.textContent)
                       .filter(t => t.includes('Traceback (most recent call last)')),
    };
}"""


def run_all_cells(page):
    """Run every cell through the menu, as a student would; wait until all have run."""
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_text("Run All Cells", exact=True).click()
    start = time.monotonic()
    deadline, report = start + RUN_TIMEOUT_MS / 1000, start + PROGRESS_EVERY_S
    while time.monotonic() < deadline:
        state = page.evaluate(RUN_STATE_JS)
        if time.monotonic() > report:  # captured; pytest shows it with a failure
            print(f"Run All, {time.monotonic() - start:.0f} s: {state}", flush=True)
            report += PROGRESS_EVERY_S
        if state.get("panels"):
            pytest.fail(f"{state['panels']} notebooks are open; expected only the one tested")
        if state["errors"] and not state["busy"]:
            return state
        if state["cells"] and state["done"] == state["cells"] and not state["busy"]:
            # folded cells (solutions) run last, unseen: the kernel's status says when they end
            page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(
                timeout=max(1, deadline - time.monotonic()) * 1000)
            return state
        time.sleep(0.2)
    pytest.fail(f"cells still running after {RUN_TIMEOUT_MS // 1000} s: {state}")


FIGURE_AS_TEXT = re.compile(r"<Figure size \d+x\d+ with \d+ Axes>")
OUTPUT_TEXTS_JS = """() => [...document.querySelectorAll('.jp-NotebookPanel .jp-OutputArea-output')]
    .map(o => o.textContent)"""


def figures_shown_as_text(texts):
    """The output texts that are a matplotlib figure's repr instead of its picture."""
    return [text.strip() for text in texts if FIGURE_AS_TEXT.search(text)]


def assert_no_figure_as_text(page):
    shown = figures_shown_as_text(page.evaluate(OUTPUT_TEXTS_JS))
    assert not shown, f"a static figure renders as text, not as a picture: {shown[0][:200]!r}"


def assert_widgets_rendered(page):
    page.wait_for_function(
        "() => !document.body.innerText.includes('Loading widget...')", timeout=PATIENCE_S * 1000)
    assert "Error displaying widget" not in page.locator("body").inner_text()


def parse_caption(text):
    """``"n_labeled=20, features=SMART stop list"`` -> ``{"n_labeled": 20, ...}``."""
    params = {}
    for part in re.split(r", (?=\w+=)", text.strip()):
        key, _, value = part.partition("=")
        params[key] = _number_or_text(value)
    return params


def _number_or_text(value):
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def wait_for_new_figure(figure, before, timeout=REDRAW_TIMEOUT_S):
    """Poll screenshots of the figure until they differ from ``before``; return the new one."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = figure.screenshot()
        if now != before:
            return now
        time.sleep(0.2)
    pytest.fail("the figure on screen did not change after the slider moved")


def move_main_slider(page, explorer, *, with_mouse=False):
    """Move the explorer's main slider one step; check that caption and figure follow.

    By default the step is an ArrowRight key press on the focused handle; ``with_mouse`` drags
    the handle a quarter of the track to the right instead (in a slide deck the arrow keys turn
    the slides).
    """
    main, caption = explorer.locator(".sslviz-main"), explorer.locator(".sslviz-caption")
    figure = explorer.locator("img.sslviz-figure")
    handle, readout = main.locator(".noUi-handle"), main.locator(".widget-readout")
    figure_before = figure.screenshot()
    readout_before = readout.inner_text()
    # a slider that opens at its right end (e.g. the largest α, when that is the one chosen)
    # can only move left
    at_end = handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemax")
    if with_mouse:
        handle.click()  # the first click only selects the cell; the drag comes after it
        track, knob = main.locator(".noUi-base").bounding_box(), handle.bounding_box()
        x, y = knob["x"] + knob["width"] / 2, knob["y"] + knob["height"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + (-1 if at_end else 1) * track["width"] / 4, y, steps=5)
        page.mouse.up()
    else:
        handle.focus()
        handle.press("ArrowLeft" if at_end else "ArrowRight")
    page.wait_for_function(
        "([el, old]) => el.textContent.trim() !== old", arg=[readout.element_handle(),
                                                              readout_before])
    value = readout.inner_text().strip()
    # Every step of the way is a value change and a redraw: wait for the caption of the last one.
    shown = re.compile(rf"(^|, )\w+={re.escape(value)}(,|$)")
    deadline = time.monotonic() + REDRAW_TIMEOUT_S
    while not shown.search(caption.inner_text()):
        assert time.monotonic() < deadline, (
            f"caption {caption.inner_text()!r} does not show the slider's value {value}")
        time.sleep(0.1)
    assert not explorer.locator(".sslviz-error").inner_text().strip()
    wait_for_new_figure(figure, figure_before)
    return caption.inner_text()


def export_and_check(explorer, caption, figures_folder):
    """Export at the figure's own size; the files are named after the caption and the PNG is
    the image on screen (a garbled export, drawn while the figure changed, differs widely)."""
    explorer.locator(".sslviz-export select").select_option(label="as on screen")
    explorer.locator(".sslviz-export button").click()
    label = explorer.locator(".sslviz-export-status")
    label.filter(has_text=re.compile(r"^(Saved|Export failed)")).wait_for(timeout=PATIENCE_S * 1000)
    match = SAVED.match(label.inner_text().strip())
    assert match, f"export did not succeed: {label.inner_text()}"
    assert Path(match["folder"]).resolve() == figures_folder.resolve()
    base = match["base"]
    assert base == figure_basename(base.split("__")[0], parse_caption(caption))
    for fmt in ("png", "svg", "pdf"):
        path = figures_folder / f"{base}.{fmt}"
        assert path.is_file(), f"{path.name} was not written"
        assert path.read_bytes().startswith(MAGIC[fmt]), f"{path.name} is not a {fmt} file"
        assert path.stat().st_size > 2000, f"{path.name} is almost empty"
    shown = explorer.locator("img.sslviz-figure").evaluate(SHOWN_PNG_JS)
    difference = png_difference(base64.b64decode(shown), figures_folder / f"{base}.png")
    assert difference < MATCH_LIMIT, (
        f"{base}.png differs from the image on screen by {difference:.1f} grey levels on average")


def png_difference(shown_png, exported_path):
    """Mean absolute grey-level difference (0-255) of the exported PNG, scaled to the size of the
    PNG on screen, and that PNG; their aspect ratios must agree."""
    shown = Image.open(io.BytesIO(shown_png)).convert("L")
    with Image.open(exported_path) as image:
        exported = image.convert("L")
    assert abs(exported.width / exported.height - shown.width / shown.height) < 0.01, (
        f"{exported_path.name} is {exported.size}, the image on screen {shown.size}")
    exported = exported.resize(shown.size, Image.Resampling.LANCZOS)
    return float(np.abs(np.asarray(shown, dtype=float) - np.asarray(exported, dtype=float)).mean())


def screenshot_notebook(page, path):
    """One image of the whole notebook: the window is made as tall as the notebook for it."""
    height = page.evaluate("""() => {
        const scroller = document.querySelector('.jp-NotebookPanel .jp-WindowedPanel-outer');
        scroller.scrollTop = 0;
        return scroller.scrollHeight;
    }""")
    page.set_viewport_size({"width": 1400, "height": min(int(height) + 200, 16_000)})
    page.wait_for_timeout(500)  # let the layout settle at the new size
    page.screenshot(path=path)
    page.set_viewport_size({"width": 1400, "height": 1000})


def check_lecture(page, lab, name, folder):
    """Open lecture ``name`` in a workspace of its own, run all cells and check it as a student
    meets it: no cell failed, every widget rendered, no figure shown as text, and each explorer
    is on screen, follows its main slider and exports what it shows. A screenshot of each explorer
    goes to ``folder``, and one of the whole notebook when a check fails (the tall page costs
    seconds to draw); the page stays open on the executed lecture (the deck test presents it)."""
    # Alone in JupyterLab: else "Run All" could reach another notebook (lab.open).
    lab.open(page, name, workspace=Path(name).stem)
    # The toolbar says idle before the kernel is ready; the status bar text only once it is.
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=PATIENCE_S * 1000)
    state = run_all_cells(page)
    folder.mkdir(exist_ok=True)
    if state["errors"]:
        screenshot_notebook(page, folder / "notebook.png")
        pytest.fail(f"{name}: a cell failed:\n{state['errors'][0][-3000:]}")
    try:
        assert_widgets_rendered(page)
        assert_no_figure_as_text(page)
        check_explorers(page, lab, name, folder)
    except (Exception, pytest.fail.Exception):  # pytest.fail raises no Exception
        screenshot_notebook(page, folder / "notebook.png")
        raise


def check_explorers(page, lab, name, folder):
    """Each explorer of the executed lecture is on screen, follows its main slider and exports
    what it shows; a screenshot of each goes to ``folder``."""
    explorers = page.locator(".sslviz-explorer")
    assert explorers.count() >= 1, f"{name} shows no explorer"
    # JupyterLab draws the live widget, not the static picture beside it in the mime bundle.
    assert page.locator(".jp-OutputArea-child:has(.sslviz-explorer) .jp-RenderedImage").count() == 0
    for index in range(explorers.count()):
        explorer = explorers.nth(index)
        explorer.scroll_into_view_if_needed()
        assert explorer.locator(".sslviz-main").is_visible()
        assert explorer.locator(".sslviz-export button").is_visible()
        explorer.locator("img.sslviz-figure").wait_for()
        assert explorer.locator("img.sslviz-figure").evaluate("img => img.naturalWidth") > 100
        caption = move_main_slider(page, explorer)
        explorer.screenshot(path=folder / f"explorer-{index + 1}.png")
        export_and_check(explorer, caption, lab.figures)


def classroom_names():
    """The lectures this module runs: all but the deck's, which ``test_deck_slideshow.py`` checks
    with :func:`check_lecture` and then presents as slides (one Run All of it, not two)."""
    return [name for name in notebook_names() if name != deck_name()]


@pytest.mark.parametrize("name", classroom_names())
def test_notebook_in_jupyterlab(name, page, lab, artifacts, record_property):
    start = time.perf_counter()
    check_lecture(page, lab, name, artifacts / Path(name).stem)
    record_property(f"browser: {name}", time.perf_counter() - start)


def test_a_figure_shown_as_text_is_recognised_and_prose_about_figures_is_not():
    texts = ["<Figure size 700x420 with 1 Axes>", "Figure 2 (reuters): 100% 10/10",
             "\n<Figure size 1300x540 with 2 Axes>\n", "the Figure size is 7 x 4.2 inches"]
    assert figures_shown_as_text(texts) == ["<Figure size 700x420 with 1 Axes>",
                                            "<Figure size 1300x540 with 2 Axes>"]


def test_every_lecture_is_run_in_jupyterlab_once():
    assert sorted([*classroom_names(), deck_name()]) == notebook_names()
