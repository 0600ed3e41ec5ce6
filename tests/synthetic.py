"""Synthetic corpora shared by the tests: topics that each have their own frequent words."""

import numpy as np
import scipy.sparse as sp


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
