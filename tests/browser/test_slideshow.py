"""One notebook presented as a RISE slideshow: the slide with its first explorer is live.

The presenter steps through the deck with Shift+Enter (RISE runs the cell and moves on), as in a
lecture. The deck is the first notebook, or the one named by ``SSLVIZ_SLIDESHOW``. On the slide
that shows the first explorer, the widget must render, and dragging its main slider with the mouse
must change the figure and the caption (in a slideshow the arrow keys turn the slides).
"""

from __future__ import annotations

import os
import time

import pytest
from helpers import PATIENCE_S

from .conftest import notebook_names
from .test_classroom import assert_widgets_rendered, move_main_slider

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MAX_STEPS = 80


SHOW_SLIDE_OF_FIRST_EXPLORER_JS = """() => {
    const slide = document.querySelector('.reveal .slides .sslviz-explorer').closest('section');
    location.hash = '#/' + slide.id;
}"""
IDLE_JS = """() => ![...document.querySelectorAll('.jp-InputPrompt')]
    .some(p => p.textContent.includes('*'))"""


def present_until_explorer(page, artifacts):
    """Press Shift+Enter, one cell at a time, until an explorer has rendered; show its slide.

    RISE runs the cell and moves on: when the explorer's cell is the last of its slide, the deck
    is already on the next slide when the figure appears, so the presenter goes back to it (here
    through the slide's address, ``#/<section id>``).
    """
    page.locator(".reveal .jp-Cell").first.click()
    rendered = page.locator(".reveal .slides .sslviz-explorer")
    for _ in range(MAX_STEPS):
        page.keyboard.press("Shift+Enter")
        page.wait_for_timeout(200)
        page.wait_for_function(IDLE_JS, timeout=PATIENCE_S * 1000)
        if rendered.count():
            page.evaluate(SHOW_SLIDE_OF_FIRST_EXPLORER_JS)
            current = page.locator(".reveal .slides section.present .sslviz-explorer").first
            current.wait_for(timeout=PATIENCE_S * 1000 / 5)
            return current
    page.screenshot(path=artifacts / "slideshow-failed.png")
    pytest.fail(f"no explorer on any of the first {MAX_STEPS} steps of the slideshow "
                f"(now at {page.evaluate('() => location.hash')}; see slideshow-failed.png)")


def deck_name():
    return os.environ.get("SSLVIZ_SLIDESHOW") or notebook_names()[0]


@pytest.mark.notebook(deck_name())  # runs on the worker that runs this notebook (tests/conftest.py)
def test_first_notebook_as_slideshow(page, lab, artifacts, record_property):
    start = time.perf_counter()
    name = deck_name()
    page.goto(lab.page(f"rise/{name}"))
    page.locator(".reveal .slides").wait_for()
    page.get_by_text("Kernel status: Idle").first.wait_for(state="attached",
                                                           timeout=PATIENCE_S * 1000)
    explorer = present_until_explorer(page, artifacts)
    explorer.locator("img.sslviz-figure").wait_for(timeout=PATIENCE_S * 1000)
    assert_widgets_rendered(page)
    assert explorer.locator("img.sslviz-figure").evaluate("img => img.naturalWidth") > 100
    before = page.evaluate("() => location.hash")
    move_main_slider(page, explorer, with_mouse=True)
    assert page.evaluate("() => location.hash") == before, "moving the slider changed the slide"
    page.screenshot(path=artifacts / "slideshow.png")
    record_property(f"browser: slideshow of {name}", time.perf_counter() - start)
