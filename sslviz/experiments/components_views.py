"""Lecture 10's experiments: several components per class (M-EM) and two views (co-training).

* **M-EM** on Reuters-21578 (R8) one-vs-rest tasks: a few labeled stories of one topic and of the
  rest, the other training stories unlabeled, the R8 test stories scored. Naive Bayes on the
  labeled rows, EM with one component per class, and M-EM with the number of components per class
  chosen on the labeled rows by held-out log-likelihood
  (:func:`sslviz.tuning.choose_by_cv_interior`, ``kind="n_components"``: the grid is doubled
  while its largest value wins, up to the kind's bound); α by the evidence
  (:func:`sslviz.tuning.choose_nb_alpha`). Scores: precision/recall break-even and accuracy.
* **Co-training** on WebKB course vs the rest (Blum & Mitchell's protocol): 12 labeled pages
  (3 course), a quarter of the pages for test, the rest unlabeled; supervised page, link and
  combined Naive Bayes, co-training and self-training on both views together; every α by the
  evidence on the labeled rows, over the columns the Naive Bayes uses.

A choice that stops at a bound of its kind is acknowledged (:data:`EDGE_REASON`) and recorded
(``k_at_bound``, ``alpha_at_bound``...), and the lecture states it.

Every seeded run goes through :func:`sslviz.experiments.runner.run_jobs` (cached, parallel,
progress bar). Cost: an M-EM run is about 25 EM fits on 5,485 stories (a few seconds); a
co-training run 30 iterations of two NB fits on about 800 pages.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp
from sklearn.naive_bayes import MultinomialNB
from sklearn.preprocessing import normalize

from ..cache import data_digest
from ..co_training import CoTraining, TrainedVocabularyNB
from ..em import SemiSupervisedNB
from ..text import TextOptions, load_counts, load_link_views
from ..tuning import choose_by_cv_interior, choose_nb_alpha
from ..validation import check_choice, check_int
from .runner import run_jobs

RESULT_VERSION = 1  # bump for a change sslviz.code_digest cannot see (a dependency's)
COMPONENT_GRID = (1, 2, 4, 8, 16, 32)
R8_OPTIONS = TextOptions(stop_words="smart", min_df=3)
TASKS = ("crude", "trade", "ship")
EDGE_REASON = "the run records its edge choices (at_bound); the lecture states them"


def _used(choice):
    """``(value, at_bound)`` of a choice; an edge choice is acknowledged (:data:`EDGE_REASON`)."""
    if choice.at_bound:
        choice = choice.acknowledge_edge(EDGE_REASON)
    return choice.value, float(choice.at_bound)


# -- data --------------------------------------------------------------------------------------

@lru_cache(maxsize=1)
def reuters_counts():
    """R8 as counts: ``(X_train, target_train, X_test, target_test, names, vocabulary)``."""
    both = load_counts("reuters21578", R8_OPTIONS, subset="all")
    n_train = load_counts("reuters21578", R8_OPTIONS, subset="train").X.shape[0]
    return (both.X[:n_train], both.y[:n_train], both.X[n_train:], both.y[n_train:],
            list(both.target_names), both.vocabulary)


WEBKB_OPTIONS = (TextOptions(stop_words="smart", min_df=2),  # page words
                 TextOptions(stop_words="smart", min_df=1))  # in-link anchor words


@lru_cache(maxsize=1)
def webkb_views():
    """WebKB pages with in-link text: ``(X_page, X_link, target, page_vocabulary,
    link_vocabulary)`` (cached with the vectorized corpora, :func:`sslviz.text.load_link_views`).
    """
    views = load_link_views(*WEBKB_OPTIONS)
    return (views["page"], views["link"], views["target"], views["page_vocabulary"],
            views["link_vocabulary"])


# -- scores --------------------------------------------------------------------------------------

def breakeven(scores, y_true):
    """Precision/recall break-even (%): precision among the ``n_positive`` top-scored rows."""
    y_true = np.asarray(y_true)
    n_positive = int(y_true.sum())
    if n_positive == 0:
        raise ValueError("break-even needs at least one positive row")
    top = np.argsort(-np.asarray(scores), kind="stable")[:n_positive]
    return 100.0 * y_true[top].mean()


def _margin(model, X):
    log_proba = model.predict_log_proba(X)
    return log_proba[:, 1] - log_proba[:, 0]


# -- M-EM ----------------------------------------------------------------------------------------

def one_vs_rest_labels(target, positive, n_positive, n_negative, seed):
    """``y`` with ``n_positive`` / ``n_negative`` labeled rows drawn at random, ``-1`` elsewhere."""
    target = np.asarray(target)
    rng = np.random.default_rng(seed)
    pos, neg = np.flatnonzero(target == positive), np.flatnonzero(target != positive)
    if n_positive > len(pos) or n_negative > len(neg):
        raise ValueError(f"asked for {n_positive} positive and {n_negative} negative rows; there"
                         f" are {len(pos)} and {len(neg)}")
    y = np.full(len(target), -1)
    y[rng.choice(neg, n_negative, replace=False)] = 0
    y[rng.choice(pos, n_positive, replace=False)] = 1
    return y


def mem_run(X_train, target_train, X_test, target_test, positive, seed, n_positive=5,
            n_negative=35, grid=COMPONENT_GRID, max_iter=10):
    """NB, EM and M-EM on one one-vs-rest split; break-even and accuracy (%) of each.

    k (components per class) by 5-fold CV held-out log-likelihood from ``grid``, doubled while
    its largest value wins (``cv_grid``, ``cv_scores``: every k scored); α by the evidence.
    """
    y = one_vs_rest_labels(target_train, positive, n_positive, n_negative, seed)
    y_test = (np.asarray(target_test) == positive).astype(int)
    alpha, alpha_at_bound = _used(choose_nb_alpha(X_train, y))
    template = SemiSupervisedNB(alpha=alpha, max_iter=max_iter, record="summary",
                                random_state=seed)
    choice = choose_by_cv_interior(template, "n_components", grid, X_train, y,
                                   kind="n_components", semi_supervised=True, random_state=seed)
    k, k_at_bound = _used(choice)
    models = {"NB": template.set_params(max_iter=0, n_components=1),
              "EM": SemiSupervisedNB(alpha=alpha, max_iter=max_iter, record="summary",
                                     random_state=seed),
              "M-EM": SemiSupervisedNB(alpha=alpha, max_iter=max_iter, record="summary",
                                       n_components=k, random_state=seed)}
    out = {"alpha": alpha, "alpha_at_bound": alpha_at_bound, "k": k, "k_at_bound": k_at_bound,
           "cv_grid": np.array([c["n_components"] for c in choice.candidates]),
           "cv_scores": choice.scores,
           "majority": 100.0 * max(y_test.mean(), 1 - y_test.mean())}
    unlabeled = y == -1
    for name, model in models.items():
        model.fit(X_train, y)
        out[f"{name}_breakeven"] = breakeven(_margin(model, X_test), y_test)
        out[f"{name}_accuracy"] = 100.0 * np.mean(model.predict(X_test) == y_test)
        absorbed = np.asarray(target_train)[unlabeled][model.predict(X_train[unlabeled]) == 1]
        out[f"{name}_absorbed"] = np.bincount(absorbed, minlength=int(np.max(target_train)) + 1)
    return out


def mem_experiment(tasks=TASKS, seeds=range(5), *, n_positive=5, n_negative=35, n_jobs=None,
                   use_cache=True, progress=True):
    """:func:`mem_run` for every task and seed; a list of result dicts in (task, seed) order."""
    X_train, t_train, X_test, t_test, names, _ = reuters_counts()
    digest = data_digest(X_train, t_train, X_test, t_test)
    jobs = [{"positive": names.index(task), "seed": int(seed), "n_positive": n_positive,
             "n_negative": n_negative} for task in tasks for seed in seeds]
    return run_jobs(mem_run, jobs, kind="components_views_mem",
                    key=lambda job: {**job, "data": digest, "version": RESULT_VERSION},
                    shared={"X_train": X_train, "target_train": t_train, "X_test": X_test,
                            "target_test": t_test},
                    n_jobs=n_jobs, use_cache=use_cache, progress=progress,
                    description="M-EM runs")


def component_top_words(X, y, vocabulary, *, alpha, n_components, seed, max_iter=10, k=8,
                        candidates=50):
    """Words that set each mixture component apart from its class, at each EM iteration (list
    over iterations of ``(n_components_total, k)`` word arrays), components of class 0 first.

    Among a component's ``candidates`` most probable words, the ``k`` of largest lift
    ``P(w | m) / P(w | class of m)`` (the class's distribution: its components mixed by their
    priors), ties in order of probability: words every component shares (digits, "reuter")
    have lift near 1 and give way to the component's own topic.
    """
    model = SemiSupervisedNB(alpha=alpha, n_components=n_components, max_iter=max_iter,
                             random_state=seed)
    frames = []
    for _ in model.iter_fit(X, y):
        frames.append(np.asarray(vocabulary)[component_lift_order(
            model.component_log_prob_, model.component_log_prior_, n_components,
            candidates)[:, :k]])
    return frames


def component_lift_order(log_prob, log_prior, n_components, candidates=50):
    """Word indices per component, by lift over its class among its ``candidates`` most
    probable words (see :func:`component_top_words`); shape (n_components_total, candidates)."""
    grouped = log_prob.reshape(-1, n_components, log_prob.shape[1])
    weights = log_prior.reshape(-1, n_components)
    weights = weights - logsumexp(weights, axis=1, keepdims=True)
    class_log_prob = logsumexp(grouped + weights[:, :, None], axis=1)
    lift = log_prob - np.repeat(class_log_prob, n_components, axis=0)
    top = np.argsort(-log_prob, axis=1, kind="stable")[:, :candidates]
    order = np.argsort(-np.take_along_axis(lift, top, axis=1), axis=1, kind="stable")
    return np.take_along_axis(top, order, axis=1)


# -- co-training ---------------------------------------------------------------------------------

def cotraining_split(target, seed, n_positive=3, n_negative=9, test_fraction=0.25):
    """Test rows (a quarter), and ``y`` over the other rows (``-1`` unlabeled)."""
    target = np.asarray(target)
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(target))
    n_test = int(len(target) * test_fraction)
    test, train = np.sort(order[:n_test]), np.sort(order[n_test:])
    y = np.full(len(train), -1)
    pos = rng.permutation(np.flatnonzero(target[train] == 1))[:n_positive]
    neg = rng.permutation(np.flatnonzero(target[train] == 0))[:n_negative]
    if len(pos) < n_positive or len(neg) < n_negative:
        raise ValueError("not enough pages of a class for the labeled set")
    y[pos], y[neg] = 1, 0
    return train, test, y


VOCABULARIES = ("trained", "all")


def naive_bayes(alpha, vocabulary):
    """The views' Naive Bayes: over the words of its training rows (``"trained"``,
    :class:`~sslviz.co_training.TrainedVocabularyNB`) or over every column (``"all"``)."""
    return TrainedVocabularyNB(alpha=alpha) if vocabulary == "trained" else MultinomialNB(
        alpha=alpha)


def _chosen_alpha(X, y, vocabulary):
    """``(α, at_bound)``: α by the evidence (:func:`sslviz.tuning.choose_nb_alpha`) on the
    labeled rows, over the columns the NB will use (``"trained"``: the labeled rows' words)."""
    if vocabulary == "trained":
        X = X[:, np.flatnonzero(np.asarray(X[y != -1].sum(axis=0)).ravel() > 0)]
    return _used(choose_nb_alpha(X, y))


def cotraining_run(X_page, X_link, target, seed, n_positive=3, n_negative=9, max_iter=30,
                   link_length=None, vocabulary="trained"):
    """Supervised, co-trained and self-trained errors (%) on one split, and what was added.

    ``link_length``: scale every page's link-word counts to this many words (``None``: raw).
    ``vocabulary``: every Naive Bayes over the words of its training rows (``"trained"``) or
    over the vocabulary of all pages (``"all"``, where unseen words still count).
    """
    target = np.asarray(target)
    check_choice("vocabulary", vocabulary, VOCABULARIES)
    if link_length is not None:
        X_link = sp.csr_matrix(normalize(X_link, norm="l1") * float(link_length))
    train, test, y = cotraining_split(target, seed, n_positive, n_negative)
    X = sp.hstack([X_page, X_link]).tocsr()
    n0 = X_page.shape[1]
    err = {}

    def error(pred):
        return 100.0 * np.mean(pred != target[test])

    for name, view in (("page", X_page), ("link", X_link)):
        alpha, err[f"alpha_{name}_at_bound"] = _chosen_alpha(view[train], y, vocabulary)
        model = naive_bayes(alpha, vocabulary).fit(view[train][y != -1], y[y != -1])
        err[f"supervised_{name}"] = error(model.predict(view[test]))
        err[f"alpha_{name}"] = alpha
    alpha, err["alpha_both_at_bound"] = _chosen_alpha(X[train], y, vocabulary)
    err["alpha_both"] = alpha
    nb = naive_bayes(alpha, vocabulary)
    combined = CoTraining(n0, estimator=nb, max_iter=0, random_state=seed).fit(X[train], y)
    err["supervised_combined"] = error(combined.predict(X[test]))
    co = CoTraining(n0, estimator=nb, max_iter=max_iter, random_state=seed).fit(X[train], y)
    err["co_page"] = error(co.predict_view(X[test], 0))
    err["co_link"] = error(co.predict_view(X[test], 1))
    err["co_combined"] = error(co.predict(X[test]))
    self_trained = CoTraining(n0, estimator=nb, max_iter=max_iter, mode="self",
                              random_state=seed).fit(X[train], y)
    err["self_both"] = error(self_trained.predict(X[test]))
    err["co_link_course_share"] = 100.0 * np.mean(co.predict_view(X[test], 1) == 1)
    err.update(_link_vocabulary(X_link[train][co.transduction_ != -1],
                                co.transduction_[co.transduction_ != -1], X_link[test]))
    steps = list(co.trace_)[1:]
    added = np.concatenate([s.added for s in steps]).astype(int)
    labels = np.concatenate([s.labels for s in steps]).astype(int)
    by_view = np.concatenate([s.by_view for s in steps]).astype(int)
    iteration = np.concatenate([np.full(len(s.added), s.iteration) for s in steps])
    truth = target[train][added]
    page_words = np.asarray(X_page[train].sum(axis=1)).ravel()
    link_words = np.asarray(X_link[train].sum(axis=1)).ravel()
    return {**err, "added": train[added], "added_label": labels, "added_true": truth,
            "added_view": by_view, "added_iteration": iteration,
            "added_link_words": link_words[added], "added_page_words": page_words[added],
            "median_link_words": np.median(link_words), "median_page_words":
            np.median(page_words)}


def _link_vocabulary(X_labeled, labels, X_test):
    """What the co-trained link classifier saw: link tokens of its non-course over its course
    rows, and the share (%) of test pages most of whose link tokens no labeled row holds."""
    labels = np.asarray(labels).astype(int)
    tokens = [float(X_labeled[labels == c].sum()) for c in (0, 1)]
    seen = np.asarray(X_labeled.sum(axis=0)).ravel() > 0
    total = np.asarray(X_test.sum(axis=1)).ravel()
    unseen = total - np.asarray(X_test[:, seen].sum(axis=1)).ravel()
    return {"co_link_token_ratio": tokens[0] / max(tokens[1], 1.0),
            "co_link_mostly_unseen": 100.0 * np.mean(unseen > total / 2)}


def cotraining_experiment(seeds=range(5), *, n_positive=3, n_negative=9, link_length=None,
                          vocabulary="trained", n_jobs=None, use_cache=True, progress=True):
    """:func:`cotraining_run` for every seed; a list in seed order."""
    X_page, X_link, target, _, _ = webkb_views()
    check_int("n_positive", n_positive, minimum=1)
    check_int("n_negative", n_negative, minimum=1)
    digest = data_digest(X_page, X_link, target)
    check_choice("vocabulary", vocabulary, VOCABULARIES)
    jobs = [{"seed": int(seed), "n_positive": n_positive, "n_negative": n_negative,
             "vocabulary": vocabulary} for seed in seeds]
    if link_length is not None:
        jobs = [{**job, "link_length": float(link_length)} for job in jobs]
    return run_jobs(cotraining_run, jobs, kind="components_views_cot",
                    key=lambda job: {**job, "data": digest, "version": RESULT_VERSION},
                    shared={"X_page": X_page, "X_link": X_link, "target": target},
                    n_jobs=n_jobs, use_cache=use_cache, progress=progress,
                    description="co-training runs")


def summary(results, names):
    """``{name: (mean, std, min, max)}`` over the runs of each named scalar."""
    out = {}
    for name in names:
        values = np.array([float(r[name]) for r in results])
        out[name] = (values.mean(), values.std(), values.min(), values.max())
    return out
