"""Hyper-parameters chosen on the labeled rows only: the same tuning budget for every model.

A lecture that says "semi-supervised learning helps" must compare against the best supervised
model the same labels can buy. Every smoothing constant, penalty or weight is therefore chosen
here, from a grid, by a criterion that never sees a test label:

* :func:`choose_by_cv` -- stratified cross-validation over the labeled rows (scikit-learn's
  ``GridSearchCV`` on explicit folds). A semi-supervised estimator trains each fold on the other
  labeled rows *plus every unlabeled row*, as Nigam et al. (2000, sec. 5.2) chose λ.
* :func:`choose_alpha` -- the Dirichlet smoothing α of multinomial Naive Bayes (scikit-learn's
  meaning: α pseudo-counts per word and class). With at least two labeled documents in every class
  it cross-validates; with fewer, cross-validation cannot hold a document of each class out, and
  α maximises the *evidence* instead: the Dirichlet-multinomial marginal likelihood of the labeled
  documents' word counts, per class (type-II maximum likelihood; MacKay & Peto 1995).

Why it matters: α·|V| pseudo-counts per class compete with the few thousand real tokens that a
handful of labeled documents hold; with a 100k-word vocabulary α = 0.1 drowns them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
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
    criterion: str  # "cv accuracy (5 folds)", "evidence", ...

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


def labeled_folds(y, cv=5, *, random_state=None, include_unlabeled=False,
                  allow_unstratified=False):
    """Stratified folds over the labeled rows of ``y`` (``-1`` = unlabeled).

    Returns a list of ``(train_rows, test_rows)``; with ``include_unlabeled`` every training fold
    also holds all unlabeled rows. ``cv`` is lowered to the size of the smallest class. When a
    class has a single labeled row there is nothing to stratify: that is an error, unless
    ``allow_unstratified``, which gives ``min(cv, n_labeled)`` plain shuffled folds instead.
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
    else:
        folds = StratifiedKFold(n_splits, shuffle=True,
                                random_state=random_state).split(rows, labels)
    return [(np.concatenate([rows[train], extra]), rows[test]) for train, test in folds]


def choose_by_cv(estimator, param_grid, X, y, *, cv=5, random_state=None,
                 semi_supervised=False, scoring="accuracy", allow_unstratified=False,
                 error_score=np.nan):
    """The grid point with the best mean cross-validated score on the labeled rows.

    Parameters
    ----------
    estimator : unfitted scikit-learn estimator (a template; it is cloned)
    param_grid : dict of str -> sequence
    X : array or sparse matrix of shape (n_samples, n_features)
    y : array of shape (n_samples,), ``-1`` for unlabeled rows
    semi_supervised : bool
        Train every fold on the unlabeled rows too (the estimator must accept ``y == -1``).
    scoring : str
        A scikit-learn scorer name.
    allow_unstratified : bool
        Plain folds when a class has one labeled row (see :func:`labeled_folds`).
    error_score : float
        Score of a candidate whose fit fails on a fold (scikit-learn's ``GridSearchCV``).

    Returns
    -------
    Choice
        Ties go to the first grid point (list the safest value first).
    """
    folds = labeled_folds(y, cv, random_state=random_state, include_unlabeled=semi_supervised,
                          allow_unstratified=allow_unstratified)
    search = GridSearchCV(clone(estimator), param_grid, cv=folds, scoring=scoring, refit=False,
                          error_score=error_score)
    search.fit(X, np.asarray(y))
    scores = search.cv_results_["mean_test_score"]
    candidates = list(search.cv_results_["params"])
    best = int(np.argmax(scores))
    return Choice(candidates[best], candidates, scores, f"{len(folds)}-fold cv {scoring}")


def choose_alpha(X, y, *, grid=ALPHA_GRID, cv=5, random_state=None, method="auto"):
    """Multinomial NB's smoothing α, chosen on the labeled rows only.

    Parameters
    ----------
    X : sparse matrix of word counts, shape (n_documents, n_words)
    y : array of shape (n_documents,), ``-1`` for unlabeled rows (ignored)
    grid : sequence of float > 0
    method : {"auto", "cv", "evidence"}
        "auto": cross-validated accuracy when every class has at least 2 labeled documents,
        else the evidence.

    Returns
    -------
    Choice
    """
    labeled = labeled_mask(y)
    X_lab, y_lab = X[labeled], np.asarray(y)[labeled]
    if method not in ("auto", "cv", "evidence"):
        raise ValueError(f"method must be 'auto', 'cv' or 'evidence', got {method!r}")
    smallest = np.unique(y_lab, return_counts=True)[1].min() if len(y_lab) else 0
    if method == "cv" or (method == "auto" and smallest >= 2):
        return choose_by_cv(MultinomialNB(), {"alpha": list(grid)}, X_lab, y_lab, cv=cv,
                            random_state=random_state)
    scores = np.array([log_evidence(X_lab, y_lab, alpha) for alpha in grid])
    candidates = [{"alpha": float(alpha)} for alpha in grid]
    return Choice(candidates[int(np.argmax(scores))], candidates, scores, "evidence")


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
