"""sslviz.experiments.hybrid_sigma: the study of the criteria that choose HybridNB's σ, on a small
synthetic corpus (private result cache per test, tests/conftest.py)."""
import numpy as np
import pytest
from synthetic import topic_corpus

import sslviz.experiments.hybrid as H
import sslviz.experiments.hybrid_sigma as G
from sslviz.hybrid import HybridNB

X, Y, _ = topic_corpus(n_docs=300, n_words=30, n_labeled=0, seed=5)
SETTINGS = {"n_test": 60, "n_unlabeled": 150}
CORPUS = H.HybridCorpus("webkb", X, Y, ["a", "b", "c"], np.array([]), None, 60, 150)


def split_of(seed, size=12):
    split = H.evaluation_split(Y, size, seed, **SETTINGS)
    return split, X[split.train], split.semi_supervised_targets(Y)


def test_the_studys_cv_log_likelihood_is_the_tables_criterion_of_sigma():
    split, X_train, y_train = split_of(3)
    alpha = H.hybrid_alpha(X_train, y_train).value
    scores = H.sigma_scores(X_train, y_train, alpha, seed=3)
    table = H.choose_sigma(X_train, y_train, alpha, random_state=3)
    np.testing.assert_allclose(table.scores, scores["cv_loglik"])
    assert G.choose_by_criterion(scores, "cv_loglik").params["width"] == table.value
    # by hand: each fold's model sees every row, the held-out documents' labels hidden
    per_fold = []
    for _, test in H.labeled_folds(y_train, 3, random_state=3, include_unlabeled=True,
                                   allow_unstratified=True):
        hidden = y_train.copy()
        hidden[test] = -1
        fold = HybridNB(alpha=alpha, prior_scale=G.SIGMA_GRID[0]).fit(X_train, hidden)
        proba = fold.predict_proba(X_train[test])
        per_fold.append(np.mean(np.log(proba[np.arange(len(test)), y_train[test]])))
    assert scores["cv_loglik"][0] == pytest.approx(np.mean(per_fold))
    # the leave-one-out criterion is the fit's own data term
    model = HybridNB(alpha=alpha, prior_scale=G.SIGMA_GRID[2]).fit(X_train, y_train)
    assert scores["loo"][2] == pytest.approx(model.trace_[-1].loo_log_likelihood / 12)
    assert np.isnan(scores["test"]).all()  # no test rows given: nothing reported


def test_regret_is_measured_against_the_test_best_sigma_and_is_never_negative():
    study = G.sigma_study(corpora=["webkb"], sizes=[12], seeds=[0, 1], progress=False,
                          loaded={"webkb": CORPUS})
    cell = study.cells["webkb", 12]
    assert cell["test"].shape == (2, len(G.SIGMA_GRID))
    for criterion in G.CRITERIA:
        sigma, edge, test = study.chosen("webkb", 12, criterion)
        regret = study.regret("webkb", 12, criterion)
        assert np.all(regret >= -1e-9)
        np.testing.assert_allclose(regret, (cell["test"].max(axis=1) - test) * 100)
        if criterion == "sigma-1":
            assert np.all(sigma == 1.0) and not edge.any()
        else:  # an end of the grid is a bound of σ's range
            np.testing.assert_array_equal(edge, np.isin(sigma, [1e-3, 1e3]))
    text = G.sigma_study_text(study)
    assert "webkb, 12 labeled" in text and "mean regret over the cells" in text
    with pytest.raises(ValueError, match="criterion must be one of"):
        G.choose_by_criterion({}, "test")


def test_the_command_refuses_too_few_labels(capsys):
    with pytest.raises(SystemExit):
        G.main(["--sizes", "1"])
    assert "--sizes must be at least 2" in capsys.readouterr().err
