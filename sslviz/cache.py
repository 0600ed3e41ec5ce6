"""The disk cache every slow result goes through: word counts, learning curves, sweeps, tables.

An entry is one compressed ``.npz`` file of named arrays, found by a digest of its *key*: a
JSON-able dict of the data's digest and every parameter that affects the result, to which the
cache adds the *code* that computes it (the computing module's name and
:func:`sslviz.code_digest.code_digest`: its source and that of every sslviz module it imports).
The key is also stored inside the file, so an entry is only ever returned for the key, and the
code, it was computed for: change an algorithm and every result it feeds is recomputed, in the
user's cache and in the project's store alike.

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

**Size.** Entries are compressed (the ``.npz`` format of :func:`numpy.savez_compressed`, at
deflate level :data:`COMPRESS_LEVEL`), and an array of strings (a vocabulary) is stored as its
UTF-8 text and the length of each string, not as fixed-width UTF-32 (``<U180``: 720 bytes a
word); it is rebuilt with its dtype and shape on reading. Entries written
uncompressed by earlier versions, the project's store among them, are read as they are.
:func:`cache_size` reports the cache's size and :func:`prune` removes the least recently used
entries down to a size (``python -m sslviz cache --size`` / ``--prune 500MB``); a successful read
refreshes an entry's modification time, so "oldest" means "unused for longest". Neither ever
touches the project's store.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
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
from .paths import STORED_RESULTS, cache_dir, store_dir

STALE_PART_SECONDS = 3600
COMPRESS_LEVEL = 1  # deflate: most of the gain of level 6 at a fraction of its time
_KEY_FIELD = "__key__"
_STRINGS_FIELD = "__strings__"  # JSON: name -> dtype and shape of each packed array of strings
_LENGTHS = "__lengths__."  # + name: the length of each string, in characters
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
                arrays = _read_entry(path, self.full_key(key))
                _touch(path)
                return arrays
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
        reserved = [name for name in arrays if name.startswith("__")]
        if reserved:
            raise ValueError(f"names starting with '__' are reserved for the cache's own fields "
                             f"(such as the entry's key, {_KEY_FIELD!r}); store {reserved} under "
                             "other names")
        arrays = {name: np.asarray(value) for name, value in arrays.items()}
        bad = [name for name, value in arrays.items() if value.dtype.kind == "O"]
        if bad:
            raise ValueError(f"cache entries hold plain arrays only (numbers, strings, bools); "
                             f"these hold Python objects: {bad}")
        path = self.path(key)
        try:
            with atomic_write_path(path) as tmp:
                _write_npz(tmp, {**_packed(arrays),
                                 _KEY_FIELD: np.array(canonical_json(self.full_key(key)))})
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
    return _unpacked(arrays)


def _write_npz(path, arrays):
    """:func:`numpy.savez_compressed` at deflate level 1: for a 20 Newsgroups count entry about 5x
    faster to write than numpy's level 6, and 8.4 MB instead of 7.1 MB."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED,
                         compresslevel=COMPRESS_LEVEL) as archive:
        for name, value in arrays.items():
            with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, value, allow_pickle=False)


def _packed(arrays):
    """``arrays`` with each array of strings replaced by its UTF-8 text and string lengths."""
    out, strings = {}, {}
    for name, value in arrays.items():
        if value.dtype.kind != "U":
            out[name] = value
            continue
        items = value.ravel().tolist()
        strings[name] = {"dtype": value.dtype.str, "shape": list(value.shape)}
        out[name] = np.frombuffer("".join(items).encode("utf-8"), dtype=np.uint8)
        out[_LENGTHS + name] = np.fromiter(map(len, items), dtype=np.int64, count=len(items))
    if strings:
        out[_STRINGS_FIELD] = np.array(json.dumps(strings, sort_keys=True))
    return out


def _unpacked(arrays):
    """The arrays :func:`_packed` stored, strings rebuilt with their dtype and shape."""
    if _STRINGS_FIELD not in arrays:  # no strings, or an entry written uncompressed
        return arrays
    for name, spec in json.loads(str(arrays.pop(_STRINGS_FIELD))).items():
        lengths = arrays.pop(_LENGTHS + name)
        arrays[name] = _strings(arrays[name], lengths, np.dtype(spec["dtype"]), spec["shape"])
    return arrays


def _strings(utf8, lengths, dtype, shape):
    """Fill a fixed-width string array from concatenated text: each code point goes to its place
    in the UTF-32 buffer, at once for every string."""
    codes = np.frombuffer(utf8.tobytes().decode("utf-8").encode("utf-32-le"), dtype="<u4")
    width = dtype.itemsize // 4
    if (lengths.sum() != codes.size or (lengths < 0).any()
            or (lengths.size and lengths.max() > width)):
        raise ValueError("its packed strings do not match their lengths")
    out = np.zeros((lengths.size, width), dtype="<u4")
    starts = np.cumsum(lengths) - lengths
    out.reshape(-1)[np.repeat(np.arange(lengths.size) * width - starts, lengths)
                    + np.arange(codes.size)] = codes
    return out.view(dtype.newbyteorder("<")).astype(dtype, copy=False).reshape(shape)


def _touch(path):
    """Mark an entry as just used (for :func:`prune`); a read-only cache keeps its times."""
    try:
        os.utime(path)
    except OSError:
        pass


def _remove(path):
    try:
        Path(path).unlink()
    except OSError:
        pass


# -- size report and pruning ----------------------------------------------------------------------
_ENTRY_NAME = re.compile(r"^(?P<kind>.+)-[0-9a-f]{24}\.npz$")
_SIZE = re.compile(r"^\s*(?P<number>\d+(?:\.\d*)?|\.\d+)\s*(?P<unit>[kmgt]i?b?|b)?\s*$",
                   re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12,
          "ki": 2**10, "mi": 2**20, "gi": 2**30, "ti": 2**40}


def parse_size(text):
    """A size in bytes from ``"500MB"``, ``"2GB"``, ``"1.5 GiB"``, ``"0"`` (decimal units: KB, MB,
    GB, TB; binary: KiB, MiB, GiB, TiB; the ``B`` may be left out)."""
    match = _SIZE.match(str(text))
    if not match:
        raise ValueError(f"{text!r} is not a size: give a number and a unit, such as 500MB, 2GB, "
                         "1.5GiB or 0 (units: B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)")
    unit = (match["unit"] or "").lower()
    unit = unit[:-1] if unit.endswith("b") and unit != "b" else unit
    return int(float(match["number"]) * _UNITS[unit])


def format_size(n_bytes):
    """``n_bytes`` in the largest decimal unit that keeps the number >= 1 (``"433.1 MB"``)."""
    for unit, factor in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if n_bytes >= factor:
            return f"{n_bytes / factor:.1f} {unit}"
    return f"{n_bytes} B"


def cache_entries(folder=None):
    """The entry files of the cache ``folder`` (default :func:`cache_dir`): a list of
    ``(path, size in bytes, modification time)``, oldest first. Temporary files of writes under
    way and files the cache did not write are not entries."""
    root = Path(folder if folder is not None else cache_dir())
    entries = []
    for path in root.glob("*/*.npz") if root.is_dir() else ():
        match = _ENTRY_NAME.match(path.name)
        if match and match["kind"] == path.parent.name and path.is_file():
            stat = path.stat()
            entries.append((path, stat.st_size, stat.st_mtime))
    return sorted(entries, key=lambda entry: (entry[2], str(entry[0])))


def cache_size(folder=None):
    """``{kind: (entries, bytes)}`` of the cache ``folder`` (default :func:`cache_dir`)."""
    sizes = {}
    for path, size, _ in cache_entries(folder):
        count, total = sizes.get(path.parent.name, (0, 0))
        sizes[path.parent.name] = (count + 1, total + size)
    return dict(sorted(sizes.items()))


def prune(limit, folder=None):
    """Remove the least recently used entries of the cache ``folder`` (default :func:`cache_dir`)
    until it holds at most ``limit`` bytes; returns the removed ``(path, size)``. The project's
    stored results are never touched: a ``folder`` inside them is refused."""
    if limit < 0:
        raise ValueError(f"the size to prune down to must be >= 0 bytes, got {limit}")
    root = Path(folder if folder is not None else cache_dir()).resolve()
    stores = [STORED_RESULTS, *([store_dir()] if store_dir() else [])]
    for stored in (Path(folder).resolve() for folder in stores):
        if root == stored or stored in root.parents or root in stored.parents:
            raise ValueError(f"{root} holds the project's stored results, which are never "
                             "pruned; point SSLVIZ_CACHE at your own cache folder")
    entries = cache_entries(root)
    total = sum(size for _, size, _ in entries)
    removed = []
    for path, size, _ in entries:
        if total <= limit:
            break
        try:
            path.unlink()
        except FileNotFoundError:  # another process removed or replaced it
            pass
        total -= size
        removed.append((path, size))
    return removed


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
