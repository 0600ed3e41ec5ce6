"""The one disk cache: damaged, swapped, unwritable and half-written entries never give a wrong
result, and always say which file was at fault."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from sslviz import __main__ as commands
from sslviz.cache import (
    CacheWarning,
    ResultCache,
    cache_entries,
    cache_size,
    canonical_json,
    data_digest,
    parse_size,
    prune,
    stored_key,
)
from sslviz.experiments.runner import run_jobs
from sslviz.paths import STORED_RESULTS

KEY = {"version": 1, "data": "abc", "alpha": 0.1}
ARRAYS = {"accuracy": np.array([0.5, 0.75]), "words": np.array(["lecture", "exam"])}


@pytest.fixture
def cache():
    return ResultCache("demo", code="sslviz.em")  # in the test's private cache (tests/conftest.py)


def assert_arrays(got, expected=ARRAYS):
    assert set(got) == set(expected)
    for name, value in expected.items():
        np.testing.assert_array_equal(got[name], value)


def test_round_trip_and_key_kept_apart(cache):
    assert cache.load(KEY) is None
    assert cache.save(KEY, ARRAYS)
    assert_arrays(cache.load(KEY))
    assert cache.load({**KEY, "alpha": 0.2}) is None
    assert cache.path(KEY).parent == cache.folder


def test_key_order_does_not_matter_but_values_do(cache):
    assert cache.path({"a": 1, "b": [1, 2]}) == cache.path({"b": (1, 2), "a": 1})
    assert cache.path({"a": 1}) != cache.path({"a": 2})


def test_objects_are_refused(cache):
    with pytest.raises(ValueError, match=r"plain arrays only .*Python objects: \['bad'\]"):
        cache.save(KEY, {"bad": np.array([{"a": 1}], dtype=object)})


@pytest.mark.parametrize(("arrays", "message"), [
    ({"__key__": np.arange(3)}, r"^names starting with '__' are reserved for the cache's own "
                                r"fields \(such as the entry's key, '__key__'\); store "
                                r"\['__key__'\] under other names$"),
    ({"__lengths__.words": np.arange(3)}, r"store \['__lengths__.words'\] under other names$"),
    ({1: np.arange(3)}, r"^cache entry names must be strings, got \[1\]$"),
    ([np.arange(3)], r"^cache entries are a dict of name -> array, got list$"),
])
def test_unstorable_entries_are_refused_by_name(cache, arrays, message):
    with pytest.raises(ValueError, match=message):
        cache.save(KEY, arrays)
    assert not cache.path(KEY).exists()


@pytest.mark.parametrize("damage", ["truncate", "zero", "random", "bit_flip", "empty"])
def test_damaged_entry_is_named_discarded_and_recomputed(cache, damage):
    cache.save(KEY, ARRAYS)
    path = cache.path(KEY)
    data = bytearray(path.read_bytes())
    if damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "zero":
        data = bytearray(len(data))
    elif damage == "random":
        data = bytearray(np.random.default_rng(0).bytes(len(data)))
    elif damage == "bit_flip":
        data[len(data) // 3] ^= 0x10  # inside the first member's bytes
    else:
        data = bytearray()
    path.write_bytes(bytes(data))
    with pytest.warns(CacheWarning, match=f"discarding damaged cache entry {path}"):
        assert cache.load(KEY) is None
    assert not path.exists()
    calls = []
    result = cache.get_or_compute(KEY, lambda: calls.append(1) or ARRAYS)
    assert_arrays(result)
    assert calls == [1]
    assert_arrays(cache.load(KEY))


def test_swapped_entries_are_refused(cache):
    other = {**KEY, "alpha": 0.5}
    cache.save(KEY, ARRAYS)
    cache.save(other, {"accuracy": np.array([0.1])})
    cache.path(other).replace(cache.path(KEY))  # other's result under KEY's name
    with pytest.warns(CacheWarning, match="written for other data or settings"):
        assert cache.load(KEY) is None


def test_a_pickle_is_never_loaded(cache):
    path = cache.path(KEY)
    path.parent.mkdir(parents=True)
    np.savez(path, __key__=np.array("x"), evil=np.array([object()], dtype=object))
    with pytest.warns(CacheWarning, match="discarding"):
        assert cache.load(KEY) is None


def test_a_folder_where_the_entry_should_be(cache):
    cache.path(KEY).mkdir(parents=True)
    assert cache.load(KEY) is None  # not a file: nothing to read
    with pytest.warns(CacheWarning, match="could not write the cache entry"):
        assert cache.save(KEY, ARRAYS) is False


def test_read_only_cache_warns_and_returns_the_result(tmp_path, monkeypatch):
    if os.geteuid() == 0:
        pytest.skip("root writes into read-only folders")
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    monkeypatch.setenv("SSLVIZ_CACHE", str(folder))
    with pytest.warns(CacheWarning, match="Point SSLVIZ_CACHE at a writable folder"):
        assert_arrays(ResultCache("demo", code="sslviz.em").get_or_compute(KEY, lambda: ARRAYS))


def test_cache_root_that_is_a_file(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("SSLVIZ_CACHE", str(blocker))
    cache = ResultCache("demo", code="sslviz.em")
    assert cache.load(KEY) is None
    with pytest.warns(CacheWarning, match="could not write"):
        assert_arrays(cache.get_or_compute(KEY, lambda: ARRAYS))


def test_stale_part_files_are_swept_fresh_ones_kept(cache):
    cache.folder.mkdir(parents=True)
    stale = cache.folder / ".demo-x.abc.part.npz"
    fresh = cache.folder / ".demo-y.def.part.npz"
    for part in (stale, fresh):
        part.write_bytes(b"half")
    old = time.time() - 2 * 3600
    os.utime(stale, (old, old))
    ResultCache("demo", code="sslviz.em")
    assert not stale.exists() and fresh.exists()


_WRITER = """
import sys, numpy as np
from sslviz.cache import ResultCache
big = np.arange(3_000_000, dtype=float) + float(sys.argv[1])
ResultCache("demo", code="sslviz.em").save({"version": 1, "entry": "shared"}, {"values": big})
print("written", flush=True)
"""


def test_a_process_killed_mid_write_leaves_no_entry(cache):
    process = subprocess.Popen([sys.executable, "-c", _WRITER, "0"], env=os.environ.copy())
    time.sleep(0.05)
    process.kill()
    process.wait()
    entry = cache.load({"version": 1, "entry": "shared"})
    assert entry is None or np.array_equal(entry["values"], np.arange(3_000_000, dtype=float))


def test_two_processes_writing_one_entry(cache):
    processes = [subprocess.Popen([sys.executable, "-c", _WRITER, "0"], env=os.environ.copy(),
                                  stdout=subprocess.PIPE, text=True) for _ in range(2)]
    assert [p.communicate()[0].strip() for p in processes] == ["written", "written"]
    entry = cache.load({"version": 1, "entry": "shared"})
    np.testing.assert_array_equal(entry["values"], np.arange(3_000_000, dtype=float))
    assert not list(cache.folder.glob(".*.part*"))


def test_data_digest_sees_values_shape_and_sparsity_layout():
    X = sp.csr_matrix(np.array([[1, 0], [0, 2]]))
    same = sp.csr_matrix(np.array([[1, 0], [0, 2]]))
    assert data_digest(X, [1, 2]) == data_digest(same, (1, 2))
    assert data_digest(X) != data_digest(sp.csr_matrix(np.array([[1, 0], [0, 3]])))
    assert data_digest(np.zeros(4)) != data_digest(np.zeros((2, 2)))
    assert data_digest(np.zeros(2, dtype=int)) != data_digest(np.zeros(2, dtype=float))


def square(value, offset=0):
    return {"square": np.array(value * value + offset)}


def test_run_jobs_caches_each_job_and_resumes(cache, monkeypatch):
    jobs = [{"value": v} for v in range(5)]

    def key(job):
        return {"version": 1, **job}

    first = run_jobs(square, jobs[:3], kind="squares", key=key, progress=False)
    assert [int(r["square"]) for r in first] == [0, 1, 4]
    # the first three come from the cache (offset would change them), two are computed
    later = run_jobs(square, jobs, kind="squares", key=key, shared={"offset": 100},
                     progress=False)
    assert [int(r["square"]) for r in later] == [0, 1, 4, 109, 116]
    fresh = run_jobs(square, jobs, kind="squares", key=key, shared={"offset": 100},
                     use_cache=False, progress=False)
    assert [int(r["square"]) for r in fresh] == [100, 101, 104, 109, 116]


def test_run_jobs_parallel_equals_serial(cache):
    jobs = [{"value": v} for v in range(6)]
    serial = run_jobs(square, jobs, kind="a", key=lambda j: j, n_jobs=1, progress=False)
    parallel = run_jobs(square, jobs, kind="b", key=lambda j: j, n_jobs=2, progress=False)
    assert [int(r["square"]) for r in serial] == [int(r["square"]) for r in parallel]


# -- compact entries ------------------------------------------------------------------------------
STRINGS = {
    "vocabulary": np.array(["a", "naïve", "", "🙂 emoji", "x" * 180, "tab\tin", "a\x00b"]),
    "grid": np.array([["ab", "c"], ["", "dddd"]]),
    "scalar": np.array("one string"),
    "empty": np.array([], dtype=str),
    "counts": np.arange(6).reshape(2, 3),
}


def test_strings_come_back_with_their_dtype_shape_and_values(cache):
    cache.save(KEY, STRINGS)
    got = cache.load(KEY)
    assert set(got) == set(STRINGS)
    for name, value in STRINGS.items():
        assert got[name].dtype == value.dtype and got[name].shape == value.shape, name
        np.testing.assert_array_equal(got[name], value)


def test_a_vocabulary_is_stored_compactly(cache, tmp_path):
    words = np.array([f"w{i}" for i in range(20_000)] + ["x" * 180])  # dtype <U180: 720 B a word
    cache.save(KEY, {"vocabulary": words})
    np.savez(tmp_path / "plain.npz", vocabulary=words)  # how entries were written before
    plain, compact = (tmp_path / "plain.npz").stat().st_size, cache.path(KEY).stat().st_size
    assert plain > 14_000_000 and compact < plain / 100
    np.testing.assert_array_equal(cache.load(KEY)["vocabulary"], words)
    with zipfile.ZipFile(cache.path(KEY)) as archive:
        assert {info.compress_type for info in archive.infolist()} == {zipfile.ZIP_DEFLATED}


def test_packed_strings_that_disagree_with_their_lengths_are_damage(cache):
    cache.save(KEY, {"words": np.array(["lecture", "exam"])})
    path = cache.path(KEY)
    with np.load(path) as stored:
        arrays = {name: stored[name] for name in stored.files}
    arrays["__lengths__.words"] = np.array([7, 5])  # one character more than the text holds
    np.savez_compressed(path, **arrays)
    with pytest.warns(CacheWarning, match=r"discarding damaged cache entry .*do not match"):
        assert cache.load(KEY) is None


def test_an_uncompressed_entry_of_the_earlier_format_is_still_read(cache):
    path = cache.path(KEY)
    path.parent.mkdir(parents=True)
    np.savez(path, **ARRAYS, __key__=np.array(canonical_json(cache.full_key(KEY))))
    assert_arrays(cache.load(KEY))


def test_every_stored_result_still_loads():
    entries = sorted((STORED_RESULTS / "cache").glob("*/*.npz"))
    assert len(entries) > 100
    for path in entries:
        kind, full = path.parent.name, stored_key(path)
        code = full.pop("code")
        stored = ResultCache(kind, folder=Path(path).parents[2] / "no-cache", code=None,
                             store=STORED_RESULTS / "cache")
        stored.code = code  # the entry's own code: the key the store was made for
        assert stored.path(full).name == path.name
        arrays = stored.load(full)
        assert arrays is not None and "__key__" not in arrays, path


# -- size report and pruning ----------------------------------------------------------------------
def make_entries(root, specs):
    """Hand-made entries ``(kind, hex name, size in bytes, age in hours)``; returns their paths."""
    now = time.time()
    paths = []
    for kind, name, size, age in specs:
        path = root / kind / f"{kind}-{name * 24}.npz"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x" * size)
        os.utime(path, (now - age * 3600, now - age * 3600))
        paths.append(path)
    return paths


SPECS = [("counts", "a", 4000, 5), ("curves", "b", 3000, 1), ("counts", "c", 2000, 3),
         ("curves", "d", 1000, 2)]


def test_size_report_counts_entries_only(tmp_path):
    make_entries(tmp_path, SPECS)
    (tmp_path / "counts" / "notes.txt").write_text("not an entry")
    (tmp_path / "counts" / ".counts-x.abc.part.npz").write_bytes(b"a write under way")
    (tmp_path / "curves" / f"counts-{'e' * 24}.npz").write_bytes(b"another kind's name")
    assert cache_size(tmp_path) == {"counts": (2, 6000), "curves": (2, 4000)}
    assert [p.name[-6:-4] for p, _, _ in cache_entries(tmp_path)] == ["aa", "cc", "dd", "bb"]


def test_prune_removes_the_oldest_first_down_to_the_size(tmp_path):
    a, b, c, d = make_entries(tmp_path, SPECS)
    other = tmp_path / "counts" / "notes.txt"
    other.write_text("kept")
    removed = prune(5000, tmp_path)  # 10000 bytes: the 5-hour and the 3-hour entries go
    assert removed == [(a, 4000), (c, 2000)]
    assert not a.exists() and not c.exists() and b.exists() and d.exists() and other.exists()
    assert prune(4000, tmp_path) == []  # already small enough
    assert prune(0, tmp_path) == [(d, 1000), (b, 3000)]
    assert cache_size(tmp_path) == {}


def test_a_read_makes_an_entry_young_again(cache):
    cache.save(KEY, ARRAYS)
    old = time.time() - 10 * 3600
    os.utime(cache.path(KEY), (old, old))
    cache.load(KEY)
    assert cache.path(KEY).stat().st_mtime > old + 9 * 3600


def test_prune_never_touches_the_stored_results(tmp_path):
    before = {p: p.stat().st_mtime for p in (STORED_RESULTS / "cache").rglob("*.npz")}
    for folder in (STORED_RESULTS, STORED_RESULTS / "cache", STORED_RESULTS / "cache" / "curves"):
        with pytest.raises(ValueError, match="holds the project's stored results, which are "
                                             "never pruned; point SSLVIZ_CACHE at your own"):
            prune(0, folder)
    assert {p: p.stat().st_mtime for p in (STORED_RESULTS / "cache").rglob("*.npz")} == before


@pytest.mark.parametrize(("text", "expected"), [
    ("500MB", 500_000_000), ("2GB", 2_000_000_000), ("1.5 GiB", 3 * 2**29), ("0", 0),
    ("10kb", 10_000), ("300M", 300_000_000), ("7", 7), ("64B", 64), ("1KiB", 1024),
])
def test_sizes(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["", "MB", "-5MB", "5 apples", "1e3MB", "5MBB", "five"])
def test_a_malformed_size_is_refused_with_examples(text, capsys):
    with pytest.raises(ValueError, match=r"is not a size: give a number and a unit, such as "
                                         r"500MB, 2GB, 1.5GiB or 0"):
        parse_size(text)
    with pytest.raises(SystemExit) as stop:
        commands.main(["cache", f"--prune={text}"])
    assert stop.value.code == 2
    assert f"argument --prune: {text!r} is not a size" in capsys.readouterr().err


def test_cache_command_reports_and_prunes(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SSLVIZ_CACHE", str(tmp_path))
    make_entries(tmp_path, SPECS)
    assert commands.main(["cache", "--size"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"result cache {tmp_path}: 10.0 kB in 4 entries"
    assert out[1].split() == ["counts", "2", "entries", "6.0", "kB"]
    assert out[2].split() == ["curves", "2", "entries", "4.0", "kB"]
    assert commands.main(["cache", "--prune", "5kB"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["removed 2 entries (6.0 kB), least recently used first",
                   f"result cache {tmp_path}: 4.0 kB in 2 entries"]
