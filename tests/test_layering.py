"""The package's layers, enforced: algorithms and experiments never draw; plots never wire widgets.

data -> split -> estimator (trace) -> experiment -> plot -> widget -> notebook: every arrow points
one way. The modules are discovered, so a new lecture's files are checked without a change here.
"""

from __future__ import annotations

import ast
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import sslviz

PACKAGE = Path(sslviz.__file__).parent
# Modules whose job is drawing, widgets, figure files or command lines (may import matplotlib).
FRONT = {"sslviz.export", "sslviz.deck", "sslviz.slides", "sslviz.bench", "sslviz.bench_explorers",
         "sslviz.__main__"}
DRAWING = ("matplotlib", "ipywidgets")


def _modules():
    for info in pkgutil.walk_packages([str(PACKAGE)], prefix="sslviz."):
        yield info.name


def _back_modules():
    """Algorithm, data and experiment modules: everything but plots, widgets and FRONT."""
    return sorted(name for name in _modules()
                  if not name.startswith(("sslviz.plots", "sslviz.widgets")) and name not in FRONT)


def test_the_back_layers_are_found():
    back = _back_modules()
    for expected in ("sslviz.em", "sslviz.yarowsky", "sslviz.experiments.em",
                     "sslviz.experiments.runner", "sslviz.cache", "sslviz.datasets.loaders"):
        assert expected in back


_PROBE = f"""
import importlib, json, sys
report = {{}}
for name in json.loads(sys.argv[1]):
    importlib.import_module(name)
    report[name] = sorted(m for m in sys.modules if m.split(".")[0] in {DRAWING!r})
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def drawing_imports():
    """For each back module, imported in turn in one fresh interpreter: the drawing modules
    loaded once it was imported (the first module that brings one in is the culprit)."""
    modules = _back_modules()
    result = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(modules)],
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout.splitlines()[-1])


@pytest.mark.parametrize("module", _back_modules())
def test_algorithm_and_experiment_modules_import_no_drawing_library(drawing_imports, module):
    assert drawing_imports[module] == [], (
        f"{module} imports a drawing library; move that code to sslviz.plots or sslviz.widgets")


def _imported_modules(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            yield ("." * node.level) + (node.module or "")
            for alias in node.names:
                yield ("." * node.level) + (node.module or "") + "." + alias.name
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


@pytest.mark.parametrize("path", sorted((PACKAGE / "plots").glob("*.py")), ids=lambda p: p.name)
def test_plots_never_import_widgets(path):
    imported = list(_imported_modules(path))
    assert not [m for m in imported if "widgets" in m.split(".")], imported


def test_every_lecture_has_one_name_across_layers():
    """experiments/X.py, plots/X.py and widgets/X.py exist together (X = the lecture name); a
    lecture too big for one module adds ``X_<part>.py`` beside ``X.py`` in the same layer."""
    names = {layer: {p.stem for p in (PACKAGE / layer).glob("*.py")} - {"__init__", "__main__"}
             for layer in ("experiments", "plots", "widgets")}
    parts = {name for name in names["experiments"]
             if any(name.startswith(f"{other}_") for other in names["experiments"])}
    # the runner, the store, the replication report and the results files serve every lecture
    lectures = names["experiments"] - {"runner", "store", "report", "results_file"} - parts
    assert lectures, "no lecture modules under sslviz/experiments"
    for lecture in lectures:
        assert lecture in names["plots"], f"plots/{lecture}.py is missing"
        assert lecture in names["widgets"], f"widgets/{lecture}.py is missing"
    for layer in ("plots", "widgets"):
        extra = {name for name in names[layer] - lectures
                 if not any(name.startswith(f"{lecture}_") for lecture in lectures)}
        extra -= {"common", "base", "export_control", "ahead", "static"}
        assert not extra, f"{layer}/ holds modules of no lecture: {sorted(extra)}"


# -- estimators never reach data, caches or experiments -----------------------------------------
DATA_AND_ABOVE = ("sslviz.cache", "sslviz.text", "sslviz.datasets", "sslviz.experiments")


def _algorithm_modules():
    """Top-level modules that define a scikit-learn estimator (found, not listed)."""
    found = []
    for path in sorted(PACKAGE.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bases = {getattr(base, "id", getattr(base, "attr", None))
                 for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
                 for base in node.bases}
        if bases & {"BaseEstimator", "ClassifierMixin", "TransformerMixin"}:
            found.append(f"sslviz.{path.stem}")
    return found


_ALONE_PROBE = """
import importlib, json, sys
report = {}
for name in json.loads(sys.argv[1]):
    for loaded in [m for m in sys.modules if m == "sslviz" or m.startswith("sslviz.")]:
        del sys.modules[loaded]  # as if in a fresh interpreter: sslviz is imported anew
    importlib.import_module(name)
    report[name] = sorted(m for m in sys.modules if m == "sslviz" or m.startswith("sslviz."))
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def loaded_alone():
    """For each probed module: the sslviz modules that importing it alone loads.

    One interpreter serves every module (numpy, scipy and scikit-learn are imported once):
    before each import every ``sslviz`` module is dropped from ``sys.modules``, so what the
    import loads is exactly what it loads in a fresh interpreter (only sslviz imports sslviz).
    """
    modules = sorted({*_algorithm_modules(), "sslviz.cache", "sslviz.em"})
    result = subprocess.run([sys.executable, "-c", _ALONE_PROBE, json.dumps(modules)],
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout.splitlines()[-1])


def _data_and_above(loaded):
    """The modules of ``DATA_AND_ABOVE`` among ``loaded``."""
    return [m for m in loaded if m.startswith(DATA_AND_ABOVE)]


def test_the_estimator_modules_are_found():
    found = _algorithm_modules()
    for expected in ("sslviz.em", "sslviz.cem", "sslviz.hybrid", "sslviz.feature_selection",
                     "sslviz.label_propagation", "sslviz.sgt", "sslviz.co_training"):
        assert expected in found


def test_the_shared_probe_reports_what_a_fresh_interpreter_loads(loaded_alone):
    """The purge works: the module probed last (after every other one was imported in the same
    interpreter) loads the same sslviz modules as when it is imported in an interpreter of its
    own, and each module is reported with what it imports itself."""
    last = sorted(loaded_alone)[-1]
    probe = ("import json, sys, importlib; importlib.import_module(sys.argv[1]); print(json.dumps("
             "sorted(m for m in sys.modules if m == 'sslviz' or m.startswith('sslviz.'))))")
    fresh = subprocess.run([sys.executable, "-c", probe, last], capture_output=True, text=True,
                           check=True)
    assert loaded_alone[last] == json.loads(fresh.stdout.splitlines()[-1])
    for name, loaded in loaded_alone.items():
        assert name in loaded and "sslviz" in loaded, name
    assert "sslviz.nb_mixture" in loaded_alone["sslviz.cem"]  # both build on the mixture, and
    assert "sslviz.nb_mixture" in loaded_alone["sslviz.em"]  # em is probed after cem


@pytest.mark.parametrize("module", _algorithm_modules())
def test_estimators_import_no_data_cache_or_experiment_module(loaded_alone, module):
    assert _data_and_above(loaded_alone[module]) == [], (
        f"{module} reaches data, the cache or the experiments: take words, arrays and settings "
        "as arguments and resolve names (stop lists, corpora) in sslviz.experiments")


def test_the_cache_is_on_the_ground_floor(loaded_alone):
    # no dataset loader comes with it
    assert _data_and_above(loaded_alone["sslviz.cache"]) == ["sslviz.cache"]


def test_lecture_04_does_not_import_lecture_07(loaded_alone):
    assert "sslviz.cem" not in loaded_alone["sslviz.em"]


def test_the_lecture_registry_the_notebooks_and_the_module_trios_agree():
    from sslviz.lectures import LECTURES

    notebooks = sorted(p.stem for p in (PACKAGE.parent / "notebooks").glob("*.ipynb"))
    assert [lecture.stem for lecture in LECTURES] == notebooks
    for lecture in LECTURES:
        for layer in ("experiments", "plots", "widgets"):
            assert (PACKAGE / layer / f"{lecture.module}.py").is_file(), (lecture.stem, layer)


def test_every_explorer_is_named_after_its_lecture():
    """An explorer copied from another lecture would export files under that lecture's name:
    every name begins with the module's ``LECTURE`` (``explorer_prefix(__name__)``, the
    registry's stem), never with a stem typed out."""
    import importlib

    from sslviz.lectures import explorer_prefix

    for path in sorted((PACKAGE / "widgets").glob("*.py")):
        module = f"sslviz.widgets.{path.stem}"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Explorer":
                name = node.args[0]
                first = name.values[0] if isinstance(name, ast.JoinedStr) else name
                assert isinstance(first, ast.FormattedValue), (module, ast.unparse(name))
                assert ast.unparse(first.value) == "LECTURE", (module, ast.unparse(name))
                assert importlib.import_module(module).LECTURE == explorer_prefix(module)


def test_the_store_and_the_benchmark_import_no_circle():
    from sslviz.code_digest import closure

    assert "sslviz.bench_notebooks" in closure("sslviz.experiments.store")  # it runs lectures
    assert "sslviz.experiments.store" not in closure("sslviz.bench_notebooks")  # even lazily


def test_the_command_line_does_not_reach_up_into_the_data_layer():
    """``cli`` reports the data errors in one line: their base class lives on the ground floor
    (``sslviz.errors``), so neither cli nor anything it imports -- even inside a function --
    is a module of ``sslviz.datasets``; and catching them loads none."""
    from sslviz.code_digest import closure, module_file

    direct = {"sslviz" + name if name.startswith(".") else name
              for name in _imported_modules(PACKAGE / "cli.py")}
    direct = {name for name in direct if module_file(name) is not None}
    reached = direct.union(*(closure(name) for name in direct))
    assert "sslviz.errors" in reached
    assert not [name for name in reached if name.startswith("sslviz.datasets")], sorted(reached)
    probe = ("import sys, sslviz.cli; errors = sslviz.cli.user_errors(); "
             "print(sorted(m for m in sys.modules if m.startswith('sslviz.datasets')), "
             "[e.__name__ for e in errors if e.__name__ == 'DataError'])")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "[] ['DataError']"


def test_the_data_errors_are_one_family_importable_where_they_were():
    from sslviz import datasets, errors
    from sslviz.datasets import verify

    for name in ("DatasetMissingError", "ChecksumMismatchError"):
        error = getattr(errors, name)
        assert getattr(datasets, name) is error is getattr(verify, name)
        assert issubclass(error, errors.DataError)
    assert issubclass(errors.DatasetMissingError, FileNotFoundError)  # as before the move
    assert issubclass(errors.ChecksumMismatchError, ValueError)
    assert datasets.DataError is errors.DataError
