"""The Yarowsky lecture's experiments: word-sense tasks, scored runs, the supervised comparison,
the map of instances."""

import threading

import numpy as np
import pytest
from yarowsky_corpus import SEEDS, FakeCorpus, corpus_data, small_runs

import sslviz.experiments.yarowsky as module
from sslviz.decision_list import DecisionList
from sslviz.experiments.yarowsky import (
    final_label_shares,
    instance_map,
    instance_maps,
    sense_task,
    supervised_accuracy,
    supervised_decision_list,
    yarowsky_run,
)
from sslviz.yarowsky import Yarowsky, accuracy_by_iteration


@pytest.fixture(scope="module")
def corpus():
    return FakeCorpus()


# -- comparison and experiment helpers -----------------------------------------------------------
def test_supervised_decision_list_is_a_list_on_a_stratified_draw(corpus):
    X, _, y = corpus_data(corpus)
    model, rows = supervised_decision_list(X, y, 20, random_state=0)
    assert len(rows) == 20 and len(set(rows)) == 20
    assert set(y[rows]) == {"a", "b"}
    reference = DecisionList().fit(X[rows], y[rows])
    np.testing.assert_array_equal(model.predict(X), reference.predict(X))
    _, again = supervised_decision_list(X, y, 20, random_state=0)
    np.testing.assert_array_equal(rows, again)


def test_sense_task_and_run(corpus):
    task = sense_task(corpus, window=10, test_size=0.25, random_state=0)
    assert len(task.test) == 41 and len(task.pool) == 122
    assert len(np.intersect1d(task.pool, task.test)) == 0
    assert abs(np.mean(task.y[task.test] == "b") - np.mean(task.y == "b")) < 0.05
    run = yarowsky_run(task, SEEDS, threshold=0.9)
    model = Yarowsky(SEEDS, threshold=0.9).fit(task.X[task.pool],
                                               feature_names=task.feature_names)
    np.testing.assert_array_equal(run.model.labels_, model.labels_)
    np.testing.assert_allclose(run.test_accuracy, accuracy_by_iteration(
        model, task.X[task.test], task.y[task.test]))
    np.testing.assert_allclose(run.coverage, model.trace_.values("coverage"))
    accuracies = supervised_accuracy(task, 10, seeds=(0, 1))
    for seed, accuracy in zip((0, 1), accuracies, strict=True):
        dl, _ = supervised_decision_list(task.X[task.pool], task.y[task.pool], 10,
                                         random_state=seed)
        assert accuracy == np.mean(dl.predict(task.X[task.test]) == task.y[task.test])
    with pytest.raises(ValueError, match=r"unknown senses \['c'\] of 'w'"):
        sense_task(corpus, ["a", "c"])


def test_final_label_shares_count_where_each_sense_ended(corpus):
    task = sense_task(corpus, window=10, test_size=0.25, random_state=0)
    run = yarowsky_run(task, SEEDS, threshold=0.9, mode="rejudge")
    gold = task.y[task.pool]
    shares = final_label_shares(run, gold)
    final = run.model.trace_[-1].labels
    for i, sense in enumerate(run.model.classes_):  # counted by hand, one cell at a time
        rows = gold == sense
        for j in range(len(run.model.classes_)):
            assert shares[i, j] == np.sum(final[rows] == j) / np.sum(rows)
        assert shares[i, -1] == np.sum(final[rows] < 0) / np.sum(rows)
    np.testing.assert_allclose(shares.sum(axis=1), 1)
    with pytest.raises(ValueError, match=r"^gold has 3 senses but the run labeled 122 "):
        final_label_shares(run, gold[:3])


def test_instance_map_is_a_seeded_2d_layout(corpus):
    runs = small_runs(corpus)
    task = runs.task("w")
    xy = runs.map("w")
    assert xy.shape == (len(task.pool), 2) and np.isfinite(xy).all()
    np.testing.assert_allclose(instance_map(task.X[task.pool], random_state=0), xy)



@pytest.fixture
def counted_maps(monkeypatch):
    """Counts the t-SNE maps really computed (by any thread), per number of instances."""
    calls, lock = [], threading.Lock()
    real = module.instance_map

    def counting(X, **params):
        with lock:
            calls.append(X.shape[0])
        return real(X, **params)

    monkeypatch.setattr(module, "instance_map", counting)
    return calls


@pytest.fixture
def cache_folder(result_cache):
    return result_cache


def test_maps_are_kept_on_disk_and_read_back_without_a_refit(corpus, counted_maps, cache_folder):
    runs = small_runs(corpus, disk_cache=True)
    task = runs.task("w")
    xy = runs.map("w")
    assert counted_maps == [len(task.pool)]
    assert len(list((cache_folder / "yarowsky_map").glob("*.npz"))) == 1
    assert runs.map("w") is xy  # in memory
    again = small_runs(corpus, disk_cache=True)  # a new kernel: read from the disk cache
    np.testing.assert_array_equal(again.map("w"), xy)
    assert counted_maps == [len(task.pool)]
    fresh = instance_map(task.X[task.pool], random_state=0, **module.MAP_PARAMS)
    np.testing.assert_array_equal(fresh, xy)  # the cache holds what t-SNE really computed
    np.testing.assert_array_equal(instance_maps([task.X[task.pool]], random_state=0)[0], xy)
    assert counted_maps == [len(task.pool)]  # (the fresh map above is not counted)


def test_each_map_is_computed_once_when_two_threads_ask(corpus, counted_maps):
    import threading

    runs = small_runs(corpus)
    other = threading.Thread(target=lambda: [runs.map("w"), runs.map("v")])  # an explorer's
    other.start()  # background work, say
    v = runs.map("v")  # computed by this thread or the other, never by both
    w = runs.map("w")
    other.join(60)
    assert sorted(counted_maps) == sorted([len(runs.task("w").pool), len(runs.task("v").pool)])
    assert runs.map("v") is v and runs.map("w") is w
    assert len(counted_maps) == 2
    np.testing.assert_array_equal(v, instance_map(runs.task("v").X[runs.task("v").pool],
                                                  random_state=0))


def test_a_failed_map_raises_where_it_is_asked_for_and_can_be_retried(corpus, monkeypatch):
    runs = small_runs(corpus)
    real = module.instance_map
    monkeypatch.setattr(module, "instance_map", lambda X, **params: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        runs.map("w")
    monkeypatch.setattr(module, "instance_map", real)
    assert runs.map("w").shape == (len(runs.task("w").pool), 2)
    with pytest.raises(ValueError, match="no seeds for 'x'"):
        runs.map("x")


def _assert_same_task(task, expected):
    assert (task.word, task.senses) == (expected.word, expected.senses)
    assert (task.X != expected.X).nnz == 0 and task.X.shape == expected.X.shape
    assert task.X.dtype == expected.X.dtype
    for name in ("y", "feature_names", "pool", "test"):
        np.testing.assert_array_equal(getattr(task, name), getattr(expected, name))
    assert task.contexts == expected.contexts


def test_a_sense_task_is_kept_on_disk_and_read_back_unchanged(corpus, cache_folder, monkeypatch):
    built = []

    def fake_senseval(word, senses, data_dir=None):
        built.append(word)
        return corpus

    monkeypatch.setattr(module, "load_senseval", fake_senseval)
    monkeypatch.setattr(module, "locate", lambda name, data_dir=None: "senseval.zip")
    monkeypatch.setattr(module, "file_sha256", lambda path: "0" * 64)
    expected = sense_task(corpus, window=10, stop_words=(), test_size=0.25, random_state=0)
    first = module.load_sense_task("w", ("a", "b"), stop_words=None)
    _assert_same_task(first, expected)  # what sense_task makes of the loaded corpus
    again = module.load_sense_task("w", ("a", "b"), stop_words=None)  # a new kernel: from disk
    assert built == ["w"] and len(list((cache_folder / "sense_tasks").glob("*.npz"))) == 1
    _assert_same_task(again, expected)
    module.load_sense_task("w", ("a", "b"), stop_words=None, random_state=1)  # another split
    module.load_sense_task("w", ("a", "b"), stop_words=None, use_cache=False)  # rebuilt
    assert built == ["w", "w", "w"]
