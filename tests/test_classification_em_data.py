"""The Reuters sentence-extraction analog: splitting, features, relevance, average precision."""

import numpy as np
import pytest
from sklearn.metrics import average_precision_score

from sslviz.datasets.reuters_sentences import (
    average_precision,
    content_words,
    headline_overlap,
    load_reuters_sentences,
    sentence_features,
    split_sentences,
    split_stories,
    stem,
)

BODY = """The U.S. Treasury said Mr. Baker met Japanese officials in Washington on
Tuesday. Shares of Acme Corp. rose 3.5 pct to 41 dlrs.
    Acme said profits rose to 12 mln dlrs, and Acme expects growth.
    "We are pleased," a spokesman said. Is it done? Yes it is.
 Reuter
&#3;"""


def test_sentences_split_at_full_stops_but_not_after_abbreviations_or_initials():
    assert split_sentences(BODY) == [
        "The U.S. Treasury said Mr. Baker met Japanese officials in Washington on Tuesday.",
        "Shares of Acme Corp. rose 3.5 pct to 41 dlrs.",
        "Acme said profits rose to 12 mln dlrs, and Acme expects growth.",
        '"We are pleased," a spokesman said.',
        "Is it done?",
        "Yes it is.",
    ]


def test_content_words_drop_stop_words_fillers_and_numbers_and_stem_plurals():
    assert stem("Shares") == "share" and stem("Companies") == "company" and stem("loss") == "loss"
    assert content_words("ACME SAYS PROFITS ROSE 12 PCT IN 1986") == ["acme", "profit", "rose"]


def test_headline_overlap_is_the_share_of_headline_content_words_in_each_sentence():
    sentences = ["Acme profits rose sharply.", "Nothing related here at all.", "Acme fell."]
    np.testing.assert_allclose(headline_overlap("ACME PROFITS ROSE", sentences), [1, 0, 1 / 3])


def test_features_by_hand():
    sentences = split_sentences(BODY)
    features = sentence_features(sentences)
    assert features.shape == (6, 5)
    np.testing.assert_allclose(features[:, 0], np.log1p(np.arange(6)))  # position
    assert features[1, 1] == pytest.approx(np.log1p(10))  # Shares of Acme Corp rose 3.5 pct ...
    # content words of sentence 1: share, acme, rose ("corp", "pct", "dlrs" are fillers);
    # "acme" (3 times) and "rose" (twice) are the story's recurring content words
    assert features[1, 2] == pytest.approx(2 / 3)
    assert features[2, 3] == 1  # "Acme" after the first word, seen twice in the story
    assert features[1, 4] == 2 and features[0, 4] == 0  # numbers: 3.5 and 41


def test_split_stories_thirds_and_labeled_fraction_in_stories():
    story = np.repeat(np.arange(30), 4)
    split = split_stories(story, 0.2, random_state=0)
    train_stories = np.unique(story[split.train])
    assert len(train_stories) == 10 and len(np.unique(story[split.test])) == 20
    assert len(np.unique(story[split.labeled])) == 2
    assert not set(split.train) & set(split.test)
    assert len(split.train) + len(split.test) == len(story)
    again = split_stories(story, 0.2, random_state=0)
    np.testing.assert_array_equal(split.labeled, again.labeled)
    with pytest.raises(ValueError, match="labeled_fraction must be a finite number"):
        split_stories(story, 0.0)


def test_ir_average_precision_equals_scikit_learn_per_story_with_and_without_ties():
    rng = np.random.default_rng(0)
    story = np.repeat(np.arange(12), 7)
    relevant = (rng.random(len(story)) < 0.3).astype(int)
    relevant[::7] = 1  # every story has a relevant sentence
    for scores in (rng.normal(size=len(story)), rng.integers(0, 3, len(story)).astype(float)):
        mean, values = average_precision(scores, relevant, story)
        expected = [average_precision_score(relevant[story == s], scores[story == s])
                    for s in range(12)]
        np.testing.assert_allclose(values, expected)
        assert mean == pytest.approx(np.mean(expected))


def _average_precision_story_by_story(scores, relevant, story, reading):
    """The measure computed one story at a time, the plain way (reference for the vectorized
    one)."""
    values = []
    for name in np.unique(story):
        rows = np.flatnonzero(story == name)
        rel = relevant[rows].astype(bool)
        order = np.argsort(-scores[rows], kind="stable")
        hits = np.cumsum(rel[order])
        precision = hits / np.arange(1, len(rows) + 1)
        if not rel.any():
            values.append(np.nan)
        elif reading == "all_k":
            values.append(precision.mean())
        else:
            ranked = scores[rows][order]
            ends = np.flatnonzero(np.r_[ranked[1:] != ranked[:-1], True])
            values.append(np.sum(np.diff(np.r_[0, hits[ends]]) * precision[ends]) / rel.sum())
    return np.array(values)


@pytest.mark.parametrize("reading", ["ir", "all_k"])
def test_average_precision_of_every_story_at_once_equals_story_by_story(reading):
    rng = np.random.default_rng(1)
    for trial in range(60):
        n = int(rng.integers(1, 120))
        story = rng.integers(0, int(rng.integers(1, 15)), n) * 7 - 5  # unsorted, negative
        relevant = (rng.random(n) < rng.random()).astype(int)
        scores = (rng.integers(0, 3, n).astype(float) if trial % 2 else rng.normal(size=n))
        expected = _average_precision_story_by_story(scores, relevant, story, reading)
        if np.all(np.isnan(expected)):
            continue
        mean, values = average_precision(scores, relevant, story, reading=reading)
        np.testing.assert_allclose(values, expected, rtol=1e-13, atol=1e-15)
        assert mean == pytest.approx(np.nanmean(expected), rel=1e-13)


def test_all_k_reading_by_hand_and_stories_without_relevant_sentences_are_left_out():
    scores = np.array([3.0, 2.0, 1.0, 5.0, 4.0])
    relevant = np.array([0, 1, 1, 0, 0])
    story = np.array([0, 0, 0, 1, 1])
    mean, values = average_precision(scores, relevant, story, reading="all_k")
    assert values[0] == pytest.approx((0 + 1 / 2 + 2 / 3) / 3) and np.isnan(values[1])
    assert mean == pytest.approx(values[0])
    ir, _ = average_precision(scores, relevant, story)
    assert ir == pytest.approx((1 / 2 + 2 / 3) / 2)
    with pytest.raises(ValueError, match=r"reading must be one of \['ir', 'all_k'\]"):
        average_precision(scores, relevant, story, reading="mean")
    with pytest.raises(ValueError, match="finite log-odds"):
        average_precision(np.array([np.inf, 1, 1, 1, 1.0]), relevant, story)


def test_real_analog(real_data_dir):
    corpus = load_reuters_sentences(n_stories=1000, data_dir=real_data_dir)
    assert corpus.n_stories == 1000 and corpus.features.shape == (len(corpus.story), 5)
    counts = np.bincount(corpus.story)
    assert counts.min() >= 5 and counts.max() <= 30
    np.testing.assert_array_equal(corpus.index[corpus.story == 0], np.arange(counts[0]))
    relevant = corpus.relevant(0.5)
    assert 0.1 < relevant.mean() < 0.25  # a minority class, as in an extract summary
    assert relevant[corpus.index == 0].mean() > 0.5  # newswire puts the news first
    with pytest.raises(ValueError, match="threshold must be a finite number <= 1 > 0, got 0.0"):
        corpus.relevant(0.0)
