"""Feature selection: each score against an independent computation, label-based scores that
never look at unlabeled rows, exact errors (the lecture's experiments: test_feature_selection_
experiments.py)."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import chisquare
from sklearn.metrics import mutual_info_score
from sklearn.pipeline import make_pipeline

from sslviz.em import SemiSupervisedNB
from sslviz.feature_selection import (
    FeatureSelector,
    class_word_table,
    feature_scores,
    mutual_information,
    pointwise_mutual_information,
    resolve_stop_words,
    select_features,
    stop_word_mask,
)
from sslviz.text import TextOptions, stop_list, vectorize


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
    kept = select_features(X, "frequency", None, vocabulary=vocabulary,
                           stop_words=stop_list("sklearn"))
    assert sorted(vocabulary[kept]) == sorted(without)
    custom = select_features(X, "frequency", None, vocabulary=vocabulary,
                             stop_words={"cat", "dog"})
    assert set(vocabulary[custom]) == set(vocabulary) - {"cat", "dog"}
    np.testing.assert_array_equal(stop_word_mask(vocabulary, None), False)
    assert resolve_stop_words({"cat"}) == {"cat"} and resolve_stop_words(None) is None
    with pytest.raises(ValueError, match=r"stop_words='smart': pass the words themselves, e\.g\. "
                                         r"sslviz\.text\.stop_list\('smart'\), not the name"):
        select_features(X, "frequency", vocabulary=vocabulary, stop_words="smart")


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
    ({"method": "tfidf"}, r"^method must be one of \['frequency', 'document_frequency', "
                          r"'mutual_info', 'chi2', 'pmi'\], got 'tfidf'$"),
    ({"n_features": 0}, r"^n_features must be an integer in \[1, 3\], got 0$"),
    ({"n_features": 4}, r"^n_features must be an integer in \[1, 3\], got 4$"),
    ({"n_features": 2.5}, r"^n_features must be an integer in \[1, 3\], got 2.5$"),
    ({"n_features": True}, r"^n_features must be an integer in \[1, 3\], got True$"),
    ({"n_features": 3, "stop_words": {"the"}, "vocabulary": VOCABULARY},
     r"^n_features \(the 3 columns of X minus 1 stop words\) must be an integer in \[1, 2\], "
     r"got 3$"),
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
    ({"method": "mutual_info", "y": np.array([0.0, 1.0, np.nan, -1.0])}, r"^y holds NaN labels"),
    ({"method": "chi2", "y": np.array(["spam", "ham", "-1", "-1"])},
     r"^y holds the string '-1', which would become a class"),
    ({"method": "pmi", "y": np.array(["spam", "ham", None, -1], dtype=object)},
     r"^y holds missing labels \(None or NaN\)"),
    ({"stop_words": "smart"}, r"^stop_words needs vocabulary: pass the column names of X "
                              r"\(e.g. corpus.vocabulary\)$"),
    ({"stop_words": {"the"}, "vocabulary": VOCABULARY[:2]},
     r"^vocabulary has 2 words but X has 3 columns$"),
    ({"stop_words": "german", "vocabulary": VOCABULARY},
     r"^stop_words='german': pass the words themselves, e\.g\. "
     r"sslviz\.text\.stop_list\('german'\), not the name of a list$"),
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


def test_selector_refuses_labels_that_would_become_classes():
    with pytest.raises(ValueError, match=r"^y holds the string '-1'"):
        FeatureSelector("mutual_info", 2).fit(ERROR_X, np.array(["a", "b", "-1", "-1"]))
    with pytest.raises(ValueError, match=r"^y holds NaN labels"):
        FeatureSelector("chi2", 2).fit(ERROR_X, np.array([0.0, 1.0, np.nan, np.nan]))
    # mixed labels built the safe way are fine: -1 is the number, not a class
    mixed = np.array(["a", "b", -1, -1], dtype=object)
    np.testing.assert_array_equal(FeatureSelector("chi2", 2).fit(ERROR_X, mixed).ranking_,
                                  select_features(ERROR_X, "chi2", 2, y=np.array([0, 1, -1, -1])))


def test_class_word_table_counts_documents_per_class():
    occurrence = sp.csr_matrix(np.array([[2, 0, 1], [1, 1, 0], [0, 3, 0]], dtype=float))
    contains, class_sizes = class_word_table(occurrence, np.array(["b", "a", "b"]))
    # classes in sorted order: "a" (row 1), "b" (rows 0 and 2)
    np.testing.assert_array_equal(contains, [[1, 1, 0], [1, 1, 1]])
    np.testing.assert_array_equal(class_sizes, [1, 2])


def test_smart_stop_list_removed_as_the_vectorizer_removes_it(real_data_dir):
    texts = ["The course covers the basics of programming.", "Our project is about robots",
             "I am a student and you are my professor", "Office hours: Tuesday at 10am"]
    X, vocabulary = vectorize(texts, TextOptions())
    _, without = vectorize(texts, TextOptions(stop_words="smart"))
    kept = select_features(X, "frequency", None, vocabulary=vocabulary,
                           stop_words=stop_list("smart"))
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
