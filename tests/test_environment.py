"""pyproject.toml and environment.yml must name the same packages.

Version specifiers, channels and the spelling of names (``-``/``_``/``.``, case) are ignored;
the conda section and its ``pip:`` subsection both count; ``python``, ``pip`` and the editable
install of the project itself (``-e .``) are left out. Names that differ between conda-forge and
PyPI go through :data:`CONDA_TO_PYPI`.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# conda-forge name -> PyPI name, where they differ (scikit-learn, ruff, nbval ... are the same).
CONDA_TO_PYPI = {
    "matplotlib-base": "matplotlib",
    "pytorch": "torch",
}
NOT_PACKAGES = {"python", "pip"}


def normalise(name: str) -> str:
    """PEP 503 normal form: lower case, runs of ``-``, ``_``, ``.`` become one ``-``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(spec: str) -> str | None:
    """The package name in a pip or conda spec (``numpy>=1.23``, ``conda-forge::tqdm 4.*``).

    Returns None for things that are not named packages (``-e .``, ``-r file``, URLs, paths).
    """
    spec = spec.split("#", 1)[0].strip()
    if not spec or spec.startswith(("-", ".", "/")) or "://" in spec:
        return None
    spec = spec.split("::", 1)[-1]  # channel prefix
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", spec)
    return normalise(match.group(0)) if match else None


def parse_environment_yml(text: str) -> tuple[list[str], list[str]]:
    """Return (conda specs, pip specs) from an environment.yml.

    A deliberately tiny reader for the one shape this file has (a ``dependencies:`` list that may
    hold one ``pip:`` list), so that the test needs no YAML library.
    """
    conda, pip = [], []
    in_deps = False
    deps_indent = pip_indent = None
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        stripped = line.strip()
        if indent == 0:
            in_deps = stripped == "dependencies:"
            pip_indent = None
            continue
        if not in_deps or not stripped.startswith("- "):
            continue
        item = stripped[2:].strip()
        if deps_indent is None:
            deps_indent = indent
        if pip_indent is not None and indent > pip_indent:
            pip.append(item)
            continue
        pip_indent = None
        if item == "pip:":
            pip_indent = indent
        elif indent == deps_indent:
            conda.append(item)
    return conda, pip


def conda_names(text: str) -> set[str]:
    conda_specs, pip_specs = parse_environment_yml(text)
    names = set()
    for spec in conda_specs:
        name = requirement_name(spec)
        if name:
            names.add(normalise(CONDA_TO_PYPI.get(name, name)))
    for spec in pip_specs:
        name = requirement_name(spec)
        if name:
            names.add(name)
    return names - NOT_PACKAGES


def pyproject_names(data: dict) -> set[str]:
    project = data["project"]
    specs = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        specs.extend(extra)
    names = {requirement_name(spec) for spec in specs}
    return {name for name in names if name} - NOT_PACKAGES - {normalise(project["name"])}


def load_pyproject() -> dict:
    if sys.version_info < (3, 11):
        pytest.skip("reading pyproject.toml needs tomllib (Python 3.11+)")
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_environment_yml_and_pyproject_list_the_same_packages():
    from_pyproject = pyproject_names(load_pyproject())
    from_conda = conda_names((ROOT / "environment.yml").read_text(encoding="utf-8"))
    only_pyproject = sorted(from_pyproject - from_conda)
    only_conda = sorted(from_conda - from_pyproject)
    assert not only_pyproject and not only_conda, (
        "pyproject.toml and environment.yml disagree. "
        f"Only in pyproject.toml: {only_pyproject or 'none'}. "
        f"Only in environment.yml: {only_conda or 'none'}."
    )


def test_the_core_stack_is_listed():
    names = pyproject_names(load_pyproject())
    assert {"numpy", "scipy", "scikit-learn", "matplotlib", "ipywidgets", "jupyterlab"} <= names


def test_environment_yml_uses_conda_forge_and_the_project_name():
    text = (ROOT / "environment.yml").read_text(encoding="utf-8")
    assert re.search(r"^name:\s*sslviz\s*$", text, re.M)
    assert re.search(r"^channels:\s*\n\s+-\s*conda-forge\s*$", text, re.M)


SAMPLE_YML = """\
name: demo
channels:
  - conda-forge
dependencies:
  - python>=3.10
  - pip
  - Scikit_Learn >=1.2   # a comment
  - conda-forge::matplotlib-base=3.8
  - pip:
      - -e .
      - nbval>=0.10
  - tqdm
"""


def test_the_tiny_yaml_reader():
    conda, pip = parse_environment_yml(SAMPLE_YML)
    assert conda == [
        "python>=3.10",
        "pip",
        "Scikit_Learn >=1.2",
        "conda-forge::matplotlib-base=3.8",
        "tqdm",
    ]
    assert pip == ["-e .", "nbval>=0.10"]
    assert conda_names(SAMPLE_YML) == {"scikit-learn", "matplotlib", "nbval", "tqdm"}


def test_the_tiny_yaml_reader_agrees_with_pyyaml_on_the_real_file():
    yaml = pytest.importorskip("yaml")
    text = (ROOT / "environment.yml").read_text(encoding="utf-8")
    deps = yaml.safe_load(text)["dependencies"]
    conda = [str(d) for d in deps if not isinstance(d, dict)]
    pip = [p for d in deps if isinstance(d, dict) for p in d.get("pip", [])]
    assert parse_environment_yml(text) == (conda, pip)


def test_a_mismatch_names_the_packages():
    data = {
        "project": {
            "name": "x",
            "dependencies": ["numpy", "tqdm"],
            "optional-dependencies": {"test": ["pytest"]},
        }
    }
    yml = "dependencies:\n  - numpy\n  - pip:\n      - pytest\n  - ruff\n"
    assert pyproject_names(data) - conda_names(yml) == {"tqdm"}
    assert conda_names(yml) - pyproject_names(data) == {"ruff"}
