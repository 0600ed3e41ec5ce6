"""A small synthetic word-sense corpus for the Yarowsky tests (lecture 03), its collocation data and
the cached runs over it, for the fixtures of the Yarowsky test modules."""

import numpy as np

from sslviz.decision_list import collocation_matrix
from sslviz.experiments.yarowsky import YarowskyRuns, sense_task

# -- a small synthetic word-sense corpus ----------------------------------------------------------
SEEDS = {"a": ["W=a0"], "b": ["W=b0"]}


class FakeCorpus:
    """What sense_task reads from a SensevalCorpus: tokens, head, senses, names, context.

    Sense "a" (about 60 % of the instances) has its own words a0..a29, sense "b" b0..b29; each
    instance has four sense words (one in twenty from the other sense), two of 40 shared words
    and the ambiguous word "w". The last three instances (sense "a") have both seeds.
    """

    def __init__(self, n=160, seed=0, noise=0.05):
        rng = np.random.default_rng(seed)
        self.word = "w"
        self.sense_names = ["a", "b"]
        target = (rng.random(n) < 0.4).astype(np.int64)
        self.tokens, heads = [], []
        for t in target:
            own, other = ("a", "b") if t == 0 else ("b", "a")
            words = [f"{own if rng.random() > noise else other}{rng.integers(30)}"
                     for _ in range(4)]
            words += [f"s{rng.integers(40)}" for _ in range(2)]
            rng.shuffle(words)
            head = int(rng.integers(0, len(words) + 1))
            self.tokens.append(words[:head] + ["w"] + words[head:])
            heads.append(head)
        self.tokens += [["a0", "b0", "w", "s1"]] * 3
        self.head = np.array(heads + [2, 2, 2])
        self.target = np.concatenate([target, [0, 0, 0]])

    @property
    def senses(self):
        return np.array(self.sense_names, dtype=object)[self.target]

    def context(self, i, width=None):
        return " ".join(self.tokens[i])



def small_runs(corpus, **params):
    """:class:`YarowskyRuns` over two synthetic words, "w" (two seed sets) and "v"; maps in
    memory only unless ``disk_cache=True`` (then in the test's private result cache)."""
    catalog = {
        "w": {"senses": ("a", "b"), "seeds": {"a0 / b0": SEEDS,
                                             "a1 / b1": {"a": ["W=a1"], "b": ["W=b1"]}}},
        "v": {"senses": ("a", "b"), "seeds": {"a2 / b2": {"a": ["W=a2"], "b": ["W=b2"]}}},
    }
    tasks = {"w": sense_task(corpus, window=10), "v": sense_task(FakeCorpus(seed=1), window=10)}
    return YarowskyRuns(catalog, load_task=lambda word, senses, random_state: tasks[word],
                        **{"disk_cache": False, **params})


def corpus_data(corpus):
    """(collocation matrix, feature names, gold senses as str) of a :class:`FakeCorpus`."""
    X, names = collocation_matrix(corpus.tokens, corpus.head, window=10)
    return X, names, corpus.senses.astype(str)

