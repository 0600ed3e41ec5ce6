"""Lecture 12's views and explorers on a tiny synthetic corpus, against direct computations."""

from __future__ import annotations

import re

import numpy as np
import pytest
from explorer_checks import assert_exports
from synthetic import criterion_study_corpus

from sslviz.experiments.model_selection import CRITERIA, alpha_study
from sslviz.experiments.model_selection_views import (
    ALPHA_BOUNDS,
    choices_view,
    labeled_rows,
    score_curves_view,
    study_cell,
)
from sslviz.experiments.runner import NotRun
from sslviz.splits import split_labeled
from sslviz.tuning import ALPHA_CRITERIA
from sslviz.widgets.model_selection import choices_explorer, criteria_explorer

SEEDS = (0, 1, 2)


@pytest.fixture(scope="module")
def toy():
    return criterion_study_corpus()


@pytest.fixture(scope="module")
def cells(toy, module_result_cache):
    return alpha_study([toy], seeds=SEEDS, n_unlabeled=50, max_iter=2, progress=False, n_jobs=1)


def test_the_labeled_rows_are_those_of_the_studys_split(toy):
    split = split_labeled(toy.y, 3, per_class=True, n_unlabeled=50, test_rows=toy.test_rows,
                          random_state=1)
    y_train = split.semi_supervised_targets(toy.y)
    X, y = labeled_rows(toy, 3, 1, n_unlabeled=50)
    assert np.array_equal(np.sort(y), np.sort(y_train[y_train != -1]))
    assert X.shape[0] == len(y) == 3 * len(np.unique(toy.y))


def test_score_curves_are_the_criteria_called_directly(toy, cells):
    cell = study_cell(cells, "toy", 3)
    view = score_curves_view(toy, cell, 2, n_unlabeled=50)
    X, y = labeled_rows(toy, 3, 2, n_unlabeled=50)
    for criterion in CRITERIA:
        function = ALPHA_CRITERIA[criterion][0]
        assert np.allclose(view.scores[criterion], [function(X, y, a) for a in cell.alphas])
        assert view.chosen[criterion] == cell.chosen[2, CRITERIA.index(criterion)]
    assert view.constant_guess == pytest.approx(len(y) * np.log(1 / 3))  # three topics
    assert view.constant_guess == pytest.approx(cell.constant_guess[2])
    assert view.below_guess() == bool(np.all(view.scores["loo_log_likelihood"]
                                             < view.constant_guess))
    assert np.array_equal(view.nb_accuracy, cell.nb_accuracy[2])
    one = score_curves_view(toy, study_cell(cells, "toy", 1), 0, n_unlabeled=50)
    assert np.isfinite(one.scores["evidence"]).all()
    assert all(np.isnan(one.scores[c]).all() for c in CRITERIA if c != "evidence")
    assert not one.below_guess()  # undefined: never reported as below the guess
    with pytest.raises(NotRun, match=re.escape("seed 7 was not run; the grid has seed [0, 1, 2]")):
        score_curves_view(toy, cell, 7, n_unlabeled=50)


def test_choices_view_regret_is_the_gap_to_the_test_best(cells):
    cell = study_cell(cells, "toy", 3)
    view = choices_view(cell, "nb")
    assert view.criteria == CRITERIA
    for i, criterion in enumerate(CRITERIA):
        assert np.allclose(view.regret[i], 100 * cell.regret(criterion, "nb"))
    assert (view.regret >= -1e-9).all()
    assert choices_view(study_cell(cells, "toy", 1)).criteria == ("evidence",)


def test_study_cell_takes_the_largest_size_and_refuses_what_was_not_studied(cells):
    assert study_cell(cells, "toy", 50).n_labeled == 3
    with pytest.raises(ValueError, match="toy was studied at \\[1, 3\\] labeled documents per "
                                         "class, not 2"):
        study_cell(cells, "toy", 2)
    with pytest.raises(ValueError, match="no study cell for corpus 'news'"):
        study_cell(cells, "news", 3)
    with pytest.raises(ValueError, match="model must be 'nb' or 'em', got 'svm'"):
        choices_view(cells[0], "svm")


def test_criteria_explorer_stars_the_studys_choice_and_draws_the_guess(toy, cells):
    explorer = criteria_explorer([toy], cells, corpus="toy", n_labeled=5, seed=1, n_unlabeled=50)
    assert explorer.last_error is None
    view = score_curves_view(toy, study_cell(cells, "toy", 3), 1, n_unlabeled=50)
    loo_ax = explorer.figure.axes[CRITERIA.index("loo_log_likelihood")]
    assert [view.constant_guess] * 2 in [list(line.get_ydata()) for line in loo_ax.get_lines()]
    for i, criterion in enumerate(CRITERIA):
        stars = [line for line in explorer.figure.axes[i].get_lines()
                 if line.get_marker() == "*"]
        assert [float(s.get_xdata()[0]) for s in stars] == [view.chosen[criterion]]
        dashed = sorted(line.get_xdata()[0] for line in explorer.figure.axes[i].get_lines()
                        if line.get_linestyle() == "--")
        assert dashed == list(ALPHA_BOUNDS)
    explorer.controls["n_labeled"].value = 1
    assert explorer.last_error is None
    assert "not defined" in explorer.figure.axes[0].texts[0].get_text()
    assert_exports(explorer)


def test_choices_explorer_plots_each_split_against_its_test_best(cells):
    explorer = choices_explorer(cells, corpus="toy", n_labeled=5, model="em")
    view = choices_view(study_cell(cells, "toy", 3), "em")
    scatter_ax = explorer.figure.axes[0]
    dots = [line for line in scatter_ax.get_lines() if line.get_marker() == "o"]
    assert len(dots) == len(CRITERIA)
    for line, accuracy in zip(dots, view.accuracy, strict=True):
        assert np.allclose(line.get_xdata(), 100 * view.test_best)
        assert np.allclose(line.get_ydata(), 100 * accuracy)
    explorer.controls["model"].value = "nb"
    assert explorer.last_error is None
    assert scatter_ax.get_title() == "toy, 3 labeled per class: NB"
