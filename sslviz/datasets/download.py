"""Downloading one registered data file into the data folder, safely.

The folder is checked first (created if needed, then written to once), so that a read-only
folder, a file where the folder should be or a folder where the file should be is reported as
what it is, not as "no network". The download is streamed with :mod:`urllib.request` (so
``file://`` URLs work too) into a temporary file beside the target while it is hashed, and
renamed into place only once its sha256 is accepted by the rule of :mod:`sslviz.datasets.verify`:
bytes saved under a name with a known checksum must match it, whatever the server (a plain-HTTP
host can send anything: an error page, a changed file, a tampered one). Only a name without any
known checksum is kept unverified, with its sha256 printed. An interrupted download leaves no
file; temporary files of downloads killed more than an hour ago are removed.

A course mirror (``SSLVIZ_MIRROR``: a base URL such as ``https://course.example.org/corpora/`` or
``file:///media/stick/corpora/``, laid out like a data folder) is asked instead of the official
URLs: for each accepted copy of a file, best first, ``<mirror>/<copy's file name>``; the first one
that exists is downloaded and checked by the same rule. The mirror must be an ``https://``,
``http://`` or ``file://`` URL (:func:`mirror_base`, checked before anything is fetched); a mirror
that cannot be reached (a closed port, no network, a missing folder) is reported as such, not as
a mirror without the file.
"""

from __future__ import annotations

import errno
import hashlib
import http.client
import os
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from tqdm.auto import tqdm

from sslviz._io import atomic_write
from sslviz.datasets.registry import DataFile
from sslviz.datasets.verify import (
    CORRUPT,
    NOT_A_FILE,
    OK_STATES,
    UNREADABLE,
    Check,
    ChecksumMismatchError,
    accept,
    check_file,
    content_problem,
    known_sha256,
    manual_reason,
    remember_sha256,
)
from sslviz.paths import DataFolderError

_CHUNK = 1 << 20
_TIMEOUT = 60
STALE_PART_SECONDS = 3600


class _NetworkError(Exception):
    """The server could not be reached or the transfer broke off (not a local problem)."""


class _ServerError(_NetworkError):
    """The server answered, with an HTTP error (404, 500, ...)."""

    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


class MirrorError(DataFolderError):
    """``SSLVIZ_MIRROR`` is not an address the data can come from; the message says the fix."""


MIRROR_SCHEMES = ("https", "http", "file")
ABSENT = (404, 410)  # the HTTP answers of a mirror that lacks a file


def mirror_base() -> str | None:
    """The course mirror ``SSLVIZ_MIRROR`` (checked); ``None`` when unset.

    Raises
    ------
    MirrorError
        If it is not an ``https://``, ``http://`` (with a host) or ``file://`` URL.
    """
    mirror = os.environ.get("SSLVIZ_MIRROR", "").strip()
    if not mirror:
        return None
    parts = urllib.parse.urlsplit(mirror)
    try:
        parts.port  # noqa: B018 -- raises ValueError for a port that is not a number
        usable = parts.scheme.lower() in MIRROR_SCHEMES and (
            bool(parts.hostname) if parts.scheme.lower() != "file" else bool(parts.path))
    except ValueError:
        usable = False
    if not usable:
        raise MirrorError(
            f"SSLVIZ_MIRROR is set to {mirror!r}, which is not a mirror's address: give an "
            "https://, http:// or file:// URL of a folder laid out like the data folder (e.g. "
            "https://course.example.org/corpora/ or file:///media/stick/corpora/), or unset it")
    return mirror


def fetch_file(data_file: DataFile, folder: Path, progress: bool) -> tuple[Path | None, str]:
    """The accepted copy of ``data_file`` in ``folder``, downloaded if needed.

    Returns ``(path, "")``, or ``(None, reason)`` saying why the file could not be obtained.

    Raises
    ------
    ChecksumMismatchError
        The downloaded bytes are not an accepted copy; nothing was saved.
    """
    check = check_file(data_file, folder)
    if check.state in OK_STATES:
        return check.path, ""
    if check.state in (NOT_A_FILE, UNREADABLE):
        return None, check.reason
    mirror = mirror_base()
    if mirror:
        return _fetch_from_mirror(data_file, folder, progress, mirror)
    if not data_file.downloadable:
        return None, manual_reason(data_file)
    return _fetch_from(data_file, data_file.url, folder, data_file.name, progress)


def _fetch_from(data_file, url, folder, filename, progress):
    """Download ``url`` into ``folder / filename``: ``(path, "")`` or ``(None, reason)``."""
    target = folder / filename
    folder = target.parent
    problem = _unwritable(folder) or _blocked(target)
    if problem:
        return None, problem
    _sweep_stale_parts(folder, target.name)
    try:
        return _download(data_file, target, progress, url, filename), ""
    except _ServerError as error:
        return None, (f"download from {url} failed: the server answered {error}; the "
                      f"file may have moved (see {data_file.source or 'the dataset page'}), or "
                      "use the course data folder")
    except _NetworkError as error:
        return None, f"download from {url} failed ({error}); no network?"
    except OSError as error:  # writing failed after the folder check (disk full, ...)
        return None, _write_problem(folder, error)


def _fetch_from_mirror(data_file, folder, progress, mirror):
    """Ask ``mirror`` for each accepted copy of ``data_file``, best first."""
    base = mirror if mirror.endswith("/") else mirror + "/"
    unreachable = _unreachable_folder(mirror, base)
    if unreachable:
        return None, unreachable
    for filename in data_file.filenames:
        url = base + filename
        try:
            _network(urllib.request.urlopen, url, timeout=_TIMEOUT).close()
        except _ServerError as error:
            if error.code in ABSENT:
                continue  # not on the mirror under this name
            return None, (f"the mirror {mirror} (SSLVIZ_MIRROR) answered {error} for {filename}; "
                          "try again later or unset SSLVIZ_MIRROR")
        except _NetworkError as error:
            if base.startswith("file:") and isinstance(getattr(error.__cause__, "reason", None),
                                                       FileNotFoundError):
                continue  # the folder is there, the file is not
            return None, (f"cannot reach the mirror {mirror} (SSLVIZ_MIRROR): {error}; check its "
                          "address and the network, or unset SSLVIZ_MIRROR")
        return _fetch_from(data_file, url, folder, filename, progress)
    return None, (f"the mirror {mirror} (SSLVIZ_MIRROR) has none of "
                  f"{', '.join(data_file.filenames)}; put one there or unset SSLVIZ_MIRROR")


def _unreachable_folder(mirror, base):
    """Why a ``file://`` mirror cannot be reached (its folder is missing), or ``""``."""
    if not base.startswith("file:"):
        return ""
    path = Path(urllib.request.url2pathname(urllib.parse.urlsplit(base).path))
    if path.is_dir():
        return ""
    what = "is not a folder" if path.exists() else "does not exist"
    return (f"cannot reach the mirror {mirror} (SSLVIZ_MIRROR): {path} {what}; mount or copy the "
            "mirror there, fix SSLVIZ_MIRROR, or unset it")


def _unwritable(folder: Path) -> str:
    """Why nothing can be written into ``folder`` (created if needed), or ``""``."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except (FileExistsError, NotADirectoryError):
        return (f"cannot write into {folder}: it (or a folder above it) is a file, not a "
                "folder; point SSLVIZ_DATA at a folder")
    except OSError as error:
        return _write_problem(folder, error)
    return ""


def _write_problem(folder: Path, error: OSError) -> str:
    fix = ("choose a writable folder (export SSLVIZ_DATA=/path/to/writable/folder)"
           if error.errno in (errno.EACCES, errno.EPERM, errno.EROFS) else
           "check that the disk has room and the folder is usable")
    return f"cannot write into {folder} ({error.strerror or error}); {fix}"


def _blocked(target: Path) -> str:
    if target.exists() and not target.is_file():
        return (f"{target} is a folder (or another non-file) where the download must go; move "
                f"it away (e.g. mv '{target}' '{target}.old'), then fetch again")
    return ""


def _download(data_file: DataFile, target: Path, progress: bool, url: str,
              filename: str) -> Path:
    """Stream ``url`` into ``target`` (``filename`` in the data folder); verify, then rename."""
    response = _network(urllib.request.urlopen, url, timeout=_TIMEOUT)
    with response:
        size = int(response.headers.get("Content-Length") or 0) or None
        bar = tqdm(total=size, unit="B", unit_scale=True, unit_divisor=1024,
                   desc=data_file.name, disable=not progress)
        with bar, atomic_write(target) as out:
            digest = hashlib.sha256()
            while chunk := _network(response.read, _CHUNK):
                out.write(chunk)
                digest.update(chunk)
                bar.update(len(chunk))
            actual = digest.hexdigest()
            copy = accept(data_file, filename, actual)
            if copy is None:
                raise _download_mismatch(data_file, Check(CORRUPT, target, None, actual), url,
                                         filename)
    remember_sha256(target, actual)
    problem = "" if copy.verified else content_problem(target)
    if problem:  # no checksum to hold the bytes to, and not even of the file's format
        target.unlink()
        raise ChecksumMismatchError(
            f"The download of {data_file.name} from {url} was refused and not saved: "
            f"{problem}. The server may have sent an error page or a changed file. Try again "
            "later, or get the file from the course data folder and point SSLVIZ_DATA at that "
            "folder.", path=target, expected=(), actual=actual)
    if not copy.verified:
        plain = (" over plain HTTP (nobody vouches for these bytes)"
                 if url.startswith("http:") else "")
        print(f"{target}: downloaded{plain}, but no checksum is known for it ({copy.note}); "
              f"UNVERIFIED, sha256 {actual}", file=sys.stderr)
    return target


def _network(call, *args, **kwargs):
    try:
        return call(*args, **kwargs)
    except urllib.error.HTTPError as error:
        raise _ServerError(f"HTTP {error.code} {error.reason}", error.code) from error
    except urllib.error.URLError as error:
        raise _NetworkError(error.reason) from error
    except (http.client.HTTPException, ConnectionError, TimeoutError) as error:
        raise _NetworkError(error) from error


def _download_mismatch(data_file: DataFile, check: Check, url: str,
                       filename: str) -> ChecksumMismatchError:
    expected = known_sha256(data_file, filename)
    message = (
        f"The download of {data_file.name} from {url} was refused and not saved: "
        f"its sha256 matches no accepted copy.\n"
        f"  expected sha256: {' or '.join(expected)}\n"
        f"  actual sha256:   {check.actual}\n"
        f"  (it would have been saved as {check.path})\n"
        "The server may have sent an error page or a changed file. Try again later, or get the "
        "file from the course data folder and point SSLVIZ_DATA at that folder."
    )
    return ChecksumMismatchError(message, path=check.path, expected=expected, actual=check.actual)


def _sweep_stale_parts(folder: Path, name: str) -> None:
    """Remove temporary files of downloads of ``name`` killed more than an hour ago."""
    now = time.time()
    for part in folder.glob(f".{name}.*.part"):
        try:
            if now - part.stat().st_mtime > STALE_PART_SECONDS:
                part.unlink()
        except OSError:
            pass
