"""Class associations before and after EM, against MultinomialNB and hand computations."""

import numpy as np
import pytest
from sklearn.naive_bayes import MultinomialNB
from synthetic import HIDDEN_TEST_ROWS, HIDDEN_WORDS, hidden_word_corpus

import sslviz.experiments.what_is_ssl as wa
from sslviz.experiments.what_is_ssl import (
    cached_word_associations,
    rank_new_words,
    word_association,
    word_indices,
    word_story,
)
from sslviz.text import TextOptions, load_counts
from sslviz.words import log_odds_pair

N_LABELED, SEED, ALPHA = 4, 0, 0.1
TEST_ROWS, HIDDEN = HIDDEN_TEST_ROWS, HIDDEN_WORDS  # HIDDEN: one word per class, never labeled


@pytest.fixture(scope="module")
def corpus():
    return hidden_word_corpus()


@pytest.fixture(scope="module")
def result(corpus):
    return word_association(corpus.X, corpus.y, n_labeled=N_LABELED, seed=SEED,
                            test_rows=TEST_ROWS, alpha=ALPHA, max_iter=10)


def smoothed_prior(y, alpha):
    counts = np.bincount(y, minlength=2)
    return (counts + alpha) / (counts.sum() + 2 * alpha)


def test_associations_equal_multinomial_nb(corpus, result):
    X, y = corpus.X, corpus.y
    split = result.split
    labeled_nb = MultinomialNB(alpha=ALPHA).fit(X[split.labeled], y[split.labeled])
    np.testing.assert_allclose(result.before, labeled_nb.feature_log_prob_[0]
                               - labeled_nb.feature_log_prob_[1], atol=1e-12)
    all_nb = MultinomialNB(alpha=ALPHA).fit(X[split.train], y[split.train])
    np.testing.assert_allclose(result.reference, all_nb.feature_log_prob_[0]
                               - all_nb.feature_log_prob_[1], atol=1e-12)
    last = result.model.trace_[-1].feature_log_prob
    np.testing.assert_allclose(result.after, last[0] - last[1])
    np.testing.assert_array_equal(log_odds_pair(last, (1, 0)), -result.after)
    assert len(split.labeled) == N_LABELED and len(split.test) == len(TEST_ROWS)
    np.testing.assert_array_equal(result.labeled_df, (X[split.labeled] > 0).sum(axis=0).A1)
    np.testing.assert_array_equal(result.unlabeled_df, (X[split.unlabeled] > 0).sum(axis=0).A1)


def test_before_em_every_absent_word_scores_the_same_smoothing_constant(corpus, result):
    """a0(w) = log((T2 + alpha |V|) / (T1 + alpha |V|)) for every word of no labeled document."""
    X, y = corpus.X, corpus.y
    labeled = result.split.labeled
    totals = [X[labeled[y[labeled] == c]].sum() for c in (0, 1)]
    n_words = X.shape[1]
    expected = np.log((totals[1] + ALPHA * n_words) / (totals[0] + ALPHA * n_words))
    assert result.absent[list(HIDDEN)].all()
    np.testing.assert_allclose(result.before[result.absent], expected, atol=1e-12)


def test_em_gives_the_never_labeled_words_their_class(result):
    assert result.after[HIDDEN[0]] > 2 and result.after[HIDDEN[1]] < -2
    assert np.sign(result.reference[HIDDEN[0]]) == 1 and np.sign(result.reference[HIDDEN[1]]) == -1
    assert result.test_accuracy[-1] >= result.test_accuracy[0]


def brute_force_ranking(result, min_df):
    """The documented rule, written as a loop over the words."""
    log_prob = result.model.trace_[-1].feature_log_prob
    chosen = []
    for w in range(len(result.after)):
        if result.labeled_df[w] != 0 or result.unlabeled_df[w] < min_df:
            continue
        if result.after[w] == 0 or np.sign(result.after[w]) != np.sign(result.reference[w]):
            continue
        pointed = 0 if result.after[w] > 0 else 1
        chosen.append((-np.exp(log_prob[pointed, w]) * abs(result.after[w]), w))
    return [w for _, w in sorted(chosen)]


@pytest.mark.parametrize("min_df", [1, 10, 60])
def test_ranking_follows_the_documented_rule(result, min_df):
    ranked = rank_new_words(result, min_df=min_df)
    assert ranked.tolist() == brute_force_ranking(result, min_df)
    assert rank_new_words(result, min_df=min_df, k=1).tolist() == ranked[:1].tolist()
    if min_df <= 60:
        assert set(HIDDEN) <= set(ranked.tolist())


def test_word_story_numbers_against_independent_computations(corpus, result):
    X, y = corpus.X, corpus.y
    w = HIDDEN[1]
    story = word_story(result, X, w, k=3)
    unlabeled = result.split.unlabeled
    containing = [i for i, row in enumerate(unlabeled) if X[row, w] > 0]
    assert story.n_unlabeled_docs == len(containing) and story.n_labeled_docs == 0
    assert story.pointed_class == 1
    assert (story.before, story.after, story.reference) == (
        result.before[w], result.after[w], result.reference[w])
    labeled = result.split.labeled
    nb = MultinomialNB(alpha=ALPHA, class_prior=smoothed_prior(y[labeled], ALPHA))
    nb.fit(X[labeled], y[labeled])
    share = nb.predict_proba(X[unlabeled[containing]])[:, 1].mean()
    assert story.share_before == pytest.approx(share, rel=1e-5)  # posteriors are float32
    assert story.share_after > story.share_before
    # evidence: -(sum over those documents of N(v, x)) * a0(v), largest first, seen words only
    counts = np.asarray(X[unlabeled[containing]].sum(axis=0)).ravel()
    contribution = -counts * result.before
    seen = np.flatnonzero(result.labeled_df > 0)
    best = sorted(((contribution[v], v) for v in seen if contribution[v] > 0), reverse=True)[:3]
    assert [v for v, _ in story.evidence] == [v for _, v in best]
    np.testing.assert_allclose([c for _, c in story.evidence], [c for c, _ in best])
    assert all(corpus.vocabulary[v].startswith("b") for v, _ in story.evidence)


def test_word_indices_and_its_error(corpus):
    np.testing.assert_array_equal(word_indices(corpus.vocabulary, ["a0", "hidden_b"]),
                                  [0, HIDDEN[1]])
    with pytest.raises(ValueError, match=r"not in the vocabulary: \['orbit'\] \(words are "
                                         r"lower-case, digits are written D"):
        word_indices(corpus.vocabulary, ["a0", "orbit"])


@pytest.mark.parametrize("call, message", [
    (lambda r, c: rank_new_words(r, min_df=0), r"min_df must be an integer >= 1, got 0"),
    (lambda r, c: rank_new_words(r, min_df=True), r"min_df must be an integer >= 1, got True"),
    (lambda r, c: word_story(r, c.X, 10_000), r"index must be an integer in \[0, 23\], "
                                              r"got 10000"),
    (lambda r, c: word_association(c.X, c.y, n_labeled=4, seed=0, test_rows=TEST_ROWS,
                                   pair=(0, 5)),
     r"pair must be two different class indices in \[0, 1\], got \(0, 5\)"),
    (lambda r, c: word_association(c.X, c.y, n_labeled=4, seed=0, test_rows=TEST_ROWS,
                                   pair="ab"),
     r"pair must be two different class indices in \[0, 1\], got 'ab'"),
])
def test_bad_arguments_are_refused(result, corpus, call, message, monkeypatch):
    monkeypatch.setattr(wa, "em_run", lambda *a, **k: pytest.fail("ran EM before checking"))
    with pytest.raises(ValueError, match=message):
        call(result, corpus)


def test_another_pair_flips_every_association(corpus, result):
    flipped = word_association(corpus.X, corpus.y, n_labeled=N_LABELED, seed=SEED,
                               test_rows=TEST_ROWS, alpha=ALPHA, pair=(1, 0))
    assert flipped.pair == (1, 0)
    for name in ("before", "after", "reference"):
        np.testing.assert_allclose(getattr(flipped, name), -getattr(result, name))
    assert rank_new_words(flipped).tolist() == rank_new_words(result).tolist()


def test_cached_associations_fit_once_per_setting(corpus, monkeypatch):
    calls = []
    real = wa.word_association
    monkeypatch.setattr(wa, "word_association",
                        lambda X, y, **k: calls.append((k["n_labeled"], k["seed"]))
                        or real(X, y, **k))
    fits = cached_word_associations(corpus.X, corpus.y, test_rows=TEST_ROWS)
    first = fits(4, 0)
    assert fits(4, 0) is first
    fits(6, 0)
    assert calls == [(4, 0), (6, 0)]


def test_on_20_newsgroups_em_teaches_a_word_no_labeled_post_contains(real_data_dir,
                                                                     monkeypatch):
    monkeypatch.setenv("SSLVIZ_DATA", str(real_data_dir))
    news = load_counts("20newsgroups", TextOptions(stop_words="smart"),
                       categories=["rec.autos", "sci.space"])
    test = np.flatnonzero(np.char.startswith(news.filenames, "20news-bydate-test"))
    result = word_association(news.X, news.y, n_labeled=8, seed=0, test_rows=test)
    word = rank_new_words(result)[0]
    assert result.labeled_df[word] == 0 and result.unlabeled_df[word] >= 10
    assert abs(result.after[word]) > 3 > abs(result.before[word])
    assert np.sign(result.after[word]) == np.sign(result.reference[word])
    assert result.test_accuracy[-1] > result.test_accuracy[0] + 0.1


def test_chosen_alpha_is_picked_on_the_labeled_documents_and_shared_by_nb_and_em(corpus):
    from scipy.special import gammaln

    from sslviz.tuning import ALPHA_GRID, choose_nb_alpha

    chosen = word_association(corpus.X, corpus.y, n_labeled=8, seed=SEED, test_rows=TEST_ROWS,
                              alpha="chosen", max_iter=10)
    split = chosen.split
    X_lab, y_lab = corpus.X[split.labeled], corpus.y[split.labeled]

    def evidence(alpha):  # Dirichlet-multinomial marginal likelihood, written out per word
        total, n_words = 0.0, X_lab.shape[1]
        for c in np.unique(y_lab):
            counts = np.asarray(X_lab[y_lab == c].sum(axis=0)).ravel()
            total += gammaln(n_words * alpha) - gammaln(n_words * alpha + counts.sum())
            total += sum(gammaln(alpha + n) - gammaln(alpha) for n in counts)
        return total

    choice = choose_nb_alpha(X_lab, y_lab)
    values = [c["alpha"] for c in choice.candidates]  # ALPHA_GRID, extended to an interior best
    assert set(ALPHA_GRID) <= set(values)
    scores = np.array([evidence(a) for a in values])
    np.testing.assert_allclose(choice.scores, scores)
    alpha = values[int(np.argmax(scores))]
    assert min(values) < alpha < max(values)
    assert chosen.model.alpha == alpha
    labeled_nb = MultinomialNB(alpha=alpha).fit(X_lab, y_lab)  # iteration 0 uses the same α
    np.testing.assert_allclose(chosen.before, labeled_nb.feature_log_prob_[0]
                               - labeled_nb.feature_log_prob_[1], atol=1e-12)
    fixed = word_association(corpus.X, corpus.y, n_labeled=8, seed=SEED, test_rows=TEST_ROWS,
                             alpha=alpha, max_iter=10)
    np.testing.assert_array_equal(chosen.test_accuracy, fixed.test_accuracy)
    np.testing.assert_array_equal(chosen.reference, fixed.reference)
