"""Feature selection: each score against an independent computation, label-based scores that
never look at unlabeled rows, exact errors; the lecture's experiments on small synthetic corpora."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import logsumexp
from scipy.stats import chisquare
from sklearn.metrics import mutual_info_score
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks
from synthetic import astray_corpus, topic_corpus

from sslviz.em import SemiSupervisedNB
from sslviz.feature_selection import (
    ALL_WORDS,
    FeatureSelector,
    VocabularySweep,
    astray_run,
    class_association,
    feature_scores,
    mutual_information,
    neighbour_words,
    pointwise_mutual_information,
    rank_misleading_words,
    select_features,
    stop_word_mask,
    sweep_split,
    toy_feature_weights,
    vocabulary_sweep,
    word_pull,
)
from sslviz.splits import split_labeled
from sslviz.text import TextOptions, vectorize


def random_counts(n_docs=60, n_words=25, seed=0, density=0.3):
    rng = np.random.default_rng(seed)
    counts = rng.poisson(1.5, (n_docs, n_words)) * (rng.random((n_docs, n_words)) < density)
    return sp.csr_matrix(counts.astype(float))


def semi_labels(n_docs=60, n_labeled=20, n_classes=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n_docs)
    y_semi = y.copy()
    y_semi[n_labeled:] = -1
    return y, y_semi


# -- unsupervised scores --------------------------------------------------------------------------
def test_frequency_and_document_frequency_rank_by_counts_ties_by_column():
    X = sp.csr_matrix(np.array([[3, 0, 1, 1, 0],
                                [0, 2, 1, 0, 1],
                                [1, 0, 0, 0, 1]], dtype=float))
    # totals 4, 2, 2, 1, 2 ; document frequencies 2, 1, 2, 1, 2
    np.testing.assert_array_equal(feature_scores(X, "frequency"), [4, 2, 2, 1, 2])
    np.testing.assert_array_equal(feature_scores(X, "document_frequency"), [2, 1, 2, 1, 2])
    np.testing.assert_array_equal(select_features(X, "frequency"), [0, 1, 2, 4, 3])
    # document frequency: ties broken by total count (col 0 has 4), then by column
    np.testing.assert_array_equal(select_features(X, "document_frequency"), [0, 2, 4, 1, 3])
    np.testing.assert_array_equal(select_features(X, "frequency", 2), [0, 1])
    np.testing.assert_array_equal(select_features(X.toarray(), "frequency", 3), [0, 1, 2])


def test_frequency_ranking_equals_scikit_learn_max_features():
    texts = ["the cat sat on the mat", "the dog sat", "a cat and a dog", "dogs and cats and mats",
             "the end"]
    X, vocabulary = vectorize(texts, TextOptions())
    kept = select_features(X, "frequency", 4)
    limited, limited_vocabulary = vectorize(texts, TextOptions(max_features=4))
    assert set(vocabulary[kept]) == set(limited_vocabulary)


def test_stop_words_removed_as_the_vectorizer_removes_them():
    texts = ["the cat sat on the mat", "it was the best of times", "a dog and another dog"]
    X, vocabulary = vectorize(texts, TextOptions())
    _, without = vectorize(texts, TextOptions(stop_words="sklearn"))
    kept = select_features(X, "frequency", None, vocabulary=vocabulary, stop_words="sklearn")
    assert sorted(vocabulary[kept]) == sorted(without)
    custom = select_features(X, "frequency", None, vocabulary=vocabulary,
                             stop_words={"cat", "dog"})
    assert set(vocabulary[custom]) == set(vocabulary) - {"cat", "dog"}
    np.testing.assert_array_equal(stop_word_mask(vocabulary, None), False)


# -- label-based scores ---------------------------------------------------------------------------
def test_mutual_information_hand_worked_table():
    # 4 labeled documents, 2 per class. Word 0: in both class-0 documents only; word 1: once in
    # each class; word 2: in one class-0 document; word 3: nowhere.
    X = sp.csr_matrix(np.array([[1, 1, 2, 0],
                                [3, 0, 0, 0],
                                [0, 1, 0, 0],
                                [0, 0, 0, 0]], dtype=float))
    y = np.array([0, 0, 1, 1])
    word2 = (0.25 * np.log(0.25 / (0.25 * 0.5)) + 0.25 * np.log(0.25 / (0.75 * 0.5))
             + 0.5 * np.log(0.5 / (0.75 * 0.5)))
    np.testing.assert_allclose(feature_scores(X, "mutual_info", y=y),
                               [np.log(2), 0.0, word2, 0.0], atol=1e-12)
    np.testing.assert_allclose(word2, 0.2158, atol=1e-4)


def test_mutual_information_equals_scikit_learn_on_the_indicator():
    X = random_counts(seed=1)
    y, y_semi = semi_labels()
    scores = feature_scores(X, "mutual_info", y=y_semi)
    labeled = y_semi != -1
    occurs = X[labeled].toarray() > 0
    expected = [mutual_info_score(occurs[:, j], y[labeled]) for j in range(X.shape[1])]
    np.testing.assert_allclose(scores, expected, atol=1e-12)
    np.testing.assert_allclose(mutual_information(X[labeled], y[labeled]), expected, atol=1e-12)


def test_chi2_is_pearsons_statistic_of_the_occurrences_over_the_classes():
    X = random_counts(seed=2)
    y, y_semi = semi_labels(seed=2)
    labeled = y_semi != -1
    occurs = X[labeled].toarray() > 0
    class_share = np.bincount(y[labeled]) / labeled.sum()
    expected = []
    for j in range(X.shape[1]):
        observed = np.bincount(y[labeled][occurs[:, j]], minlength=3)
        expected.append(chisquare(observed, class_share * observed.sum()).statistic
                        if observed.sum() else 0.0)
    np.testing.assert_allclose(feature_scores(X, "chi2", y=y_semi), expected, rtol=1e-10)
    # hand case: a word in 1 of 4 documents (one per class of 4) scores 3 (the top value)
    one_each = sp.csr_matrix(np.eye(4))
    np.testing.assert_allclose(feature_scores(one_each, "chi2", y=np.arange(4)), 3.0)


def test_pmi_hand_worked_and_absent_words_rank_last():
    X = sp.csr_matrix(np.array([[1, 1, 0],
                                [0, 1, 0],
                                [0, 1, 0],
                                [0, 0, 0]], dtype=float))
    y = np.array([0, 1, 1, 1])  # P(c0) = 1/4
    # word 0: only in class 0 -> log 1/P(c0) = log 4; word 1: in 3 docs, 2 of class 1 ->
    # max(log (1/4)/(3/4 * 1/4), log (2/4)/(3/4 * 3/4)) = log 4/3; word 2: in no document
    np.testing.assert_allclose(pointwise_mutual_information(X, y), [np.log(4), np.log(4 / 3),
                                                                    -np.inf])
    np.testing.assert_array_equal(select_features(X, "pmi", y=y), [0, 1, 2])


@pytest.mark.parametrize("method", ["mutual_info", "chi2", "pmi"])
def test_label_based_scores_never_look_at_unlabeled_rows(method):
    X = random_counts(seed=3)
    y, y_semi = semi_labels(seed=3)
    labeled = y_semi != -1
    scores = feature_scores(X, method, y=y_semi)
    # only the labeled rows count: same scores from them alone ...
    np.testing.assert_allclose(scores, feature_scores(X[labeled], method, y=y[labeled]))
    # ... whatever the unlabeled rows contain ...
    scrambled = X.toarray()
    scrambled[~labeled] = np.random.default_rng(0).poisson(3.0, scrambled[~labeled].shape)
    np.testing.assert_allclose(scores, feature_scores(scrambled, method, y=y_semi))
    # ... and whatever the gold labels of the unlabeled rows were (only -1 reaches the scorer)
    other_gold = y.copy()
    other_gold[~labeled] = (other_gold[~labeled] + 1) % 3
    y_semi_other = np.where(labeled, other_gold, -1)
    np.testing.assert_allclose(scores, feature_scores(X, method, y=y_semi_other))
    # giving the unlabeled rows their gold labels does change the scores (the test can fail)
    assert not np.allclose(scores, feature_scores(X, method, y=y))


def test_label_based_ties_are_broken_by_frequency_then_column():
    # one labeled document per class: words 0-3 each in one labeled document (tied under PMI)
    X = sp.csr_matrix(np.array([[1, 0, 0, 0, 0],
                                [0, 1, 1, 0, 0],
                                [0, 5, 0, 2, 1],  # unlabeled: word 1 is frequent, 3 next
                                [0, 0, 0, 1, 0]], dtype=float))
    y_semi = np.array([0, 1, -1, -1])
    np.testing.assert_array_equal(select_features(X, "pmi", y=y_semi), [1, 0, 2, 3, 4])


# -- errors ---------------------------------------------------------------------------------------
ERROR_X = sp.csr_matrix(np.array([[1, 0, 2], [0, 1, 1], [1, 1, 0], [2, 0, 0]], dtype=float))
ERROR_Y = np.array([0, 1, -1, -1])
VOCABULARY = np.array(["the", "cat", "mat"])


@pytest.mark.parametrize("kwargs, message", [
    ({"method": "tfidf"}, r"^unknown method 'tfidf'; choose one of \['frequency', "
                          r"'document_frequency', 'mutual_info', 'chi2', 'pmi'\]$"),
    ({"n_features": 0}, r"^n_features must be None or an integer from 1 to 3, got 0$"),
    ({"n_features": 4}, r"^n_features must be None or an integer from 1 to 3, got 4$"),
    ({"n_features": 2.5}, r"^n_features must be None or an integer from 1 to 3, got 2.5$"),
    ({"n_features": True}, r"^n_features must be None or an integer from 1 to 3, got True$"),
    ({"n_features": 3, "stop_words": {"the"}, "vocabulary": VOCABULARY},
     r"^n_features must be None or an integer from 1 to 2 \(the 3 columns of X minus 1 stop "
     r"words\), got 3$"),
    ({"method": "mutual_info"}, r"^method 'mutual_info' scores words by their labels: pass y "
                                r"\(the classes, with -1 for unlabeled rows\)$"),
    ({"method": "chi2", "y": np.full(4, -1)},
     r"^method 'chi2' needs labeled rows of at least two classes; y has 0 labeled rows of 0 "
     r"class\(es\)$"),
    ({"method": "pmi", "y": np.array([1, 1, -1, -1])},
     r"^method 'pmi' needs labeled rows of at least two classes; y has 2 labeled rows of 1 "
     r"class\(es\)$"),
    ({"method": "pmi", "y": np.array([0, 1, -1])},
     r"^y must hold one label per row of X \(4\), got shape \(3,\)$"),
    ({"stop_words": "smart"}, r"^stop_words needs vocabulary: pass the column names of X "
                              r"\(e.g. corpus.vocabulary\)$"),
    ({"stop_words": {"the"}, "vocabulary": VOCABULARY[:2]},
     r"^vocabulary has 2 words but X has 3 columns$"),
    ({"stop_words": "german", "vocabulary": VOCABULARY},
     r"^unknown stop list 'german'; choose one of \('smart', 'sklearn'\) or pass the words "
     r"themselves$"),
])
def test_bad_input_errors(kwargs, message):
    kwargs = {"method": "frequency", "n_features": None, **kwargs}
    with pytest.raises(ValueError, match=message):
        select_features(ERROR_X, kwargs.pop("method"), kwargs.pop("n_features"), **kwargs)


def test_negative_counts_are_refused():
    with pytest.raises(ValueError, match="Negative values in data passed to feature selection"):
        select_features(-ERROR_X, "frequency", 2)


# -- the transformer ------------------------------------------------------------------------------
def test_selector_keeps_the_selected_columns_and_fits_on_labeled_rows_only():
    X = random_counts(seed=4)
    y, y_semi = semi_labels(seed=4)
    selector = FeatureSelector("mutual_info", n_features=7).fit(X, y_semi)
    expected = select_features(X, "mutual_info", 7, y=y_semi)
    np.testing.assert_array_equal(selector.ranking_, expected)
    np.testing.assert_array_equal(np.flatnonzero(selector.get_support()), np.sort(expected))
    np.testing.assert_array_equal(selector.transform(X).toarray(),
                                  X[:, np.sort(expected)].toarray())
    np.testing.assert_allclose(selector.scores_, feature_scores(X, "mutual_info", y=y_semi))
    pipeline = make_pipeline(FeatureSelector("mutual_info", 7), SemiSupervisedNB(max_iter=3))
    pipeline.fit(X, y_semi)
    direct = SemiSupervisedNB(max_iter=3).fit(X[:, np.sort(expected)], y_semi)
    np.testing.assert_allclose(pipeline.predict_proba(X),
                               direct.predict_proba(X[:, np.sort(expected)]))


@parametrize_with_checks([FeatureSelector(), FeatureSelector(n_features=1)])
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


# -- vocabulary sweep -----------------------------------------------------------------------------
SWEEP_SETS = {"frequency": ("frequency", None), "mutual information": ("mutual_info", None)}


@pytest.fixture(scope="module")
def corpus():
    X, y, _ = topic_corpus(n_docs=240, n_words=40, seed=5)
    return X, y, np.array([f"w{i:02d}" for i in range(X.shape[1])]), np.arange(180, 240)


@pytest.fixture
def sweep(corpus, tmp_path, monkeypatch):
    monkeypatch.setenv("SSLVIZ_CACHE", str(tmp_path))
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


def test_sweep_is_cached_on_disk_and_read_back(corpus, sweep, tmp_path):
    files = list((tmp_path / "feature_selection").glob("sweep-*.npz"))
    assert len(files) == 1
    X, y, vocabulary, test_rows = corpus
    again = vocabulary_sweep(X, y, vocabulary, feature_sets=SWEEP_SETS, sizes=(5, 20, ALL_WORDS),
                             label_sizes=(1, 4), seeds=(0, 1), test_rows=test_rows,
                             n_unlabeled=100, progress=False, alpha=0.5, max_iter=4)
    assert again.feature_sets == sweep.feature_sets
    np.testing.assert_array_equal(again.em_accuracy, sweep.em_accuracy)
    np.testing.assert_array_equal(again.top_words, sweep.top_words)


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
    with pytest.raises(ValueError, match=r"^unknown method 'idf'"):
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
        np.testing.assert_allclose(class_association(log_prob, log_prior, c),
                                   association_by_hand(log_prob, log_prior, c))
    two = log_prob[:2]
    np.testing.assert_allclose(class_association(two, log_prior[:2] - logsumexp(log_prior[:2]),
                                                 1), two[1] - two[0])


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
    with pytest.raises(ValueError, match=r"^target must be a class index in \[0, 2\), got 2$"):
        word_pull(run, X, 24, 2)
    with pytest.raises(ValueError, match=r"^word must be a column of X in \[0, 25\), got 25$"):
        word_pull(run, X, 25, 0)


def test_neighbour_words_rose_most_and_are_not_class_words(astray):
    X, y, run = astray
    columns, associations = neighbour_words(run, X, 24, 0, min_df=5, k=3)
    assert set(columns) <= set(range(12, 18))  # the sub-topic's words followed the fluke
    last = len(run.model.trace_) - 1
    rise = run.association(last, 0) - run.association(0, 0)
    assert np.all(np.diff(rise[columns]) <= 0)
    together = np.sum((X[run.split.unlabeled].toarray() > 0)
                      & (X[run.split.unlabeled].toarray()[:, [24]] > 0), axis=0)
    eligible = [j for j in range(25) if j != 24 and together[j] >= 5
                and run.reference_association(0)[j] <= 0]
    assert rise[columns[-1]] >= max(rise[j] for j in eligible if j not in columns)
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
    with pytest.raises(ValueError, match=r"^n_labeled must be an integer from 1 to 500, "
                                         r"got 0$"):
        toy_feature_weights(0)


def test_vocabulary_sweep_result_is_a_frozen_record():
    sweep = VocabularySweep(("a",), np.array([1]), np.array([5, 0]), np.array([0]),
                            np.array([[5, 9]]), np.zeros((1, 1, 2, 1)), np.ones((1, 1, 2, 1)),
                            np.array([[[["x"]]]]))
    assert sweep.size_labels() == ["5", "all"]
    with pytest.raises(AttributeError):
        sweep.sizes = None


def test_smart_stop_list_removed_as_the_vectorizer_removes_it(real_data_dir):
    texts = ["The course covers the basics of programming.", "Our project is about robots",
             "I am a student and you are my professor", "Office hours: Tuesday at 10am"]
    X, vocabulary = vectorize(texts, TextOptions())
    _, without = vectorize(texts, TextOptions(stop_words="smart"))
    kept = select_features(X, "frequency", None, vocabulary=vocabulary, stop_words="smart")
    assert sorted(vocabulary[kept]) == sorted(without)
    assert "the" not in vocabulary[kept] and "programming" in vocabulary[kept]


@pytest.mark.parametrize("method", ["frequency", "document_frequency", "mutual_info", "chi2",
                                    "pmi"])
def test_selection_leaves_the_callers_matrix_alone(method):
    # integer counts with unsorted column indices, as CountVectorizer returns them
    X = sp.csr_matrix((np.array([2, 1, 3, 1, 1]), np.array([2, 0, 1, 2, 0]),
                       np.array([0, 2, 3, 5])), shape=(3, 3))
    assert not X.has_sorted_indices
    before = (X.data.copy(), X.indices.copy(), X.indptr.copy())
    select_features(X, method, 2, y=np.array([0, 1, -1]))
    for array, saved in zip((X.data, X.indices, X.indptr), before, strict=True):
        np.testing.assert_array_equal(array, saved)
