"""The experiments of Lecture 5 against independent fits: the vocabulary sweep (and its cache),
the "leading astray" case study read from EM's trace, and the toy weights of the picture."""

import numpy as np
import pytest
from scipy.special import logsumexp
from sklearn.naive_bayes import MultinomialNB
from synthetic import astray_corpus, topic_corpus

import sslviz.experiments.feature_selection as experiments
from sslviz.em import SemiSupervisedNB
from sslviz.experiments.feature_selection import (
    ALL_WORDS,
    VocabularySweep,
    astray_run,
    sweep_split,
    toy_feature_weights,
    vocabulary_sweep,
)
from sslviz.feature_selection import select_features
from sslviz.feature_selection_astray import (
    class_top_words,
    neighbour_words,
    rank_misleading_words,
    word_pull,
)
from sslviz.splits import split_labeled
from sslviz.words import log_odds_vs_rest

# -- vocabulary sweep -----------------------------------------------------------------------------
SWEEP_SETS = {"frequency": ("frequency", None), "mutual information": ("mutual_info", None)}


@pytest.fixture(scope="module")
def corpus():
    X, y, _ = topic_corpus(n_docs=240, n_words=40, seed=5)
    return X, y, np.array([f"w{i:02d}" for i in range(X.shape[1])]), np.arange(180, 240)


@pytest.fixture
def sweep(corpus):
    X, y, vocabulary, test_rows = corpus
    return vocabulary_sweep(X, y, vocabulary, feature_sets=SWEEP_SETS, sizes=(5, 20, ALL_WORDS),
                            label_sizes=(1, 4), seeds=(0, 1), test_rows=test_rows,
                            n_unlabeled=100, progress=False, alpha=0.5, max_iter=4)


def smoothed_nb(X, y, alpha, n_classes):
    counts = np.bincount(y, minlength=n_classes)
    prior = (counts + alpha) / (counts.sum() + n_classes * alpha)
    return MultinomialNB(alpha=alpha, class_prior=prior).fit(X, y)


def test_sweep_cells_equal_independent_fits(corpus, sweep):
    X, y, vocabulary, test_rows = corpus
    assert sweep.nb_accuracy.shape == (2, 2, 3, 2) == sweep.em_accuracy.shape
    np.testing.assert_array_equal(sweep.n_features, [[5, 20, 40], [5, 20, 40]])
    assert sweep.size_labels() == ["5", "20", "all"]
    for s, (method, _) in enumerate(SWEEP_SETS.values()):
        for j, n_labeled in enumerate((1, 4)):
            for k, size in enumerate((5, 20, None)):
                for seed in (0, 1):
                    split = split_labeled(y, n_labeled, per_class=True, n_unlabeled=100,
                                          test_rows=test_rows, random_state=seed)
                    y_semi = split.semi_supervised_targets(y)
                    cols = np.sort(select_features(X[split.train], method, size, y=y_semi))
                    nb = smoothed_nb(X[split.labeled][:, cols], y[split.labeled], 0.5, 3)
                    em = SemiSupervisedNB(alpha=0.5, max_iter=4).fit(X[split.train][:, cols],
                                                                     y_semi)
                    test = X[split.test][:, cols]
                    assert sweep.nb_accuracy[s, j, k, seed] == pytest.approx(
                        np.mean(nb.predict(test) == y[split.test]))
                    assert sweep.em_accuracy[s, j, k, seed] == pytest.approx(
                        np.mean(em.predict(test) == y[split.test]))
            ranking = select_features(X[sweep_split(y, n_labeled, 0, test_rows=test_rows,
                                                    n_unlabeled=100).train], method, 12,
                                      y=sweep_split(y, n_labeled, 0, test_rows=test_rows,
                                                    n_unlabeled=100).semi_supervised_targets(y))
            np.testing.assert_array_equal(sweep.top_words[s, j, 0], vocabulary[ranking])
    nb, em = sweep.at("frequency", 4)
    np.testing.assert_array_equal(em, sweep.em_accuracy[0, 1])
    assert sweep.ranges("frequency", 4) == pytest.approx(
        (np.ptp(nb.mean(axis=1)), np.ptp(em.mean(axis=1))))


def test_sweep_is_cached_per_job_read_back_and_resumed(corpus, sweep, result_cache,
                                                        monkeypatch):
    files = sorted((result_cache / "feature_selection").glob("feature_selection-*.npz"))
    assert len(files) == 4  # one per (labeled-set size, seed)
    X, y, vocabulary, test_rows = corpus
    computed = []
    job = experiments._sweep_job

    def counting_job(**kwargs):
        computed.append((kwargs["n_labeled"], kwargs["seed"]))
        return job(**kwargs)

    counting_job.__module__ = job.__module__  # the same code: the cache keys by the job's module

    monkeypatch.setattr(experiments, "_sweep_job", counting_job)
    files[0].unlink()  # an interrupted run: one job missing
    again = vocabulary_sweep(X, y, vocabulary, feature_sets=SWEEP_SETS, sizes=(5, 20, ALL_WORDS),
                             label_sizes=(1, 4), seeds=(0, 1), test_rows=test_rows,
                             n_unlabeled=100, progress=False, alpha=0.5, max_iter=4)
    assert len(computed) == 1  # only the missing job was computed again
    assert again.feature_sets == sweep.feature_sets
    for name in ("n_features", "nb_accuracy", "em_accuracy", "top_words"):
        np.testing.assert_array_equal(getattr(again, name), getattr(sweep, name))
    other = vocabulary_sweep(X, y, vocabulary, feature_sets=SWEEP_SETS, sizes=(5, 20, ALL_WORDS),
                             label_sizes=(1, 4), seeds=(0, 1), test_rows=test_rows,
                             n_unlabeled=100, progress=False, alpha=0.25, max_iter=4)
    assert len(computed) == 5  # another parameter: another key for every job
    assert other.em_accuracy.shape == sweep.em_accuracy.shape


def test_sweep_lookup_errors(sweep):
    with pytest.raises(ValueError, match=r"^labeled-set size 3 was not run; the sweep has "
                                         r"\[1, 4\]$"):
        sweep.at("frequency", 3)
    with pytest.raises(ValueError, match=r"^feature set 'pmi' was not run; the sweep has "
                                         r"\['frequency', 'mutual information'\]$"):
        sweep.at("pmi", 1)


def test_sweep_refuses_unknown_methods_and_negative_sizes(corpus):
    X, y, vocabulary, test_rows = corpus
    common = {"label_sizes": (1,), "seeds": (0,), "test_rows": test_rows, "n_unlabeled": 10,
              "use_cache": False, "progress": False}
    with pytest.raises(ValueError, match=r"^method must be one of .*, got 'idf'$"):
        vocabulary_sweep(X, y, vocabulary, feature_sets={"x": ("idf", None)}, sizes=(5,),
                         **common)
    with pytest.raises(ValueError, match=r"^sizes must be positive, or 0 for all words; "
                                         r"got \[-5\]$"):
        vocabulary_sweep(X, y, vocabulary, feature_sets=SWEEP_SETS, sizes=(-5,), **common)


# -- leading astray -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def astray():
    X, y, test_rows = astray_corpus()
    run = astray_run(X, y, None, n_labeled=1, seed=0, test_rows=test_rows, n_unlabeled=150,
                     alpha=0.5, max_iter=6)
    return X, y, run


def association_by_hand(log_prob, log_prior, c):
    prior = np.exp(log_prior)
    others = [k for k in range(len(prior)) if k != c]
    mix = sum(prior[k] * np.exp(log_prob[k]) for k in others) / prior[others].sum()
    return log_prob[c] - np.log(mix)


def test_class_association_is_the_log_ratio_against_the_other_classes():
    rng = np.random.default_rng(0)
    log_prob = np.log(rng.dirichlet(np.ones(6), size=3))
    log_prior = np.log([0.2, 0.5, 0.3])
    for c in range(3):
        np.testing.assert_allclose(log_odds_vs_rest(log_prob, log_prior, c),
                                   association_by_hand(log_prob, log_prior, c))
    two = log_prob[:2]
    np.testing.assert_allclose(log_odds_vs_rest(two, log_prior[:2] - logsumexp(log_prior[:2]),
                                                1), two[1] - two[0])


def test_run_association_is_read_from_the_trace(astray):
    X, y, run = astray
    for t in (0, len(run.model.trace_) - 1):
        step = run.model.trace_[t]
        np.testing.assert_allclose(run.association(t, 1),
                                   association_by_hand(step.feature_log_prob,
                                                       step.class_log_prior, 1))
    np.testing.assert_allclose(run.reference_association(0),
                               association_by_hand(run.reference_log_prob,
                                                   run.reference_log_prior, 0))
    path = run.association_path(24, 0)
    np.testing.assert_allclose(path, [run.association(t, 0)[24]
                                      for t in range(len(run.model.trace_))])
    clean = astray_run(X, y, np.arange(24), n_labeled=1, seed=0, test_rows=np.arange(160, 200),
                       n_unlabeled=150, alpha=0.5, max_iter=6)
    assert np.all(np.isnan(clean.association_path(24, 0)))


def test_class_top_words_rank_by_weighted_log_odds_and_flag_misleading_ones(astray):
    X, y, run = astray
    vocabulary = np.array([f"w{i}" for i in range(25)])
    words, misleading = class_top_words(run, vocabulary, 0, k=4)
    assert len(words) == len(misleading) == len(run.model.trace_)
    reference = run.reference_association(0)
    for t, step in enumerate(run.model.trace_):
        log_prob = step.feature_log_prob
        scores = np.exp(log_prob[0]) * association_by_hand(log_prob, step.class_log_prior, 0)
        order = sorted(range(25), key=lambda j: (-scores[j], j))[:4]
        assert words[t] == [f"w{j}" for j in order]
        assert misleading[t] == [bool(reference[j] <= 0) for j in order]
    assert "w24" in words[-1] and misleading[-1][words[-1].index("w24")]


def test_astray_run_records_a_full_trace_and_an_oracle(astray):
    X, y, run = astray
    split = run.split
    assert len(split.labeled) == 2 and len(split.unlabeled) == 150
    oracle = MultinomialNB(alpha=0.5).fit(X[split.train], y[split.train])
    np.testing.assert_allclose(run.reference_log_prob, oracle.feature_log_prob_)
    np.testing.assert_array_equal(run.unlabeled_labels, y[split.unlabeled])
    direct = SemiSupervisedNB(alpha=0.5, max_iter=6).fit(X[split.train],
                                                         split.semi_supervised_targets(y))
    np.testing.assert_allclose(run.model.feature_log_prob_, direct.feature_log_prob_)
    subset = astray_run(X, y, [3, 1, 24], n_labeled=1, seed=0, test_rows=np.arange(160, 200),
                        n_unlabeled=150)
    np.testing.assert_array_equal(subset.columns, [1, 3, 24])
    assert subset.local(24) == 2 and subset.local(5) is None


def test_the_rule_finds_the_planted_coincidence(astray):
    X, y, run = astray
    columns, classes, pulls = rank_misleading_words(run, X, min_df=10)
    assert columns[0] == 24 and classes[0] == 0
    # it did lead EM astray: the fluke gains weight and accuracy falls
    pull = word_pull(run, X, 24, 0)
    assert pull.association[-1] > pull.association[0] > 0
    assert run.test_accuracy[-1] < run.test_accuracy[0]
    assert np.all(np.diff(pulls) <= 0)
    # pull by hand from the trace: documents with the word, not of class 0, assigned to class 0
    unlabeled = X[run.split.unlabeled].toarray()
    has_word = unlabeled[:, 24] > 0
    truth = y[run.split.unlabeled]
    last = len(run.model.trace_) - 1
    counts = [np.sum(has_word & (truth != 0)
                     & (run.model.trace_[t].unlabeled_posteriors.argmax(axis=1) == 0))
              for t in (0, last)]
    assert pulls[0] == counts[1] - counts[0] > 0
    # every ranked word satisfies the rule's conditions
    labeled = X[run.split.labeled].toarray() > 0
    for column, c in zip(columns, classes, strict=True):
        assert set(y[run.split.labeled][labeled[:, column]]) == {c}
        assert run.reference_association(c)[column] <= 0
        assert np.sum(unlabeled[:, column] > 0) >= 10
    with pytest.raises(ValueError, match=r"^min_df must be an integer >= 1, got 0$"):
        rank_misleading_words(run, X, min_df=0)


def test_word_pull_counts_from_the_trace(astray):
    X, y, run = astray
    pull = word_pull(run, X, 24, 0)
    unlabeled = X[run.split.unlabeled].toarray()
    has_word = unlabeled[:, 24] > 0
    truth = y[run.split.unlabeled]
    assert pull.n_unlabeled_docs == has_word.sum() and pull.n_labeled_docs == 1
    for t, step in enumerate(run.model.trace_):
        assigned = step.unlabeled_posteriors.argmax(axis=1)
        assert pull.docs_to_target[t] == np.sum(has_word & (assigned == 0))
        assert pull.wrong_docs_to_target[t] == np.sum(has_word & (assigned == 0) & (truth == 1))
        np.testing.assert_array_equal(pull.assigned_by_truth[t],
                                      np.bincount(truth[assigned == 0], minlength=2))
        assert pull.association[t] == pytest.approx(
            association_by_hand(step.feature_log_prob, step.class_log_prior, 0)[24])
    np.testing.assert_array_equal(pull.class_wrong, pull.assigned_by_truth[:, 1])
    clean = astray_run(X, y, np.arange(24), n_labeled=1, seed=0,
                       test_rows=np.arange(160, 200), n_unlabeled=150, alpha=0.5, max_iter=6)
    absent = word_pull(clean, X, 24, 0)
    assert not absent.present and np.all(np.isnan(absent.association))
    assert absent.n_unlabeled_docs == pull.n_unlabeled_docs
    with pytest.raises(ValueError, match=r"^target must be an integer in \[0, 1\], got 2$"):
        word_pull(run, X, 24, 2)
    with pytest.raises(ValueError, match=r"^word must be an integer in \[0, 24\], got 25$"):
        word_pull(run, X, 25, 0)


def test_neighbour_words_end_furthest_above_their_reference_and_are_not_class_words(astray):
    X, y, run = astray
    columns, associations = neighbour_words(run, X, 24, 0, min_df=5, k=3)
    assert set(columns) <= set(range(12, 18))  # the sub-topic's words followed the fluke
    last = len(run.model.trace_) - 1
    excess = run.association(last, 0) - run.reference_association(0)
    assert np.all(excess[columns] > 0) and np.all(np.diff(excess[columns]) <= 0)
    together = np.sum((X[run.split.unlabeled].toarray() > 0)
                      & (X[run.split.unlabeled].toarray()[:, [24]] > 0), axis=0)
    eligible = [j for j in range(25) if j != 24 and together[j] >= 5
                and run.reference_association(0)[j] <= 0]
    assert set(columns) <= set(eligible)
    assert excess[columns[-1]] >= max(excess[j] for j in eligible if j not in columns)
    np.testing.assert_allclose(associations[:, 0],
                               [run.association(t, 0)[columns[0]] for t in range(last + 1)])


# -- the lecture's picture ------------------------------------------------------------------------
def test_toy_weights_are_naive_bayes_on_the_first_documents():
    result = toy_feature_weights(5, seed=3, n_discriminative=4, n_noise=6, doc_length=20,
                                 max_labeled=50)
    rates = np.ones((2, 10))
    rates[0, :2] = rates[1, 2:4] = 3.0
    p = rates / rates.sum(axis=1, keepdims=True)
    rng = np.random.default_rng(3)
    docs = [rng.multinomial(20, p[c], size=50)[:5] for c in range(2)]
    nb = MultinomialNB(alpha=1.0).fit(np.vstack(docs), [0] * 5 + [1] * 5)
    np.testing.assert_allclose(result.weights, nb.feature_log_prob_[0] - nb.feature_log_prob_[1])
    np.testing.assert_allclose(result.true_weights, np.log(p[0]) - np.log(p[1]))
    np.testing.assert_array_equal(result.discriminative, np.arange(10) < 4)


def test_toy_noise_weights_shrink_with_more_labels():
    few, many = toy_feature_weights(1), toy_feature_weights(500)
    assert many.noise_weight < few.noise_weight / 4
    assert few.n_noise_outweighing > 5 and many.n_noise_outweighing == 0
    with pytest.raises(ValueError, match=r"^n_labeled must be an integer in \[1, 500\], "
                                         r"got 0$"):
        toy_feature_weights(0)


def test_vocabulary_sweep_result_is_a_frozen_record():
    sweep = VocabularySweep(("a",), np.array([1]), np.array([5, 0]), np.array([0]),
                            np.array([[5, 9]]), np.zeros((1, 1, 2, 1)), np.ones((1, 1, 2, 1)),
                            np.array([[[["x"]]]]))
    assert sweep.size_labels() == ["5", "all"]
    with pytest.raises(AttributeError):
        sweep.sizes = None


# -- smoothing chosen on the labeled documents of each feature set --------------------------------
def test_sweep_with_chosen_alpha_picks_it_per_feature_set_size_and_split(corpus):
    from sslviz.tuning import choose_nb_alpha

    X, y, vocabulary, test_rows = corpus
    grid = (1.0, 0.1, 0.01)
    sweep = vocabulary_sweep(X, y, vocabulary, feature_sets={"frequency": ("frequency", None)},
                             sizes=(5, ALL_WORDS), label_sizes=(1, 4), seeds=(0, 1),
                             test_rows=test_rows, n_unlabeled=100, progress=False,
                             alpha="chosen", alpha_grid=grid, max_iter=3)
    assert sweep.alpha.shape == (1, 2, 2, 2)
    for j, n_labeled in enumerate((1, 4)):
        for k, size in enumerate((5, None)):
            for seed in (0, 1):
                split = split_labeled(y, n_labeled, per_class=True, n_unlabeled=100,
                                      test_rows=test_rows, random_state=seed)
                y_semi = split.semi_supervised_targets(y)
                cols = np.sort(select_features(X[split.train], "frequency", size, y=y_semi))
                choice = choose_nb_alpha(X[split.labeled][:, cols], y[split.labeled], grid=grid)
                assert choice.criterion == "evidence"  # with one labeled document or more
                assert sweep.alpha[0, j, k, seed] == choice.params["alpha"]
                assert sweep.alpha_at_bound[0, j, k, seed] == choice.at_bound
                nb = smoothed_nb(X[split.labeled][:, cols], y[split.labeled],
                                 choice.params["alpha"], 3)
                expected = np.mean(nb.predict(X[test_rows][:, cols]) == y[test_rows])
                assert sweep.nb_accuracy[0, j, k, seed] == pytest.approx(expected)
    with pytest.raises(ValueError, match="alpha must be a number > 0 or 'chosen', got 'auto'"):
        vocabulary_sweep(X, y, vocabulary, feature_sets={"frequency": ("frequency", None)},
                         sizes=(5,), label_sizes=(1,), seeds=(0,), test_rows=test_rows,
                         n_unlabeled=100, progress=False, use_cache=False, alpha="auto")


def test_astray_run_with_chosen_alpha_uses_the_evidence_of_its_columns():
    from sslviz.tuning import choose_nb_alpha

    X, y, test_rows = astray_corpus()
    columns = np.arange(0, X.shape[1], 2)
    run = astray_run(X, y, columns, n_labeled=1, seed=0, test_rows=test_rows, n_unlabeled=150,
                     alpha="chosen", max_iter=3)
    labeled = run.split.labeled
    choice = choose_nb_alpha(X[labeled][:, columns], y[labeled])
    assert choice.criterion == "evidence" and run.model.alpha == choice.value
    oracle = MultinomialNB(alpha=choice.value).fit(X[run.split.train][:, columns],
                                                   y[run.split.train])
    np.testing.assert_allclose(run.reference_log_prob, oracle.feature_log_prob_)


def brute_force_loo(X, y, alpha):
    """Σ_i log P(y_i | x_i) of multinomial NB refitted without document i (priors: frequencies)."""
    classes = np.unique(y)
    total = 0.0
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        counts = np.array([np.sum(y[keep] == c) for c in classes])
        model = MultinomialNB(alpha=alpha, class_prior=counts / counts.sum()).fit(X[keep],
                                                                                  y[keep])
        total += model.predict_log_proba(X[[i]])[0, np.searchsorted(classes, y[i])]
    return total


def test_sweep_scores_every_size_by_leave_one_out_and_chooses_the_best(corpus):
    X, y, vocabulary, test_rows = corpus
    sizes = (5, 20, ALL_WORDS)
    sweep = vocabulary_sweep(X, y, vocabulary, feature_sets={"frequency": ("frequency", None)},
                             sizes=sizes, label_sizes=(1, 3), seeds=(0, 1), test_rows=test_rows,
                             n_unlabeled=100, progress=False, alpha="chosen",
                             alpha_grid=(1.0, 0.1, 0.01), max_iter=2)
    assert np.all(np.isnan(sweep.loo[0, 0]))  # one labeled document per class: no LOO
    for seed in (0, 1):
        split = split_labeled(y, 3, per_class=True, n_unlabeled=100, test_rows=test_rows,
                              random_state=seed)
        ranking = select_features(X[split.train], "frequency", None,
                                  y=split.semi_supervised_targets(y))
        expected = []
        for k, size in enumerate(sizes):
            cols = np.sort(ranking if size == ALL_WORDS else ranking[:size])
            X_lab = X[split.labeled][:, cols].toarray()
            expected.append(brute_force_loo(X_lab, y[split.labeled], sweep.alpha[0, 1, k, seed])
                            / len(split.labeled))
        np.testing.assert_allclose(sweep.loo[0, 1, :, seed], expected, rtol=1e-9)
        assert sweep.chosen_size("frequency", 3, edge_reason="test")[seed] == int(
            np.argmax(expected))
        choice = sweep.size_choices("frequency", 3)[seed]
        assert [c["n_words"] for c in choice.candidates] == sweep.n_features[0].tolist()
        assert choice.at_bound == (int(np.argmax(expected)) in (0, len(sizes) - 1))
    nb, em = sweep.at_chosen_size("frequency", 3, edge_reason="test")
    chosen = sweep.chosen_size("frequency", 3, edge_reason="test")
    np.testing.assert_array_equal(em, [sweep.em_accuracy[0, 1, chosen[s], s] for s in (0, 1)])
    np.testing.assert_array_equal(nb, [sweep.nb_accuracy[0, 1, chosen[s], s] for s in (0, 1)])
    with pytest.raises(ValueError, match="no leave-one-out score with 1 labeled document"):
        sweep.chosen_size("frequency", 1)


def test_a_vocabulary_size_is_chosen_in_order_of_words_ties_to_the_middle_ends_flagged(
        monkeypatch):
    from sslviz.claims import EdgeNotAcknowledged

    # sizes as run: 300, every word (900), 100; scores per seed (columns) by hand
    loo = np.array([[-1.0, -2.0, -1.0], [-3.0, -2.0, -1.0], [-2.0, -1.0, -1.0]])
    shape = (1, 1, 3, 3)
    sweep = VocabularySweep(("f",), np.array([5]), np.array([300, ALL_WORDS, 100]),
                            np.arange(3), np.array([[300, 900, 100]]), np.zeros(shape),
                            np.arange(9.0).reshape(shape), np.empty((1, 1, 3, 0), dtype=str),
                            np.ones(shape), loo.reshape(shape))
    seed0, seed1, seed2 = sweep.size_choices("f", 5)
    assert [c["n_words"] for c in seed0.candidates] == [100, 300, 900]  # fewest words first
    assert seed0.params == {"n_words": 300} and not seed0.at_bound  # interior
    assert seed1.params == {"n_words": 100} and seed1.at_bound  # the smallest size: an edge
    assert seed2.params == {"n_words": 300} and not seed2.at_bound  # 3-way tie: the middle
    monkeypatch.setenv("SSLVIZ_STRICT_CLAIMS", "1")
    with pytest.raises(EdgeNotAcknowledged, match="n_words = 100 is the smallest value"):
        sweep.chosen_size("f", 5)
    np.testing.assert_array_equal(sweep.chosen_size("f", 5, edge_reason="test"), [0, 2, 0])
    np.testing.assert_array_equal(sweep.at_chosen_size("f", 5, edge_reason="test")[1],
                                  [0.0, 7.0, 2.0])


def test_the_experiments_resolve_a_stop_list_by_name():
    from sslviz.experiments.feature_selection import stop_words
    from sslviz.text import stop_list

    assert stop_words("sklearn") == stop_list("sklearn")
    assert stop_words({"cat"}) == {"cat"} and stop_words(None) is None
    with pytest.raises(ValueError, match=r"^unknown stop list 'german'; choose one of "
                                         r"\('smart', 'sklearn'\) or pass the words themselves$"):
        stop_words("german")
