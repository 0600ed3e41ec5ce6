"""One lecture presented with jupyterlab-slideshow: every explorer on the deck is live.

The deck is the first notebook, or the one named by ``SSLVIZ_SLIDESHOW``. The presenter runs all
cells in JupyterLab, and the lecture gets every check of ``test_classroom.py`` first (this test is
that notebook's classroom test: it runs the lecture once for both). The presenter then selects
the first cell and starts the deck with the notebook toolbar's deck button; the deck then shows
the slides that the notebook's ``slideshow.slide_type`` metadata defines (``sslviz.slides``).
The test walks the whole deck with the on-screen remote (down into a subslide first, else
forward to the next slide), as a presenter clicking through the lecture. Each explorer must come
on screen on some slide, render its figure, and follow its main slider when dragged with the
mouse (in the deck the arrow keys turn slides), without the deck moving on. At the end, the
remote's deck icon leaves the deck.

The deck runs in the widget front end this environment installs (the newest, since the ``[lab]``
extra pins no upper bound); the versions are recorded with the test's timings.
"""

from __future__ import annotations

import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest
from helpers import PATIENCE_S

from .conftest import deck_name
from .test_classroom import check_lecture, move_main_slider

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MAX_SLIDES = 80  # far more slides and subslides than any lecture has
REMOTE = ".jp-Deck-Remote .jp-deck-mod-direction-{}:not(.jp-mod-disabled)"
ACTIVE_CELL_JS = """() => [...document.querySelectorAll('.jp-NotebookPanel .jp-Cell')]
    .findIndex(cell => cell.classList.contains('jp-mod-active'))"""


def installed_versions():
    """The versions of the widget front end and the deck in this environment (JupyterLab's)."""
    try:
        return {name: version(name)
                for name in ("ipywidgets", "jupyterlab_widgets", "jupyterlab-slideshow")}
    except PackageNotFoundError as missing:
        pytest.fail(f"{missing.name} is not installed in this environment: `pip install -e .[lab]` "
                    "(or `python3 run.py test`) installs it")


def start_deck(page):
    """Select the first cell (Run All leaves the last, a skipped solution, active: the deck would
    open on nothing) and press the toolbar's deck button."""
    page.locator(".jp-NotebookPanel .jp-Cell").first.click()
    assert page.evaluate(ACTIVE_CELL_JS) == 0
    page.locator('.jp-NotebookPanel-toolbar [data-command="deck:toggle"]').click()
    page.locator('body[data-jp-deck-mode="presenting"]').wait_for(state="attached")
    page.locator(".jp-Deck-Remote").wait_for()


MOVED_JS = """async before => {
    const cells = [...document.querySelectorAll('.jp-NotebookPanel .jp-Cell')];
    if (cells.findIndex(cell => cell.classList.contains('jp-mod-active')) === before) {
        return false;
    }
    // the deck restyles the cells as the active one moves; the remote redraws its arrows in
    // the next animation frame
    await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
    return true;
}"""


def next_slide(page):
    """Click the remote's down arrow (a subslide), else its forward arrow, and wait until the
    deck moved; False at the end."""
    for direction in ("down", "forward"):
        button = page.locator(REMOTE.format(direction))
        if button.count():
            before = page.evaluate(ACTIVE_CELL_JS)
            button.first.click()
            page.wait_for_function(MOVED_JS, arg=before)
            return True
    return False


def check_explorer_on_slide(page, explorer, path):
    figure = explorer.locator("img.sslviz-figure")
    figure.wait_for(timeout=PATIENCE_S * 1000)
    assert figure.evaluate("img => img.naturalWidth") > 100
    slide = page.evaluate(ACTIVE_CELL_JS)
    caption = move_main_slider(page, explorer, with_mouse=True)
    assert page.evaluate(ACTIVE_CELL_JS) == slide, "moving the slider turned the slide"
    assert explorer.is_visible(), "the explorer left the screen when its slider moved"
    page.screenshot(path=path)
    return caption


@pytest.mark.notebook(deck_name())  # runs on the worker that runs this notebook (tests/conftest.py)
def test_every_explorer_is_live_in_the_deck(page, lab, artifacts, record_property):
    start = time.perf_counter()
    versions = installed_versions()
    name = deck_name()
    check_lecture(page, lab, name, artifacts / Path(name).stem)  # the classroom's checks
    record_property(f"browser: {name}", time.perf_counter() - start)
    explorers = page.locator(".sslviz-explorer")
    total = explorers.count()

    deck_start = time.perf_counter()
    start_deck(page)
    folder = artifacts / f"deck-{Path(name).stem}"
    folder.mkdir(exist_ok=True)
    page.screenshot(path=folder / "first-slide.png")
    live, slides = {}, 1
    while True:
        for index in range(total):
            if index not in live and explorers.nth(index).is_visible():
                live[index] = check_explorer_on_slide(
                    page, explorers.nth(index), folder / f"explorer-{index + 1}.png")
        if not next_slide(page):
            break
        slides += 1
        assert slides <= MAX_SLIDES, f"the deck did not end within {MAX_SLIDES} slides"
    page.screenshot(path=folder / "last-slide.png")
    page.locator(".jp-Deck-Remote .jp-deck-mod-stop").click()  # the deck icon in the remote
    page.wait_for_function("() => document.body.dataset.jpDeckMode !== 'presenting'")
    missing = sorted(set(range(1, total + 1)) - {index + 1 for index in live})
    assert not missing, (f"explorers {missing} of {total} never came on screen in the deck "
                         f"({slides} slides; see {folder})")
    shown = ", ".join(f"{package} {number}" for package, number in versions.items())
    record_property(f"browser: deck of {name} ({shown})", time.perf_counter() - deck_start)
