"""sslviz.experiments.em on a small clustered corpus: split accuracies, learning curves, EM runs,
choosing λ.

Every test has a private result cache (tests/conftest.py).
"""

import re

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.naive_bayes import MultinomialNB
from synthetic import topic_corpus

import sslviz.experiments.em
from sslviz.em import SemiSupervisedNB
from sslviz.experiments.em import (
    LearningCurve,
    em_run,
    learning_curve,
    split_accuracies,
    split_result,
)
from sslviz.experiments.em_settings import (
    choose_unlabeled_weight,
    criterion_comparison,
    loo_label_scores,
    unlabeled_weight_study,
)
from sslviz.splits import split_labeled
from sslviz.tuning import (
    choose_nb_alpha,
    loo_accuracy,
    loo_log_likelihood,
)

X, Y, _ = topic_corpus(240, 40, 0, background=0.5, topic_rate=1.2)
TEST_ROWS = np.arange(180, 240)
CURVE = dict(sizes=[3, 6, 12], seeds=[0, 1], test_rows=TEST_ROWS, n_unlabeled=120,
             progress=False, alpha=0.5, max_iter=5)


def refuse(*args, **kwargs):
    raise AssertionError("refitted although the curve is cached")


def test_split_accuracies_equals_a_manual_computation():
    nb_acc, em_acc, n_iter, alpha = split_accuracies(X, Y, 6, 3, test_rows=TEST_ROWS,
                                                     n_unlabeled=120, alpha=0.5,
                                                     unlabeled_weight=0.3, max_iter=7)
    assert alpha == 0.5
    split = split_labeled(Y, 6, n_unlabeled=120, test_rows=TEST_ROWS, random_state=3)
    labeled = split.labeled
    # NB: scikit-learn's MultinomialNB on the labeled rows with the prior smoothed as EM does
    prior = (np.bincount(Y[labeled], minlength=3) + 0.5) / (len(labeled) + 3 * 0.5)
    nb = MultinomialNB(alpha=0.5, class_prior=prior).fit(X[labeled], Y[labeled])
    assert nb_acc == np.mean(nb.predict(X[TEST_ROWS]) == Y[TEST_ROWS])
    # EM: SemiSupervisedNB on labeled rows (labels) + unlabeled rows (-1)
    rows = np.concatenate([labeled, split.unlabeled])
    y_semi = np.concatenate([Y[labeled], np.full(120, -1)])
    em = SemiSupervisedNB(alpha=0.5, unlabeled_weight=0.3, max_iter=7).fit(X[rows], y_semi)
    assert em_acc == np.mean(em.predict(X[TEST_ROWS]) == Y[TEST_ROWS])
    assert n_iter == em.n_iter_ and 1 <= n_iter <= 7
    assert isinstance(nb_acc, float) and isinstance(em_acc, float)


def test_learning_curve_shapes_and_values():
    curve = learning_curve(X, Y, use_cache=False, **CURVE)
    assert curve.sizes.tolist() == [3, 6, 12] and curve.seeds.tolist() == [0, 1]
    for name in ("nb_accuracy", "em_accuracy", "em_iterations"):
        assert getattr(curve, name).shape == (3, 2)
    assert curve.em_iterations.dtype.kind == "i"
    assert np.all((curve.em_iterations >= 1) & (curve.em_iterations <= 5))
    assert np.all((curve.nb_accuracy >= 0) & (curve.nb_accuracy <= 1))
    # every cell is split_accuracies at that size and seed
    params = {k: CURVE[k] for k in ("test_rows", "n_unlabeled", "alpha", "max_iter")}
    for i, size in enumerate(CURVE["sizes"]):
        for j, seed in enumerate(CURVE["seeds"]):
            expected = split_accuracies(X, Y, size, seed, **params)
            assert (curve.nb_accuracy[i, j], curve.em_accuracy[i, j],
                    curve.em_iterations[i, j], curve.alpha[i, j]) == expected
    # EM helps on this corpus with few labels (a sanity check of what is stored where)
    assert curve.em_accuracy[0].mean() > curve.nb_accuracy[0].mean()


def test_learning_curve_is_deterministic():
    a = learning_curve(X, Y, use_cache=False, **CURVE)
    b = learning_curve(X, Y, use_cache=False, **CURVE)
    for name in ("nb_accuracy", "em_accuracy", "em_iterations"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    other = learning_curve(X, Y, use_cache=False, **{**CURVE, "seeds": [5, 6]})
    assert not np.array_equal(a.nb_accuracy, other.nb_accuracy)


def test_split_result_is_split_accuracies_as_arrays():
    params = {k: CURVE[k] for k in ("test_rows", "n_unlabeled", "alpha", "max_iter")}
    result = split_result(X, Y, 6, 1, **params)
    nb, em, n_iter, alpha = split_accuracies(X, Y, 6, 1, **params)
    assert result == {"nb_accuracy": nb, "em_accuracy": em, "em_iterations": n_iter,
                      "alpha": alpha}
    assert all(isinstance(value, np.generic) for value in result.values())


def test_learning_curve_second_call_reads_the_cache(result_cache, monkeypatch):
    first = learning_curve(X, Y, **CURVE)
    files = list((result_cache / "curves").iterdir())
    assert len(files) == 6 and all(path.suffix == ".npz" for path in files)  # one per split
    monkeypatch.setattr(sslviz.experiments.em, "split_accuracies", refuse)
    second = learning_curve(X, Y, **CURVE)
    for name in ("sizes", "seeds", "nb_accuracy", "em_accuracy", "em_iterations"):
        np.testing.assert_array_equal(getattr(first, name), getattr(second, name))
        assert getattr(first, name).dtype == getattr(second, name).dtype
    for path in files:
        with np.load(path, allow_pickle=False) as f:
            assert all(f[key].dtype.kind != "O" for key in f.files)
    # another parameter is another curve: it must be computed
    with pytest.raises(AssertionError, match="refitted"):
        learning_curve(X, Y, **{**CURVE, "alpha": 1.0})
    with pytest.raises(AssertionError, match="refitted"):
        learning_curve(X, Y, **{**CURVE, "n_unlabeled": 100})
    assert not list(result_cache.rglob("*.part*"))


def test_learning_curve_use_cache_false_refits_every_split(result_cache, monkeypatch):
    learning_curve(X, Y, **CURVE)
    monkeypatch.setattr(sslviz.experiments.em, "split_accuracies", refuse)
    with pytest.raises(AssertionError, match="refitted"):
        learning_curve(X, Y, use_cache=False, **CURVE)


def test_learning_curve_fits_only_the_splits_not_cached_yet(result_cache, monkeypatch):
    smaller = learning_curve(X, Y, **{**CURVE, "sizes": [3, 12]})
    fitted = []
    real = sslviz.experiments.em.split_accuracies

    def counting(X, y, n_labeled, seed, **kwargs):
        fitted.append((n_labeled, seed))
        return real(X, y, n_labeled, seed, **kwargs)

    monkeypatch.setattr(sslviz.experiments.em, "split_accuracies", counting)
    curve = learning_curve(X, Y, **CURVE)
    assert fitted == [(6, 0), (6, 1)]
    np.testing.assert_array_equal(curve.nb_accuracy[[0, 2]], smaller.nb_accuracy)
    np.testing.assert_array_equal(curve.em_iterations[[0, 2]], smaller.em_iterations)


def test_learning_curve_cache_key_includes_the_number_of_words(monkeypatch):
    learning_curve(X, Y, **CURVE)
    wider = sp.hstack([X, sp.csr_matrix((X.shape[0], 5), dtype=X.dtype)], format="csr")
    monkeypatch.setattr(sslviz.experiments.em, "split_accuracies", refuse)
    with pytest.raises(AssertionError, match="refitted"):
        learning_curve(wider, Y, **CURVE)


def test_learning_curve_at():
    curve = learning_curve(X, Y, use_cache=False, **CURVE)
    nb, em = curve.at(6)
    np.testing.assert_array_equal(nb, curve.nb_accuracy[1])
    np.testing.assert_array_equal(em, curve.em_accuracy[1])
    message = "size 7 was not run; the curve has sizes [3, 6, 12]"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        curve.at(7)


def test_learning_curve_at_on_a_hand_made_curve():
    curve = LearningCurve(np.array([10, 20]), np.array([0]), np.array([[0.1], [0.2]]),
                          np.array([[0.3], [0.4]]), np.array([[1], [2]]))
    assert curve.at(20) == (np.array([0.2]), np.array([0.4]))
    with pytest.raises(ValueError, match=re.escape("size 30 was not run; the curve has sizes "
                                                   "[10, 20]")):
        curve.at(30)


def test_em_run_scores_every_recorded_iteration():
    run = em_run(X, Y, n_labeled=6, seed=2, n_unlabeled=100, alpha=0.5, max_iter=6)
    model, split = run.model, run.split
    assert len(run.test_accuracy) == len(model.trace_) == model.n_iter_ + 1
    test = np.setdiff1d(np.arange(len(Y)), split.train)  # the default test rows
    assert len(test) == len(Y) - 106
    assert run.test_accuracy[-1] == np.mean(model.predict(X[test]) == Y[test])
    nb = SemiSupervisedNB(alpha=0.5, max_iter=0).fit(X[split.train],
                                                     split.semi_supervised_targets(Y))
    assert run.test_accuracy[0] == np.mean(nb.predict(X[test]) == Y[test])
    again = em_run(X, Y, n_labeled=6, seed=2, n_unlabeled=100, alpha=0.5, max_iter=6)
    np.testing.assert_array_equal(again.test_accuracy, run.test_accuracy)


def test_em_run_with_test_rows_and_per_class():
    run = em_run(X, Y, n_labeled=2, seed=0, per_class=True, test_rows=TEST_ROWS, alpha=0.5,
                 max_iter=3)
    np.testing.assert_array_equal(run.split.test, TEST_ROWS)
    assert np.bincount(Y[run.split.labeled]).tolist() == [2, 2, 2]
    assert len(run.split.unlabeled) == 240 - 60 - 6
    assert len(run.test_accuracy) == len(run.model.trace_)
    expected = np.mean(run.model.predict(X[TEST_ROWS]) == Y[TEST_ROWS])
    assert run.test_accuracy[-1] == expected


def test_em_run_without_rows_to_test_on_says_how_to_fix_it():
    with pytest.raises(ValueError, match="no documents are left to test on: pass test_rows"):
        em_run(X, Y, n_labeled=6, seed=0, max_iter=2)


def test_choose_unlabeled_weight_is_leave_one_out_accuracy_on_labeled_rows():
    y_semi = np.where(np.arange(len(Y)) < 12, Y, -1)
    grid = [0.0, 0.1, 1.0]
    template = SemiSupervisedNB(max_iter=3)
    choice = choose_unlabeled_weight(template, X, y_semi, grid)
    assert template.get_params()["record"] == "full"  # the caller's estimator is left alone
    assert choice.criterion.startswith("leave-one-out accuracy")
    # independently: every labeled row is held out in turn; the model trains on the other
    # labeled rows plus every unlabeled row and classifies it
    labeled = np.flatnonzero(y_semi >= 0)
    for weight, score in zip(grid, choice.scores, strict=True):
        right = []
        for i in labeled:
            train = np.setdiff1d(np.arange(len(Y)), [i])
            model = SemiSupervisedNB(max_iter=3, unlabeled_weight=weight).fit(X[train],
                                                                              y_semi[train])
            right.append(model.predict(X[[i]])[0] == y_semi[i])
        assert score == pytest.approx(np.mean(right))
    best = np.flatnonzero(choice.scores == choice.scores.max())
    assert choice.params["unlabeled_weight"] in [grid[i] for i in best]
    one_each = np.where(np.arange(len(Y)) < 3, Y, -1)
    with pytest.raises(ValueError, match="at least 2 labeled rows in every class"):
        choose_unlabeled_weight(SemiSupervisedNB(), X, one_each, grid)


def test_unlabeled_weight_study_is_the_choice_and_the_fits_made_one_by_one():
    grid = [0.0, 0.5, 1.0]
    study = unlabeled_weight_study(X, Y, seeds=[4], n_labeled=3, n_unlabeled=100, weights=grid,
                                   max_iter=3, progress=False)
    split = split_labeled(Y, 3, per_class=True, n_unlabeled=100, random_state=4)
    X_train, y_train = X[split.train], split.semi_supervised_targets(Y)
    test = np.setdiff1d(np.arange(len(Y)), split.train)
    chosen = choose_nb_alpha(X_train, y_train, criterion="evidence").params["alpha"]
    assert study.alphas.tolist() == [[chosen, 1.0]]
    for a, alpha in enumerate((chosen, 1.0)):
        choice = choose_unlabeled_weight(SemiSupervisedNB(alpha=alpha, max_iter=3), X_train,
                                         y_train, grid, random_state=4)
        np.testing.assert_allclose(study.choice(0, a).scores, choice.scores)
        assert study.choice(0, a).params == choice.params
        assert study.choice(0, a).at_bound == choice.at_bound
        for w, accuracy in zip(grid, study.test_accuracy[0, a], strict=True):
            model = SemiSupervisedNB(alpha=alpha, max_iter=3, unlabeled_weight=w)
            assert accuracy == np.mean(model.fit(X_train, y_train).predict(X[test]) == Y[test])
    with pytest.raises(ValueError, match=re.escape(
            "weights must hold 0, 1 and at least one λ between them (λ's whole range, so that "
            "no choice extends the grid), got [0.1, 0.5, 1.0]")):
        unlabeled_weight_study(X, Y, seeds=[4], n_labeled=3, n_unlabeled=100,
                               weights=[0.1, 0.5, 1.0], progress=False)


def test_criterion_comparison_is_each_criterions_alpha_fitted_on_the_same_split():
    criteria = ("evidence", "loo_accuracy")
    result = criterion_comparison(X, Y, n_labeled=9, seeds=[0, 1], test_rows=TEST_ROWS,
                                  n_unlabeled=100, criteria=criteria, alpha_grid=(1.0, 0.1, 0.01),
                                  max_iter=3, progress=False)
    assert result.alpha.shape == result.nb_accuracy.shape == (2, 2)
    for j, seed in enumerate([0, 1]):
        split = split_labeled(Y, 9, n_unlabeled=100, test_rows=TEST_ROWS, random_state=seed)
        X_train, y_train = X[split.train], split.semi_supervised_targets(Y)
        for c, criterion in enumerate(criteria):
            choice = choose_nb_alpha(X_train, y_train, criterion=criterion,
                                     grid=(1.0, 0.1, 0.01))
            choice = choice.acknowledge_edge("compared with the study") if choice.at_bound \
                else choice  # here the evidence walks to α = 100, as the study records
            assert result.alpha[c, j] == choice.value
            assert result.at_bound[c, j] == choice.at_bound
            nb = SemiSupervisedNB(alpha=choice.value, max_iter=0).fit(X_train, y_train)
            em = SemiSupervisedNB(alpha=choice.value, max_iter=3).fit(X_train, y_train)
            assert result.nb_accuracy[c, j] == np.mean(nb.predict(X[TEST_ROWS]) == Y[TEST_ROWS])
            assert result.em_accuracy[c, j] == np.mean(em.predict(X[TEST_ROWS]) == Y[TEST_ROWS])
    assert result.row("loo_accuracy") == 1
    with pytest.raises(ValueError, match=re.escape("criterion 'evidence ' was not run")):
        result.row("evidence ")
    with pytest.raises(ValueError, match=re.escape("unknown α criteria ['best']")):
        criterion_comparison(X, Y, n_labeled=9, seeds=[0], test_rows=TEST_ROWS,
                             n_unlabeled=100, criteria=("best",), progress=False)


def test_loo_label_scores_match_refits_and_the_tuning_criteria():
    y_semi = np.where(np.arange(len(Y)) < 9, Y, -1)
    own, right = loo_label_scores(X, y_semi, 0.3)
    labeled = np.flatnonzero(y_semi >= 0)
    for k, i in enumerate(labeled):  # against MultinomialNB refitted without row i
        others = np.setdiff1d(labeled, [i])
        nb = MultinomialNB(alpha=0.3).fit(X[others], Y[others])
        proba = nb.predict_log_proba(X[[i]])[0]
        assert own[k] == pytest.approx(proba[list(nb.classes_).index(Y[i])])
        assert right[k] == (nb.predict(X[[i]])[0] == Y[i])
    assert own.sum() == pytest.approx(loo_log_likelihood(X[labeled], Y[labeled], 0.3))
    assert right.mean() == loo_accuracy(X[labeled], Y[labeled], 0.3)
    with pytest.raises(ValueError, match="at least 2 labeled documents in every class"):
        loo_label_scores(X, np.where(np.arange(len(Y)) < 3, Y, -1), 0.3)


def _int_counts_with_unsorted_indices(X):
    """``X`` as an int64 CSR matrix holding the same counts, each row's entries in reverse order
    (as a corpus slice may hand them to a fit)."""
    X = sp.csr_matrix(X)
    X.sort_indices()
    data, indices = X.data.astype(np.int64), X.indices.copy()
    for start, stop in zip(X.indptr[:-1], X.indptr[1:], strict=True):
        data[start:stop], indices[start:stop] = data[start:stop][::-1], indices[start:stop][::-1]
    return sp.csr_matrix((data, indices, X.indptr.copy()), shape=X.shape)


def test_split_accuracies_on_int_counts_with_unsorted_indices_equal_separate_fits():
    X_int = _int_counts_with_unsorted_indices(X)
    assert not X_int.has_sorted_indices and X_int.dtype == np.int64
    params = dict(test_rows=TEST_ROWS, n_unlabeled=120, alpha=0.2, unlabeled_weight=0.5,
                  max_iter=6)
    result = split_accuracies(X_int, Y, 9, 2, **params)
    assert result == split_accuracies(X, Y, 9, 2, **params)
    # NB (max_iter=0) and EM fitted separately, as two models, on the float counts
    split = split_labeled(Y, 9, n_unlabeled=120, test_rows=TEST_ROWS, random_state=2)
    X_train, y_train = X[split.train], split.semi_supervised_targets(Y)
    for model, accuracy in ((SemiSupervisedNB(alpha=0.2, unlabeled_weight=0.5, max_iter=0),
                             result.nb_accuracy),
                            (SemiSupervisedNB(alpha=0.2, unlabeled_weight=0.5, max_iter=6),
                             result.em_accuracy)):
        guess = model.fit(X_train, y_train).predict(X[TEST_ROWS])
        assert accuracy == np.mean(guess == Y[TEST_ROWS])
