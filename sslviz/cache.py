"""The disk cache every slow result goes through: word counts, learning curves, sweeps, tables.

An entry is one ``.npz`` file of named arrays, found by a digest of its *key*: a JSON-able dict of
the data's digest and every parameter that affects the result, to which the cache adds the *code*
that computes it (the computing module's name and :func:`sslviz.code_digest.code_digest`: its
source and that of every sslviz module it imports). The key is also stored inside the file, so an
entry is only ever returned for the key, and the code, it was computed for: change an algorithm
and every result it feeds is recomputed, in the user's cache and in the project's store alike.

What can go wrong, and what happens:

* **A damaged entry** (truncated, overwritten, bit-flipped, swapped with another entry, written by
  an older format): reading it fails or its stored key differs. The entry is discarded with a
  :class:`CacheWarning` naming the file, and the caller recomputes it. Nothing is ever unpickled
  (``allow_pickle=False``).
* **An unwritable cache** (read-only folder, a file where the folder should be): the result is
  returned all the same, with a :class:`CacheWarning` saying where to point ``SSLVIZ_CACHE``.
* **An interrupted write** leaves no entry (writes are atomic: a temporary ``.part`` file renamed
  into place); leftover ``.part`` files older than an hour are removed when the folder is opened.
* **Two processes writing one entry**: each writes its own temporary file; the last rename wins,
  and both wrote the same result.

**The project's stored results.** When the cache has no entry for a key, :meth:`ResultCache.load`
looks in :func:`sslviz.paths.store_dir` (results of the lectures' long sweeps, stored with the
project by ``python -m sslviz.experiments store``), under the same file name and with the same
key check. The store is read-only: a damaged stored entry is named in a warning and left in
place, and the caller recomputes the result (into the user's cache).
"""

from __future__ import annotations

import hashlib
import json
import time
import warnings
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ._io import atomic_write_path
from .code_digest import code_of
from .paths import cache_dir, store_dir

STALE_PART_SECONDS = 3600
_KEY_FIELD = "__key__"
_CODE_FIELD = "code"


class CacheWarning(UserWarning):
    """A cache entry could not be read or written; the computation goes on without it."""


def data_digest(*objects, length=24):
    """A hex digest of arrays, sparse matrices, numbers and strings (order and shape count)."""
    digest = hashlib.sha256()
    for obj in objects:
        for part in _parts(obj):
            digest.update(part)
    return digest.hexdigest()[:length]


def _parts(obj):
    if sp.issparse(obj):
        csr = sp.csr_matrix(obj)
        yield np.asarray(csr.shape).tobytes()
        for array in (csr.data, csr.indices, csr.indptr):
            yield np.ascontiguousarray(array).tobytes()
    elif isinstance(obj, np.ndarray) and obj.dtype.kind != "O":
        yield str((obj.dtype.str, obj.shape)).encode()
        yield np.ascontiguousarray(obj).tobytes()
    else:
        yield canonical_json(obj).encode()


def canonical_json(value):
    """``value`` as JSON with sorted keys; tuples as lists, numpy scalars and arrays as numbers."""
    return json.dumps(value, sort_keys=True, default=_jsonable)


def _jsonable(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray | set | frozenset):
        return sorted(value) if isinstance(value, set | frozenset) else value.tolist()
    return str(value)


class ResultCache:
    """One kind of cached result (a sub-folder of :func:`cache_dir`).

    Parameters
    ----------
    kind : str
        Sub-folder name, e.g. ``"counts"`` or ``"curves"``.
    folder : path, optional
        The cache root (default :func:`cache_dir`, read when the cache is created).
    code : str, module, function or class, or None
        What computes the entries: an sslviz module (or a function or class defined in one).
        Its :func:`~sslviz.code_digest.code_of` joins every key, so an entry is never read for
        other code. ``None`` only for entries that no sslviz code computes (tests).
    store : path or "", optional
        The project's stored results (default :func:`store_dir`; ``""``: none).
    """

    def __init__(self, kind, folder=None, *, code, store=None):
        self.kind = kind
        self.code = None if code is None else code_of(code)
        self.folder = Path(folder if folder is not None else cache_dir()) / kind
        store = store if store is not None else store_dir()
        self.store_folder = Path(store) / kind if store else None
        _sweep_stale_parts(self.folder)

    def full_key(self, key):
        """``key`` with the code that computes it (what the entry's file name and content hold)."""
        if not isinstance(key, Mapping):
            raise ValueError(f"a cache key is a dict, got {type(key).__name__}")
        if _CODE_FIELD in key:
            raise ValueError(f"{_CODE_FIELD!r} is reserved for the code in a cache key; "
                             "name that setting otherwise")
        return dict(key) if self.code is None else {**key, _CODE_FIELD: self.code}

    def path(self, key):
        """The file of the entry for ``key``."""
        full = canonical_json(self.full_key(key))
        name = hashlib.sha256(full.encode()).hexdigest()[:24]
        return self.folder / f"{self.kind}-{name}.npz"

    def load(self, key):
        """The arrays stored for ``key`` (a dict), or ``None`` if there is no sound entry.

        The user's cache first, then the project's stored results (read-only).
        """
        path = self.path(key)
        if path.is_file():
            try:
                return _read_entry(path, self.full_key(key))
            except _DAMAGE as error:
                warnings.warn(f"discarding damaged cache entry {path} ({error}); recomputing it",
                              CacheWarning, stacklevel=2)
                _remove(path)
        return self.load_stored(key)

    def load_stored(self, key):
        """The project's stored arrays for ``key``, or ``None`` (never removes a stored file)."""
        if self.store_folder is None:
            return None
        path = self.store_folder / self.path(key).name
        if not path.is_file():
            return None
        try:
            return _read_entry(path, self.full_key(key))
        except _DAMAGE as error:
            warnings.warn(f"ignoring damaged stored result {path} ({error}); recomputing it. "
                          "Restore the file from the repository "
                          "(git checkout -- sslviz/stored_results)",
                          CacheWarning, stacklevel=2)
            return None

    def save(self, key, arrays):
        """Store ``arrays`` (dict of name -> array, no objects) for ``key``; ``True`` if written.

        A cache that cannot be written is not an error: the warning says so and the caller keeps
        its result.
        """
        if not isinstance(arrays, Mapping):
            raise ValueError(f"cache entries are a dict of name -> array, got "
                             f"{type(arrays).__name__}")
        odd = [name for name in arrays if not isinstance(name, str)]
        if odd:
            raise ValueError(f"cache entry names must be strings, got {odd!r}")
        if _KEY_FIELD in arrays:
            raise ValueError(f"{_KEY_FIELD!r} is reserved for the entry's key in a cache entry; "
                             "store that array under another name")
        arrays = {name: np.asarray(value) for name, value in arrays.items()}
        bad = [name for name, value in arrays.items() if value.dtype.kind == "O"]
        if bad:
            raise ValueError(f"cache entries hold plain arrays only (numbers, strings, bools); "
                             f"these hold Python objects: {bad}")
        path = self.path(key)
        try:
            with atomic_write_path(path) as tmp:
                np.savez(tmp, **arrays,
                         **{_KEY_FIELD: np.array(canonical_json(self.full_key(key)))})
        except OSError as error:
            warnings.warn(f"could not write the cache entry {path} ({error}); the result is not "
                          "cached. Point SSLVIZ_CACHE at a writable folder to keep results.",
                          CacheWarning, stacklevel=2)
            return False
        return True

    def get_or_compute(self, key, compute, *, use_cache=True):
        """The cached arrays for ``key``, or ``compute()`` (a dict of arrays), then stored.

        ``use_cache=False`` recomputes and overwrites the entry.
        """
        if use_cache:
            arrays = self.load(key)
            if arrays is not None:
                return arrays
        arrays = compute()
        self.save(key, arrays)
        return {name: np.asarray(value) for name, value in arrays.items()}


_DAMAGE = (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, zlib.error)


def stored_key(path):
    """The full key (a dict, code included) an entry file was written for."""
    with np.load(path, allow_pickle=False) as stored:
        return json.loads(str(stored[_KEY_FIELD]))


def _read_entry(path, key):
    """The arrays of the entry file ``path``; raises one of ``_DAMAGE`` unless it is sound and
    was written for ``key``."""
    with np.load(path, allow_pickle=False) as stored:
        arrays = {name: stored[name] for name in stored.files}  # reads every CRC
    if str(arrays.pop(_KEY_FIELD)) != canonical_json(key):
        raise ValueError("it was written for other data or settings")
    return arrays


def _remove(path):
    try:
        Path(path).unlink()
    except OSError:
        pass


def _sweep_stale_parts(folder):
    """Remove temporary files of writes that were killed more than an hour ago."""
    try:
        candidates = list(Path(folder).glob(".*.part*"))
    except OSError:
        return
    now = time.time()
    for part in candidates:
        try:
            if now - part.stat().st_mtime > STALE_PART_SECONDS:
                part.unlink()
        except OSError:
            pass
