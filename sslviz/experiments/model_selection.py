"""Which criterion should choose NB's α? Every criterion's choice against the accuracy it buys.

The lectures choose multinomial NB's smoothing α on the labeled rows only
(:mod:`sslviz.tuning`). This study checks the criteria instead of assuming them: on many seeded
splits of three corpora the lectures use, at 1, 5 and 50 labeled documents per class, it records

* the α each criterion of :data:`sslviz.tuning.ALPHA_CRITERIA` picks on the labeled rows
  (:func:`sslviz.tuning.choose_nb_alpha`: the grid extended by decades while the pick is at an
  end, up to the documented bounds; whether it stopped at a bound);
* the test accuracy of Naive Bayes and of EM (:class:`sslviz.em.SemiSupervisedNB`, λ = 1, as
  the lectures fit them; NB is EM's iteration 0) at every α of :data:`EVALUATION_GRID`, which
  holds every value a criterion can pick. The test-best α is reported for reference, as a
  criterion's *regret* (the accuracy the test-best α would have given, minus the chosen α's):
  it is never used to choose;
* the majority-class test accuracy, and the score of the constant guess 1/K under the leave-one-out
  log-likelihood of the labels (``n · log(1/K)``) beside the best score NB reaches on the grid.

Each (corpus, size, seed) is one job of :func:`sslviz.experiments.runner.run_jobs` (kind
``"alpha_study"``). The corpora: 20 Newsgroups with the SMART stop list (as lecture 04; the
official test posts), WebKB's four classes (as lectures 04 and 05; 1,000 pages drawn once as test
set) and Reuters R8 (as lecture 10; its test stories). R8's smallest class (grain) has 41 training
stories, so its largest size is 40 per class, not 50. Every split draws 2,500 unlabeled documents
(lecture 04 gives 20 Newsgroups 10,000; fewer keep the study at ~20 CPU minutes) and EM runs at
most 10 iterations. ``python -m sslviz.experiments alpha-study`` runs it and prints the table.

EM's λ (``alpha-study --lambda``): at 5 labeled documents per class on WebKB and R8, λ from
Fujino et al.'s candidates and λ = 0 (:data:`LAMBDA_GRID`, which spans λ's bounds), chosen by
the leave-one-out accuracy of the labeled documents (Nigam et al., per Fujino et al.; ties broken
by the leave-one-out log-likelihood) or by that log-likelihood alone. Every held-out document
costs one EM fit per λ, so 20 Newsgroups (100 labeled posts at 5 per class) is left out.

A linear SVM's C (``alpha-study --svm-c``): at 5 and 50 (R8 40) labeled documents per class,
tf-idf rows of unit length, C chosen from :data:`sslviz.linear_svm.C_GRID` (extended by decades
up to the bounds) by 5-fold cross-validated hinge loss, balanced accuracy or accuracy.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .. import cli
from ..cache import data_digest
from ..em import SemiSupervisedNB
from ..splits import split_labeled
from ..tuning import ALPHA_CRITERIA, ALPHA_GRID, choose_nb_alpha, loo_log_likelihood
from .em import _float_counts, _nb_and_em_predictions
from .runner import run_jobs

RESULT_VERSION = 1  # bump for a change sslviz.code_digest cannot see (a dependency's)
CRITERIA = tuple(ALPHA_CRITERIA)
"""The criteria compared, in the order of every ``chosen`` column."""
EVALUATION_GRID = (1e-6, 1e-5, 1e-4, *sorted(ALPHA_GRID), 10.0, 100.0)
"""Every α a criterion can pick from :data:`sslviz.tuning.ALPHA_GRID` extended by decades up to
the bounds (1e-6, 100): NB and EM are fitted at each, on every split."""
SIZES = (1, 5, 50)
N_UNLABELED = 2500
MAX_ITER = 10
N_SEEDS = 10


@dataclass(frozen=True)
class Corpus:
    """A vectorized corpus with its fixed test rows and the labeled sizes (per class) studied."""

    name: str
    X: object  # sparse counts (n_documents, n_words)
    y: np.ndarray
    test_rows: np.ndarray
    sizes: tuple = SIZES


def lecture_corpora():
    """The three corpora of the study, loaded as the lectures load them."""
    from ..text import TextOptions, load_counts
    from .components_views import reuters_counts

    news = load_counts("20newsgroups", TextOptions(stop_words="smart"))
    news_test = np.flatnonzero(np.char.startswith(news.filenames, "20news-bydate-test"))
    webkb = load_counts("webkb", TextOptions(min_df=3))
    webkb_test = np.sort(np.random.default_rng(0).choice(len(webkb.y), 1000, replace=False))
    X_train, y_train, X_test, y_test, _, _ = reuters_counts()
    import scipy.sparse as sp

    r8_X, r8_y = sp.vstack([X_train, X_test]).tocsr(), np.concatenate([y_train, y_test])
    r8_test = np.arange(X_train.shape[0], r8_X.shape[0])
    smallest = int(np.bincount(y_train).min())
    return [Corpus("20 Newsgroups (SMART)", news.X, news.y, news_test),
            Corpus("WebKB (4 classes)", webkb.X, webkb.y, webkb_test),
            Corpus("Reuters R8", r8_X, r8_y, r8_test, (1, 5, min(50, smallest // 10 * 10)))]


def alpha_job(X, y, *, test_rows, n_labeled, seed, n_unlabeled, max_iter):
    """One split: every criterion's α, and NB's and EM's test accuracy at every α of the grid."""
    split = split_labeled(y, n_labeled, per_class=True, n_unlabeled=n_unlabeled,
                          test_rows=test_rows, random_state=seed)
    X_train, y_train = _float_counts(X[split.train]), split.semi_supervised_targets(y)
    X_test, y_test = _float_counts(X[split.test]), np.asarray(y)[split.test]
    chosen = np.full(len(CRITERIA), np.nan)
    at_bound = np.full(len(CRITERIA), np.nan)
    for i, criterion in enumerate(CRITERIA):
        try:
            choice = choose_nb_alpha(X_train, y_train, criterion=criterion)
        except ValueError:  # a leave-one-out criterion with one labeled document per class
            continue
        chosen[i], at_bound[i] = choice.params["alpha"], choice.at_bound
    nb, em = np.empty(len(EVALUATION_GRID)), np.empty(len(EVALUATION_GRID))
    for j, alpha in enumerate(EVALUATION_GRID):
        model = SemiSupervisedNB(alpha=alpha, max_iter=max_iter, record="summary")
        nb_guess, em_guess = _nb_and_em_predictions(model, X_train, y_train, X_test)
        nb[j], em[j] = np.mean(nb_guess == y_test), np.mean(em_guess == y_test)
    labeled = y_train != -1
    n_classes = len(np.unique(y_train[labeled]))
    best_loo = np.nan
    if n_labeled >= 2:
        best_loo = max(loo_log_likelihood(X_train[labeled], y_train[labeled], a)
                       for a in ALPHA_GRID)
    return {"chosen": chosen, "at_bound": at_bound, "nb_accuracy": nb, "em_accuracy": em,
            "majority_accuracy": np.float64(np.bincount(y_test).max() / len(y_test)),
            "constant_guess": np.float64(labeled.sum() * np.log(1 / n_classes)),
            "best_loo_log_likelihood": np.float64(best_loo)}


@dataclass(frozen=True)
class AlphaStudyCell:
    """One corpus at one labeled size: every seed's choices and accuracies."""

    corpus: str
    n_labeled: int  # per class
    seeds: np.ndarray  # (n_seeds,)
    alphas: np.ndarray  # (n_alphas,) EVALUATION_GRID
    chosen: np.ndarray  # (n_seeds, n_criteria) α, NaN where a criterion is not defined
    at_bound: np.ndarray  # (n_seeds, n_criteria) 1.0 / 0.0, NaN where not defined
    nb_accuracy: np.ndarray  # (n_seeds, n_alphas)
    em_accuracy: np.ndarray  # (n_seeds, n_alphas)
    majority_accuracy: np.ndarray  # (n_seeds,)
    constant_guess: np.ndarray  # (n_seeds,) n · log(1/K)
    best_loo_log_likelihood: np.ndarray  # (n_seeds,) NB's best on ALPHA_GRID (NaN at 1/class)

    def available(self, criterion):
        """True when ``criterion`` chose on every seed (the leave-one-out ones need 2/class)."""
        return bool(np.all(np.isfinite(self.chosen[:, CRITERIA.index(criterion)])))

    def _columns(self, criterion):
        if criterion == "alpha=1":
            return np.full(len(self.seeds), int(np.flatnonzero(self.alphas == 1.0)[0]))
        values = self.chosen[:, CRITERIA.index(criterion)]
        if not np.all(np.isfinite(values)):
            raise ValueError(f"{criterion} chose no α at {self.n_labeled} per class "
                             "(it needs 2 labeled documents per class)")
        return np.array([int(np.argmin(np.abs(np.log(self.alphas / v)))) for v in values])

    def accuracy(self, criterion, model="em"):
        """Test accuracy per seed at the α ``criterion`` chose (or ``"alpha=1"``, no choice)."""
        table = self.em_accuracy if model == "em" else self.nb_accuracy
        return table[np.arange(len(self.seeds)), self._columns(criterion)]

    def test_best(self, model="em"):
        """Per seed, the best test accuracy over the grid (for reference only: never chooses)."""
        return (self.em_accuracy if model == "em" else self.nb_accuracy).max(axis=1)

    def regret(self, criterion, model="em"):
        """Per seed: test-best accuracy minus the accuracy at the chosen α (≥ 0)."""
        return self.test_best(model) - self.accuracy(criterion, model)

    def bound_share(self, criterion):
        """The share of seeds whose choice stopped at a bound of the extended grid."""
        return float(np.mean(self.at_bound[:, CRITERIA.index(criterion)]))


def alpha_study(corpora=None, *, seeds=range(N_SEEDS), n_unlabeled=N_UNLABELED,
                max_iter=MAX_ITER, use_cache=True, n_jobs=None, progress=True):
    """Run the study; returns a list of :class:`AlphaStudyCell` (corpus by corpus, size by size).

    ``corpora``: a list of :class:`Corpus` (default :func:`lecture_corpora`).
    """
    corpora = lecture_corpora() if corpora is None else corpora
    seeds = np.asarray(list(seeds), dtype=int)
    cells = []
    for corpus in corpora:
        digest = data_digest(corpus.X, np.asarray(corpus.y), np.asarray(corpus.test_rows))
        settings = {"n_unlabeled": int(n_unlabeled), "max_iter": int(max_iter)}

        def key(job, digest=digest, settings=settings):
            return {"data": digest, **settings, **job, "grid": list(EVALUATION_GRID),
                    "criteria": list(CRITERIA), "version": RESULT_VERSION}

        jobs = [{"n_labeled": int(n), "seed": int(s)} for n in corpus.sizes for s in seeds]
        shared = {"X": corpus.X, "y": np.asarray(corpus.y), "test_rows": corpus.test_rows,
                  **settings}
        results = run_jobs(alpha_job, jobs, kind="alpha_study", key=key, shared=shared,
                           use_cache=use_cache, n_jobs=n_jobs, progress=progress,
                           description=corpus.name)
        for k, n in enumerate(corpus.sizes):
            block = results[k * len(seeds):(k + 1) * len(seeds)]
            stack = {name: np.array([r[name] for r in block]) for name in block[0]}
            cells.append(AlphaStudyCell(corpus.name, int(n), seeds, np.array(EVALUATION_GRID),
                                        **stack))
    return cells


def summary_rows(cells):
    """One dict per (corpus, size, criterion): accuracies, regret, bound share, EM − NB."""
    rows = []
    for cell in cells:
        for criterion in (*CRITERIA, "alpha=1"):
            if criterion != "alpha=1" and not cell.available(criterion):
                continue
            nb, em = cell.accuracy(criterion, "nb"), cell.accuracy(criterion, "em")
            gain = em - nb
            rows.append({
                "corpus": cell.corpus, "n_labeled": cell.n_labeled, "criterion": criterion,
                "nb": nb, "em": em, "nb_regret": cell.regret(criterion, "nb"),
                "em_regret": cell.regret(criterion, "em"),
                "at_bound": np.nan if criterion == "alpha=1" else cell.bound_share(criterion),
                "gain": gain, "wins": int(np.sum(gain > 0)), "n": len(gain),
                "alphas": sorted({float(a) for a in cell.alphas[cell._columns(criterion)]})})
    return rows


def mean_regret(cells):
    """Per criterion, ``(NB, EM)`` regret in points averaged over the cells where every
    criterion chose (2 or more labeled documents per class): how much accuracy each gives away."""
    shared = [cell for cell in cells if all(cell.available(c) for c in CRITERIA)]
    return {criterion: tuple(100 * np.mean([cell.regret(criterion, model).mean()
                                            for cell in shared]) for model in ("nb", "em"))
            for criterion in CRITERIA} if shared else {}


def _spread(values):
    values = 100 * np.asarray(values)
    return f"{values.mean():.1f} [{values.min():.1f}–{values.max():.1f}]"


def format_table(cells):
    """The study as a markdown table (accuracies in %, regret and EM − NB in points)."""
    lines = ["| corpus | /class | criterion | α picked | NB | EM | NB regret | EM regret | "
             "at bound | EM − NB | EM > NB |", "|" + "---|" * 11]
    for row in summary_rows(cells):
        bound = "" if np.isnan(row["at_bound"]) else f"{row['at_bound']:.0%}"
        picked = ", ".join(f"{a:g}" for a in row["alphas"])
        lines.append(
            f"| {row['corpus']} | {row['n_labeled']} | {row['criterion']} | {picked} | "
            f"{_spread(row['nb'])} | {_spread(row['em'])} | {100 * row['nb_regret'].mean():.1f} "
            f"| {100 * row['em_regret'].mean():.1f} | {bound} | {_spread(row['gain'])} | "
            f"{row['wins']}/{row['n']} |")
    regret = mean_regret(cells)
    if regret:
        lines.append("\nmean regret (points, NB / EM) over the cells with 2 or more labeled "
                     "documents per class: " + "; ".join(
                         f"{c} {nb:.2f} / {em:.2f}" for c, (nb, em) in regret.items()))
    for cell in cells:
        best_nb, best_em = cell.test_best("nb"), cell.test_best("em")
        below = np.sum(cell.best_loo_log_likelihood < cell.constant_guess)
        lines.append(f"\n{cell.corpus}, {cell.n_labeled}/class: test-best α (reference only) NB "
                     f"{_spread(best_nb)}, EM {_spread(best_em)}; majority class "
                     f"{_spread(cell.majority_accuracy)}"
                     + ("" if cell.n_labeled < 2 else
                        f"; every NB on the grid below the constant guess 1/K in LOO "
                        f"log P(y|x) on {below}/{len(cell.seeds)} splits"))
    return "\n".join(lines)


def main(argv=None):
    """``python -m sslviz.experiments alpha-study [--seeds ...] [--n-jobs N] [--no-cache]``."""
    parser = cli.Parser(
        prog="python -m sslviz.experiments alpha-study",
        description="Which criterion should choose NB's α: each criterion's choice on the "
        "labeled rows against the test accuracy of NB and EM it leads to, on 20 Newsgroups "
        "(SMART), WebKB and Reuters R8 at 1, 5 and 50 labeled documents per class. Cached per "
        "split; an interrupted run resumes.")
    parser.add_argument("--seeds", type=cli.seed, nargs="+", default=list(range(N_SEEDS)))
    parser.add_argument("--n-unlabeled", type=cli.positive_int, default=N_UNLABELED)
    parser.add_argument("--max-iter", type=cli.positive_int, default=MAX_ITER)
    parser.add_argument("--n-jobs", type=cli.n_jobs, default=-1)
    parser.add_argument("--no-cache", action="store_true")
    parser.add_argument("--lambda", dest="lambda_", action="store_true",
                        help="EM's λ instead of α (WebKB and R8, 5 labeled documents per class)")
    parser.add_argument("--svm-c", action="store_true",
                        help="a linear SVM's C instead of α (5 and 50 labeled per class)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    options = {"seeds": args.seeds, "n_unlabeled": args.n_unlabeled, "max_iter": args.max_iter,
               "use_cache": not args.no_cache, "n_jobs": args.n_jobs}
    if args.svm_c:
        del options["n_unlabeled"], options["max_iter"]
        print(format_c_table(c_study(**options)))
    elif args.lambda_:
        corpora = [c for c in lecture_corpora() if not c.name.startswith("20 Newsgroups")]
        print(format_lambda_table(lambda_study(corpora, **options)))
    else:
        print(format_table(alpha_study(**options)))
    print(f"\n{len(args.seeds)} splits per cell; {time.perf_counter() - start:.0f} s")
    return 0


# -- EM's λ: leave-one-out accuracy (Nigam et al.) against the held-out likelihood --------------

LAMBDA_GRID = (0.0, 0.01, 0.1, 0.25, 0.5, 0.75, 1.0)
"""Fujino et al.'s six candidates for λ and λ = 0 (Naive Bayes): the grid spans λ's bounds."""
LAMBDA_CRITERIA = ("loo_accuracy", "loo_log_likelihood")


def lambda_job(X, y, *, test_rows, n_labeled, seed, n_unlabeled, max_iter, weights):
    """One split: EM's leave-one-out accuracy and log-likelihood of the labels at every λ
    (every fold trains on the other labeled documents and every unlabeled one, as Nigam et al.
    and Fujino et al. chose λ), and EM's test accuracy at every λ. α: :func:`choose_nb_alpha`'s
    default on the labeled rows."""
    split = split_labeled(y, n_labeled, per_class=True, n_unlabeled=n_unlabeled,
                          test_rows=test_rows, random_state=seed)
    X_train, y_train = _float_counts(X[split.train]), split.semi_supervised_targets(y)
    X_test, y_test = _float_counts(X[split.test]), np.asarray(y)[split.test]
    alpha = choose_nb_alpha(X_train, y_train).params["alpha"]
    labeled = np.flatnonzero(y_train != -1)
    correct = np.zeros((len(weights), len(labeled)))
    log_likelihood = np.zeros((len(weights), len(labeled)))
    test = np.zeros(len(weights))
    for w, weight in enumerate(weights):
        def model(weight=weight):
            return SemiSupervisedNB(alpha=alpha, unlabeled_weight=weight, max_iter=max_iter,
                                    record="summary")
        test[w] = np.mean(model().fit(X_train, y_train).predict(X_test) == y_test)
        for k, row in enumerate(labeled):  # document ``row`` held out: neither labeled nor not
            keep = np.arange(len(y_train)) != row
            fitted = model().fit(X_train[keep], y_train[keep])
            proba = fitted.predict_proba(X_train[row])[0]
            column = list(fitted.classes_).index(y_train[row])
            correct[w, k] = np.argmax(proba) == column
            log_likelihood[w, k] = np.log(max(proba[column], 1e-15))
    return {"alpha": np.float64(alpha), "loo_accuracy": correct.mean(axis=1),
            "loo_log_likelihood": log_likelihood.sum(axis=1), "test_accuracy": test}


@dataclass(frozen=True)
class LambdaStudyCell:
    """One corpus at one labeled size: the λ criteria's scores and EM's test accuracy."""

    corpus: str
    n_labeled: int
    seeds: np.ndarray
    weights: np.ndarray  # (n_weights,)
    alpha: np.ndarray  # (n_seeds,)
    loo_accuracy: np.ndarray  # (n_seeds, n_weights)
    loo_log_likelihood: np.ndarray  # (n_seeds, n_weights)
    test_accuracy: np.ndarray  # (n_seeds, n_weights)

    def chosen_index(self, criterion):
        """Per seed, the index of the chosen λ: ties of leave-one-out accuracy are broken by the
        leave-one-out log-likelihood, then go to the middle (:func:`sslviz.tuning.best_index`)."""
        from ..tuning import best_index

        if criterion == "loo_accuracy":
            return np.array([best_index(a, b) for a, b in
                             zip(self.loo_accuracy, self.loo_log_likelihood, strict=True)])
        return np.array([best_index(b) for b in self.loo_log_likelihood])

    def accuracy(self, criterion):
        return self.test_accuracy[np.arange(len(self.seeds)), self.chosen_index(criterion)]

    def regret(self, criterion):
        return self.test_accuracy.max(axis=1) - self.accuracy(criterion)

    def bound_share(self, criterion):
        """The share of seeds whose λ is 0 or 1, the bounds of λ."""
        index = self.chosen_index(criterion)
        return float(np.mean((index == 0) | (index == len(self.weights) - 1)))


def lambda_study(corpora, *, n_labeled=5, seeds=range(N_SEEDS), n_unlabeled=N_UNLABELED,
                 max_iter=MAX_ITER, weights=LAMBDA_GRID, use_cache=True, n_jobs=None,
                 progress=True):
    """Run the λ study on ``corpora`` (a list of :class:`Corpus`); one cell per corpus."""
    seeds = np.asarray(list(seeds), dtype=int)
    cells = []
    for corpus in corpora:
        digest = data_digest(corpus.X, np.asarray(corpus.y), np.asarray(corpus.test_rows))
        settings = {"n_unlabeled": int(n_unlabeled), "max_iter": int(max_iter),
                    "weights": [float(w) for w in weights], "n_labeled": int(n_labeled)}
        from ..tuning import DEFAULT_ALPHA_CRITERION

        def key(job, digest=digest, settings=settings):
            return {"data": digest, **settings, **job, "alpha": DEFAULT_ALPHA_CRITERION,
                    "version": RESULT_VERSION}

        jobs = [{"seed": int(s)} for s in seeds]
        shared = {"X": corpus.X, "y": np.asarray(corpus.y), "test_rows": corpus.test_rows,
                  **settings}
        results = run_jobs(lambda_job, jobs, kind="lambda_study", key=key, shared=shared,
                           use_cache=use_cache, n_jobs=n_jobs, progress=progress,
                           description=f"{corpus.name}, λ")
        stack = {name: np.array([r[name] for r in results]) for name in results[0]}
        cells.append(LambdaStudyCell(corpus.name, int(n_labeled), seeds,
                                     np.asarray(weights, dtype=float), **stack))
    return cells


def format_lambda_table(cells):
    """The λ study as a markdown table (accuracy in %, regret in points)."""
    lines = ["| corpus | /class | criterion | λ picked | EM | regret | at 0 or 1 |",
             "|" + "---|" * 7]
    for cell in cells:
        for criterion in LAMBDA_CRITERIA:
            picked = ", ".join(f"{w:g}" for w in sorted(set(cell.weights[
                cell.chosen_index(criterion)])))
            lines.append(f"| {cell.corpus} | {cell.n_labeled} | {criterion} | {picked} | "
                         f"{_spread(cell.accuracy(criterion))} | "
                         f"{100 * cell.regret(criterion).mean():.1f} | "
                         f"{cell.bound_share(criterion):.0%} |")
        for weight in (0.0, 1.0):  # no choice: Naive Bayes, and EM with full weight
            if weight in cell.weights:
                at = cell.test_accuracy[:, int(np.flatnonzero(cell.weights == weight)[0])]
                regret = 100 * (cell.test_accuracy.max(axis=1) - at).mean()
                lines.append(f"| {cell.corpus} | {cell.n_labeled} | λ = {weight:g} (no choice) | "
                             f"{weight:g} | {_spread(at)} | {regret:.1f} | |")
        lines.append(f"| {cell.corpus} | {cell.n_labeled} | test-best λ (reference) | | "
                     f"{_spread(cell.test_accuracy.max(axis=1))} | | |")
    return "\n".join(lines)


# -- an SVM's C: a criterion the majority class cannot win --------------------------------------

C_START = (0.1, 0.3, 1.0, 3.0)
""":data:`sslviz.linear_svm.C_GRID`, the grid the lectures search, extended by the chooser."""
C_EVALUATION_GRID = (1e-4, 1e-3, 0.01, 0.1, 0.3, 1.0, 3.0, 30.0, 300.0, 3000.0, 1e4)
"""Every C a criterion can pick from :data:`C_START` extended by decades up to the bounds."""
C_CRITERIA = ("hinge", "balanced_accuracy", "accuracy")
C_SIZES = (5, 50)


def _c_scoring(criterion):
    from ..tuning import MARGIN_SCORING, NEG_HINGE_LOSS

    return {"hinge": (NEG_HINGE_LOSS, None), "balanced_accuracy": (MARGIN_SCORING, NEG_HINGE_LOSS),
            "accuracy": ("accuracy", NEG_HINGE_LOSS)}[criterion]


def c_job(X, y, *, test_rows, n_labeled, seed, max_iter):
    """One split: each C criterion's choice (5-fold cv on the labeled rows, grid extended) and
    the linear SVM's test accuracy at every C of :data:`C_EVALUATION_GRID` (tf-idf features,
    unit length, fitted on the labeled rows; :func:`sslviz.linear_svm.text_features`)."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    from ..linear_svm import text_features
    from ..tuning import choose_by_cv_interior

    split = split_labeled(y, n_labeled, per_class=True, n_unlabeled=0, test_rows=test_rows,
                          random_state=seed)
    y = np.asarray(y)
    X_lab, X_test = text_features(X[split.labeled], X[split.labeled], X[split.test])
    y_lab, y_test = y[split.labeled], y[split.test]
    svm = LinearSVC(loss="hinge", max_iter=max_iter, random_state=0)
    chosen, at_bound = np.empty(len(C_CRITERIA)), np.empty(len(C_CRITERIA))
    test = np.empty(len(C_EVALUATION_GRID))
    with warnings.catch_warnings():  # large C: liblinear stops at max_iter
        warnings.simplefilter("ignore", ConvergenceWarning)
        for i, criterion in enumerate(C_CRITERIA):
            scoring, tie_break = _c_scoring(criterion)
            choice = choose_by_cv_interior(svm, "C", C_START, X_lab, y_lab, kind="C", cv=5,
                                           random_state=seed, scoring=scoring,
                                           tie_break=tie_break)
            chosen[i], at_bound[i] = choice.params["C"], choice.at_bound
        for j, C in enumerate(C_EVALUATION_GRID):
            guess = svm.set_params(C=C).fit(X_lab, y_lab).predict(X_test)
            test[j] = np.mean(guess == y_test)
    return {"chosen": chosen, "at_bound": at_bound, "test_accuracy": test,
            "majority_accuracy": np.float64(np.bincount(y_test).max() / len(y_test))}


@dataclass(frozen=True)
class CStudyCell:
    """One corpus at one labeled size: the C criteria's choices and the SVM's test accuracy."""

    corpus: str
    n_labeled: int
    seeds: np.ndarray
    Cs: np.ndarray  # (n_Cs,) C_EVALUATION_GRID
    chosen: np.ndarray  # (n_seeds, n_criteria)
    at_bound: np.ndarray  # (n_seeds, n_criteria)
    test_accuracy: np.ndarray  # (n_seeds, n_Cs)
    majority_accuracy: np.ndarray  # (n_seeds,)

    def accuracy(self, criterion):
        values = self.chosen[:, C_CRITERIA.index(criterion)]
        columns = [int(np.argmin(np.abs(np.log(self.Cs / v)))) for v in values]
        return self.test_accuracy[np.arange(len(self.seeds)), columns]

    def regret(self, criterion):
        return self.test_accuracy.max(axis=1) - self.accuracy(criterion)

    def bound_share(self, criterion):
        return float(np.mean(self.at_bound[:, C_CRITERIA.index(criterion)]))


def c_study(corpora=None, *, seeds=range(N_SEEDS), max_iter=10_000, use_cache=True,
            n_jobs=None, progress=True):
    """Run the C study (sizes :data:`C_SIZES`, R8's 50 lowered as in the α study)."""
    corpora = lecture_corpora() if corpora is None else corpora
    seeds = np.asarray(list(seeds), dtype=int)
    cells = []
    for corpus in corpora:
        digest = data_digest(corpus.X, np.asarray(corpus.y), np.asarray(corpus.test_rows))
        sizes = [n for n in corpus.sizes if n > 1]

        def key(job, digest=digest):
            return {"data": digest, **job, "max_iter": int(max_iter),
                    "grid": list(C_EVALUATION_GRID), "criteria": list(C_CRITERIA),
                    "version": RESULT_VERSION}

        jobs = [{"n_labeled": int(n), "seed": int(s)} for n in sizes for s in seeds]
        shared = {"X": corpus.X, "y": np.asarray(corpus.y), "test_rows": corpus.test_rows,
                  "max_iter": int(max_iter)}
        results = run_jobs(c_job, jobs, kind="c_study", key=key, shared=shared,
                           use_cache=use_cache, n_jobs=n_jobs, progress=progress,
                           description=f"{corpus.name}, C")
        for k, n in enumerate(sizes):
            block = results[k * len(seeds):(k + 1) * len(seeds)]
            stack = {name: np.array([r[name] for r in block]) for name in block[0]}
            cells.append(CStudyCell(corpus.name, int(n), seeds, np.array(C_EVALUATION_GRID),
                                    **stack))
    return cells


def format_c_table(cells):
    """The C study as a markdown table (accuracy in %, regret in points)."""
    lines = ["| corpus | /class | criterion | C picked | SVM | regret | at bound |",
             "|" + "---|" * 7]
    for cell in cells:
        for criterion in C_CRITERIA:
            picked = ", ".join(f"{c:g}" for c in sorted(set(
                cell.chosen[:, C_CRITERIA.index(criterion)])))
            lines.append(f"| {cell.corpus} | {cell.n_labeled} | {criterion} | {picked} | "
                         f"{_spread(cell.accuracy(criterion))} | "
                         f"{100 * cell.regret(criterion).mean():.1f} | "
                         f"{cell.bound_share(criterion):.0%} |")
        lines.append(f"| {cell.corpus} | {cell.n_labeled} | test-best C (reference) | | "
                     f"{_spread(cell.test_accuracy.max(axis=1))} | | |")
        lines.append(f"| {cell.corpus} | {cell.n_labeled} | majority class | | "
                     f"{_spread(cell.majority_accuracy)} | | |")
    lines.append("\nmean over the cells (regret in points; share at a bound): " + "; ".join(
        f"{c} {100 * np.mean([cell.regret(c).mean() for cell in cells]):.2f}, "
        f"{np.mean([cell.bound_share(c) for cell in cells]):.0%}" for c in C_CRITERIA))
    return "\n".join(lines)
