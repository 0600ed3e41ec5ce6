"""Experiments of the kernel-expansion lecture (08): Szummer & Jaakkola's Figures 1 and 2.

One job is one seeded draw of ``n_labeled`` labeled points (a plain random subset, as in the
paper, redrawn until both classes are present). The squared distances between all points are
computed once per data set and shared by every job; in a job the width is set, ``P(i|x)`` of
every point over every kernel is computed once for that width (the O(N²) part) and shared by
every method fitted on the draw:

* EM and MED in their balanced form (the paper's remedies for unequal label counts, the defaults)
  and in their plain form (no rescaling, one ``C``);
* a linear SVM on the labeled points alone, with ``C`` chosen by cross-validated balanced
  accuracy on the labeled rows, never silently at the edge of its grid (:func:`choose_svm_c`;
  ``C = 1`` when a class has a single label).

Jobs go through :func:`sslviz.experiments.runner.run_jobs` (kind ``"kernel_expansion"``), keyed
by the data's digest, the job's parameters and :data:`RESULT_VERSION`; the SVM is a job kind of
its own (``"kernel_expansion_svm"``), shared by runs that differ only in the expansion's width.
``main`` runs both figures at the paper's scale (``python -m sslviz.experiments.kernel_expansion``).

The width is the paper's rule on the labeled points (:func:`sslviz.kernel_expansion.kernel_width`),
the rule times a fixed factor (``width=0.5``: EM and MED compared at equal widths), or, with
``width="cv"``, the rule times a factor chosen on the labeled rows by each method's criterion
(:data:`DEFAULT_WIDTH_CRITERION`, :func:`choose_width_factor`: every fold keeps all unlabeled
points in the expansion; the grid is extended while the choice is an end of it). A job records
whether a chosen width or ``C`` sits at a bound (``*_at_bound``).

Which criterion chooses the width was measured, not assumed: :func:`width_study` (kind
``"kernel_expansion_width_study"``; ``python -m sslviz.experiments kernel-expansion
width-study``) sets each criterion's choice against the test error it leads to.
"""

from __future__ import annotations

import numbers
import time
from dataclasses import dataclass, replace
from functools import cache, lru_cache

import numpy as np
from scipy.optimize import curve_fit
from sklearn.metrics import balanced_accuracy_score, hinge_loss
from sklearn.svm import LinearSVC

from .. import cli
from ..cache import data_digest
from ..grids import Grid, grid_extent
from ..kernel_expansion import (
    KernelExpansionClassifier,
    fit_em,
    fit_med,
    membership,
    membership_from_distances,
    squared_distances,
    width_from_distances,
)
from ..tuning import MARGIN_SCORING, Choice, choose_interior, labeled_folds
from ..validation import check_choice, check_int, check_number
from .runner import run_jobs

RESULT_VERSION = 1  # bump for a change sslviz.code_digest cannot see (a dependency's)
PAPER_N_SEEDS = 20  # "averaged across 20 independent runs" (both figures)
SPLICE_SIZES = (2, 4, 6, 10, 15, 20, 30)
GOLUB_SIZES = (2, 5, 10, 15, 20, 25)
SVM_C_GRID = (1.0, 0.01, 0.1, 10.0, 100.0)
WIDTH_FACTORS = (1.0, 0.7, 0.5, 0.35)
METHODS = ("em", "med", "em_plain", "med_plain", "svm")
LABELS = {"em": "EM (balanced)", "med": "MED (balanced)", "em_plain": "EM (plain)",
          "med_plain": "MED (plain)", "svm": "linear SVM, labeled only"}


def splice_sample(splice, *, n_examples=500, seed=0):
    """``n_examples`` rows drawn at random (seeded) from a :func:`load_splice` Bunch: (X, y)."""
    n_examples = check_int("n_examples", n_examples, minimum=10, maximum=len(splice.target))
    rows = np.sort(np.random.default_rng(seed).choice(len(splice.target), n_examples,
                                                      replace=False))
    return splice.data[rows], splice.target[rows]


def draw_labeled(y, candidates, n_labeled, seed):
    """A random subset of ``candidates`` of size ``n_labeled`` holding every class of ``y``.

    Redraws (same generator) until every class is present, as fitting needs two classes.
    """
    candidates, y = np.asarray(candidates), np.asarray(y)
    classes = np.unique(y[candidates])
    check_int("n_labeled", n_labeled, minimum=len(classes), maximum=len(candidates))
    rng = np.random.default_rng(seed)
    for _ in range(10_000):
        rows = np.sort(rng.choice(candidates, n_labeled, replace=False))
        if len(np.unique(y[rows])) == len(classes):
            return rows
    raise ValueError(f"no draw of {n_labeled} labeled points held every class")


def choose_svm_c(X, y, *, grid=SVM_C_GRID, cv=5, random_state=None):
    """The linear SVM's ``C`` on labeled rows ``(X, y)``, never silently at the edge of its grid.

    The project's criterion for an SVM's C (:data:`sslviz.tuning.MARGIN_SCORING`): the mean
    ``cv``-fold balanced accuracy, exact ties broken by the held-out hinge loss, the grid
    extended by decades up to ``PARAMETER_KINDS["C"]``'s bounds while the best ``C`` is an end
    (:func:`sslviz.tuning.choose_interior`). The same folds and scores as
    :func:`sslviz.tuning.choose_by_cv_interior` with a ``LinearSVC``, fitted in a plain loop
    (each ``C`` once per fold): on a few dozen rows ``cross_val_score``'s bookkeeping costs more
    than the fits (a test checks that both choose alike).

    Returns
    -------
    sslviz.tuning.Choice with ``params == {"C": c}``
    """
    X, y = np.asarray(X), np.asarray(y)
    folds = labeled_folds(y, cv, random_state=random_state)

    @cache
    def fitted(c):  # per fold: (predictions, decision values) of the held-out rows
        models = [LinearSVC(C=c, max_iter=20_000, random_state=0).fit(X[train], y[train])
                  for train, _ in folds]
        return [(m.predict(X[held]), m.decision_function(X[held]))
                for m, (_, held) in zip(models, folds, strict=True)]

    def balanced(c):
        return float(np.mean([balanced_accuracy_score(y[held], predicted)
                              for (predicted, _), (_, held) in zip(fitted(c), folds,
                                                                   strict=True)]))

    def neg_hinge(c):
        return float(np.mean([-hinge_loss(y[held], decision)
                              for (_, decision), (_, held) in zip(fitted(c), folds,
                                                                  strict=True)]))

    return choose_interior(balanced, grid, kind="C",
                           criterion=f"{len(folds)}-fold cv {MARGIN_SCORING}",
                           tie_break=neg_hinge, tie_break_name="hinge loss")


SVM_EDGE = ("the C of a job is used as chosen; the job records at_bound and the lecture "
            "states it")
WIDTH_EDGE = ("the width factor of a job is used as chosen; the job records at_bound and the "
              "lecture states it")


def _used(choice, reason):
    """``choice``, acknowledged with ``reason`` when it sits at a bound (its job records it)."""
    return choice.acknowledge_edge(reason) if choice.at_bound else choice


def svm_result(X, y, n_labeled, seed, *, candidates, test):
    """The tuned linear SVM on one seeded draw's labeled rows (the same draw as
    :func:`draw_result`): its test error, ``C`` (1 when a class has a single label) and whether
    that ``C`` is at a bound of its grid (``svm_C_at_bound``)."""
    labeled = draw_labeled(y, candidates, n_labeled, seed)
    test = np.setdiff1d(test, labeled)
    y_lab = y[labeled]
    c, at_bound = 1.0, False
    if np.bincount(y_lab).min() >= 2:
        choice = _used(choose_svm_c(X[labeled], y_lab, random_state=seed), SVM_EDGE)
        c, at_bound = choice.value, choice.at_bound
    model = LinearSVC(C=c, max_iter=20_000, random_state=0).fit(X[labeled], y_lab)
    return {"svm_error": np.asarray(float(np.mean(model.predict(X[test]) != y[test]))),
            "svm_C": np.asarray(float(c)), "svm_C_at_bound": np.asarray(bool(at_bound))}


WIDTH_CRITERIA = {
    "log_likelihood": "held-out log-likelihood of the labels",
    "hinge": "held-out hinge loss",
    "accuracy": "held-out accuracy",
    "balanced_accuracy": "held-out balanced accuracy",
}
"""The width criteria on labeled rows: name -> printed name. Each scores ``f(x)`` of the held-out
rows (EM: ``P(1|x) - P(0|x)``, so ``P(y|x) = (1 + y f) / 2``; MED: its ``f(x)`` in [-1, 1])."""
WIDTH_TIE_BREAK = {"accuracy": "hinge", "balanced_accuracy": "hinge"}
"""Exact ties of a coarse criterion go to the hinge loss, then to the middle tied factor."""
RULE = "rule"
"""The criterion that chooses nothing: the paper's rule width (factor 1)."""
DEFAULT_WIDTH_CRITERION = {"em": RULE, "med": "balanced_accuracy"}
"""Each method's width criterion, the one :func:`width_study` supports: for EM no criterion on
the labeled rows gave away less test accuracy than the rule unchosen; for MED balanced accuracy
(with accuracy) gave away the least (``sslviz.tuning``'s module docstring gives the numbers)."""


def held_out_predictions(sq, y, labeled, method, *, seed=None, cv=3):
    """A memoised ``factor -> (f, y_held)``: ``f(x)`` of every labeled row when it is held out.

    ``cv`` folds (:func:`sslviz.tuning.labeled_folds` over the labeled rows, ``seed``); each fold
    keeps every unlabeled point and the other labeled points as kernels, takes the rule width on
    its own labeled points times ``factor``, fits ``method`` (balanced) on them and predicts the
    held-out rows. Rows are pooled over the folds (``y_held`` their labels).
    """
    y, labeled = np.asarray(y), np.asarray(labeled)
    targets = np.full(len(y), -1)
    targets[labeled] = y[labeled]
    fit = fit_em if check_choice("method", method, ("em", "med")) == "em" else fit_med
    folds = []
    for train, held_out in labeled_folds(targets, cv, random_state=seed, include_unlabeled=True):
        fold_labeled = train[targets[train] != -1]
        rule = width_from_distances(sq[np.ix_(fold_labeled, fold_labeled)], y[fold_labeled])
        block = sq[np.ix_(np.concatenate([fold_labeled, held_out]), train)]
        folds.append((fold_labeled, held_out, rule, block))
    y_held = np.concatenate([y[held_out] for _, held_out, _, _ in folds])

    @cache
    def predictions(factor):
        f = []
        for fold_labeled, _, rule, block in folds:
            R = membership_from_distances(block, rule * factor)
            found = fit(R[: len(fold_labeled)], y[fold_labeled], 2, record="summary")
            f.append(R[len(fold_labeled):] @ found.weights[0])
        return np.concatenate(f), y_held

    predictions.n_folds = len(folds)
    return predictions


def width_score(criterion, f, y):
    """The score (higher is better) of ``f(x)`` on labels ``y`` by a :data:`WIDTH_CRITERIA`."""
    check_choice("criterion", criterion, tuple(WIDTH_CRITERIA))
    y = np.asarray(y)
    signed = np.where(y == 1, 1.0, -1.0) * np.asarray(f)
    if criterion == "log_likelihood":  # P(y|x) = (1 + y f) / 2, floored as log_loss clips
        return float(np.mean(np.log(np.clip((1 + signed) / 2, 1e-15, 1.0))))
    if criterion == "hinge":
        return float(-np.mean(np.maximum(0.0, 1 - signed)))
    predicted = (np.asarray(f) > 0).astype(int)  # as draw_result decides
    if criterion == "accuracy":
        return float(np.mean(predicted == y))
    return float(balanced_accuracy_score(y, predicted))


def choose_width_factor(sq, y, labeled, method, *, seed=None, factors=WIDTH_FACTORS, cv=3,
                        criterion="default", predictions=None):
    """The factor of the rule width chosen on labeled rows, never silently at a grid's edge.

    ``criterion``: one of :data:`WIDTH_CRITERIA`, :data:`RULE` (factor 1, nothing chosen) or
    "default" (the method's :data:`DEFAULT_WIDTH_CRITERION`); ties of accuracy and balanced
    accuracy go to the hinge loss (:data:`WIDTH_TIE_BREAK`). The rows are scored held out
    (:func:`held_out_predictions`, ``cv`` folds; pass ``predictions`` to share its fits between
    criteria); ``factors`` is extended by decades while the best factor is an end, up to
    ``PARAMETER_KINDS["width"]``'s bounds (:func:`sslviz.tuning.choose_interior`). ``sq``: squared
    distances between all points. With a single label in some class the rule (factor 1) is kept.

    Returns
    -------
    sslviz.tuning.Choice with ``params == {"width_factor": f}``
    """
    y, labeled = np.asarray(y), np.asarray(labeled)
    check_choice("method", method, ("em", "med"))
    if criterion == "default":
        criterion = DEFAULT_WIDTH_CRITERION[method]
    check_choice("criterion", criterion, (*WIDTH_CRITERIA, RULE))
    if criterion == RULE:
        return Choice({"width_factor": 1.0}, [{"width_factor": 1.0}], np.array([np.nan]),
                      "the rule (no criterion chooses: see the width study)")
    if np.bincount(y[labeled]).min() < 2:
        return Choice({"width_factor": 1.0}, [{"width_factor": 1.0}], np.array([np.nan]),
                      "the rule (a class has one label: no cross-validation)")
    held = predictions or held_out_predictions(sq, y, labeled, method, seed=seed, cv=cv)

    def score(name):
        return lambda factor: width_score(name, *held(factor))

    tie = WIDTH_TIE_BREAK.get(criterion)
    choice = choose_interior(score(criterion), factors, kind="width",
                             criterion=f"{held.n_folds}-fold cv {WIDTH_CRITERIA[criterion]}",
                             tie_break=None if tie is None else score(tie),
                             tie_break_name=None if tie is None else WIDTH_CRITERIA[tie])
    return replace(choice, params={"width_factor": choice.params["width"]},
                   candidates=[{"width_factor": c["width"]} for c in choice.candidates])


def check_width(width):
    """``"rule"``, ``"cv"`` or a factor > 0 of the rule width (a clear error otherwise)."""
    if width in ("rule", "cv") and isinstance(width, str):
        return width
    if isinstance(width, numbers.Real) and not isinstance(width, bool | np.bool_) \
            and np.isfinite(width) and width > 0:
        return float(width)
    raise ValueError(f"width must be 'rule', 'cv' or a factor > 0 of the rule width (e.g. 0.5), "
                     f"got {width!r}")


def draw_result(X, y, n_labeled, seed, *, candidates, test, width="rule", gamma=0.1, C=40.0,
                methods=METHODS, sq=None, factors=WIDTH_FACTORS):
    """The ``methods`` on one seeded draw; test errors and what the fits did (a job's result).

    ``width``: ``"rule"``, ``"cv"`` (a factor of the rule from ``factors``, chosen on the labeled
    rows) or a number (a fixed factor of the rule, the same for EM and MED). ``sq``: the squared
    distances between all rows of ``X``, when the caller computed them once for every draw
    (:func:`learning_curves` does).
    """
    width = check_width(width)
    methods = [check_choice("method", m, METHODS) for m in methods]
    labeled = draw_labeled(y, candidates, n_labeled, seed)
    test = np.setdiff1d(test, labeled)
    sq = squared_distances(X, X) if sq is None else np.asarray(sq)
    rule = width_from_distances(sq[np.ix_(labeled, labeled)], y[labeled])
    families = sorted({m.split("_")[0] for m in methods if m != "svm"})
    grid = factors
    factors = {m: 1.0 if width == "rule" else width for m in families}
    edges = {}
    if width == "cv":
        choices = {m: _used(choose_width_factor(sq, y, labeled, m, seed=seed, factors=grid),
                            WIDTH_EDGE) for m in families}
        factors = {m: c.value for m, c in choices.items()}
        edges = {f"{m}_at_bound": c.at_bound for m, c in choices.items()}
    memberships = {f: membership_from_distances(sq, rule * f) for f in set(factors.values())}
    result = {"sigma": rule, "n_positive_labels": int(np.sum(y[labeled] == 1)),
              **{f"{m}_factor": f for m, f in factors.items()}, **edges}
    for name, fit, balanced in (("em", fit_em, True), ("em_plain", fit_em, False),
                                ("med", fit_med, True), ("med_plain", fit_med, False)):
        if name not in methods:
            continue
        R = memberships[factors[name.split("_")[0]]]
        options = {"gamma": gamma, "C": C} if fit is fit_med else {}
        found = fit(R[labeled], y[labeled], 2, balanced=balanced, record="summary", **options)
        predicted = (R[test] @ found.weights[0] > 0).astype(int)
        result[f"{name}_error"] = float(np.mean(predicted != y[test]))
        result[f"{name}_one_class"] = bool(len(np.unique(predicted)) == 1)
        result[f"{name}_converged"] = bool(found.converged)
        if name.startswith("med"):
            result[f"{name}_kkt"] = float(found.trace[-1].kkt_violation)
            result[f"{name}_gap"] = float(found.trace[-1].duality_gap)
    if "svm" in methods:
        result.update(svm_result(X, y, n_labeled, seed, candidates=candidates, test=test))
    return {key: np.asarray(value) for key, value in result.items()}


@dataclass(frozen=True)
class Curves:
    """Results per labeled-set size (rows) and seed (columns); ``errors[method]`` in [0, 1]."""

    sizes: np.ndarray
    seeds: np.ndarray
    table: dict  # name -> ndarray (n_sizes, n_seeds) of every field of draw_result

    @property
    def methods(self):
        """The methods that were run, in the order of :data:`METHODS`."""
        return tuple(m for m in METHODS if f"{m}_error" in self.table)

    def errors(self, method):
        """Test errors of ``method`` (one of :attr:`methods`), shape (n_sizes, n_seeds)."""
        check_choice("method", method, self.methods)
        return self.table[f"{method}_error"]

    def summary(self, methods=None):
        """Rows ``(size, {method: (mean, std)})`` over the seeds (default: every method run)."""
        methods = self.methods if methods is None else methods
        return [(int(size), {m: (float(self.errors(m)[i].mean()), float(self.errors(m)[i].std()))
                             for m in methods}) for i, size in enumerate(self.sizes)]


def learning_curves(X, y, *, sizes, seeds, candidates=None, test=None, width="rule",
                    factors=WIDTH_FACTORS, gamma=0.1, C=40.0, methods=METHODS, use_cache=True,
                    n_jobs=None, progress=True, description="kernel expansions"):
    """The ``methods`` over labeled-set sizes and seeds (Figures 1b and 2).

    The squared distances between all rows are computed once and shared by every draw. The SVM
    is a job of its own (kind ``"kernel_expansion_svm"``) whose key leaves out the width, γ and
    C: runs on the same data, draws and sizes (e.g. the two widths of Figure 2) share it.

    Parameters
    ----------
    X : ndarray (n_samples, n_features); every row is a kernel of the expansion
    y : ndarray of 0/1 (n_samples,)
    sizes, seeds : sequences of int
    candidates : rows the labeled points are drawn from (default: all)
    test : rows errors are measured on, minus the labeled ones (default: all)
    width : {"rule", "cv"} or float > 0
        The paper's rule, the rule times a factor from ``factors`` chosen on the labeled rows
        (per method), or the rule times this fixed factor.
    factors : sequence of float > 0, the grid of ``width="cv"``
    methods : sequence of names from :data:`METHODS` (default: all)

    Returns
    -------
    Curves
    """
    width = check_width(width)
    factors = tuple(check_number("factor", f, above=0) for f in factors)
    methods = tuple(check_choice("method", m, METHODS) for m in methods)
    if not methods:
        raise ValueError("methods must name at least one of " + ", ".join(METHODS))
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    candidates = np.arange(len(y)) if candidates is None else np.asarray(candidates)
    test = np.arange(len(y)) if test is None else np.asarray(test)
    digest = data_digest(X, y, candidates, test)
    expansions = tuple(m for m in methods if m != "svm")
    jobs = [{"n_labeled": int(s), "seed": int(seed)} for s in sizes for seed in seeds]
    common = {"use_cache": use_cache, "n_jobs": n_jobs, "progress": progress,
              "description": description}
    results = [{} for _ in jobs]
    if expansions:
        shared = {"X": X, "y": y, "candidates": candidates, "test": test, "width": width,
                  "gamma": gamma, "C": C, "methods": expansions, "sq": squared_distances(X, X),
                  "factors": factors}

        def key(job):
            return {"data": digest, "width": width, "gamma": gamma, "C": C,
                    "methods": list(expansions),
                    "factors": list(factors) if width == "cv" else None,
                    "width_folds": 3 if width == "cv" else None,
                    "criteria": dict(DEFAULT_WIDTH_CRITERION) if width == "cv" else None,
                    "version": RESULT_VERSION, **job}

        found = run_jobs(draw_result, jobs, kind="kernel_expansion", key=key, shared=shared,
                         **common)
        results = [{**r, **f} for r, f in zip(results, found, strict=True)]
    if "svm" in methods:
        def svm_key(job):
            return {"data": digest, "grid": list(SVM_C_GRID), "version": RESULT_VERSION,
                    **job}

        found = run_jobs(svm_result, jobs, kind="kernel_expansion_svm", key=svm_key,
                         shared={"X": X, "y": y, "candidates": candidates, "test": test},
                         **common)
        results = [{**r, **f} for r, f in zip(results, found, strict=True)]
    table = {name: np.array([r[name] for r in results]).reshape(len(sizes), len(seeds))
             for name in results[0]}
    return Curves(np.asarray(sizes), np.asarray(seeds), table)


# -- which criterion should choose the width? ---------------------------------------------------
STUDY_FACTORS = (4.0, 2.0, 1.4, 1.0, 0.7, 0.5, 0.35, 0.25, 0.18, 0.12, 0.06, 0.03)
"""The factors of the rule width at which the study measures test errors (the reference)."""
STUDY_CRITERIA = (*WIDTH_CRITERIA, RULE)
"""The criteria the study compares: each of :data:`WIDTH_CRITERIA`, and the rule unchosen."""
STUDY_SIZES = {"leukemia": (10, 20), "splice": (10,)}
"""The labeled-set sizes of the study per data set (10 draws each)."""
STUDY_EDGE = "a study records its edge choices (at_bound); the lecture states them"


def _test_error(sq, y, labeled, test, width, method):
    R = membership_from_distances(sq, width)
    fit = fit_em if method == "em" else fit_med
    found = fit(R[labeled], y[labeled], 2, record="summary")
    return float(np.mean((R[test] @ found.weights[0] > 0).astype(int) != y[test]))


def width_study_result(sq, y, n_labeled, seed, *, candidates, test, factors=STUDY_FACTORS,
                       grid=WIDTH_FACTORS, cv=3):
    """One seeded draw: each criterion's width factor for EM and MED (chosen on the labeled
    rows from ``grid``, extended as :func:`choose_width_factor` does) and the test error it
    leads to, beside the test errors at every factor of ``factors`` and at every chosen one
    (the reference: never used to choose). Arrays per method, over :data:`STUDY_CRITERIA`."""
    y = np.asarray(y)
    labeled = draw_labeled(y, candidates, n_labeled, seed)
    test = np.setdiff1d(test, labeled)
    rule = width_from_distances(sq[np.ix_(labeled, labeled)], y[labeled])
    result = {}
    for method in ("em", "med"):
        held = (held_out_predictions(sq, y, labeled, method, seed=seed, cv=cv)
                if np.bincount(y[labeled]).min() >= 2 else None)  # else every choice: the rule
        choices = [_used(choose_width_factor(sq, y, labeled, method, factors=grid,
                                             criterion=c, predictions=held), STUDY_EDGE)
                   for c in STUDY_CRITERIA]
        chosen = [float(c.value) for c in choices]
        errors = {f: _test_error(sq, y, labeled, test, rule * f, method)
                  for f in sorted({*factors, *chosen})}
        result.update({
            f"{method}_chosen": np.array(chosen),
            f"{method}_at_bound": np.array([c.at_bound for c in choices]),
            f"{method}_chosen_error": np.array([errors[f] for f in chosen]),
            f"{method}_grid_error": np.array([errors[f] for f in factors]),
            f"{method}_best_error": np.asarray(min(errors.values()))})
    return result


@dataclass(frozen=True)
class WidthStudy:
    """The width study on one data set: ``table[name]`` has shape (n_sizes, n_seeds, ...)."""

    name: str
    sizes: np.ndarray
    seeds: np.ndarray
    table: dict

    def regret(self, method):
        """Test error of each criterion's width minus the test-best width's, (sizes, seeds,
        criteria), in [0, 1]."""
        check_choice("method", method, ("em", "med"))
        return (self.table[f"{method}_chosen_error"]
                - self.table[f"{method}_best_error"][..., None])

    def mean_regret(self, method):
        """Mean regret per criterion over every size and seed, in [0, 1]."""
        return self.regret(method).mean(axis=(0, 1))

    def at_bound(self, method):
        """Share of the draws per size and criterion whose width is at a bound, (sizes, crit.)."""
        return self.table[f"{method}_at_bound"].mean(axis=1)



def pooled_regret(studies, method):
    """Mean regret per criterion of :data:`STUDY_CRITERIA`, in [0, 1], averaged over the data sets
    of ``studies`` (each data set's draws and sizes weigh alike)."""
    return np.mean([study.mean_regret(method) for study in studies], axis=0)


def supported_criteria(studies, method):
    """The criteria with the lowest :func:`pooled_regret` (exact ties kept, in study order)."""
    pooled = pooled_regret(studies, method)
    return tuple(c for c, r in zip(STUDY_CRITERIA, pooled, strict=True)
                 if np.isclose(r, pooled.min(), rtol=0, atol=1e-12))


def width_study(X, y, *, sizes, seeds=range(10), candidates=None, test=None,
                name="data", factors=STUDY_FACTORS, use_cache=True, n_jobs=None, progress=True):
    """Which criterion should choose the width: :func:`width_study_result` on every size and
    seed (jobs of kind ``"kernel_expansion_width_study"``). Returns a :class:`WidthStudy`."""
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    candidates = np.arange(len(y)) if candidates is None else np.asarray(candidates)
    test = np.arange(len(y)) if test is None else np.asarray(test)
    factors = tuple(check_number("factor", f, above=0) for f in factors)
    digest = data_digest(X, y, candidates, test)
    jobs = [{"n_labeled": int(s), "seed": int(seed)} for s in sizes for seed in seeds]

    def key(job):
        return {"data": digest, "factors": list(factors), "grid": list(WIDTH_FACTORS),
                "cv": 3, "version": RESULT_VERSION, **job}

    found = run_jobs(width_study_result, jobs, kind="kernel_expansion_width_study", key=key,
                     shared={"sq": squared_distances(X, X), "y": y, "candidates": candidates,
                             "test": test, "factors": factors},
                     use_cache=use_cache, n_jobs=n_jobs, progress=progress,
                     description=f"width study, {name}")
    table = {k: np.array([r[k] for r in found]).reshape(len(sizes), len(seeds),
                                                        *np.shape(found[0][k]))
             for k in found[0]}
    return WidthStudy(name, np.asarray(sizes), np.asarray(list(seeds)), table)


def format_width_study(study, *, scale=100.0, unit="points"):
    """Per method and criterion: mean regret ± std over the draws per size, the share at a
    bound, and the median chosen factor, as aligned text (regret times ``scale``)."""
    lines = [f"{study.name}: regret = test error of the chosen width minus the test-best "
             f"width's ({unit}), mean ± std over {len(study.seeds)} draws; at bound: share of "
             "draws; factor: median chosen",
             "method  criterion          " + "".join(f"{'L=' + str(s):>24}" for s in study.sizes)
             + "   mean regret"]
    for method in ("em", "med"):
        regret = study.regret(method) * scale
        chosen = study.table[f"{method}_chosen"]
        for j, criterion in enumerate(STUDY_CRITERIA):
            cells = "".join(
                f"{regret[i, :, j].mean():6.2f} ± {regret[i, :, j].std():5.2f} "
                f"{study.at_bound(method)[i, j]:4.0%} {np.median(chosen[i, :, j]):5.3g}"
                for i in range(len(study.sizes)))
            lines.append(f"{method.upper():6}  {criterion:17}  {cells}"
                         f"   {regret[..., j].mean():6.2f}")
    return "\n".join(lines)


# -- is the convergence exponential? -------------------------------------------------------------
@dataclass(frozen=True)
class ExponentialFit:
    """``error(L) ≈ asymptote + scale · exp(−rate · L)`` and the straight line through
    ``log(mean error − asymptote)`` against ``L``."""

    asymptote: float
    how: str
    slope: float
    intercept: float
    r_squared: float
    used: np.ndarray  # sizes whose mean error lies above the asymptote


def exponential_check(sizes, mean_errors, asymptote=None):
    """Fit the semilog line of Figure 1a.

    ``asymptote`` given (e.g. the mean error with many labels) or ``None``: then it is fitted with
    the rate and scale, by least squares on ``a + b exp(−c L)`` (:func:`scipy.optimize.curve_fit`).
    """
    sizes, mean_errors = np.asarray(sizes, float), np.asarray(mean_errors, float)
    how = "given"
    if asymptote is None and len(sizes) < 4:
        raise ValueError(f"fitting the asymptote with the rate and scale needs at least 4 sizes, "
                         f"got {len(sizes)}; give the asymptote instead")
    if asymptote is None:
        def model(L, a, b, c):
            return a + b * np.exp(-c * L)
        guess = (mean_errors.min() * 0.9, mean_errors.max(), 0.1)
        (asymptote, _, _), _ = curve_fit(model, sizes, mean_errors, p0=guess, maxfev=20000)
        how = "fitted"
    used = mean_errors > asymptote
    if used.sum() < 2:
        raise ValueError("fewer than two mean errors lie above the asymptote: no line to fit")
    logs = np.log(mean_errors[used] - asymptote)
    slope, intercept = np.polyfit(sizes[used], logs, 1)
    residual = logs - (slope * sizes[used] + intercept)
    r_squared = 1 - residual.var() / logs.var() if logs.var() > 0 else 1.0
    return ExponentialFit(float(asymptote), how, float(slope), float(intercept),
                          float(r_squared), sizes[used])


# -- the 2-D picture ----------------------------------------------------------------------------
def toy_problem(n_samples=200, *, noise=0.12, seed=0):
    """Two moons (scikit-learn): (X, y); the labeled rows are drawn by :func:`draw_labeled`."""
    from sklearn.datasets import make_moons
    return make_moons(n_samples, noise=noise, random_state=seed)


def toy_fits(X, y):
    """A cached ``(method, n_labeled, sigma, balanced, seed) -> (model, labeled rows)``."""

    @lru_cache(maxsize=64)
    def fit(method, n_labeled, sigma, balanced, seed):
        labeled = draw_labeled(y, np.arange(len(y)), n_labeled, seed)
        targets = np.full(len(y), -1)
        targets[labeled] = y[labeled]
        model = KernelExpansionClassifier(method, sigma=sigma, balanced=balanced)
        return model.fit(X, targets), labeled

    return fit


def toy_pictures(X, y, *, resolution=120, margin=0.3):
    """A ``(label_proba, sigma) -> (Grid, accuracy)`` for the toy explorer.

    ``label_proba`` is P(y|i) of one recorded iteration, shape (n_points, 2). The memberships
    P(i|x) of the grid points and of the points themselves are computed once per σ (O(N²)), so a
    replayed iteration costs two matrix products.
    """
    extent = grid_extent(X, margin=margin)
    xs = np.linspace(extent[0], extent[1], resolution)
    ys = np.linspace(extent[2], extent[3], resolution)
    grid_points = np.column_stack([g.ravel() for g in np.meshgrid(xs, ys)])

    @lru_cache(maxsize=16)
    def memberships(sigma):
        return membership(grid_points, X, sigma), membership(X, X, sigma)

    def picture(label_proba, sigma):
        on_grid, on_points = memberships(sigma)
        proba = (on_grid @ label_proba).reshape(resolution, resolution, -1)
        accuracy = float(np.mean(np.argmax(on_points @ label_proba, axis=1) == y))
        return Grid(xs, ys, proba), accuracy

    return picture


# -- what the notebook prints -------------------------------------------------------------------
def format_table(curves, methods=None, *, scale=1.0, digits=3):
    """Mean ± std over the seeds per size and method, as aligned text (``scale`` as in plots;
    ``methods`` default: every method of ``curves``)."""
    methods = curves.methods if methods is None else methods
    width = max(max(len(m) for m in methods), 2 * digits + 7) + 3
    lines = ["L".rjust(4) + "".join(m.rjust(width) for m in methods)]
    for size, row in curves.summary(methods):
        cells = "".join(f"{row[m][0] * scale:.{digits}f} ± {row[m][1] * scale:.{digits}f}"
                        .rjust(width) for m in methods)
        lines.append(f"{size:4d}{cells}")
    return "\n".join(lines)


def med_convergence(curves):
    """Share of MED fits (balanced and plain) that met the KKT tolerance, and the largest final
    KKT violation and duality gap over all of them."""
    names = [m for m in ("med", "med_plain") if m in curves.methods]
    converged = np.concatenate([curves.table[f"{m}_converged"].ravel() for m in names])
    kkt = np.concatenate([curves.table[f"{m}_kkt"].ravel() for m in names])
    gap = np.concatenate([curves.table[f"{m}_gap"].ravel() for m in names])
    return float(converged.mean()), float(kkt.max()), float(gap.max())


# -- paper scale ---------------------------------------------------------------------------------
@cli.command
def main(argv=None):
    """``python -m sslviz.experiments kernel-expansion [splice] [leukemia] [width-study]
    [options]``.

    Both figures at the paper's scale: 20 draws per size, every size (the lecture runs the
    leukemia curves with fewer draws and sizes), every method, the SVM on raw intensities too.
    ``width-study``: which criterion should choose the width (:func:`width_study`, leukemia and
    splice at :data:`STUDY_SIZES` labels, 10 draws unless ``--seeds`` says otherwise).
    """
    from ..datasets import load_golub, load_splice

    parser = cli.Parser(
        prog="python -m sslviz.experiments kernel-expansion",
        description="Figures 1 (splice) and 2 (leukemia) of Szummer & Jaakkola (2000) at paper "
        "scale: 20 random labeled sets per size; width-study: each width criterion's choice "
        "against the test error it leads to. Cached per draw; an interrupted run resumes.")
    parser.add_argument("figures", nargs="*", metavar="{splice,leukemia,width-study}",
                        help="what to run (default: both figures)")
    parser.add_argument("--seeds", type=cli.seed, nargs="+", default=None)
    parser.add_argument("--n-jobs", type=cli.n_jobs, default=-1)
    parser.add_argument("--no-cache", action="store_true")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.figures) - {"splice", "leukemia", "width-study"})
    if unknown or args.n_jobs == 0:
        parser.error(f"figures must be splice, leukemia and/or width-study (got {unknown}) and "
                     "--n-jobs nonzero")
    args.figures = args.figures or ["splice", "leukemia"]
    seeds = args.seeds or list(range(PAPER_N_SEEDS))
    options = {"seeds": seeds, "use_cache": not args.no_cache, "n_jobs": args.n_jobs}
    start = time.perf_counter()
    if "width-study" in args.figures:
        golub = load_golub()
        splice_X, splice_y = splice_sample(load_splice(("EI", "IE")), n_examples=500, seed=0)
        study = {**options, "seeds": args.seeds or range(10)}
        studies = [width_study(golub.data, golub.target, sizes=STUDY_SIZES["leukemia"],
                               candidates=golub.train_rows, test=golub.test_rows,
                               name="leukemia", **study),
                   width_study(splice_X, splice_y, sizes=STUDY_SIZES["splice"], name="splice",
                               **study)]
        for found in studies:
            print(format_width_study(found), flush=True)
        for method in ("em", "med"):
            print(f"{method.upper()}: mean regret over both data sets (points) "
                  + ", ".join(f"{c} {r:.2f}" for c, r in zip(
                      STUDY_CRITERIA, 100 * pooled_regret(studies, method), strict=True))
                  + f"; lowest: {supported_criteria(studies, method)}", flush=True)
    if "splice" in args.figures:
        X, y = splice_sample(load_splice(("EI", "IE")), n_examples=500, seed=0)
        for sizes in (SPLICE_SIZES, (100,)):
            curves = learning_curves(X, y, sizes=sizes, description="splice", **options)
            print(f"splice, width rule: test error, mean ± std over {len(seeds)} draws",
                  format_table(curves), sep="\n", flush=True)
    if "leukemia" in args.figures:
        for name, data, widths in (("preprocessed", load_golub(), ("rule", "cv")),
                                   ("raw", load_golub(threshold=None, min_fold=None,
                                                      min_range=None, log=False,
                                                      standardize=False), ("rule",))):
            for width in widths:
                curves = learning_curves(data.data, data.target, sizes=GOLUB_SIZES,
                                         candidates=data.train_rows, test=data.test_rows,
                                         width=width, description=f"leukemia {name}",
                                         **options)
                print(f"leukemia ({name}), width {width}: test errors among "
                      f"{len(data.test_rows)}, mean ± std over {len(seeds)} draws",
                      format_table(curves, scale=len(data.test_rows), digits=2), sep="\n",
                      flush=True)
    print(f"wall time {time.perf_counter() - start:.0f} s")
    return 0
