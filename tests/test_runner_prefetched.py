"""sslviz.experiments.runner.Prefetched: each key computed once, now or in a background thread."""

import threading

import pytest

from sslviz.experiments.runner import Prefetched


def test_each_key_is_computed_once_whoever_asks_first():
    calls, release = [], threading.Event()

    def compute(key):
        calls.append(key)
        if key == "slow":
            assert release.wait(30)
        return key.upper()

    results = Prefetched(compute)
    thread = results.prefetch(["slow", "a", "b"])
    assert thread.daemon
    while calls != ["slow"]:  # the thread is inside "slow"
        threading.Event().wait(0.001)
    waiting = threading.Thread(target=lambda: calls.append(("got", results("slow"))))
    waiting.start()  # waits for the thread's result, never computes it again
    release.set()
    assert results("b") == "B"  # not reached by the thread yet: the caller may take it
    thread.join(30)
    waiting.join(30)
    assert sorted(c for c in calls if isinstance(c, str)) == ["a", "b", "slow"]
    assert ("got", "SLOW") in calls
    assert "a" in results and "c" not in results
    assert results.prefetch(["a", "b", "slow"]) is None  # nothing left to do
    assert results("a") == "A" and calls.count("a") == 1


def test_one_computation_at_a_time():
    running, overlaps = [], []

    def compute(key):
        running.append(key)
        overlaps.append(len(running))
        threading.Event().wait(0.01)
        running.remove(key)
        return key

    results = Prefetched(compute)
    threads = [results.prefetch(range(i, 20, 3)) for i in range(3)]
    assert [results(k) for k in range(20)] == list(range(20))
    for thread in threads:
        if thread is not None:
            thread.join(30)
    assert max(overlaps) == 1


def test_an_error_reaches_whoever_asks_and_is_not_kept():
    fail = [True]

    def compute(key):
        if fail[0]:
            raise ValueError(f"no {key}")
        return key

    results = Prefetched(compute)
    results.prefetch(["x"]).join(30)
    assert "x" not in results
    with pytest.raises(ValueError, match="no x"):
        results("x")
    fail[0] = False
    assert results("x") == "x" and "x" in results
