"""The test suite's own rules, checked on its source: one place for scikit-learn's estimator
checks, one place that isolates the result cache, no test module importing another, and no
functional timeout written as a number (each is a multiple of ``helpers.PATIENCE_S``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
SOURCES = sorted(path for path in TESTS.rglob("*.py") if path.name != "test_hygiene.py")

#: Tests whose subject is where the cache lives: they point SSLVIZ_CACHE somewhere on purpose.
CACHE_LOCATION_TESTS = {
    "conftest.py": "gives every test its private cache",
    "test_cache.py": "a read-only folder and a file as the cache root",
    "test_datasets_registry.py": "how cache_dir() reads the variable",
    "test_runner_cluster.py": "a cluster run and a local run fill two caches",
    "test_text.py": "an unwritable cache still returns the corpus",
    "test_bench_notebooks.py": "the benchmark gives each notebook run a private cache of its own",
}
#: Files rewritten on another branch (issue 21); remove the entry once the merge removed it.
# setenv("SSLVIZ_CACHE", ...), {"SSLVIZ_CACHE": ...} or environ["SSLVIZ_CACHE"] = ...
SETS_CACHE = re.compile(r"""["']SSLVIZ_CACHE["']\s*(,|:|\]\s*=)""")
# timeout=120, timeout=30_000, --nbval-cell-timeout=1800: a wait that a busy machine can outlast
LITERAL_TIMEOUT = re.compile(r"timeout=[\d_.]+\b(?![ \t]*\*)")
GRACE_PERIOD = "# a grace period"  # a pause before a harder stop, never a test's failure
IMPORTS_A_TEST_MODULE = re.compile(r"^\s*(from|import) (tests\.)?test_\w+")


def relative(path):
    return str(path.relative_to(TESTS))


def test_the_sources_are_found():
    names = {path.name for path in SOURCES}
    assert {"conftest.py", "test_estimator_checks.py", "synthetic.py"} <= names


@pytest.mark.parametrize("path", SOURCES, ids=relative)
def test_estimator_checks_run_in_one_module(path):
    if path.name == "test_estimator_checks.py":
        return
    text = path.read_text(encoding="utf-8")
    for name in ("parametrize_with_checks", "check_estimator("):
        assert name not in text, f"{relative(path)}: add the estimator to test_estimator_checks.py"


@pytest.mark.parametrize("path", SOURCES, ids=relative)
def test_no_test_file_sets_the_cache_itself(path):
    if path.name in CACHE_LOCATION_TESTS:
        return
    found = SETS_CACHE.search(path.read_text(encoding="utf-8"))
    assert found is None, (f"{relative(path)} sets SSLVIZ_CACHE: every test already has a "
                           "private cache (tests/conftest.py, fixture result_cache)")


@pytest.mark.parametrize("path", SOURCES, ids=relative)
def test_no_test_module_imports_another(path):
    imports = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()
               if IMPORTS_A_TEST_MODULE.match(line)]
    assert not imports, (f"{relative(path)}: {imports}; move what is shared to "
                         "tests/synthetic.py or tests/fake_data.py")


@pytest.mark.parametrize("path", SOURCES, ids=relative)
def test_every_functional_timeout_is_a_multiple_of_the_patience(path):
    found = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()
             if LITERAL_TIMEOUT.search(line) and GRACE_PERIOD not in line]
    assert not found, (f"{relative(path)}: {found}; use helpers.PATIENCE_S (far above the "
                       "work's idle time, so a busy machine slows the suite and never fails it)")


def test_the_rules_catch_what_they_forbid():
    assert SETS_CACHE.search('monkeypatch.setenv("SSLVIZ_CACHE", str(tmp_path))')
    assert SETS_CACHE.search('env = {"SSLVIZ_CACHE": "x"}')
    assert SETS_CACHE.search('os.environ["SSLVIZ_CACHE"] = "x"')
    assert not SETS_CACHE.search("a private result cache (SSLVIZ_CACHE) for each test")
    assert IMPORTS_A_TEST_MODULE.match("    from test_em_widgets import make_corpus")
    assert not IMPORTS_A_TEST_MODULE.match("from synthetic import topic_corpus")
    assert LITERAL_TIMEOUT.search("page.wait_for(timeout=30_000)")
    assert LITERAL_TIMEOUT.search('"--nbval-cell-timeout=1800"')
    assert not LITERAL_TIMEOUT.search("wait_for(timeout=PATIENCE_S * 1000)")
    assert not LITERAL_TIMEOUT.search("run(command, timeout=2 * PATIENCE_S)")
