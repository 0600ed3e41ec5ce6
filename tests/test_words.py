"""Word rankings and class associations against hand-worked cases and direct formulas."""

from __future__ import annotations

import numpy as np
import pytest

from sslviz.words import (
    log_odds_pair,
    log_odds_vs_rest,
    log_prob_rest,
    top_indices,
    top_words,
    weighted_log_odds,
)

# Three classes over four words; priors 1/2, 1/4, 1/4.
P = np.array([[0.4, 0.3, 0.2, 0.1],
              [0.1, 0.1, 0.4, 0.4],
              [0.25, 0.25, 0.25, 0.25]])
PRIOR = np.array([0.5, 0.25, 0.25])


def test_top_words_ties_keep_column_order():
    names = ["a", "b", "c", "d"]
    assert top_words([1, 3, 3, 0], names, 3) == ["b", "c", "a"]
    assert top_words(np.array([[0, 1, 2, 3], [3, 2, 1, 0]]), names, 2) == [["d", "c"],
                                                                          ["a", "b"]]
    np.testing.assert_array_equal(top_indices(np.array([5, 5, 1]), 2), [0, 1])
    with pytest.raises(ValueError, match="3 feature names for scores of 4 words"):
        top_words([1, 2, 3, 4], names[:3], 2)


def test_rest_mixes_the_other_classes_by_their_priors():
    # not class 0: classes 1 and 2 with priors 0.25/0.5 each -> equal weights
    expected = 0.5 * P[1] + 0.5 * P[2]
    np.testing.assert_allclose(np.exp(log_prob_rest(np.log(P), np.log(PRIOR), 0)), expected)
    # not class 1: class 0 (2/3) and class 2 (1/3)
    expected = 2 / 3 * P[0] + 1 / 3 * P[2]
    np.testing.assert_allclose(np.exp(log_prob_rest(np.log(P), np.log(PRIOR), 1)), expected)


def test_log_odds_and_nigams_weighted_log_odds():
    rest = 0.5 * P[1] + 0.5 * P[2]
    np.testing.assert_allclose(log_odds_vs_rest(np.log(P), np.log(PRIOR), 0),
                               np.log(P[0] / rest))
    weighted = weighted_log_odds(np.log(P), np.log(PRIOR))
    assert weighted.shape == P.shape
    np.testing.assert_allclose(weighted[0], P[0] * np.log(P[0] / rest))


def test_log_odds_pair():
    np.testing.assert_allclose(log_odds_pair(np.log(P), (1, 0)), np.log(P[1] / P[0]))
    for bad in [(0, 0), (0, 3), (0,), (0.0, 1)]:
        with pytest.raises(ValueError, match=r"pair must be two different class indices in "
                                             r"\[0, 2\]"):
            log_odds_pair(np.log(P), bad)
