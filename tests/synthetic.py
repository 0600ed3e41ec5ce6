"""Synthetic corpora shared by the tests: topics with their own words, a planted fluke word, words
no labeled document contains."""

import numpy as np
import scipy.sparse as sp

from sslviz.splits import split_labeled
from sslviz.text import CountCorpus

#: :func:`hidden_word_corpus`: its test rows, and the two words (one per class) that no labeled
#: document of its splits contains.
HIDDEN_TEST_ROWS = np.arange(200, 240)
HIDDEN_WORDS = (22, 23)


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
    # the split of the feature-selection sweep's job (1 per class, seed 0)
    labeled = split_labeled(y, 1, per_class=True, n_unlabeled=150, test_rows=np.arange(160, 200),
                            random_state=0).labeled
    counts[labeled, 12:18] = 0
    counts[labeled, 24] = np.where(y[labeled] == 0, 4, 0)
    return sp.csr_matrix(counts), y, np.arange(160, 200)


def four_topic_corpus(n_docs=320, seed=0, *, n_specific=25, n_shared=60):
    """Four topics, each with its own ``n_specific`` words (gamma-distributed rates), plus
    ``n_shared`` words every topic uses; a :class:`~sslviz.text.CountCorpus` with word names
    ``t<c>w<i>`` and ``shared<i>``."""
    n_classes = 4
    rng = np.random.default_rng(seed)
    y = np.arange(n_docs) % n_classes
    n_words = n_classes * n_specific + n_shared
    rates = np.zeros((n_classes, n_words))
    rates[:, n_classes * n_specific:] = rng.gamma(1.0, 0.25, n_shared)
    for c in range(n_classes):
        rates[c, c * n_specific:(c + 1) * n_specific] = rng.gamma(1.0, 0.3, n_specific)
    rates += 0.02
    vocabulary = np.array([f"t{c}w{i:02d}" for c in range(n_classes) for i in range(n_specific)]
                          + [f"shared{i:02d}" for i in range(n_shared)])
    return CountCorpus(sp.csr_matrix(rng.poisson(rates[y])), y,
                       [f"topic{c}" for c in range(n_classes)], vocabulary,
                       np.array([f"doc{i}.txt" for i in range(n_docs)]))


def hidden_word_corpus(seed=0, sizes=(2, 4, 8), split_seed=0):
    """240 documents of two topics with 6 words each, 10 shared words, and one extra word per
    topic (:data:`HIDDEN_WORDS`) that the labeled documents never contain: those of the splits
    ``split_labeled(y, size, test_rows=HIDDEN_TEST_ROWS, random_state=split_seed)``."""
    n_docs, topic, shared = 240, 6, 10
    rng = np.random.default_rng(seed)
    y = np.arange(n_docs) % 2
    rates = np.full((2, 2 * topic + shared + 2), 0.05)
    rates[:, 2 * topic:2 * topic + shared] = 0.8
    for c in range(2):
        rates[c, c * topic:(c + 1) * topic] = 1.2
        rates[c, HIDDEN_WORDS[c]] = 1.0
        rates[1 - c, HIDDEN_WORDS[c]] = 0.0
    counts = rng.poisson(rates[y]).astype(float)
    for size in sizes:
        labeled = split_labeled(y, size, test_rows=HIDDEN_TEST_ROWS,
                                random_state=split_seed).labeled
        counts[np.ix_(labeled, list(HIDDEN_WORDS))] = 0
    vocabulary = np.array([f"a{i}" for i in range(topic)] + [f"b{i}" for i in range(topic)]
                          + [f"s{i}" for i in range(shared)] + ["hidden_a", "hidden_b"])
    return CountCorpus(sp.csr_matrix(counts), y, ["alpha", "beta"], vocabulary,
                       np.array([f"doc{i}" for i in range(n_docs)]))


def criterion_study_corpus():
    """A small topic corpus as an α-criterion study's ``Corpus`` (rows 200-299 the test set;
    1 and 3 labeled documents per class)."""
    from sslviz.experiments.model_selection import Corpus

    X, y, _ = topic_corpus(300, 40, 0, seed=1, topic_rate=0.7, background=0.4)
    return Corpus("toy", X, y, np.arange(200, 300), (1, 3))
