"""Lecture 10's experiments and M-EM's several components, against independent computations."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import logsumexp
from sklearn.naive_bayes import MultinomialNB
from synthetic import topic_corpus

from sslviz.em import SemiSupervisedNB
from sslviz.experiments import components_views as cv
from sslviz.tuning import choose_by_cv_interior, choose_nb_alpha


def evidence_alpha(X, y):
    """The α the runs use: the evidence's, on the labeled rows (an edge choice accepted)."""
    return choose_nb_alpha(X, y).acknowledge_edge("compared with the run's choice").value


def test_class_posterior_is_the_sum_over_the_class_components_computed_by_hand():
    X, _, y = topic_corpus(n_docs=60, n_words=12, n_labeled=12, n_topics=2, words_per_topic=4)
    model = SemiSupervisedNB(alpha=0.5, n_components=3, max_iter=2, random_state=0).fit(X, y)
    log_prior = model.component_log_prior_
    log_prob = model.component_log_prob_
    assert log_prob.shape == (6, 12)
    dense = X.toarray()
    joint = np.array([[log_prior[m] + dense[i] @ log_prob[m] for m in range(6)]
                      for i in range(len(dense))])
    by_class = np.stack([logsumexp(joint[:, :3], axis=1), logsumexp(joint[:, 3:], axis=1)], 1)
    expected = np.exp(by_class - logsumexp(by_class, axis=1, keepdims=True))
    np.testing.assert_allclose(model.predict_proba(X), expected, rtol=1e-8, atol=1e-12)


def test_breakeven_is_where_precision_equals_recall():
    rng = np.random.default_rng(0)
    y = (rng.random(200) < 0.2).astype(int)
    scores = rng.normal(size=200) + 1.5 * y
    top = np.argsort(-scores)[:y.sum()]
    precision = y[top].sum() / len(top)
    recall = y[top].sum() / y.sum()
    assert precision == recall
    assert cv.breakeven(scores, y) == pytest.approx(100 * precision)
    assert cv.breakeven(y.astype(float), y) == 100.0


def test_breakeven_without_positives_is_an_error():
    with pytest.raises(ValueError, match="at least one positive"):
        cv.breakeven([0.3, 0.1], [0, 0])


def test_one_vs_rest_labels_draws_the_asked_counts_and_refuses_too_many():
    target = np.arange(50) % 5
    y = cv.one_vs_rest_labels(target, 2, 4, 7, seed=1)
    assert np.all(target[y == 1] == 2) and (y == 1).sum() == 4
    assert np.all(target[y == 0] != 2) and (y == 0).sum() == 7
    with pytest.raises(ValueError, match="asked for 11 positive"):
        cv.one_vs_rest_labels(target, 2, 11, 7, seed=1)


def test_cotraining_split_labels_only_training_rows_in_the_asked_counts():
    target = (np.arange(100) % 4 == 0).astype(int)
    train, test, y = cv.cotraining_split(target, seed=3)
    assert len(test) == 25 and not set(train) & set(test)
    assert (y == 1).sum() == 3 and (y == 0).sum() == 9
    assert np.all(target[train][y == 1] == 1) and np.all(target[train][y == 0] == 0)
    with pytest.raises(ValueError, match="not enough pages"):
        cv.cotraining_split(target, seed=3, n_positive=40)


def test_mem_run_nb_matches_scikit_learns_naive_bayes_with_the_chosen_alpha():
    X, topics, _ = topic_corpus(n_docs=300, n_words=30, n_topics=3, seed=2)
    X_test, topics_test, _ = topic_corpus(n_docs=90, n_words=30, n_topics=3, seed=5)
    out = cv.mem_run(X, topics, X_test, topics_test, positive=1, seed=0, n_positive=4,
                     n_negative=12, grid=(1, 2, 4), max_iter=3)
    y = cv.one_vs_rest_labels(topics, 1, 4, 12, seed=0)
    alpha = evidence_alpha(X, y)
    nb = MultinomialNB(alpha=alpha).fit(X[y != -1], y[y != -1])
    y_test = (topics_test == 1).astype(int)
    log_proba = nb.predict_log_proba(X_test)
    assert out["alpha"] == alpha and out["k"] in out["cv_grid"]
    assert out["NB_breakeven"] == pytest.approx(cv.breakeven(log_proba[:, 1] - log_proba[:, 0],
                                                             y_test))
    assert out["NB_accuracy"] == pytest.approx(100 * np.mean(nb.predict(X_test) == y_test))
    assert out["majority"] == pytest.approx(100 * (1 - y_test.mean()))
    assert out["EM_absorbed"].sum() == np.sum(
        SemiSupervisedNB(alpha=alpha, max_iter=3, random_state=0).fit(X, y)
        .predict(X[y == -1]) == 1)


def test_mem_run_chooses_k_by_cv_interior_and_extends_past_a_winning_largest_k():
    X, topics, _ = topic_corpus(n_docs=300, n_words=30, n_topics=3, seed=2)
    X_test, topics_test, _ = topic_corpus(n_docs=90, n_words=30, n_topics=3, seed=5)
    out = cv.mem_run(X, topics, X_test, topics_test, positive=1, seed=0, n_positive=4,
                     n_negative=12, grid=(1, 2, 4), max_iter=3)
    y = cv.one_vs_rest_labels(topics, 1, 4, 12, seed=0)
    template = SemiSupervisedNB(alpha=out["alpha"], max_iter=3, record="summary",
                                random_state=0)
    choice = choose_by_cv_interior(template, "n_components", (1, 2, 4), X, y,
                                   kind="n_components", semi_supervised=True, random_state=0)
    grid = out["cv_grid"].tolist()
    assert grid == [c["n_components"] for c in choice.candidates]
    assert out["k"] == choice.params["n_components"] == grid[int(np.argmax(out["cv_scores"]))]
    # interior, or at a bound of the kind (1 or 128) and recorded as such
    assert out["k_at_bound"] == float(out["k"] in (grid[0], grid[-1]))
    assert not out["k_at_bound"] or out["k"] in (1, 128)
    if grid[-1] > 4:  # extended: 4 won the given grid, so doubling went on past it
        assert grid[-1] == 2 * grid[-2]


def test_cotraining_run_errors_and_picks_against_hand_fits():
    rng = np.random.default_rng(0)
    n = 240
    target = (rng.random(n) < 0.25).astype(int)
    page = sp.csr_matrix(rng.poisson(np.where(target[:, None] == 1, [3, 1, 1, .5],
                                              [1, 2, 2, 1])).astype(float))
    link = sp.csr_matrix(rng.poisson(np.where(target[:, None] == 1, [2, .5, 1],
                                              [.5, 2, 1])).astype(float) + 1.0)  # no empty page
    out = cv.cotraining_run(page, link, target, seed=1, max_iter=4)
    train, test, y = cv.cotraining_split(target, 1)
    alpha = evidence_alpha(page[train], y)
    nb = MultinomialNB(alpha=alpha).fit(page[train][y != -1], y[y != -1])
    assert out["supervised_page"] == pytest.approx(100 * np.mean(nb.predict(page[test])
                                                                 != target[test]))
    assert len(out["added"]) == 4 * 2 * 4  # 4 iterations, 2 views, 1 + 3 pages each
    assert not set(out["added"].tolist()) & set(test.tolist())
    np.testing.assert_array_equal(out["added_true"], target[out["added"]])


def test_component_top_words_start_from_the_labeled_fit_ranked_by_lift():
    X, _, y = topic_corpus(n_docs=60, n_words=12, n_labeled=12, n_topics=2, words_per_topic=4)
    vocabulary = np.array([f"w{i}" for i in range(12)])
    frames = cv.component_top_words(X, y, vocabulary, alpha=1.0, n_components=2, seed=0,
                                    max_iter=2, k=3, candidates=6)
    model = SemiSupervisedNB(alpha=1.0, n_components=2, max_iter=0, random_state=0).fit(X, y)
    prob, prior = np.exp(model.component_log_prob_), np.exp(model.component_log_prior_)
    expected = []
    for m in range(4):  # by hand: P(w | m) over the mixture of m's class, among its top 6
        same = [2 * (m // 2), 2 * (m // 2) + 1]
        mixture = (prior[same, None] * prob[same]).sum(axis=0) / prior[same].sum()
        top = np.argsort(-prob[m], kind="stable")[:6]
        lift = prob[m, top] / mixture[top]
        expected.append(vocabulary[top[np.argsort(-lift, kind="stable")[:3]]])
    assert len(frames) == 3
    np.testing.assert_array_equal(frames[0], np.array(expected))


def test_with_one_component_per_class_lift_is_one_and_the_order_is_by_probability():
    log_prob = np.log(np.array([[0.5, 0.3, 0.2], [0.1, 0.2, 0.7]]))
    order = cv.component_lift_order(log_prob, np.log([0.4, 0.6]), 1, candidates=3)
    assert order.tolist() == [[0, 1, 2], [2, 1, 0]]


def test_trained_vocabulary_nb_is_scikit_learns_nb_on_the_training_rows_words():
    from sslviz.co_training import TrainedVocabularyNB

    rng = np.random.default_rng(2)
    X = rng.poisson(0.6, size=(40, 15)).astype(float)
    X[:20, [3, 9]] = 0  # words no training row holds
    y = (rng.random(20) < 0.4).astype(int)
    model = TrainedVocabularyNB(alpha=0.3).fit(X[:20], y)
    kept = np.flatnonzero(X[:20].sum(axis=0) > 0)
    assert model.vocabulary_.tolist() == kept.tolist() and 3 not in kept and 9 not in kept
    reference = MultinomialNB(alpha=0.3).fit(X[:20][:, kept], y)
    np.testing.assert_allclose(model.predict_proba(X[20:]),
                               reference.predict_proba(X[20:, kept]))
    np.testing.assert_allclose(model.predict_joint_log_proba(X[20:]),
                               reference.predict_joint_log_proba(X[20:, kept]))


def test_an_unseen_word_leans_to_the_class_with_fewer_tokens_only_in_the_plain_nb():
    from sslviz.co_training import TrainedVocabularyNB

    # class 0 holds 20 tokens, class 1 holds 2; column 2 is in no training row
    X = np.array([[10, 0, 0], [10, 0, 0], [0, 1, 0], [0, 1, 0]], dtype=float)
    y = np.array([0, 0, 1, 1])
    unseen = np.array([[0, 0, 4]], dtype=float)
    plain = MultinomialNB(alpha=1.0).fit(X, y).predict_proba(unseen)[0]
    # by hand: P(w2 | 0) = 1 / (20 + 3), P(w2 | 1) = 1 / (2 + 3), equal priors
    odds = (5 / 23) ** 4
    assert plain[0] == pytest.approx(odds / (1 + odds))
    assert plain[1] > 0.99
    np.testing.assert_allclose(TrainedVocabularyNB(alpha=1.0).fit(X, y).predict_proba(unseen),
                               [[0.5, 0.5]])


def test_cotraining_run_with_the_trained_vocabulary_fits_each_nb_on_its_rows_words():
    rng = np.random.default_rng(3)
    n = 200
    target = (rng.random(n) < 0.25).astype(int)
    page = sp.csr_matrix(rng.poisson(np.where(target[:, None] == 1, [3, 1, 1], [1, 2, 2]))
                         + 1.0)
    link = rng.poisson(0.15, size=(n, 60)).astype(float)
    link[:, 0] += 1  # no page without link words
    link = sp.csr_matrix(link)
    train, test, y = cv.cotraining_split(target, 2)
    labeled = train[y != -1]
    seen = np.flatnonzero(np.asarray(link[labeled].sum(axis=0)).ravel() > 0)
    assert len(seen) < 60  # some link words no labeled page holds
    alpha = evidence_alpha(link[train][:, seen], y)
    nb = MultinomialNB(alpha=alpha).fit(link[labeled][:, seen], y[y != -1])
    out = cv.cotraining_run(page, link, target, seed=2, max_iter=2)
    assert out["alpha_link"] == alpha
    assert out["supervised_link"] == pytest.approx(
        100 * np.mean(nb.predict(link[test][:, seen]) != target[test]))
    plain = cv.cotraining_run(page, link, target, seed=2, max_iter=2, vocabulary="all")
    alpha_all = evidence_alpha(link[train], y)
    nb_all = MultinomialNB(alpha=alpha_all).fit(link[labeled], y[y != -1])
    assert plain["supervised_link"] == pytest.approx(
        100 * np.mean(nb_all.predict(link[test]) != target[test]))
    with pytest.raises(ValueError, match="vocabulary"):
        cv.cotraining_run(page, link, target, seed=2, max_iter=2, vocabulary="seen")


def test_link_length_scales_every_pages_link_counts_before_fitting():
    rng = np.random.default_rng(4)
    target = (rng.random(200) < 0.3).astype(int)
    page = sp.csr_matrix(rng.poisson(np.where(target[:, None] == 1, [3, 1], [1, 3])) + 1.0)
    link = sp.csr_matrix(rng.poisson(np.where(target[:, None] == 1, [2, 1], [1, 2])) + 1.0)
    out = cv.cotraining_run(page, link, target, seed=0, max_iter=2, link_length=5)
    dense = link.toarray()
    scaled = sp.csr_matrix(5 * dense / dense.sum(axis=1, keepdims=True))
    train, test, y = cv.cotraining_split(target, 0)
    alpha = evidence_alpha(scaled[train], y)
    nb = MultinomialNB(alpha=alpha).fit(scaled[train][y != -1], y[y != -1])
    assert out["supervised_link"] == pytest.approx(100 * np.mean(nb.predict(scaled[test])
                                                                 != target[test]))
    assert 0 <= out["co_link_course_share"] <= 100


def test_trained_vocabulary_nb_refuses_negative_counts_and_rows_without_words():
    from sslviz.co_training import TrainedVocabularyNB

    with pytest.raises(ValueError, match="Negative values in data passed to TrainedVocabularyNB"):
        TrainedVocabularyNB().fit(np.array([[1.0, -1.0], [0.0, 2.0]]), [0, 1])
    with pytest.raises(ValueError, match="the training rows hold no word at all"):
        TrainedVocabularyNB().fit(np.zeros((2, 3)), [0, 1])
    with pytest.raises(ValueError, match="alpha must be a finite number > 0"):
        TrainedVocabularyNB(alpha=0).fit(np.eye(2), [0, 1])


def test_error_bar_labels_sit_above_their_highest_dot_inside_the_axis():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sslviz.plots.components_views import ERROR_BARS, plot_error_bars

    names = [name for _, name, _ in ERROR_BARS]
    results = [{name: 5.0 + i + 20 * seed * (name == "co_link") for i, name in enumerate(names)}
               for seed in range(4)]  # co_link's dots reach 66: the axis must grow
    fig, ax = plt.subplots()
    plot_error_bars(ax, results, title="t")
    for text, line, name in zip(ax.texts, ax.lines, names, strict=True):
        dots = line.get_ydata()
        assert text.get_text() == f"{np.mean([r[name] for r in results]):.1f}"
        assert np.max(dots) < text.get_position()[1] < ax.get_ylim()[1] - 3
    plt.close(fig)


def test_the_co_training_picks_panel_counts_each_views_wrong_labels_up_to_the_iteration():
    from matplotlib.figure import Figure

    from sslviz.plots.components_views import (
        plot_wrong_picks,
        update_wrong_picks,
        wrong_picks_so_far,
    )

    run = {"added_iteration": [1, 1, 1, 2, 2, 3, 3, 3],  # view 0: page, view 1: link
           "added_view": [0, 1, 1, 0, 1, 0, 0, 1],
           "added_label": [1, 0, 0, 0, 1, 1, 0, 0],
           "added_true": [1, 1, 0, 1, 1, 0, 0, 1]}  # wrong: picks 1, 3, 5, 7
    steps, counts = wrong_picks_so_far(run)
    assert steps.tolist() == [1, 2, 3]
    assert counts["page view"][0].tolist() == [0, 1, 2]  # picks 3 and 5
    assert counts["page view"][1].tolist() == [1, 2, 4]
    assert counts["link view"][0].tolist() == [1, 1, 2]  # picks 1 and 7
    assert counts["link view"][1].tolist() == [2, 3, 4]
    ax = Figure().add_subplot()
    artists = plot_wrong_picks(ax, run)
    update_wrong_picks(artists, 2)
    assert ax.get_title() == "wrong labels up to iteration 2: page view 1 of 2, link view 1 of 3"
    assert list(artists["marker"].get_xdata()) == [2, 2]
    update_wrong_picks(artists, 3)  # the same marker moves
    assert ax.get_title().endswith("page view 2 of 4, link view 2 of 4")
    assert list(artists["marker"].get_xdata()) == [3, 3] and len(ax.lines) == 3
