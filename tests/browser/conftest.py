"""Fixtures of the browser tests: one JupyterLab server and one headless Chromium per run.

Without Chromium the tests are skipped with a message that says how to enable them; in CI
(``CI`` or ``SSLVIZ_REQUIRE_BROWSER`` set, as ``.ci/run`` does) a missing browser is an error, so
the classroom is always tested there. Screenshots go to ``$SSLVIZ_ARTIFACTS`` (default:
``test-artifacts/browser/`` in the checkout, git-ignored, emptied at the start of each run; a
folder named by the variable is never emptied); the folder and the time each notebook took are
printed at the end of the run.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from .lab import CHROMIUM_ARGS, ENABLE_HINT, find_chromium, start_lab

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
TIMINGS: dict[str, float] = {}
_ARTIFACTS: list[Path] = []


def notebook_names():
    """Every notebook of ``notebooks/``, in lecture order (found anew on every run)."""
    return sorted(path.name for path in NOTEBOOKS.glob("*.ipynb"))


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
    chosen = os.environ.get("SSLVIZ_ARTIFACTS")
    folder = Path(chosen) if chosen else ROOT / "test-artifacts" / "browser"
    if not chosen:  # never empty a folder the user named
        shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)
    _ARTIFACTS.append(folder.resolve())
    return folder


@pytest.fixture(scope="session")
def lab(chromium, tmp_path_factory):
    start = time.perf_counter()
    server = start_lab(NOTEBOOKS, tmp_path_factory.mktemp("lab"))
    TIMINGS["JupyterLab start"] = time.perf_counter() - start
    yield server
    server.stop()


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


@pytest.fixture
def page(browser, lab):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(30_000)
    yield page
    context.close()
    lab.shutdown_kernels()


def pytest_terminal_summary(terminalreporter):
    if not TIMINGS and not _ARTIFACTS:
        return
    terminalreporter.section("browser tests")
    for name, seconds in TIMINGS.items():
        terminalreporter.write_line(f"{name}: {seconds:.1f} s")
    for folder in _ARTIFACTS:
        terminalreporter.write_line(f"screenshots of what a student sees: {folder}")
