"""Slide metadata for the lecture notebooks (jupyterlab-slideshow / ``jupyter nbconvert --to
slides``).

Every notebook is a slideshow as well as a document. The slide structure follows the notebook's
headings, so an author never sets it by hand: :func:`slide_types` derives it and
``python -m sslviz slides notebooks/`` writes it into the cells' ``metadata.slideshow``.

The rules, in order:

* the first cell (``# Lecture N — title``) opens the title slide;
* a markdown cell that starts with a ``## `` heading opens a new slide (the idea, the math, the
  demo on real data, take-aways, exercise);
* a code cell that shows an explorer (a live figure; it is tagged ``nbval-ignore-output`` and
  calls ``*_explorer(``) gets a vertical sub-slide of its own, so the figure fits on screen;
* every other cell continues the slide above it (``-``);
* a ``## Going further`` section (its heading and every cell up to the next ``## `` heading that
  is not one) is ``skip``: the slideshow follows the lecture's core path, the notebook keeps
  the deeper material;
* a cell tagged ``solution`` (a worked solution of an exercise) is ``skip``, and its input and
  output are folded in JupyterLab (``metadata.jupyter.source_hidden`` / ``outputs_hidden``) until a
  reader opens it. The student version (``python -m sslviz student``) leaves these cells out;
* the hosted-start cell (:mod:`sslviz.hosted`, tagged ``hosted-setup``) is ``skip``; the same
  command puts it before the first code cell of every lecture and keeps it up to date.

Notebook metadata ``rise`` (the settings of RISE, which the lectures no longer use: its app
rendered no widget) is removed.

The same command drops the widget state that ``jupyter nbconvert --execute`` stores in a
notebook's metadata (every explorer's last PNG, hundreds of kilobytes per notebook, rewritten on
every run): the explorers are live, so a stored copy only bloats the repository and its diffs.
"""

from __future__ import annotations

import re
from pathlib import Path

from sslviz.hosted import SETUP_TAG, add_setup_cell, setup_cell_problems
from sslviz.notebook_files import read_notebook, write_notebook

__all__ = [
    "apply_slides",
    "is_explorer_cell",
    "is_solution_cell",
    "slide_problems",
    "slide_types",
    "update_notebooks",
]

_EXPLORER_CALL = re.compile(r"\b\w+_explorer\(")
SOLUTION_TAG = "solution"
_FOLDED = {"source_hidden": True, "outputs_hidden": True}


def is_solution_cell(cell) -> bool:
    """A cell tagged ``solution``: a worked solution, hidden until asked for."""
    return SOLUTION_TAG in cell.get("metadata", {}).get("tags", [])


def is_explorer_cell(cell) -> bool:
    """A code cell that displays an explorer: tagged ``nbval-ignore-output``, calls one."""
    tags = cell.get("metadata", {}).get("tags", [])
    return (cell.cell_type == "code" and "nbval-ignore-output" in tags
            and bool(_EXPLORER_CALL.search(cell.source)))


def _slide_type(index, cell) -> str:
    if index == 0:
        return "slide"
    if cell.cell_type == "markdown" and cell.source.lstrip().startswith("## "):
        return "slide"
    if is_explorer_cell(cell):
        return "subslide"
    return "-"


def is_going_further_heading(cell) -> bool:
    """A markdown cell that opens a ``## Going further`` section."""
    return (cell.cell_type == "markdown"
            and cell.source.lstrip().lower().startswith("## going further"))


def slide_types(notebook) -> list[str]:
    """The ``slide_type`` of every cell of ``notebook`` under the rules of this module."""
    kinds, skipping = [], False
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "markdown" and cell.source.lstrip().startswith("## "):
            skipping = is_going_further_heading(cell)
        hidden = skipping or is_solution_cell(cell) or SETUP_TAG in cell.metadata.get("tags", [])
        kinds.append("skip" if hidden else _slide_type(index, cell))
    return kinds


def apply_slides(notebook) -> bool:
    """Write slide types into ``notebook``, fold solutions, drop widget state and RISE settings.

    Returns whether anything changed.
    """
    changed = notebook.metadata.pop("widgets", None) is not None
    changed = add_setup_cell(notebook) or changed
    for cell, kind in zip(notebook.cells, slide_types(notebook), strict=True):
        if cell.metadata.get("slideshow", {}).get("slide_type") != kind:
            cell.metadata["slideshow"] = {"slide_type": kind}
            changed = True
        if is_solution_cell(cell) and cell.metadata.get("jupyter") != _FOLDED:
            cell.metadata["jupyter"] = dict(_FOLDED)
            changed = True
    changed = notebook.metadata.pop("rise", None) is not None or changed
    return changed


def slide_problems(notebook) -> list[str]:
    """What keeps ``notebook`` from being a lecture slideshow (empty list: nothing).

    Checks that the slide metadata is the one :func:`slide_types` derives, and that the deck has
    a title slide, at least one slide of math (``$$``), at least one live demo (an explorer) and
    a ``## Take-aways`` slide.
    """
    problems = []
    stored = [cell.metadata.get("slideshow", {}).get("slide_type") for cell in notebook.cells]
    folded = all(c.metadata.get("jupyter") == _FOLDED
                 for c in notebook.cells if is_solution_cell(c))
    if stored != slide_types(notebook) or "rise" in notebook.metadata or not folded:
        problems.append("slide metadata is missing or stale: run `python -m sslviz slides "
                        "notebooks/` and commit the notebooks")
    problems += setup_cell_problems(notebook)
    if "widgets" in notebook.metadata:
        problems.append("stored widget state: run `python -m sslviz slides notebooks/` to drop it")
    cells = notebook.cells
    if not cells or not cells[0].source.lstrip().startswith("# "):
        problems.append("the first cell must be the title slide, a markdown `# Lecture ...`")
    if not any(c.cell_type == "markdown" and "$$" in c.source for c in cells):
        problems.append("no slide with displayed math ($$ ... $$)")
    if not any(is_explorer_cell(c) for c in cells):
        problems.append("no live demo: no cell shows an explorer")
    if not any(c.cell_type == "markdown" and c.source.lstrip().lower().startswith("## take-away")
               for c in cells):
        problems.append("no `## Take-aways` slide")
    return problems


def update_notebooks(paths) -> list[Path]:
    """Apply :func:`apply_slides` to each notebook file; return the files that changed."""
    changed = []
    for path in paths:
        path = Path(path)
        notebook = read_notebook(path)
        if apply_slides(notebook):
            write_notebook(notebook, path)
            changed.append(path)
    return changed
