"""Shared test setup.

- matplotlib draws with Agg (no window, no display needed).
- ``real_data_dir``: the folder named by ``SSLVIZ_DATA``; tests that use it are marked ``realdata``
  and skipped when the variable is not set.
- Figures saved without an explicit folder go to a temporary folder (``SSLVIZ_FIGURES``), never into
  the working directory; open figures are closed after each test.
- Every test gets a private, empty result cache (``SSLVIZ_CACHE``; the fixture
  ``result_cache`` is its folder), so that no test reads what another computed or writes into the
  user's cache; it does not read the project's stored results either (``SSLVIZ_STORE`` is
  empty). A test marked ``shared_cache`` keeps the cache of the environment instead; the
  tests that read the real corpora (``realdata``: their vectorized corpora are large) and the
  browser tests (JupyterLab runs the lectures on the warm cache) are marked so automatically.
  Notebooks run by nbval are not tests of this folder: they always use the warm cache.
  A module-scoped fixture that computes through the cache asks for ``module_result_cache``; the
  tests that use it share that cache.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

SHARED_CACHE = "shared_cache"
SHARED_CACHE_HELP = (f"{SHARED_CACHE}: the test uses the result cache of the environment "
                     "(SSLVIZ_CACHE or ~/.cache/sslviz) instead of a private empty one")
#: Screenshots of the browser tests, unless ``SSLVIZ_ARTIFACTS`` names another folder.
ARTIFACTS_DEFAULT = Path(__file__).resolve().parents[1] / "test-artifacts" / "browser"
BROWSER_TESTS = Path(__file__).resolve().parent / "browser"
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
    and put the tests of one notebook in one ``xdist_group`` (see :func:`notebook_group`).
    The ``realdata`` and browser tests keep the shared result cache (``shared_cache``)."""
    for item in items:
        if "real_data_dir" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.realdata)
            item.add_marker(SHARED_CACHE)
        if BROWSER_TESTS in item.path.parents:
            item.add_marker(SHARED_CACHE)
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


@pytest.fixture(autouse=True)
def result_cache(request, tmp_path_factory, monkeypatch):
    """A private, empty result cache for this test (its folder), unless marked ``shared_cache``
    (then None) or using a fixture that asks for ``module_result_cache`` (then that one). Not
    ``tmp_path``, so that the test's own temporary folder stays as it made it."""
    if request.node.get_closest_marker(SHARED_CACHE):
        return None
    if "module_result_cache" in request.fixturenames:  # the cache its module's fixtures filled
        return request.getfixturevalue("module_result_cache")
    folder = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("SSLVIZ_CACHE", str(folder))
    monkeypatch.setenv("SSLVIZ_STORE", "")  # nor the project's stored results
    return folder


@pytest.fixture(scope="module")
def module_result_cache(empty_cache):
    """A private result cache for a module-scoped fixture; the tests that use that fixture read
    and write this cache too (see :func:`result_cache`)."""
    with empty_cache("module-cache") as folder:
        yield folder


@pytest.fixture(scope="session")
def empty_cache(tmp_path_factory):
    """``with empty_cache(name) as folder:`` a new, empty private result cache (and no stored
    results) inside the block: for a module-scoped fixture that computes into a cache of its own,
    which tests then copy into theirs."""

    @contextlib.contextmanager
    def block(name="cache"):
        with pytest.MonkeyPatch.context() as patch:
            folder = tmp_path_factory.mktemp(name)
            patch.setenv("SSLVIZ_CACHE", str(folder))
            patch.setenv("SSLVIZ_STORE", "")
            yield folder

    return block


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


class _StaleStore:
    """Names the stored kinds the run's lectures had to compute (a stale store): a speed
    problem, so a line in the summary, not a failure. Looks at the user's cache (where nbval
    and the browser tests write) for entries written since the run started."""

    def __init__(self):
        import time

        self.start = time.time()

    def pytest_terminal_summary(self, terminalreporter, config):
        if hasattr(config, "workerinput"):
            return
        from sslviz.lectures import STORED_KINDS
        from sslviz.paths import cache_dir

        kinds = sorted({kind for kinds in STORED_KINDS.values() for kind in kinds})
        fresh = {kind: sum(p.stat().st_mtime >= self.start
                           for p in (cache_dir() / kind).glob("*.npz")) for kind in kinds}
        fresh = {kind: n for kind, n in fresh.items() if n}
        if fresh:
            terminalreporter.section("stored results")
            terminalreporter.write_line(
                "the lectures computed results the project's store should hold ("
                + ", ".join(f"{kind}: {n}" for kind, n in fresh.items())
                + "): rebuild it with python -m sslviz.experiments store")


def pytest_configure(config):
    config.addinivalue_line("markers", SHARED_CACHE_HELP)
    config.pluginmanager.register(_TimePerPart(), "sslviz-time-per-part")
    config.pluginmanager.register(_StaleStore(), "sslviz-stale-store")

