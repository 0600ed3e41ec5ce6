"""The Fisher-table experiment (sslviz.experiments, Lecture 06 section) on a small topic corpus.

Every test points ``SSLVIZ_CACHE`` at a temporary folder.
"""

import json

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.preprocessing import normalize
from sklearn.svm import LinearSVC
from synthetic import topic_corpus

import sslviz.experiments
from sslviz.experiments import (
    FISHER_METHODS,
    LABELED_ONLY_METHODS,
    PAPER_SIZES,
    PAPER_TABLE_1,
    FisherSettings,
    fisher_figure_text,
    fisher_grid,
    fisher_split_accuracies,
    fisher_table_text,
    paper_test_folds,
)
from sslviz.fisher import FisherKernelNB
from sslviz.splits import split_labeled
from sslviz.tsvm import TransductiveSVM

X, Y, _ = topic_corpus(n_docs=300, n_words=30, seed=1, n_topics=3, words_per_topic=4,
                       background=0.6, topic_rate=1.0)
FOLDS = paper_test_folds(Y, n_folds=5, seed=0)
SETTINGS = FisherSettings(max_iter=5, annealing=(0.1, 1.0))
GRID = dict(sizes=[6, 30], unlabeled_sizes=[40, 120], splits=[0, 1], test_folds=FOLDS,
            settings=SETTINGS, progress=False)
CHEAP = ("n-cat", "ul-cat", "linear", "nb+em", "nb")


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("SSLVIZ_CACHE", str(folder))
    return folder


def refuse(*args, **kwargs):
    raise AssertionError("refitted although the result is cached")


def test_paper_test_folds_partition_the_corpus_stratified():
    folds = paper_test_folds(Y, n_folds=5, seed=0)
    everything = np.concatenate(folds)
    assert len(everything) == len(Y) and len(np.unique(everything)) == len(Y)
    for fold in folds:
        assert np.all(np.diff(fold) > 0)
        np.testing.assert_array_equal(np.bincount(Y[fold]), [20, 20, 20])
    assert not np.array_equal(paper_test_folds(Y, seed=1)[0], folds[0])


def test_split_accuracies_equal_a_manual_computation():
    accuracy, seconds = fisher_split_accuracies(X, Y, n_labeled=15, n_unlabeled=120,
                                                test_rows=FOLDS[2], seed=2, settings=SETTINGS)
    assert set(accuracy) == set(seconds) == set(FISHER_METHODS)
    assert all(s >= 0 for s in seconds.values())
    split = split_labeled(Y, 15, n_unlabeled=120, test_rows=FOLDS[2], random_state=2)
    X_train, y_train = X[split.train], split.semi_supervised_targets(Y)
    X_lab, y_lab, X_test, y_test = X[split.labeled], Y[split.labeled], X[FOLDS[2]], Y[FOLDS[2]]
    for variant, nb_method in (("n-cat", "nb"), ("ul-cat", "nb+em"), ("ul-cl", None)):
        kernel = FisherKernelNB(variant=variant, annealing=(0.1, 1.0), max_iter=5,
                                random_state=2).fit(X_train, y_train)
        svm = LinearSVC(C=1.0, loss="hinge", max_iter=10_000, random_state=0)
        svm.fit(kernel.transform(X_lab), y_lab)
        assert accuracy[variant] == np.mean(svm.predict(kernel.transform(X_test)) == y_test)
        if nb_method:
            assert accuracy[nb_method] == np.mean(kernel.nb_.predict(X_test) == y_test)
    svm = LinearSVC(C=1.0, loss="hinge", max_iter=10_000, random_state=0)
    svm.fit(normalize(X_lab), y_lab)
    assert accuracy["linear"] == np.mean(svm.predict(normalize(X_test)) == y_test)
    tsvm = TransductiveSVM(C=1.0, C_unlabeled=1.0, random_state=2)
    tsvm.fit(normalize(X_train), y_train)
    assert accuracy["tsvm"] == np.mean(tsvm.predict(normalize(X_test)) == y_test)


def test_tsvm_gets_a_random_subset_of_the_unlabeled_posts():
    settings = FisherSettings(tsvm_max_unlabeled=50)
    accuracy, _ = fisher_split_accuracies(X, Y, n_labeled=15, n_unlabeled=120,
                                          test_rows=FOLDS[0], seed=4, methods=["tsvm"],
                                          settings=settings)
    big = split_labeled(Y, 15, n_unlabeled=120, test_rows=FOLDS[0], random_state=4)
    small = split_labeled(Y, 15, n_unlabeled=50, test_rows=FOLDS[0], random_state=4)
    np.testing.assert_array_equal(big.labeled, small.labeled)
    assert set(small.unlabeled) < set(big.unlabeled)
    assert len(np.unique(Y[small.unlabeled])) == 3  # not the first rows of one class
    tsvm = TransductiveSVM(random_state=4).fit(normalize(X[small.train]),
                                               small.semi_supervised_targets(Y))
    assert accuracy == {"tsvm": np.mean(tsvm.predict(normalize(X[FOLDS[0]])) == Y[FOLDS[0]])}


def test_grid_cells_are_split_accuracies_and_labeled_only_methods_repeat():
    grid = fisher_grid(X, Y, methods=CHEAP, use_cache=False, **GRID)
    assert grid.accuracy.shape == (2, 2, 2, len(CHEAP)) == grid.seconds.shape
    assert not np.isnan(grid.accuracy).any()
    expected, _ = fisher_split_accuracies(X, Y, n_labeled=30, n_unlabeled=40,
                                          test_rows=FOLDS[1], seed=1, methods=CHEAP,
                                          settings=SETTINGS)
    for m, method in enumerate(CHEAP):
        assert grid.accuracy[1, 0, 1, m] == expected[method]
        if method in LABELED_ONLY_METHODS:
            np.testing.assert_array_equal(grid.accuracy[:, 0, :, m], grid.accuracy[:, 1, :, m])
            assert np.isnan(grid.seconds[:, 0, :, m]).all()  # not recomputed
    assert grid.mean("ul-cat", 30, 40) == pytest.approx(grid.accuracy[1, 0, :, 1].mean())
    np.testing.assert_allclose(grid.table(), grid.accuracy[:, 1].mean(axis=1) * 100)
    np.testing.assert_allclose(grid.table(40), grid.accuracy[:, 0].mean(axis=1) * 100)
    np.testing.assert_allclose(grid.unlabeled_curve("nb+em", 6),
                               grid.accuracy[0, :, :, 3].mean(axis=1) * 100)
    # more labels help on this corpus (a check of what is stored where)
    assert grid.table()[1, CHEAP.index("nb")] > grid.table()[0, CHEAP.index("nb")]


def test_grid_is_cached_per_method_and_reused_by_other_method_sets(cache, monkeypatch):
    first = fisher_grid(X, Y, methods=("ul-cat", "nb"), **GRID)
    files = sorted((cache / "fisher").rglob("*.json"))
    # ul-cat: 2 sizes x 2 unlabeled sizes x 2 splits; nb: once per labeled set
    assert len(files) == 8 + 4
    record = json.loads(files[0].read_text())
    assert {"method", "n_labeled", "n_unlabeled", "split", "settings", "accuracy",
            "seconds"} <= set(record)
    monkeypatch.setattr(sslviz.experiments, "fisher_split_accuracies", refuse)
    again = fisher_grid(X, Y, methods=("nb", "ul-cat"), **GRID)
    np.testing.assert_array_equal(again.accuracy[..., [1, 0]], first.accuracy)
    with pytest.raises(AssertionError, match="refitted although"):
        fisher_grid(X, Y, methods=("ul-cat",), **{**GRID, "settings": FisherSettings()})
    with pytest.raises(AssertionError, match="refitted although"):
        fisher_grid(X, Y, methods=("ul-cat",), **{**GRID, "sizes": [12]})


def test_tsvm_cache_key_ignores_em_settings_but_not_its_own():
    assert FisherSettings(alpha=0.1).key("tsvm") == FisherSettings().key("tsvm")
    assert FisherSettings(tsvm_max_unlabeled=10).key("tsvm") != FisherSettings().key("tsvm")
    assert FisherSettings(tsvm_max_unlabeled=10).key("ul-cat") == FisherSettings().key("ul-cat")
    assert FisherSettings(C=2.0).key("nb") == FisherSettings().key("nb")
    assert FisherSettings(alpha=2.0).key("nb") != FisherSettings().key("nb")


def test_parallel_results_do_not_depend_on_n_jobs():
    serial = fisher_grid(X, Y, methods=("ul-cat", "linear"), use_cache=False, n_jobs=1, **GRID)
    parallel = fisher_grid(X, Y, methods=("ul-cat", "linear"), use_cache=False, n_jobs=2,
                           **GRID)
    np.testing.assert_array_equal(serial.accuracy, parallel.accuracy)


def test_tables_as_text():
    grid = fisher_grid(X, Y, methods=CHEAP, **{**GRID, "sizes": [6, 100]})
    text = fisher_table_text(grid)
    lines = text.splitlines()
    assert lines[0].split()[:3] == ["#labeled", "SVM", "(n-cat)"]
    row = lines[2].split()
    assert row[0] == "100"
    table = grid.table()
    paper = PAPER_TABLE_1[PAPER_SIZES.index(100)]
    assert row[1:5] == [f"{table[1, 0]:.1f}", f"({paper[0]:.1f})", f"{table[1, 1]:.1f}",
                        f"({paper[1]:.1f})"]
    assert "(" not in lines[1]  # no paper value for 6 labeled posts
    figure = fisher_figure_text(grid, "ul-cat").splitlines()
    assert figure[0] == "SVM (ul-cat)"
    assert figure[2].split() == ["6"] + [f"{a:.1f}" for a in grid.unlabeled_curve("ul-cat", 6)]


@pytest.mark.parametrize("kwargs, message", [
    ({"methods": ("ul-cat", "rbf")}, r"unknown method\(s\) \['rbf'\]; choose from"),
    ({"splits": [0, 7]}, r"splits must lie in 0..4 \(one per test fold\), got \[0, 7\]"),
    ({"sizes": [2]}, "n_labeled=2 is smaller than the number of classes"),
])
def test_bad_grids(kwargs, message):
    with pytest.raises(ValueError, match=message):
        fisher_grid(X, Y, **{**GRID, "methods": ("ul-cat",), **kwargs})


def test_command_line_runs_a_small_table(monkeypatch, capsys):
    from sslviz.text import CountCorpus

    corpus = CountCorpus(X, Y, ["a", "b", "c"], np.array([f"w{i}" for i in range(30)]),
                         np.array([f"d{i}" for i in range(300)]))
    monkeypatch.setattr(sslviz.experiments, "load_fisher_corpus", lambda: corpus)
    code = sslviz.experiments.main(["fisher-table", "--sizes", "100", "--unlabeled", "50",
                                    "--splits", "0", "--methods", "nb", "linear",
                                    "--n-jobs", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    assert lines[0] == ("20 Newsgroups: 300 posts, 30 words; sizes [100], unlabeled [50], "
                        "splits [0], methods ['nb', 'linear']")
    assert lines[1].split() == ["#labeled", "NB", "SVM", "(linear)"]
    grid = fisher_grid(X, Y, sizes=[100], unlabeled_sizes=[50], splits=[0], test_folds=FOLDS,
                       methods=("nb", "linear"), progress=False)
    nb, linear = grid.table()[0]
    assert lines[2].split() == ["100", f"{nb:.1f}", "(13.5)", f"{linear:.1f}", "(31.8)"]
    assert lines[3].startswith("wall time")


def test_rows_stored_unsorted_give_the_same_results():
    """Corpora sliced by columns have unsorted rows; no method may scramble them for the next."""
    coo = X.tocoo()
    order = np.lexsort((-coo.col, coo.row))  # every row's columns in reverse order
    unsorted = sp.csr_matrix((coo.data[order].astype(np.int64), coo.col[order],
                              np.concatenate([[0], np.cumsum(np.bincount(coo.row,
                                                                         minlength=300))])),
                             shape=X.shape)
    assert not unsorted.has_sorted_indices
    assert (unsorted != X).nnz == 0
    kwargs = dict(n_labeled=15, n_unlabeled=120, test_rows=FOLDS[3], seed=3,
                  methods=("n-cat", "ul-cat", "ul-cl", "linear", "nb+em", "nb"),
                  settings=SETTINGS)
    expected, _ = fisher_split_accuracies(X, Y, **kwargs)
    data = unsorted.data.copy()
    got, _ = fisher_split_accuracies(unsorted, Y, **kwargs)
    assert got == expected
    np.testing.assert_array_equal(unsorted.data, data)


def test_unlabeled_methods_run_at_every_size_the_others_at_the_largest(monkeypatch):
    calls = []
    original = sslviz.experiments.fisher_split_accuracies

    def spy(X, y, **kwargs):
        calls.append((kwargs["n_unlabeled"], tuple(kwargs["methods"])))
        return original(X, y, **kwargs)

    monkeypatch.setattr(sslviz.experiments, "fisher_split_accuracies", spy)
    grid = fisher_grid(X, Y, methods=("ul-cat", "nb+em", "linear", "ul-cl"),
                       unlabeled_methods=("ul-cat", "nb+em"), use_cache=False, **GRID)
    accuracy = grid.accuracy
    assert not np.isnan(accuracy[..., :3]).any()  # ul-cat, nb+em, linear (copied)
    assert np.isnan(accuracy[:, 0, :, 3]).all() and not np.isnan(accuracy[:, 1, :, 3]).any()
    assert sorted(calls) == sorted(
        [(40, ("ul-cat", "nb+em"))] * 4
        + [(120, ("ul-cat", "nb+em")), (120, ("ul-cl",)), (120, ("linear",))] * 4)
    # the slowest kinds of job start first
    assert [methods for _, methods in calls[:4]] == [("ul-cl",)] * 4
    np.testing.assert_allclose(grid.unlabeled_curve("ul-cat", 6),
                               accuracy[0, :, :, 0].mean(axis=1) * 100)
