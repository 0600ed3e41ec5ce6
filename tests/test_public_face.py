"""The package's public face: every estimator importable from sslviz.estimators, every algorithm
module declaring what it exports."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest
from sklearn.base import BaseEstimator

import sslviz
import sslviz.estimators

PACKAGE = Path(sslviz.__file__).parent


def _estimator_modules():
    """Top-level modules that define a scikit-learn estimator (found by importing them all)."""
    found = []
    for path in sorted(PACKAGE.glob("*.py")):
        if path.stem in ("__main__", "estimators"):
            continue
        module = importlib.import_module(f"sslviz.{path.stem}")
        if any(inspect.isclass(obj) and issubclass(obj, BaseEstimator)
               and obj.__module__ == module.__name__ for obj in vars(module).values()):
            found.append(module.__name__)
    return found


def test_every_estimator_of_the_package_is_exported_from_one_place():
    defined = {}
    for name in _estimator_modules():
        module = importlib.import_module(name)
        defined |= {cls.__name__: cls for cls in vars(module).values()
                    if inspect.isclass(cls) and issubclass(cls, BaseEstimator)
                    and cls.__module__ == name}
    assert len(defined) >= 17
    assert sorted(defined) == sorted(sslviz.estimators.__all__)
    for name, cls in defined.items():
        assert getattr(sslviz.estimators, name) is cls


@pytest.mark.parametrize("name", _estimator_modules())
def test_every_estimator_module_declares_its_exports(name):
    module = importlib.import_module(name)
    assert hasattr(module, "__all__"), f"{name} has no __all__"
    missing = [item for item in module.__all__ if not hasattr(module, item)]
    assert not missing, f"{name}.__all__ names what it does not define: {missing}"
    estimators = [cls.__name__ for cls in vars(module).values() if inspect.isclass(cls)
                  and issubclass(cls, BaseEstimator) and cls.__module__ == name]
    assert set(estimators) <= set(module.__all__)
