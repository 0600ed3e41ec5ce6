"""Hyper-parameters chosen on the labeled rows only: the same tuning budget for every model.

A lecture that says "semi-supervised learning helps" must compare against the best supervised
model the same labels can buy. Every smoothing constant, penalty or weight is therefore chosen
here, from a grid, by a criterion that never sees a test label:

* :func:`choose_by_cv` -- stratified cross-validation over the labeled rows (scikit-learn's
  ``GridSearchCV`` on explicit folds). A semi-supervised estimator trains each fold on the other
  labeled rows *plus every unlabeled row*, as Nigam et al. (2000, sec. 5.2) chose λ.
  The default score is a *proper* one: the held-out log-likelihood of the true labels (log loss)
  for a model with ``predict_proba``, the held-out hinge loss for a margin classifier. Accuracy
  on a handful of held-out rows ties often, and a tie would fall to whichever value the grid
  happens to list first.
* :func:`choose_alpha` -- the Dirichlet smoothing α of multinomial Naive Bayes (scikit-learn's
  meaning: α pseudo-counts per word and class). With at least two labeled documents in every class
  it maximises the *leave-one-out* log-likelihood of the labels, ``Σ_i log P(y_i | x_i)`` under the
  model trained without document i (the criterion Fujino et al. 2005 use for their generative
  model's smoothing; exact, in closed form). With fewer, no document of a class can be held out,
  and α maximises the *evidence* instead: the Dirichlet-multinomial marginal likelihood of the
  labeled documents' word counts, per class (type-II maximum likelihood; MacKay & Peto 1995).

Exact ties (left after a proper score only when candidates behave identically on every held-out
row) go to the middle of the tied candidates in grid order, never to the first by position, and
:attr:`Choice.tied` says which candidates tied.

Why it matters: α·|V| pseudo-counts per class compete with the few thousand real tokens that a
handful of labeled documents hold; with a 100k-word vocabulary α = 0.1 drowns them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln, logsumexp
from sklearn.base import clone
from sklearn.metrics import hinge_loss, make_scorer
from sklearn.model_selection import GridSearchCV, KFold, StratifiedGroupKFold, StratifiedKFold
from sklearn.naive_bayes import MultinomialNB

from .validation import check_int, labeled_mask

ALPHA_GRID = (1.0, 0.3, 0.1, 0.03, 0.01, 0.003, 0.001)
"""The smoothing constants every lecture searches (scikit-learn's α)."""


@dataclass(frozen=True)
class Choice:
    """A hyper-parameter chosen on labeled rows: the winner, and every candidate's score."""

    params: dict  # the chosen setting, e.g. {"alpha": 0.01}
    candidates: list  # list of dict, the grid in order
    scores: np.ndarray  # (n_candidates,) mean score of each candidate (higher is better)
    criterion: str  # "5-fold cv log-likelihood", "leave-one-out log-likelihood", "evidence", ...

    @property
    def tied(self):
        """The candidates whose score equals the best one (more than one: a tie was broken)."""
        return [c for c, t in zip(self.candidates, _tied_with_best(self.scores), strict=True) if t]

    @property
    def value(self):
        """The chosen value when a single parameter was tuned."""
        (value,) = self.params.values()
        return value

    def describe(self):
        """One line for a notebook: what was chosen, and how."""
        chosen = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                           for k, v in self.params.items())
        return f"{chosen} (chosen by {self.criterion} on the labeled rows)"

    def score_table(self, digits=3):
        """Every candidate's score on one line, the chosen one marked with ``*``."""
        cells = []
        for candidate, score in zip(self.candidates, self.scores, strict=True):
            name = ", ".join(f"{v:g}" if isinstance(v, float) else str(v)
                             for v in candidate.values())
            mark = "*" if candidate == self.params else ""
            cells.append(f"{name}{mark}: {score:.{digits}f}")
        return f"{self.criterion}: " + "  ".join(cells)


def _tied_with_best(scores):
    scores = np.asarray(scores, dtype=float)
    best = np.nanmax(scores)
    return np.isclose(scores, best, rtol=1e-12, atol=1e-12) & np.isfinite(scores)


def best_index(scores):
    """The index of the best score; exact ties go to the middle tied candidate in grid order.

    Raises ``ValueError`` when no candidate has a finite score (every fit failed).
    """
    scores = np.asarray(scores, dtype=float)
    if not np.isfinite(scores).any():
        raise ValueError("no candidate of the grid could be scored (every fit failed or every "
                         "score is NaN); check the grid and that each fold holds every class")
    tied = np.flatnonzero(_tied_with_best(scores))
    return int(tied[(len(tied) - 1) // 2])


def _neg_hinge_loss(y_true, decision):
    return -hinge_loss(y_true, decision)


#: The held-out hinge loss (negated: higher is better) for margin classifiers without
#: ``predict_proba``; unlike accuracy it sees how far each held-out row is from the margin.
NEG_HINGE_LOSS = make_scorer(_neg_hinge_loss, response_method="decision_function")


def held_out_log_likelihood(estimator, X, y):
    """Mean ``log P(y_i | x_i)`` of held-out rows (scikit-learn's ``neg_log_loss``), as a scorer.

    Unlike ``neg_log_loss`` it scores a fold whose rows hold one class only, or a class the
    training fold lacked (probability floored at 1e-15, as ``log_loss`` clips).
    """
    proba = estimator.predict_proba(X)
    column = {label: j for j, label in enumerate(estimator.classes_)}
    picked = np.array([proba[i, column[label]] if label in column else 0.0
                       for i, label in enumerate(np.asarray(y))])
    return float(np.mean(np.log(np.clip(picked, 1e-15, 1.0))))


def proper_scoring(estimator):
    """The default score for ``estimator``: log-likelihood with ``predict_proba``, else hinge."""
    return held_out_log_likelihood if hasattr(estimator, "predict_proba") else NEG_HINGE_LOSS


def _scoring_name(scoring):
    names = {id(NEG_HINGE_LOSS): "hinge loss", id(held_out_log_likelihood): "log-likelihood"}
    return names.get(id(scoring), str(scoring))


def labeled_folds(y, cv=5, *, random_state=None, include_unlabeled=False,
                  allow_unstratified=False, groups=None):
    """Stratified folds over the labeled rows of ``y`` (``-1`` = unlabeled).

    Returns a list of ``(train_rows, test_rows)``; with ``include_unlabeled`` every training fold
    also holds all unlabeled rows. ``cv`` is lowered to the size of the smallest class. When a
    class has a single labeled row there is nothing to stratify: that is an error, unless
    ``allow_unstratified``, which gives ``min(cv, n_labeled)`` plain shuffled folds instead.
    ``groups`` (one id per row, e.g. the story of a sentence): a group's labeled rows are never
    split between training and held-out rows (scikit-learn's ``StratifiedGroupKFold``).
    """
    labeled = labeled_mask(y)
    rows, labels = np.flatnonzero(labeled), np.asarray(y)[labeled]
    smallest = np.unique(labels, return_counts=True)[1].min() if len(labels) else 0
    n_splits = min(check_int("cv", cv, minimum=2), smallest)
    extra = np.flatnonzero(~labeled) if include_unlabeled else np.array([], dtype=int)
    if n_splits < 2 and allow_unstratified and len(rows) >= 2:
        folds = KFold(min(cv, len(rows)), shuffle=True, random_state=random_state).split(rows)
    elif n_splits < 2:
        raise ValueError("cross-validation on the labeled rows needs at least 2 labeled rows in "
                         f"every class; the smallest class has {smallest}")
    elif groups is not None:
        folds = StratifiedGroupKFold(n_splits, shuffle=True, random_state=random_state).split(
            rows, labels, np.asarray(groups)[labeled])
    else:
        folds = StratifiedKFold(n_splits, shuffle=True,
                                random_state=random_state).split(rows, labels)
    return [(np.concatenate([rows[train], extra]), rows[test]) for train, test in folds]


def choose_by_cv(estimator, param_grid, X, y, *, cv=5, random_state=None,
                 semi_supervised=False, scoring="proper", allow_unstratified=False,
                 error_score=np.nan, groups=None):
    """The grid point with the best mean cross-validated score on the labeled rows.

    Parameters
    ----------
    estimator : unfitted scikit-learn estimator (a template; it is cloned)
    param_grid : dict of str -> sequence
    X : array or sparse matrix of shape (n_samples, n_features)
    y : array of shape (n_samples,), ``-1`` for unlabeled rows
    semi_supervised : bool
        Train every fold on the unlabeled rows too (the estimator must accept ``y == -1``).
    scoring : str or callable, default "proper"
        A scikit-learn scorer (name or callable); "proper": :func:`proper_scoring`, the held-out
        log-likelihood of the labels (or hinge loss for a model without ``predict_proba``).
    allow_unstratified : bool
        Plain folds when a class has one labeled row (see :func:`labeled_folds`).
    groups : array of shape (n_samples,), optional
        Group ids: a group's labeled rows stay in one fold (see :func:`labeled_folds`).
    error_score : float
        Score of a candidate whose fit fails on a fold (scikit-learn's ``GridSearchCV``).

    Returns
    -------
    Choice
        Exact ties go to the middle tied candidate in grid order (:func:`best_index`).
    """
    folds = labeled_folds(y, cv, random_state=random_state, include_unlabeled=semi_supervised,
                          allow_unstratified=allow_unstratified, groups=groups)
    if scoring == "proper":
        scoring = proper_scoring(estimator)
    search = GridSearchCV(clone(estimator), param_grid, cv=folds, scoring=scoring, refit=False,
                          error_score=error_score)
    search.fit(X, np.asarray(y))
    scores = search.cv_results_["mean_test_score"]
    candidates = list(search.cv_results_["params"])
    best = best_index(scores)
    return Choice(candidates[best], candidates, scores,
                  f"{len(folds)}-fold cv {_scoring_name(scoring)}")


def choose_alpha(X, y, *, grid=ALPHA_GRID, cv=5, random_state=None, method="auto"):
    """Multinomial NB's smoothing α, chosen on the labeled rows only.

    Parameters
    ----------
    X : sparse matrix of word counts, shape (n_documents, n_words)
    y : array of shape (n_documents,), ``-1`` for unlabeled rows (ignored)
    grid : sequence of float > 0
    method : {"auto", "loo", "cv", "evidence"}
        "auto": the leave-one-out log-likelihood (:func:`loo_log_likelihood`) when every class
        has at least 2 labeled documents, else the evidence (:func:`log_evidence`); "cv": the
        ``cv``-fold cross-validated log-likelihood.

    Returns
    -------
    Choice
    """
    labeled = labeled_mask(y)
    X_lab, y_lab = X[labeled], np.asarray(y)[labeled]
    if method not in ("auto", "loo", "cv", "evidence"):
        raise ValueError(f"method must be 'auto', 'loo', 'cv' or 'evidence', got {method!r}")
    smallest = np.unique(y_lab, return_counts=True)[1].min() if len(y_lab) else 0
    if method == "cv":
        return choose_by_cv(MultinomialNB(), {"alpha": list(grid)}, X_lab, y_lab, cv=cv,
                            random_state=random_state)
    if method == "loo" or (method == "auto" and smallest >= 2):
        scores = np.array([loo_log_likelihood(X_lab, y_lab, alpha) for alpha in grid])
        criterion = "leave-one-out log-likelihood"
    else:
        scores = np.array([log_evidence(X_lab, y_lab, alpha) for alpha in grid])
        criterion = "evidence"
    candidates = [{"alpha": float(alpha)} for alpha in grid]
    return Choice(candidates[best_index(scores)], candidates, scores, criterion)


def loo_log_likelihood(X, y, alpha):
    """``Σ_i log P(y_i | x_i)`` under multinomial NB fitted without document i (exact).

    NB's sufficient statistics are sums, so the model without document i is the full model with
    i's counts taken out of its own class (word counts, token total and class count); the other
    classes do not change. Priors are the class frequencies, as in ``MultinomialNB``. Every class
    needs at least 2 documents (a class left empty has no prior).
    """
    if not alpha > 0:
        raise ValueError(f"alpha must be > 0, got {alpha!r}")
    X = sp.csr_matrix(X, dtype=float)
    classes, y_idx, class_sizes = np.unique(np.asarray(y), return_inverse=True,
                                            return_counts=True)
    if len(classes) and class_sizes.min() < 2:
        raise ValueError("the leave-one-out likelihood needs at least 2 labeled documents in "
                         f"every class; the smallest class has {class_sizes.min()}")
    n_docs, n_words = X.shape
    onehot = sp.csr_matrix((np.ones(n_docs), (y_idx, np.arange(n_docs))),
                           shape=(len(classes), n_docs))
    word_counts = np.asarray((onehot @ X).todense()) + alpha  # (n_classes, n_words), smoothed
    totals = word_counts.sum(axis=1)  # (n_classes,)
    doc_lengths = np.asarray(X.sum(axis=1)).ravel()
    # Full-model scores for every class, then the own-class score with document i taken out.
    scores = X @ np.log(word_counts).T - doc_lengths[:, None] * np.log(totals)[None, :]
    scores += np.log(class_sizes / (n_docs - 1))[None, :]  # the other classes' priors without i
    entries = X.tocoo()
    rows, cols, values = entries.row, entries.col, entries.data
    own_words = np.bincount(rows, weights=values * np.log(word_counts[y_idx[rows], cols] - values),
                            minlength=n_docs)
    own = (own_words - doc_lengths * np.log(totals[y_idx] - doc_lengths)
           + np.log((class_sizes[y_idx] - 1) / (n_docs - 1)))
    scores[np.arange(n_docs), y_idx] = own
    return float(np.sum(own - logsumexp(scores, axis=1)))


def log_evidence(X, y, alpha):
    """log P(word counts of each class | α): the Dirichlet-multinomial marginal likelihood.

    Each class's labeled documents are pooled into one count vector n (N tokens, V words);
    ``log Γ(Vα) − log Γ(Vα + N) + Σ_w [log Γ(α + n_w) − log Γ(α)]``, summed over the classes
    (the multinomial coefficients do not depend on α and are left out).
    """
    if not alpha > 0:
        raise ValueError(f"alpha must be > 0, got {alpha!r}")
    X = sp.csr_matrix(X)
    n_words = X.shape[1]
    total = 0.0
    for label in np.unique(y):
        counts = np.asarray(X[np.asarray(y) == label].sum(axis=0)).ravel()
        used = counts[counts > 0]
        total += (gammaln(n_words * alpha) - gammaln(n_words * alpha + counts.sum())
                  + np.sum(gammaln(alpha + used) - gammaln(alpha)))
    return float(total)
