"""sslviz.bench: the benchmark runs on small data, and what it times is what EM computes.

The floor's two products and the scikit-learn path are checked against SemiSupervisedNB (and the
floor against the recorded objective), so that the benchmark compares like with like.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import logsumexp, softmax
from synthetic import topic_corpus

from sslviz import bench
from sslviz.bench import (
    floor_iteration,
    floor_iteration_csc,
    repeat_per_class,
    run_em_benchmark,
    sklearn_em_iteration,
)
from sslviz.em import SemiSupervisedNB
from sslviz.text import CountCorpus

ALPHA = 0.1


def make_corpus(n_docs=150, n_words=30, n_labeled=9, seed=0):
    """Three topics with their own frequent words; the first n_labeled rows are labeled."""
    return topic_corpus(n_docs, n_words, n_labeled, seed, words_per_topic=5, background=0.4,
                        topic_rate=1.5)


def one_hot_start(X, y_semi, alpha=ALPHA):
    """Iteration 0's posteriors P(c|x), reset to the label on labeled rows."""
    start = SemiSupervisedNB(alpha=alpha, max_iter=0).fit(X, y_semi)
    R = start.predict_proba(X)
    labeled = y_semi != -1
    R[labeled] = np.eye(R.shape[1])[y_semi[labeled]]
    return R


def test_run_em_benchmark_returns_positive_times():
    X, y, _ = make_corpus()
    result = run_em_benchmark(X, y, n_labeled=9, alpha=ALPHA, repeat=2, warmup=1)
    for key in ("floor_ms", "floor_csc_ms", "em_summary_ms", "em_full_ms", "sklearn_ms"):
        assert np.isfinite(result[key]) and result[key] > 0, key
    for key in ("floor", "floor_csc", "em_summary", "em_full", "sklearn"):
        wall, cpu = result["times"][key].T  # one row per timed round
        assert len(wall) == 2 and np.all(wall > 0) and np.all(cpu >= 0)
        assert result["min_ms"][key] <= result[f"{key}_ms"]
        assert result["cpu_ms"][key] == pytest.approx(1e3 * np.median(cpu))
    assert result["em_over_floor"] == pytest.approx(result["em_summary_ms"] / result["floor_ms"])
    assert result["em_over_floor_csc"] == pytest.approx(result["em_summary_ms"]
                                                        / result["floor_csc_ms"])
    assert result["sklearn_over_em"] == pytest.approx(result["sklearn_ms"]
                                                      / result["em_summary_ms"])
    assert (result["n_samples"], result["n_features"], result["n_classes"]) == (150, 30, 3)
    assert result["n_labeled"] == 9 and result["nnz"] == X.nnz


def test_run_em_benchmark_without_sklearn_and_bad_repeat():
    X, y, _ = make_corpus()
    result = run_em_benchmark(X, y, n_labeled=9, repeat=1, warmup=0, sklearn=False)
    assert np.isnan(result["sklearn_ms"]) and np.isnan(result["sklearn_over_em"])
    assert result["em_summary_ms"] > 0
    with pytest.raises(ValueError, match=r"^repeat must be an integer >= 1, got 0$"):
        run_em_benchmark(X, y, repeat=0)
    with pytest.raises(ValueError, match=r"^warmup must be an integer >= 0, got -1$"):
        run_em_benchmark(X, y, warmup=-1)


def test_floor_products_give_the_models_e_step_and_objective():
    """X @ log_theta.T + log prior is EM's joint log-likelihood: it rebuilds every recorded
    objective, and the unlabeled posteriors, of a full trace."""
    X, y, y_semi = make_corpus()
    model = SemiSupervisedNB(alpha=ALPHA, max_iter=4, tol=0.0).fit(X, y_semi)
    labeled, unlabeled = y_semi != -1, y_semi == -1
    XT = X.T.tocsr()
    R = one_hot_start(X, y_semi)
    for step in model.trace_:
        word_ll, _ = floor_iteration(X, XT, step.feature_log_prob, R)
        joint = word_ll + step.class_log_prior
        labeled_ll = joint[labeled, y_semi[labeled]].sum()
        unlabeled_ll = logsumexp(joint[unlabeled], axis=1).sum()
        prior = ALPHA * (step.class_log_prior.sum() + step.feature_log_prob.sum())
        assert labeled_ll == pytest.approx(step.labeled_log_likelihood, rel=1e-12)
        assert unlabeled_ll == pytest.approx(step.unlabeled_log_likelihood, rel=1e-12)
        assert labeled_ll + unlabeled_ll + prior == pytest.approx(step.objective, rel=1e-12)
        np.testing.assert_allclose(softmax(joint[unlabeled], axis=1),
                                   step.unlabeled_posteriors, atol=1e-6)
    np.testing.assert_allclose(joint, model.predict_joint_log_proba(X), rtol=1e-12)


def test_floor_products_give_the_models_m_step():
    """X.T @ R with the E-step's posteriors, smoothed, is the next recorded log P(w|c)."""
    X, y, y_semi = make_corpus()
    model = SemiSupervisedNB(alpha=ALPHA, max_iter=3, tol=0.0).fit(X, y_semi)
    labeled = y_semi != -1
    XT = X.T.tocsr()
    for before, after in zip(model.trace_[:-1], model.trace_[1:], strict=True):
        word_ll, _ = floor_iteration(X, XT, before.feature_log_prob, np.zeros((X.shape[0], 3)))
        R = softmax(word_ll + before.class_log_prior, axis=1)
        R[labeled] = np.eye(3)[y_semi[labeled]]
        _, counts = floor_iteration(X, XT, before.feature_log_prob, R)
        assert counts.shape == (X.shape[1], 3)
        expected = (counts.T + ALPHA) / (counts.T + ALPHA).sum(axis=1, keepdims=True)
        np.testing.assert_allclose(np.exp(after.feature_log_prob), expected, rtol=1e-10)


def test_csc_floor_computes_the_same_products():
    X, y, y_semi = make_corpus()
    log_theta = SemiSupervisedNB(alpha=ALPHA, max_iter=1).fit(X, y_semi).feature_log_prob_
    R = one_hot_start(X, y_semi)
    XT = X.T.tocsr()
    for got, expected in zip(floor_iteration_csc(XT, log_theta, R),
                             floor_iteration(X, XT, log_theta, R), strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_repeat_per_class():
    X, _, _ = make_corpus(n_docs=12)
    X_rep, y_rep = repeat_per_class(X, 3)
    assert sp.issparse(X_rep) and X_rep.shape == (36, X.shape[1])
    assert y_rep.tolist() == [0] * 12 + [1] * 12 + [2] * 12
    for c in range(3):
        np.testing.assert_array_equal(X_rep[12 * c:12 * (c + 1)].toarray(), X.toarray())


@pytest.mark.parametrize("n_iterations", [1, 2, 3])
def test_sklearn_path_is_one_em_iteration(n_iterations):
    """MultinomialNB on stacked rows weighted by posteriors, then predict_proba, is exactly
    SemiSupervisedNB's next iteration (from the same start, iteration after iteration)."""
    X, y, y_semi = make_corpus()
    labeled, unlabeled = y_semi != -1, y_semi == -1
    X_rep, y_rep = repeat_per_class(X, 3)
    R = one_hot_start(X, y_semi)
    for _ in range(n_iterations):
        R = sklearn_em_iteration(X, R, alpha=ALPHA, X_rep=X_rep, y_rep=y_rep, labels=y_semi)
    model = SemiSupervisedNB(alpha=ALPHA, max_iter=n_iterations, tol=0.0).fit(X, y_semi)
    assert model.n_iter_ == n_iterations
    np.testing.assert_allclose(R[unlabeled], model.predict_proba(X)[unlabeled], rtol=0,
                               atol=1e-8)
    np.testing.assert_array_equal(R[labeled], np.eye(3)[y_semi[labeled]])
    # the same numbers as the recorded (float32) posteriors of that iteration
    np.testing.assert_allclose(R[unlabeled], model.trace_[-1].unlabeled_posteriors, atol=1e-6)


def test_sklearn_path_without_labels_keeps_predict_proba():
    X, y, y_semi = make_corpus()
    X_rep, y_rep = repeat_per_class(X, 3)
    R0 = one_hot_start(X, y_semi)
    R = sklearn_em_iteration(X, R0, alpha=ALPHA, X_rep=X_rep, y_rep=y_rep)
    np.testing.assert_allclose(R.sum(axis=1), 1.0)
    model = SemiSupervisedNB(alpha=ALPHA, max_iter=1, tol=0.0).fit(X, y_semi)
    np.testing.assert_allclose(R, model.predict_proba(X), rtol=0, atol=1e-8)


def test_command_line_prints_the_table(monkeypatch, capsys):
    X, y, _ = make_corpus()
    calls = []

    def fake_load_counts(name, options, **kwargs):
        calls.append((name, options, kwargs))
        return CountCorpus(X, y, ["a", "b", "c"], np.array(["w"] * X.shape[1]),
                           np.array(["f"] * X.shape[0]))

    monkeypatch.setattr("sslviz.text.load_counts", fake_load_counts)
    assert bench.main(["em", "--repeat", "1", "--n-labeled", "9", "--subset", "train",
                       "--stop-words", "sklearn"]) == 0
    ((name, options, kwargs),) = calls
    assert name == "20newsgroups" and options.stop_words == "sklearn"
    assert kwargs == {"subset": "train"}
    out = capsys.readouterr().out
    for text in ("(a) floor", "(a-prime) floor", 'record="summary"', 'record="full"',
                 "scikit-learn", "EM / floor", "CPU times", "target <= 1.3", "target >= 10",
                 "1 timed round after 1 warm-up"):
        assert text in out


def test_command_line_rejects_unknown_stop_list(capsys):
    with pytest.raises(SystemExit) as exit_info:
        bench.main(["em", "--stop-words", "english"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'english'" in capsys.readouterr().err
