"""Synthetic corpora shared by the tests: topics with their own words, and a planted fluke word."""

import numpy as np
import scipy.sparse as sp

from sslviz.experiments.feature_selection import sweep_split


def topic_corpus(n_docs=240, n_words=40, n_labeled=24, seed=0, *, n_topics=3,
                 words_per_topic=6, background=0.3, topic_rate=2.0):
    """Poisson word counts; document ``i`` is of topic ``i % n_topics``.

    Returns ``(X, y, y_semi)``: csr counts, true topics, and topics with ``-1`` on every row from
    ``n_labeled`` on (the first ``n_labeled`` rows are the labeled ones).
    """
    rng = np.random.default_rng(seed)
    y = np.arange(n_docs) % n_topics
    rates = np.full((n_topics, n_words), background)
    for topic in range(n_topics):
        rates[topic, topic * words_per_topic:(topic + 1) * words_per_topic] = topic_rate
    X = sp.csr_matrix(rng.poisson(rates[y]).astype(float))
    y_semi = y.copy()
    y_semi[n_labeled:] = -1
    return X, y, y_semi


def astray_corpus():
    """Class 0 has its words 0-5; class 1 its words 6-11, except for a sub-topic (every fourth
    document) written with words 12-17 and word 24 ("fluke"). By coincidence the one labeled
    class-0 document contains the fluke four times; no labeled document has sub-topic words."""
    rng = np.random.default_rng(3)
    n_docs = 200
    y = np.arange(n_docs) % 2
    sub_topic = np.arange(n_docs) % 4 == 3
    rates = np.full((n_docs, 25), 0.2)
    rates[y == 0, :6] = 1.0
    rates[(y == 1) & ~sub_topic, 6:12] = 1.0
    rates[sub_topic, 12:18] = 1.5
    rates[:, 24] = np.where(sub_topic, 1.0, 0.0)
    counts = rng.poisson(rates).astype(float)
    labeled = sweep_split(y, 1, 0, test_rows=np.arange(160, 200), n_unlabeled=150).labeled
    counts[labeled, 12:18] = 0
    counts[labeled, 24] = np.where(y[labeled] == 0, 4, 0)
    return sp.csr_matrix(counts), y, np.arange(160, 200)
