"""The Fisher-table experiment (sslviz.experiments.fisher, Lecture 06) on a small topic corpus.

Every test has a private result cache (tests/conftest.py).
"""

import shutil
from dataclasses import replace

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import PATIENCE_S, reference_svm_c
from scipy.special import gammaln
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import normalize
from sklearn.svm import LinearSVC
from synthetic import topic_corpus

import sslviz.experiments.fisher as fisher_experiments
from sslviz.cache import ResultCache
from sslviz.experiments.__main__ import main
from sslviz.experiments.fisher import (
    FISHER_METHODS,
    LABELED_ONLY_METHODS,
    PAPER_SETTINGS,
    PAPER_SIZES,
    PAPER_TABLE_1,
    FisherSettings,
    fisher_document_view,
    fisher_grid,
    fisher_models_by_variant,
    fisher_split_accuracies,
    paper_test_folds,
    stored_fisher_grid,
)
from sslviz.experiments.fisher_command import (
    fisher_figure_text,
    fisher_spread_text,
    fisher_table_text,
)
from sslviz.experiments.fisher_views import fisher_table_view, paper_table
from sslviz.fisher import FisherKernelNB, top_entries
from sslviz.splits import split_labeled
from sslviz.tsvm import TransductiveSVM

X, Y, _ = topic_corpus(n_docs=300, n_words=30, seed=1, n_topics=3, words_per_topic=4,
                       background=0.6, topic_rate=1.0)
FOLDS = paper_test_folds(Y, n_folds=5, seed=0)
SETTINGS = FisherSettings(max_iter=5, annealing=(0.1, 1.0))
GRID = dict(sizes=[6, 30], unlabeled_sizes=[40, 120], splits=[0, 1], test_folds=FOLDS,
            settings=SETTINGS, progress=False)
CHEAP = ("n-cat", "ul-cat", "linear", "nb+em", "nb")


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


def test_split_accuracies_with_the_paper_settings_equal_a_manual_computation():
    paper = replace(PAPER_SETTINGS, max_iter=5, annealing=(0.1, 1.0))
    accuracy, seconds, chosen, at_bound = fisher_split_accuracies(
        X, Y, n_labeled=15, n_unlabeled=120, test_rows=FOLDS[2], seed=2, settings=paper)
    assert set(accuracy) == set(seconds) == set(chosen) == set(FISHER_METHODS)
    assert not any(at_bound.values())  # given values are never an edge
    assert all(s >= 0 for s in seconds.values())
    assert chosen == {"n-cat": 1.0, "ul-cat": 1.0, "ul-cl": 1.0, "counts": 1.0, "linear": 1.0,
                      "tsvm": 1.0, "nb+em": 1.0, "nb": 1.0}
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
    assert accuracy["counts"] == accuracy["linear"]  # the paper's features: both see counts
    tsvm = TransductiveSVM(C=1.0, C_unlabeled=1.0, random_state=2)
    tsvm.fit(normalize(X_train), y_train)
    assert accuracy["tsvm"] == np.mean(tsvm.predict(normalize(X_test)) == y_test)


def _svm_c(X, y, grid, seed, cv=5):
    """C as scikit-learn's own search picks it on the same shuffled stratified folds
    (balanced accuracy, hinge-loss ties, the grid extended by decades: helpers.reference_svm_c)."""
    folds = StratifiedKFold(min(cv, np.bincount(y).min()), shuffle=True, random_state=seed)
    return reference_svm_c(X, y, grid, list(folds.split(X, y)))[0]


def _evidence_alpha(X, y, grid):
    """NB's α with the largest Dirichlet-multinomial evidence of each class's pooled counts,
    written out with scipy's log-gamma over every word; while the best α is an end of the grid
    the grid grows by a decade on that side (up to 1e-6 and 100)."""
    X = np.asarray(X.todense())
    n_words = X.shape[1]

    def evidence(alpha):
        total = 0.0
        for label in np.unique(y):
            n = X[y == label].sum(axis=0)
            total += (gammaln(n_words * alpha) - gammaln(n_words * alpha + n.sum())
                      + np.sum(gammaln(alpha + n) - gammaln(alpha)))
        return total

    values = sorted(grid)
    while True:
        best = int(np.argmax([evidence(alpha) for alpha in values]))
        if best == len(values) - 1 and values[-1] < 100:
            values.append(values[-1] * 10)
        elif best == 0 and values[0] > 1e-6:
            values.insert(0, values[0] / 10)
        else:
            return values[best]


def test_tuned_settings_choose_alpha_and_C_on_the_labeled_posts_only():
    seed, settings = 2, FisherSettings(max_iter=5, annealing=(0.1, 1.0))
    accuracy, _, chosen, at_bound = fisher_split_accuracies(
        X, Y, n_labeled=30, n_unlabeled=120, test_rows=FOLDS[2], seed=seed,
        methods=("nb", "nb+em", "linear", "counts", "ul-cat"), settings=settings)
    assert not at_bound["nb"] and not at_bound["nb+em"]
    split = split_labeled(Y, 30, n_unlabeled=120, test_rows=FOLDS[2], random_state=seed)
    X_lab, y_lab, X_test, y_test = X[split.labeled], Y[split.labeled], X[FOLDS[2]], Y[FOLDS[2]]
    alpha = _evidence_alpha(X_lab, y_lab, sorted(settings.alpha_grid))
    assert chosen["nb"] == chosen["nb+em"] == alpha
    # the Fisher models take NB's α: the n-cat and ul-cat models behind NB and NB+EM
    for variant, method in (("n-cat", "nb"), ("ul-cat", "nb+em")):
        model = FisherKernelNB(variant=variant, alpha=alpha, annealing=(0.1, 1.0), max_iter=5,
                               random_state=seed).fit(X[split.train],
                                                      split.semi_supervised_targets(Y))
        assert accuracy[method] == np.mean(model.nb_.predict(X_test) == y_test)
    tfidf = TfidfTransformer().fit(X_lab)  # idf from the labeled posts only
    svm = LinearSVC(loss="hinge", max_iter=10_000, random_state=0)
    C = _svm_c(tfidf.transform(X_lab), y_lab, settings.C_grid, seed)
    assert chosen["linear"] == C
    assert at_bound["linear"] == (C in (1e-4, 1e4))  # recorded where it stopped at a bound
    svm.set_params(C=C).fit(tfidf.transform(X_lab), y_lab)
    assert accuracy["linear"] == np.mean(svm.predict(tfidf.transform(X_test)) == y_test)
    # the paper's baseline: unit-length counts, C chosen by the same search
    svm = LinearSVC(loss="hinge", max_iter=10_000, random_state=0)
    C = _svm_c(normalize(X_lab), y_lab, settings.C_grid, seed)
    assert chosen["counts"] == C and at_bound["counts"] == (C in (1e-4, 1e4))
    svm.set_params(C=C).fit(normalize(X_lab), y_lab)
    assert accuracy["counts"] == np.mean(svm.predict(normalize(X_test)) == y_test)
    assert chosen["ul-cat"] > 0
    # the test posts never enter a choice: scrambling their labels changes nothing chosen
    y_scrambled = Y.copy()
    y_scrambled[FOLDS[2]] = np.random.default_rng(0).permutation(Y[FOLDS[2]])
    _, _, again, _ = fisher_split_accuracies(
        X, y_scrambled, n_labeled=30, n_unlabeled=120, test_rows=FOLDS[2], seed=seed,
        methods=("nb", "linear"), settings=settings)
    assert again == {"nb": chosen["nb"], "linear": chosen["linear"]}


def test_tsvm_gets_a_random_subset_of_the_unlabeled_posts():
    settings = FisherSettings(tsvm_max_unlabeled=50)
    accuracy, _, chosen, _ = fisher_split_accuracies(X, Y, n_labeled=15, n_unlabeled=120,
                                                  test_rows=FOLDS[0], seed=4, methods=["tsvm"],
                                                  settings=settings)
    big = split_labeled(Y, 15, n_unlabeled=120, test_rows=FOLDS[0], random_state=4)
    small = split_labeled(Y, 15, n_unlabeled=50, test_rows=FOLDS[0], random_state=4)
    np.testing.assert_array_equal(big.labeled, small.labeled)
    assert set(small.unlabeled) < set(big.unlabeled)
    assert len(np.unique(Y[small.unlabeled])) == 3  # not the first rows of one class
    tfidf = TfidfTransformer().fit(X[small.train])  # idf from all the TSVM's posts
    C = _svm_c(tfidf.transform(X[small.labeled]), Y[small.labeled], settings.C_grid, 4)
    assert chosen == {"tsvm": C}
    tsvm = TransductiveSVM(C=C, C_unlabeled=C, random_state=4)
    tsvm.fit(tfidf.transform(X[small.train]), small.semi_supervised_targets(Y))
    assert accuracy == {"tsvm": np.mean(tsvm.predict(tfidf.transform(X[FOLDS[0]]))
                                        == Y[FOLDS[0]])}


def test_grid_cells_are_split_accuracies_and_labeled_only_methods_repeat():
    grid = fisher_grid(X, Y, methods=CHEAP, use_cache=False, **GRID)
    assert grid.accuracy.shape == (2, 2, 2, len(CHEAP)) == grid.seconds.shape
    assert not np.isnan(grid.accuracy).any()
    expected, _, chosen, at_bound = fisher_split_accuracies(
        X, Y, n_labeled=30, n_unlabeled=40, test_rows=FOLDS[1], seed=1, methods=CHEAP,
        settings=SETTINGS)
    for m, method in enumerate(CHEAP):
        assert grid.accuracy[1, 0, 1, m] == expected[method]
        assert grid.chosen[1, 0, 1, m] == chosen[method]
        assert grid.at_bound[1, 0, 1, m] == at_bound[method]
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


@pytest.fixture(scope="module")
def ul_cat_and_nb(empty_cache):
    """``fisher_grid(methods=("ul-cat", "nb"), **GRID)`` computed once into an empty cache of its
    own: (the grid, that cache's folder), which the tests below copy into their private caches."""
    with empty_cache("ul-cat-nb-cache") as folder:
        grid = fisher_grid(X, Y, methods=("ul-cat", "nb"), **GRID)
    return grid, folder


def test_grid_is_cached_per_job_and_reused_by_other_method_sets(result_cache, monkeypatch,
                                                                ul_cat_and_nb):
    first, computed = ul_cat_and_nb  # what fisher_grid wrote into an empty cache
    files = sorted((computed / "fisher").glob("*.npz"))
    # ul-cat (with nb+em): 2 sizes x 2 unlabeled sizes x 2 splits; nb (with n-cat): once per
    # labeled set
    assert len(files) == 8 + 4
    key = {"version": fisher_experiments.RESULT_VERSION,
           "data": fisher_experiments.data_digest(X, Y, *FOLDS), "n_labeled": 30,
           "n_unlabeled": 0, "split": 1, "methods": ["n-cat", "nb"],
           "settings": SETTINGS.group_key(("n-cat", "nb"))}
    shutil.copytree(computed, result_cache, dirs_exist_ok=True)
    entry = ResultCache("fisher", code=fisher_experiments).load(key)
    assert entry["accuracy"][1] == first.accuracy[1, 0, 1, 1] == first.accuracy[1, 1, 1, 1]
    assert entry["seconds"].shape == (2,)
    monkeypatch.setattr(fisher_experiments, "fisher_split_accuracies", refuse)
    again = fisher_grid(X, Y, methods=("nb", "ul-cat"), **GRID)
    np.testing.assert_array_equal(again.accuracy[..., [1, 0]], first.accuracy)
    np.testing.assert_array_equal(again.seconds[..., [1, 0]], first.seconds)
    nb_em = fisher_grid(X, Y, methods=("nb+em",), **GRID)  # computed with ul-cat
    assert not np.isnan(nb_em.accuracy).any()
    with pytest.raises(AssertionError, match="refitted although"):
        fisher_grid(X, Y, methods=("ul-cat",), **{**GRID, "settings": FisherSettings()})
    with pytest.raises(AssertionError, match="refitted although"):
        fisher_grid(X, Y, methods=("ul-cat",), **{**GRID, "sizes": [12]})


def test_an_interrupted_grid_resumes_and_use_cache_false_recomputes(monkeypatch):
    calls, original = [], fisher_experiments.fisher_split_accuracies

    def interrupted_at_the_third_job(X, y, **kwargs):
        calls.append(kwargs["n_unlabeled"])
        if len(calls) == 3:
            raise KeyboardInterrupt
        return original(X, y, **kwargs)

    monkeypatch.setattr(fisher_experiments, "fisher_split_accuracies",
                        interrupted_at_the_third_job)
    with pytest.raises(KeyboardInterrupt):
        fisher_grid(X, Y, methods=("ul-cat",), **GRID)
    resumed = fisher_grid(X, Y, methods=("ul-cat",), **GRID)
    assert len(calls) == 3 + 8 - 2  # the two finished jobs were kept
    fresh = fisher_grid(X, Y, methods=("ul-cat",), use_cache=False, **GRID)
    assert len(calls) == 3 + 8 - 2 + 8
    np.testing.assert_array_equal(resumed.accuracy, fresh.accuracy)


def test_stored_grid_reads_the_cache_only(result_cache, monkeypatch, ul_cat_and_nb):
    stored_args = {name: value for name, value in GRID.items() if name != "progress"}
    assert stored_fisher_grid(X, Y, methods=("ul-cat", "nb"), **stored_args) is None
    first, computed = ul_cat_and_nb
    shutil.copytree(computed, result_cache, dirs_exist_ok=True)  # what fisher_grid wrote
    monkeypatch.setattr(fisher_experiments, "fisher_split_accuracies", refuse)
    stored = stored_fisher_grid(X, Y, methods=("ul-cat", "nb"), **stored_args)
    np.testing.assert_array_equal(stored.accuracy, first.accuracy)
    np.testing.assert_array_equal(stored.chosen, first.chosen)
    # one missing result (another labeled size) and nothing is returned, nothing computed
    assert stored_fisher_grid(X, Y, methods=("ul-cat", "nb"),
                              **{**stored_args, "sizes": [6, 12]}) is None


def test_kernel_alpha_none_takes_the_alpha_nb_chose_on_the_labeled_posts():
    tuned = FisherSettings(max_iter=5, annealing=(0.1, 1.0))
    run = dict(n_labeled=30, n_unlabeled=120, test_rows=FOLDS[1], seed=1,
               methods=("nb", "ul-cat", "ul-cl"))
    accuracy, _, chosen, _ = fisher_split_accuracies(X, Y, **run, settings=tuned)
    given = replace(tuned, kernel_alpha=chosen["nb"])
    assert fisher_split_accuracies(X, Y, **run, settings=given)[0] == accuracy
    assert tuned.key("ul-cat") != given.key("ul-cat")
    assert "alpha_grid" in tuned.key("ul-cl") and "alpha_grid" not in given.key("ul-cl")
    assert PAPER_SETTINGS.kernel_alpha == 1.0  # the paper's Dirichlet α = 2


def test_group_key_joins_the_settings_of_its_methods():
    settings = FisherSettings(tsvm_max_unlabeled=10)
    assert settings.group_key(("n-cat", "nb")) == {**settings.key("n-cat"), **settings.key("nb")}
    assert "alpha" not in settings.key("n-cat") and "kernel_alpha" not in settings.key("nb")
    assert settings.group_key(("ul-cat", "nb+em")) == {**settings.key("nb+em"),
                                                       **settings.key("ul-cat")}
    assert "tsvm_max_unlabeled" not in settings.group_key(("ul-cat", "nb+em"))
    assert settings.group_key(("tsvm",)) == settings.key("tsvm")


def test_tsvm_cache_key_ignores_em_settings_but_not_its_own():
    assert FisherSettings(alpha=0.1).key("tsvm") == FisherSettings().key("tsvm")
    assert FisherSettings(tsvm_max_unlabeled=10).key("tsvm") != FisherSettings().key("tsvm")
    assert FisherSettings(tsvm_max_unlabeled=10).key("ul-cat") == FisherSettings().key("ul-cat")
    assert FisherSettings(C=2.0).key("nb") == FisherSettings().key("nb")
    assert FisherSettings(alpha=2.0).key("nb") != FisherSettings().key("nb")
    assert FisherSettings(kernel_alpha=2.0).key("nb") == FisherSettings().key("nb")
    assert FisherSettings(kernel_alpha=2.0).key("ul-cat") != FisherSettings().key("ul-cat")
    assert FisherSettings(alpha=2.0).key("ul-cat") == FisherSettings().key("ul-cat")
    assert FisherSettings(features="tf").key("linear") != FisherSettings().key("linear")
    assert FisherSettings(features="tf").key("ul-cl") == FisherSettings().key("ul-cl")
    assert FisherSettings(features="tf").key("counts") == FisherSettings().key("counts")
    assert FisherSettings(C_grid=(1.0, 10.0)).key("counts") != FisherSettings().key("counts")
    assert "C_grid" in FisherSettings().key("linear")
    assert "C_grid" not in FisherSettings(C=1.0).key("linear")  # a fixed C searches nothing
    assert FisherSettings(svm_cv=3).key("ul-cat") != FisherSettings().key("ul-cat")
    assert FisherSettings(svm_cv=3).key("nb") == FisherSettings().key("nb")
    assert FisherSettings(C=1.0, svm_cv=3).key("linear") == FisherSettings(C=1.0).key("linear")


def test_dropping_unused_columns_leaves_the_svm_exactly_the_same():
    # Fisher-like scores: each row's entries in the block of its class, most columns unused
    rng = np.random.default_rng(3)
    scores = sp.random(90, 3000, density=0.01, random_state=4, format="csr")
    labels = rng.integers(0, 3, 90)
    rows = scores.nonzero()[0]
    scores = sp.csr_matrix((scores.data, (rows, scores.indices % 1000 + 1000 * labels[rows])),
                           shape=scores.shape)
    train, test = scores[:40], scores[40:]
    small_train, small_test = fisher_experiments._drop_unused_columns(train, test)
    used = np.unique(train.indices)
    assert small_train.shape[1] == len(used) < train.shape[1] / 2
    for C in (0.1, 3.0):
        full = LinearSVC(C=C, loss="hinge", max_iter=10_000, random_state=0).fit(train,
                                                                                labels[:40])
        small = LinearSVC(C=C, loss="hinge", max_iter=10_000, random_state=0).fit(small_train,
                                                                                 labels[:40])
        np.testing.assert_array_equal(full.coef_[:, used], small.coef_)
        assert not np.delete(full.coef_, used, axis=1).any()  # the dropped columns weigh 0
        np.testing.assert_array_equal(full.decision_function(test),
                                      small.decision_function(small_test))


def test_fewer_folds_for_C_are_the_same_search_with_fewer_folds():
    settings = replace(SETTINGS, svm_cv=3)
    _, _, chosen, _ = fisher_split_accuracies(X, Y, n_labeled=30, n_unlabeled=120,
                                              test_rows=FOLDS[1], seed=1, methods=("linear",),
                                              settings=settings)
    split = split_labeled(Y, 30, n_unlabeled=120, test_rows=FOLDS[1], random_state=1)
    X_lab, y_lab = X[split.labeled], Y[split.labeled]
    features = TfidfTransformer().fit(X_lab).transform(X_lab)
    assert chosen == {"linear": _svm_c(features, y_lab, settings.C_grid, 1, cv=3)}


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
    assert row[5:9] == [f"{table[1, 2]:.1f}", "(", "-", ")"]  # the paper ran no tf-idf SVM
    assert "(" not in lines[1]  # no paper value for 6 labeled posts
    spread = fisher_spread_text(grid).splitlines()
    assert spread[0] == "#labeled: mean over 2 splits [min-max], chosen α or C"
    acc, alphas = grid.accuracy[1, 1, :, 4] * 100, grid.chosen[1, 1, :, 4]  # nb, 100 labeled
    cell = spread[5].split(" | ")[1]
    assert spread[5].startswith(f"{'NB':>14}  6: ")
    assert cell.startswith(f"100: {acc.mean():4.1f} [{acc.min():4.1f}-{acc.max():4.1f}] "
                           f"α {alphas.min():g}")
    figure = fisher_figure_text(grid, "ul-cat").splitlines()
    assert figure[0] == "SVM (ul-cat)"
    assert figure[2].split() == ["6"] + [f"{a:.1f}" for a in grid.unlabeled_curve("ul-cat", 6)]
    ranged = fisher_figure_text(grid, "ul-cat", spread=True).splitlines()
    low, high = grid.accuracy[0, 1, :, 1].min() * 100, grid.accuracy[0, 1, :, 1].max() * 100
    assert ranged[2].endswith(f"{grid.unlabeled_curve('ul-cat', 6)[1]:.1f} "
                              f"[{low:4.1f}-{high:4.1f}]")


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
    monkeypatch.setattr(fisher_experiments, "load_fisher_corpus", lambda: corpus)
    code = main(["fisher-table", "--sizes", "100", "--unlabeled", "50",
                                    "--splits", "0", "--methods", "nb", "linear",
                                    "--n-jobs", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    assert lines[0] == ("20 Newsgroups: 300 posts, 30 words; sizes [100], unlabeled [50], "
                        "splits [0], methods ['nb', 'linear'], tuned settings")
    assert lines[1].split() == ["#labeled", "NB", "SVM", "(linear)"]
    grid = fisher_grid(X, Y, sizes=[100], unlabeled_sizes=[50], splits=[0], test_folds=FOLDS,
                       methods=("nb", "linear"), progress=False)
    nb, linear = grid.table()[0]
    # the paper ran no tf-idf SVM: no value in brackets
    assert lines[2].split() == ["100", f"{nb:.1f}", "(13.5)", f"{linear:.1f}", "(", "-", ")"]
    assert lines[3:6] == fisher_spread_text(grid).splitlines()
    assert lines[6].startswith("wall time")
    assert main(["fisher-table", "--sizes", "100", "--unlabeled", "50", "--splits", "0",
                 "--methods", "counts", "--n-jobs", "1", "--paper-settings"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("methods ['counts'], paper settings")
    paper = fisher_grid(X, Y, sizes=[100], unlabeled_sizes=[50], splits=[0], test_folds=FOLDS,
                        methods=("counts",), settings=PAPER_SETTINGS, progress=False)
    assert lines[2].split() == ["100", f"{paper.table()[0, 0]:.1f}", "(31.8)"]
    assert "C 1 " in lines[4] + " "


def test_with_counts_for_every_svm_the_linear_svm_is_computed_once_as_counts(monkeypatch):
    paper = replace(PAPER_SETTINGS, max_iter=5, annealing=(0.1, 1.0))
    calls = []
    run_job = fisher_experiments._run_job
    monkeypatch.setattr(fisher_experiments, "_run_job",
                        lambda *args, **kwargs: calls.append(kwargs["methods"])
                        or run_job(*args, **kwargs))
    grid = fisher_grid(X, Y, **{**GRID, "settings": paper, "unlabeled_sizes": [40]},
                       methods=("linear", "counts", "nb"), n_jobs=1, use_cache=False)
    assert ("linear",) not in calls and ("counts",) in calls
    assert grid.methods == ("linear", "counts", "nb")
    linear, counts = grid.methods.index("linear"), grid.methods.index("counts")
    np.testing.assert_array_equal(grid.accuracy[..., linear], grid.accuracy[..., counts])
    np.testing.assert_array_equal(grid.chosen[..., linear], grid.chosen[..., counts])
    assert np.all(grid.seconds[..., linear] == 0)
    # with tf-idf for the linear SVM both are computed
    calls.clear()
    fisher_grid(X, Y, **{**GRID, "unlabeled_sizes": [40]}, methods=("linear", "counts"),
                n_jobs=1, use_cache=False)
    assert ("linear",) in calls and ("counts",) in calls


def test_the_spread_counts_the_splits_whose_choice_stopped_at_a_bound():
    from sslviz.experiments.fisher import FisherGrid

    shape = (1, 1, 3, 2)  # one size, one unlabeled size, three splits; methods nb, linear
    accuracy = np.full(shape, 0.5)
    chosen = np.array([[[[0.1, 1e4], [0.1, 3.0], [0.3, 1e4]]]])
    at_bound = np.array([[[[0.0, 1.0], [0.0, 0.0], [0.0, 1.0]]]])
    grid = FisherGrid(np.array([100]), np.array([50]), np.arange(3), ("nb", "linear"), accuracy,
                      np.zeros(shape), chosen, at_bound)
    lines = fisher_spread_text(grid).splitlines()
    assert lines[1] == f"{'NB':>14}  100: 50.0 [50.0-50.0] α 0.1-0.3"
    assert lines[2] == f"{'SVM (linear)':>14}  100: 50.0 [50.0-50.0] C 3-10000 (2 at a bound)"


def test_the_table_says_that_the_papers_tsvm_saw_counts():
    grid = fisher_grid(X, Y, methods=("tsvm", "nb"), **{**GRID, "sizes": [100],
                                                         "unlabeled_sizes": [40]})
    note = "TSVM (linear): ours on tfidf, the paper's (in brackets) on unit-length counts"
    assert fisher_table_text(grid, features="tfidf").splitlines()[-1] == note
    assert note not in fisher_table_text(grid, features="tf")
    assert note not in fisher_table_text(grid)  # features not given: no note


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
    expected, _, _, _ = fisher_split_accuracies(X, Y, **kwargs)
    data = unsorted.data.copy()
    got, _, _, _ = fisher_split_accuracies(unsorted, Y, **kwargs)
    assert got == expected
    np.testing.assert_array_equal(unsorted.data, data)


def test_unlabeled_methods_run_at_every_size_the_others_at_the_largest(monkeypatch):
    calls = []
    original = fisher_experiments.fisher_split_accuracies

    def spy(X, y, **kwargs):
        calls.append((kwargs["n_unlabeled"], tuple(kwargs["methods"])))
        return original(X, y, **kwargs)

    monkeypatch.setattr(fisher_experiments, "fisher_split_accuracies", spy)
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


@pytest.mark.parametrize("arguments, message", [
    (["--splits", "7"], "--splits must lie in 0..4, got [7]"),
    (["--sizes", "-5"], "--sizes must be positive, got [-5]"),
    (["--unlabeled", "0"], "--unlabeled must be positive, got [0]"),
    (["--n-jobs", "0"], "--n-jobs must be a number of processes"),
    (["--tsvm-max-unlabeled", "0"], "--tsvm-max-unlabeled must be positive"),
    (["--methods", "rbf"], "argument --methods: invalid choice: 'rbf'"),
])
def test_command_line_refuses_bad_arguments_before_loading_the_corpus(arguments, message,
                                                                       monkeypatch, capsys):
    monkeypatch.setattr(fisher_experiments, "load_fisher_corpus", refuse)
    with pytest.raises(SystemExit) as stop:
        main(["fisher-table", *arguments])
    assert stop.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.splitlines()) == 1
    assert captured.err.startswith("python -m sslviz.experiments fisher: error: ")
    assert message in captured.err


def test_command_line_runs_as_a_module():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "sslviz.experiments", "fisher-figure",
                           "--splits", "5"], capture_output=True, text=True, timeout=PATIENCE_S)
    assert done.returncode == 2
    assert done.stderr == ("python -m sslviz.experiments fisher: error: --splits must lie in 0..4, "
                           "got [5]\n")


def test_paper_table_picks_the_columns_of_the_methods():
    sizes, table = paper_table(("nb", "ul-cat", "counts", "linear"))
    np.testing.assert_array_equal(sizes, PAPER_SIZES)
    np.testing.assert_array_equal(table[:, 0], PAPER_TABLE_1[:, 6])
    np.testing.assert_array_equal(table[:, 1], PAPER_TABLE_1[:, 1])
    # the paper's linear SVM saw unit-length counts: our "counts"; tf-idf has no column there
    np.testing.assert_array_equal(table[:, 2], [31.8, 44.7, 51.4, 60.0, 68.9, 75.8, 82.1])
    assert np.isnan(table[:, 3]).all()
    with pytest.raises(ValueError, match=r"unknown method\(s\) \['svm'\]; choose from"):
        paper_table(("svm",))


def test_table_view_reads_the_grid(result_cache, ul_cat_and_nb):
    grid = fisher_grid(X, Y, methods=("ul-cat", "linear", "tsvm"), unlabeled_methods=("ul-cat",),
                       **{**GRID, "settings": FisherSettings(max_iter=5, annealing=(1.0,))})
    assert grid.complete_methods() == ["ul-cat", "linear"]
    view = fisher_table_view(grid, method="ul-cat", n_labeled=30, n_unlabeled=40)
    assert (view.method_name, view.largest, view.current) == ("SVM (ul-cat)", 120, "30 labeled")
    assert set(view.table) == {"ul-cat", "linear"}
    np.testing.assert_allclose(view.table["ul-cat"], grid.accuracy[:, 0, :, 0].mean(axis=1) * 100)
    np.testing.assert_allclose(view.curves["6 labeled"],
                               grid.accuracy[0, :, :, 0].mean(axis=1) * 100)
    assert view.reference == pytest.approx(grid.accuracy[1, 1, :, 1].mean() * 100)
    shutil.copytree(ul_cat_and_nb[1], result_cache, dirs_exist_ok=True)  # ul-cat: not refitted
    without_linear = fisher_grid(X, Y, methods=("ul-cat",), **GRID)
    assert fisher_table_view(without_linear, method="ul-cat", n_labeled=6,
                             n_unlabeled=120).reference is None


def test_document_view_describes_one_post():
    from sslviz.text import CountCorpus

    corpus = CountCorpus(X, Y, ["a", "b", "c"], np.array([f"w{i}" for i in range(30)]),
                         np.array([f"d{i}" for i in range(300)]))
    models = fisher_models_by_variant(X, Y, n_labeled=15, n_unlabeled=120, test_rows=FOLDS[0],
                                      seed=0, settings=SETTINGS)
    split, model = models("ul-cat")
    assert models("ul-cat")[1] is model  # fitted once
    row = int(split.test[4])
    view = fisher_document_view(corpus, model, row=row, position=4, variant="ul-cat", k=3)
    posterior = model.nb_.predict_proba(X[row])[0]
    np.testing.assert_array_equal(view.posterior, posterior)
    assert view.component_names == ["a", "b", "c"] and view.true_index == Y[row]
    assert view.predicted_index == int(np.argmax(posterior))
    dense = X[row].toarray().ravel()
    assert [v for _, _, v in view.counts] == pytest.approx(
        sorted(dense / np.linalg.norm(dense))[::-1][:3])
    assert view.entries == top_entries(model.transform(X[row]), ["a", "b", "c"],
                                       corpus.vocabulary, 3)
    assert view.title.startswith(f"test post 4 (corpus row {row}): {'abc'[Y[row]]}")
    clusters = fisher_document_view(corpus, models("ul-cl")[1], row=row, position=4,
                                    variant="ul-cl", k=3)
    assert clusters.component_names == ["cluster 0", "cluster 1", "cluster 2"]
    assert clusters.true_index is None and clusters.model_name.startswith("cluster posterior")
