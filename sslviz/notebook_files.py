"""Notebook files, in one place: read them, write them atomically, run their cells in a kernel.

Every command that touches a lecture file goes through here: ``python -m sslviz execute``,
``export-figures``, ``slides``, ``student``, the store (:mod:`sslviz.experiments.store`) and the
benchmarks. So:

* a notebook (or any text a command writes: a student copy, ``bench --json``) is written through a
  temporary file renamed into place (:func:`write_notebook`, :func:`write_text`): a failure leaves
  the old file whole, and the new one gets the mode ``open()`` gives (0644 under umask 022), so
  a course server's other users can read it;
* cells run in one loop (:func:`run_cells`): a fresh kernel started in the notebook's folder, as
  in JupyterLab, with the environment switched for the run only (:func:`environment`); a failing
  cell, or a kernel that dies, raises :class:`NotebookFailed` naming the notebook and the cell, or
  :class:`NotebookDataMissing` when a corpus is missing (the data layer's message says how to
  fetch it).

Needs the classroom extra (``nbformat``, ``nbclient``): ``pip install 'sslviz[lab]'``.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from ._io import atomic_write

__all__ = ["NotebookDataMissing", "NotebookFailed", "environment", "read_notebook", "run_cells",
           "write_notebook", "write_text"]

_DATA_ERRORS = ("DatasetMissingError", "ChecksumMismatchError", "DataFolderError")


class NotebookFailed(RuntimeError):
    """A cell of a notebook raised while a command ran it."""


class NotebookDataMissing(FileNotFoundError):
    """A notebook stopped because a corpus it loads is missing or corrupt (a user error: the
    message is the data layer's, naming the file and how to fetch it)."""


def read_notebook(path):
    """The notebook at ``path`` (nbformat version 4)."""
    import nbformat  # here: importing it takes seconds (jsonschema's format grammars)

    return nbformat.read(Path(path), as_version=4)


def write_notebook(notebook, path):
    """Write ``notebook`` to ``path`` atomically (the old file stays whole on any failure)."""
    import nbformat

    write_text(path, nbformat.writes(notebook) + "\n")


def write_text(path, text):
    """Write ``text`` (UTF-8) to ``path`` atomically, with the usual permissions."""
    with atomic_write(path, mode="w") as handle:
        handle.write(text)


@contextlib.contextmanager
def environment(changes):
    """Set the environment variables ``changes`` inside the block (a kernel started there
    inherits them), then restore them."""
    previous = {name: os.environ.get(name) for name in changes}
    os.environ.update(changes)
    try:
        yield
    finally:
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def run_cells(notebook, folder, *, timeout=1800, env=None, progress=None, name="notebook",
              failure="code cell {n} failed; run the notebook to see why", brief=False):
    """Run every code cell of ``notebook`` (in place: outputs are filled in) in a fresh kernel
    started in ``folder``; returns the seconds each code cell took.

    ``env``: environment variables for this run only. ``progress``: a tqdm bar, advanced once per
    cell. ``failure``: what the error says after ``name:`` (``{n}``: the cell's number among
    code cells), then the end of the traceback, or only the exception (``brief``).
    """
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, DeadKernelError

    code = [(i, cell) for i, cell in enumerate(notebook.cells) if cell.cell_type == "code"]
    client = NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(folder)}})
    seconds = []
    with environment(env or {}), client.setup_kernel():
        for n, (index, cell) in enumerate(code, start=1):
            if progress is not None:
                progress.set_postfix_str(f"{name} cell {n}/{len(code)}")
            start = time.perf_counter()
            try:
                client.execute_cell(cell, index)
            except CellExecutionError as error:
                raise _failure(name, error, failure.format(n=n), brief) from None
            except DeadKernelError:
                raise NotebookFailed(f"{name}: the kernel died while running code cell {n} "
                                     f"({_first_line(cell)}): a crash in compiled code, or the "
                                     "out-of-memory killer; run that cell in JupyterLab to see "
                                     "more") from None
            seconds.append(time.perf_counter() - start)
            if progress is not None:
                progress.update(1)
    return seconds


def _first_line(cell, width=60):
    """The first non-blank line of a cell's source, shortened to ``width`` characters."""
    line = next((line.strip() for line in cell.source.splitlines() if line.strip()), "")
    return repr(line if len(line) <= width else line[:width - 1] + "…")


def _failure(name, error, what, brief=False):
    """The exception for a failed cell: data the user must fetch, or a failing notebook."""
    ename, evalue = getattr(error, "ename", ""), getattr(error, "evalue", "")
    if ename in _DATA_ERRORS:
        return NotebookDataMissing(f"{name}: {evalue}")
    if brief:
        return NotebookFailed(f"{name}: {what} ({ename}: {evalue})")
    return NotebookFailed(f"{name}: {what}:\n{str(error)[-1500:]}")
