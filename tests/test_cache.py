"""The one disk cache: damaged, swapped, unwritable and half-written entries never give a wrong
result, and always say which file was at fault."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest
import scipy.sparse as sp

from sslviz.cache import CacheWarning, ResultCache, data_digest
from sslviz.experiments.runner import run_jobs

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
    ({"__key__": np.arange(3)}, r"^'__key__' is reserved for the entry's key"),
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
