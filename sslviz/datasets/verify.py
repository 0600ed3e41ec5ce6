"""What is on disk for a registered data file: its state, its sha256, and the student's message.

The rule a copy is judged by: **a file whose name has a known checksum must match it.** Only a
name for which no checksum is known anywhere (e.g. WebKB's official ``webkb-data.gtar.gz``) is
accepted as *unverified*. So a truncated ``r8-train-all-terms.txt`` (a name the course copy
gives with its sha256) is *corrupt*, never "present (unverified)". An unverified copy must pass
a check of its own format (:func:`content_problem`: an archive opens and lists every member to
its end, a stop list is one word per line, a CSV parses); if it does not, it is *corrupt* too,
with the reason.

The states of a data file, best first: ``present`` (a copy matches a known sha256),
``present (unverified)``, ``corrupt`` (a copy's sha256 matches none known for its name),
``not a file`` (a folder, or something else, where the file should be), ``unreadable`` (the
file cannot be read, e.g. no permission) and ``missing``. Used by :mod:`sslviz.datasets.fetch`
and :mod:`sslviz.datasets.download`; nothing here writes.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import re
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from sslviz.datasets.registry import AcceptedCopy, DataFile, Dataset
from sslviz.errors import ChecksumMismatchError, DatasetMissingError

PRESENT = "present"
UNVERIFIED = "present (unverified)"
MISSING = "missing"
CORRUPT = "corrupt"
NOT_A_FILE = "not a file"
UNREADABLE = "unreadable"
OK_STATES = (PRESENT, UNVERIFIED)

_CHUNK = 1 << 20
_SHA_CACHE: dict[tuple[str, int, int], str] = {}
_CONTENT_CACHE: dict[tuple[str, int, int], str] = {}
_WORD = re.compile(r"[a-z][a-z'\-]*")


class StatusRow(NamedTuple):
    """One line of :func:`sslviz.datasets.status`: a data file, its state and where it is."""

    dataset: str
    file: str
    state: str
    path: Path


@dataclass(frozen=True)
class Check:
    """The state of one data file in one folder (see the module docstring)."""

    state: str
    path: Path
    copy: AcceptedCopy | None = None
    actual: str | None = None
    expected: tuple[str, ...] = ()
    reason: str = ""


def file_sha256(path) -> str:
    """Return the sha256 (hex) of a file, computed once per (path, size, mtime) per process.

    Parameters
    ----------
    path : str or Path
        The file.

    Returns
    -------
    str
        64 lower-case hex digits. Use it to key caches of things derived from the file.
    """
    path = Path(path).resolve()
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _SHA_CACHE:
        _SHA_CACHE[key] = _hash_file(path)
    return _SHA_CACHE[key]


def _hash_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def remember_sha256(path: Path, sha: str) -> None:
    """Record the sha256 of a file just written (so that it is not read again)."""
    path = path.resolve()
    stat = path.stat()
    _SHA_CACHE[(str(path), stat.st_size, stat.st_mtime_ns)] = sha


def known_sha256(data_file: DataFile, filename: str) -> tuple[str, ...]:
    """The checksums known for copies of ``data_file`` called ``filename`` (lower-case)."""
    return tuple(copy.sha256.lower() for copy in data_file.accepted
                 if copy.sha256 is not None and copy.filename == filename)


def accept(data_file: DataFile, filename: str, actual: str) -> AcceptedCopy | None:
    """The accepted copy that bytes of sha256 ``actual`` saved as ``filename`` are, or None.

    A name with a known checksum must match it; only a name without any is taken unverified.
    """
    copies = [copy for copy in data_file.accepted if copy.filename == filename]
    for copy in copies:
        if copy.sha256 is not None and copy.sha256.lower() == actual:
            return copy
    if known_sha256(data_file, filename):
        return None
    return next((copy for copy in copies if copy.sha256 is None), None)


def check_file(data_file: DataFile, folder: Path) -> Check:
    """Inspect the accepted copies of ``data_file`` in ``folder``; the best state wins."""
    found: dict[str, Check] = {}
    for filename in data_file.filenames:
        path = folder / filename
        check = _check_copy(data_file, filename, path)
        if check.state == PRESENT:
            return check
        found.setdefault(check.state, check)
    for state in (UNVERIFIED, CORRUPT, NOT_A_FILE, UNREADABLE):
        if state in found:
            return found[state]
    return Check(MISSING, folder / target_name(data_file))


def _check_copy(data_file: DataFile, filename: str, path: Path) -> Check:
    if not path.exists():
        blocker = _file_in_the_way(path, filename)
        if blocker is None:
            return Check(MISSING, path)
        return Check(NOT_A_FILE, path, reason=(
            f"{blocker} is not a folder (it is a file), where the folder holding "
            f"{Path(filename).name} should be; move it away (e.g. mv '{blocker}' "
            f"'{blocker}.old'), then run the command again"))
    if not path.is_file():
        what = "a folder" if path.is_dir() else "not a regular file"
        return Check(NOT_A_FILE, path, reason=(
            f"{path} is {what}, where the file {filename} should be; move it away (e.g. "
            f"mv '{path}' '{path}.old'), then run the command again"))
    try:
        actual = file_sha256(path)
    except OSError as error:
        return Check(UNREADABLE, path, reason=(
            f"{path} cannot be read ({error.strerror or error}); fix its permissions "
            f"(e.g. chmod u+r '{path}') or point SSLVIZ_DATA at a readable copy"))
    copy = accept(data_file, filename, actual)
    if copy is None:
        return Check(CORRUPT, path, None, actual, known_sha256(data_file, filename))
    if not copy.verified:
        problem = content_problem(path)
        if problem:
            return Check(CORRUPT, path, None, actual, reason=problem)
    return Check(PRESENT if copy.verified else UNVERIFIED, path, copy, actual)


def _file_in_the_way(path: Path, filename: str) -> Path | None:
    """The file that stands where a folder of ``filename`` (e.g. ``golub_leukemia/``) should
    be, or ``None``."""
    folders = list(path.parents)[:len(Path(filename).parts) - 1]
    return next((folder for folder in reversed(folders)
                 if folder.exists() and not folder.is_dir()), None)


# -- content checks of files without a published checksum ------------------------------------------
def content_problem(path) -> str:
    """Why the bytes at ``path`` are not a file of the format its name says, or ``""``.

    ``.tar.gz``/``.tgz``/``.tar``: a tar archive whose members are all listed to its end (a
    truncated archive fails there); ``.zip``: a zip whose members all pass their CRC;
    ``.gz``: gzip data that decompresses to its end; ``.csv``: rows of one width; a stop list
    (``*.stop``, ``*stop*.txt``): one lower-case word per line (``#`` comments allowed), at least
    ten of them. Other names are not checked. Computed once per (path, size, mtime) per process.
    """
    path = Path(path).resolve()
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _CONTENT_CACHE:
        _CONTENT_CACHE[key] = _content_problem(path)
    return _CONTENT_CACHE[key]


def _content_problem(path: Path) -> str:
    name = path.name.lower()
    try:
        if name.endswith((".tar.gz", ".tgz", ".tar", ".gtar.gz")):
            with tarfile.open(path) as archive:
                if not archive.getmembers():
                    return "the archive holds no files"
        elif name.endswith(".zip"):
            with zipfile.ZipFile(path) as archive:
                bad = archive.testzip()
                if bad is not None:
                    return f"the archive member {bad} is damaged"
        elif name.endswith(".gz"):
            with gzip.open(path) as stream:
                while stream.read(_CHUNK):
                    pass
        elif name.endswith(".csv"):
            return _csv_problem(path)
        elif name.endswith(".stop") or ("stop" in name and name.endswith(".txt")):
            return _stop_list_problem(path)
    except (tarfile.TarError, zipfile.BadZipFile, gzip.BadGzipFile, EOFError, OSError,
            ValueError) as error:
        return f"it does not open as the archive its name says ({error or type(error).__name__})"
    return ""


def _csv_problem(path: Path) -> str:
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            widths = {len(row) for row in csv.reader(handle) if row}
    except (UnicodeDecodeError, csv.Error) as error:
        return f"it is not a CSV text file ({error})"
    if len(widths) != 1:
        return "it is not a CSV table (its rows have different numbers of columns)"
    return ""


def _stop_list_problem(path: Path) -> str:
    try:
        lines = path.read_bytes().decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return "it is not a stop list (binary bytes, not text)"
    words = [line.strip() for line in lines
             if line.strip() and not line.lstrip().startswith("#")]
    odd = next((word for word in words if not _WORD.fullmatch(word)), None)
    if odd is not None:
        return f"it is not a stop list (one lower-case word per line): it holds {odd[:40]!r}"
    if len(words) < 10:
        return f"it is not a stop list: it holds only {len(words)} word(s)"
    return ""


def target_name(data_file: DataFile) -> str:
    """Where a missing file is expected: its download name, or its first accepted name."""
    return data_file.name if data_file.downloadable else data_file.accepted[0].filename


# -- the student-facing messages ----------------------------------------------------------------
def fetch_command(dataset: Dataset) -> str:
    return f"python -m sslviz.datasets fetch {dataset.name}"


def manual_reason(data_file: DataFile) -> str:
    return f"it cannot be downloaded automatically; get it from {data_file.source}"


def mismatch_error(dataset: Dataset, data_file: DataFile, check: Check) -> ChecksumMismatchError:
    """A file in the data folder whose bytes are not those of any accepted copy (or, for a name
    without a published checksum, not of the file's format: ``check.reason``)."""
    expected = check.expected
    if check.reason:
        fix = (fetch_command(dataset) if data_file.downloadable
               else f"(then get a fresh copy from {data_file.source})")
        message = (f"Refusing {check.path}: {check.reason}. It has no published checksum, so its "
                   "content was checked instead; it is probably damaged or an error page saved "
                   f"under its name. Delete it and fetch it again:\n    rm '{check.path}'\n"
                   f"    {fix}")
        return ChecksumMismatchError(message, path=check.path, expected=(), actual=check.actual)
    lines = [
        f"Refusing {check.path}: its sha256 matches no accepted copy of {data_file.name} "
        f"(dataset {dataset.name!r}).",
        f"  expected sha256: {' or '.join(expected)}",
        f"  actual sha256:   {check.actual}",
        "The file is probably truncated or damaged (an interrupted copy or download?). Delete it"
        " and fetch it again:",
        f"    rm '{check.path}'",
        f"    {fetch_command(dataset)}"
        if data_file.downloadable
        else f"    (then get a fresh copy from {data_file.source})",
    ]
    return ChecksumMismatchError(
        "\n".join(lines), path=check.path, expected=expected, actual=check.actual
    )


def missing_error(
    dataset: Dataset,
    problems: list[tuple[DataFile, str]],
    folder: Path,
    origin: str,
    *,
    after_fetch: bool = False,
) -> DatasetMissingError:
    """The message for files that are not usable (``problems``: file, reason).

    ``after_fetch``: the message follows a failed download, so "run fetch" becomes "run it again".
    """
    count = f"{len(problems)} file" + ("s" if len(problems) > 1 else "")
    lines = [f"Dataset {dataset.name!r} is missing {count}:"]
    for data_file, reason in problems:
        names = ", ".join(data_file.filenames)
        lines.append(f"  - {data_file.name} (accepted: {names}){': ' + reason if reason else ''}")
    lines.append(f"Looked in: {folder}  ({origin})")
    if any(data_file.downloadable for data_file, _ in problems):
        intro = "Once the problem is fixed" if after_fetch else "To download it"
        lines += [f"{intro}, run:", f"    {fetch_command(dataset)}"]
    lines += [
        "If a folder on your machine already holds these files (e.g. the course data folder), "
        "point sslviz at it before starting Python or Jupyter:",
        "    export SSLVIZ_DATA=/path/to/folder    (Windows: set SSLVIZ_DATA=C:\\path\\to\\folder)",
    ]
    return DatasetMissingError(
        "\n".join(lines),
        dataset=dataset.name,
        files=[data_file.name for data_file, _ in problems],
        folder=folder,
    )
