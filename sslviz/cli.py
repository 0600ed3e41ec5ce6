"""One error path for every command of the package (``python -m sslviz``, ``sslviz.experiments``,
``sslviz.bench``, ``sslviz.datasets``).

* :class:`Parser`: an ``argparse`` parser whose errors are one line on stderr (exit status 2) and
  which lists ``--debug``;
* argument types that check ranges while parsing, before any corpus is loaded
  (:func:`positive_int`, :func:`seed`, :func:`n_jobs`, :func:`finite_float`, ...);
* :func:`checked_notebook`, :func:`writable_file`, :func:`writable_folder`: files named on the
  command line, checked before a long run;
* the one rule of every command that writes -- it never removes or replaces what it did not make:
  :func:`check_output_folder` (new, empty, or holding the command's own :data:`OUTPUT_MARKER`,
  written by :func:`mark_output_folder`), :func:`check_output_file` (never one of the inputs) and
  :func:`check_distinct` (two outputs never share a name), all called before any slow work;
* :func:`command`: a decorator for ``main(argv)`` that turns the errors a user can cause (the
  project's own error types, an OS error about a path) into one line on stderr and exit status 2;
  ``--debug`` shows the traceback instead. Any other error is a bug: its traceback is kept and a
  line says where to report it.
"""

from __future__ import annotations

import argparse
import contextvars
import errno
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


EXPERIMENTS_PROG = "python -m sslviz.experiments"
SCHEDULER_HELP = ("run the jobs on this Dask cluster (tcp://host:8786; pip install "
                  "sslviz[cluster]), with the same cache, resume and progress bar")


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr (exit status 2).

    A sub-command of ``python -m sslviz.experiments`` also lists ``--scheduler ADDRESS`` in its
    help: the dispatcher takes that option off the command line before the sub-command parses
    it (:func:`sslviz.experiments.__main__.pop_scheduler`), so it is listed here, never read.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.add_argument(DEBUG_FLAG, action="store_true",
                          help="show the full traceback of an error (for bug reports)")
        if self.prog.startswith(EXPERIMENTS_PROG + " "):
            self.add_argument("--scheduler", metavar="ADDRESS", help=SCHEDULER_HELP)

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


# -- the one rule of every command that writes -------------------------------------------------
OUTPUT_MARKER = ".sslviz-output"
"""The file a command writes into an output folder it made: ``made by: <command>``. A folder
holding it (for that command) is the command's own earlier output, which it may replace."""


def _marker_text(command):
    return f"made by: {command}\n"


def _made_by(folder, command):
    try:
        return (Path(folder) / OUTPUT_MARKER).read_text(encoding="utf-8") == _marker_text(command)
    except (OSError, UnicodeDecodeError):
        return False


def check_output_folder(folder, *, command, option="--out", replaced=False, earlier=None):
    """Refuse an output folder ``command`` may not write into; returns it as a ``Path``.

    The folder must be new, empty, or the command's own earlier output (its
    :data:`OUTPUT_MARKER`, or ``earlier(folder)`` true: output made before the marker existed);
    it must be writable (:func:`writable_folder`). ``replaced``: the command replaces the whole
    folder, so the working folder and its parents are refused too.
    """
    folder = writable_folder(folder, option=option)  # also refuses a file
    if folder.is_dir() and any(folder.iterdir()) and not (
            _made_by(folder, command) or (earlier is not None and earlier(folder))):
        raise UsageError(f"{option} {folder} holds files `{command}` did not write (it has no "
                         f"{OUTPUT_MARKER} of `{command}`), and a command never replaces what it "
                         "did not make: name a new or empty folder")
    if replaced and folder.resolve() in (Path.cwd().resolve(), *Path.cwd().resolve().parents):
        raise UsageError(f"{option} {folder} holds the working folder, which `{command}` would "
                         "replace: name a new folder (e.g. build/site)")
    return folder


def mark_output_folder(folder, command):
    """Create ``folder`` if needed and write ``command``'s :data:`OUTPUT_MARKER` into it."""
    from ._io import atomic_write

    with atomic_write(Path(folder) / OUTPUT_MARKER, "w") as handle:
        handle.write(_marker_text(command))


def _same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a).absolute() == Path(b).absolute()


def check_output_file(path, *, option, inputs=()):
    """:func:`writable_file`, and refuse an output that is one of ``inputs`` (same file, also
    through a link)."""
    path = writable_file(path, option=option)
    for source in inputs:
        if _same_file(path, source):
            raise UsageError(f"{option} {path} is one of the inputs ({source}); writing it "
                             "would destroy that input: name another file")
    return path


def check_distinct(paths, *, what="outputs"):
    """Refuse two of ``paths`` that are the same file (a path twice, or a link and its target)."""
    paths = [Path(p) for p in paths]
    for i, path in enumerate(paths):
        for other in paths[:i]:
            if _same_file(path, other):
                raise UsageError(f"{other} and {path} are the same file: name each of the "
                                 f"{what} once")
    return paths


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
REPORT_BUG = ("this is a bug in sslviz, not something you did: please report it, with the "
              "traceback that follows, at https://github.com/{repository}/issues")


def user_errors():
    """The exception types a user can cause and a command reports in one line: the project's
    own (a refused argument, missing or corrupt data, a notebook whose data is missing, a site
    tool missing). An OS error about a path is the user's too (:func:`is_user_error`)."""
    from sslviz.errors import DataError
    from sslviz.paths import DataFolderError
    from sslviz.site import SiteError

    errors = (UsageError, DataError, DataFolderError, SiteError)
    if _installed("nbformat"):  # the classroom extra: notebooks whose data is missing
        from sslviz.notebook_files import NotebookDataMissing

        errors += (NotebookDataMissing,)
    return errors


#: OS errors about where the user reads or writes, even when they name no file.
PATH_ERRNOS = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EISDIR, errno.EEXIST, errno.EACCES,
                         errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.ENAMETOOLONG})


def is_user_error(error):
    """True for one of :func:`user_errors`, for an OS error about a path (one that names a file,
    or a missing, unwritable or full place) and for a network the user named that does not
    answer (refused, reset, timed out); anything else is a bug."""
    return isinstance(error, (*user_errors(), ConnectionError, TimeoutError)) or (
        isinstance(error, OSError) and (error.filename is not None
                                        or error.errno in PATH_ERRNOS))


def _report_bug(error):
    """Say once (a command called by a command sees the error twice) where to report ``error``."""
    from sslviz.hosted import REPOSITORY

    if getattr(error, "_sslviz_reported", False):
        return
    repository = REPOSITORY.removeprefix("https://github.com/")
    print(REPORT_BUG.format(repository=repository), file=sys.stderr)
    try:
        error._sslviz_reported = True
    except AttributeError:  # an exception type without a __dict__: said twice at worst
        pass


def one_line(error):
    """The message of ``error`` on one line (a multi-line message's lines joined)."""
    text = " ".join(line.strip() for line in str(error).splitlines() if line.strip())
    return text or type(error).__name__


def command(main):
    """Wrap ``main(argv) -> int``: user errors become one line on stderr and exit status 2.

    ``--debug`` anywhere in ``argv`` re-raises them with their traceback instead. Any other
    exception is a bug: it keeps its traceback, after a line saying where to report it.
    """
    @functools.wraps(main)
    def run(argv=None):
        argv = sys.argv[1:] if argv is None else list(argv)
        debug = DEBUG_FLAG in argv or _DEBUG.get()  # a command called by a command: its flag
        token = _DEBUG.set(debug)
        try:
            return main([arg for arg in argv if arg != DEBUG_FLAG])
        except Exception as error:
            if not is_user_error(error):
                _report_bug(error)
                raise
            if debug:
                raise
            print(f"error: {one_line(error)}", file=sys.stderr)
            return EXIT_USAGE
        finally:
            _DEBUG.reset(token)
    return run
