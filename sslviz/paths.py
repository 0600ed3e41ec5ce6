"""Where the corpora and the caches live.

The data folder is chosen, in order, as

1. ``$SSLVIZ_DATA`` when set (it must be an existing folder: a typo should not silently send a
   student to another folder);
2. the ``data/`` folder of the repository, when the package is used from a source checkout (a
   ``pyproject.toml`` sits beside the ``sslviz/`` package folder);
3. the user's data folder: ``$XDG_DATA_HOME/sslviz`` or ``~/.local/share/sslviz``
   (macOS ``~/Library/Application Support/sslviz``, Windows ``%LOCALAPPDATA%\\sslviz``).

The data folder may be read-only (continuous integration points ``SSLVIZ_DATA`` at a read-only
copy); only :func:`sslviz.datasets.fetch` ever writes there. Derived files (vectorized corpora,
fitted models) go to :func:`cache_dir` instead: ``$SSLVIZ_CACHE``, else ``$XDG_CACHE_HOME/sslviz``
or ``~/.cache/sslviz`` (macOS ``~/Library/Caches/sslviz``). Neither function creates a folder.

Results of the lectures' long sweeps ship inside the package, in :func:`store_dir`
(``sslviz/stored_results/cache``, package data, read-only; see :mod:`sslviz.experiments.store`):
the cache reads them when it has no entry of its own, from a source checkout or a wheel alike.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["DataFolderError", "STORED_RESULTS", "cache_dir", "data_dir", "data_dir_origin",
           "store_dir"]

_PACKAGE_DIR = Path(__file__).resolve().parent  # the sslviz package folder
STORED_RESULTS = _PACKAGE_DIR / "stored_results"
"""The results shipped with the package (package data): the lectures' stored sweeps in
``cache/`` and the paper-scale summaries (``hybrid_paper_scale.json``)."""


class DataFolderError(FileNotFoundError):
    """``$SSLVIZ_DATA`` names a folder that does not exist (or is not a folder)."""


def data_dir() -> Path:
    """Return the folder that holds (or will hold) the downloaded corpora.

    Returns
    -------
    Path
        Absolute path; see the module docstring for how it is chosen.

    Raises
    ------
    DataFolderError
        If ``$SSLVIZ_DATA`` is set to something that is not an existing folder.
    """
    return data_dir_origin()[0]


def data_dir_origin() -> tuple[Path, str]:
    """Return the data folder and a sentence saying how it was chosen (for error messages).

    Raises
    ------
    DataFolderError
        If ``$SSLVIZ_DATA`` is set to something that is not an existing folder.
    """
    env = os.environ.get("SSLVIZ_DATA")
    if env:
        path = Path(env).expanduser().absolute()
        if not path.is_dir():
            what = "is not a folder" if path.exists() else "does not exist"
            raise DataFolderError(
                f"SSLVIZ_DATA is set to {env!r}, but {path} {what}. Point SSLVIZ_DATA at the "
                "folder that holds the course data files (e.g. export SSLVIZ_DATA=/path/to/folder),"
                " or unset it to use the default folder."
            )
        return path, "chosen by the environment variable SSLVIZ_DATA"
    checkout = source_checkout_data_dir(_PACKAGE_DIR)
    if checkout is not None:
        return checkout, "the default: data/ of this source checkout (SSLVIZ_DATA is not set)"
    return _user_dir("data"), "the default: your user data folder (SSLVIZ_DATA is not set)"


def source_checkout_data_dir(package_dir: Path) -> Path | None:
    """Return ``<repo>/data`` if ``package_dir`` (the ``sslviz`` folder) sits in a source checkout.

    Parameters
    ----------
    package_dir : Path
        The folder of the ``sslviz`` package.

    Returns
    -------
    Path or None
        ``package_dir.parent / "data"`` when ``package_dir.parent`` holds a ``pyproject.toml``.
    """
    root = Path(package_dir).parent
    if (root / "pyproject.toml").is_file():
        return root / "data"
    return None


def cache_dir() -> Path:
    """Return the folder for derived, re-creatable files (not created here).

    Returns
    -------
    Path
        ``$SSLVIZ_CACHE`` if set, else the user cache folder (see the module docstring).
    """
    env = os.environ.get("SSLVIZ_CACHE")
    if env:
        return Path(env).expanduser().absolute()
    return _user_dir("cache")


def store_dir() -> Path | None:
    """Return the folder of the results stored with the project, or ``None`` if there is none.

    ``$SSLVIZ_STORE`` if set (the empty string: no store, everything is computed), else the
    package's own ``stored_results/cache`` (:data:`STORED_RESULTS`): package data, so a wheel
    installed with pip reads the same results as a source checkout.
    """
    env = os.environ.get("SSLVIZ_STORE")
    if env is not None:
        return Path(env).expanduser().absolute() if env else None
    store = STORED_RESULTS / "cache"
    return store if store.is_dir() else None


def _user_dir(kind: str) -> Path:
    home = Path.home()
    if sys.platform == "darwin":
        base = home / "Library" / ("Caches" if kind == "cache" else "Application Support")
    elif sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
        return base / "sslviz" / ("cache" if kind == "cache" else "data")
    else:
        var, default = {
            "cache": ("XDG_CACHE_HOME", home / ".cache"),
            "data": ("XDG_DATA_HOME", home / ".local" / "share"),
        }[kind]
        xdg = os.environ.get(var)
        # The XDG spec says relative paths are invalid and must be ignored.
        base = Path(xdg) if xdg and os.path.isabs(xdg) else default
    return base / "sslviz"
