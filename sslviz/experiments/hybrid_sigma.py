"""Which criterion on the labeled rows should choose HybridNB's σ (``prior_scale``)?

Fujino, Ueda & Saito (2005) put a Gaussian prior on the combination weights Λ (eq. 9) but print
no σ. This study compares the criteria a lecture can compute without a test label, on seeded
evaluation sets of the paper's corpora (:func:`sslviz.experiments.hybrid.evaluation_split`):

* ``cv_loglik``: 3-fold stratified cross-validation over the labeled rows, every unlabeled row in
  every training fold and the held-out documents too, as unlabeled rows (their labels hidden),
  scored by the held-out log-likelihood of the labels (mean per fold, then over folds): the
  criterion of :func:`.hybrid.choose_sigma` (the tables keep σ = 1: see
  :data:`.hybrid.SIGMA`);
* ``cv_accuracy`` / ``cv_balanced``: the accuracy / balanced accuracy of the same held-out
  predictions, pooled over the folds (ties broken by ``cv_loglik``);
* ``loo``: the leave-one-out conditional log-likelihood of the labeled rows that the fit itself
  maximises (eq. 9's data term, without the prior);
* ``sigma-1``: σ = 1, not chosen.

:func:`sigma_sensitivity` asks the other question, on a lecture's own evaluation sets: the
hybrid's test accuracy at every σ of a grid (reported, never used to choose), to show which of
the tables' verdicts another σ would change.

One job (:func:`sigma_point`) fits HybridNB on the whole training set and on each fold at every σ
of :data:`SIGMA_GRID` (the ``width`` kind's range, 1e-3 … 1e3 by decades, so
:func:`sslviz.tuning.choose_interior` never needs to extend it: an end is a bound), with one draw
of the folds shared by every σ. The test accuracy of every σ is recorded to measure each
criterion's *regret* (the test-best σ's accuracy minus the chosen σ's); it never chooses.

``python -m sslviz.experiments sigma-study`` prints the comparison.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .. import cli
from ..cache import data_digest
from ..hybrid import HybridNB
from ..threads import one_thread
from ..tuning import choose_interior
from ..validation import check_choice
from .hybrid import (
    LABELED_SELECTION,
    RESULT_VERSION,
    SELECTIONS,
    SIGMA_GRID,
    evaluation_split,
    hybrid_alpha,
    load_hybrid_corpus,
    nb_alpha,
    sigma_scores,
)
from .runner import run_jobs

CRITERIA = {"cv_loglik": "3-fold cv log-likelihood of the labels",
            "cv_accuracy": "3-fold cv accuracy", "cv_balanced": "3-fold cv balanced accuracy",
            "loo": "leave-one-out conditional log-likelihood (the fit's own)",
            "sigma-1": "σ = 1, not chosen"}
STUDY_CORPORA = ("webkb", "20news")
STUDY_SIZES = (32, 128)
STUDY_SEEDS = tuple(range(10))


@one_thread()
def sigma_point(X, y, n_labeled, seed, *, test_rows=None, n_test=None, n_unlabeled):
    """One evaluation set: α (:func:`.hybrid.hybrid_alpha`, as the tables), then
    :func:`.hybrid.sigma_scores` with the test accuracy of every σ; ``cpu_seconds`` the job's CPU
    time."""
    start = time.process_time()
    split = evaluation_split(y, n_labeled, seed, test_rows=test_rows, n_test=n_test,
                             n_unlabeled=n_unlabeled)
    X_train, y_train = X[split.train], split.semi_supervised_targets(y)
    alpha = hybrid_alpha(X_train, y_train)
    scores = sigma_scores(X_train, y_train, alpha.value, seed=seed, X_test=X[split.test],
                          y_test=y[split.test])
    return {**scores, "alpha": np.float64(alpha.value),
            "alpha_at_bound": np.int64(alpha.at_bound),
            "cpu_seconds": np.float64(time.process_time() - start)}


def choose_by_criterion(scores, criterion, *, grid=SIGMA_GRID):
    """The :class:`sslviz.tuning.Choice` of σ by one criterion of ``scores``
    (:func:`.hybrid.sigma_scores`; accuracies: ties broken by the cv log-likelihood).
    ``"sigma-1"``: None."""
    if criterion not in CRITERIA:
        raise ValueError(f"criterion must be one of {sorted(CRITERIA)}, got {criterion!r}")
    if criterion == "sigma-1":
        return None
    lookup = dict(zip(grid, scores[criterion], strict=True))
    loglik = dict(zip(grid, scores["cv_loglik"], strict=True))
    accuracy = criterion in ("cv_accuracy", "cv_balanced")
    return choose_interior(lookup.__getitem__, grid, kind="width", criterion=CRITERIA[criterion],
                           tie_break=loglik.__getitem__ if accuracy else None,
                           tie_break_name="cv log-likelihood" if accuracy else None)


@dataclass(frozen=True)
class SigmaStudy:
    """Results of :func:`sigma_study`: per (corpus, size), arrays (n_seeds, len(SIGMA_GRID))."""

    cells: dict  # (corpus, size) -> dict of name -> ndarray (n_seeds, ...)
    seeds: np.ndarray

    def chosen(self, corpus, size, criterion):
        """σ chosen per seed, whether it is at a bound, and its test accuracy: three arrays."""
        cell = self.cells[corpus, size]
        sigma, edge, test = [], [], []
        for i in range(len(self.seeds)):
            scores = {name: cell[name][i] for name in ("cv_loglik", "cv_accuracy",
                                                       "cv_balanced", "loo", "test")}
            choice = choose_by_criterion(scores, criterion)
            value = 1.0 if choice is None else choice.params["width"]
            sigma.append(value)
            edge.append(choice is not None and choice.at_bound)
            test.append(scores["test"][SIGMA_GRID.index(value)])
        return np.array(sigma), np.array(edge), np.array(test)

    def regret(self, corpus, size, criterion):
        """Test-best σ's accuracy minus the chosen σ's, per seed (points)."""
        best = self.cells[corpus, size]["test"].max(axis=1)
        return (best - self.chosen(corpus, size, criterion)[2]) * 100


def sigma_study(*, corpora=STUDY_CORPORA, sizes=STUDY_SIZES, seeds=STUDY_SEEDS, use_cache=True,
                n_jobs=None, progress=True, loaded=None):
    """:func:`sigma_point` on every (corpus, size, seed), cached jobs (kind
    ``"hybrid-sigma"``). ``loaded``: corpus name -> HybridCorpus already loaded."""
    seeds, cells = np.asarray(seeds, dtype=int), {}
    for name in corpora:
        corpus = (loaded or {}).get(name) or load_hybrid_corpus(name)
        jobs = [{"n_labeled": int(s), "seed": int(seed)} for s in sizes for seed in seeds]
        digest = data_digest(corpus.X, corpus.y,
                             -1 if corpus.test_rows is None else corpus.test_rows)
        results = run_jobs(
            sigma_point, jobs, kind="hybrid-sigma", use_cache=use_cache, n_jobs=n_jobs,
            key=lambda job, digest=digest, c=corpus: {
                "data": digest, "n_test": c.n_test, "n_unlabeled": c.n_unlabeled,
                "version": RESULT_VERSION, **job},
            shared={"X": corpus.X, "y": corpus.y, "test_rows": corpus.test_rows,
                    "n_test": corpus.n_test, "n_unlabeled": corpus.n_unlabeled},
            progress=progress, description=f"σ criteria ({name})")
        for k, size in enumerate(sizes):
            part = results[k * len(seeds):(k + 1) * len(seeds)]
            cells[name, int(size)] = {key: np.array([r[key] for r in part]) for key in part[0]}
    return SigmaStudy(cells, seeds)


def sigma_study_text(study):
    """Per (corpus, size) and criterion: mean test accuracy at the chosen σ, mean regret, how
    often the choice sits at a bound of σ's range, and the σ values chosen."""
    lines = [f"HybridNB's σ by criteria on the labeled rows, {len(study.seeds)} evaluation sets "
             f"per cell; σ in {', '.join(f'{s:g}' for s in SIGMA_GRID)}; regret = test-best σ "
             "of the grid minus the chosen σ (points, reported only)"]
    for (corpus, size), cell in study.cells.items():
        best = cell["test"].max(axis=1).mean() * 100
        lines.append(f"{corpus}, {size} labeled (test-best σ: {best:.1f}%; "
                     f"CPU {cell['cpu_seconds'].mean():.1f} s per set)")
        for criterion, name in CRITERIA.items():
            sigma, edge, test = study.chosen(corpus, size, criterion)
            unique, counts = np.unique(sigma, return_counts=True)
            values = ", ".join(f"{s:g}×{n}" for s, n in zip(unique, counts, strict=True))
            lines.append(f"  {name:<58} {test.mean() * 100:5.1f}%  regret "
                         f"{study.regret(corpus, size, criterion).mean():4.1f}  at a bound "
                         f"{edge.mean():4.0%}  σ: {values}")
    lines.append("mean regret over the cells: " + "; ".join(
        f"{criterion} {mean_regret(study, criterion):.2f}" for criterion in CRITERIA))
    return "\n".join(lines)


def mean_regret(study, criterion):
    """Regret of a criterion averaged over every cell and seed (points)."""
    return float(np.mean([study.regret(c, s, criterion) for c, s in study.cells]))


SENSITIVITY_SIGMAS = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
"""σ of :func:`sigma_sensitivity`: the grid of the review that chose σ by cross-validation."""


@one_thread()
def sigma_sensitivity_point(X, y, n_labeled, seed, *, test_rows=None, n_test=None, n_unlabeled,
                            sigmas=SENSITIVITY_SIGMAS, selection=LABELED_SELECTION):
    """The hybrid's test accuracy on one evaluation set at every σ of ``sigmas``, α as the
    tables' under ``selection`` (:func:`.hybrid.nb_alpha`): ``accuracy`` (len(sigmas),) and
    ``alpha``. Reported, never used to choose σ."""
    split = evaluation_split(y, n_labeled, seed, test_rows=test_rows, n_test=n_test,
                             n_unlabeled=n_unlabeled)
    X_train, y_train = X[split.train], split.semi_supervised_targets(y)
    alpha = nb_alpha(X_train, y_train, selection).value
    accuracy = [np.mean(HybridNB(alpha=alpha, prior_scale=sigma).fit(X_train, y_train)
                        .predict(X[split.test]) == y[split.test]) for sigma in sigmas]
    return {"accuracy": np.array(accuracy), "alpha": np.float64(alpha)}


def sigma_sensitivity(corpus, *, sizes, seeds, sigmas=SENSITIVITY_SIGMAS, use_cache=True,
                      n_jobs=None, progress=True, selection=LABELED_SELECTION):
    """:func:`sigma_sensitivity_point` at every size and seed of one corpus (a loaded
    :class:`.hybrid.HybridCorpus`; cached jobs, kind ``"hybrid-sigma-sensitivity"``): the
    hybrid's test accuracy, shape (sizes, seeds, sigmas)."""
    sizes, seeds = np.asarray(sizes, dtype=int), np.asarray(seeds, dtype=int)
    check_choice("selection", selection, SELECTIONS)
    sigmas = tuple(float(s) for s in sigmas)
    if not sigmas or min(sigmas) <= 0:
        raise ValueError(f"sigmas must be positive prior scales, got {sigmas!r}")
    jobs = [{"n_labeled": int(s), "seed": int(seed), "sigmas": sigmas, "selection": selection}
            for s in sizes for seed in seeds]
    digest = data_digest(corpus.X, corpus.y, -1 if corpus.test_rows is None else corpus.test_rows)
    results = run_jobs(
        sigma_sensitivity_point, jobs, kind="hybrid-sigma-sensitivity", use_cache=use_cache,
        n_jobs=n_jobs, progress=progress, description=f"σ sensitivity ({corpus.name})",
        key=lambda job: {"data": digest, "n_test": corpus.n_test, "version": RESULT_VERSION,
                         "n_unlabeled": corpus.n_unlabeled, **job},
        shared={"X": corpus.X, "y": corpus.y, "test_rows": corpus.test_rows,
                "n_test": corpus.n_test, "n_unlabeled": corpus.n_unlabeled})
    return np.array([r["accuracy"] for r in results]).reshape(len(sizes), len(seeds),
                                                               len(sigmas))


@cli.command
def main(argv=None):
    """``python -m sslviz.experiments sigma-study [--sizes ...] [--seeds ...]``."""
    parser = cli.Parser(prog="python -m sslviz.experiments sigma-study",
                        description="Which criterion on the labeled rows chooses HybridNB's σ "
                        "(lecture 09): test accuracy and regret of each, cached per job.")
    parser.add_argument("--corpora", nargs="+", choices=["reuters", "webkb", "20news"],
                        default=list(STUDY_CORPORA))
    parser.add_argument("--sizes", type=int, nargs="+", default=list(STUDY_SIZES))
    parser.add_argument("--seeds", type=cli.seed, nargs="+", default=list(STUDY_SEEDS))
    parser.add_argument("--n-jobs", type=cli.n_jobs, default=-1)
    args = parser.parse_args(argv)
    if any(size < 2 for size in args.sizes):
        parser.error("--sizes must be at least 2 (σ's criteria need labeled documents)")
    study = sigma_study(corpora=args.corpora, sizes=args.sizes, seeds=args.seeds,
                        n_jobs=args.n_jobs)
    print(sigma_study_text(study))
    return 0
