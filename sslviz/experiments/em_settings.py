"""Experiments of the EM lecture (04) about its settings: the α criteria side by side, what the
smoothing constant does, and EM's λ chosen on the labeled documents.

:func:`criterion_comparison` runs NB and EM at the α of every criterion of
:func:`sslviz.tuning.choose_nb_alpha` on the same seeded splits; :func:`loo_label_scores` shows
what the leave-one-out criteria see per document; :func:`smoothing_sweep` fits NB and EM at
every α of a grid, to show what the choice is worth and what a bad α does (the share of test
documents sent to one class); :func:`choose_unlabeled_weight` picks λ by leave-one-out
accuracy (Nigam et al.'s criterion, as Fujino, Ueda & Saito 2005 report it) and
:func:`unlabeled_weight_study` compares λ's criteria over splits. Every sweep is a list of
cached jobs of :func:`sslviz.experiments.runner.run_jobs`. The splits, the α choice and the
NB/EM fits they share are :mod:`sslviz.experiments.em`'s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp
from sklearn.base import clone

from ..cache import data_digest
from ..em import SemiSupervisedNB
from ..em_smoothing import smoothing_mass
from ..splits import split_labeled
from ..tuning import (
    ALPHA_CRITERIA,
    ALPHA_GRID,
    LEAVE_ONE_OUT,
    _loo_class_scores,
    choose_by_cv_interior,
    held_out_log_likelihood,
)
from ..validation import check_number
from .em import STUDY_EDGE, _float_counts, _nb_and_em_predictions, alpha_choice, chosen_alpha
from .runner import run_jobs

RESULT_VERSION = 1  # bump for a change sslviz.code_digest cannot see (a dependency's)


# -- the α criteria side by side -------------------------------------------------------------
@dataclass(frozen=True)
class CriterionComparison:
    """NB and EM on the same seeded splits, α chosen on the labeled rows by each criterion.

    Attributes
    ----------
    criteria : tuple of str
        Keys of :data:`ALPHA_CRITERIA`.
    seeds : ndarray of shape (n_seeds,)
    alpha : ndarray of shape (n_criteria, n_seeds)
        The α each criterion chose on each split (NB and EM share it).
    at_bound : ndarray of bool, shape (n_criteria, n_seeds)
        The choice stopped at a bound of α's range (acknowledged, see :func:`criterion_comparison`).
    nb_accuracy, em_accuracy : ndarray of shape (n_criteria, n_seeds)
    """

    criteria: tuple
    seeds: np.ndarray
    alpha: np.ndarray
    at_bound: np.ndarray
    nb_accuracy: np.ndarray
    em_accuracy: np.ndarray

    def row(self, criterion):
        """Position of ``criterion`` in :attr:`criteria`."""
        if criterion not in self.criteria:
            raise ValueError(f"criterion {criterion!r} was not run; the comparison has "
                             f"{list(self.criteria)}")
        return self.criteria.index(criterion)


def criterion_job(X, y, seed, *, n_labeled, test_rows, n_unlabeled, criteria, alpha_grid,
                  edge_reasons, **em_params):
    """One split of :func:`criterion_comparison`: α by every criterion, NB and EM once per
    distinct α."""
    split = split_labeled(y, n_labeled, n_unlabeled=n_unlabeled, test_rows=test_rows,
                          random_state=seed)
    X_train, y_train = _float_counts(X[split.train]), split.semi_supervised_targets(y)
    X_test, y_test = _float_counts(X[split.test]), y[split.test]
    choices = [alpha_choice(X_train, y_train, criterion, grid=alpha_grid,
                            edge_reason=edge_reasons.get(criterion, STUDY_EDGE))
               for criterion in criteria]
    alphas = [float(choice.value) for choice in choices]
    fitted = {}
    for alpha in sorted(set(alphas)):
        em = SemiSupervisedNB(**{**em_params, "alpha": alpha, "record": "summary"})
        fitted[alpha] = [np.mean(guess == y_test)
                         for guess in _nb_and_em_predictions(em, X_train, y_train, X_test)]
    return {"alpha": np.array(alphas), "at_bound": np.array([c.at_bound for c in choices]),
            "nb_accuracy": np.array([fitted[a][0] for a in alphas]),
            "em_accuracy": np.array([fitted[a][1] for a in alphas])}


def criterion_comparison(X, y, *, n_labeled, seeds, test_rows, n_unlabeled, criteria,
                         alpha_grid=ALPHA_GRID, edge_reasons=None, use_cache=True, progress=True,
                         description="α criteria", n_jobs=None, **em_params):
    """NB against EM with α chosen on the labeled rows by each of ``criteria``, split by split.

    Parameters
    ----------
    criteria : sequence of str
        Keys of :data:`ALPHA_CRITERIA` (:func:`sslviz.tuning.choose_nb_alpha`).
    alpha_grid : sequence of float
        The starting grid; each criterion extends it by decades while its best is an end.
    edge_reasons : dict of str -> str, optional
        Per criterion, why a choice at a bound of α's range may be used (the lecture's reason);
        a criterion without one raises (under the test command) when it stops at a bound.
    **em_params
        Other parameters of :class:`SemiSupervisedNB` (``max_iter``, ``unlabeled_weight``).

    Returns
    -------
    CriterionComparison

    Notes
    -----
    One cached :func:`run_jobs` job per seed (kind ``"em_criteria"``); cost one NB and EM fit
    per distinct chosen α per split.
    """
    criteria = tuple(criteria)
    unknown = sorted(set(criteria) - set(ALPHA_CRITERIA))
    if unknown:
        raise ValueError(f"unknown α criteria {unknown}; choose from {sorted(ALPHA_CRITERIA)}")
    y, test_rows = np.asarray(y), np.asarray(test_rows)
    digest = data_digest(X, y, test_rows)
    settings = {"n_labeled": int(n_labeled), "n_unlabeled": int(n_unlabeled),
                "criteria": criteria, "alpha_grid": tuple(map(float, alpha_grid)), **em_params}

    def key(job):
        return {"data": digest, "version": RESULT_VERSION, **settings, **job}

    results = run_jobs(criterion_job, [{"seed": int(s)} for s in seeds], kind="em_criteria",
                       key=key, shared={"X": X, "y": y, "test_rows": test_rows,
                                        "edge_reasons": dict(edge_reasons or {}), **settings},
                       use_cache=use_cache, n_jobs=n_jobs, progress=progress,
                       description=description)
    table = {name: np.stack([r[name] for r in results], axis=1)
             for name in ("alpha", "at_bound", "nb_accuracy", "em_accuracy")}
    return CriterionComparison(criteria, np.asarray(seeds, dtype=int), table["alpha"],
                               table["at_bound"].astype(bool), table["nb_accuracy"],
                               table["em_accuracy"])


def loo_label_scores(X, y, alpha):
    """Per labeled document (``y != -1``): ``log P(y_i | x_i)`` under NB fitted without it, and
    whether that NB classifies it correctly.

    Their sum is :func:`sslviz.tuning.loo_log_likelihood` and the mean of the second
    :func:`sslviz.tuning.loo_accuracy` (exact, no refits); the constant guess 1/K scores
    ``log(1/K)`` on every document.
    """
    y = np.asarray(y)
    labeled = y != -1
    sizes = np.unique(y[labeled], return_counts=True)[1]
    if len(sizes) == 0 or sizes.min() < 2:
        raise ValueError("leave-one-out scores need at least 2 labeled documents in every "
                         "class; label more documents or use the evidence")
    scores, _, y_idx = _loo_class_scores(sp.csr_matrix(X)[labeled], y[labeled], alpha)
    own = scores[np.arange(len(y_idx)), y_idx] - logsumexp(scores, axis=1)
    return own, np.argmax(scores, axis=1) == y_idx


def choose_unlabeled_weight(estimator, X, y, grid, *, cv=LEAVE_ONE_OUT, random_state=None):
    """Pick λ (``unlabeled_weight``) by leave-one-out accuracy on the labeled rows.

    Nigam et al.'s criterion, as Fujino, Ueda & Saito (2005, "Experimental Settings") report it:
    every fold trains on the other labeled rows plus *all* unlabeled rows and classifies its
    held-out labeled row. Exact ties of accuracy go to the held-out log-likelihood
    (:func:`sslviz.tuning.held_out_log_likelihood`), then to the middle tied λ
    (:func:`sslviz.tuning.choose_by_cv_interior`, kind ``"unlabeled_weight"``).

    Parameters
    ----------
    estimator : SemiSupervisedNB
        Unfitted template; its other parameters are kept.
    grid : sequence of float in [0, 1]
    cv : "loo" or int, default="loo"
        An int gives stratified folds instead (lowered to the smallest class, at least 2).

    Returns
    -------
    sslviz.tuning.Choice
        ``.value`` the chosen λ, ``.scores`` every candidate's accuracy, ``.score_table()``;
        λ = 0 or 1 is a bound of the parameter (``at_bound``: acknowledge it before use).
    """
    labels = np.asarray(y)[np.asarray(y) != -1]
    smallest = np.unique(labels, return_counts=True)[1].min() if len(labels) else 0
    if smallest < 2:
        raise ValueError(f"choosing λ needs at least 2 labeled rows in every class (a held-out "
                         f"row's class must keep a labeled row); the smallest class has "
                         f"{smallest}: label more documents, or keep λ = 1")
    template = clone(estimator).set_params(record="summary")
    return choose_by_cv_interior(template, "unlabeled_weight", grid, X, y,
                                 kind="unlabeled_weight", cv=cv, scoring="accuracy",
                                 tie_break=held_out_log_likelihood, semi_supervised=True,
                                 random_state=random_state)


# -- what the smoothing constant does ---------------------------------------------------------
@dataclass(frozen=True)
class SmoothingSweep:
    """NB and EM at every α of a grid, on the same seeded splits, beside the α chosen on the
    labeled rows of each split.

    Attributes
    ----------
    alphas : ndarray of shape (n_alphas,)
    seeds : ndarray of shape (n_seeds,)
    nb_accuracy, em_accuracy : ndarray of shape (n_alphas, n_seeds)
        Test accuracy of NB (labeled rows only) and EM (labeled + unlabeled) at each α.
    nb_predicted, em_predicted : ndarray of int, shape (n_alphas, n_seeds, n_classes)
        Test documents each model assigns to every class (the collapse shows here).
    chosen : ndarray of shape (n_seeds,)
        The α :func:`alpha_choice` picks on each split's labeled rows.
    criteria : ndarray of str, shape (n_seeds,)
        How it was chosen (e.g. "evidence").
    tokens : ndarray of shape (n_seeds, n_classes)
        Word tokens of the labeled documents of every class (to set against α·|V|).
    n_words : int
        Vocabulary size |V|.
    """

    alphas: np.ndarray
    seeds: np.ndarray
    nb_accuracy: np.ndarray
    em_accuracy: np.ndarray
    nb_predicted: np.ndarray
    em_predicted: np.ndarray
    chosen: np.ndarray
    criteria: np.ndarray
    tokens: np.ndarray
    n_words: int

    def index(self, alpha):
        """Position of ``alpha`` in :attr:`alphas`."""
        matches = np.flatnonzero(np.isclose(self.alphas, alpha))
        if len(matches) == 0:
            raise ValueError(f"alpha {alpha!r} was not run; the sweep has {self.alphas.tolist()}")
        return int(matches[0])

    def majority_share(self, method="nb"):
        """Share of test documents in the most-predicted class, shape (n_alphas, n_seeds)."""
        counts = {"nb": self.nb_predicted, "em": self.em_predicted}[method]
        return counts.max(axis=2) / counts.sum(axis=2)

    def majority_share_at_chosen(self, method="nb"):
        """Share of test documents in the most-predicted class at each seed's chosen α."""
        shares = self.majority_share(method)
        return np.array([shares[self.index(alpha), j] for j, alpha in enumerate(self.chosen)])

    def at_chosen(self):
        """(NB, EM) test accuracy of every seed at the α chosen on its labeled rows."""
        rows = [self.index(alpha) for alpha in self.chosen]
        columns = np.arange(len(self.seeds))
        return self.nb_accuracy[rows, columns], self.em_accuracy[rows, columns]

    def best_on_test(self, method="nb"):
        """The α with the best *mean test* accuracy: a diagnostic of the choice, never a way to
        make it."""
        accuracy = {"nb": self.nb_accuracy, "em": self.em_accuracy}[method]
        return float(self.alphas[int(np.argmax(accuracy.mean(axis=1)))])


def smoothing_job(X, y, seed, *, n_labeled, per_class, test_rows, n_unlabeled, alphas,
                  alpha_grid, alpha_criterion="evidence", **em_params):
    """One split of :func:`smoothing_sweep`: the chosen α, then NB and EM at every α."""
    split = split_labeled(y, n_labeled, n_unlabeled=n_unlabeled, per_class=per_class,
                          test_rows=None if test_rows is None else np.asarray(test_rows),
                          random_state=seed)
    test = split.test if len(split.test) else np.setdiff1d(np.arange(len(y)), split.train)
    X_train, y_train = _float_counts(X[split.train]), split.semi_supervised_targets(y)
    X_test = _float_counts(X[test])
    choice = alpha_choice(X_train, y_train, alpha_criterion, grid=alpha_grid, random_state=seed)
    classes = np.unique(y)
    tokens = smoothing_mass(X_train, y_train, choice.value).tokens  # every class is labeled
    predicted = np.zeros((2, len(alphas), len(classes)), dtype=np.int64)
    accuracy = np.zeros((2, len(alphas)))
    for i, alpha in enumerate(alphas):
        em = SemiSupervisedNB(**{**em_params, "alpha": alpha, "record": "summary"})
        for m, guess in enumerate(_nb_and_em_predictions(em, X_train, y_train, X_test)):
            accuracy[m, i] = np.mean(guess == y[test])
            predicted[m, i] = np.bincount(np.searchsorted(classes, guess),
                                          minlength=len(classes))
    return {"accuracy": accuracy, "predicted": predicted, "chosen": np.float64(choice.value),
            "criterion": np.str_(choice.criterion), "tokens": tokens.astype(float)}


def smoothing_sweep(X, y, *, n_labeled, seeds, n_unlabeled, test_rows=None, per_class=False,
                    alphas=ALPHA_GRID, alpha_grid=None, alpha_criterion="evidence",
                    use_cache=True, progress=True, description="smoothing", n_jobs=None,
                    **em_params):
    """NB and EM test accuracy at every α of ``alphas``, and the α chosen on the labeled rows.

    Parameters
    ----------
    X : sparse matrix of shape (n_documents, n_words)
    y : ndarray of int, shape (n_documents,)
    n_labeled : int
        Labeled documents (per class with ``per_class=True``).
    seeds : sequence of int
        One split per seed (:func:`sslviz.splits.split_labeled`).
    n_unlabeled : int
    test_rows : array-like of int or None
        Fixed test documents; ``None`` = every document outside the split.
    alphas : sequence of float
        The α at which NB and EM are fitted.
    alpha_grid : sequence of float or None
        The grid α is chosen from (default: ``alphas``).
    alpha_criterion : str, default="evidence"
        How α is chosen on each split's labeled rows (:func:`alpha_choice`).
    **em_params
        Other parameters of :class:`SemiSupervisedNB` (``max_iter``, ``unlabeled_weight``).

    Returns
    -------
    SmoothingSweep

    Notes
    -----
    One cached :func:`run_jobs` job per seed (kind ``"smoothing"``); cost
    ``2 × len(alphas) × len(seeds)`` fits the first time.
    """
    alphas = tuple(check_number("alpha", a, above=0) for a in alphas)
    alpha_grid = alphas if alpha_grid is None else tuple(map(float, alpha_grid))
    seeds = np.asarray(seeds, dtype=int)
    y = np.asarray(y)
    test = None if test_rows is None else np.asarray(test_rows, dtype=int)
    digest = data_digest(X, y, np.array([]) if test is None else test)
    shared = {"X": X, "y": y, "n_labeled": n_labeled, "per_class": per_class, "test_rows": test,
              "n_unlabeled": n_unlabeled, "alphas": alphas, "alpha_grid": alpha_grid,
              "alpha_criterion": alpha_criterion, **em_params}

    def key(job):
        return {"data": digest, "version": RESULT_VERSION, "n_labeled": n_labeled,
                "per_class": per_class, "n_unlabeled": n_unlabeled, "alphas": list(alphas),
                "grid": list(alpha_grid), "criterion": alpha_criterion, "em": em_params, **job}

    results = run_jobs(smoothing_job, [{"seed": int(s)} for s in seeds], kind="smoothing",
                       key=key, shared=shared, use_cache=use_cache, n_jobs=n_jobs,
                       progress=progress, description=description)
    accuracy = np.stack([r["accuracy"] for r in results], axis=-1)  # (2, n_alphas, n_seeds)
    predicted = np.stack([r["predicted"] for r in results], axis=2)  # (2, n_alphas, n_seeds, C)
    return SmoothingSweep(np.array(alphas), seeds, accuracy[0], accuracy[1], predicted[0],
                          predicted[1], np.array([float(r["chosen"]) for r in results]),
                          np.array([str(r["criterion"]) for r in results]),
                          np.stack([r["tokens"] for r in results]), int(X.shape[1]))


# -- EM-λ: which weight of the unlabeled documents, chosen on the labeled ones -----------------
@dataclass(frozen=True)
class UnlabeledWeightStudy:
    """λ chosen by leave-one-out accuracy on each split's labeled rows, beside every λ's test
    accuracy, with α chosen on the labeled rows (the evidence) and with α = 1.

    Attributes
    ----------
    weights : ndarray of shape (n_weights,)
        The λ grid (from 0 to 1).
    seeds : ndarray of shape (n_seeds,)
    alphas : ndarray of shape (n_seeds, 2)
        The α of each fit: chosen on the labeled rows, then 1.
    test_accuracy : ndarray of shape (n_seeds, 2, n_weights)
    cv_scores : ndarray of shape (n_seeds, 2, n_weights)
        The leave-one-out accuracy of every λ.
    chosen : ndarray of shape (n_seeds, 2)
        The λ chosen (ties broken by the held-out log-likelihood).
    criterion : str
    """

    weights: np.ndarray
    seeds: np.ndarray
    alphas: np.ndarray
    test_accuracy: np.ndarray
    cv_scores: np.ndarray
    chosen: np.ndarray
    criterion: str

    def choice(self, seed_index, alpha_index):
        """The :class:`sslviz.tuning.Choice` of λ made on split ``seed_index`` with α number
        ``alpha_index`` (0: chosen, 1: α = 1); at 0 or 1 it is at the bound of λ."""
        from ..tuning import PARAMETER_KINDS, Choice

        value = float(self.chosen[seed_index, alpha_index])
        candidates = [{"unlabeled_weight": float(w)} for w in self.weights]
        at_bound = value in (self.weights[0], self.weights[-1])
        message = (f"unlabeled_weight = {value:g} is at the "
                   f"{'upper' if value == self.weights[-1] else 'lower'} bound of its grid "
                   f"({PARAMETER_KINDS['unlabeled_weight'].bounds_reason})" if at_bound else "")
        return Choice({"unlabeled_weight": value}, candidates,
                      self.cv_scores[seed_index, alpha_index], self.criterion,
                      at_bound=at_bound, edge_message=message)


def unlabeled_weight_job(X, y, *, seed, n_labeled, n_unlabeled, weights, max_iter):
    """One split of :func:`unlabeled_weight_study` (a :func:`run_jobs` job)."""
    split = split_labeled(y, n_labeled, per_class=True, n_unlabeled=n_unlabeled,
                          random_state=seed)
    X_train, y_train = _float_counts(X[split.train]), split.semi_supervised_targets(y)
    test = np.setdiff1d(np.arange(len(y)), split.train)
    X_test = _float_counts(X[test])
    alphas = (chosen_alpha(X_train, y_train, "evidence", edge_reason=STUDY_EDGE), 1.0)
    accuracy, scores, chosen = [], [], []
    for alpha in alphas:
        template = SemiSupervisedNB(alpha=alpha, max_iter=max_iter)
        choice = choose_unlabeled_weight(template, X_train, y_train, weights, random_state=seed)
        scores.append(choice.scores)
        chosen.append(choice.params["unlabeled_weight"])  # the study reports where it lies
        accuracy.append([np.mean(clone(template).set_params(unlabeled_weight=w)
                                 .fit(X_train, y_train).predict(X_test) == y[test])
                         for w in weights])
    return {"alphas": np.array(alphas), "test_accuracy": np.array(accuracy),
            "cv_scores": np.array(scores), "chosen": np.array(chosen),
            "criterion": np.str_(choice.criterion)}


def unlabeled_weight_study(X, y, *, seeds, n_labeled, n_unlabeled, weights, max_iter=10,
                           use_cache=True, progress=True, n_jobs=None):
    """λ chosen on the labeled rows (leave-one-out accuracy, :func:`choose_unlabeled_weight`)
    against every λ's test accuracy, on one split per seed (``n_labeled`` per class), with α
    chosen by the evidence and with α = 1.

    ``weights`` must run from 0 to 1 (the bounds of λ), so that no choice extends the grid.
    One cached :func:`run_jobs` job per seed (kind ``"em_lambda"``).

    Returns
    -------
    UnlabeledWeightStudy
    """
    weights = tuple(sorted(check_number("unlabeled_weight", w, minimum=0, maximum=1)
                           for w in weights))
    if len(weights) < 3 or weights[0] != 0 or weights[-1] != 1:
        raise ValueError(f"weights must hold 0, 1 and at least one λ between them (λ's whole "
                         f"range, so that no choice extends the grid), got {list(weights)}")
    y = np.asarray(y)
    digest = data_digest(X, y)
    settings = {"n_labeled": int(n_labeled), "n_unlabeled": int(n_unlabeled),
                "weights": weights, "max_iter": int(max_iter)}

    def key(job):
        return {"data": digest, "version": RESULT_VERSION, **settings, **job}

    results = run_jobs(unlabeled_weight_job, [{"seed": int(s)} for s in seeds], kind="em_lambda",
                       key=key, shared={"X": X, "y": y, **settings}, use_cache=use_cache,
                       n_jobs=n_jobs, progress=progress, description="λ on labeled rows")
    return UnlabeledWeightStudy(np.array(weights), np.asarray(seeds, dtype=int),
                                *(np.stack([r[name] for r in results])
                                  for name in ("alphas", "test_accuracy", "cv_scores", "chosen")),
                                str(results[0]["criterion"]))
