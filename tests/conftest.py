"""Shared test setup.

- matplotlib draws with Agg (no window, no display needed).
- ``real_data_dir``: the folder named by ``SSLVIZ_DATA``; tests that use it are marked ``realdata``
  and skipped when the variable is not set.
- Figures saved without an explicit folder go to a temporary folder (``SSLVIZ_FIGURES``), never into
  the working directory; open figures are closed after each test.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

#: Screenshots of the browser tests, unless ``SSLVIZ_ARTIFACTS`` names another folder.
ARTIFACTS_DEFAULT = Path(__file__).resolve().parents[1] / "test-artifacts" / "browser"
REAL_DATA_REASON = "set SSLVIZ_DATA to a folder holding the corpora (see data/README.md)"


@pytest.fixture(scope="session")
def real_data_dir() -> Path:
    """The folder holding the real corpora, from ``SSLVIZ_DATA``; skips the test when unset."""
    value = os.environ.get("SSLVIZ_DATA")
    if not value:
        pytest.skip(REAL_DATA_REASON)
    path = Path(value).expanduser()
    if not path.is_dir():
        pytest.fail(f"SSLVIZ_DATA={value} is not a folder; {REAL_DATA_REASON}", pytrace=False)
    return path


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups (its hook is plain)
def pytest_collection_modifyitems(config, items):
    """Mark the tests that use ``real_data_dir`` as ``realdata`` (``-m 'not realdata'`` works),
    and put the tests of one notebook in one ``xdist_group`` (see :func:`notebook_group`)."""
    for item in items:
        if "real_data_dir" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.realdata)
        group = notebook_group(item)
        if group:
            item.add_marker(pytest.mark.xdist_group(group))


def notebook_group(item):
    """The notebook a test executes (its file name), or None.

    nbval's cells of a notebook and the browser tests that run it (they take the notebook's
    file name as the parameter ``name``, or name it with a ``notebook`` mark) form one group: with
    ``pytest -n N --dist loadgroup`` they run in order on one worker, so the cells keep their
    kernel and only the first execution of a notebook meets a cold cache.
    """
    if item.path.suffix == ".ipynb":
        return item.path.name
    callspec = getattr(item, "callspec", None)
    name = callspec.params.get("name") if callspec else None
    if isinstance(name, str) and name.endswith(".ipynb"):
        return name
    mark = item.get_closest_marker("notebook")
    return mark.args[0] if mark else None


def pytest_sessionstart(session):
    """Empty the default folder of browser screenshots once per run (in the controller only:
    pytest-xdist workers would empty each other's)."""
    if hasattr(session.config, "workerinput") or os.environ.get("SSLVIZ_ARTIFACTS"):
        return
    shutil.rmtree(ARTIFACTS_DEFAULT, ignore_errors=True)


@pytest.fixture(scope="session")
def _figures_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("figures")


@pytest.fixture(autouse=True)
def _isolate_figures(monkeypatch, _figures_dir):
    """Send default figure exports to a temporary folder and close figures after each test."""
    monkeypatch.setenv("SSLVIZ_FIGURES", str(_figures_dir))
    yield
    plt.close("all")


class _TimePerPart:
    """Adds up the time of each part of the suite (setup, call and teardown of every test).

    Registered as a plugin object, so that it also sees the notebooks collected outside tests/.
    """

    def __init__(self):
        self.seconds = {}
        self.browser = {}

    @staticmethod
    def part(nodeid):
        if nodeid.startswith("tests/browser/"):
            return "browser tests"
        if nodeid.split("::")[0].endswith(".ipynb"):
            return "notebooks (nbval)"
        return "unit tests"

    def pytest_runtest_logreport(self, report):
        part = self.part(report.nodeid)
        self.seconds[part] = self.seconds.get(part, 0.0) + report.duration
        for key, value in report.user_properties:  # the browser tests' own timings
            if key.startswith("browser: "):
                self.browser[key.removeprefix("browser: ")] = value

    def pytest_terminal_summary(self, terminalreporter, config):
        if self.seconds:
            workers = config.getoption("numprocesses", None) or 0
            summed = f" (summed over {workers} workers)" if workers else ""
            terminalreporter.section("time per part" + summed)
            for part, seconds in sorted(self.seconds.items()):
                terminalreporter.write_line(f"{part}: {seconds:.0f} s")
        if self.browser:
            terminalreporter.section("browser tests")
            for name, seconds in self.browser.items():
                terminalreporter.write_line(f"{name}: {seconds:.1f} s")
            folder = os.environ.get("SSLVIZ_ARTIFACTS") or ARTIFACTS_DEFAULT
            terminalreporter.write_line(f"screenshots of what a student sees: {folder}")


def pytest_configure(config):
    config.pluginmanager.register(_TimePerPart(), "sslviz-time-per-part")

