"""sslviz.experiments.hybrid (evaluation sets, tuning on labeled rows, one evaluation, the cached
table, perplexity, the command line) and the explorers of sslviz.widgets.hybrid, on a small
synthetic corpus. Every test has a private result cache (tests/conftest.py)."""
import json
import shutil

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import refusing
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import MultinomialNB
from synthetic import topic_corpus
from threadpoolctl import threadpool_info, threadpool_limits

import sslviz.experiments.hybrid as H
import sslviz.experiments.hybrid_results as R
import sslviz.experiments.hybrid_studies as S
from sslviz import cli
from sslviz.cache import stored_key
from sslviz.code_digest import code_of
from sslviz.threads import holders
from sslviz.tuning import ALPHA_GRID, choose_by_cv, labeled_folds, loo_log_likelihood

X, Y, _ = topic_corpus(n_docs=300, n_words=30, n_labeled=0, seed=5)
SETTINGS = {"n_test": 60, "n_unlabeled": 150}


@pytest.fixture(scope="module")
def table_8(empty_cache):
    """``hybrid_table(sizes=[8], seeds=[0, 1])`` under each selection, computed once in an empty
    cache of its own: ({selection: table}, that cache's folder). The tests copy the entries they
    need into their private caches (:func:`copy_entries`) instead of refitting them."""
    corpus = H.HybridCorpus("webkb", X, Y, ["a", "b", "c"], np.array([]), None, 60, 150)
    with empty_cache("hybrid-8") as folder:
        tables = {selection: H.hybrid_table(corpus, sizes=[8], seeds=[0, 1], progress=False,
                                            selection=selection)
                  for selection in H.SELECTIONS}
    return tables, folder


def copy_entries(source, cache, **fields):
    """Copy the table entries of the cache ``source`` whose key holds ``fields`` (e.g.
    ``seed=1``) into ``cache``, as the jobs would write them; return how many."""
    (cache / "hybrid").mkdir(parents=True, exist_ok=True)
    copied = 0
    for entry in sorted((source / "hybrid").glob("*.npz")):
        key = stored_key(entry)
        if all(key[name] == value for name, value in fields.items()):
            shutil.copy2(entry, cache / "hybrid" / entry.name)
            copied += 1
    return copied


def test_evaluation_split_draws_test_then_unlabeled_then_labeled():
    small = H.evaluation_split(Y, 6, 3, **SETTINGS)
    large = H.evaluation_split(Y, 30, 3, **SETTINGS)
    for split in (small, large):
        rows = np.concatenate([split.labeled, split.unlabeled, split.test])
        assert len(np.unique(rows)) == len(rows)
        assert len(split.test) == 60 and len(split.unlabeled) == 150
        assert set(Y[split.labeled]) == {0, 1, 2}
    # the same test and unlabeled documents, whatever the labeled-set size
    np.testing.assert_array_equal(small.test, large.test)
    np.testing.assert_array_equal(small.unlabeled, large.unlabeled)
    fixed = H.evaluation_split(Y, 6, 0, test_rows=np.arange(250, 300), n_unlabeled=100)
    np.testing.assert_array_equal(fixed.test, np.arange(250, 300))
    # when the rows left are too few, the unlabeled set gives some up
    tight = H.evaluation_split(Y, 100, 0, test_rows=np.arange(250, 300), n_unlabeled=200)
    assert len(tight.labeled) == 100 and len(tight.unlabeled) == 150


def test_folds_fall_back_to_plain_folds_when_a_class_has_one_label():
    y = np.array([0, 0, 0, 1, 1, 1, 2, -1, -1, 0, 1])
    folds = labeled_folds(y, 5, random_state=0, include_unlabeled=True, allow_unstratified=True)
    held_out = np.sort(np.concatenate([test for _, test in folds]))
    np.testing.assert_array_equal(held_out, np.flatnonzero(y >= 0))
    for train, test in folds:
        assert {7, 8} <= set(train) and not set(train) & set(test)
    y2 = np.array([0, 0, 1, 1, 2, 2, -1])
    assert [t.tolist() for _, t in labeled_folds(y2, 2, random_state=0,
                                                 allow_unstratified=True)] == [
        t.tolist() for _, t in choose_folds(y2)]


def choose_folds(y):
    return labeled_folds(y, 2, random_state=0)


def test_choose_on_labeled_agrees_with_sslviz_tuning_when_it_can_stratify():
    y = np.full(len(Y), -1)
    y[:30] = Y[:30]
    ours = H.choose_on_labeled(MultinomialNB(), {"alpha": [1.0, 0.1, 0.01]}, X, y,
                               random_state=2)
    theirs = choose_by_cv(MultinomialNB(), {"alpha": [1.0, 0.1, 0.01]}, X, y, random_state=2)
    np.testing.assert_allclose(ours.scores, theirs.scores)
    assert ours.params == theirs.params


def test_evaluate_split_matches_manual_fits_of_the_supervised_baselines():
    result = H.evaluate_split(X, Y, 9, 1, **SETTINGS)
    split = H.evaluation_split(Y, 9, 1, **SETTINGS)
    y_train = split.semi_supervised_targets(Y)
    choice = H.hybrid_alpha(X[split.train], y_train)
    alpha = choice.value
    assert result["alpha"] == alpha and result["em_alpha"] == H.em_alpha(X[split.train],
                                                                         y_train).value
    assert result["sigma"] == H.SIGMA == 1.0
    assert result["alpha_by_evidence"] == (choice.criterion == "evidence")
    nb = MultinomialNB(alpha=alpha).fit(X[split.labeled], Y[split.labeled])
    assert result["accuracy"][H.METHODS.index("nb")] == pytest.approx(
        np.mean(nb.predict(X[split.test]) == Y[split.test]))
    mlr = LogisticRegression(C=result["C"], fit_intercept=False, max_iter=1000).fit(
        H.lr_features(X[split.labeled]), Y[split.labeled])
    assert result["accuracy"][H.METHODS.index("mlr")] == pytest.approx(
        np.mean(mlr.predict(H.lr_features(X[split.test])) == Y[split.test]))
    assert 0 < result["mer_weight"] <= 10 and 0 <= result["em_weight"] <= 1
    assert result["mer_test_by_weight"].shape == (len(H.MER_WEIGHTS),)
    assert np.all(result["hybrid_weights"] >= 0)



def test_the_paper_scale_selection_is_sigma_1_and_the_labels_leave_one_out_alpha():
    result = H.evaluate_split(X, Y, 9, 1, **SETTINGS, selection=H.PAPER_SCALE_SELECTION)
    split = H.evaluation_split(Y, 9, 1, **SETTINGS)
    scores = [loo_log_likelihood(X[split.labeled], Y[split.labeled], a) for a in ALPHA_GRID]
    assert result["alpha"] == ALPHA_GRID[int(np.argmax(scores))] == result["em_alpha"]
    assert result["sigma"] == 1.0 and result["sigma_at_bound"] == 0
    assert result["mer_weight"] in H.MER_WEIGHTS and result["em_weight"] in H.EM_WEIGHTS
    assert result["C"] in H.C_GRID
    # the test-picked λ is at least as good as the cross-validated one: it saw the test set
    assert result["mer_test_by_weight"].max() >= result["accuracy"][H.METHODS.index("mlr/mer")]
    with pytest.raises(ValueError, match="selection must be one of"):
        H.evaluate_split(X, Y, 9, 1, **SETTINGS, selection="sigma-1")


def test_a_job_runs_on_one_blas_thread(monkeypatch):
    seen = []

    def spy(*args, **kwargs):
        seen.extend(info["num_threads"] for info in threadpool_info()
                    if info["user_api"] == "blas")
        raise RuntimeError("stop here")

    monkeypatch.setattr(H, "hybrid_alpha", spy)
    with threadpool_limits(2, user_api="blas"), pytest.raises(RuntimeError, match="stop here"):
        H.evaluate_split(X, Y, 9, 0, **SETTINGS)
    assert seen and set(seen) == {1}
    # the job let go of the process-wide limit (sslviz.threads lifts it when the last holder
    # leaves); the BLAS count itself after the job depends on what earlier tests of this worker
    # did off the main thread (OpenBLAS keeps a limit restored there), so it is not compared here
    assert holders() == 0


def test_table_is_cached_and_printed_with_the_paper(result_cache, table_8):
    corpus = H.HybridCorpus("webkb", X, Y, ["a", "b", "c"], np.array([]), None, 60, 150)
    computed, source = table_8
    table = computed[H.LABELED_SELECTION]  # computed in an empty cache, which it wrote
    assert table.accuracy.shape == (1, 2, 5)
    assert table.method("hybrid").shape == (1, 2)
    assert copy_entries(source, result_cache, selection=H.LABELED_SELECTION) == 2  # one a job
    original = H.evaluate_split
    H.evaluate_split = refusing(original)  # a refit would fail: the second call reads the cache
    try:
        again = H.hybrid_table(corpus, sizes=[8], seeds=[0, 1], progress=False)  # the default
    finally:
        H.evaluate_split = original
    np.testing.assert_array_equal(again.accuracy, table.accuracy)
    text = H.table_text(table)
    assert " paper  61.6 ( 6.1)  61.9 (10.4)  52.8 ( 5.0)" in text
    assert "HybridNB" in H.normalization_text(table) and "MLR/MER" in H.mer_text(table)
    with pytest.raises(ValueError, match="method must be one of"):
        table.method("svm")


def test_mer_study_reproduces_the_tables_mer_and_tables_can_leave_it_out():
    corpus = H.HybridCorpus("webkb", X, Y, ["a", "b", "c"], np.array([]), None, 60, 150)
    study = S.mer_study(corpus, n_labeled=9, seeds=[1, 2], progress=False)
    assert study.cv_accuracy.shape == study.test_accuracy.shape == (2, len(H.MER_WEIGHTS))
    assert study.shares.shape == (2, len(H.MER_WEIGHTS), 3)
    np.testing.assert_allclose(study.shares.sum(axis=2), 1.0)
    results = {seed: H.evaluate_split(X, Y, 9, seed, **SETTINGS) for seed in (1, 2)}
    for i, seed in enumerate((1, 2)):
        result = results[seed]
        assert study.C[i] == result["C"]
        if result["mer_weight"] in H.MER_WEIGHTS:
            assert study.chosen[i] == result["mer_weight"]
            assert study.chosen_accuracy[i] == pytest.approx(
                result["accuracy"][H.METHODS.index("mlr/mer")])
        else:  # the table extended the grid past the end the study's choice sits at
            end = max(H.MER_WEIGHTS) if result["mer_weight"] > 1 else min(H.MER_WEIGHTS)
            assert study.chosen[i] == end
        np.testing.assert_allclose(study.test_accuracy[i], result["mer_test_by_weight"])
        np.testing.assert_allclose(study.shares[i].max(axis=1),
                                   result["mer_max_share_by_weight"])
    assert "λ by cv" in S.mer_study_text(study)
    lean = H.hybrid_table(corpus, sizes=[9], seeds=[1], mer=False, normalization_cv=False,
                          progress=False)
    full = results[1]
    assert np.isnan(lean.method("mlr/mer")).all() and np.isnan(lean.results["mer_weight"]).all()
    assert np.isnan(lean.results["normalize_cv"]).all()
    others = [H.METHODS.index(m) for m in H.METHODS if m != "mlr/mer"]
    np.testing.assert_allclose(lean.accuracy[0, 0, others], full["accuracy"][others])
    for name in ("normalize_loo", "normalize_test", "hybrid_weights", "C", "em_weight"):
        np.testing.assert_allclose(lean.results[name][0, 0], full[name])
    assert "—" in H.table_text(lean) and "not computed" in H.mer_text(lean)
    assert "—" in H.normalization_text(lean)
    with pytest.raises(ValueError, match="mer must be True or False"):
        H.hybrid_table(corpus, sizes=[9], seeds=[1], mer="no", progress=False)


def test_logistic_regression_on_the_labeled_rows_words_is_the_same_model():
    y = np.full(len(Y), -1)
    y[:12] = Y[:12]
    F = H.lr_features(X)
    seen = H.labeled_columns(F, y)
    assert 0 < len(seen) < X.shape[1] or np.all(F[:12].getnnz(axis=0))
    np.testing.assert_array_equal(seen, np.flatnonzero(F[:12].getnnz(axis=0)))
    full = LogisticRegression(C=100.0, fit_intercept=False, tol=1e-10, max_iter=5000).fit(
        F[:12], Y[:12])
    lean = LogisticRegression(C=100.0, fit_intercept=False, tol=1e-10, max_iter=5000).fit(
        F[:12][:, seen], Y[:12])
    unseen = np.setdiff1d(np.arange(X.shape[1]), seen)
    np.testing.assert_array_equal(full.coef_[:, unseen], 0.0)
    np.testing.assert_allclose(full.coef_[:, seen], lean.coef_, atol=1e-6)


def test_perplexity_equals_a_hand_computation():
    X_train = sp.csr_matrix(np.array([[2.0, 0, 1], [0, 3, 1]]))
    X_test = sp.csr_matrix(np.array([[1.0, 1, 0], [0, 2, 2]]))
    # alpha = 1: class 0 θ = (3, 1, 2) / 6, class 1 θ = (1, 4, 2) / 7
    expected = np.exp(-(np.log(3 / 6) + np.log(1 / 6) + 2 * np.log(4 / 7) + 2 * np.log(2 / 7))
                      / 6)
    value = S.test_perplexity(X_train, np.array([0, 1]), X_test, np.array([0, 1]), 1.0,
                              n_classes=2)
    assert value == pytest.approx(expected)


def test_perplexity_curve_reports_both_test_sets():
    corpus = H.HybridCorpus("20news", X, Y, ["a", "b", "c"], np.array([]), None, 60, 150)
    curve = S.perplexity_curve(corpus, sizes=[10, 40], seeds=[0], progress=False)
    assert curve.perplexity.shape == (2, 1, 2)
    assert 0 < curve.giant_token_share < 0.2
    assert curve.perplexity[1, 0, 0] < curve.perplexity[0, 0, 0]  # more data fits better
    # NB's α is the tables' (leave-one-out likelihood on the labeled rows) and P/V is P over V
    split = H.evaluation_split(Y, 40, 0, n_test=60, n_unlabeled=150)
    assert curve.alpha[1, 0] == H.hybrid_alpha(X[split.labeled], Y[split.labeled]).value
    expected = S.test_perplexity(X[split.labeled], Y[split.labeled], X[split.test],
                                 Y[split.test], curve.alpha[1, 0], n_classes=3)
    assert curve.perplexity[1, 0, 0] == pytest.approx(expected)
    np.testing.assert_allclose(curve.relative * X.shape[1], curve.perplexity.mean(axis=1))
    assert f"20news: V = {X.shape[1]} words; NB test perplexity" in S.perplexity_text(curve)


def test_command_line_refuses_bad_arguments(capsys):
    with pytest.raises(SystemExit):
        S.main(["table", "--sizes", "0"])
    assert "--sizes must be positive" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        S.main(["tables"])


def test_explorers_replay_results_and_caption_them():
    from sslviz.widgets.hybrid import mer_explorer, table_explorer, weights_explorer

    corpus = H.HybridCorpus("webkb", X, Y, ["a", "b", "c"], np.array([]), None, 60, 150)
    table = H.hybrid_table(corpus, sizes=[6, 12], seeds=[0], progress=False)
    explorer = table_explorer({"webkb": table}, corpus="webkb", size=6)
    explorer.controls["n_labeled"].value = 12
    explorer.controls["method"].value = "mlr"
    assert explorer.last_error is None and "n_labeled=12" in explorer.caption.value
    # labels are shown whole on a projector, never cut to "labeled d…"
    assert all(control.style.description_width == "initial"
               for control in explorer.controls.values())

    run = H.hybrid_run(corpus, n_labeled=9, seed=0)
    info = {"webkb": {"names": ["a", "b", "c"], "truth": np.full(3, 1 / 3)}}
    weights = weights_explorer({"webkb": run}, info, corpus="webkb")
    weights.controls["iteration"].value = len(run[1].trace_) - 1
    assert weights.last_error is None
    assert f"iteration={len(run[1].trace_) - 1}" in weights.caption.value

    C, models, accuracy = H.mer_sweep(corpus, n_labeled=9, seed=0, weights=(1e-3, 1.0))
    assert len(models) == 2 and accuracy.shape == (2,)
    shares = np.array([m.trace_[-1].unlabeled_shares for m in models])
    mer = mer_explorer({"webkb": (C, shares, accuracy, 1e-3)}, info, (1e-3, 1.0))
    mer.controls["entropy_weight"].value = 1.0
    assert mer.last_error is None and "entropy_weight=1" in mer.caption.value


def test_bar_labels_sit_above_the_dots_and_the_true_shares_are_no_legend_glyph():
    from matplotlib.figure import Figure

    from sslviz.plots.hybrid import plot_class_shares, plot_method_bars

    ax = Figure().add_subplot()
    accuracy = np.array([[0.50, 0.62, np.nan, 0.40, 0.71],
                         [0.58, 0.30, np.nan, 0.45, 0.69]])
    plot_method_bars(ax, accuracy, H.METHODS, [H.METHOD_LABELS[m] for m in H.METHODS], title="")
    dots = [line.get_ydata() for line in ax.lines]
    for m, text in enumerate(ax.texts):
        if np.isnan(accuracy[:, m]).all():
            assert not text.get_visible()
        else:
            assert text.get_visible() and text.get_text() == f"{accuracy[:, m].mean() * 100:.1f}%"
            assert text.get_position()[1] > np.max(dots[m])  # above its highest dot
    ax = Figure().add_subplot()
    plot_class_shares(ax, [0.2, 0.8], ["a", "b"], title="", truth=[0.5, 0.5])
    assert ax.get_legend() is None and "true share" in ax.get_xlabel()
    (truth,) = ax.collections
    np.testing.assert_allclose([seg[0, 0] for seg in truth.get_segments()], [50, 50])


def test_the_words_leave_one_out_likelihood_equals_refits_without_each_document():
    y = np.full(len(Y), -1)
    y[:12] = Y[:12]
    alpha = 0.3
    expected = 0.0
    for n in range(12):
        keep = np.arange(12) != n
        refit = MultinomialNB(alpha=alpha).fit(X[:12][keep], Y[:12][keep])
        column = list(refit.classes_).index(Y[n])
        expected += (X[n] @ refit.feature_log_prob_[column]).item()
    assert S.words_loo_log_likelihood(X[:12], Y[:12], alpha) == pytest.approx(expected)
    choice = S.choose_alpha_by_words(X, y, grid=(1.0, 0.3, 0.1))
    scores = [S.words_loo_log_likelihood(X[:12], Y[:12], a) for a in (1.0, 0.3, 0.1)]
    np.testing.assert_allclose(choice.scores, scores)
    assert choice.value == (1.0, 0.3, 0.1)[int(np.argmax(scores))]


def test_alpha_study_fits_the_tables_alpha_and_the_words_alpha():
    corpus = H.HybridCorpus("webkb", X, Y, ["a", "b", "c"], np.array([]), None, 60, 150)
    study = S.alpha_study(corpus, sizes=[9], seeds=[1], progress=False)
    table = H.hybrid_table(corpus, sizes=[9], seeds=[1], mer=False, normalization_cv=False,
                           progress=False, selection=H.PAPER_SCALE_SELECTION)
    assert study.alpha[0, 0, 0] == table.results["alpha"][0, 0]
    assert study.hybrid[0, 0, 0] == pytest.approx(table.method("hybrid")[0, 0])
    assert study.nb[0, 0, 0] == pytest.approx(table.method("nb")[0, 0])
    assert study.em[0, 0, 0] == pytest.approx(table.method("em-lambda")[0, 0])
    split = H.evaluation_split(Y, 9, 1, **SETTINGS)
    assert study.alpha[0, 0, 1] == H.hybrid_alpha(
        X[split.train], split.semi_supervised_targets(Y)).value
    assert "set 1: α" in S.alpha_study_text(study)


def test_results_file_summarises_the_cache_without_computing(tmp_path, monkeypatch, result_cache,
                                                             table_8):
    corpus = H.HybridCorpus("webkb", X, Y, ["a", "b", "c"], np.array([]), None, 60, 150)
    computed, source = table_8
    copy_entries(source, result_cache, selection=H.PAPER_SCALE_SELECTION)
    table = computed[H.PAPER_SCALE_SELECTION]
    monkeypatch.setattr(H, "evaluate_split", None)  # nothing may be computed from here on
    path = tmp_path / "results" / "paper.json"
    summary = R.write_results([corpus], path, seeds=[0, 1, 2])
    assert R.read_results(path) == summary and R.read_results(tmp_path / "none.json") is None
    entry = summary["corpora"]["webkb"]
    assert list(entry["sizes"]) == ["8"] and entry["sizes"]["8"]["seeds"] == [0, 1]
    # size 8, set 2 and every other paper size are missing
    assert [8, 2] in entry["missing"] and [16, 0] in entry["missing"]
    assert len(entry["missing"]) == 3 * len(H.PAPER_SIZES["webkb"]) - 2
    mean, sd = R.mean_and_sd(entry["sizes"]["8"])
    np.testing.assert_allclose(mean, table.accuracy[0].mean(axis=0) * 100, atol=1e-3)
    np.testing.assert_allclose(sd, table.accuracy[0].std(axis=0) * 100, atol=1e-3)
    text = R.results_text(summary)
    assert "paper   " in text and "61.6 ( 6.1)" in text and "sizes not run yet: 16, 32" in text
    seconds = entry["sizes"]["8"]["cpu_seconds"]
    assert all(s >= 0 for s in seconds)
    per_job, total, lower_bound = R.projection(summary)
    # three sets per size; the sizes past 8 are charged size 8's time
    assert not lower_bound and per_job["webkb"] == {8: pytest.approx(np.mean(seconds))}
    assert total == pytest.approx(np.mean(seconds) * 3 * len(H.PAPER_SIZES["webkb"]))
    assert "N=32" in R.projection_text(summary)
    # between two measured sizes the time is interpolated; past the largest, no lower bound
    two = {"seeds": [0, 1], "corpora": {"webkb": {"sizes": {
        "8": {"cpu_seconds": [10.0, 30.0]}, "512": {"cpu_seconds": [100.0, float("nan")]}}}}}
    per_job, total, lower_bound = R.projection(two)
    assert per_job["webkb"] == {8: 20.0, 512: 100.0} and not lower_bound
    expected = np.interp(H.PAPER_SIZES["webkb"], [8, 512], [20.0, 100.0]).sum() * 2
    assert total == pytest.approx(expected)
    two["corpora"]["reuters"] = {"sizes": {}}  # nothing measured: adds nothing, a lower bound
    assert R.projection(two)[1:] == (pytest.approx(expected), True)
    assert R.duration(59 * 60) == "59 min" and R.duration(3.5 * 3600) == "3.5 h"
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\n{R.README_BEGIN}\nold\n{R.README_END}\nafter\n", encoding="utf-8")
    R.update_readme(readme, summary)
    text = readme.read_text(encoding="utf-8")
    assert "old" not in text and text.endswith(f"{R.README_END}\nafter\n")
    row = f"| webkb | 8 | 2 | {mean[0]:.1f} ({sd[0]:.1f}) · *61.6* |"
    assert row in text and R.results_markdown(summary) in text
    readme.write_text("# no block\n", encoding="utf-8")
    with pytest.raises(ValueError, match="has no paper-scale table block"):
        R.update_readme(readme, summary)


def test_the_readme_block_shows_the_selection_the_summary_names(tmp_path, monkeypatch, capsys,
                                                                result_cache, table_8):
    corpus = H.HybridCorpus("webkb", X, Y, ["a", "b", "c"], np.array([]), None, 60, 150)
    copy_entries(table_8[1], result_cache, selection=H.LABELED_SELECTION, seed=0)  # set 0 ran
    path, readme = tmp_path / "paper.json", tmp_path / "README.md"
    monkeypatch.setattr(S, "load_corpora", lambda: [corpus])
    monkeypatch.setattr(S, "RESULTS_FILE", path)
    monkeypatch.setattr(R, "RESULTS_FILE", path)
    readme.write_text(f"# x\n\n{R.README_BEGIN}\nold\n{R.README_END}\n", encoding="utf-8")
    assert S.main(["summary", "--selection", H.LABELED_SELECTION, "--readme", str(readme)]) == 0
    capsys.readouterr()
    fair = R.read_results(path, selection=H.LABELED_SELECTION)
    assert fair["corpora"]["webkb"]["sizes"]["8"]["seeds"] == [0]
    block = readme.read_text(encoding="utf-8").split(R.README_BEGIN + "\n")[1]
    assert block == f"{R.results_markdown(fair)}\n{R.README_END}\n"
    assert block.startswith(
        "Selection: `labeled-rows` (every setting chosen on the labeled rows, every numeric "
        "grid extended up to its bounds; written by `python -m sslviz.experiments hybrid "
        "summary --selection 'labeled-rows' --readme README.md`).\n\n| corpus | labeled |")
    assert "| webkb | 8 | 1 |" in block
    # the first selection: its own line, the command without --selection; no sets of it yet
    first = R.results_markdown({**fair, "selection": H.PAPER_SCALE_SELECTION})
    assert first.startswith("Selection: `sigma-1, loo-log-likelihood α` (σ = 1, α by the "
                            "leave-one-out log-likelihood of the labels, the grids never "
                            "extended; written by `python -m sslviz.experiments hybrid summary "
                            "--readme README.md`).\n\n")
    assert R.selections_held(path) == {H.LABELED_SELECTION: 1}


@pytest.mark.skipif(not R.RESULTS_FILE.exists(), reason="no paper-scale results file")
def test_readme_shows_the_committed_results_file():
    readme = (R.RESULTS_FILE.parents[2] / "README.md").read_text(encoding="utf-8")
    shown = R.results_markdown(R.read_results(selection=H.LABELED_SELECTION))
    assert f"{R.README_BEGIN}\n{shown}\n{R.README_END}" in readme


@pytest.mark.skipif(not R.RESULTS_FILE.exists(), reason="no paper-scale results file")
def test_committed_results_file_matches_a_recomputation_of_its_smallest_cell(real_data_dir):
    summary = R.read_results()
    name, entry = min(((n, e) for n, e in summary["corpora"].items() if e["sizes"]),
                      key=lambda item: min(int(s) for s in item[1]["sizes"]))
    size = min(entry["sizes"], key=int)
    cell = entry["sizes"][size]
    corpus = H.load_hybrid_corpus(name)
    result = H.evaluate_split(corpus.X, corpus.y, int(size), cell["seeds"][0],
                              test_rows=corpus.test_rows, n_test=corpus.n_test,
                              n_unlabeled=corpus.n_unlabeled,
                              selection=H.PAPER_SCALE_SELECTION)
    np.testing.assert_allclose(cell["accuracy"][0], result["accuracy"] * 100, atol=1e-3)


@pytest.mark.skipif(not R.RESULTS_FILE.exists(), reason="no paper-scale results file")
def test_committed_results_file_was_computed_by_todays_code():
    """Fast: compares the code recorded in the file with today's sources (no recomputation)."""
    assert R.results_code_changed(R.read_results()) == ""


def test_a_results_file_of_other_code_names_the_rerun():
    summary = {"code": {"module": "sslviz.experiments.hybrid", "digest": "0" * 16}}
    assert R.results_code_changed(summary).endswith(R.RERUN_HINT)
    assert "hybrid table" in R.RERUN_HINT and "hybrid summary" in R.RERUN_HINT
    assert R.results_code_changed({"code": code_of(H.evaluate_split)}) == ""


def test_recheck_records_todays_code_only_when_the_smallest_cell_is_unchanged(tmp_path,
                                                                              result_cache,
                                                                              table_8):
    corpus = H.HybridCorpus("webkb", X, Y, ["a", "b", "c"], np.array([]), None, 60, 150)
    copy_entries(table_8[1], result_cache, selection=H.PAPER_SCALE_SELECTION, seed=0)
    H.hybrid_table(corpus, sizes=[8, 16], seeds=[0], progress=False,  # computes size 16
                   selection=H.PAPER_SCALE_SELECTION)
    path = tmp_path / "paper.json"
    summary = R.write_results([corpus], path, seeds=[0])
    stale = {**summary, "code": {"module": "sslviz.experiments.hybrid", "digest": "0" * 16}}
    assert R.results_code_changed(stale)
    assert R.recheck(stale, {"webkb": corpus}, path=path) == []
    rechecked = R.read_results(path)
    assert rechecked["code"] == code_of(H.evaluate_split)
    assert rechecked["code_checked_by"] == ["webkb |Dl|=8 set 0"]
    assert rechecked["corpora"] == summary["corpora"]

    moved = json.loads(json.dumps(stale))
    moved["corpora"]["webkb"]["sizes"]["8"]["accuracy"][0][0] += 0.5  # a number that moved
    path.write_text(json.dumps(moved))
    [difference] = R.recheck(moved, {"webkb": corpus}, path=path)
    assert difference.startswith("webkb |Dl|=8 set 0: today [")
    assert R.read_results(path) == moved  # the file is left as it was


def test_writing_the_results_file_never_drops_what_it_held(tmp_path, result_cache, table_8):
    """The cache's sets are copied from ``table_8``'s cache, the entries the jobs wrote, instead
    of refitted."""
    corpus = H.HybridCorpus("webkb", X, Y, ["a", "b", "c"], np.array([]), None, 60, 150)
    source = table_8[1]
    copy_entries(source, result_cache, selection=H.PAPER_SCALE_SELECTION)
    path = tmp_path / "paper.json"
    full = R.write_results([corpus], path, seeds=[0, 1])
    assert full["corpora"]["webkb"]["sizes"]["8"]["seeds"] == [0, 1]
    for entry in (result_cache / "hybrid").glob("*.npz"):  # another machine: an empty cache
        entry.unlink()
    # it runs one set again
    assert copy_entries(source, result_cache, selection=H.PAPER_SCALE_SELECTION, seed=1) == 1
    again = R.write_results([corpus], path, seeds=[0, 1])
    assert R.read_results(path) == again
    compared = [json.loads(json.dumps(entry["corpora"])) for entry in (again, full)]
    for corpora in compared:  # a recomputed set's CPU time is a new measurement
        corpora["webkb"]["sizes"]["8"]["cpu_seconds"][1] = None
    assert compared[0] == compared[1]  # set 0 kept from the file, set 1 recomputed

    stale = {**full, "code": {"module": "sslviz.experiments.hybrid", "digest": "0" * 16}}
    path.write_text(json.dumps(stale))
    with pytest.raises(cli.UsageError,
                       match="holds 2 evaluation sets under the selection .*; .* would hold 1"):
        R.write_results([corpus], path, seeds=[0, 1])  # other code, not merged: it would shrink
    assert json.loads(path.read_text()) == stale
    copy_entries(source, result_cache, selection=H.PAPER_SCALE_SELECTION)  # today's code: every set
    fresh = R.write_results([corpus], path, seeds=[0, 1])
    assert fresh["corpora"]["webkb"]["sizes"]["8"]["seeds"] == [0, 1]
    kept = tmp_path / f"paper.{'0' * 16}.json"
    assert json.loads(kept.read_text()) == stale  # but kept beside it, whole


def test_a_rerun_is_projected_from_the_files_times_scaled_by_the_measured_ratio():
    summary = {"seeds": [0, 1], "corpora": {
        "webkb": {"sizes": {"8": {"cpu_seconds": [10.0, 10.0]},
                            "512": {"cpu_seconds": [30.0, 30.0]}}},
        "reuters": {"sizes": {"16": {"cpu_seconds": [5.0]}}}}}
    total, ratios = R.rerun_projection(summary, {"webkb": (8, 40.0)})
    assert ratios == {"webkb": 4.0}
    webkb = np.interp(H.PAPER_SIZES["webkb"], [8, 512], [10, 30]).sum()
    assert total == pytest.approx(2 * 4.0 * (webkb + 5.0 * len(H.PAPER_SIZES["reuters"])))
    with pytest.raises(ValueError, match="no timed job of '20news'"):
        R.rerun_projection(summary, {"20news": (10, 1.0)})


def test_mers_lambda_is_extended_by_decades_up_to_its_documented_bounds():
    from sslviz.tuning import choose_interior

    up = choose_interior(lambda v: -abs(np.log10(v) - 3), H.MER_WEIGHTS, kind="entropy_weight",
                         criterion="peak at 1e3")
    assert up.extended == (10.0,) and up.at_bound and "upper bound" in up.edge_message
    down = choose_interior(lambda v: -abs(np.log10(v) + 4), H.MER_WEIGHTS, kind="entropy_weight",
                           criterion="peak at 1e-4")
    assert down.extended == () and not down.at_bound and down.params == {"entropy_weight": 1e-4}


def test_the_file_keeps_each_selection_apart_and_a_new_one_never_drops_the_old(tmp_path,
                                                                              result_cache,
                                                                              table_8):
    corpus = H.HybridCorpus("webkb", X, Y, ["a", "b", "c"], np.array([]), None, 60, 150)
    # what hybrid_table(mer=True) writes: sets 0 and 1 of the first selection, set 0 of the other
    copy_entries(table_8[1], result_cache, selection=H.PAPER_SCALE_SELECTION, mer=True)
    copy_entries(table_8[1], result_cache, selection=H.LABELED_SELECTION, mer=True, seed=0)
    path = tmp_path / "paper.json"
    old = R.write_results([corpus], path, seeds=[0, 1])  # the default: the file's first
    # a file of the first layout (one selection at the top) is read as that selection's
    flat = {key: value for key, value in old.items() if key != "selection"}
    path.write_text(json.dumps(flat))
    assert R.read_results(path) == old
    assert R.read_results(path, selection=H.LABELED_SELECTION) is None
    fair = R.write_results([corpus], path, seeds=[0, 1], selection=H.LABELED_SELECTION)
    assert fair["selection"] == H.LABELED_SELECTION and fair["command"].endswith(
        "--selection 'labeled-rows'")
    assert fair["corpora"]["webkb"]["sizes"]["8"]["seeds"] == [0]
    assert R.read_results(path) == old  # untouched by the other selection's write
    assert R.read_results(path, selection=H.LABELED_SELECTION) == fair
    assert R.selections_held(path) == {H.PAPER_SCALE_SELECTION: 2, H.LABELED_SELECTION: 1}
    whole = json.loads(path.read_text())
    assert sorted(whole["selections"]) == sorted(H.SELECTIONS)
    assert whole["selections"][H.LABELED_SELECTION]["code"] == code_of(H.evaluate_split)
    # the two selections chose differently: their accuracies are each their own table's
    labeled = H.hybrid_table(corpus, sizes=[8], seeds=[0], mer=True, progress=False,
                             selection=H.LABELED_SELECTION)
    np.testing.assert_allclose(fair["corpora"]["webkb"]["sizes"]["8"]["accuracy"][0],
                               labeled.accuracy[0, 0] * 100, atol=1e-4)
    with pytest.raises(ValueError, match="selection must be one of"):
        R.read_results(path, selection="best")


def test_a_selection_that_would_shrink_refuses_with_its_counts(tmp_path, result_cache, table_8):
    corpus = H.HybridCorpus("webkb", X, Y, ["a", "b", "c"], np.array([]), None, 60, 150)
    source = table_8[1]
    assert copy_entries(source, result_cache) == 4  # both selections, sets 0 and 1
    path = tmp_path / "paper.json"
    R.write_results([corpus], path, seeds=[0, 1])
    R.write_results([corpus], path, seeds=[0, 1], selection=H.LABELED_SELECTION)
    whole = json.loads(path.read_text())
    whole["selections"][H.LABELED_SELECTION]["code"] = {"module": "sslviz.experiments.hybrid",
                                                        "digest": "0" * 16}  # other code
    path.write_text(json.dumps(whole))
    for entry in (result_cache / "hybrid").glob("*.npz"):  # another machine: an empty cache
        entry.unlink()
    copy_entries(source, result_cache, selection=H.LABELED_SELECTION, seed=1)  # set 1 ran again
    with pytest.raises(cli.UsageError, match="holds 2 evaluation sets under the selection "
                       "'labeled-rows'; .* would hold 1"):
        R.write_results([corpus], path, seeds=[0, 1], selection=H.LABELED_SELECTION)
    assert json.loads(path.read_text()) == whole
    # the other selection's entry (today's code) still merges what this cache lacks
    again = R.write_results([corpus], path, seeds=[0, 1])
    assert again["corpora"]["webkb"]["sizes"]["8"]["seeds"] == [0, 1]
    assert json.loads(path.read_text())["selections"][H.LABELED_SELECTION] == \
        whole["selections"][H.LABELED_SELECTION]


def test_a_selection_is_projected_from_its_own_jobs_and_the_references_scaled():
    reference = {"seeds": [0, 1], "corpora": {
        "webkb": {"sizes": {"8": {"cpu_seconds": [10.0, 10.0]},
                            "512": {"cpu_seconds": [30.0, 30.0]}}},
        "20news": {"sizes": {"10": {"cpu_seconds": [6.0]}}}}}
    fair = {"selection": H.LABELED_SELECTION, "seeds": [0, 1], "corpora": {
        "webkb": {"sizes": {"8": {"seeds": [0], "cpu_seconds": [20.0]},
                            "512": {"seeds": [0], "cpu_seconds": [90.0]}}},
        "20news": {"sizes": {}}}}
    per_job, total, longest, ratios = R.selection_projection(fair, reference)
    ratio = (20.0 / 10.0 + 90.0 / 30.0) / 2  # measured against the reference at each size
    assert ratios == {"webkb": pytest.approx(ratio), "20news": pytest.approx(ratio)}
    sizes = H.PAPER_SIZES["webkb"]
    webkb = 20.0 + 90.0 + ratio * np.interp(sizes[1:-1], [8, 512], [10.0, 30.0]).sum()
    assert per_job["webkb"] == {8: 20.0, 512: 90.0}
    assert total == pytest.approx(2 * (webkb + ratio * 6.0 * len(H.PAPER_SIZES["20news"])))
    assert longest == 90.0  # the largest measured job; the scaled ones are shorter
    text = R.selection_projection_text(fair, reference)
    assert "2 of 30 jobs measured" in text and "the first selection's times × 2.50" in text
    assert f"N=32: {R.duration(max(total / 32, longest))}" in text
    every = {"webkb": {"sizes": {str(s): {"seeds": [0], "cpu_seconds": [1.0]} for s in sizes}}}
    assert R.selection_projection({**fair, "corpora": every}, {"seeds": [0], "corpora": {}})[
        1:] == (pytest.approx(2 * len(sizes)), 1.0, {"webkb": None})
    with pytest.raises(ValueError, match="no job of the selection 'labeled-rows' is measured"):
        R.selection_projection({**fair, "corpora": {"webkb": {"sizes": {}}}}, reference)
    with pytest.raises(ValueError, match="the reference has no timed job of '20news'"):
        R.selection_projection(fair, {**reference, "corpora": {"webkb": reference["corpora"][
            "webkb"]}})


def _em_weight_by_choose_by_cv(X_train, y_train, alpha):
    """EM-λ's λ as lecture 09's selection chose it before the fits were shared."""
    from sslviz.em import SemiSupervisedNB
    from sslviz.tuning import choose_by_cv_interior, held_out_log_likelihood

    return choose_by_cv_interior(
        SemiSupervisedNB(alpha=alpha, max_iter=10, record="summary"), "unlabeled_weight",
        H.EM_WEIGHTS, X_train, y_train, kind="unlabeled_weight", cv="loo", scoring="accuracy",
        tie_break=held_out_log_likelihood, semi_supervised=True)


def _same_choice(fast, slow):
    assert fast.params == slow.params and fast.candidates == slow.candidates
    np.testing.assert_array_equal(fast.scores, slow.scores)  # bit for bit
    assert (fast.criterion, fast.extended, fast.at_bound) == (
        slow.criterion, slow.extended, slow.at_bound)


@pytest.mark.parametrize("n_labeled, seed", [(9, 0), (12, 3)])
def test_em_lambdas_shared_leave_one_out_fits_choose_exactly_as_choose_by_cv(n_labeled, seed):
    split = H.evaluation_split(Y, n_labeled, seed, **SETTINGS)
    X_train, y_train = X[split.train], split.semi_supervised_targets(Y)
    for alpha in (0.01, 1.0):
        _same_choice(H.em_weight_by_loo(X_train, y_train, alpha),
                     _em_weight_by_choose_by_cv(X_train, y_train, alpha))


def test_the_shared_fits_break_ties_by_the_log_likelihood_of_the_same_fits(monkeypatch):
    """With accuracy tied everywhere, the choice is the tie-break's, on the same fits."""
    split = H.evaluation_split(Y, 9, 0, **SETTINGS)
    X_train, y_train = X[split.train], split.semi_supervised_targets(Y)
    fits = {}

    def tied(template, weight, X_, y_, train, test):
        accuracy, loglik = real(template, weight, X_, y_, train, test)
        fits[weight] = fits.get(weight, 0) + 1
        return 1.0, loglik

    real = H._fold_scores
    monkeypatch.setattr(H, "_fold_scores", tied)
    choice = H.em_weight_by_loo(X_train, y_train, 0.1)
    assert set(fits.values()) == {9}  # each λ's nine left-out fits, once
    assert "ties: log-likelihood" in choice.criterion and np.all(choice.scores == 1.0)


def test_em_lambdas_shared_fits_equal_choose_by_cv_on_real_webkb(real_data_dir):
    corpus = H.load_hybrid_corpus("webkb")
    split = H.evaluation_split(corpus.y, 8, 0, n_test=corpus.n_test, n_unlabeled=300)
    X_train, y_train = corpus.X[split.train], split.semi_supervised_targets(corpus.y)
    alpha = H.em_alpha(X_train, y_train).value
    _same_choice(H.em_weight_by_loo(X_train, y_train, alpha),
                 _em_weight_by_choose_by_cv(X_train, y_train, alpha))
