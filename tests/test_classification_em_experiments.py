"""sslviz.experiments.classification_em and its explorers on a small synthetic sentence corpus."""

import numpy as np
import pytest
from explorer_checks import assert_exports
from helpers import refusing
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import average_precision_score
from sklearn.naive_bayes import MultinomialNB
from sklearn.preprocessing import StandardScaler
from synthetic import topic_corpus

import sslviz.experiments.classification_em as experiments
from sslviz.datasets.reuters_sentences import FEATURES, SentenceCorpus, split_stories
from sslviz.splits import split_labeled
from sslviz.tuning import log_evidence
from sslviz.widgets.classification_em import (
    bow_explorer,
    cem_stepper_explorer,
    extraction_explorer,
)


def make_corpus(n_stories=60, per_story=6, seed=0):
    """Early sentences and sentences with a high second feature tend to be relevant."""
    rng = np.random.default_rng(seed)
    story = np.repeat(np.arange(n_stories), per_story)
    index = np.tile(np.arange(per_story), n_stories)
    signal = rng.normal(size=len(story))
    overlap = np.clip(0.8 - 0.15 * index + 0.25 * signal + rng.normal(0, 0.2, len(story)), 0, 1)
    features = np.column_stack([np.log1p(index), signal + rng.normal(0, 0.5, len(story)),
                                rng.random(len(story)), rng.poisson(1.0, len(story)),
                                rng.poisson(0.5, len(story))]).astype(float)
    n = len(story)
    return SentenceCorpus(features, FEATURES, overlap, story, index, np.array(["s"] * n),
                          np.array(["h"] * n_stories), np.array(["id"] * n_stories), "synthetic")


CORPUS = make_corpus()


def per_story_ap(scores, relevant, story):
    values = [average_precision_score(relevant[story == s], scores[story == s])
              for s in np.unique(story) if relevant[story == s].any()]
    return np.mean(values)


def test_figure1_job_against_an_independent_fit():
    relevant = CORPUS.relevant(0.5)
    result = experiments.figure1_job(CORPUS.features, relevant, CORPUS.story, CORPUS.index,
                                     0.5, 3)
    split = split_stories(CORPUS.story, 0.5, random_state=3)
    X = StandardScaler().fit(CORPUS.features[split.train]).transform(CORPUS.features)
    model = LogisticRegression(C=result["logistic_C"]).fit(X[split.labeled],
                                                          relevant[split.labeled])
    test = split.test
    assert result["logistic_ap"] == pytest.approx(
        per_story_ap(model.decision_function(X[test]), relevant[test], CORPUS.story[test]))
    assert result["lead_ap"] == pytest.approx(
        per_story_ap(-CORPUS.index[test], relevant[test], CORPUS.story[test]))
    assert result["logistic_accuracy"] == pytest.approx(
        np.mean(model.predict(X[test]) == relevant[test]))
    assert result["logistic_C"] in DECADES


DECADES = [10.0 ** e for e in range(-4, 5)]  # C's documented range, in the choosers' steps


def test_figure1_is_cached_and_shaped(monkeypatch):
    kwargs = dict(fractions=(0.2, 1.0), seeds=(0, 1), progress=False)
    first = experiments.figure1(CORPUS, **kwargs)
    assert first.ap["logistic_cem"].shape == (2, 2) and first.lead_ap.shape == (2,)
    assert np.all((first.ap["logistic"] > 0) & (first.ap["logistic"] <= 1))

    monkeypatch.setattr(experiments, "figure1_job", refusing(experiments.figure1_job))
    again = experiments.figure1(CORPUS, **kwargs)
    np.testing.assert_array_equal(again.ap["logistic"], first.ap["logistic"])
    assert first.at(1.0) == 1
    with pytest.raises(ValueError, match="fraction 0.3 was not run"):
        first.at(0.3)


def test_table1_job_majority_and_logistic_by_hand():
    relevant = CORPUS.relevant(0.5)
    result = experiments.table1_job(CORPUS.features, relevant, CORPUS.story, CORPUS.index, 0)
    split = split_stories(CORPUS.story, 1.0, random_state=0)
    share = relevant[split.test].mean()
    assert result["majority_accuracy"] == pytest.approx(max(share, 1 - share))
    for name in experiments.TABLE1_MODELS:
        assert 0 < result[f"{name}_ap"] <= 1 and 0 < result[f"{name}_accuracy"] <= 1
        assert result[f"{name}_ap_all_k"] < result[f"{name}_ap"]


def test_extraction_refit_replays_iteration_zero_and_partitions():
    refit = experiments.extraction_refit(CORPUS, seeds=(0, 1))
    result = refit(0.2, "logistic", "full", 1.0, 0.5)
    assert refit(0.2, "logistic", "full", 1.0, 0.5) is result  # cached
    relevant = CORPUS.relevant(0.5)
    split = split_stories(CORPUS.story, 0.2, random_state=0)
    X = StandardScaler().fit(CORPUS.features[split.train]).transform(CORPUS.features)
    supervised = LogisticRegression(C=1.0, tol=1e-10, max_iter=1000).fit(
        X[split.labeled], relevant[split.labeled])
    test = split.test
    assert result["supervised_ap"][0] == pytest.approx(
        per_story_ap(supervised.decision_function(X[test]), relevant[test],
                     CORPUS.story[test]), abs=1e-6)
    assert result["true_share"] == pytest.approx(relevant[split.unlabeled].mean())
    assert np.all((result["relevant_share"] >= 0) & (result["relevant_share"] <= 1))
    with pytest.raises(ValueError, match=r"model must be one of \['logistic', 'gaussian'\]"):
        refit(0.2, "svm", "full", 1.0, 0.5)


def test_extraction_refit_shares_work_between_settings(monkeypatch):
    fits = []

    def counting(cls):
        class Counting(cls):
            def fit(self, X, y):
                fits.append((cls.__name__, X.shape[0]))
                return super().fit(X, y)
        return Counting

    monkeypatch.setattr(experiments, "LogisticCEM", counting(experiments.LogisticCEM))
    monkeypatch.setattr(experiments, "GaussianCEM", counting(experiments.GaussianCEM))
    splits = []
    real_split = experiments._scaled_split
    monkeypatch.setattr(experiments, "_scaled_split",
                        lambda *args: splits.append(args[2:]) or real_split(*args))
    refit = experiments.extraction_refit(CORPUS, seeds=(0, 1))
    first = refit(0.2, "logistic", "full", 1.0, 0.5)
    assert len(fits) == 2 and splits == [(0.2, 0), (0.2, 1)]
    assert refit(0.2, "logistic", "diag", 1.0, 0.5) is first  # covariance: not a logistic's
    gaussian = refit(0.2, "gaussian", "diag", 1.0, 0.5)
    assert refit(0.2, "gaussian", "diag", 10.0, 0.5) is gaussian  # C: not a Gaussian's
    assert [name for name, _ in fits] == ["LogisticCEM"] * 2 + ["GaussianCEM"] * 2
    stricter = refit(0.2, "logistic", "full", 1.0, 0.75)
    assert len(fits) == 6 and len(splits) == 2  # a new threshold reuses the scaled splits
    np.testing.assert_array_equal(gaussian["lead_ap"], first["lead_ap"])
    relevant = CORPUS.relevant(0.75)
    for seed, value in zip((0, 1), stricter["lead_ap"], strict=True):
        test = split_stories(CORPUS.story, 0.2, random_state=seed).test
        assert value == pytest.approx(per_story_ap(-CORPUS.index[test], relevant[test],
                                                   CORPUS.story[test]))
    fresh = experiments.extraction_refit(CORPUS, seeds=(0, 1))(0.2, "gaussian", "diag", 1.0,
                                                                0.5)
    for name, value in gaussian.items():  # what is shared equals a computation from scratch
        np.testing.assert_array_equal(value, fresh[name])


def test_stepper_run_puts_labeled_rows_first_with_their_labels():
    run = experiments.stepper_run(2, 5, "shared", 1.0, 200)
    labeled = run.y_semi != -1
    assert labeled.sum() == 4 and np.all(labeled[:4])
    np.testing.assert_array_equal(run.y_semi[labeled], run.y[labeled])
    assert run.gaussian.covariance == "shared" and run.logistic.C == 1.0
    assert run.gaussian.trace_[-1].partition.shape == ((~labeled).sum(),)


def test_bow_job_nb_is_multinomial_nb_with_the_chosen_alpha():
    X, y, _ = topic_corpus(300, 40, 0, 0)
    test_rows = np.arange(200, 300)
    result = experiments.bow_job(X, y, test_rows, 100, 3, 1)
    split = split_labeled(y, 3, per_class=True, n_unlabeled=100, test_rows=test_rows,
                          random_state=1)
    alpha = result["alpha"]
    prior = (np.bincount(y[split.labeled], minlength=3) + alpha)
    reference = MultinomialNB(alpha=alpha, class_prior=prior / prior.sum())
    reference.fit(X[split.labeled], y[split.labeled])
    assert result["nb_accuracy"] == pytest.approx(
        np.mean(reference.predict(X[test_rows]) == y[test_rows]))
    evidence = [log_evidence(X[split.labeled], y[split.labeled], a) for a in (
        alpha / 10, alpha, alpha * 10)]  # the evidence's α beats its neighbouring decades
    assert evidence[1] > max(evidence[0], evidence[2])


# -- explorers -------------------------------------------------------------------------------------
def test_stepper_explorer_replays_the_traces():
    explorer = cem_stepper_explorer(n_labeled=1, seed=0)
    run = experiments.stepper_run(1, 0, "full", 1.0)
    last = max(len(run.gaussian.trace_), len(run.logistic.trace_)) - 1
    assert explorer.controls["iteration"].max == last
    explorer.controls["iteration"].value = 1
    assert explorer.last_error is None
    title = explorer.figure.axes[0].get_title()
    changes = run.gaussian.trace_[1].n_label_changes
    assert title.startswith(f"Generative-CEM: iteration 1, {changes} "
                            "changed")
    explorer.controls["iteration"].value = last
    assert "converged" in explorer.figure.axes[1].get_title()
    assert explorer.caption.value.startswith(f"iteration={last}, n_labeled=1")
    assert_exports(explorer)


def test_extraction_explorer_draws_what_refit_returns():
    fig1 = experiments.figure1(CORPUS, fractions=(0.2, 1.0), seeds=(0,), progress=False)
    calls = []

    def refit(*setting):
        calls.append(setting)
        return {"supervised_ap": np.array([0.5, 0.7]), "cem_ap": np.array([0.6, 0.8]),
                "lead_ap": np.array([0.9, 0.9]), "relevant_share": np.array([0.2, 0.1, 0.0]),
                "true_share": np.array(0.15)}

    explorer = extraction_explorer(fig1, refit, fraction=0.2)
    explorer.controls["C"].value = 0.01
    assert calls[-1] == (0.2, "logistic", "full", 0.01, 0.5)
    heights = [bar.patches[0].get_height() for bar in explorer.figure.axes[1].containers]
    np.testing.assert_allclose(heights, [60, 70, 90])
    assert_labels_clear_the_dots(explorer.figure.axes[1], ["60.0%", "70.0%", "90.0%"])
    assert_exports(explorer)


def test_bow_explorer_bars_are_the_means_over_seeds():
    curves = {name: np.array([[0.5, 0.6], [0.7, 0.9]]) + i / 100
              for i, name in enumerate(("nb", "nb_em", "nb_cem", "logistic"))}
    explorer = bow_explorer([1, 5], curves, size=1)
    explorer.controls["n_labeled"].value = 5
    heights = [bar.patches[0].get_height() for bar in explorer.figure.axes[1].containers]
    np.testing.assert_allclose(heights, [80, 81, 82, 83])
    assert_labels_clear_the_dots(explorer.figure.axes[1], ["80.0%", "81.0%", "82.0%", "83.0%"])
    assert_exports(explorer)


def assert_labels_clear_the_dots(ax, expected):
    """Each bar's value label sits above its highest seed dot and inside the axis."""
    assert [text.get_text() for text in ax.texts] == expected
    for text, dots in zip(ax.texts, [line.get_ydata() for line in ax.lines], strict=True):
        assert np.max(dots) < text.get_position()[1] < ax.get_ylim()[1] - 3


def test_figure1_c_is_chosen_by_story_folds_and_log_likelihood():
    from sklearn.metrics import log_loss
    from sklearn.model_selection import StratifiedGroupKFold

    relevant = CORPUS.relevant(0.5)
    result = experiments.figure1_job(CORPUS.features, relevant, CORPUS.story, CORPUS.index,
                                     0.5, 3)
    split = split_stories(CORPUS.story, 0.5, random_state=3)
    X = StandardScaler().fit(CORPUS.features[split.train]).transform(CORPUS.features)
    X_lab, y_lab, groups = X[split.labeled], relevant[split.labeled], CORPUS.story[split.labeled]
    folds = list(StratifiedGroupKFold(experiments.CV, shuffle=True, random_state=3)
                 .split(X_lab, y_lab, groups))
    for train, test in folds:  # no story on both sides
        assert not set(groups[train]) & set(groups[test])

    def score(c):
        return np.mean([-log_loss(y_lab[te], LogisticRegression(C=c).fit(X_lab[tr], y_lab[tr])
                                  .predict_proba(X_lab[te]), labels=[0, 1]) for tr, te in folds])

    grid = sorted(experiments.C_GRID)
    while True:  # by hand: add a decade past the winning end until the winner is interior
        best = int(np.argmax([score(c) for c in grid]))
        if 0 < best < len(grid) - 1 or grid[best] in (1e-4, 1e4):
            break
        grid = [grid[0] / 10, *grid] if best == 0 else [*grid, grid[-1] * 10]
    assert result["logistic_C"] == pytest.approx(grid[best])
    assert result["logistic_C_at_bound"] == float(not 0 < best < len(grid) - 1)


def test_an_edge_choice_is_acknowledged_and_recorded():
    from sslviz.tuning import Choice

    edge = Choice({"C": 10.0}, [{"C": 0.1}, {"C": 1.0}, {"C": 10.0}], np.zeros(3), "test")
    inside = Choice({"C": 1.0}, edge.candidates, np.zeros(3), "test")
    result = {}
    assert experiments._used(edge, result, "c") == 10.0 and result == {"c_at_bound": 1.0}
    assert experiments._used(inside, result, "c") == 1.0 and result == {"c_at_bound": 0.0}


def test_table1_kupiec_alpha_by_story_folds_and_log_likelihood():
    from sklearn.naive_bayes import CategoricalNB

    from sslviz.tuning import choose_by_cv_interior

    relevant = CORPUS.relevant(0.5)
    result = experiments.table1_job(CORPUS.features, relevant, CORPUS.story, CORPUS.index, 0)
    split = split_stories(CORPUS.story, 1.0, random_state=0)
    bins = experiments.KBinsDiscretizer(n_bins=5, encode="ordinal", strategy="quantile",
                                        quantile_method="averaged_inverted_cdf")
    binned = bins.fit(CORPUS.features[split.train]).transform(CORPUS.features).astype(int)
    choice = choose_by_cv_interior(
        CategoricalNB(min_categories=5), "alpha", experiments.KUPIEC_ALPHA_GRID,
        binned[split.labeled], relevant[split.labeled], kind="alpha", cv=experiments.CV,
        random_state=0, groups=CORPUS.story[split.labeled])
    assert result["kupiec_alpha"] == choice.params["alpha"]
    assert result["kupiec_alpha_at_bound"] == float(choice.at_bound)
    alphas = sorted(c["alpha"] for c in choice.candidates)
    assert choice.at_bound or alphas[0] < result["kupiec_alpha"] < alphas[-1]


def test_bow_job_logistic_uses_unit_length_tfidf():
    from sklearn.feature_extraction.text import TfidfTransformer

    X, y, _ = topic_corpus(300, 40, 0, 0)
    test_rows = np.arange(200, 300)
    result = experiments.bow_job(X, y, test_rows, 100, 3, 1)
    split = split_labeled(y, 3, per_class=True, n_unlabeled=100, test_rows=test_rows,
                          random_state=1)
    T = TfidfTransformer(sublinear_tf=True).fit(X[split.train]).transform(X)
    np.testing.assert_allclose(np.asarray(T.multiply(T).sum(axis=1)).ravel()[
        np.asarray(X.sum(axis=1)).ravel() > 0], 1.0)
    model = LogisticRegression(C=result["logistic_C"], max_iter=1000).fit(T[split.labeled],
                                                                         y[split.labeled])
    assert result["logistic_C"] in DECADES
    assert result["logistic_accuracy"] == pytest.approx(
        np.mean(model.predict(T[test_rows]) == y[test_rows]))
