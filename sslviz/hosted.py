"""The first code cell of every lecture: one-click start on a hosted service.

On Binder or Colab a student opens a notebook in a kernel that may not have sslviz. The cell
:data:`SETUP_CELL` then installs the package with its classroom extra and fetches the corpora the
lectures use (each file checked against its sha256 by :mod:`sslviz.datasets`). Everywhere else it
does nothing, and in a kernel without sslviz that is not hosted it says how to start
(``python3 run.py lab``). The cell cannot import sslviz to decide, so it is self-contained; these
functions keep it identical in every lecture (``tests/test_hosted.py``).

Environment variables the cell reads (besides the services' own markers): ``SSLVIZ_INSTALL``, a
pip requirement to install instead of the published repository (a local clone, a fork), and the
data options of :mod:`sslviz.datasets` (``SSLVIZ_DATA``, ``SSLVIZ_MIRROR``).
"""

from __future__ import annotations

__all__ = ["REPOSITORY", "SETUP_CELL", "SETUP_TAG", "add_setup_cell", "setup_cell_problems"]

REPOSITORY = "https://github.com/sslviz/sslviz"  # the launch badges and the install use it
SETUP_TAG = "hosted-setup"

SETUP_CELL = f'''\
# Hosted start (Binder, Colab): when sslviz is missing, install it and fetch the corpora (checked
# against their sha256). On a machine set up with `python3 run.py lab` this cell does nothing.
import importlib
import importlib.util
import os
import subprocess
import sys

HOSTED = ("google.colab" in sys.modules
          or any(os.environ.get(v) for v in ("COLAB_RELEASE_TAG", "BINDER_LAUNCH_HOST",
                                             "BINDER_REQUEST")))
if importlib.util.find_spec("sslviz") is None:
    if not HOSTED:
        raise ModuleNotFoundError("sslviz is not installed in this kernel: from the sslviz "
                                  "folder run `python3 run.py lab` (README, 'The two commands')")
    SOURCE = os.environ.get("SSLVIZ_INSTALL", "sslviz[lab] @ git+{REPOSITORY}")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", SOURCE], check=True)
    FETCH = subprocess.run([sys.executable, "-m", "sslviz.datasets", "fetch", "--lectures"])
    if FETCH.returncode:  # e.g. Golub has no public URL: the lecture that needs it says so
        print("Some corpora could not be fetched (see above); the lectures that need them say so.")
    importlib.invalidate_caches()'''


def _is_setup(cell) -> bool:
    return SETUP_TAG in cell.get("metadata", {}).get("tags", [])


def add_setup_cell(notebook) -> bool:
    """Put :data:`SETUP_CELL` right before the first code cell (once); return whether it changed.

    An existing setup cell with other text is replaced by the current one.
    """
    from nbformat.v4 import new_code_cell

    for cell in notebook.cells:
        if _is_setup(cell):
            if cell.source == SETUP_CELL:
                return False
            cell.source = SETUP_CELL
            return True
    first_code = next((i for i, c in enumerate(notebook.cells) if c.cell_type == "code"),
                      len(notebook.cells))
    notebook.cells.insert(first_code, new_code_cell(SETUP_CELL, metadata={"tags": [SETUP_TAG]}))
    return True


def setup_cell_problems(notebook) -> list[str]:
    """What is wrong with ``notebook``'s setup cell (empty list: nothing)."""
    code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    if not code or not _is_setup(code[0]):
        return [f"the first code cell is not the hosted-start cell (tag {SETUP_TAG!r}): run "
                "`python -m sslviz slides notebooks/`"]
    source = code[0]["source"]
    source = "".join(source) if isinstance(source, list) else source
    if source != SETUP_CELL:
        return ["the hosted-start cell is out of date: run `python -m sslviz slides notebooks/`"]
    return []
