"""Lecture 09's helpers beside the tables: the hybrid over a σ grid on the lecture's sets
(``hybrid_sigma.sigma_sensitivity``) and the paper-scale file read as tables
(``hybrid_views``), on a small synthetic corpus and a hand-made file."""
import numpy as np
import pytest
from synthetic import topic_corpus

import sslviz.experiments.hybrid as H
import sslviz.experiments.hybrid_sigma as G
import sslviz.experiments.hybrid_views as V
from sslviz.hybrid import HybridNB

X, Y, _ = topic_corpus(n_docs=300, n_words=30, n_labeled=0, seed=5)
SETTINGS = {"n_test": 60, "n_unlabeled": 150}
CORPUS = H.HybridCorpus("webkb", X, Y, ["a", "b", "c"], np.array([]), None, 60, 150)


def test_sigma_sensitivity_equals_hybrid_fits_at_each_sigma_and_the_tables_at_sigma_1():
    sigmas = (0.1, 1.0, 10.0)
    accuracy = G.sigma_sensitivity(CORPUS, sizes=[9], seeds=[1, 2], sigmas=sigmas,
                                   progress=False)
    assert accuracy.shape == (1, 2, 3)
    for j, seed in enumerate((1, 2)):
        split = H.evaluation_split(Y, 9, seed, **SETTINGS)
        X_train, y_train = X[split.train], split.semi_supervised_targets(Y)
        alpha = H.hybrid_alpha(X_train, y_train).value  # the tables' α under labeled rows
        for k, sigma in enumerate(sigmas):
            model = HybridNB(alpha=alpha, prior_scale=sigma).fit(X_train, y_train)
            assert accuracy[0, j, k] == np.mean(model.predict(X[split.test]) == Y[split.test])
    table = H.hybrid_table(CORPUS, sizes=[9], seeds=[1, 2], mer=False, normalization_cv=False,
                           progress=False)
    np.testing.assert_array_equal(accuracy[0, :, 1], table.method("hybrid")[0])


def test_sigma_sensitivity_refuses_a_scale_that_is_not_positive():
    with pytest.raises(ValueError, match=r"sigmas must be positive prior scales, got \(0\.0,"):
        G.sigma_sensitivity(CORPUS, sizes=[9], seeds=[1], sigmas=(0.0, 1.0), progress=False)


def summary_of(cells):
    """A results file holding ``cells``: {size: per-set accuracies (hybrid, EM-λ, MER, NB, MLR)}."""
    return {"methods": list(H.METHODS), "seeds": list(range(10)),
            "corpora": {"webkb": {"sizes": {str(size): {
                "seeds": list(range(len(rows))), "accuracy": rows,
                "cpu_seconds": [1.0] * len(rows)} for size, rows in cells.items()},
                "missing": []}}}


def test_paper_scale_gaps_are_hybrid_minus_rival_per_set_and_one_set_sizes_are_apart():
    summary = summary_of({8: [[60, 62, 50, 55, 51], [70, 66, 50, 72, 49]],
                          16: [[65, 60, 50, 61, 58]]})
    kept, apart = V.paper_scale_gaps(summary, "webkb")
    assert list(kept) == [8] and apart == [16]
    np.testing.assert_array_equal(kept[8]["em-lambda"], [-2, 4])
    np.testing.assert_array_equal(kept[8]["nb"], [5, -2])
    np.testing.assert_array_equal(kept[8]["mlr"], [9, 21])
    text = V.paper_scale_text(summary)
    assert "hybrid - EM-λ, mean ± sd (sets ahead): 8: +1.0 ± 3.0 (1/2)" in text
    assert "hybrid - NB, mean ± sd (sets ahead): 8: +1.5 ± 3.5 (1/2)" in text
    assert "16 labels, 1 set only (not a table row): hybrid 65.0, EM-λ 60.0" in text
    assert "     8     2  65.0 ( 5.0)" in text and "    16     1" not in text
    assert "the paper's sizes not in the file: 32, 64, 128, 256, 512" in text


def test_paper_scale_gaps_name_what_was_wrong():
    summary = summary_of({8: [[60, 62, 50, 55, 51]]})
    with pytest.raises(ValueError, match=r"holds no corpus '20news'; it holds \['webkb'\]"):
        V.paper_scale_gaps(summary, "20news")
    with pytest.raises(ValueError, match="min_sets must be at least 1, got 0"):
        V.paper_scale_gaps(summary, "webkb", min_sets=0)


def test_the_table_explorer_draws_no_bar_for_a_method_the_tables_did_not_run():
    from sslviz.widgets.hybrid import table_explorer

    table = H.hybrid_table(CORPUS, sizes=[9], seeds=[1], mer=False, normalization_cv=False,
                           progress=False)
    explorer = table_explorer({"webkb": table}, corpus="webkb", size=9)
    assert explorer.last_error is None
    bars = [t.get_text() for t in explorer.figure.axes[1].get_xticklabels()]
    assert bars == ["Proposed", "EM-λ", "NB", "MLR"]
