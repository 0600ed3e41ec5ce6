"""Small file helpers shared by the package: atomic writes.

A file written through :func:`atomic_write` either appears whole under its final name or not at
all: the bytes go to a temporary file in the same folder, which is flushed, synced and renamed over
the target (``os.replace`` is atomic on POSIX and Windows within one file system).

A write keeps what the user had: a symbolic link is written through (its target is replaced, the
link stays), an existing file keeps its mode, and a new file gets the mode ``open()`` would give
(0644 under umask 022).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path


@contextlib.contextmanager
def atomic_write(path, mode="wb"):
    """Open a temporary file beside ``path``; rename it onto ``path`` only if the block succeeds.

    Parameters
    ----------
    path : str or Path
        Final location. Its folder is created if needed.
    mode : {"wb", "w"}
        Binary or text mode (text is UTF-8).

    Yields
    ------
    file object
        Write to it; on an exception the temporary file is removed and ``path`` is untouched.
    """
    if mode not in ("wb", "w"):
        raise ValueError(f"atomic_write mode must be 'wb' or 'w', got {mode!r}")
    path = _through_link(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    _usual_permissions(fd, path)
    try:
        kwargs = {"encoding": "utf-8"} if mode == "w" else {}
        with os.fdopen(fd, mode, **kwargs) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise


def _current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _through_link(path):
    """The file a write to ``path`` replaces: the target of a symbolic link, else ``path``."""
    path = Path(path)
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _usual_permissions(fd, path):
    """Give a temporary file the mode of the file it replaces, else the mode ``open()`` would
    give a new file (mkstemp uses 0600)."""
    if not hasattr(os, "fchmod"):
        return
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:  # a new file
        mode = 0o666 & ~_current_umask()
    os.fchmod(fd, mode)


def atomic_write_path(path):
    """Return a context manager yielding a temporary *path* (for writers that want a file name).

    Used for libraries that insist on opening the file themselves (e.g. ``numpy.savez`` appends
    ``.npz`` to names without it; matplotlib picks a backend from the suffix). The temporary name
    keeps the final suffix.
    """
    return _atomic_path(_through_link(path))


@contextlib.contextmanager
def _atomic_path(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=f".part{path.suffix}",
                                    dir=path.parent)
    _usual_permissions(fd, path)
    os.close(fd)
    try:
        yield Path(tmp_name)
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
