"""The package's public face: every estimator importable from sslviz.estimators, every algorithm
module declaring what it exports, every estimator documented in numpydoc sections."""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.linear_model import LogisticRegression

import sslviz
import sslviz.estimators

PACKAGE = Path(sslviz.__file__).parent

#: Methods every estimator family defines somewhere (each public method is checked).
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
    """(class name, method) for every public method a class of sslviz.estimators defines itself
    in its own module (inherited ones are checked on the class that defines them; those
    scikit-learn adds or defines, such as ``set_score_request``, ``score`` and ``get_params``,
    carry scikit-learn's numpydoc docstrings)."""
    for name in sslviz.estimators.__all__:
        cls = getattr(sslviz.estimators, name)
        for method, member in vars(cls).items():
            function = inspect.unwrap(getattr(cls, method))
            if (not method.startswith("_") and not isinstance(member, property)
                    and callable(function) and function.__module__ == cls.__module__):
                yield name, method


def test_every_estimator_is_checked():
    checked = {name for name, _ in _own_methods()}  # the CEM subclasses inherit theirs
    assert len(checked) >= 16 and "CoTraining" in checked
    methods = set(_own_methods())
    assert {("SemiSupervisedNB", "fit"), ("SemiSupervisedNB", "iter_fit"),
            ("DecisionList", "from_counts"), ("SelfTraining", "predict_log_proba"),
            ("FisherKernelNB", "transform")} <= methods
    assert not {method for _, method in methods} & {"n_labeled", "labeled", "score",
                                                    "set_score_request", "get_params"}
    assert {method for _, method in methods} >= set(DOCUMENTED_METHODS)


def refuses_input(function):
    """Whether ``function``'s own body raises or calls a ``check_*`` validator (other than
    ``check_is_fitted``, which refuses a state, not an input)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    return any(isinstance(node, ast.Raise) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        and node.func.id.startswith("check_") and node.func.id != "check_is_fitted")
        for node in ast.walk(tree))


def test_refusals_are_found_in_a_methods_own_body():
    def raises(self, X):
        if X is None:
            raise ValueError("X is None")

    def checks(self, X):
        check_number("X", X, above=0)  # noqa: F821 (never called)

    def only_fitted(self, X):
        check_is_fitted(self)  # noqa: F821 (never called)
        return X

    assert refuses_input(raises) and refuses_input(checks)
    assert not refuses_input(only_fitted)


@pytest.mark.parametrize(("name", "method"), list(_own_methods()))
def test_every_public_method_has_parameters_and_returns(name, method):
    function = getattr(getattr(sslviz.estimators, name), method)  # defined by the class itself
    sections = _sections(function.__doc__)
    arguments = set(inspect.signature(function).parameters) - {"self"}
    result = "Yields" if inspect.isgeneratorfunction(function) else "Returns"
    missing = ({result} | ({"Parameters"} if arguments else set())) - set(sections)
    assert not missing, f"{name}.{method} has no {sorted(missing)} section"
    undocumented = arguments - _documented_names(sections.get("Parameters", []))
    assert not undocumented, f"{name}.{method}: Parameters does not name {sorted(undocumented)}"
    if refuses_input(function):
        assert "Raises" in sections, f"{name}.{method} refuses input but has no Raises section"


def _probes():
    """(class name, method) for every own public method called with ``X`` (and ``y``) alone."""
    for name, method in _own_methods():
        function = getattr(getattr(sslviz.estimators, name), method)
        required = [p.name for p in inspect.signature(function).parameters.values()
                    if p.default is inspect.Parameter.empty and p.kind in (
                        inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        if required in (["self", "X"], ["self", "X", "y"]) and name != "CEMClassifier":
            yield name, method


@pytest.mark.parametrize(("name", "method"), list(_probes()))
def test_a_method_that_refuses_negative_counts_says_so(name, method):
    estimator, X, y = _small_problem(name)
    fitted = _fitted(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if method in ("fit", "iter_fit"):
                result = getattr(estimator, method)(-X, y)
            else:
                result = getattr(fitted, method)(-X)
            if inspect.isgenerator(result):
                next(result)
        except ValueError:
            function = getattr(type(fitted), method)
            raises = _sections(function.__doc__).get("Raises", [])
            assert "ValueError" in _documented_names(raises), (
                f"{name}.{method} refuses negative counts; its Raises section does not say so")


# -- class docstrings ----------------------------------------------------------------------------
def _small_problem(name):
    """An unfitted estimator ``name`` with small data: counts, two classes, half unlabeled."""
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
    if name in ("DecisionList", "TrainedVocabularyNB"):  # supervised: every row labeled
        y = np.array([0, 0, 1, 1, 0, 1, 0, 1])
    return cls(**settings.get(name, {})), X, y


def _fitted(name):
    """A small fitted instance of estimator ``name`` (see :func:`_small_problem`)."""
    estimator, X, y = _small_problem(name)
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


# -- notebooks take their estimators from sslviz.estimators --------------------------------------
FRONT = "sslviz.estimators"
NOTEBOOKS = sorted((PACKAGE.parent / "notebooks").glob("*.ipynb"))


def _python_of(cells):
    """The code cells' source as one Python text (IPython's ``%`` and ``!`` lines blanked)."""
    lines = []
    for cell in cells:
        if cell.cell_type == "code" and not cell.source.lstrip().startswith("%%"):
            lines += ["" if line.lstrip().startswith(("%", "!")) else line
                      for line in cell.source.splitlines()]
    return "\n".join(lines)


def _dotted(node, modules):
    """The module an expression such as ``sslviz.em`` or an alias ``lecture`` names, or None."""
    if isinstance(node, ast.Name):
        return modules.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value, modules)
        return None if base is None else f"{base}.{node.attr}"
    return None


def estimators_taken_past_the_front(source):
    """``module.Name`` for every estimator of sslviz.estimators that ``source`` takes from
    another sslviz module (``from sslviz.em import SemiSupervisedNB``, ``em.SemiSupervisedNB``
    after ``from sslviz import em``), in the order they appear."""
    estimators = set(sslviz.estimators.__all__)
    modules, found = {}, []  # alias in the code -> the sslviz module it names
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "sslviz":
                    modules[alias.asname or "sslviz"] = alias.name if alias.asname else "sslviz"
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "sslviz":
            for alias in node.names:
                if alias.name in estimators and node.module != FRONT:
                    found.append(f"{node.module}.{alias.name}")
                modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in estimators:
            module = _dotted(node.value, modules)
            if module is not None and module != FRONT:
                found.append(f"{module}.{node.attr}")
    return found


def test_estimators_taken_past_the_front_are_found_however_imported():
    assert estimators_taken_past_the_front(
        "from sslviz.em import SemiSupervisedNB, nb_log_prob\n"
        "from sslviz.estimators import HybridNB\n"
        "from sslviz.hybrid import combination_scores\n") == ["sslviz.em.SemiSupervisedNB"]
    assert estimators_taken_past_the_front(
        "import sslviz.cem\nimport sslviz.estimators as est\nfrom sslviz import tsvm as t\n"
        "a = sslviz.cem.GaussianCEM()\nb = est.GaussianCEM()\nc = t.TransductiveSVM()\n"
        "d = sslviz.estimators.Yarowsky()\n") == ["sslviz.cem.GaussianCEM",
                                                  "sslviz.tsvm.TransductiveSVM"]
    assert estimators_taken_past_the_front("from sklearn.svm import LinearSVC\n") == []


def test_a_notebooks_magics_are_not_read_as_python():
    from nbformat.v4 import new_code_cell, new_markdown_cell

    cells = [new_code_cell("%matplotlib inline\nfrom sslviz.yarowsky import Yarowsky"),
             new_markdown_cell("from sslviz.em import SemiSupervisedNB"),
             new_code_cell("%%bash\necho from sslviz.em import SemiSupervisedNB"),
             new_code_cell("  !ls\nx = 1")]
    assert estimators_taken_past_the_front(_python_of(cells)) == ["sslviz.yarowsky.Yarowsky"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_lectures_import_their_estimators_from_sslviz_estimators(path):
    from sslviz.notebook_files import read_notebook

    taken = estimators_taken_past_the_front(_python_of(read_notebook(path).cells))
    assert not taken, (f"{path.name} imports {taken} from their modules; import them from "
                       f"{FRONT} (helper functions keep their module imports)")


def test_every_lecture_is_read():
    assert len(NOTEBOOKS) >= 12


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
