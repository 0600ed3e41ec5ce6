"""The α-criterion study on a tiny synthetic corpus, against direct calls of what it records."""

from __future__ import annotations

import numpy as np
import pytest
from synthetic import criterion_study_corpus

from sslviz.em import SemiSupervisedNB
from sslviz.experiments.model_selection import (
    CRITERIA,
    EVALUATION_GRID,
    alpha_study,
    format_table,
    summary_rows,
)
from sslviz.splits import split_labeled
from sslviz.tuning import choose_nb_alpha

SEEDS = (0, 1, 2)


@pytest.fixture(scope="module")
def toy():
    return criterion_study_corpus()


@pytest.fixture(scope="module")
def cells(toy, module_result_cache):
    return alpha_study([toy], seeds=SEEDS, n_unlabeled=50, max_iter=2, progress=False, n_jobs=1)


def _split(toy, n_labeled, seed):
    split = split_labeled(toy.y, n_labeled, per_class=True, n_unlabeled=50,
                          test_rows=toy.test_rows, random_state=seed)
    return split, toy.X[split.train], split.semi_supervised_targets(toy.y)


def test_every_recorded_choice_is_the_choice_of_a_direct_call(toy, cells):
    for cell in cells:
        for s, seed in enumerate(cell.seeds):
            _, X_train, y_train = _split(toy, cell.n_labeled, int(seed))
            for c, criterion in enumerate(CRITERIA):
                if cell.n_labeled < 2 and criterion != "evidence":
                    assert np.isnan(cell.chosen[s, c])  # leave-one-out needs 2 per class
                    continue
                choice = choose_nb_alpha(X_train, y_train, criterion=criterion)
                assert cell.chosen[s, c] == choice.params["alpha"]
                assert cell.at_bound[s, c] == choice.at_bound
                assert np.isclose(EVALUATION_GRID, choice.params["alpha"]).any()


def test_accuracies_are_those_of_direct_fits(toy, cells):
    cell = cells[1]
    split, X_train, y_train = _split(toy, cell.n_labeled, int(cell.seeds[0]))
    for j in (3, 8):
        for max_iter, table in ((0, cell.nb_accuracy), (2, cell.em_accuracy)):
            model = SemiSupervisedNB(alpha=EVALUATION_GRID[j], max_iter=max_iter)
            guess = model.fit(X_train, y_train).predict(toy.X[split.test])
            assert table[0, j] == np.mean(guess == toy.y[split.test])


def test_regret_is_never_negative_and_the_summary_counts_wins(cells):
    for cell in cells:
        for criterion in [c for c in CRITERIA if cell.available(c)]:
            for model in ("nb", "em"):
                regret = cell.regret(criterion, model)
                assert np.all(regret >= 0)
                np.testing.assert_array_equal(regret + cell.accuracy(criterion, model),
                                              cell.test_best(model))
    for row in summary_rows(cells):
        assert row["wins"] == int(np.sum(row["em"] > row["nb"]))
        np.testing.assert_allclose(row["gain"], row["em"] - row["nb"])
    assert cells[1].constant_guess[0] == pytest.approx(9 * np.log(1 / 3))
    assert "| toy | 3 | loo_accuracy |" in format_table(cells)


def test_a_leave_one_out_criterion_has_no_choice_with_one_document_per_class(cells):
    one = cells[0]
    assert one.n_labeled == 1 and one.available("evidence")
    assert not one.available("loo_accuracy")
    with pytest.raises(ValueError, match="loo_accuracy chose no α at 1 per class"):
        one.accuracy("loo_accuracy")
    assert {row["criterion"] for row in summary_rows([one])} == {"evidence", "alpha=1"}


def test_lambda_choices_break_accuracy_ties_by_the_likelihood_and_count_bounds():
    from sslviz.experiments.model_selection import LambdaStudyCell

    cell = LambdaStudyCell("toy", 5, np.array([0, 1]), np.array([0.0, 0.1, 0.5, 0.75, 1.0]),
                           np.array([0.01, 0.01]),
                           loo_accuracy=np.array([[0.5, 0.8, 0.8, 0.8, 0.2],
                                                  [0.1, 0.2, 0.3, 0.4, 0.9]]),
                           loo_log_likelihood=np.array([[-5.0, -3.0, -4.0, -2.0, -9.0],
                                                        [-1.0, -2.0, -3.0, -4.0, -5.0]]),
                           test_accuracy=np.array([[0.6, 0.7, 0.8, 0.75, 0.5],
                                                   [0.6, 0.7, 0.8, 0.75, 0.5]]))
    np.testing.assert_array_equal(cell.chosen_index("loo_accuracy"), [3, 4])
    np.testing.assert_array_equal(cell.chosen_index("loo_log_likelihood"), [3, 0])
    np.testing.assert_allclose(cell.regret("loo_accuracy"), [0.05, 0.3])
    assert cell.bound_share("loo_accuracy") == 0.5 and cell.bound_share("loo_log_likelihood") == 0.5


def test_lambda_study_scores_are_leave_one_out_refits(toy, module_result_cache):
    from sslviz.experiments.model_selection import lambda_study

    (cell,) = lambda_study([toy], n_labeled=2, seeds=(0,), n_unlabeled=30, max_iter=2,
                           weights=(0.0, 0.5, 1.0), progress=False, n_jobs=1)
    split = split_labeled(toy.y, 2, per_class=True, n_unlabeled=30, test_rows=toy.test_rows,
                          random_state=0)
    X_train, y_train = toy.X[split.train], split.semi_supervised_targets(toy.y)
    labeled = np.flatnonzero(y_train != -1)
    correct = []
    for row in labeled:  # λ = 1 by hand
        keep = np.arange(len(y_train)) != row
        model = SemiSupervisedNB(alpha=cell.alpha[0], unlabeled_weight=1.0, max_iter=2)
        correct.append(model.fit(X_train[keep], y_train[keep]).predict(X_train[row])[0]
                       == y_train[row])
    assert cell.loo_accuracy[0, 2] == np.mean(correct)
    assert np.all(cell.regret("loo_accuracy") >= 0)


def test_mean_regret_averages_the_cells_where_every_criterion_chose(cells):
    from sslviz.experiments.model_selection import mean_regret

    regret = mean_regret(cells)
    three = cells[1]  # the 1/class cell has no leave-one-out choice and is left out
    for criterion, (nb, em) in regret.items():
        assert nb == pytest.approx(100 * three.regret(criterion, "nb").mean())
        assert em == pytest.approx(100 * three.regret(criterion, "em").mean())
    assert mean_regret(cells[:1]) == {}


def test_lambda_study_equals_the_tuning_modules_leave_one_out(toy, module_result_cache):
    from sslviz.experiments.model_selection import lambda_study
    from sslviz.tuning import cv_score

    (cell,) = lambda_study([toy], n_labeled=2, seeds=(0,), n_unlabeled=30, max_iter=2,
                           weights=(0.0, 0.5, 1.0), progress=False, n_jobs=1)
    split = split_labeled(toy.y, 2, per_class=True, n_unlabeled=30, test_rows=toy.test_rows,
                          random_state=0)
    X_train, y_train = toy.X[split.train], split.semi_supervised_targets(toy.y)
    score = cv_score(SemiSupervisedNB(alpha=cell.alpha[0], max_iter=2), "unlabeled_weight",
                     X_train, y_train, cv="loo", scoring="accuracy", semi_supervised=True)
    assert [score(w) for w in (0.0, 0.5, 1.0)] == pytest.approx(cell.loo_accuracy[0].tolist())


def test_c_study_records_the_choosers_choice_and_direct_fits(toy, module_result_cache):
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    from sslviz.experiments.model_selection import C_CRITERIA, C_START, _c_scoring, c_study
    from sslviz.linear_svm import text_features
    from sslviz.tuning import choose_by_cv_interior

    (cell,) = c_study([toy], seeds=(0,), progress=False, n_jobs=1)
    assert cell.n_labeled == 3 and np.all(cell.regret("balanced_accuracy") >= 0)
    split = split_labeled(toy.y, 3, per_class=True, n_unlabeled=0, test_rows=toy.test_rows,
                          random_state=0)
    X_lab, X_test = text_features(toy.X[split.labeled], toy.X[split.labeled], toy.X[split.test])
    svm = LinearSVC(loss="hinge", max_iter=10_000, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for i, criterion in enumerate(C_CRITERIA):
            scoring, tie_break = _c_scoring(criterion)
            choice = choose_by_cv_interior(svm, "C", C_START, X_lab, toy.y[split.labeled],
                                           kind="C", cv=5, random_state=0, scoring=scoring,
                                           tie_break=tie_break)
            assert cell.chosen[0, i] == choice.params["C"]
        guess = svm.set_params(C=cell.Cs[5]).fit(X_lab, toy.y[split.labeled]).predict(X_test)
    assert cell.test_accuracy[0, 5] == np.mean(guess == toy.y[split.test])
