"""One error path for every command of the package (``python -m sslviz``, ``sslviz.experiments``,
``sslviz.bench``, ``sslviz.datasets``).

* :class:`Parser`: an ``argparse`` parser whose errors are one line on stderr (exit status 2) and
  which lists ``--debug``;
* argument types that check ranges while parsing, before any corpus is loaded
  (:func:`positive_int`, :func:`seed`, :func:`n_jobs`, :func:`finite_float`, ...);
* :func:`checked_notebook`, :func:`writable_file`, :func:`writable_folder`: files named on the
  command line, checked before a long run;
* :func:`command`: a decorator for ``main(argv)`` that turns every error a user can cause
  (missing or corrupt data, a bad notebook, an unwritable output, a refused value) into one line
  on stderr and exit status 2; ``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import argparse
import contextvars
import functools
import json
import math
import os
import sys
from pathlib import Path

EXIT_USAGE = 2
DEBUG_FLAG = "--debug"
_DEBUG = contextvars.ContextVar("sslviz_cli_debug", default=False)


class UsageError(ValueError):
    """Something the user gave a command cannot be used; the message says what and how to fix it."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr (exit status 2)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.add_argument(DEBUG_FLAG, action="store_true",
                          help="show the full traceback of an error (for bug reports)")

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


# -- argument types: a wrong value is refused by argparse, before any slow work ------------------
def _integer(text):
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None


def positive_int(text):
    """An integer >= 1."""
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value}")
    return value


def seed(text):
    """A random seed: an integer in [0, 2**32 - 1]."""
    value = _integer(text)
    if not 0 <= value < 2**32:
        raise argparse.ArgumentTypeError(f"a seed must be an integer in [0, 2**32 - 1], "
                                         f"got {value}")
    return value


def n_jobs(text):
    """A number of processes: >= 1, or negative (-1: all cores; joblib's convention)."""
    value = _integer(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be a number of processes (>= 1) or negative "
                                         "(-1: all cores), got 0")
    return value


def finite_float(*, minimum=None, above=None):
    """An argument type: a finite number, ``>= minimum`` and ``> above`` when given."""
    def parse(text):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if (not math.isfinite(value) or (minimum is not None and value < minimum)
                or (above is not None and value <= above)):
            bound = (f" >= {minimum}" if minimum is not None else "") + (
                f" > {above}" if above is not None else "")
            raise argparse.ArgumentTypeError(f"must be a finite number{bound}, got {text}")
        return value
    parse.__name__ = "number"
    return parse


# -- files named on the command line ---------------------------------------------------------------
def checked_notebook(path):
    """``path`` as a ``Path`` if it holds a Jupyter notebook (JSON with a list of cells)."""
    path = Path(path)
    if not path.is_file():
        raise UsageError(f"no notebook at {path}: give the path of an .ipynb file")
    try:
        text = path.read_bytes().decode("utf-8")
        notebook = json.loads(text)
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not a notebook (binary bytes, not JSON text): give an "
                         ".ipynb file saved by Jupyter") from None
    except json.JSONDecodeError as error:
        raise UsageError(f"{path} is not a notebook (not JSON: {error.msg} at line "
                         f"{error.lineno}): give an .ipynb file saved by Jupyter") from None
    except OSError as error:
        raise UsageError(f"{path} cannot be read ({error.strerror}); fix its permissions") \
            from None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise UsageError(f"{path} is not a notebook (JSON without a list of cells): give an "
                         ".ipynb file saved by Jupyter")
    if not notebook["cells"]:
        raise UsageError(f"{path} has no cells: there is nothing to run")
    import nbformat

    try:
        nbformat.validate(nbformat.reads(text, as_version=4))
    except Exception as error:  # nbformat raises several types for one problem: a bad file
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise UsageError(f"{path} is not a valid notebook ({reason[:120]}): open and save it "
                         "in Jupyter to repair it") from None
    return path


def checked_notebooks(paths):
    """:func:`checked_notebook` of each path (a folder: its ``*.ipynb``, in order); also refuses a
    non-.ipynb name and a folder without notebooks."""
    checked = []
    for path in map(Path, paths):
        if path.is_dir():
            inside = sorted(path.glob("*.ipynb"))
            if not inside:
                raise UsageError(f"{path} holds no notebook (.ipynb)")
            checked += [checked_notebook(notebook) for notebook in inside]
            continue
        if path.suffix != ".ipynb" and path.is_file():
            raise UsageError(f"{path} is not a notebook (.ipynb)")
        checked.append(checked_notebook(path))
    return checked


def writable_folder(folder, *, option="--out"):
    """Refuse a folder that is a file, or that cannot be created or written into."""
    if not str(folder).strip():
        raise UsageError(f"{option} is empty: name the folder to write into (e.g. {option} "
                         "figures)")
    folder = Path(folder)
    existing = next((p for p in (folder, *folder.absolute().parents) if p.exists()), None)
    if existing is None or not existing.is_dir():
        raise UsageError(f"{option} {folder}: {existing} is a file, not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {folder}: {existing} is not writable; choose another folder")
    return folder


def writable_file(path, *, option):
    """Refuse an output file whose folder is missing or not writable, or that is a folder."""
    path = Path(path)
    if path.is_dir():
        raise UsageError(f"{option} {path} is a folder: give a file name")
    parent = path.absolute().parent
    if not parent.is_dir():
        raise UsageError(f"{option} {path}: the folder {parent} does not exist; create it or "
                         "choose another file")
    if not os.access(parent, os.W_OK | os.X_OK) or (path.exists()
                                                     and not os.access(path, os.W_OK)):
        raise UsageError(f"{option} {path} cannot be written (no permission in {parent}); "
                         "choose another file or fix the permissions")
    return path


# -- the classroom extras --------------------------------------------------------------------------
CLASSROOM_MODULES = ("nbformat", "nbclient", "ipykernel", "ipywidgets")


def _installed(module):
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a broken or refused install counts as missing
        return False


def require_classroom(command):
    """Refuse ``command`` in one line when the ``[lab]`` extra (notebooks, kernels) is missing."""
    missing = [name for name in CLASSROOM_MODULES if not _installed(name)]
    if missing:
        raise UsageError(f"`{command}` runs notebooks and needs the classroom extras "
                         f"({', '.join(missing)} not installed): pip install 'sslviz[lab]'")


# -- the one error path ---------------------------------------------------------------------
def user_errors():
    """The exception types a user can cause and a command reports in one line."""
    from sslviz.datasets.verify import ChecksumMismatchError, DatasetMissingError
    from sslviz.paths import DataFolderError

    return (UsageError, DatasetMissingError, ChecksumMismatchError, DataFolderError, ValueError,
            OSError)


def one_line(error):
    """The message of ``error`` on one line (a multi-line message's lines joined)."""
    text = " ".join(line.strip() for line in str(error).splitlines() if line.strip())
    return text or type(error).__name__


def command(main):
    """Wrap ``main(argv) -> int``: user errors become one line on stderr and exit status 2.

    ``--debug`` anywhere in ``argv`` re-raises them with their traceback instead.
    """
    @functools.wraps(main)
    def run(argv=None):
        argv = sys.argv[1:] if argv is None else list(argv)
        debug = DEBUG_FLAG in argv or _DEBUG.get()  # a command called by a command: its flag
        token = _DEBUG.set(debug)
        try:
            return main([arg for arg in argv if arg != DEBUG_FLAG])
        except user_errors() as error:
            if debug:
                raise
            print(f"error: {one_line(error)}", file=sys.stderr)
            return EXIT_USAGE
        finally:
            _DEBUG.reset(token)
    return run
