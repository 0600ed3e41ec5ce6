"""Fixtures of the browser tests: one JupyterLab server and one headless Chromium per run.

Without Chromium the tests are skipped with a message that says how to enable them; in CI
(``CI`` or ``SSLVIZ_REQUIRE_BROWSER`` set, as ``.ci/run`` does) a missing browser is an error, so
the classroom is always tested there. Screenshots go to ``$SSLVIZ_ARTIFACTS`` (default:
``test-artifacts/browser/`` in the checkout, git-ignored, emptied at the start of each run; a
folder named by the variable is never emptied); the folder and the time each notebook took are
printed at the end of the run (``tests/conftest.py``, from each test's ``record_property``).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from helpers import PATIENCE_S

from .lab import CHROMIUM_ARGS, ENABLE_HINT, find_chromium, start_lab

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
ARTIFACTS_DEFAULT = ROOT / "test-artifacts" / "browser"  # the folder tests/conftest.py empties


def notebook_names():
    """Every notebook of ``notebooks/``, in lecture order (found anew on every run)."""
    return sorted(path.name for path in NOTEBOOKS.glob("*.ipynb"))


def deck_name():
    """The notebook presented as slides: the first, or the one named by ``SSLVIZ_SLIDESHOW``."""
    return os.environ.get("SSLVIZ_SLIDESHOW") or notebook_names()[0]


@pytest.fixture(scope="session")
def chromium():
    path = find_chromium()
    problem = None
    if path is None:
        problem = "Chromium not found"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            problem = "the Python package playwright is not installed (pip install -e .[test])"
    if problem:
        message = f"browser tests skipped: {problem}; to run them, {ENABLE_HINT}"
        if os.environ.get("CI") or os.environ.get("SSLVIZ_REQUIRE_BROWSER"):
            pytest.fail(f"{message} (CI must run the browser tests)")
        pytest.skip(message)
    return path


@pytest.fixture(scope="session")
def artifacts(chromium):
    """The screenshot folder (emptied once per run by ``tests/conftest.py``)."""
    chosen = os.environ.get("SSLVIZ_ARTIFACTS")
    folder = Path(chosen) if chosen else ARTIFACTS_DEFAULT
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def lab(chromium, tmp_path_factory):
    start = time.perf_counter()
    server = start_lab(NOTEBOOKS, tmp_path_factory.mktemp("lab"))
    server.start_seconds = time.perf_counter() - start
    yield server
    server.stop()


@pytest.fixture(scope="session")
def committed_site(tmp_path_factory):
    """The lecture site built once from the committed notebooks: (folder, page entries). Shared by
    ``test_site.py`` and ``test_site_accessibility.py`` (one xdist group, so one worker builds it);
    the tests only read it."""
    from sslviz import site

    out = tmp_path_factory.mktemp("site") / "site"
    return out, site.build(out)


@pytest.fixture(scope="module")
def browser(chromium):
    """Chromium, driven by Playwright's sync API. Module scope: the API runs an asyncio loop in
    this thread while it is open, and the unit tests that follow must not find one running."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium, headless=True,
                                              args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def _lab_page(browser):
    """One page for the tests of a module: JupyterLab, once loaded, serves the next notebook."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(PATIENCE_S * 1000 / 5)  # one click or look-up: ms idle
    yield page
    context.close()


@pytest.fixture
def page(_lab_page, lab, record_property):
    """The module's page; after the test, every document it opened is closed and every kernel
    stopped (one notebook's kernel must not slow down the next one)."""
    if getattr(lab, "start_seconds", None) is not None:  # reported by the first test only
        record_property("browser: JupyterLab start", lab.start_seconds)
        lab.start_seconds = None
    _lab_page.set_viewport_size({"width": 1400, "height": 1000})
    yield _lab_page
    try:
        if _lab_page.url.startswith(lab.url):
            lab.close_documents(_lab_page)
    except Exception:  # a page a failed test left stuck (a dialog): the next test reloads it
        pass
    finally:
        lab.shutdown_kernels()
