"""Finding, verifying and downloading the registered data files: the public functions.

:func:`locate` returns the path of an accepted copy of a file in the data folder (see
:mod:`sslviz.paths`) after checking its sha256 against the registry. A file whose
checksum matches no accepted copy is refused (:class:`ChecksumMismatchError`); a missing file (or
a folder where the file should be, or an unreadable file) raises :class:`DatasetMissingError`,
whose message tells the student what to do. A copy is judged by one rule (see
:mod:`sslviz.datasets.verify`): a file whose name has a known checksum must match it; only a name
without any known checksum is accepted, reported as unverified with its computed sha256.

:func:`fetch` downloads missing or corrupt files (see :mod:`sslviz.datasets.download`): streamed
into a temporary file while hashing and renamed into place only once the checksum is accepted, so
an interrupted or refused download leaves nothing.

Hashing costs one read of the file (about 0.1 s for the 14 MB 20 Newsgroups archive); the result
is memoized per (path, size, modification time) for the life of the process.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from sslviz.datasets import registry
from sslviz.datasets.download import fetch_file, mirror_base
from sslviz.datasets.registry import Dataset, get_dataset
from sslviz.datasets.verify import (
    CORRUPT,
    MISSING,
    NOT_A_FILE,
    OK_STATES,
    PRESENT,
    UNREADABLE,
    UNVERIFIED,
    Check,
    ChecksumMismatchError,
    DatasetMissingError,
    StatusRow,
    check_file,
    file_sha256,
    manual_reason,
    mismatch_error,
    missing_error,
)
from sslviz.paths import data_dir_origin

__all__ = [
    "CORRUPT",
    "MISSING",
    "NOT_A_FILE",
    "PRESENT",
    "UNREADABLE",
    "UNVERIFIED",
    "ChecksumMismatchError",
    "DatasetMissingError",
    "StatusRow",
    "UnverifiedFileWarning",
    "ensure",
    "fetch",
    "file_sha256",
    "locate",
    "status",
]

_WARNED: set[tuple[str, str]] = set()


class UnverifiedFileWarning(UserWarning):
    """A file without a published checksum is being used."""


def _folder(data_dir) -> tuple[Path, str]:
    if data_dir is not None:
        return Path(data_dir).expanduser().absolute(), "passed explicitly as data_dir"
    return data_dir_origin()


def _warn_unverified(check: Check) -> None:
    key = (str(check.path), check.actual)
    if key in _WARNED:
        return
    _WARNED.add(key)
    warnings.warn(
        f"{check.path} has no published checksum ({check.copy.note}); using it UNVERIFIED, "
        f"sha256 {check.actual}",
        UnverifiedFileWarning,
        stacklevel=3,
    )


def _reason(data_file, check: Check) -> str:
    """Why a file in state MISSING, NOT_A_FILE or UNREADABLE cannot be used."""
    if check.state in (NOT_A_FILE, UNREADABLE):
        return check.reason
    return "" if data_file.downloadable else manual_reason(data_file)


def locate(name: str, file: str | None = None, *, data_dir=None) -> Path:
    """Return the path of a present, accepted copy of a dataset's file.

    Parameters
    ----------
    name : str
        Registered dataset name (see ``REGISTRY``).
    file : str or None, default=None
        Official name (or accepted copy name) of the file; needed only for datasets with
        several files (``r8``, ``webkb_stemmed``, ``golub``).
    data_dir : str or Path or None, default=None
        Folder to look in instead of :func:`sslviz.datasets.data_dir`.

    Returns
    -------
    Path
        A verified copy if there is one, else an unverified one (with an
        :class:`UnverifiedFileWarning` naming its sha256, once per file and process).

    Raises
    ------
    DatasetMissingError
        No accepted copy is present (or a folder, or an unreadable file, is where it should be).
    ChecksumMismatchError
        A copy is present but its sha256 is not one known for its name.
    ValueError
        Unknown dataset or file name.
    """
    dataset = get_dataset(name)
    data_file = dataset.file(file)
    folder, origin = _folder(data_dir)
    check = check_file(data_file, folder)
    if check.state == UNVERIFIED:
        _warn_unverified(check)
    if check.state in (PRESENT, UNVERIFIED):
        return check.path
    if check.state == CORRUPT:
        raise mismatch_error(dataset, data_file, check)
    raise missing_error(dataset, [(data_file, _reason(data_file, check))], folder, origin)


def _datasets(names) -> list[Dataset]:
    if names is None:
        return list(registry.REGISTRY.values())
    if isinstance(names, str):
        names = [names]
    return [get_dataset(name) for name in names]


def status(names=None, *, data_dir=None) -> list[StatusRow]:
    """Report the state of every file of the given datasets.

    Parameters
    ----------
    names : str or iterable of str or None, default=None
        Dataset names; ``None`` means every registered dataset.
    data_dir : str or Path or None, default=None
        Folder to inspect instead of :func:`sslviz.datasets.data_dir`.

    Returns
    -------
    list of StatusRow
        ``(dataset, file, state, path)`` with state one of ``"present"``,
        ``"present (unverified)"``, ``"corrupt"``, ``"not a file"``, ``"unreadable"``,
        ``"missing"``; ``path`` is the copy found, or where the file is expected when missing.
    """
    folder, _ = _folder(data_dir)
    return [
        StatusRow(dataset.name, data_file.name, check.state, check.path)
        for dataset in _datasets(names)
        for data_file in dataset.files
        for check in [check_file(data_file, folder)]
    ]


def ensure(names=None, *, data_dir=None) -> list[str]:
    """Check that the given datasets are usable, without raising.

    Parameters
    ----------
    names : str or iterable of str or None, default=None
        Dataset names; ``None`` means every registered dataset.
    data_dir : str or Path or None, default=None
        Folder to inspect instead of :func:`sslviz.datasets.data_dir`.

    Returns
    -------
    list of str
        One message per problem (missing files of a dataset, a corrupt file, an unknown name, a
        bad ``SSLVIZ_DATA``), each telling the student what to do; empty when all is well.
    """
    try:
        folder, origin = _folder(data_dir)
        datasets = _datasets(names)
    except (ValueError, OSError) as exc:
        return [str(exc)]
    problems = []
    for dataset in datasets:
        missing = []
        for data_file in dataset.files:
            check = check_file(data_file, folder)
            if check.state == CORRUPT:
                problems.append(str(mismatch_error(dataset, data_file, check)))
            elif check.state not in OK_STATES:
                missing.append((data_file, _reason(data_file, check)))
        if missing:
            problems.append(str(missing_error(dataset, missing, folder, origin)))
    return problems


def fetch(names=None, *, data_dir=None, progress=True) -> list[Path]:
    """Download the missing (or corrupt) files of the given datasets into the data folder.

    Parameters
    ----------
    names : str or iterable of str or None, default=None
        Dataset names; ``None`` means every registered dataset.
    data_dir : str or Path or None, default=None
        Target folder instead of :func:`sslviz.datasets.data_dir` (created if needed).
    progress : bool, default=True
        Show a tqdm progress bar per download.

    Returns
    -------
    list of Path
        The accepted copy of every file of the requested datasets.

    Raises
    ------
    ChecksumMismatchError
        A download's sha256 matches no accepted copy; nothing is saved.
    DatasetMissingError
        Some files could not be obtained (no URL, no network, a mirror that cannot be reached,
        folder not writable, a folder where the file should be); the message lists each with
        its reason and explains ``SSLVIZ_DATA``.
    MirrorError
        ``SSLVIZ_MIRROR`` is not an https://, http:// or file:// URL (checked first).

    Notes
    -----
    Files are streamed into a temporary file in the target folder and renamed into place only
    after the checksum is accepted. Bytes saved under a name with a known checksum must match
    it, whichever server sent them; only a name without any known checksum is kept unverified,
    its sha256 printed on stderr.
    """
    mirror_base()  # a mirror that is not an address is refused before anything is checked
    folder, origin = _folder(data_dir)
    paths, failures = [], []
    for dataset in _datasets(names):
        problems = []
        for data_file in dataset.files:
            path, reason = fetch_file(data_file, folder, progress)
            if path is None:
                problems.append((data_file, reason))
            else:
                paths.append(path)
        if problems:
            failures.append(missing_error(dataset, problems, folder, origin, after_fetch=True))
    if failures:
        raise DatasetMissingError(
            "\n\n".join(str(error) for error in failures),
            dataset=failures[0].dataset,
            files=[name for error in failures for name in error.files],
            folder=folder,
        )
    return paths
