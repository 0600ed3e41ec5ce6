"""SelfTraining against scikit-learn's SelfTrainingClassifier, its trace and the pure summaries
of the trace. (The lecture's seeded runs, plots and explorers: tests/test_bootstrapping.py.)"""

import functools
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris, make_moons
from sklearn.linear_model import LogisticRegression, Perceptron
from sklearn.naive_bayes import GaussianNB, MultinomialNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.semi_supervised import SelfTrainingClassifier
from sklearn.svm import SVC
from sklearn.utils import get_tags
from synthetic import topic_corpus

from sslviz.self_training import (
    SelfTraining,
    accuracy_by_iteration,
    estimator_at_iteration,
    labels_at_iteration,
    predict_at_iteration,
    pseudo_label_correctness,
)


# -- data ----------------------------------------------------------------------------------------
def moons(n=200, labeled=0.06, seed=0):
    X, y = make_moons(n, noise=0.25, random_state=seed)
    y_semi = np.where(np.random.RandomState(seed).rand(n) < labeled, y, -1)
    return X, y, y_semi


def iris(seed=0):
    X, y = load_iris(return_X_y=True)
    y_semi = np.where(np.random.RandomState(seed).rand(len(y)) < 0.15, y, -1)
    return X, y, y_semi


def topics(seed=0):
    # Naive Bayes on these documents: many probabilities tie at exactly 1.0
    X, y, y_semi = topic_corpus(240, 40, 15, seed, words_per_topic=10)
    return X, y, y_semi


DATASETS = {"moons+logistic": (moons, LogisticRegression()),
            "iris+gaussian_nb": (iris, GaussianNB()),
            "topics+multinomial_nb": (topics, MultinomialNB(alpha=0.5))}
SETTINGS = [
    {"criterion": "threshold", "threshold": 0.75},
    {"criterion": "threshold", "threshold": 0.95, "max_iter": None},
    {"criterion": "threshold", "threshold": 0.0, "max_iter": 3},
    {"criterion": "k_best", "k_best": 10, "max_iter": None},
    {"criterion": "k_best", "k_best": 7, "max_iter": 4},
    {"criterion": "k_best", "k_best": 1000},  # more than the pool: all in one iteration
    {"criterion": "threshold", "threshold": 0.99999, "max_iter": 1},  # last iteration adds 0
]


def fit_both(dataset, settings):
    return _fit_both(dataset, SETTINGS.index(settings))


@functools.cache
def _fit_both(dataset, index):
    settings = SETTINGS[index]
    make, estimator = DATASETS[dataset]
    X, _, y_semi = make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # k_best larger than the pool (both warn)
        reference = SelfTrainingClassifier(clone(estimator), **settings).fit(X, y_semi)
        ours = SelfTraining(clone(estimator), **settings).fit(X, y_semi)
    return X, y_semi, reference, ours


# -- equality with scikit-learn ------------------------------------------------------------------
@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: "-".join(map(str, s.values())))
@pytest.mark.parametrize("dataset", list(DATASETS))
def test_equals_scikit_learn_self_training_classifier(dataset, settings):
    X, _, reference, ours = fit_both(dataset, settings)
    np.testing.assert_array_equal(ours.transduction_, reference.transduction_)
    np.testing.assert_array_equal(ours.labeled_iter_, reference.labeled_iter_)
    assert ours.n_iter_ == reference.n_iter_
    assert ours.termination_condition_ == reference.termination_condition_
    np.testing.assert_array_equal(ours.classes_, reference.classes_)
    np.testing.assert_array_equal(ours.predict(X), reference.predict(X))
    np.testing.assert_allclose(ours.predict_proba(X), reference.predict_proba(X))
    assert len(ours.trace_) == ours.n_iter_ + 1


def test_the_comparison_exercises_every_way_of_stopping():
    """The settings above reach all three termination conditions (so the equality test covers
    them), and the Naive Bayes data has ties at the k-th place that k_best must break the same way
    scikit-learn does."""
    seen = {fit_both(d, s)[3].termination_condition_ for d in DATASETS for s in SETTINGS}
    assert seen == {"max_iter", "no_change", "all_labeled"}
    X, _, y_semi = topics()
    first = MultinomialNB(alpha=0.5).fit(X[y_semi != -1], y_semi[y_semi != -1])
    confidence = first.predict_proba(X[y_semi == -1]).max(axis=1)
    kth = np.sort(confidence)[::-1][9]
    assert np.sum(confidence == kth) > 1  # a tie straddles the 10th place


def test_string_labels_in_an_object_array_equal_scikit_learn():
    X, y, y_semi = iris()
    names = np.array(["setosa", "versicolor", "virginica"], dtype=object)
    y_named = np.where(y_semi == -1, -1, names[y]).astype(object)
    reference = SelfTrainingClassifier(GaussianNB(), threshold=0.9).fit(X, y_named)
    ours = SelfTraining(GaussianNB(), threshold=0.9).fit(X, y_named)
    np.testing.assert_array_equal(ours.transduction_, reference.transduction_)
    np.testing.assert_array_equal(ours.predict(X), reference.predict(X))
    assert set(ours.predict(X)) <= set(names)


def test_sparse_and_dense_input_give_the_same_run():
    X, _, y_semi = topics()
    dense = SelfTraining(MultinomialNB(), criterion="k_best", k_best=20).fit(X.toarray(), y_semi)
    sparse = SelfTraining(MultinomialNB(), criterion="k_best", k_best=20).fit(X, y_semi)
    np.testing.assert_array_equal(dense.labeled_iter_, sparse.labeled_iter_)
    np.testing.assert_allclose(dense.predict_proba(X), sparse.predict_proba(X))


# -- the trace -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def moons_model():
    X, y, y_semi = moons(labeled=0.1)  # 9 iterations; 29 wrong pseudo-labels; 15 rows left
    return X, y, y_semi, SelfTraining(LogisticRegression(), threshold=0.7).fit(X, y_semi)


def test_trace_records_what_was_added_and_agrees_with_labeled_iter(moons_model):
    X, _, y_semi, model = moons_model
    assert model.n_iter_ >= 3
    for step in model.trace_:
        np.testing.assert_array_equal(step.added, np.flatnonzero(model.labeled_iter_
                                                                 == step.iteration))
        np.testing.assert_array_equal(step.pseudo_labels, model.transduction_[step.added])
        assert step.n_labeled == np.sum((model.labeled_iter_ >= 0)
                                        & (model.labeled_iter_ <= step.iteration))
        assert step.n_unlabeled == len(y_semi) - step.n_labeled
        assert not step.added.flags.writeable and not step.confidence.flags.writeable
    assert np.all(np.isnan(model.trace_[0].confidence))
    np.testing.assert_array_equal(model.trace_[0].pseudo_labels, y_semi[y_semi != -1])


def test_recorded_confidence_is_that_of_the_previous_model(moons_model):
    X, _, _, model = moons_model
    assert len(model.trace_[-1].added) == 0  # the run stopped because nothing was added
    for step in model.trace_[1:-1]:
        previous = model.trace_[step.iteration - 1].estimator
        proba = previous.predict_proba(X[step.added])
        np.testing.assert_allclose(step.confidence, proba.max(axis=1))
        np.testing.assert_array_equal(step.pseudo_labels,
                                      previous.classes_[proba.argmax(axis=1)])
        assert np.all(step.confidence > 0.7)
    # and every row left out at an iteration was not confident enough for that model
    for step in model.trace_[1:]:
        waiting = model.labeled_iter_ == -1
        waiting |= model.labeled_iter_ > step.iteration
        previous = model.trace_[step.iteration - 1].estimator
        assert waiting.any()
        assert np.all(previous.predict_proba(X[waiting]).max(axis=1) <= 0.7)


def test_recorded_estimators_are_refits_on_the_rows_labeled_so_far(moons_model):
    X, _, _, model = moons_model
    for step in model.trace_:
        rows = (model.labeled_iter_ >= 0) & (model.labeled_iter_ <= step.iteration)
        reference = LogisticRegression().fit(X[rows], model.transduction_[rows])
        np.testing.assert_allclose(step.estimator.coef_, reference.coef_, rtol=1e-6)
        np.testing.assert_array_equal(predict_at_iteration(model, X, step.iteration),
                                      reference.predict(X))
    assert model.trace_[-1].estimator is not model.estimator_  # a copy, not the live object
    np.testing.assert_array_equal(model.trace_[-1].estimator.coef_, model.estimator_.coef_)


def test_labels_at_iteration_grow_and_are_never_revised(moons_model):
    _, _, y_semi, model = moons_model
    previous = labels_at_iteration(model, 0)
    np.testing.assert_array_equal(previous, y_semi)
    for i in range(1, len(model.trace_)):
        current = labels_at_iteration(model, i)
        known = previous != -1
        np.testing.assert_array_equal(current[known], previous[known])
        assert np.sum(current != -1) == model.trace_[i].n_labeled
        previous = current
    np.testing.assert_array_equal(previous, model.transduction_)
    with pytest.raises(IndexError, match=f"iteration 99 was not recorded: the trace holds "
                                         f"iterations 0 to {model.n_iter_}"):
        labels_at_iteration(model, 99)


def test_iter_fit_yields_the_recorded_steps(moons_model):
    X, _, y_semi, model = moons_model
    fresh = SelfTraining(LogisticRegression(), threshold=0.7)
    steps = list(fresh.iter_fit(X, y_semi))
    assert [s.iteration for s in steps] == list(range(model.n_iter_ + 1))
    for a, b in zip(steps, model.trace_, strict=True):
        np.testing.assert_array_equal(a.added, b.added)


def test_k_best_adds_the_most_confident_rows(moons_model):
    X, _, y_semi, _ = moons_model
    model = SelfTraining(LogisticRegression(), criterion="k_best", k_best=15,
                         max_iter=5).fit(X, y_semi)
    for step in model.trace_[1:]:
        assert len(step.added) == 15
        previous = model.trace_[step.iteration - 1].estimator
        pool = np.flatnonzero((model.labeled_iter_ == -1)
                              | (model.labeled_iter_ >= step.iteration))
        confidence = previous.predict_proba(X[pool]).max(axis=1)
        chosen = np.isin(pool, step.added)
        assert confidence[chosen].min() >= confidence[~chosen].max()


def test_k_best_per_class_adds_the_best_rows_of_each_predicted_class(moons_model):
    X, _, y_semi, _ = moons_model
    model = SelfTraining(LogisticRegression(), criterion="k_best_per_class", k_best=4,
                         max_iter=6).fit(X, y_semi)
    assert model.n_iter_ == 6
    for step in model.trace_[1:]:
        previous = model.trace_[step.iteration - 1].estimator
        pool = np.flatnonzero((model.labeled_iter_ == -1)
                              | (model.labeled_iter_ >= step.iteration))
        proba = previous.predict_proba(X[pool])
        predicted, confidence = proba.argmax(axis=1), proba.max(axis=1)
        expected = []
        for c in range(2):
            members = pool[predicted == c]
            order = np.argsort(-confidence[predicted == c], kind="stable")
            expected.extend(members[order[:4]])
        np.testing.assert_array_equal(step.added, np.sort(expected))
        assert np.bincount(step.pseudo_labels, minlength=2).tolist() == [4, 4]


def test_k_best_per_class_hand_case_with_ties():
    """1-D points and a 1-nearest-neighbour classifier: every confidence is exactly 1, so all
    rows tie and each class takes its earliest rows."""
    X = np.array([[0.0], [10.0], [1.0], [9.0], [2.0], [8.0], [5.1]])
    y_semi = np.array([0, 1, -1, -1, -1, -1, -1])
    # predicted: 1.0 -> 0, 9.0 -> 1, 2.0 -> 0, 8.0 -> 1, 5.1 -> 1 (4.9 from 10 vs 5.1 from 0)
    model = SelfTraining(KNeighborsClassifier(n_neighbors=1), criterion="k_best_per_class",
                         k_best=1).fit(X, y_semi)
    np.testing.assert_array_equal(model.trace_[1].added, [2, 3])
    np.testing.assert_array_equal(model.trace_[1].pseudo_labels, [0, 1])
    np.testing.assert_array_equal(model.trace_[1].confidence, [1.0, 1.0])
    np.testing.assert_array_equal(model.trace_[2].added, [4, 5])
    # iteration 3: 5.1 is now 2.9 from the pseudo-labeled 8.0 and 3.1 from 2.0: class 1
    np.testing.assert_array_equal(model.trace_[3].added, [6])
    np.testing.assert_array_equal(model.transduction_, [0, 1, 0, 1, 0, 1, 1])
    assert model.n_iter_ == 3 and model.termination_condition_ == "all_labeled"
    np.testing.assert_array_equal(model.labeled_iter_, [0, 0, 1, 1, 2, 2, 3])


def test_max_iter_zero_is_the_supervised_classifier(moons_model):
    X, _, y_semi, _ = moons_model
    model = SelfTraining(LogisticRegression(), max_iter=0).fit(X, y_semi)
    supervised = LogisticRegression().fit(X[y_semi != -1], y_semi[y_semi != -1])
    np.testing.assert_allclose(model.predict_proba(X), supervised.predict_proba(X))
    assert model.n_iter_ == 0 and len(model.trace_) == 1
    assert model.termination_condition_ == "max_iter"
    np.testing.assert_array_equal(model.transduction_, y_semi)


def test_fully_labeled_y_warns_and_fits_the_supervised_classifier():
    X, y, _ = moons()
    with pytest.warns(UserWarning, match="y contains no unlabeled samples"):
        model = SelfTraining(LogisticRegression()).fit(X, y)
    assert model.n_iter_ == 0 and model.termination_condition_ == "all_labeled"


def test_record_summary_keeps_no_estimators(moons_model):
    X, _, y_semi, _ = moons_model
    model = SelfTraining(LogisticRegression(), threshold=0.7, record="summary").fit(X, y_semi)
    assert all(step.estimator is None for step in model.trace_)
    with pytest.raises(ValueError, match="fitted with record='summary'; refit with "
                                         "record='full'"):
        predict_at_iteration(model, X, 1)
    with pytest.raises(ValueError, match="record='summary'"):
        estimator_at_iteration(model, 0)


# -- pseudo-label correctness --------------------------------------------------------------------
def test_pseudo_label_correctness_against_a_direct_count(moons_model):
    _, y, _, model = moons_model
    report = pseudo_label_correctness(model, y)
    for i, step in enumerate(model.trace_):
        np.testing.assert_array_equal(report.correct[i], y[step.added] == step.pseudo_labels)
        pool = (model.labeled_iter_ >= 1) & (model.labeled_iter_ <= i)
        assert report.pool_size[i] == pool.sum()
        wrong = np.sum(model.transduction_[pool] != y[pool])
        assert report.pool_wrong[i] == wrong
        if pool.any():
            assert report.pool_error_rate[i] == pytest.approx(wrong / pool.sum())
        else:
            assert np.isnan(report.pool_error_rate[i])
    assert report.n_added[0] == 0 and np.isnan(report.added_error_rate[0])
    assert report.correct[0].all()  # the given labels are gold
    assert report.pool_wrong[-1] > 0  # logistic regression mislabels some of the moons


def test_pseudo_label_correctness_hand_case():
    """Two clusters; a labeled point of class 1 sits in cluster 0, so the first model gets some
    of cluster 0 wrong, and counts can be checked by hand."""
    X = np.array([[0.0], [0.2], [0.4], [0.6], [5.0], [5.2], [5.4], [0.25]])
    y_true = np.array([0, 0, 0, 0, 1, 1, 1, 0])
    y_semi = np.array([0, -1, -1, -1, 1, -1, -1, -1])
    model = SelfTraining(KNeighborsClassifier(n_neighbors=1), threshold=0.5,
                         max_iter=1).fit(X, y_semi)
    # 1-NN, labeled rows 0 (x=0) and 4 (x=5): everything is confident (P = 1); all correct
    report = pseudo_label_correctness(model, y_true)
    assert report.n_added.tolist() == [0, 6] and report.n_wrong_added.tolist() == [0, 0]
    y_bad = np.array([0, -1, -1, 1, 1, -1, -1, -1])  # row 3 (x=0.6, truly 0) labeled 1
    model = SelfTraining(KNeighborsClassifier(n_neighbors=1), threshold=0.5,
                         max_iter=1).fit(X, y_bad)
    report = pseudo_label_correctness(model, y_true)
    # rows 1 (0.2), 7 (0.25) -> nearest is row 0 -> 0 (right); row 2 (0.4) -> row 3 (0.6)
    # -> 1 (wrong); rows 5, 6 -> 1 (right)
    assert report.n_added.tolist() == [0, 5]
    assert report.n_wrong_added.tolist() == [0, 1]
    assert report.pool_error_rate[1] == pytest.approx(0.2)
    assert report.correct[0].tolist() == [True, False, True]  # the given label of row 3 is wrong


def test_pseudo_label_correctness_needs_every_row(moons_model):
    _, y, _, model = moons_model
    with pytest.raises(ValueError, match=r"y_true has shape \(199,\), but the model was fitted "
                                         r"on 200 rows"):
        pseudo_label_correctness(model, y[:-1])


def test_accuracy_by_iteration_scores_each_recorded_model(moons_model):
    X, y, _, model = moons_model
    accuracy = accuracy_by_iteration(model, X, y)
    assert len(accuracy) == len(model.trace_)
    assert accuracy[-1] == pytest.approx(np.mean(model.predict(X) == y))
    assert accuracy[0] == pytest.approx(np.mean(model.trace_[0].estimator.predict(X) == y))


# -- bad input -----------------------------------------------------------------------------------
@pytest.mark.parametrize("params, message", [
    ({"estimator": None}, r"estimator is required: pass a classifier with fit and predict_proba"),
    ({"estimator": SVC()}, r"estimator SVC has no predict_proba: self-training needs a "
                           r"classifier with fit and predict_proba .*\(for SVC, set "
                           r"probability=True\)"),
    ({"estimator": Perceptron()}, r"estimator Perceptron has no predict_proba"),
    ({"threshold": 1.0}, r"threshold must be a number in \[0, 1\), got 1.0"),
    ({"threshold": -0.1}, r"threshold must be a number in \[0, 1\), got -0.1"),
    ({"threshold": "high"}, r"threshold must be a number in \[0, 1\), got 'high'"),
    ({"criterion": "best"}, r"criterion must be one of \['threshold', 'k_best', "
                            r"'k_best_per_class'\], got 'best'"),
    ({"k_best": 0}, r"k_best must be an integer >= 1, got 0"),
    ({"k_best": 2.5}, r"k_best must be an integer >= 1, got 2.5"),
    ({"k_best": True}, r"k_best must be an integer >= 1, got True"),
    ({"max_iter": -1}, r"max_iter must be an integer >= 0, got -1"),
    ({"max_iter": False}, r"max_iter must be an integer >= 0, got False"),
    ({"record": "all"}, r"record must be one of \['full', 'summary'\], got 'all'"),
])
def test_bad_parameters(params, message):
    X, _, y_semi = moons()
    params = {"estimator": LogisticRegression(), **params}
    with pytest.raises(ValueError, match=message):
        SelfTraining(**params).fit(X, y_semi)


@pytest.mark.parametrize("change, message", [
    (lambda y: np.full_like(y, -1), r"no labeled rows: every entry of y is -1. Self-training "
                                    r"needs labeled examples of at least two classes"),
    (lambda y: np.where(y == 1, -1, y), r"only 1 class\(es\) among the labeled rows \(\[0\]\): "
                                        r"this model needs at least 2"),
    (lambda y: np.where(y == -1, "-1", y.astype(str)), r"y holds the string '-1', which would "
                                                       r"become a class"),
    (lambda y: np.where(y == -1, "-1", "a").astype(object), r"y holds the string '-1'"),
    (lambda y: np.where(y == -1, np.nan, y), r"y holds NaN labels|Input y contains NaN"),
    (lambda y: np.where(y == -1, -1, y + 0.5), r"non-integer numbers .*not continuous values"),
])
def test_bad_targets(change, message):
    X, _, y_semi = moons()
    with pytest.raises(ValueError, match=message):
        SelfTraining(LogisticRegression()).fit(X, change(y_semi))


def test_k_best_larger_than_the_pool_warns_as_scikit_learn_does():
    X, _, y_semi = moons()
    with pytest.warns(UserWarning, match="k_best is larger than the amount of unlabeled samples"):
        model = SelfTraining(LogisticRegression(), criterion="k_best", k_best=500).fit(X, y_semi)
    assert model.n_iter_ == 1 and model.termination_condition_ == "all_labeled"


def test_predicting_before_fit_and_with_wrong_width_is_refused():
    X, _, y_semi = moons()
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        SelfTraining(LogisticRegression()).predict(X)
    model = SelfTraining(LogisticRegression()).fit(X, y_semi)
    with pytest.raises(ValueError, match="X has 3 features, but SelfTraining is expecting 2"):
        model.predict(np.ones((2, 3)))


def test_input_tags_are_those_of_the_base_classifier():
    """So that the checks feed count data to a Naive Bayes inside, and sparse data where the base
    classifier accepts it (what lets the checks pass with MultinomialNB inside)."""
    naive_bayes = get_tags(SelfTraining(MultinomialNB()))
    assert naive_bayes.input_tags.positive_only and naive_bayes.input_tags.sparse
    assert naive_bayes.classifier_tags.poor_score
    gaussian = get_tags(SelfTraining(GaussianNB()))
    assert not gaussian.input_tags.positive_only and not gaussian.input_tags.sparse
