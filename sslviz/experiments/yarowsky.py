"""The Yarowsky lecture's experiments (03): word-sense tasks, seeded runs, the supervised
comparison, the 2-D map of instances and the lecture's catalogue of seed collocations.

A :class:`SenseTask` is one Senseval word, vectorized into collocation features and split into a
pool (Yarowsky bootstraps on it, as unlabeled data) and a test set. :func:`yarowsky_run` fits
:class:`sslviz.yarowsky.Yarowsky` on the pool and scores every iteration;
:func:`supervised_accuracy` trains decision lists on hand-labeled draws of the same size, the
comparison a Yarowsky run should beat. :class:`YarowskyRuns` keeps them (in memory, one fit per
setting) for the lecture's explorers. Cost: a run is a few decision-list fits (well under a
second at lecture scale); a map is a t-SNE of the pool (about two seconds on one core for 2,000
instances), kept in the disk cache and, for the words an explorer offers, computed in a
background thread by the explorer while the class looks at the first word (its ``prepare``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import scipy.sparse as sp
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.manifold import TSNE
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import normalize

from .._memo import Once
from ..cache import ResultCache, data_digest
from ..datasets import file_sha256, load_senseval, load_stoplist, locate
from ..decision_list import DecisionList, collocation_matrix, presence_matrix
from ..splits import split_labeled
from ..threads import one_thread
from ..yarowsky import Yarowsky, accuracy_by_iteration, label_accuracy
from .runner import run_jobs


# -- one word-sense experiment: pool, test, run --------------------------------------------------
@dataclass(frozen=True)
class SenseTask:
    """Instances of some senses of one word, vectorized, split into a pool and a test set.

    Attributes
    ----------
    word : str
    senses : tuple of str
    X : csr_matrix of shape (n_instances, n_features)
        Collocation features of every instance (:func:`collocation_matrix`).
    y : ndarray of str, shape (n_instances,)
        Gold senses.
    feature_names : ndarray of str
    pool, test : ndarray of int
        The instances Yarowsky bootstraps on (as unlabeled data), and the held-out ones every
        classifier is scored on (stratified, seeded).
    contexts : list of str
        Each instance as text, the ambiguous word in brackets.
    """

    word: str
    senses: tuple
    X: sp.csr_matrix
    y: np.ndarray
    feature_names: np.ndarray
    pool: np.ndarray
    test: np.ndarray
    contexts: list


def sense_task(corpus, senses=None, *, window=10, stop_words=(), test_size=0.25,
               random_state=0):
    """Vectorize a :class:`~sslviz.datasets.SensevalCorpus` and split it into pool and test.

    Parameters
    ----------
    corpus : SensevalCorpus
    senses : sequence of str or None
        Senses to keep (default: all of the corpus).
    window, stop_words
        Feature options (:func:`collocations`).
    test_size : float in (0, 1)
        Fraction of instances held out for testing (stratified by sense).
    random_state : int
        Seed of the split.
    """
    gold = corpus.senses
    senses = tuple(corpus.sense_names if senses is None else senses)
    unknown = sorted(set(senses) - set(corpus.sense_names))
    if unknown:
        raise ValueError(f"unknown senses {unknown} of {corpus.word!r}; valid senses: "
                         f"{list(corpus.sense_names)}")
    rows = np.flatnonzero(np.isin(gold, senses))
    X, names = collocation_matrix([corpus.tokens[i] for i in rows], corpus.head[rows],
                                  window=window, stop_words=stop_words)
    y = np.asarray(gold[rows], dtype=str)
    n_test = int(round(test_size * len(rows)))
    if not 0 < n_test < len(rows):
        raise ValueError(f"test_size={test_size} leaves no test or no pool instances")
    pool, test = train_test_split(np.arange(len(rows)), test_size=n_test, stratify=y,
                                  random_state=random_state)
    pool, test = np.sort(pool), np.sort(test)
    return SenseTask(corpus.word, senses, X, y, names, pool, test,
                     [corpus.context(int(i)) for i in rows])


RESULT_VERSION = 1  # bump for a change sslviz.code_digest cannot see (a dependency's)


def load_sense_task(word, senses, *, window=10, stop_words="sklearn", test_size=0.25,
                    random_state=0, data_dir=None, use_cache=True):
    """Load a Senseval word (:func:`sslviz.datasets.load_senseval`) and make a :class:`SenseTask`.

    ``stop_words`` names a stop list of :func:`sslviz.datasets.load_stoplist` (``"sklearn"``,
    ``"smart"``) or is ``None``. The task is kept in the disk cache (kind ``"sense_tasks"``, keyed
    by the archive's sha256, every argument and :data:`RESULT_VERSION`): parsing the XML and
    building the collocation features takes about a second per word, reading them back a few
    milliseconds. ``use_cache=False`` builds the task again and replaces its entry.
    """
    key = {"version": RESULT_VERSION,
           "sha256": file_sha256(locate("senseval", data_dir=data_dir)), "word": word,
           "senses": None if senses is None else [str(sense) for sense in senses],
           "window": window, "stop_words": stop_words, "test_size": test_size,
           "random_state": random_state}

    def build():
        corpus = load_senseval(word, senses, data_dir=data_dir)
        stop = () if stop_words is None else load_stoplist(stop_words, data_dir=data_dir)
        return _task_arrays(sense_task(corpus, window=window, stop_words=stop,
                                       test_size=test_size, random_state=random_state))

    return _task_from_arrays(ResultCache("sense_tasks", code=__name__).get_or_compute(key, build,
                                                                       use_cache=use_cache))


def _task_arrays(task):
    """A :class:`SenseTask` as the plain arrays of a cache entry."""
    X = sp.csr_matrix(task.X)
    return {"word": np.str_(task.word), "senses": np.asarray(task.senses, dtype=str),
            "data": X.data, "indices": X.indices, "indptr": X.indptr,
            "shape": np.asarray(X.shape), "y": np.asarray(task.y, dtype=str),
            "feature_names": np.asarray(task.feature_names, dtype=str), "pool": task.pool,
            "test": task.test, "contexts": np.asarray(task.contexts, dtype=str)}


def _task_from_arrays(arrays):
    """The :class:`SenseTask` stored by :func:`_task_arrays`."""
    X = sp.csr_matrix((arrays["data"], arrays["indices"], arrays["indptr"]),
                      shape=tuple(int(n) for n in arrays["shape"]))
    return SenseTask(str(arrays["word"]), tuple(arrays["senses"].tolist()), X, arrays["y"],
                     arrays["feature_names"], arrays["pool"], arrays["test"],
                     arrays["contexts"].tolist())


#: Senses and seed collocations for the lecture: word -> {"senses", "glosses", "seeds"}, where
#: "seeds" maps a name to a seed dict for :class:`Yarowsky`. Some seed sets work, some are meant
#: to fail (see the notebook's "word of warning").
LECTURE_SEEDS = {
    "line": {
        "senses": ("phone", "product"),
        "glosses": {"phone": "a telephone connection", "product": "a line of products"},
        "seeds": {
            "telephone / products": {"phone": ["W=telephone"], "product": ["W=products"]},
            "telephone, calls / introduced, sell": {"phone": ["W=telephone", "W=calls"],
                                                    "product": ["W=introduced", "W=sell"]},
            "phone / product": {"phone": ["W=phone"], "product": ["W=product"]},
            "telephone / manufacturer": {"phone": ["W=telephone"],
                                         "product": ["W=manufacturer"]},
        },
    },
    "serve": {
        "senses": ("SERVE10", "SERVE12"),
        "glosses": {"SERVE10": "serve food or drink", "SERVE12": "hold an office, do duty"},
        "seeds": {
            "dinner, food / board, chairman": {"SERVE10": ["W=dinner", "W=food"],
                                               "SERVE12": ["W=board", "W=chairman"]},
            "sauce / president": {"SERVE10": ["W=sauce"], "SERVE12": ["W=president"]},
        },
    },
    "interest": {
        "senses": ("interest_5", "interest_6"),
        "glosses": {"interest_5": "a share in a company", "interest_6": "money paid on a loan"},
        "seeds": {
            "stake / rates (right)": {"interest_5": ["W=stake"], "interest_6": ["R1=rates"]},
        },
    },
    "hard": {
        "senses": ("HARD1", "HARD2"),
        "glosses": {"HARD1": "difficult", "HARD2": "tough, harsh (hard work, a hard look)"},
        "seeds": {
            "to (right) / work (right)": {"HARD1": ["R1=to"], "HARD2": ["R1=work"]},
            "difficult / work": {"HARD1": ["W=difficult"], "HARD2": ["W=work"]},
        },
    },
}



@dataclass(frozen=True)
class YarowskyRun:
    """A Yarowsky run on a task's pool, scored per iteration.

    Attributes
    ----------
    model : Yarowsky
        Fitted on ``task.X[task.pool]``.
    coverage : ndarray (n_iterations,)
        Fraction of pool instances labeled.
    label_accuracy : ndarray (n_iterations,)
        Fraction of the labeled pool instances labeled right.
    test_accuracy : ndarray (n_iterations,)
        Accuracy of each iteration's decision list on the test instances.
    """

    model: Yarowsky
    coverage: np.ndarray
    label_accuracy: np.ndarray
    test_accuracy: np.ndarray


def yarowsky_run(task, seeds, **params):
    """Fit :class:`Yarowsky` with ``seeds`` on the pool of ``task`` and score every iteration."""
    model = Yarowsky(seeds, **params).fit(task.X[task.pool], feature_names=task.feature_names)
    return YarowskyRun(model, model.trace_.values("coverage"),
                       label_accuracy(model, task.y[task.pool]),
                       accuracy_by_iteration(model, task.X[task.test], task.y[task.test]))


def final_label_shares(run, gold):
    """Where the pool instances of each gold sense ended: shares labeled with each sense, and
    unlabeled, after the last iteration of ``run`` (a :class:`YarowskyRun`).

    Parameters
    ----------
    gold : ndarray of str, shape (n_pool,)
        Gold senses of the pool (``task.y[task.pool]``).

    Returns
    -------
    ndarray of shape (n_senses, n_senses + 1)
        Row ``i``: instances of ``run.model.classes_[i]``; columns: labeled with each sense (in
        the order of ``classes_``), then unlabeled. Rows sum to 1.
    """
    classes, final = run.model.classes_, run.model.trace_[-1].labels
    gold = np.asarray(gold)
    if len(gold) != len(final):
        raise ValueError(f"gold has {len(gold)} senses but the run labeled {len(final)} "
                         "instances; pass task.y[task.pool]")
    columns = np.where(final >= 0, final, len(classes))
    return np.array([np.bincount(columns[gold == sense], minlength=len(classes) + 1)
                     / max(np.sum(gold == sense), 1) for sense in classes])


# -- the supervised comparison -------------------------------------------------------------------
def supervised_decision_list(X, y, n_labeled, *, random_state=None, alpha=0.1, min_count=1):
    """A decision list trained on ``n_labeled`` hand-labeled instances drawn at random.

    The draw is stratified (class shares as in ``y``, at least one instance of every class; see
    :func:`sslviz.splits.split_labeled`): the comparison a Yarowsky run should beat.

    Returns
    -------
    model : fitted DecisionList
    rows : ndarray of int
        The instances drawn.
    """
    y = np.asarray(y)
    rows = split_labeled(y, n_labeled, random_state=random_state).labeled
    return DecisionList(alpha=alpha, min_count=min_count).fit(X[rows], y[rows]), rows


def supervised_accuracy(task, n_labeled, *, seeds=(0, 1, 2, 3, 4), alpha=0.1):
    """Test accuracy of :func:`supervised_decision_list` on ``n_labeled`` pool instances, per seed.

    Returns
    -------
    ndarray of shape (len(seeds),)
    """
    X_pool, y_pool = task.X[task.pool], task.y[task.pool]
    X_test, y_test = task.X[task.test], task.y[task.test]
    return np.array([np.mean(supervised_decision_list(X_pool, y_pool, n_labeled, alpha=alpha,
                                                      random_state=seed)[0].predict(X_test)
                             == y_test)
                     for seed in seeds])


# -- the map of instances (for pictures only) ----------------------------------------------------
MAP_PARAMS = {"n_lsa": 30, "perplexity": 30.0, "max_iter": 350, "angle": 0.8}


def instance_map(X, *, random_state=0, n_lsa=30, perplexity=30.0, max_iter=350, angle=0.8):
    """2-D map of instances for pictures: LSA of the tf-idf weighted features, then t-SNE.

    Instances that share collocations land near each other. The algorithm never sees this map;
    it only shows where labels spread.

    Parameters
    ----------
    X : sparse matrix of shape (n_samples, n_features)
        Collocation features (only their presence counts).
    random_state : int
        Seed of the LSA and of t-SNE: the same seed gives the same map.
    n_lsa : int, default=30
        Dimensions of the latent-semantic projection t-SNE starts from.
    perplexity : float, default=30.0
        t-SNE's effective number of neighbours (capped at ``(n_samples - 1) / 3``).
    max_iter : int, default=350
        t-SNE iterations, the first 250 of them with early exaggeration.
    angle : float, default=0.8
        Barnes-Hut's accuracy trade-off (scikit-learn's default is 0.5).

    Returns
    -------
    ndarray of shape (n_samples, 2)

    Notes
    -----
    Cost: about two seconds on one core for 2,000 instances. The learning rate is ``n / 12``
    (Belkina et al. 2019; scikit-learn's ``"auto"`` takes a quarter of it), so that 100
    iterations after the early exaggeration reach nearly the layout and KL divergence of
    scikit-learn's defaults (500 iterations, angle 0.5), in half the time.
    """
    weighted = normalize(TfidfTransformer().fit_transform(presence_matrix(X)))
    n_lsa = min(n_lsa, weighted.shape[1] - 1, weighted.shape[0] - 1)
    perplexity = min(perplexity, (weighted.shape[0] - 1) / 3)
    # One thread: t-SNE's OpenMP loop is about 4x slower on a busy 2-core machine with two.
    with one_thread():
        reduced = TruncatedSVD(n_lsa, random_state=random_state).fit_transform(weighted)
        return TSNE(2, perplexity=perplexity, init="pca", random_state=random_state,
                    learning_rate=max(weighted.shape[0] / 12, 50.0), max_iter=max_iter,
                    angle=angle).fit_transform(reduced)


def map_job(X, random_state):
    """:func:`instance_map` (at :data:`MAP_PARAMS`) as the dict a :func:`run_jobs` job returns."""
    return {"xy": instance_map(X, random_state=random_state, **MAP_PARAMS)}


def instance_maps(matrices, *, random_state=0, use_cache=True):
    """:func:`instance_map` of each matrix, kept in the disk cache (kind ``"yarowsky_map"``).

    The key is the matrix's digest, the seed, :data:`MAP_PARAMS` and :data:`RESULT_VERSION`:
    a map is computed once per machine, then read back (a few milliseconds).

    Returns
    -------
    list of ndarray of shape (n_samples, 2)
    """
    jobs = [{"X": X} for X in matrices]
    results = run_jobs(map_job, jobs, kind="yarowsky_map", shared={"random_state": random_state},
                       key=lambda job: {"version": RESULT_VERSION, "data": data_digest(job["X"]),
                                        "random_state": random_state, **MAP_PARAMS},
                       use_cache=use_cache, progress=False)
    return [result["xy"] for result in results]


# -- cached runs behind the lecture's explorers ---------------------------------------------------
class YarowskyRuns:
    """Cached tasks, maps and runs behind the stepper (one fit per setting, one map per word).

    Parameters
    ----------
    catalog : dict
        ``word -> {"senses": ..., "seeds": {name: seed dict}}`` (e.g. ``LECTURE_SEEDS``).
    load_task : callable (word, senses, random_state=...) -> SenseTask
        Default :func:`load_sense_task`.
    supervised_seeds : sequence of int
        Draws of the hand-labeled comparison list.
    random_state : int
        Seed of the pool/test split (passed to ``load_task``) and of the map.
    disk_cache : bool, default=True
        Keep the maps in the disk cache (:func:`instance_maps`); ``False`` keeps them in memory
        only.
    **run_params
        Further parameters of :class:`sslviz.yarowsky.Yarowsky` (``alpha``, ``max_iter``...).

    Notes
    -----
    :meth:`map` may be called from several threads (an explorer prepares maps in the
    background): each word's map is computed once (a request for a map being computed waits for
    it), and one map at a time (:class:`sslviz._memo.Once`).
    """

    def __init__(self, catalog=LECTURE_SEEDS, load_task=load_sense_task,
                 supervised_seeds=(0, 1, 2, 3, 4), random_state=0, disk_cache=True,
                 **run_params):
        self.catalog = catalog
        self._load_task = load_task
        self.random_state = random_state
        self.supervised_seeds = tuple(supervised_seeds)
        self.disk_cache = disk_cache
        self.run_params = run_params
        self.task = lru_cache(maxsize=8)(self._task)
        self.run = lru_cache(maxsize=64)(self._run)
        self.supervised = lru_cache(maxsize=64)(self._supervised)
        self._maps = Once(self._map)

    def _task(self, word):
        if word not in self.catalog:
            raise ValueError(f"no seeds for {word!r}; words: {list(self.catalog)}")
        return self._load_task(word, tuple(self.catalog[word]["senses"]),
                               random_state=self.random_state)

    def map(self, word):
        """The 2-D map of ``word``'s pool instances (:func:`instance_map`), shape (n_pool, 2).

        Kept in memory; computed now (or read from the disk cache) unless another thread is
        computing it, in which case this waits for that result.
        """
        return self._maps(word)

    def _map(self, word):
        task = self.task(word)
        if self.disk_cache:
            return instance_maps([task.X[task.pool]], random_state=self.random_state)[0]
        return map_job(task.X[task.pool], self.random_state)["xy"]

    def _run(self, word, seed_set, threshold, mode):
        seeds = self.catalog[word]["seeds"][seed_set]
        return yarowsky_run(self.task(word), seeds, threshold=threshold, mode=mode,
                            **self.run_params)

    def _supervised(self, word, n_labeled):
        return supervised_accuracy(self.task(word), n_labeled, seeds=self.supervised_seeds,
                                   alpha=self.run_params.get("alpha", 0.1))
