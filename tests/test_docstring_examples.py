"""The ``Examples`` sections of the estimator modules' docstrings run and print what they show."""

import doctest
import importlib
import importlib.util
import pkgutil

import pytest

import sslviz


def modules_with_examples():
    """Top-level ``sslviz`` modules whose source holds a doctest (widgets are not estimators)."""
    names = []
    for info in pkgutil.iter_modules(sslviz.__path__):
        if info.ispkg or info.name.startswith("_") or info.name == "__main__":
            continue
        spec = importlib.util.find_spec(f"sslviz.{info.name}")
        with open(spec.origin, encoding="utf-8") as source:
            if "    >>> " in source.read():
                names.append(f"sslviz.{info.name}")
    return names


def test_the_estimator_modules_have_examples():
    found = set(modules_with_examples())
    assert {"sslviz.em", "sslviz.label_propagation", "sslviz.sgt", "sslviz.co_training"} <= found


@pytest.mark.parametrize("name", modules_with_examples())
def test_docstring_examples_pass(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.attempted > 0, f"{name}: no example was run"
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"
