"""Smoothing as a chosen, visible parameter (Lecture 04): the pure summaries of
sslviz.em_smoothing, α chosen on labeled rows in the EM experiments, the smoothing sweep and its
explorer.

Every test has a private result cache (tests/conftest.py).
"""

import re

import numpy as np
import pytest
import scipy.sparse as sp
from explorer_checks import assert_exports
from helpers import refusing
from matplotlib.colors import same_color
from synthetic import topic_corpus

import sslviz.experiments.em
import sslviz.experiments.em_settings
from sslviz.em import SemiSupervisedNB
from sslviz.em_smoothing import majority_share, smoothing_mass
from sslviz.experiments.em import (
    chosen_alpha,
    em_run,
    learning_curve,
    split_accuracies,
)
from sslviz.experiments.em_settings import smoothing_sweep
from sslviz.plots.common import EM_COLOR, NB_COLOR, WRONG
from sslviz.splits import split_labeled
from sslviz.tuning import choose_nb_alpha
from sslviz.widgets.em import smoothing_explorer

# three topics, each with its own frequent words, and many rare words
X, Y, _ = topic_corpus(240, 60, 0, background=0.05, topic_rate=1.2)
TEST_ROWS = np.arange(180, 240)
GRID = (1.0, 0.1, 0.01)


# -- pure summaries -------------------------------------------------------------------------------
def test_smoothing_mass_counts_labeled_tokens_per_class_by_hand():
    X_small = np.array([[2, 0, 1], [0, 3, 0], [1, 1, 1], [5, 5, 5]])
    y = np.array([0, 1, 0, -1])  # the unlabeled row is ignored
    mass = smoothing_mass(X_small, y, 0.5)
    assert mass.classes.tolist() == [0, 1]
    assert mass.tokens.tolist() == [6.0, 3.0]
    assert mass.pseudo_tokens == 1.5 and mass.n_words == 3
    np.testing.assert_allclose(mass.smoothing_share, [1.5 / 7.5, 1.5 / 4.5])
    # the share is what MultinomialNB's denominators hold: alpha|V| of alpha|V| + N(c)
    denominators = mass.tokens + mass.pseudo_tokens
    np.testing.assert_allclose(mass.smoothing_share * denominators, 1.5)


def test_smoothing_mass_rejects_bad_input_with_the_fix():
    with pytest.raises(ValueError, match=re.escape("alpha must be a finite number > 0, got 0")):
        smoothing_mass(np.ones((2, 2)), [0, 1], 0)
    with pytest.raises(ValueError, match="no labeled rows: every entry of y is -1"):
        smoothing_mass(np.ones((2, 2)), [-1, -1], 1.0)
    with pytest.raises(ValueError, match="X has 2 rows but y has 3 entries"):
        smoothing_mass(np.ones((2, 2)), [0, 1, 1], 1.0)


def test_majority_share():
    assert majority_share([2, 2, 1, 2]) == 0.75
    assert majority_share(["a", "b"]) == 0.5
    with pytest.raises(ValueError, match="no predictions"):
        majority_share([])


# -- alpha chosen on the labeled rows -------------------------------------------------------------
def test_chosen_alpha_is_the_named_criterion_on_the_labeled_rows_or_the_number_given():
    y_semi = np.where(np.arange(len(Y)) < 30, Y, -1)
    for criterion in ("evidence", "loo_accuracy", "loo_generative"):
        choice = choose_nb_alpha(X[:30], Y[:30], criterion=criterion, grid=GRID)
        assert chosen_alpha(X, y_semi, criterion, grid=GRID) == choice.value
    assert chosen_alpha(X, y_semi, 0.25) == 0.25
    with pytest.raises(ValueError, match=re.escape(
            "alpha must be a number > 0 or a criterion of "
            "sslviz.tuning.choose_nb_alpha ['evidence', 'loo_accuracy', 'loo_generative', "
            "'loo_log_likelihood'], got 'chosen'")):
        chosen_alpha(X, y_semi, "chosen")
    with pytest.raises(ValueError, match="alpha must be a finite number > 0"):
        chosen_alpha(X, y_semi, -1.0)


def test_split_accuracies_with_a_chosen_alpha_uses_it_for_nb_and_em():
    result = split_accuracies(X, Y, 12, 5, test_rows=TEST_ROWS, n_unlabeled=100,
                              alpha="loo_accuracy", alpha_grid=GRID, max_iter=4)
    split = split_labeled(Y, 12, n_unlabeled=100, test_rows=TEST_ROWS, random_state=5)
    expected = choose_nb_alpha(X[split.labeled], Y[split.labeled], criterion="loo_accuracy",
                               grid=GRID)
    assert result.alpha == expected.value
    fixed = split_accuracies(X, Y, 12, 5, test_rows=TEST_ROWS, n_unlabeled=100,
                             alpha=expected.value, max_iter=4)
    assert result == fixed


def test_learning_curve_records_the_alpha_chosen_on_every_split():
    curve = learning_curve(X, Y, sizes=[3, 12], seeds=[0, 1], test_rows=TEST_ROWS,
                           n_unlabeled=100, progress=False, alpha="evidence", alpha_grid=GRID,
                           max_iter=3)
    for i, size in enumerate([3, 12]):
        for j, seed in enumerate([0, 1]):
            split = split_labeled(Y, size, n_unlabeled=100, test_rows=TEST_ROWS,
                                  random_state=seed)
            choice = choose_nb_alpha(X[split.labeled], Y[split.labeled], grid=GRID)
            assert curve.alpha[i, j] == choice.value and choice.criterion == "evidence"


def test_em_run_with_a_chosen_alpha():
    run = em_run(X, Y, n_labeled=1, per_class=True, seed=0, test_rows=TEST_ROWS,
                 n_unlabeled=100, alpha="evidence", alpha_grid=GRID, max_iter=3)
    labeled = run.split.labeled
    assert run.model.alpha == choose_nb_alpha(X[labeled], Y[labeled], grid=GRID).value


# -- the smoothing sweep --------------------------------------------------------------------------
SWEEP = dict(n_labeled=2, per_class=True, seeds=[0, 1], n_unlabeled=100, test_rows=TEST_ROWS,
             alphas=GRID, max_iter=4, progress=False)


def test_smoothing_sweep_cells_equal_independent_fits():
    sweep = smoothing_sweep(X, Y, **SWEEP)
    assert sweep.nb_accuracy.shape == sweep.em_accuracy.shape == (3, 2)
    assert sweep.nb_predicted.shape == (3, 2, 3) and sweep.n_words == X.shape[1]
    for j, seed in enumerate(SWEEP["seeds"]):
        split = split_labeled(Y, 2, per_class=True, n_unlabeled=100, test_rows=TEST_ROWS,
                              random_state=seed)
        X_train, y_train = X[split.train], split.semi_supervised_targets(Y)
        choice = choose_nb_alpha(X_train, y_train, criterion="evidence", grid=GRID)
        assert sweep.chosen[j] == choice.value and sweep.criteria[j] == "evidence"
        np.testing.assert_array_equal(sweep.tokens[j],
                                      smoothing_mass(X_train, y_train, 1.0).tokens)
        for i, alpha in enumerate(GRID):
            nb = SemiSupervisedNB(alpha=alpha, max_iter=0).fit(X_train, y_train)
            em = SemiSupervisedNB(alpha=alpha, max_iter=4).fit(X_train, y_train)
            nb_guess, em_guess = nb.predict(X[TEST_ROWS]), em.predict(X[TEST_ROWS])
            assert sweep.nb_accuracy[i, j] == np.mean(nb_guess == Y[TEST_ROWS])
            assert sweep.em_accuracy[i, j] == np.mean(em_guess == Y[TEST_ROWS])
            assert sweep.nb_predicted[i, j].tolist() == np.bincount(nb_guess, minlength=3).tolist()
            assert sweep.majority_share("em")[i, j] == majority_share(em_guess)
    nb, em = sweep.at_chosen()
    shares = sweep.majority_share_at_chosen("em")
    for j, alpha in enumerate(sweep.chosen):
        assert nb[j] == sweep.nb_accuracy[sweep.index(alpha), j]
        assert em[j] == sweep.em_accuracy[sweep.index(alpha), j]
        assert shares[j] == sweep.majority_share("em")[sweep.index(alpha), j]
    best = sweep.best_on_test("nb")
    assert sweep.nb_accuracy[sweep.index(best)].mean() == sweep.nb_accuracy.mean(axis=1).max()


def test_smoothing_sweep_is_cached_and_knows_its_alphas(monkeypatch):
    first = smoothing_sweep(X, Y, **SWEEP)

    monkeypatch.setattr(sslviz.experiments.em_settings, "smoothing_job", refusing(
        sslviz.experiments.em_settings.smoothing_job, "refitted although the sweep is cached"))
    again = smoothing_sweep(X, Y, **SWEEP)
    np.testing.assert_array_equal(again.em_accuracy, first.em_accuracy)
    with pytest.raises(ValueError, match=re.escape("alpha 0.5 was not run; the sweep has "
                                                   "[1.0, 0.1, 0.01]")):
        first.index(0.5)


def test_large_smoothing_collapses_the_predictions_on_a_big_vocabulary():
    """With |V| much larger than the labeled tokens, α = 1 sends most test documents to one
    class and a small α does not (the lecture's collapse, on a synthetic corpus)."""
    rng = np.random.default_rng(1)
    y = np.arange(300) % 3
    rates = np.full((3, 3000), 0.0005)  # a long tail of rare words
    rates[:, 30:230] = 0.1  # words every class uses
    for c in range(3):
        rates[c, c * 10:(c + 1) * 10] = 0.5  # each class's own words
    rates[0] *= 5  # class 0 writes long documents: its labeled one covers the most words
    counts = sp.csr_matrix(rng.poisson(rates[y]))
    sweep = smoothing_sweep(counts, y, n_labeled=1, per_class=True, seeds=[0], n_unlabeled=100,
                            alphas=(1.0, 0.001), alpha_grid=(1.0, 0.1, 0.01, 0.001),
                            max_iter=2, progress=False)
    assert sweep.tokens[0].argmax() == 0
    share = sweep.majority_share("nb")
    assert share[0, 0] > 0.75 and share[1, 0] < 0.55
    assert sweep.nb_predicted[0, 0].argmax() == 0  # the collapse goes to the longest class
    assert sweep.nb_accuracy[1, 0] > sweep.nb_accuracy[0, 0] + 0.2


# -- the explorer ---------------------------------------------------------------------------------
def test_smoothing_explorer_replays_the_sweep():
    sweeps = {"words": smoothing_sweep(X, Y, **SWEEP)}
    names = ["a", "b", "c"]
    explorer = smoothing_explorer(sweeps, names)
    sweep = sweeps["words"]
    assert explorer.controls["alpha"].value == sweep.chosen[0]
    explorer.controls["alpha"].value = 1.0
    explorer.controls["seed"].value = 1
    assert explorer.last_error is None
    mass_ax, share_ax, curve_ax = explorer.figure.axes[:3]
    widths = [bar.get_width() for bar in mass_ax.patches]
    np.testing.assert_allclose(widths, sweep.tokens[1])
    line = [ln for ln in mass_ax.lines if same_color(ln.get_color(), WRONG)][0]
    assert line.get_xdata()[0] == pytest.approx(1.0 * X.shape[1])
    bars = share_ax.patches
    nb_bars = [b.get_width() for b in bars if same_color(b.get_facecolor(), NB_COLOR)]
    em_bars = [b.get_width() for b in bars if same_color(b.get_facecolor(), EM_COLOR)]
    i = sweep.index(1.0)
    np.testing.assert_allclose(nb_bars, sweep.nb_predicted[i, 1] / 60 * 100)
    np.testing.assert_allclose(em_bars, sweep.em_predicted[i, 1] / 60 * 100)
    nb_line = [ln for ln in curve_ax.lines if ln.get_label() == "NB"][0]
    np.testing.assert_allclose(nb_line.get_ydata(),
                               sweep.nb_accuracy[::-1].mean(axis=1) * 100)
    assert explorer.caption.value == "alpha=1, features=words, seed=1"
    assert_exports(explorer)
