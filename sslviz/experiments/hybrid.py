"""Experiments of the hybrid lecture (09): Tables 1-3 and Figure 2 of Fujino, Ueda & Saito (2005).

One *evaluation set* (a seed) of a corpus is drawn as in the paper: test documents (Reuters: the
later ModApte articles; WebKB and 20 Newsgroups comp.*: 1,000 at random), then the unlabeled
documents (4,500 earlier Reuters articles; 2,500 otherwise), then the labeled documents from what
is left -- stratified, with at least one document of every class (the paper drew them at random,
so its small labeled sets could miss a class). On one evaluation set and labeled-set size,
:func:`evaluate_split` fits the five methods of the tables, every hyper-parameter chosen on the
labeled rows only:

* **NB** -- ``MultinomialNB``, α by :func:`sslviz.tuning.choose_alpha` (cross-validated accuracy,
  or the Dirichlet-multinomial evidence when a class has a single labeled document);
* **EM-λ** -- :class:`sslviz.em.SemiSupervisedNB` with NB's α and λ from {0.01 ... 1} by
  cross-validation on the labeled rows, each fold trained with every unlabeled row;
* **MLR** -- scikit-learn's multinomial ``LogisticRegression`` without intercept (eq. 2) on
  unit-length count vectors, C by cross-validation;
* **MLR/MER** -- :class:`sslviz.entropy_reg.EntropyRegularizedLR` with MLR's C and λ from the
  paper's grid by cross-validation. The paper chose λ on the *test* set; that optimistic
  reference is recorded too (``mer_test_by_weight``), never used to pick anything;
* **hybrid** -- :class:`sslviz.hybrid.HybridNB` with NB's α.

Cross-validation uses stratified folds when every class has two labeled documents, else plain
shuffled folds (:func:`labeled_cv_folds`), as ``sslviz.tuning`` cannot stratify then.

Each (corpus, size, seed) is one job of :func:`sslviz.experiments.runner.run_jobs`: cached (kind
``"hybrid"``), parallel, resumable. Paper scale: ``python -m sslviz.experiments.hybrid table``.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.naive_bayes import MultinomialNB
from sklearn.preprocessing import normalize

from ..cache import data_digest
from ..em import SemiSupervisedNB
from ..entropy_reg import EntropyRegularizedLR
from ..hybrid import HybridNB
from ..splits import Split, split_labeled
from ..text import TextOptions, load_counts
from ..tuning import Choice, choose_alpha, labeled_folds
from ..validation import check_choice, labeled_mask
from .runner import run_jobs

CACHE_VERSION = 2  # 2: MLR fitted on the labeled rows' words; MER optional (mer_weights)
METHODS = ("hybrid", "em-lambda", "mlr/mer", "nb", "mlr")
METHOD_LABELS = {"hybrid": "Proposed (hybrid)", "em-lambda": "EM-λ", "mlr/mer": "MLR/MER",
                 "nb": "NB", "mlr": "MLR"}
EM_WEIGHTS = (0.01, 0.1, 0.25, 0.5, 0.75, 1.0)
MER_WEIGHTS = (1e-5, 1e-4, 1e-3, 1e-2, 0.1, 0.2, 0.5, 1.0)
C_GRID = (1.0, 10.0, 100.0, 1000.0)
MER_FOLDS = 3  # MER is the costly fit (eight λ per fold): three folds, not five
COMP_GROUPS = ("comp.graphics", "comp.os.ms-windows.misc", "comp.sys.ibm.pc.hardware",
               "comp.sys.mac.hardware", "comp.windows.x")

#: corpus -> (loader name, text options, loader arguments, test documents, unlabeled documents)
CORPORA = {
    "reuters": ("reuters21578", TextOptions(stop_words="smart"), {"subset": "all"}, None, 4500),
    "webkb": ("webkb", TextOptions(stop_words="smart"), {}, 1000, 2500),
    "20news": ("20newsgroups", TextOptions(stop_words="smart", min_df=2),
               {"subset": "all", "categories": list(COMP_GROUPS)}, 1000, 2500),
}
PAPER_SIZES = {"reuters": (16, 32, 64, 128, 256, 512, 1024),
               "webkb": (8, 16, 32, 64, 128, 256, 512),
               "20news": (10, 20, 40, 80, 160, 320, 640, 1280)}
PAPER_N_SEEDS = 10

#: Tables 1-3: corpus -> size -> accuracy (%) in the order of METHODS, and the standard deviations
PAPER_TABLES = {
    "reuters": {16: ((83.3, 86.1, 73.1, 70.1, 67.4), (4.5, 2.6, 6.8, 6.0, 8.0)),
                32: ((89.7, 89.4, 82.1, 80.1, 80.9), (1.7, 1.9, 3.9, 1.4, 3.4)),
                64: ((92.2, 90.0, 83.4, 84.1, 83.1), (0.7, 1.6, 5.0, 1.5, 4.6)),
                128: ((92.8, 91.4, 88.5, 88.1, 87.8), (0.7, 0.9, 1.5, 0.8, 1.3)),
                256: ((93.3, 92.2, 90.8, 89.9, 90.5), (0.6, 0.8, 0.8, 1.3, 0.8)),
                512: ((94.0, 93.1, 93.3, 92.4, 93.0), (0.4, 0.5, 0.6, 0.7, 0.6)),
                1024: ((94.6, 93.7, 94.6, 93.5, 94.4), (0.2, 0.3, 0.3, 0.5, 0.3))},
    "webkb": {8: ((61.6, 61.9, 52.8, 53.5, 52.4), (6.1, 10.4, 5.0, 8.5, 4.8)),
              16: ((66.5, 68.2, 53.2, 59.3, 53.2), (4.5, 4.7, 7.0, 3.9, 6.6)),
              32: ((72.9, 71.4, 61.8, 68.2, 61.8), (3.0, 3.0, 5.3, 3.1, 5.0)),
              64: ((76.9, 74.3, 69.6, 72.7, 69.0), (2.0, 2.3, 3.4, 1.3, 2.7)),
              128: ((79.4, 75.5, 77.6, 76.7, 77.4), (1.6, 2.3, 2.2, 1.8, 2.1)),
              256: ((81.4, 77.8, 83.1, 79.4, 83.0), (1.6, 1.6, 1.9, 1.1, 1.8)),
              512: ((83.2, 79.1, 87.4, 82.2, 87.4), (1.7, 1.9, 1.3, 1.2, 1.2))},
    "20news": {10: ((52.2, 40.7, 42.7, 31.7, 37.6), (14.1, 10.7, 8.3, 5.9, 5.4)),
               20: ((63.5, 51.4, 45.2, 41.8, 44.6), (5.6, 6.7, 5.0, 4.9, 4.2)),
               40: ((68.7, 56.7, 52.4, 46.8, 51.0), (2.8, 6.3, 5.4, 2.9, 3.7)),
               80: ((72.8, 59.4, 59.3, 53.5, 59.0), (2.3, 4.4, 2.6, 3.8, 2.3)),
               160: ((76.0, 65.4, 67.6, 60.7, 66.6), (1.5, 4.4, 2.7, 2.7, 2.1)),
               320: ((78.3, 69.4, 73.7, 68.4, 72.7), (1.0, 2.3, 1.3, 1.6, 1.1)),
               640: ((81.2, 74.4, 79.1, 74.9, 77.7), (1.3, 1.4, 1.4, 1.8, 1.2)),
               1280: ((83.6, 78.1, 82.2, 77.9, 81.1), (1.2, 1.9, 1.4, 1.9, 1.4))},
}


@dataclass(frozen=True)
class HybridCorpus:
    """A corpus prepared as in the paper."""

    name: str
    X: object  # sparse (n_documents, n_words) counts
    y: np.ndarray
    target_names: list
    vocabulary: np.ndarray
    test_rows: np.ndarray | None  # fixed test documents (Reuters' later articles) or None
    n_test: int | None  # random test documents drawn per evaluation set
    n_unlabeled: int


def load_hybrid_corpus(name):
    """Reuters R8 (ModApte time split), WebKB (4 classes) or 20 Newsgroups comp.*, counted with
    the SMART stop list (20 Newsgroups: words of one post only removed too)."""
    check_choice("corpus", name, tuple(CORPORA))
    loader, options, kwargs, n_test, n_unlabeled = CORPORA[name]
    counts = load_counts(loader, options, **kwargs)
    test_rows = None
    if name == "reuters":  # training (earlier) stories come first
        n_train = load_counts(loader, options, subset="train").X.shape[0]
        test_rows = np.arange(n_train, counts.X.shape[0])
    return HybridCorpus(name, counts.X, np.asarray(counts.y), list(counts.target_names),
                        counts.vocabulary, test_rows, n_test, n_unlabeled)


def evaluation_split(y, n_labeled, seed, *, test_rows=None, n_test=None, n_unlabeled):
    """Test rows, then ``n_unlabeled`` unlabeled rows, then a stratified labeled set.

    The unlabeled set of a seed does not depend on ``n_labeled`` (unless the rows left after it
    are fewer than ``n_labeled``: then the unlabeled set gives up just enough rows).
    """
    y = np.asarray(y)
    rng = np.random.RandomState(seed)
    rows = np.arange(len(y))
    if test_rows is None:
        test = split_labeled(y, n_test, random_state=rng).labeled
    else:
        test = np.asarray(test_rows)
    pool = rng.permutation(np.setdiff1d(rows, test))
    n_unlabeled = min(n_unlabeled, len(pool) - n_labeled)
    unlabeled = np.sort(pool[:n_unlabeled])
    labeled = split_labeled(y, n_labeled, test_rows=np.concatenate([test, unlabeled]),
                            n_unlabeled=0, random_state=rng).labeled
    return Split(labeled, unlabeled, np.sort(test))


def labeled_cv_folds(y, cv=5, *, random_state=None, include_unlabeled=False):
    """Folds over the labeled rows: stratified (:func:`sslviz.tuning.labeled_folds`) when every
    class has two labeled rows, else ``min(cv, n_labeled)`` shuffled folds."""
    labeled = labeled_mask(y)
    counts = np.unique(np.asarray(y)[labeled], return_counts=True)[1]
    if len(counts) and counts.min() >= 2:
        return labeled_folds(y, cv, random_state=random_state,
                             include_unlabeled=include_unlabeled)
    rows = np.flatnonzero(labeled)
    extra = np.flatnonzero(~labeled) if include_unlabeled else np.array([], dtype=int)
    folds = KFold(min(cv, len(rows)), shuffle=True, random_state=random_state)
    return [(np.concatenate([rows[train], extra]), rows[test]) for train, test in folds.split(rows)]


def choose_on_labeled(estimator, param_grid, X, y, *, cv=5, random_state=None,
                      semi_supervised=False):
    """Like :func:`sslviz.tuning.choose_by_cv`, with :func:`labeled_cv_folds` (works when a
    class has a single labeled row). Ties go to the first grid point."""
    y = np.asarray(y)
    folds = labeled_cv_folds(y, cv, random_state=random_state,
                             include_unlabeled=semi_supervised)
    if not semi_supervised:
        labeled = labeled_mask(y)
        index = np.full(len(y), -1)
        index[labeled] = np.arange(labeled.sum())
        folds = [(index[train], index[test]) for train, test in folds]
        X, y = X[labeled], y[labeled]
    search = GridSearchCV(clone(estimator), param_grid, cv=folds, refit=False,
                          error_score=0.0)
    search.fit(X, y)
    scores = search.cv_results_["mean_test_score"]
    candidates = list(search.cv_results_["params"])
    return Choice(candidates[int(np.argmax(scores))], candidates, scores,
                  f"{len(folds)}-fold cv accuracy")


def lr_features(X):
    """What MLR and MER see: count vectors scaled to unit length."""
    return normalize(X.astype(float))


def labeled_columns(X, y):
    """The columns with a nonzero entry in some labeled row of ``X``.

    Logistic regression with a Gaussian prior and no intercept gives every other word weight 0
    (its gradient is its weight over C, 0 from the start), so fitting on these columns alone is
    the same model -- and many times faster on a 30,000-word vocabulary with 10 labeled rows.
    """
    return np.flatnonzero(sp.csr_matrix(X)[labeled_mask(y)].getnnz(axis=0))


def evaluate_split(X, y, n_labeled, seed, *, test_rows=None, n_test=None, n_unlabeled,
                   mer=True):
    """The five methods (and the normalisation study) on one evaluation set; a dict of arrays.

    ``mer=False`` (lecture scale) skips MLR/MER, whose entries are then NaN
    (:func:`mer_study` studies it on one corpus instead).

    Keys: ``accuracy`` (5,) in the order of :data:`METHODS`; ``alpha``, ``em_weight``, ``C``,
    ``mer_weight`` (chosen values); ``hybrid_weights`` (λ1, λ2); ``hybrid_iterations``;
    ``mer_test_by_weight`` and ``mer_max_share_by_weight`` (8,) over :data:`MER_WEIGHTS`;
    ``normalize_cv`` (2,) cross-validated accuracy of HybridNB without / with length
    normalisation, ``normalize_loo`` (2,) their leave-one-out conditional log-likelihood per
    labeled document, ``normalize_test`` (2,) their test accuracy (reported, never used).
    """
    split = evaluation_split(y, n_labeled, seed, test_rows=test_rows, n_test=n_test,
                             n_unlabeled=n_unlabeled)
    X_train, y_train = X[split.train], split.semi_supervised_targets(y)
    X_lab, y_lab = X[split.labeled], y[split.labeled]
    X_test, y_test = X[split.test], y[split.test]
    F_train, F_test = lr_features(X_train), lr_features(X_test)
    n_lab = len(split.labeled)

    def accuracy(model, features=X_test):
        return float(np.mean(model.predict(features) == y_test))

    alpha = choose_alpha(X_train, y_train, random_state=seed).value
    nb = MultinomialNB(alpha=alpha).fit(X_lab, y_lab)
    em_template = SemiSupervisedNB(alpha=alpha, max_iter=10, record="summary")
    em_weight = choose_on_labeled(em_template, {"unlabeled_weight": list(EM_WEIGHTS)}, X_train,
                                  y_train, random_state=seed, semi_supervised=True).value
    em = clone(em_template).set_params(unlabeled_weight=em_weight).fit(X_train, y_train)
    mlr_template = LogisticRegression(fit_intercept=False, max_iter=1000)
    seen = labeled_columns(F_train, y_train)
    C = choose_on_labeled(mlr_template, {"C": list(C_GRID)}, F_train[:, seen], y_train,
                          random_state=seed).value
    mlr = clone(mlr_template).set_params(C=C).fit(F_train[:n_lab][:, seen], y_lab)
    if mer:
        mer_template = EntropyRegularizedLR(C=C, record="summary")
        mer_weight = choose_on_labeled(mer_template, {"entropy_weight": list(MER_WEIGHTS)},
                                       F_train, y_train, cv=MER_FOLDS, random_state=seed,
                                       semi_supervised=True).value
        mer_models = [clone(mer_template).set_params(entropy_weight=w).fit(F_train, y_train)
                      for w in MER_WEIGHTS]
        mer_test = np.array([accuracy(m, F_test) for m in mer_models])
        mer_shares = np.array([m.trace_[-1].unlabeled_shares.max() for m in mer_models])
        mer_accuracy = mer_test[MER_WEIGHTS.index(mer_weight)]
    else:
        mer_weight = mer_accuracy = np.nan
        mer_test = mer_shares = np.full(len(MER_WEIGHTS), np.nan)
    hybrids = [HybridNB(alpha=alpha, normalize=norm).fit(X_train, y_train)
               for norm in (None, "length")]
    normalize_cv = choose_on_labeled(HybridNB(alpha=alpha), {"normalize": [None, "length"]},
                                     X_train, y_train, random_state=seed,
                                     semi_supervised=True).scores
    return {
        "accuracy": np.array([accuracy(hybrids[0]), accuracy(em), mer_accuracy,
                              accuracy(nb), accuracy(mlr, F_test[:, seen])]),
        "alpha": np.float64(alpha), "em_weight": np.float64(em_weight), "C": np.float64(C),
        "mer_weight": np.float64(mer_weight),
        "hybrid_weights": hybrids[0].weights_, "hybrid_iterations": np.int64(hybrids[0].n_iter_),
        "mer_test_by_weight": mer_test, "mer_max_share_by_weight": mer_shares,
        "normalize_cv": np.asarray(normalize_cv, dtype=float),
        "normalize_loo": np.array([h.trace_[-1].loo_log_likelihood / n_lab for h in hybrids]),
        "normalize_test": np.array([accuracy(h) for h in hybrids]),
    }


@dataclass(frozen=True)
class HybridTable:
    """Results of :func:`hybrid_table`: arrays of shape (n_sizes, n_seeds, ...)."""

    corpus: str
    sizes: np.ndarray
    seeds: np.ndarray
    results: dict  # name -> ndarray (n_sizes, n_seeds, ...), the keys of evaluate_split

    @property
    def accuracy(self):
        """Test accuracy, shape (n_sizes, n_seeds, n_methods) in the order of METHODS."""
        return self.results["accuracy"]

    def method(self, name):
        """Accuracy of one method, shape (n_sizes, n_seeds)."""
        return self.accuracy[:, :, METHODS.index(check_choice("method", name, METHODS))]


def hybrid_table(corpus, *, sizes, seeds, mer=True, use_cache=True, n_jobs=None, progress=True,
                 description=None):
    """Tables 1-3 for one :class:`HybridCorpus`: every method at every size and seed (cached).

    ``mer=False`` leaves MLR/MER out (NaN): at lecture scale its cross-validation over the
    λ grid costs more than the other four methods together."""
    sizes, seeds = np.asarray(sizes, dtype=int), np.asarray(seeds, dtype=int)
    digest = data_digest(corpus.X, corpus.y, -1 if corpus.test_rows is None else corpus.test_rows)
    if not isinstance(mer, bool | np.bool_):
        raise ValueError(f"mer must be True or False, got {mer!r}")
    settings = {"test_rows": corpus.test_rows, "n_test": corpus.n_test,
                "n_unlabeled": corpus.n_unlabeled, "mer": bool(mer)}

    def key(job):
        return {"data": digest, "n_test": corpus.n_test, "n_unlabeled": corpus.n_unlabeled,
                "mer": bool(mer), "version": CACHE_VERSION, **job}

    jobs = [{"n_labeled": int(size), "seed": int(seed)} for size in sizes for seed in seeds]
    results = run_jobs(evaluate_split, jobs, kind="hybrid", key=key,
                       shared={"X": corpus.X, "y": corpus.y, **settings}, use_cache=use_cache,
                       n_jobs=n_jobs, progress=progress,
                       description=description or f"Table ({corpus.name})")
    stacked = {name: np.array([r[name] for r in results]).reshape(
        len(sizes), len(seeds), *np.shape(results[0][name])) for name in results[0]}
    return HybridTable(corpus.name, sizes, seeds, stacked)


def table_text(table, *, paper=True):
    """The table as text: mean (sd) over seeds per method, the paper's below each row."""
    short = {"hybrid": "hybrid", "em-lambda": "EM-λ", "mlr/mer": "MLR/MER", "nb": "NB",
             "mlr": "MLR"}
    header = f"{'|Dl|':>6} " + " ".join(f"{short[m]:>12}" for m in METHODS)
    lines = [f"{table.corpus}: test accuracy (%), mean (sd) over {len(table.seeds)} "
             "evaluation sets", header]
    for i, size in enumerate(table.sizes):
        acc = table.accuracy[i] * 100
        lines.append(f"{size:>6} " + " ".join(
            f"{'—':>12}" if np.isnan(m) else f"{m:5.1f} ({s:4.1f})"
            for m, s in zip(acc.mean(0), acc.std(0), strict=True)))
        reference = PAPER_TABLES[table.corpus].get(int(size)) if paper else None
        if reference:
            lines.append(f"{'paper':>6} " + " ".join(
                f"{m:5.1f} ({s:4.1f})" for m, s in zip(*reference, strict=True)))
    return "\n".join(lines)


def normalization_text(table):
    """The open question, on labeled-data criteria: HybridNB without / with length scaling."""
    r = table.results
    lines = [f"{table.corpus}: HybridNB, document log-likelihoods (paper) vs per-token",
             f"{'|Dl|':>6} {'cv acc':>15} {'LOO logL/doc':>17} {'cv picks len':>12} "
             f"{'test acc':>15}"]
    for i, size in enumerate(table.sizes):
        cv, loo, test = (r[k][i] for k in ("normalize_cv", "normalize_loo", "normalize_test"))
        picks = np.mean(cv[:, 1] > cv[:, 0])
        lines.append(f"{size:>6} {cv[:, 0].mean() * 100:>6.1f} / {cv[:, 1].mean() * 100:>5.1f} "
                     f"{loo[:, 0].mean():>8.3f} / {loo[:, 1].mean():>6.3f} {picks:>12.0%} "
                     f"{test[:, 0].mean() * 100:>6.1f} / {test[:, 1].mean() * 100:>5.1f}")
    return "\n".join(lines)


def mer_text(table):
    """MLR/MER: λ chosen by cross-validation vs the test-picked λ (the paper's optimistic
    reference), and how much of the unlabeled set the largest class takes at each λ."""
    r = table.results
    if np.isnan(r["mer_weight"]).all():
        return f"{table.corpus}: MLR/MER not computed in this table (hybrid_table(mer=False))"
    mer = table.method("mlr/mer") * 100
    best = r["mer_test_by_weight"].max(axis=2) * 100
    lines = [f"{table.corpus}: MLR/MER accuracy (%), λ by cv vs λ picked on the test set "
             "(optimistic)", f"{'|Dl|':>6} {'cv':>6} {'test-picked':>11}   largest class "
             "share of unlabeled rows at λ =", " " * 34 + " ".join(f"{w:>6g}" for w in MER_WEIGHTS)]
    for i, size in enumerate(table.sizes):
        shares = r["mer_max_share_by_weight"][i].mean(axis=0) * 100
        lines.append(f"{size:>6} {mer[i].mean():>6.1f} {best[i].mean():>11.1f}         "
                     + " ".join(f"{s:>5.0f}%" for s in shares))
    return "\n".join(lines)


# -- MLR/MER on its own: every λ of the grid, one job per (seed, λ) ----------------------------
def mer_point(X, y, n_labeled, seed, weight, *, test_rows=None, n_test=None, n_unlabeled):
    """MLR/MER at one λ on one evaluation set: exactly what :func:`evaluate_split` computes for
    that λ (MLR's C by cv, then the :data:`MER_FOLDS`-fold cv accuracy, the test accuracy, the
    unlabeled rows' class shares), so that the λ grid can be spread over processes."""
    split = evaluation_split(y, n_labeled, seed, test_rows=test_rows, n_test=n_test,
                             n_unlabeled=n_unlabeled)
    F_train, y_train = lr_features(X[split.train]), split.semi_supervised_targets(y)
    seen = labeled_columns(F_train, y_train)
    C = choose_on_labeled(LogisticRegression(fit_intercept=False, max_iter=1000),
                          {"C": list(C_GRID)}, F_train[:, seen], y_train,
                          random_state=seed).value
    template = EntropyRegularizedLR(C=C, entropy_weight=weight, record="summary")
    cv = choose_on_labeled(template, {"entropy_weight": [weight]}, F_train, y_train,
                           cv=MER_FOLDS, random_state=seed, semi_supervised=True).scores[0]
    model = clone(template).fit(F_train, y_train)
    test = float(np.mean(model.predict(lr_features(X[split.test])) == y[split.test]))
    n_classes = int(y.max()) + 1
    shares = np.full(n_classes, np.nan)
    shares[model.classes_] = model.trace_[-1].unlabeled_shares
    return {"C": np.float64(C), "cv_accuracy": np.float64(cv), "test_accuracy": np.float64(test),
            "shares": shares}


@dataclass(frozen=True)
class MerStudy:
    """Results of :func:`mer_study`: MLR/MER at every λ of ``weights`` on several seeds."""

    corpus: str
    n_labeled: int
    weights: tuple
    seeds: np.ndarray
    C: np.ndarray  # (n_seeds,)
    cv_accuracy: np.ndarray  # (n_seeds, n_weights)
    test_accuracy: np.ndarray  # (n_seeds, n_weights)
    shares: np.ndarray  # (n_seeds, n_weights, n_classes): unlabeled rows per predicted class

    @property
    def chosen(self):
        """λ chosen by cross-validation per seed (ties to the smaller λ), shape (n_seeds,)."""
        return np.asarray(self.weights)[np.argmax(self.cv_accuracy, axis=1)]

    @property
    def chosen_accuracy(self):
        """Test accuracy at the cross-validated λ, shape (n_seeds,)."""
        return self.test_accuracy[np.arange(len(self.seeds)), np.argmax(self.cv_accuracy, axis=1)]


def mer_study(corpus, *, n_labeled, seeds, weights=MER_WEIGHTS, use_cache=True, n_jobs=None,
              progress=True):
    """MLR/MER on one corpus and labeled-set size: every λ of ``weights`` on every seed, one
    cached job per (seed, λ) (:func:`mer_point`). With the paper's grid, ``chosen`` and
    ``chosen_accuracy`` are what :func:`evaluate_split` reports for MLR/MER."""
    seeds, weights = np.asarray(seeds, dtype=int), tuple(float(w) for w in weights)
    digest = data_digest(corpus.X, corpus.y, -1 if corpus.test_rows is None else corpus.test_rows)
    jobs = [{"n_labeled": int(n_labeled), "seed": int(seed), "weight": w}
            for seed in seeds for w in weights]
    results = run_jobs(
        mer_point, jobs, kind="hybrid-mer",
        key=lambda job: {"data": digest, "n_test": corpus.n_test, "version": CACHE_VERSION,
                         "n_unlabeled": corpus.n_unlabeled, **job},
        shared={"X": corpus.X, "y": corpus.y, "test_rows": corpus.test_rows,
                "n_test": corpus.n_test, "n_unlabeled": corpus.n_unlabeled},
        use_cache=use_cache, n_jobs=n_jobs, progress=progress,
        description=f"MLR/MER ({corpus.name})")

    def stack(name):
        values = np.array([r[name] for r in results])
        return values.reshape(len(seeds), len(weights), *values.shape[1:])

    return MerStudy(corpus.name, int(n_labeled), weights, seeds, stack("C")[:, 0],
                    stack("cv_accuracy"), stack("test_accuracy"), stack("shares"))


def mer_study_text(study):
    """Per seed: C, the λ chosen by cv and its test accuracy, the test-picked (optimistic)
    accuracy; then per λ the mean cv and test accuracy and the largest class's share."""
    lines = [f"{study.corpus}, {study.n_labeled} labeled: MLR/MER over the λ grid, "
             f"{len(study.seeds)} evaluation sets"]
    for i, seed in enumerate(study.seeds):
        lines.append(f"  set {seed}: C={study.C[i]:g}, λ by cv {study.chosen[i]:g} -> "
                     f"{study.chosen_accuracy[i]:.1%} test; λ picked on test (optimistic) "
                     f"{study.test_accuracy[i].max():.1%}; λ=1e-5 {study.test_accuracy[i, 0]:.1%}")
    largest = np.nanmax(study.shares, axis=2)
    lines.append(f"{'λ':>22} " + " ".join(f"{w:>6g}" for w in study.weights))
    for label, values in (("cv accuracy (mean)", study.cv_accuracy.mean(0)),
                          ("test accuracy (mean)", study.test_accuracy.mean(0)),
                          ("largest share (mean)", largest.mean(0)),
                          ("largest share (max)", largest.max(0))):
        lines.append(f"{label:>22} " + " ".join(f"{v:>6.1%}" for v in values))
    return "\n".join(lines)


# -- Figure 2: test perplexity of Naive Bayes ---------------------------------------------------
def test_perplexity(X_train, y_train, X_test, y_test, alpha, *, n_classes):
    """Eq. 11: exp(−Σ_s Σ_i x_si log θ_{y_s,i} / Σ_s Σ_i x_si) of the NB word distributions."""
    model = MultinomialNB(alpha=alpha).fit(X_train, y_train)
    log_theta = np.full((n_classes, X_train.shape[1]), np.nan)
    log_theta[model.classes_] = model.feature_log_prob_
    per_doc = np.asarray(X_test.multiply(log_theta[y_test]).sum(axis=1)).ravel()
    return float(np.exp(-per_doc.sum() / X_test.sum()))


def perplexity_point(X, y, n_train, seed, *, test_rows=None, n_test=None, n_unlabeled,
                     giant_share=0.01):
    """Test perplexity of NB trained on ``n_train`` labeled documents (α by the evidence), on
    every test document and without the longest ``giant_share`` of them."""
    split = evaluation_split(y, n_train, seed, test_rows=test_rows, n_test=n_test,
                             n_unlabeled=n_unlabeled)
    X_lab, y_lab = X[split.labeled], y[split.labeled]
    alpha = choose_alpha(X_lab, y_lab, method="evidence").value
    X_test, y_test = X[split.test], y[split.test]
    lengths = np.asarray(X_test.sum(axis=1)).ravel()
    n_giant = int(np.ceil(giant_share * len(lengths)))
    keep = np.argsort(lengths)[: len(lengths) - n_giant]
    n_classes = int(y.max()) + 1
    return {"perplexity": np.array([
        test_perplexity(X_lab, y_lab, X_test, y_test, alpha, n_classes=n_classes),
        test_perplexity(X_lab, y_lab, X_test[keep], y_test[keep], alpha, n_classes=n_classes)]),
        "giant_token_share": np.float64(1 - lengths[keep].sum() / lengths.sum())}


@dataclass(frozen=True)
class PerplexityCurve:
    corpus: str
    sizes: np.ndarray
    perplexity: np.ndarray  # (n_sizes, n_seeds, 2): all test documents, without giant ones
    giant_token_share: float  # share of test tokens in the longest 1% of test documents


def perplexity_curve(corpus, *, sizes, seeds, use_cache=True, n_jobs=None, progress=True):
    """Figure 2 for one corpus: NB test perplexity against the number of training documents."""
    sizes, seeds = np.asarray(sizes, dtype=int), np.asarray(seeds, dtype=int)
    digest = data_digest(corpus.X, corpus.y, -1 if corpus.test_rows is None else corpus.test_rows)
    jobs = [{"n_train": int(s), "seed": int(seed)} for s in sizes for seed in seeds]
    results = run_jobs(
        perplexity_point, jobs, kind="hybrid-perplexity",
        key=lambda job: {"data": digest, "n_test": corpus.n_test, "version": CACHE_VERSION,
                         "n_unlabeled": corpus.n_unlabeled, **job},
        shared={"X": corpus.X, "y": corpus.y, "test_rows": corpus.test_rows,
                "n_test": corpus.n_test, "n_unlabeled": corpus.n_unlabeled},
        use_cache=use_cache, n_jobs=n_jobs, progress=progress,
        description=f"Figure 2 ({corpus.name})")
    perplexity = np.array([r["perplexity"] for r in results]).reshape(len(sizes), len(seeds), 2)
    share = float(np.mean([r["giant_token_share"] for r in results]))
    return PerplexityCurve(corpus.name, sizes, perplexity, share)


# -- single runs for the explorers ---------------------------------------------------------------
def hybrid_run(corpus, *, n_labeled, seed, normalize=None):
    """One evaluation set: the fitted HybridNB (with its trace), its split and test accuracy."""
    split = evaluation_split(corpus.y, n_labeled, seed, test_rows=corpus.test_rows,
                             n_test=corpus.n_test, n_unlabeled=corpus.n_unlabeled)
    X_train, y_train = corpus.X[split.train], split.semi_supervised_targets(corpus.y)
    alpha = choose_alpha(X_train, y_train, random_state=seed).value
    model = HybridNB(alpha=alpha, normalize=normalize).fit(X_train, y_train)
    accuracy = float(np.mean(model.predict(corpus.X[split.test]) == corpus.y[split.test]))
    return split, model, accuracy


def mer_sweep(corpus, *, n_labeled, seed, weights=MER_WEIGHTS, C=None):
    """MLR/MER fitted at every λ of ``weights`` on one evaluation set (C by cv unless given).

    Returns ``(C, models, test accuracies)``; each model's trace records the unlabeled rows'
    class shares.
    """
    split = evaluation_split(corpus.y, n_labeled, seed, test_rows=corpus.test_rows,
                             n_test=corpus.n_test, n_unlabeled=corpus.n_unlabeled)
    F_train = lr_features(corpus.X[split.train])
    y_train = split.semi_supervised_targets(corpus.y)
    if C is None:
        seen = labeled_columns(F_train, y_train)
        C = choose_on_labeled(LogisticRegression(fit_intercept=False, max_iter=1000),
                              {"C": list(C_GRID)}, F_train[:, seen], y_train,
                              random_state=seed).value
    models = [EntropyRegularizedLR(C=C, entropy_weight=w).fit(F_train, y_train)
              for w in weights]
    F_test, y_test = lr_features(corpus.X[split.test]), corpus.y[split.test]
    return C, models, np.array([np.mean(m.predict(F_test) == y_test) for m in models])


# -- the paper-scale command ---------------------------------------------------------------------
def main(argv=None):
    """``python -m sslviz.experiments.hybrid table | perplexity [options]`` (paper scale)."""
    parser = argparse.ArgumentParser(
        prog="python -m sslviz.experiments.hybrid",
        description="Tables 1-3 (table) or Figure 2 (perplexity) of Fujino, Ueda & Saito "
        "(2005) at paper scale: all labeled-set sizes, 10 evaluation sets. Cached per job; an "
        "interrupted run resumes.")
    parser.add_argument("command", choices=["table", "perplexity"])
    parser.add_argument("--corpora", nargs="+", choices=list(CORPORA), default=list(CORPORA))
    parser.add_argument("--sizes", type=int, nargs="+", help="labeled-set sizes (default: "
                        "the paper's)")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(PAPER_N_SEEDS)))
    parser.add_argument("--n-jobs", type=int, default=-1)
    parser.add_argument("--no-cache", action="store_true")
    args = parser.parse_args(argv)
    if any(size < 1 for size in args.sizes or []) or args.n_jobs == 0:
        parser.error("--sizes must be positive and --n-jobs nonzero")
    start = time.perf_counter()
    for name in args.corpora:
        corpus = load_hybrid_corpus(name)
        if args.command == "table":
            table = hybrid_table(corpus, sizes=args.sizes or PAPER_SIZES[name], seeds=args.seeds,
                                 use_cache=not args.no_cache, n_jobs=args.n_jobs)
            print(table_text(table), normalization_text(table), mer_text(table), sep="\n\n",
                  flush=True)
        else:
            curve = perplexity_curve(corpus, sizes=args.sizes or PERPLEXITY_SIZES[name],
                                     seeds=args.seeds, use_cache=not args.no_cache,
                                     n_jobs=args.n_jobs)
            print(perplexity_text(curve), flush=True)
    print(f"wall time {time.perf_counter() - start:.0f} s")
    return 0


PERPLEXITY_SIZES = {"reuters": (10, 30, 100, 300, 985), "webkb": (10, 30, 100, 300, 699),
                    "20news": (10, 30, 100, 300, 1000, 1391)}


def perplexity_text(curve):
    """Figure 2 as text: mean perplexity over seeds, with and without the giant test documents."""
    lines = [f"{curve.corpus}: NB test perplexity (all test documents / without the longest 1%, "
             f"which hold {curve.giant_token_share:.0%} of the test tokens)"]
    for size, values in zip(curve.sizes, curve.perplexity.mean(axis=1), strict=True):
        lines.append(f"{size:>6} training documents: {values[0]:>7.0f} / {values[1]:>7.0f}")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
