"""Decision lists and the Yarowsky loop against hand-worked cases and independent refits."""


import numpy as np
import pytest
import scipy.sparse as sp
from yarowsky_corpus import SEEDS, FakeCorpus, corpus_data

from sslviz.decision_list import (
    DecisionList,
    collocation_matrix,
    collocations,
    presence_matrix,
    rank_rules,
    top_rules,
)
from sslviz.yarowsky import (
    Yarowsky,
    accuracy_by_iteration,
    decision_list_at,
    label_accuracy,
    wrong_labels,
)


@pytest.fixture(scope="module")
def corpus():
    return FakeCorpus()


@pytest.fixture(scope="module")
def data(corpus):
    return corpus_data(corpus)


# -- features ------------------------------------------------------------------------------------
def test_collocations_of_a_hand_made_context():
    tokens = ["the", "old", "telephone", "line", "was", "dead", ",", "the", "end", "."]
    assert collocations(tokens, 3, window=10) == [
        "L1=telephone", "R1=was", "W=the", "W=old", "W=telephone", "W=was", "W=dead", "W=end"]
    assert collocations(tokens, 3, window=2) == [
        "L1=telephone", "R1=was", "W=old", "W=telephone", "W=was", "W=dead"]
    assert collocations(tokens, 3, window=2, stop_words={"was", "old"}) == [
        "L1=telephone", "R1=was", "W=telephone", "W=dead"]
    assert collocations(["line", "of"], 0) == ["R1=of", "W=of"]  # no left neighbour
    assert collocations(["a", "line"], 1) == ["L1=a", "W=a"]
    assert collocations(["line"], 0) == []


def test_collocations_reject_a_head_outside_the_context():
    with pytest.raises(ValueError, match="head index 5 is outside the 2 tokens"):
        collocations(["a", "line"], 5)


def test_collocation_matrix_is_the_binary_bag_of_collocations(corpus, data):
    X, names, _ = data
    assert list(names) == sorted(names) and len(set(names)) == len(names)
    assert set(np.unique(X.data)) == {1.0}
    index = {name: j for j, name in enumerate(names)}
    for i in range(0, len(corpus.tokens), 17):
        expected = np.zeros(len(names))
        expected[[index[f] for f in collocations(corpus.tokens[i], corpus.head[i])]] = 1
        np.testing.assert_array_equal(X[i].toarray().ravel(), expected)
    X3, names3 = collocation_matrix(corpus.tokens, corpus.head, min_df=3)
    df = np.asarray((X != 0).sum(axis=0)).ravel()
    assert list(names3) == list(names[df >= 3])
    np.testing.assert_array_equal(X3.toarray(), X[:, df >= 3].toarray())
    with pytest.raises(ValueError, match="3 contexts but 2 head positions"):
        collocation_matrix([["a"]] * 3, [0, 0])


# -- the decision list ---------------------------------------------------------------------------
# rows:   f0 f1 f2   sense
HAND_X = np.array([[1, 1, 0],   # A
                   [1, 0, 0],   # A
                   [1, 0, 1],   # A
                   [0, 1, 1],   # B
                   [0, 0, 1]])  # B
HAND_Y = np.array(["A", "A", "A", "B", "B"])


def test_decision_list_scores_against_a_hand_worked_example():
    """Counts A: f0=3, f1=1, f2=1; B: f0=0, f1=1, f2=2. With alpha = 0.1:
    f0 -> A, log(3.1 / 0.1) = log 31; f1 ties (score log(1.1 / 1.1) = 0: no rule);
    f2 -> B, log(2.1 / 1.1)."""
    model = DecisionList(alpha=0.1).fit(sp.csr_matrix(HAND_X), HAND_Y)
    np.testing.assert_array_equal(model.feature_count_, [[3, 1, 1], [0, 1, 2]])
    np.testing.assert_array_equal(model.class_count_, [3, 2])
    np.testing.assert_array_equal(model.rule_feature_, [0, 2])
    np.testing.assert_array_equal(model.rule_class_, [0, 1])
    np.testing.assert_allclose(model.rule_score_, [np.log(31), np.log(2.1 / 1.1)])
    np.testing.assert_allclose(model.rule_proba(), [[3.1 / 3.2, 0.1 / 3.2], [1.1 / 3.2, 2.1 / 3.2]])

    rows = np.array([[0, 1, 0], [1, 0, 1], [0, 0, 1], [0, 0, 0]])
    np.testing.assert_array_equal(model.first_rule(rows), [-1, 0, 1, -1])
    rule, sense, confidence = model.apply_rules(rows)
    np.testing.assert_array_equal(sense, [-1, 0, 1, -1])
    np.testing.assert_allclose(confidence, [np.nan, 3.1 / 3.2, 2.1 / 3.2, np.nan])
    prior = [3.1 / 5.2, 2.1 / 5.2]  # the smoothed class prior where no rule matches
    np.testing.assert_allclose(model.predict_proba(rows),
                               [prior, [3.1 / 3.2, 0.1 / 3.2], [1.1 / 3.2, 2.1 / 3.2], prior])
    np.testing.assert_array_equal(model.predict(rows), ["A", "A", "B", "A"])


def test_three_senses_score_is_the_log_odds_against_the_rest():
    counts = np.array([[5, 0, 2], [1, 0, 2], [0, 4, 2]])
    features, classes, scores = rank_rules(counts, alpha=0.5)
    # f0: log(5.5 / (1 + 2*0.5)); f1: log(4.5 / 1); f2: every sense 2 -> log(2.5 / 5) < 0: no rule
    np.testing.assert_array_equal(features, [1, 0])
    np.testing.assert_array_equal(classes, [2, 0])
    np.testing.assert_allclose(scores, [np.log(4.5), np.log(5.5 / 2)])
    model = DecisionList(alpha=0.5).fit(
        np.array([[1, 0, 1]] * 2 + [[1, 0, 0]] * 3 + [[1, 0, 1], [0, 0, 1]]
                 + [[0, 1, 1]] * 2 + [[0, 1, 0]] * 2),
        np.array([0] * 5 + [1] * 2 + [2] * 4))
    np.testing.assert_array_equal(model.feature_count_, counts)
    np.testing.assert_allclose(model.rule_proba()[1], np.array([5.5, 1.5, 0.5]) / 7.5)


def test_rule_order_ties_go_to_the_more_frequent_feature_then_the_column():
    counts = np.array([[2, 4, 2, 0, 4],
                       [0, 0, 0, 2, 0]])
    features, classes, scores = rank_rules(counts, alpha=1.0)
    # scores: log(3/1) for f0, f2, f3 (count 2); log(5/1) for f1, f4 (count 4)
    np.testing.assert_array_equal(features, [1, 4, 0, 2, 3])
    np.testing.assert_array_equal(classes, [0, 0, 0, 0, 1])
    assert np.all(np.diff(scores) <= 0)
    features, _, _ = rank_rules(counts, alpha=1.0, min_count=3)
    np.testing.assert_array_equal(features, [1, 4])


def test_first_rule_equals_a_brute_force_search():
    rng = np.random.default_rng(3)
    X = sp.random(300, 40, density=0.08, random_state=4, format="csr")
    y = rng.integers(0, 3, 300)
    model = DecisionList(alpha=0.2).fit(X[:200], y[:200])
    rank = {f: r for r, f in enumerate(model.rule_feature_)}
    expected = []
    for row in X[200:].toarray():
        ranks = [rank[f] for f in np.flatnonzero(row) if f in rank]
        expected.append(min(ranks) if ranks else -1)
    np.testing.assert_array_equal(model.first_rule(X[200:]), expected)
    np.testing.assert_array_equal(model.first_rule(X[200:].toarray()), expected)
    assert (model.first_rule(sp.csr_matrix((5, 40))) == -1).all()


def test_from_counts_gives_the_fitted_list(data):
    X, _, y = data
    model = DecisionList(alpha=0.3, min_count=2).fit(X, y)
    rebuilt = DecisionList.from_counts(model.classes_, model.feature_count_, model.class_count_,
                                       alpha=0.3, min_count=2)
    for name in ("rule_feature_", "rule_class_", "rule_score_"):
        np.testing.assert_array_equal(getattr(rebuilt, name), getattr(model, name))
    np.testing.assert_array_equal(rebuilt.predict_proba(X), model.predict_proba(X))


def test_decision_list_bad_parameters():
    with pytest.raises(ValueError, match="alpha must be a finite number > 0, got 0"):
        DecisionList(alpha=0).fit(HAND_X, HAND_Y)
    with pytest.raises(ValueError, match="min_count must be an integer >= 1, got 0"):
        DecisionList(min_count=0).fit(HAND_X, HAND_Y)
    with pytest.raises(ValueError, match="alpha must be a finite number > 0, got True"):
        DecisionList(alpha=True).fit(HAND_X, HAND_Y)
    with pytest.raises(ValueError, match="alpha must be a finite number > 0, got inf"):
        DecisionList.from_counts(["A", "B"], np.ones((2, 3)), np.ones(2), alpha=np.inf)


def test_presence_matrix_marks_the_non_zero_entries():
    X = np.array([[0.0, 2.5, -1.0], [0.0, 0.0, 0.0], [3.0, 0.0, 0.0]])
    B = presence_matrix(sp.csr_matrix(X))
    assert sp.isspmatrix_csr(B) and B.dtype == np.float64 and B.has_sorted_indices
    np.testing.assert_array_equal(B.toarray(), (X != 0).astype(float))
    np.testing.assert_array_equal(presence_matrix(X).toarray(), (X != 0).astype(float))


def test_top_rules(data):
    X, names, y = data
    model = DecisionList().fit(X, y)
    rules = top_rules(model, names, k=5)
    assert len(rules) == 5
    for rule, f, c, score in zip(rules, model.rule_feature_, model.rule_class_,
                                 model.rule_score_, strict=False):
        assert rule.feature == names[f] and rule.sense == model.classes_[c]
        assert rule.score == score and rule.count == model.feature_count_[:, f].sum()
        assert rule.confidence == pytest.approx(1 / (1 + np.exp(-score)))  # p = sigmoid(score)
    with pytest.raises(ValueError, match="3 feature names for a list over"):
        top_rules(model, names[:3])


# -- the Yarowsky loop ---------------------------------------------------------------------------
def fit(data, **params):
    X, names, _ = data
    return Yarowsky(params.pop("seeds", SEEDS), **params).fit(X, feature_names=names)


def has(data, feature):
    X, names, _ = data
    return X[:, list(names).index(feature)].toarray().ravel() > 0


def test_iteration_zero_labels_the_seed_instances(data):
    model = fit(data)
    a0, b0 = has(data, "W=a0"), has(data, "W=b0")
    expected = np.where(a0 & ~b0, 0, np.where(b0 & ~a0, 1, -1))
    np.testing.assert_array_equal(model.trace_[0].labels, expected)
    np.testing.assert_array_equal(model.seed_labels_, expected)
    assert model.n_seed_conflicts_ == np.sum(a0 & b0) >= 3
    np.testing.assert_array_equal(model.trace_[0].added, np.flatnonzero(expected >= 0))
    assert list(model.classes_) == ["a", "b"]


def test_labels_in_y_are_fixed_and_win_over_seeds(data):
    X, names, y = data
    y_semi = np.full(len(y), -1, dtype=object)
    y_semi[:5] = y[:5]
    conflict = np.flatnonzero(has(data, "W=a0") & ~has(data, "W=b0"))[-1]  # a seed says "a"
    y_semi[conflict] = "b"
    model = Yarowsky(SEEDS, mode="rejudge").fit(X, y_semi, feature_names=names)
    for step in model.trace_:
        np.testing.assert_array_equal(model.classes_[step.labels[:5]], y[:5])
        assert model.classes_[step.labels[conflict]] == "b"


@pytest.mark.parametrize("mode", ["keep", "rejudge"])
@pytest.mark.parametrize("threshold", [0.6, 0.9, 0.97])
def test_trace_is_honest(data, mode, threshold):
    """Labels at iteration t = the seeds plus what a decision list, fitted independently on the
    labels of iteration t-1, classifies above the threshold ("keep": plus the old labels)."""
    X, names, _ = data
    model = fit(data, threshold=threshold, mode=mode)
    assert len(model.trace_) >= 2
    seeds = model.seed_labels_
    for previous, step in zip(model.trace_, model.trace_[1:], strict=False):
        rows = previous.labeled
        reference = DecisionList(alpha=0.1).fit(X[rows], model.classes_[previous.labels[rows]])
        proba = reference.predict_proba(X)
        rule = reference.first_rule(X)
        confident = (rule >= 0) & (proba.max(axis=1) > threshold)
        expected = previous.labels.copy() if mode == "keep" else np.full(len(seeds), -1)
        open_rows = confident & ((previous.labels == -1) if mode == "keep" else True)
        expected[open_rows] = np.argmax(proba, axis=1)[open_rows]
        expected[seeds >= 0] = seeds[seeds >= 0]
        np.testing.assert_array_equal(step.labels, expected)
        # the list recorded at t is the one trained on the labels of t
        trained = DecisionList(alpha=0.1).fit(X[step.labeled],
                                              model.classes_[step.labels[step.labeled]])
        np.testing.assert_array_equal(step.feature_count, trained.feature_count_)
        np.testing.assert_array_equal(step.rule_feature, trained.rule_feature_[:30])
        np.testing.assert_allclose(step.rule_score, trained.rule_score_[:30])
        assert step.n_rules == len(trained.rule_feature_)
        # what changed
        was, now = previous.labels >= 0, step.labels >= 0
        np.testing.assert_array_equal(step.added, np.flatnonzero(now & ~was))
        np.testing.assert_array_equal(step.removed, np.flatnonzero(was & ~now))
        np.testing.assert_array_equal(
            step.relabeled, np.flatnonzero(was & now & (step.labels != previous.labels)))
        assert step.coverage == pytest.approx(now.mean())
    np.testing.assert_array_equal(model.labels_, model.trace_[-1].labels)
    np.testing.assert_array_equal(model.predict(X), decision_list_at(model).predict(X))


@pytest.mark.parametrize("threshold", [0.6, 0.9, 0.97])
def test_keep_only_grows_the_labeled_set(data, threshold):
    model = fit(data, threshold=threshold, mode="keep")
    coverage = model.trace_.values("coverage")
    assert np.all(np.diff(coverage) > 0)  # a round that adds nothing ends the loop
    for previous, step in zip(model.trace_, model.trace_[1:], strict=False):
        kept = previous.labeled
        np.testing.assert_array_equal(step.labels[kept], previous.labels[kept])
        assert len(step.removed) == 0 and len(step.relabeled) == 0
        assert len(step.added) > 0


def test_rejudge_can_withdraw_and_change_labels_but_never_the_seeds(data):
    model = fit(data, threshold=0.6, mode="rejudge")
    changes = sum(len(s.removed) + len(s.relabeled) for s in model.trace_)
    assert changes > 0
    seeds = model.seed_labels_ >= 0
    for step in model.trace_:
        np.testing.assert_array_equal(step.labels[seeds], model.seed_labels_[seeds])


@pytest.mark.parametrize("mode", ["keep", "rejudge"])
def test_convergence_is_a_fixed_point(data, mode):
    X, _, _ = data
    model = fit(data, threshold=0.9, mode=mode, max_iter=50)
    assert model.converged_ and model.n_iter_ == len(model.trace_) - 1
    again = Yarowsky(SEEDS, threshold=0.9, mode=mode, max_iter=model.n_iter_ + 1)
    again.fit(X, feature_names=data[1])
    assert again.converged_ and len(again.trace_) == len(model.trace_)
    short = fit(data, threshold=0.9, mode=mode, max_iter=1)
    assert short.n_iter_ == 1 and len(short.trace_) == 2 and not short.converged_
    np.testing.assert_array_equal(short.trace_[1].labels, model.trace_[1].labels)


def test_labels_spread_from_the_seeds_and_are_mostly_right(data):
    _, _, y = data
    model = fit(data, threshold=0.9)
    coverage = model.trace_.values("coverage")
    assert coverage[0] < 0.25 and coverage[-1] > 0.9
    accuracy = label_accuracy(model, y)
    assert accuracy[0] > 0.9 and accuracy[-1] > 0.75


def test_accuracy_helpers_match_a_direct_computation(data):
    X, _, y = data
    model = fit(data, threshold=0.9, mode="rejudge")
    expected_test, expected_labels = [], []
    for step in model.trace_:
        rows = step.labeled
        labels = model.classes_[step.labels[rows]]
        expected_labels.append(np.mean(labels == y[rows]))
        expected_test.append(np.mean(DecisionList().fit(X[rows], labels).predict(X) == y))
    np.testing.assert_allclose(label_accuracy(model, y), expected_labels)
    np.testing.assert_allclose(accuracy_by_iteration(model, X, y), expected_test)
    with pytest.raises(ValueError, match="y has 3 entries but the model was fitted on"):
        label_accuracy(model, y[:3])


def test_seed_rules_by_column_index_and_a_single_string(data):
    X, names, _ = data
    by_name = fit(data)
    columns = {s: [list(names).index(r) for r in rules] for s, rules in SEEDS.items()}
    by_index = Yarowsky(columns).fit(X)
    single = Yarowsky({s: rules[0] for s, rules in SEEDS.items()}).fit(X, feature_names=names)
    for model in (by_index, single):
        np.testing.assert_array_equal(model.labels_, by_name.labels_)


def test_wrong_labels_are_the_labeled_instances_off_their_gold_sense(data):
    _, _, y = data
    model = fit(data, threshold=0.6, mode="rejudge")
    for iteration, step in enumerate(model.trace_):
        expected = [i for i in range(len(y))
                    if step.labels[i] >= 0 and model.classes_[step.labels[i]] != y[i]]
        wrong = wrong_labels(model, y, iteration)
        np.testing.assert_array_equal(wrong, expected)
        assert len(wrong) / step.n_labeled == pytest.approx(
            1 - label_accuracy(model, y)[iteration])
    last = len(model.trace_) - 1
    np.testing.assert_array_equal(wrong_labels(model, y), wrong_labels(model, y, last))
    assert len(wrong_labels(model, y)) > 0


# -- bad input -----------------------------------------------------------------------------------
@pytest.mark.parametrize("params, message", [
    ({"threshold": 0.4}, r"threshold must lie in \[0.5, 1\) .* got 0.4"),
    ({"threshold": 1.0}, r"threshold must lie in \[0.5, 1\) .* got 1.0"),
    ({"mode": "grow"}, r"mode must be one of \['keep', 'rejudge'\], got 'grow'"),
    ({"max_iter": -1}, "max_iter must be an integer >= 0, got -1"),
    ({"alpha": -1}, "alpha must be a finite number > 0, got -1"),
    ({"max_iter": True}, "max_iter must be an integer >= 0, got True"),
    ({"min_count": 1.0}, "min_count must be an integer >= 1, got 1.0"),
    ({"seeds": ["W=a0"]}, r"seeds must be a dict mapping each sense to its seed rules"),
    ({"seeds": {"a": ["W=a0"], "c": ["W=b0"]}, "classes": ["a", "b"]},
     r"seed sense\(s\) \['c'\] are not in classes=\['a', 'b'\]"),
    ({"seeds": {"a": ["W=a0"], "b": ["W=telefone"]}},
     r"seed rule 'W=telefone' is not a feature; features look like"),
    ({"seeds": {"a": ["W=a0"], "b": []}}, "sense 'b' has an empty list of seed rules"),
    ({"seeds": {"a": ["W=a0"]}},
     r"Yarowsky needs at least two senses \(classes\), got 1 class\(es\): \['a'\]"),
    ({"seeds": {"a": ["W=a0"], "b": [10**6]}}, "seed rule column 1000000 is out of range"),
    ({"seeds": {"a": ["W=a0"], "b": ["W=b0"], "c": ["W=a0"]}},
     r"no instance has a label for sense\(s\) \['a', 'c'\] at iteration 0"),
])
def test_bad_input_is_refused_with_a_clear_message(data, params, message):
    with pytest.raises(ValueError, match=message):
        fit(data, **params)


def test_seed_rule_matching_nothing(data):
    X, names, _ = data
    empty = sp.hstack([X, sp.csr_matrix((X.shape[0], 1))]).tocsr()
    with pytest.raises(ValueError, match=r"seed rule 'W=never' of sense 'b' matches no instance"):
        Yarowsky({"a": ["W=a0"], "b": ["W=never"]}).fit(
            empty, feature_names=list(names) + ["W=never"])


def test_names_needed_for_named_seeds_and_labels_must_be_known(data):
    X, names, y = data
    with pytest.raises(ValueError, match="seed rule 'W=a0' is a feature name: pass feature_names"):
        Yarowsky(SEEDS).fit(X)
    y_semi = np.full(len(y), -1, dtype=object)
    y_semi[0] = "z"
    with pytest.raises(ValueError, match=r"y holds labels \['z'\] that are not in classes"):
        Yarowsky(SEEDS, classes=["a", "b"]).fit(X, y_semi, feature_names=names)
    y_text = np.where(np.arange(len(y)) < 5, y, "-1")  # np.asarray(["a", -1]) makes "-1"
    with pytest.raises(ValueError, match="y holds the string '-1'"):
        Yarowsky(SEEDS).fit(X, y_text, feature_names=names)
    with pytest.raises(ValueError, match=r"y must have shape \(163,\)"):
        Yarowsky(SEEDS).fit(X, y[:10], feature_names=names)
