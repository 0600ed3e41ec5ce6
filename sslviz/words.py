"""Words ranked by a model: top-k lists and the association of a word with a class.

Pure functions over a Naive Bayes model's parameters, ``feature_log_prob`` (log P(w|c), shape
(n_classes, n_words)) and ``class_log_prior`` (log P(c)). Lectures 01, 04, 05 and 06 all rank
words this way; this module is the one place that does it.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from .validation import check_int

__all__ = ["log_odds_pair", "log_odds_vs_rest", "log_prob_rest", "top_indices", "top_words",
           "weighted_log_odds"]


def top_indices(scores, k):
    """Indices of the ``k`` highest scores, best first; ties keep the column order.

    ``scores`` of shape (n_words,) gives shape (k,); (n_rows, n_words) gives (n_rows, k).
    ``k`` is a non-negative integer (more than n_words gives all of them).
    """
    k = check_int("k", k, minimum=0)
    scores = np.asarray(scores)
    return np.argsort(-scores, axis=-1, kind="stable")[..., :k]


def top_words(scores, feature_names, k):
    """The ``k`` best-scored words: a list for 1-D ``scores``, a list of lists for 2-D."""
    names = np.asarray(feature_names)
    scores = np.asarray(scores)
    if len(names) != scores.shape[-1]:
        raise ValueError(f"{len(names)} feature names for scores of {scores.shape[-1]} words")
    return names[top_indices(scores, k)].tolist()


def log_prob_rest(feature_log_prob, class_log_prior, target):
    """log P(w | not c): the other classes' word distributions mixed by their priors."""
    feature_log_prob = np.asarray(feature_log_prob)
    class_log_prior = np.asarray(class_log_prior)
    check_int("target", target, minimum=0, maximum=len(class_log_prior) - 1)
    others = np.arange(len(class_log_prior)) != target
    other_prior = class_log_prior[others] - logsumexp(class_log_prior[others])
    return logsumexp(feature_log_prob[others] + other_prior[:, None], axis=0)


def log_odds_vs_rest(feature_log_prob, class_log_prior, target):
    """``log P(w|c) - log P(w|not c)`` for every word (positive: evidence for ``target``)."""
    check_int("target", target, minimum=0, maximum=len(np.asarray(class_log_prior)) - 1)
    return (np.asarray(feature_log_prob)[target]
            - log_prob_rest(feature_log_prob, class_log_prior, target))


def weighted_log_odds(feature_log_prob, class_log_prior):
    """Nigam's P(w|c) log(P(w|c)/P(w|not c)) for each class and word: (n_classes, n_words)."""
    feature_log_prob = np.asarray(feature_log_prob)
    return np.stack([np.exp(feature_log_prob[c])
                     * log_odds_vs_rest(feature_log_prob, class_log_prior, c)
                     for c in range(len(class_log_prior))])


def log_odds_pair(feature_log_prob, pair=(0, 1)):
    """``log P(w|c1) - log P(w|c2)`` for every word; ``pair`` holds the row indices (c1, c2).

    Positive values point to c1, negative ones to c2.
    """
    feature_log_prob = np.asarray(feature_log_prob)
    n_classes = feature_log_prob.shape[0]
    if (len(pair) != 2 or pair[0] == pair[1]
            or not all(isinstance(c, int | np.integer) and 0 <= c < n_classes for c in pair)):
        raise ValueError(f"pair must be two different class indices in [0, {n_classes - 1}], "
                         f"got {pair!r}")
    return feature_log_prob[pair[0]] - feature_log_prob[pair[1]]
