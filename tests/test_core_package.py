"""The core package (``pip install sslviz``) works without the classroom stack.

Algorithms, datasets, plots and experiments import and fit with JupyterLab, widgets, kernels and
notebook tools absent; the explorers and the notebook commands say in one line which extra to
install. The absence is simulated in a fresh interpreter by an import hook that refuses the
classroom modules, so the test needs no second environment (a real one was tried by hand: see the
README, "Installing").
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import PATIENCE_S

tomllib = pytest.importorskip("tomllib")  # Python 3.11+


ROOT = Path(__file__).resolve().parents[1]
CLASSROOM = ("ipywidgets", "jupyterlab", "jupyterlab_widgets", "nbclient", "nbformat", "IPython",
             "ipykernel", "jupyterlab_slideshow", "jupyter_client", "nbval", "pytest")
NEEDS_CLASSROOM = {"sslviz.widgets", "sslviz.deck", "sslviz.slides", "sslviz.bench_explorers",
                   "sslviz.bench_notebooks", "sslviz.solutions", "sslviz.notebook_files"}

BLOCKER = textwrap.dedent(f"""
    import sys
    class RefuseClassroom:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in {CLASSROOM!r}:
                raise ImportError(f"No module named {{name!r}} (refused by the test)")
    sys.meta_path.insert(0, RefuseClassroom())
""")


def run_without_classroom(code):
    return subprocess.run([sys.executable, "-c", BLOCKER + textwrap.dedent(code)],
                          capture_output=True, text=True, cwd=ROOT, timeout=2 * PATIENCE_S)


def test_core_dependencies_leave_the_classroom_to_extras():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = " ".join(project["dependencies"]).lower()
    for name in ("jupyterlab", "ipywidgets", "nbclient", "nbformat", "ipykernel", "slideshow",
                 "pytest"):
        assert name not in core, f"{name} is a core dependency; move it to an extra"
    assert "sslviz[lab,site]" in project["optional-dependencies"]["test"]


def test_every_module_but_the_classroom_ones_imports_without_it():
    result = run_without_classroom(f"""
        import importlib, pkgutil, sslviz
        for info in pkgutil.walk_packages(sslviz.__path__, "sslviz."):
            if not any(info.name == m or info.name.startswith(m + ".")
                       for m in {sorted(NEEDS_CLASSROOM)!r}):
                importlib.import_module(info.name)
        print("imported", len(sys.modules))
    """)
    assert result.returncode == 0, result.stderr[-2000:]


def test_an_algorithm_fits_and_a_figure_draws_without_the_classroom():
    result = run_without_classroom("""
        import numpy as np
        from matplotlib.figure import Figure
        from sslviz.em import SemiSupervisedNB
        X = np.array([[3, 0], [0, 3], [2, 1], [1, 2]])
        model = SemiSupervisedNB(random_state=0).fit(X, np.array([0, 1, -1, -1]))
        print(model.predict(X).tolist())
        Figure().subplots().plot([0, 1])
    """)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "[0, 1, 0, 1]"


def test_the_explorers_name_the_extra_to_install():
    result = run_without_classroom("import sslviz.widgets")
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        "ImportError: sslviz.widgets (the explorers) needs the classroom extras: "
        "pip install 'sslviz[lab]' (or run `python3 run.py lab`)")


@pytest.mark.parametrize("command", ["execute notebooks/01_what_is_ssl.ipynb", "slides --check"])
def test_notebook_commands_say_which_extra_is_missing(command):
    result = run_without_classroom(f"""
        from sslviz.__main__ import main
        sys.exit(main({command.split()!r}))
    """)
    assert result.returncode == 2
    name = command.split()[0]
    assert result.stderr.strip() == (
        f"error: `python -m sslviz {name}` runs notebooks and needs the classroom extras "
        "(nbformat, nbclient, ipykernel, ipywidgets not installed): pip install 'sslviz[lab]'")
