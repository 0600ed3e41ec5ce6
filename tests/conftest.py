"""Shared test setup.

- matplotlib draws with Agg (no window, no display needed).
- ``real_data_dir``: the folder named by ``SSLVIZ_DATA``; tests that use it are marked ``realdata``
  and skipped when the variable is not set.
- Figures saved without an explicit folder go to a temporary folder (``SSLVIZ_FIGURES``), never into
  the working directory; open figures are closed after each test.
"""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

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


def pytest_collection_modifyitems(config, items):
    """Mark the tests that use ``real_data_dir`` as ``realdata`` (``-m 'not realdata'`` works)."""
    for item in items:
        if "real_data_dir" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.realdata)


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

    @staticmethod
    def part(nodeid):
        if nodeid.startswith("tests/browser/"):
            return "browser tests"
        if ".ipynb" in nodeid:
            return "notebooks (nbval)"
        return "unit tests"

    def pytest_runtest_logreport(self, report):
        part = self.part(report.nodeid)
        self.seconds[part] = self.seconds.get(part, 0.0) + report.duration

    def pytest_terminal_summary(self, terminalreporter):
        if self.seconds:
            terminalreporter.section("time per part")
            for part, seconds in sorted(self.seconds.items()):
                terminalreporter.write_line(f"{part}: {seconds:.0f} s")


def pytest_configure(config):
    config.pluginmanager.register(_TimePerPart(), "sslviz-time-per-part")
