"""The errors a user causes with the data: on the ground floor, so that the command line
(:mod:`sslviz.cli`) can report them in one line without importing the data layer.

:class:`DataError` is their base: a registered data file that is missing, unreadable or damaged
(:class:`DatasetMissingError`, :class:`ChecksumMismatchError`). :mod:`sslviz.datasets` raises
them and re-exports them (``from sslviz.datasets import DatasetMissingError`` works as before).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["ChecksumMismatchError", "DataError", "DatasetMissingError"]


class DataError(Exception):
    """A data file the user must fetch, replace or point ``SSLVIZ_DATA`` at; the message says
    how. A command reports it in one line, without a traceback."""


class DatasetMissingError(DataError, FileNotFoundError):
    """A registered data file is not usable in the data folder (missing, not a file, unreadable,
    or it could not be downloaded).

    Attributes
    ----------
    dataset : str
        The dataset name.
    files : tuple of str
        Official names of the files concerned.
    folder : Path
        The folder that was searched.
    """

    def __init__(self, message: str, *, dataset: str = "", files=(), folder=None):
        super().__init__(message)
        self.dataset = dataset
        self.files = tuple(files)
        self.folder = folder

    def __str__(self):
        return self.args[0]


class ChecksumMismatchError(DataError, ValueError):
    """A file's sha256 matches none of the accepted copies; the file is refused.

    Attributes
    ----------
    path : Path
        The refused file (for a failed download: where it would have been saved).
    expected : tuple of str
        The accepted sha256 values.
    actual : str
        The sha256 of the refused bytes.
    """

    def __init__(self, message: str, *, path, expected, actual):
        super().__init__(message)
        self.path = Path(path)
        self.expected = tuple(expected)
        self.actual = actual
