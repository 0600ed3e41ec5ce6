"""Refits of the learning-curve explorer (lecture 04): the numbers of a fresh computation, with
what does not depend on λ computed once, and the settings next to the one on screen refitted
while the kernel idles."""

from __future__ import annotations

import numpy as np
import pytest
from synthetic import four_topic_corpus

import sslviz.experiments.em
from sslviz.em import SemiSupervisedNB
from sslviz.experiments.em import SizeRefits, learning_curve, refit_at_size, split_accuracies
from sslviz.widgets.em import learning_curve_explorer

TEST_ROWS = np.arange(220, 320)  # as in test_em_widgets.py
LIVE = {"seeds": (0, 1, 2), "test_rows": TEST_ROWS, "n_unlabeled": 150, "max_iter": 5}
GRID = (1.0, 0.1, 0.01)


@pytest.fixture(scope="module")
def corpus():
    return four_topic_corpus()


@pytest.fixture
def fits(monkeypatch):
    """Every SemiSupervisedNB fit, as (alpha, unlabeled_weight, max_iter)."""
    calls = []
    original = SemiSupervisedNB.iter_fit

    def counting(self, X, y):
        calls.append((self.alpha, self.unlabeled_weight, self.max_iter))
        return original(self, X, y)

    monkeypatch.setattr(SemiSupervisedNB, "iter_fit", counting)
    return calls


@pytest.fixture
def choices(monkeypatch):
    """Every α chosen on labeled rows, as (n_labeled rows, random_state)."""
    calls = []
    original = sslviz.experiments.em.chosen_alpha

    def counting(X, y, alpha, **kwargs):
        calls.append((int(np.sum(np.asarray(y) != -1)), kwargs.get("random_state")))
        return original(X, y, alpha, **kwargs)

    monkeypatch.setattr(sslviz.experiments.em, "chosen_alpha", counting)
    return calls


def fresh(corpus, n_labeled, unlabeled_weight, alpha, alpha_grid=GRID):
    """(nb, em) over LIVE's seeds, each split fitted from scratch by split_accuracies."""
    results = [split_accuracies(corpus.X, corpus.y, n_labeled, seed, test_rows=TEST_ROWS,
                                n_unlabeled=LIVE["n_unlabeled"], alpha=alpha,
                                alpha_grid=alpha_grid, unlabeled_weight=unlabeled_weight,
                                max_iter=LIVE["max_iter"])
               for seed in LIVE["seeds"]]
    return np.array([r.nb_accuracy for r in results]), np.array([r.em_accuracy for r in results])


def test_a_refit_equals_split_accuracies_and_a_revisit_fits_nothing(corpus, fits):
    refit = refit_at_size(corpus.X, corpus.y, **LIVE)
    assert isinstance(refit, SizeRefits)
    nb, em = refit(8, 0.5, 0.1)
    expected = fresh(corpus, 8, 0.5, 0.1)
    np.testing.assert_array_equal(nb, expected[0])
    np.testing.assert_array_equal(em, expected[1])
    fits.clear()
    again = refit(8, 0.5, 0.1)
    assert fits == []
    np.testing.assert_array_equal(again[0], nb)
    np.testing.assert_array_equal(again[1], em)


def test_another_lambda_refits_em_only(corpus, fits):
    refit = refit_at_size(corpus.X, corpus.y, **LIVE)
    refit(8, 0.5, 0.1)
    assert sorted(fits) == sorted([(0.1, 0.0, 0)] * 0 + [(0.1, 1.0, 0)] * 3 + [(0.1, 0.5, 5)] * 3)
    fits.clear()
    nb, em = refit(8, 0.2, 0.1)
    assert fits == [(0.1, 0.2, 5)] * 3  # Naive Bayes does not depend on λ: not fitted again
    expected = fresh(corpus, 8, 0.2, 0.1)
    np.testing.assert_array_equal(nb, expected[0])
    np.testing.assert_array_equal(em, expected[1])


def test_the_chosen_alpha_is_chosen_once_per_split(corpus, fits, choices):
    refit = SizeRefits(corpus.X, corpus.y, alpha_grid=GRID, **LIVE)
    for lam in (1.0, 0.5, 0.0):
        nb, em = refit(8, lam, "evidence")
        expected = fresh(corpus, 8, lam, "evidence")
        np.testing.assert_array_equal(nb, expected[0])
        np.testing.assert_array_equal(em, expected[1])
    # fresh() chose 3 times per λ; the refits 3 times in all, once per seed
    assert choices.count((8, 0)) == 1 + 3 and len(choices) == 3 + 3 * 3
    # a number equal to a chosen α is the same setting: no new fit
    chosen = [refit._alphas[(8, seed, "evidence")] for seed in LIVE["seeds"]]
    if len(set(chosen)) == 1:
        fits.clear()
        refit(8, 0.5, chosen[0])
        assert fits == []


def test_the_chosen_alpha_is_read_from_the_learning_curve(corpus, choices):
    curve = learning_curve(corpus.X, corpus.y, sizes=[4, 8], seeds=LIVE["seeds"],
                           test_rows=TEST_ROWS, n_unlabeled=LIVE["n_unlabeled"], progress=False,
                           alpha="evidence", alpha_grid=GRID, max_iter=LIVE["max_iter"])
    choices.clear()
    refit = SizeRefits(corpus.X, corpus.y, alpha_grid=GRID, **LIVE)
    nb, em = refit(8, 1.0, "evidence")
    assert choices == []  # the curve's cached jobs chose it: the same computation
    np.testing.assert_array_equal(nb, curve.at(8)[0])
    np.testing.assert_array_equal(em, curve.at(8)[1])
    np.testing.assert_array_equal([refit._alphas[(8, s, "evidence")] for s in LIVE["seeds"]],
                                  curve.alpha[1])
    nb, em = refit(8, 0.3, "evidence")
    expected = fresh(corpus, 8, 0.3, "evidence")  # chooses afresh
    np.testing.assert_array_equal(nb, expected[0])
    np.testing.assert_array_equal(em, expected[1])
    # another grid is another choice: not read from the curve
    choices.clear()
    SizeRefits(corpus.X, corpus.y, alpha_grid=(1.0, 0.1, 0.001), **LIVE)(8, 1.0, "evidence")
    assert len(choices) == len(LIVE["seeds"])


def test_steps_taken_ahead_are_continued_not_repeated(corpus, fits):
    refit = SizeRefits(corpus.X, corpus.y, **LIVE)
    assert refit.cached(8, 0.5, 0.1) is None
    steps = refit.steps(8, 0.5, 0.1)
    for _ in range(6):  # part of the way: some splits' NB and EM iterations
        next(steps)
    steps.close()  # dropped half-way (the explorer moved on), the fit under way is kept
    other = refit.steps(8, 0.5, 0.1)
    next(other)
    nb, em = refit(8, 0.5, 0.1)
    assert sorted(fits) == sorted([(0.1, 1.0, 0)] * 3 + [(0.1, 0.5, 5)] * 3)  # each fit once
    expected = fresh(corpus, 8, 0.5, 0.1)
    np.testing.assert_array_equal(nb, expected[0])
    np.testing.assert_array_equal(em, expected[1])
    assert list(other) == [] and list(refit.steps(8, 0.5, 0.1)) == []
    np.testing.assert_array_equal(refit.cached(8, 0.5, 0.1)[1], em)


def test_a_fit_that_fails_ahead_fails_again_at_the_visit(corpus):
    refit = SizeRefits(corpus.X, corpus.y, **LIVE)
    with pytest.raises(ValueError, match="unlabeled_weight"):
        list(refit.steps(8, 1.5, 0.1))
    with pytest.raises(ValueError, match="unlabeled_weight"):
        refit(8, 1.5, 0.1)
    with pytest.raises(ValueError, match="evidence"):
        refit(8, 1.0, "best")


# -- what the explorer refits ahead ---------------------------------------------------------------
SIZES = [20, 50, 100, 200]


def test_the_explorer_prepares_its_neighbours_and_a_visit_then_fits_nothing(corpus, fits):
    curve = learning_curve(corpus.X, corpus.y, sizes=[4, 8, 16], seeds=LIVE["seeds"],
                           test_rows=TEST_ROWS, n_unlabeled=LIVE["n_unlabeled"], progress=False,
                           alpha=0.1, max_iter=LIVE["max_iter"])
    refit = refit_at_size(corpus.X, corpus.y, **LIVE)

    explorer = learning_curve_explorer({"words": curve}, {"words": refit}, size=8,
                                       alpha=0.1, curves_computed_with=(1.0, 0.1))
    assert refit.cached(8, 0.9, 0.1) is None  # no event loop here: nothing ran yet
    explorer.ahead.run_pending()  # what the kernel does while the class looks
    # the neighbours along λ and α were refitted; those with the curves' (λ, α) are replayed
    assert refit.cached(8, 0.9, 0.1) is not None and refit.cached(8, 0.8, 0.1) is not None
    assert refit.cached(16, 1.0, 0.1) is None
    fits.clear()
    explorer.controls["unlabeled_weight"].value = 0.7 + 0.1  # 0.7999999999999999
    assert explorer.last_error is None and fits == []  # 0.8 was refitted ahead
    expected = fresh(corpus, 8, 0.8, 0.1)
    heights = [p.get_height() for p in explorer.figure.axes[1].patches]
    np.testing.assert_allclose(heights, [expected[0].mean() * 100, expected[1].mean() * 100])
    assert "λ=0.8," in explorer.figure.axes[1].get_title()
