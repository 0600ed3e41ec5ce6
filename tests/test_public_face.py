"""The package's public face: every estimator importable from sslviz.estimators, every algorithm
module declaring what it exports, every estimator documented in numpydoc sections."""

from __future__ import annotations

import importlib
import inspect
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.linear_model import LogisticRegression

import sslviz
import sslviz.estimators

PACKAGE = Path(sslviz.__file__).parent

#: The public methods that must carry Parameters and Returns sections where a class defines them.
DOCUMENTED_METHODS = ("fit", "predict", "predict_proba", "transform", "decision_function")


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


# -- numpydoc sections ---------------------------------------------------------------------------
def _sections(doc):
    """``{section title: its lines}`` of a numpydoc docstring (a title is underlined by dashes)."""
    lines = inspect.cleandoc(doc or "").splitlines()
    sections, current = {}, None
    for i, line in enumerate(lines):
        underline = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if line.strip() and underline and set(underline) == {"-"} and (
                len(underline) >= len(line.strip())):
            current = sections.setdefault(line.strip(), [])
        elif current is not None and not (line.strip() and set(line.strip()) == {"-"}):
            current.append(line)
    return sections


def _documented_names(section_lines):
    """Names a Parameters/Attributes section documents: its unindented ``a, b : type`` lines."""
    return {name.strip() for line in section_lines if line and not line[0].isspace()
            for name in line.split(" :")[0].split(",")}


def test_sections_are_read_as_numpydoc_writes_them():
    doc = """Summary.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.
        alpha, beta : float

        Returns
        -------
        self : object
        """
    sections = _sections(doc)
    assert set(sections) == {"Parameters", "Returns"}
    assert _documented_names(sections["Parameters"]) == {"X", "alpha", "beta"}
    assert _sections("One line, no sections.") == {}
    assert _sections("Parameters\n---\nX : int") == {}  # an underline shorter than its title


def _own_methods():
    """(class name, method) for every documented method a class of sslviz.estimators defines
    itself (inherited ones are checked on the class that defines them)."""
    for name in sslviz.estimators.__all__:
        cls = getattr(sslviz.estimators, name)
        for method in DOCUMENTED_METHODS:
            if method in vars(cls):
                yield name, method


def test_every_estimator_is_checked():
    checked = {name for name, _ in _own_methods()}  # the CEM subclasses inherit theirs
    assert len(checked) >= 16 and "CoTraining" in checked
    assert ("SemiSupervisedNB", "fit") in set(_own_methods())


@pytest.mark.parametrize(("name", "method"), list(_own_methods()))
def test_every_fit_and_predict_has_parameters_and_returns(name, method):
    function = getattr(getattr(sslviz.estimators, name), method)  # defined by the class itself
    sections = _sections(function.__doc__)
    missing = {"Parameters", "Returns"} - set(sections)
    assert not missing, f"{name}.{method} has no {sorted(missing)} section"
    signature = inspect.signature(function)
    arguments = set(signature.parameters) - {"self"}
    undocumented = arguments - _documented_names(sections["Parameters"])
    assert not undocumented, f"{name}.{method}: Parameters does not name {sorted(undocumented)}"


# -- class docstrings ----------------------------------------------------------------------------
def _fitted(name):
    """A small fitted instance of estimator ``name`` (counts, two classes, half unlabeled)."""
    X = np.array([[3, 0, 1, 0], [2, 0, 0, 1], [0, 3, 1, 0], [0, 2, 0, 1], [4, 1, 0, 0],
                  [0, 4, 1, 1], [1, 0, 2, 0], [0, 1, 0, 2]], dtype=float)
    y = np.array([0, 0, 1, 1, -1, -1, -1, -1])
    cls = getattr(sslviz.estimators, name)
    settings = {"FeatureSelector": {"method": "chi2"}, "GaussianCEM": {"reg_covar": 1e-2},
                "KernelExpansionClassifier": {"sigma": 1.0},
                "SelfTraining": {"estimator": LogisticRegression()},
                "CoTraining": {"n_view0_features": 2, "pool_size": 4, "max_iter": 2},
                "GraphPropagation": {"n_neighbors": 3},
                "SpectralGraphTransducer": {"n_neighbors": 3, "n_components": 2}}
    estimator = cls(**settings.get(name, {}))
    if name in ("DecisionList", "TrainedVocabularyNB"):  # supervised: every row labeled
        y = np.array([0, 0, 1, 1, 0, 1, 0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return estimator.fit(X, y)


@pytest.mark.parametrize("name", sslviz.estimators.__all__)
def test_every_estimator_class_documents_its_parameters_attributes_and_paper(name):
    cls = getattr(sslviz.estimators, name)
    sections = _sections(cls.__doc__)
    assert {"Parameters", "Attributes", "References"} <= set(sections), sorted(sections)
    if cls is not sslviz.estimators.CEMClassifier:  # the shared loop is never fitted itself
        fitted = {attribute for attribute in vars(_fitted(name))
                  if attribute.endswith("_") and not attribute.startswith("_")}
        undocumented = fitted - _documented_names(sections["Attributes"])
        assert not undocumented, f"{name}: Attributes does not name {sorted(undocumented)}"
        parameters = set(inspect.signature(cls).parameters)
        undocumented = parameters - _documented_names(sections["Parameters"])
        assert not undocumented, f"{name}: Parameters does not name {sorted(undocumented)}"


@pytest.mark.parametrize("name", ["sslviz.text", "sslviz.tsvm_solver", "sslviz.errors"])
def test_support_modules_declare_their_exports(name):
    """Every public class and function a support module defines is in its ``__all__``, and
    ``__all__`` names only what it defines."""
    module = importlib.import_module(name)
    assert hasattr(module, "__all__"), f"{name} has no __all__"
    missing = [item for item in module.__all__ if not hasattr(module, item)]
    assert not missing, f"{name}.__all__ names what it does not define: {missing}"
    public = {key for key, value in vars(module).items()
              if (inspect.isclass(value) or inspect.isfunction(value))
              and value.__module__ == name and not key.startswith("_")}
    assert public <= set(module.__all__), sorted(public - set(module.__all__))
