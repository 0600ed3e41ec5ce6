"""Experiments of the classification-EM lecture (07): the paper's Figure 1 and Table 1 on the
Reuters sentence-extraction analog, a 2-D stepper, and NB-CEM vs NB-EM on bag-of-words.

Every model gets the same tuning budget, chosen on labeled rows only (:mod:`sslviz.tuning`):
the supervised logistic regression's C by 3-fold CV on the labeled sentences, Logistic CEM's C by
3-fold CV whose folds also train on every unlabeled sentence (both by
:func:`~sslviz.tuning.choose_by_cv_interior`, ``kind="C"``: the grid is extended by decades while
the best C is an end of it), the Gaussian models' covariance type (categorical, no edge) the same
way by :func:`~sslviz.tuning.choose_by_cv`; Kupiec's categorical NB's α like C (``kind="alpha"``),
the bag-of-words NB's α by the evidence (:func:`~sslviz.tuning.choose_nb_alpha`). A choice that
still stops at a bound of its kind is acknowledged (:data:`EDGE_REASON`) and recorded
(``..._at_bound``), and the lecture states it. The folds keep the sentences of a story together
(a story's sentences are alike, so sentence-level folds would score a model on stories it
trained on), and the score is the held-out log-likelihood of the labels (a proper score for
these probabilistic models; average precision ignores the calibration that decides the C-step).
Features are standardised with the training sentences' mean and spread (no labels used).
Sentences are ranked by log-odds (``decision_function``).
Each (fraction, seed) is one cached job of :func:`sslviz.experiments.runner.run_jobs`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import CategoricalNB, GaussianNB
from sklearn.preprocessing import KBinsDiscretizer, StandardScaler

from ..cache import data_digest
from ..cem import GaussianCEM, decision_at_iteration
from ..datasets.reuters_sentences import average_precision, split_stories
from ..datasets.toy import make_rotated_clusters
from ..em import SemiSupervisedNB
from ..logistic_cem import LogisticCEM
from ..splits import split_labeled
from ..threads import one_thread
from ..tuning import choose_by_cv, choose_by_cv_interior, choose_nb_alpha
from ..validation import check_choice
from .runner import run_jobs

RESULT_VERSION = 1  # bump for a change sslviz.code_digest cannot see (a dependency's)
FRACTIONS = (0.05, 0.1, 0.2, 0.5, 1.0)
C_GRID = (0.01, 0.1, 1.0, 10.0)
COVARIANCES = ("shared", "full", "diag")
SCORING = "log-likelihood"  # sslviz.tuning's proper score (the default)
CV = 3  # folds of every tuning; the same budget for every model
KUPIEC_ALPHA_GRID = (0.1, 1.0, 10.0)
EDGE_REASON = "the job records its edge choices (at_bound); the lecture states them"


def _used(choice, result, name):
    """The chosen value; an edge choice is acknowledged and ``result[name + "_at_bound"]`` set."""
    result[f"{name}_at_bound"] = float(choice.at_bound)
    if choice.at_bound:
        choice = choice.acknowledge_edge(EDGE_REASON)
    return choice.value


def _choose_c(estimator, X, y, result, name, grid=None, **cv_kwargs):
    """C by cross-validated held-out log-likelihood (the default proper score), kept interior."""
    grid = C_GRID if grid is None else grid
    return _used(choose_by_cv_interior(estimator, "C", grid, X, y, kind="C", **cv_kwargs),
                 result, name)
FIGURE1_MODELS = ("logistic", "logistic_cem", "gaussian", "gaussian_cem")
TABLE1_MODELS = ("kupiec_nb", "gaussian_nb", "generative_shared", "generative_full", "logistic")
PAPER_TABLE1 = {  # Amini & Gallinari (2002), Table 1, Reuters: (average precision, accuracy) %
    "Naive Bayes": (61.02, 63.03), "Generative-CEM": (72.86, 73.06),
    "Logistic-CEM": (73.84, 74.22)}


def _scaled_split(features, story, fraction, seed):
    """The seeded split of the stories, and every sentence scaled by the training sentences."""
    split = split_stories(story, fraction, random_state=seed)
    return split, StandardScaler().fit(features[split.train]).transform(features)


def _semi_targets(relevant, split):
    """Relevance of the labeled training sentences, then -1 for the unlabeled ones."""
    return np.concatenate([relevant[split.labeled], np.full(len(split.unlabeled), -1)])


def _train_stories(story, split):
    """The story of every training row, in the order of :func:`_semi_targets`."""
    return np.concatenate([story[split.labeled], story[split.unlabeled]])


def _prepared(features, relevant, story, fraction, seed):
    split, X = _scaled_split(features, story, fraction, seed)
    return split, X, _semi_targets(relevant, split)


def figure1_job(features, relevant, story, index, fraction, seed):
    """One seeded split at one labeled fraction: AP and accuracy of every Figure-1 model."""
    split, X, y_semi = _prepared(features, relevant, story, fraction, seed)
    X_lab, y_lab, X_train = X[split.labeled], relevant[split.labeled], X[split.train]
    semi = len(split.unlabeled) > 0
    sup = {"cv": CV, "random_state": seed, "groups": story[split.labeled]}
    cem = {"cv": CV, "random_state": seed, "groups": _train_stories(story, split)}
    edges = {}
    c_sup = _choose_c(LogisticRegression(), X_lab, y_lab, edges, "logistic_C", **sup)
    c_cem = _choose_c(LogisticCEM(record="summary"), X_train, y_semi, edges, "logistic_cem_C",
                      semi_supervised=True, **cem)
    cov_sup = choose_by_cv(GaussianCEM(max_iter=0, record="summary"),
                           {"covariance": list(COVARIANCES)}, X_lab, y_lab, **sup).value
    cov_cem = choose_by_cv(GaussianCEM(record="summary"), {"covariance": list(COVARIANCES)},
                           X_train, y_semi, semi_supervised=semi, **cem).value
    models = {
        "logistic": LogisticRegression(C=c_sup).fit(X_lab, y_lab),
        "logistic_cem": LogisticCEM(C=c_cem, record="summary").fit(X_train, y_semi),
        "gaussian": GaussianCEM(covariance=cov_sup, max_iter=0).fit(X_lab, y_lab),
        "gaussian_cem": GaussianCEM(covariance=cov_cem, record="summary").fit(X_train, y_semi),
    }
    test = split.test
    result = {"lead_ap": average_precision(-index[test], relevant[test], story[test])[0],
              "logistic_C": c_sup, "logistic_cem_C": c_cem,
              "gaussian_covariance": COVARIANCES.index(cov_sup),
              "gaussian_cem_covariance": COVARIANCES.index(cov_cem), **edges}
    for name, model in models.items():
        result[f"{name}_ap"] = average_precision(model.decision_function(X[test]),
                                                 relevant[test], story[test])[0]
        result[f"{name}_accuracy"] = np.mean(model.predict(X[test]) == relevant[test])
        result[f"{name}_positive_share"] = np.mean(model.predict(X[test]))
    return {key: np.float64(value) for key, value in result.items()}


@dataclass(frozen=True)
class Figure1:
    """Figure-1 analog: values per model, shape (n_fractions, n_seeds)."""

    fractions: np.ndarray
    seeds: np.ndarray
    ap: dict  # model -> (n_fractions, n_seeds)
    accuracy: dict
    positive_share: dict
    lead_ap: np.ndarray  # (n_seeds,): ranking by position does not depend on the labels
    chosen: dict  # "logistic_C", "logistic_cem_C", "logistic_C_at_bound", ... -> (n_fr., n_seeds)

    def at(self, fraction):
        """Row index of a recorded fraction."""
        matches = np.flatnonzero(np.isclose(self.fractions, fraction))
        if len(matches) == 0:
            raise ValueError(f"fraction {fraction} was not run; recorded: "
                             f"{self.fractions.tolist()}")
        return int(matches[0])


def figure1(corpus, *, threshold=0.5, fractions=FRACTIONS, seeds=(0, 1, 2, 3, 4),
            use_cache=True, n_jobs=None, progress=True):
    """Average precision against the share of labeled training stories (the paper's Figure 1).

    Parameters
    ----------
    corpus : SentenceCorpus
    threshold : float
        Relevance threshold on the headline overlap.
    fractions : sequence of float in (0, 1]
    seeds : sequence of int
        One split of the stories (1/3 training, 2/3 test) per seed.

    Returns
    -------
    Figure1
    """
    relevant = corpus.relevant(threshold)
    shared = {"features": corpus.features, "relevant": relevant, "story": corpus.story,
              "index": corpus.index}
    digest = data_digest(corpus.features, relevant, corpus.story, corpus.index)
    jobs = [{"fraction": float(f), "seed": int(s)} for f in fractions for s in seeds]
    results = run_jobs(figure1_job, jobs, kind="classification_em",
                       key=lambda job: {"data": digest, "grid": C_GRID, "scoring": SCORING,
                                        "version": RESULT_VERSION, "figure": 1, **job},
                       shared=shared, use_cache=use_cache, n_jobs=n_jobs, progress=progress,
                       description="Figure 1 analog")
    shape = (len(fractions), len(seeds))

    def table(name):
        return np.array([r[name] for r in results], dtype=float).reshape(shape)

    return Figure1(
        np.asarray(fractions, float), np.asarray(seeds),
        {m: table(f"{m}_ap") for m in FIGURE1_MODELS},
        {m: table(f"{m}_accuracy") for m in FIGURE1_MODELS},
        {m: table(f"{m}_positive_share") for m in FIGURE1_MODELS},
        table("lead_ap")[0],
        {k: table(k) for k in ("logistic_C", "logistic_cem_C", "gaussian_covariance",
                               "gaussian_cem_covariance", "logistic_C_at_bound",
                               "logistic_cem_C_at_bound")})


def table1_job(features, relevant, story, index, seed):
    """Every Table-1 model trained on all training labels: AP and accuracy on the test stories."""
    split, X, _ = _prepared(features, relevant, story, 1.0, seed)
    X_lab, y_lab, test = X[split.labeled], relevant[split.labeled], split.test
    bins = KBinsDiscretizer(n_bins=5, encode="ordinal", strategy="quantile",
                            quantile_method="averaged_inverted_cdf")
    with warnings.catch_warnings():  # count features have repeated values: fewer bins, fine
        warnings.filterwarnings("ignore", message="Bins whose width are too small")
        binned = bins.fit(features[split.train]).transform(features).astype(int)
    folds = {"cv": CV, "random_state": seed, "groups": story[split.labeled]}
    edges = {}
    kupiec = choose_by_cv_interior(CategoricalNB(min_categories=5), "alpha", KUPIEC_ALPHA_GRID,
                                   binned[split.labeled], y_lab, kind="alpha", **folds)
    kupiec_alpha = _used(kupiec, edges, "kupiec_alpha")
    c_sup = _choose_c(LogisticRegression(), X_lab, y_lab, edges, "logistic_C", **folds)
    models = {
        "kupiec_nb": (CategoricalNB(alpha=kupiec_alpha, min_categories=5), binned),
        "gaussian_nb": (GaussianNB(), X),
        "generative_shared": (GaussianCEM(covariance="shared", max_iter=0), X),
        "generative_full": (GaussianCEM(covariance="full", max_iter=0), X),
        "logistic": (LogisticRegression(C=c_sup), X),
    }
    result = {"lead_ap": average_precision(-index[test], relevant[test], story[test])[0],
              "lead_ap_all_k": average_precision(-index[test], relevant[test], story[test],
                                                 reading="all_k")[0],
              "majority_accuracy": max(np.mean(relevant[test]), 1 - np.mean(relevant[test])),
              "kupiec_alpha": kupiec_alpha, "logistic_C": c_sup, **edges}
    for name, (model, data) in models.items():
        model.fit(data[split.labeled], y_lab)
        probability = model.predict_proba(data[test])[:, 1]
        log_odds = (model.decision_function(data[test]) if hasattr(model, "decision_function")
                    else np.diff(model.predict_joint_log_proba(data[test]), axis=1)[:, 0])
        result[f"{name}_ap"] = average_precision(log_odds, relevant[test], story[test])[0]
        result[f"{name}_ap_all_k"] = average_precision(log_odds, relevant[test], story[test],
                                                       reading="all_k")[0]
        result[f"{name}_ap_probability"] = average_precision(probability, relevant[test],
                                                             story[test])[0]
        result[f"{name}_accuracy"] = np.mean(model.predict(data[test]) == relevant[test])
    return {key: np.float64(value) for key, value in result.items()}


def table1(corpus, *, threshold=0.5, seeds=(0, 1, 2, 3, 4), use_cache=True, n_jobs=None,
           progress=True):
    """Table-1 analog: dict of measure name -> array over seeds (see :func:`table1_job`)."""
    relevant = corpus.relevant(threshold)
    shared = {"features": corpus.features, "relevant": relevant, "story": corpus.story,
              "index": corpus.index}
    digest = data_digest(corpus.features, relevant, corpus.story, corpus.index)
    results = run_jobs(table1_job, [{"seed": int(s)} for s in seeds], kind="classification_em",
                       key=lambda job: {"data": digest, "version": RESULT_VERSION, "table": 1,
                                        "grid": C_GRID, "scoring": SCORING, **job},
                       shared=shared, use_cache=use_cache, n_jobs=n_jobs, progress=progress,
                       description="Table 1 analog")
    return {name: np.array([r[name] for r in results], dtype=float) for name in results[0]}


def extraction_refit(corpus, *, seeds=(0, 1, 2)):
    """A cached ``(fraction, model, covariance, C, threshold) -> dict`` for the explorer.

    ``model`` is ``"logistic"`` or ``"gaussian"``; for each seed the supervised model and its
    CEM are fitted at the given settings (no tuning: the sliders choose). Returns arrays over
    seeds: ``supervised_ap``, ``cem_ap``, ``lead_ap``, and ``relevant_share`` (the C-step's share
    of unlabeled sentences called relevant, per iteration, seed 0) and ``true_share``.

    Work is shared between settings: ``covariance`` does not change a logistic model nor ``C``
    a Gaussian one (both share one result); the scaled split of a (fraction, seed) and the lead
    rule's average precision of a (fraction, threshold) are computed once. The fits run with
    one BLAS thread (tiny models: more threads only wait for each other).
    """
    @lru_cache(maxsize=32)
    def prepared(fraction, seed):
        return _scaled_split(corpus.features, corpus.story, fraction, seed)

    @lru_cache(maxsize=16)
    def lead(fraction, threshold):
        relevant = corpus.relevant(threshold)
        return [average_precision(-corpus.index[test], relevant[test], corpus.story[test])[0]
                for test in (prepared(fraction, seed)[0].test for seed in seeds)]

    @lru_cache(maxsize=64)
    def fit(fraction, model, setting, threshold):
        relevant = corpus.relevant(threshold)
        out = {"supervised_ap": [], "cem_ap": [], "lead_ap": lead(fraction, threshold)}
        for seed in seeds:
            split, X = prepared(fraction, seed)
            y_semi = _semi_targets(relevant, split)
            with one_thread():
                cem = (LogisticCEM(C=setting) if model == "logistic"
                       else GaussianCEM(covariance=setting)).fit(X[split.train], y_semi)
            test = split.test
            story, rel = corpus.story[test], relevant[test]
            out["cem_ap"].append(average_precision(cem.decision_function(X[test]), rel, story)[0])
            supervised = decision_at_iteration(cem, X[test], 0)  # the labeled rows only
            out["supervised_ap"].append(average_precision(supervised, rel, story)[0])
            if seed == seeds[0]:
                sizes = np.array([np.mean(step.partition == 1) for step in cem.trace_])
                out["relevant_share"] = sizes
                out["true_share"] = float(np.mean(relevant[split.unlabeled])) if len(
                    split.unlabeled) else float(np.mean(relevant[split.labeled]))
        return {k: np.asarray(v) for k, v in out.items()}

    def refit(fraction, model, covariance, C, threshold):
        check_choice("model", model, ("logistic", "gaussian"))
        return fit(fraction, model, C if model == "logistic" else covariance, threshold)

    return refit


# -- the 2-D stepper -----------------------------------------------------------------------------
@dataclass(frozen=True)
class StepperRun:
    """Toy data of lecture 01 with a few labels, and the two CEM models fitted on it."""

    X: np.ndarray
    y: np.ndarray
    y_semi: np.ndarray
    gaussian: GaussianCEM
    logistic: LogisticCEM


@lru_cache(maxsize=32)
def stepper_run(n_labeled=2, seed=0, covariance="full", C=1.0, n_samples=300):
    """Two elongated clusters (``make_rotated_clusters``, angle 0), ``n_labeled`` per class."""
    X, y = make_rotated_clusters(n_samples, random_state=seed)
    split = split_labeled(y, n_labeled, per_class=True, random_state=seed)
    y_semi = split.semi_supervised_targets(y)  # in the order of split.train
    X, y = X[split.train], y[split.train]
    return StepperRun(X, y, y_semi, GaussianCEM(covariance=covariance).fit(X, y_semi),
                      LogisticCEM(C=C).fit(X, y_semi))


# -- bag of words: NB-CEM vs NB-EM ---------------------------------------------------------------
BOW_MODELS = ("nb", "nb_em", "nb_cem", "logistic")
BOW_C_GRID = (0.1, 1.0, 10.0, 100.0, 1000.0)


def tfidf_rows(X, fit_rows):
    """Unit-length tf-idf of the counts ``X``, idf from ``fit_rows`` (no labels used)."""
    return TfidfTransformer(sublinear_tf=True).fit(X[fit_rows]).transform(X)


def bow_job(X, y, test_rows, n_unlabeled, n_labeled, seed):
    """NB, NB-EM, NB-CEM (α by the evidence on the labeled rows) and logistic regression on
    unit-length tf-idf (idf from the training posts, C by CV log-likelihood on the labeled rows,
    the grid kept interior; C = 1 with one labeled post per class, where no fold can be held
    out)."""
    split = split_labeled(y, n_labeled, per_class=True, n_unlabeled=n_unlabeled,
                          test_rows=test_rows, random_state=seed)
    X_train, y_semi = X[split.train], split.semi_supervised_targets(y)
    X_lab, y_lab = X[split.labeled], y[split.labeled]
    edges = {}
    alpha = _used(choose_nb_alpha(X_lab, y_lab), edges, "alpha")
    T = tfidf_rows(X, split.train)
    c_sup = (_choose_c(LogisticRegression(max_iter=1000), T[split.labeled], y_lab, edges,
                       "logistic_C", grid=BOW_C_GRID, random_state=seed)
             if n_labeled >= 2 else 1.0)
    models = {
        "nb": SemiSupervisedNB(alpha=alpha, max_iter=0, record="summary"),
        "nb_em": SemiSupervisedNB(alpha=alpha, assignment="soft", record="summary"),
        "nb_cem": SemiSupervisedNB(alpha=alpha, assignment="hard", record="summary"),
    }
    result = {"alpha": alpha, "logistic_C": c_sup, **edges}
    X_test, y_test = X[split.test], y[split.test]
    for name, model in models.items():
        result[f"{name}_accuracy"] = np.mean(model.fit(X_train, y_semi).predict(X_test) == y_test)
    logistic = LogisticRegression(C=c_sup, max_iter=1000).fit(T[split.labeled], y_lab)
    result["logistic_accuracy"] = np.mean(logistic.predict(T[split.test]) == y_test)
    return {key: np.float64(value) for key, value in result.items()}


def bow_curves(X, y, *, sizes, seeds, test_rows, n_unlabeled, use_cache=True, n_jobs=None,
               progress=True):
    """Accuracy of every :data:`BOW_MODELS` model, dict name -> (n_sizes, n_seeds)."""
    test_rows = np.asarray(test_rows)
    digest = data_digest(X, np.asarray(y), test_rows)
    jobs = [{"n_labeled": int(n), "seed": int(s)} for n in sizes for s in seeds]
    results = run_jobs(bow_job, jobs, kind="classification_em",
                       key=lambda job: {"data": digest, "n_unlabeled": n_unlabeled, "bow": 2,
                                        "version": RESULT_VERSION, **job},
                       shared={"X": X, "y": y, "test_rows": test_rows,
                               "n_unlabeled": n_unlabeled},
                       use_cache=use_cache, n_jobs=n_jobs, progress=progress,
                       description="NB-CEM vs NB-EM")
    shape = (len(sizes), len(seeds))
    return {name: np.array([r[f"{name}_accuracy"] for r in results]).reshape(shape)
            for name in BOW_MODELS} | {
                name: np.array([r.get(name, 0.0) for r in results]).reshape(shape)
                for name in ("alpha", "alpha_at_bound", "logistic_C", "logistic_C_at_bound")}
