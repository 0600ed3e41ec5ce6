"""The figures of every lecture for a slide deck, made without a browser.

:func:`export_figures` runs each notebook top to bottom in a fresh kernel (``nbclient``, the
library behind ``jupyter nbconvert --execute``), then saves every explorer the notebook created,
each put back to the control values it opened with, through :func:`sslviz.export.save_figure`.
So the files show exactly the figures a student sees on opening the notebook, at slide size,
named ``<notebook>-<figure>__<parameters>.<ext>``. With ``projector=True`` the projector style is
switched on before the first cell runs.

Notebooks run in their own folder (as in JupyterLab), with the corpora and caches the user has
(``SSLVIZ_DATA``, ``SSLVIZ_CACHE``); nothing is written next to them. Cost: the run time of the
notebooks (about a minute each with a cold cache, less with a warm one).
"""

from __future__ import annotations

import errno
import json
from dataclasses import dataclass
from pathlib import Path

from tqdm.auto import tqdm

from sslviz.export import FORMATS, PRESETS
from sslviz.notebook_files import (
    NotebookDataMissing,
    NotebookFailed,
    read_notebook,
    run_cells,
    write_notebook,
)

__all__ = ["NotebookDataMissing", "NotebookFailed", "default_notebooks", "execute_in_place",
           "export_figures", "run_with_final_cell"]

_MARK = "SSLVIZ-EXPORTED:"


@dataclass(frozen=True)
class _Options:
    folder: Path
    preset: str | None
    formats: tuple[str, ...]
    projector: bool


def default_notebooks() -> list[Path]:
    """The lecture notebooks of this checkout (``<repo>/notebooks/*.ipynb``), in order."""
    folder = Path(__file__).resolve().parents[1] / "notebooks"
    if not folder.is_dir():
        raise FileNotFoundError(errno.ENOENT, "no notebooks folder (name the notebooks on the "
                                "command line)", str(folder))
    return sorted(folder.glob("*.ipynb"))


def _export_cell(options: _Options):
    source = (
        "import json as _json\n"
        "from sslviz.widgets import export_explorers as _export_explorers\n"
        f"_paths = _export_explorers(folder={str(options.folder)!r}, preset={options.preset!r}, "
        f"formats={options.formats!r})\n"
        f"print({_MARK!r} + _json.dumps([str(p) for p in _paths]))\n"
    )
    from nbformat.v4 import new_code_cell  # here: importing nbformat takes seconds

    return new_code_cell(source)


def _projector_cell():
    from nbformat.v4 import new_code_cell

    return new_code_cell(
        "from sslviz.export import use_projector_style as _projector\n_projector(True)\n")


def _exported_paths(cell) -> list[Path]:
    for output in cell.get("outputs", []):
        for line in output.get("text", "").splitlines():
            if line.startswith(_MARK):
                return [Path(p) for p in json.loads(line[len(_MARK):])]
    raise NotebookFailed("the export cell printed no list of files")


def run_with_final_cell(path: Path, final_cell, *, first_cells=(), timeout=600, progress=None):
    """Run a notebook's code cells in a fresh kernel, then ``final_cell``; return that cell.

    The kernel starts in the notebook's folder, as in JupyterLab. ``first_cells`` run before the
    notebook's own; ``progress`` (a tqdm bar) advances once per cell.
    """
    notebook = read_notebook(path)
    notebook.cells = [*first_cells, *(c for c in notebook.cells if c.cell_type == "code"),
                      final_cell]
    run_cells(notebook, path.parent, timeout=timeout, progress=progress, name=path.name)
    return notebook.cells[-1]


def _run_notebook(path: Path, options: _Options, progress, timeout) -> list[Path]:
    first = [_projector_cell()] if options.projector else []
    cell = run_with_final_cell(path, _export_cell(options), first_cells=first, timeout=timeout,
                               progress=progress)
    return _exported_paths(cell)


def export_figures(notebooks=None, folder="figures", *, preset="16:9", formats=FORMATS,
                   projector=False, timeout=600, progress=True) -> list[Path]:
    """Run each notebook and save the figure of every explorer it creates.

    Parameters
    ----------
    notebooks : list of str or Path, optional
        Notebook files, in the order to run them. Default: every lecture of this checkout.
    folder : str or Path, default "figures"
        Where the files go (created if missing); files of the same name are replaced.
    preset : {"16:9", "4:3", None}, default "16:9"
        Slide size (see :func:`sslviz.export.save_figure`); None keeps each figure's size.
    formats : tuple of {"png", "svg", "pdf"}
    projector : bool, default False
        Draw every figure in the projector style (large fonts, thick lines, Okabe-Ito colours).
    timeout : float
        Seconds one cell may run.
    progress : bool
        Show a progress bar over all code cells.

    Returns
    -------
    list of Path
        The files written, notebook by notebook.

    Raises
    ------
    FileNotFoundError
        A notebook does not exist.
    ValueError
        Unknown preset or format.
    NotebookFailed
        A cell raised; the message names the notebook and the cell.
    """
    paths = [Path(p) for p in (default_notebooks() if notebooks is None else notebooks)]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"notebook(s) not found: {', '.join(missing)}")
    if preset not in PRESETS:
        raise ValueError(f"unknown slide preset {preset!r}; choose one of "
                         f"{', '.join(repr(p) for p in PRESETS)}")
    unknown = [f for f in formats if f not in FORMATS]
    if unknown or not formats:
        raise ValueError(f"unknown figure format(s) {unknown}; choose from {', '.join(FORMATS)}")
    options = _Options(Path(folder).expanduser().resolve(), preset, tuple(formats), projector)
    options.folder.mkdir(parents=True, exist_ok=True)
    total = sum(_code_cells(p) + 1 + projector for p in paths)
    written = []
    with tqdm(total=total, desc="exporting figures", unit="cell", disable=not progress) as bar:
        for path in paths:
            written += _run_notebook(path.resolve(), options, bar, timeout)
    return written


def _code_cells(path: Path) -> int:
    return sum(cell.cell_type == "code" for cell in read_notebook(path).cells)


def execute_in_place(path: Path, *, timeout=1800) -> Path:
    """Re-execute a lecture top to bottom and write it back in its committed form.

    The notebook runs in a fresh kernel in its own folder, with claims strict
    (``SSLVIZ_STRICT_CLAIMS=1``: a claim that does not hold stops the run, nothing is written).
    Then what is not part of the committed form is dropped: per-cell execution timestamps,
    widget views of cells that show no explorer (progress bars), stored widget state; and the
    slide metadata is applied (:func:`sslviz.slides.apply_slides`). An explorer's output keeps
    its static picture and alt text but not its widget view: without the stored state no renderer
    can draw the view (JupyterLab would show an error in its place). Running the cell in
    JupyterLab brings the live widget back. The write is atomic.
    """
    from sslviz.hosted import add_setup_cell
    from sslviz.slides import apply_slides, is_explorer_cell

    path = Path(path)
    notebook = read_notebook(path)
    add_setup_cell(notebook)  # the hosted-start cell runs with the rest (it does nothing here)
    run_cells(notebook, path.parent, timeout=timeout, env={"SSLVIZ_STRICT_CLAIMS": "1"},
              name=path.name, failure="a cell failed; nothing was written")
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code" and not is_explorer_cell(cell):
            cell.outputs = [o for o in cell.outputs if _WIDGET_VIEW not in o.get("data", {})]
        elif cell.cell_type == "code":
            for output in cell.outputs:
                _keep_static_picture(output)
    apply_slides(notebook)
    write_notebook(notebook, path)
    return path


_WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _keep_static_picture(output) -> None:
    """Drop the widget view of an explorer's output that carries a static picture."""
    if "image/png" in output.get("data", {}):
        output["data"].pop(_WIDGET_VIEW, None)
