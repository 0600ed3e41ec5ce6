"""Hyper-parameters chosen on the labeled rows only: the same tuning budget for every model.

A lecture that says "semi-supervised learning helps" must compare against the best supervised
model the same labels can buy. Every smoothing constant, penalty or weight is therefore chosen
here, from a grid, by a criterion that never sees a test label, and by one mechanism:

* :func:`choose_interior` -- the best value of a grid by a criterion; when the best is an end of
  the grid, the grid is extended (by decades for a scale parameter, by its step for a bounded
  one) and the choice made again, up to the bounds documented per kind of parameter in
  :data:`PARAMETER_KINDS` (α, C, a kernel width or σ, λ). A choice that stops at a bound is a
  warning, not a result: the :class:`Choice` says so (``at_bound``, ``edge_message``), and under
  the test command (``SSLVIZ_STRICT_CLAIMS=1``) using it raises until the lecture acknowledges
  it (:meth:`Choice.acknowledge_edge`, or :func:`sslviz.claims.acknowledge_edge`, which prints).
* Exact ties go to a stated secondary criterion, then to the middle tied value; never to
  whichever value the grid lists first (:func:`best_index`).

**NB's α: use** ``choose_nb_alpha(X, y)``. Its criteria, side by side, all on the labeled rows and
exact in closed form (leave-one-out NB is a subtraction of counts, no refit):

* ``"evidence"`` (the default, :func:`log_evidence`): the Dirichlet-multinomial marginal
  likelihood of each class's word counts (type-II maximum likelihood; MacKay & Peto 1995).
  Defined with one labeled document per class.
* ``"loo_accuracy"`` (:func:`loo_accuracy`): leave-one-out classification accuracy, how Nigam
  et al. (2000) set λ and the Dirichlet prior, per Fujino, Ueda & Saito (2005, "Experimental
  Settings").
* ``"loo_generative"`` (:func:`loo_generative_log_likelihood`): ``Σ_i log P(x_i | y_i, θ^(−i))``,
  Fujino et al.'s own criterion for their model's Dirichlet hyper-parameter (same section).
* ``"loo_log_likelihood"`` (:func:`loo_log_likelihood`): ``Σ_i log P(y_i | x_i)`` without i.
  **It fails**: with few labels every NB on the grid scores below the constant guess 1/K, so
  it walks to the most smoothed α it is offered (see the study). Kept for comparison.

The leave-one-out criteria need 2 labeled documents per class; ties of any criterion are broken
by the evidence (:data:`ALPHA_TIE_BREAK`).

Why the evidence is the default -- the study ``python -m sslviz.experiments alpha-study``
(:mod:`sslviz.experiments.model_selection`, taught in ``notebooks/12_model_selection.ipynb``; 10
seeded splits per cell; 20 Newsgroups with the SMART list, WebKB's 4 classes, Reuters R8; 1, 5 and
50 labeled documents per class, R8 40; 2,500 unlabeled documents, EM ≤ 10 iterations, λ = 1). Regret
is the test accuracy the test-best α of the grid would give minus the chosen α's (reported, never
used to choose), averaged over the six cells with ≥ 2 labeled documents per class, NB / EM, in
points:

* evidence: 0.31 / 0.95; never at a bound; the lowest EM regret on 20 Newsgroups at 5/class
  (0.3) and on R8 at 5/class (0.6).
* loo_generative: 0.74 / 1.25; never at a bound; the lowest EM regret on 20 Newsgroups at
  50/class (0.2) and on WebKB (5/class 1.9, 50/class 0.8).
* loo_accuracy: 0.64 / 1.53; never at a bound; its coarse values spread its picks over 3-5
  grid values per cell.
* loo_log_likelihood: 13.46 / 26.74; at the upper bound α = 100 on 60-70 % of the splits of
  20 Newsgroups (5 and 50/class) and R8 (5 and 40/class).

With the evidence, 20 Newsgroups at 5/class gives NB 39.7 %, EM 50.6 % (EM > NB on 10/10
splits); the LOO log P(y|x) gives NB 21.0 %, EM 18.5 % (3/10). At 1/class only the evidence can
choose (20 Newsgroups EM − NB +6.1 points, 9/10; α = 1 unchosen: −6.1, 0/10). The two criteria
the papers name do not fail: a lecture that reproduces Nigam et al. or Fujino et al. may use
``"loo_accuracy"`` or ``"loo_generative"``, and say that the evidence gives away less on average.

**EM's λ: leave-one-out accuracy** (Nigam et al.'s criterion, per Fujino et al.), i.e.
``choose_by_cv_interior(SemiSupervisedNB(alpha=...), "unlabeled_weight", grid, X, y,
kind="unlabeled_weight", cv="loo", scoring="accuracy", tie_break=held_out_log_likelihood,
semi_supervised=True)``. ``alpha-study --lambda`` (5 labeled documents per class, 10 splits,
λ in {0, 0.01, 0.1, 0.25, 0.5, 0.75, 1}; regret of EM in points): WebKB 1.5, R8 2.4 against the
leave-one-out log-likelihood's 2.5 and 2.3; at λ = 0 or 1 on 10 % and 20 % of the splits. The
study does not show Nigam et al.'s criterion failing, but neither criterion gains much over
λ = 1 unchosen (regret 2.0 and 2.5).

**A kernel expansion's width (lecture 08): EM keeps the rule, MED uses balanced accuracy.** The
width is a factor of Szummer & Jaakkola's rule width (kind ``"width"``), chosen by
:func:`sslviz.experiments.kernel_expansion.choose_width_factor` (3-fold cross-validation on the
labeled rows, every unlabeled point kept as a kernel; grid {1, 0.7, 0.5, 0.35} extended by
decades). ``python -m sslviz.experiments kernel-expansion width-study`` (10 draws; leukemia at 10
and 20 labels, splice at 10) gives each criterion's regret against the test-best of twelve
factors from 4 to 0.03 of the rule, in points, averaged over the two data sets, EM / MED: the rule
unchosen 1.84 / 6.04; balanced accuracy (ties: hinge loss) 6.38 / 2.34; accuracy 6.30 / 2.34;
the held-out log-likelihood of the labels 6.57 / 15.91; the hinge loss 11.03 / 15.91. For EM
every criterion takes narrower widths than the rule (medians 0.035-0.35 of it) and gives away
more than the rule on both data sets; the log-likelihood stops inside its extended grid, at no
bound. For MED the rule fails on leukemia at 20 labels (regret 19.4), balanced accuracy does not
(1.2); the log-likelihood and hinge loss fail on splice (28.9; at a bound on 20 % of the draws).
Defaults: ``kernel_expansion.DEFAULT_WIDTH_CRITERION``.
**The hybrid's σ (HybridNB's ``prior_scale``, lecture 09): 1, not chosen.** Fujino et al. (2005)
print no σ for their Gaussian prior on the combination weights. ``sigma-study``
(:mod:`sslviz.experiments.hybrid_sigma`; WebKB and 20 Newsgroups comp.* at 32 and 128 labeled
documents, 10 splits each; σ in 1e-3 … 1e3 by decades, the ``width`` kind's range) compares the
criteria on the labeled rows by their regret (mean over the four cells, points): 3-fold cv
balanced accuracy 2.86, σ = 1 unchosen 2.96, cv accuracy 3.00, the fit's own leave-one-out
conditional likelihood 3.47 (at σ = 1000 on 60-90 % of the splits), cv log-likelihood of the
labels 4.06 (at a bound on 30-70 %; 7.0 on 20 Newsgroups at 32). None beats σ = 1 by more than
a tenth of a point, so σ = 1 stays the stated default.

* :func:`choose_by_cv` / :func:`choose_by_cv_interior` -- stratified cross-validation over the
  labeled rows. A semi-supervised estimator trains each fold on the other labeled rows *plus
  every unlabeled row*, as Nigam et al. (2000, sec. 5.2) chose λ. The default score is the
  held-out log-likelihood of the labels (log loss) for a model with ``predict_proba``. For a
  margin classifier (an SVM's C) use :data:`MARGIN_SCORING`, cross-validated balanced accuracy,
  which a majority-class predictor cannot win (it scores 1/K), with the held-out hinge loss
  (:data:`NEG_HINGE_LOSS`) breaking ties, through :func:`choose_by_cv_interior` with
  ``kind="C"``. The study ``alpha-study --svm-c`` (tf-idf linear SVM, 5 and 50 labeled documents
  per class, R8 40; 10 splits) finds the hinge loss and balanced accuracy equally good on
  average (mean regret 0.45 points each over the six cells; with as many labeled documents in
  every class balanced accuracy equals accuracy), but the hinge loss stopped at the lower bound
  C = 1e-4 on 20 % of the 20 Newsgroups splits at 5 per class, balanced accuracy never.
**A graph's k and label spreading's α (lecture 11): the held-out log-likelihood of hidden
labels.** :func:`sslviz.experiments.graphs.graph_cv` hides a third of the labeled rows,
propagates from the rest and scores the hidden labels; the grids of k (kind ``n_neighbors``) and
spreading's α (``spreading_alpha``) are extended while the pick sits at an end. The study
``python -m sslviz.experiments graph-criteria`` (:mod:`sslviz.experiments.graphs_criteria`; 10
draws of Senseval *line* and *interest* at 5 % labeled; harmonic propagation and spreading)
gives mean regrets, in points: log-likelihood 0.64, accuracy 0.58 (+0.06 ± 0.21: not
separated), balanced accuracy 1.66 (worse by about one point). The log-likelihood's picks sit at
an end of the grid half as often as the accuracy's (18 % against 38 % of the draws; the
accuracy takes k = 1 on 8 of 10 *line* draws), so it is the default; accuracy ties are broken by
it.

Why it matters: α·|V| pseudo-counts per class compete with the few thousand real tokens that a
handful of labeled documents hold; with a 100k-word vocabulary α = 0.1 drowns them.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln, logsumexp
from sklearn.base import clone
from sklearn.metrics import hinge_loss, make_scorer
from sklearn.model_selection import (
    GridSearchCV,
    KFold,
    StratifiedGroupKFold,
    StratifiedKFold,
    cross_val_score,
)

from .validation import check_int, labeled_mask

__all__ = ["ALPHA_CRITERIA", "ALPHA_GRID", "ALPHA_TIE_BREAK", "Choice", "DEFAULT_ALPHA_CRITERION",
           "LEAVE_ONE_OUT", "MARGIN_SCORING", "NEG_HINGE_LOSS", "PARAMETER_KINDS", "ParameterKind",
           "best_index", "choose_by_cv", "choose_by_cv_interior", "choose_interior",
           "choose_nb_alpha", "cv_score", "grid_edge_message", "held_out_log_likelihood",
           "kind_name", "labeled_folds",
           "log_evidence", "loo_accuracy", "loo_generative_log_likelihood", "loo_log_likelihood",
           "proper_scoring"]

ALPHA_GRID = (1.0, 0.3, 0.1, 0.03, 0.01, 0.003, 0.001)
"""The smoothing constants every lecture searches (scikit-learn's α)."""


@dataclass(frozen=True)
class Choice:
    """A hyper-parameter chosen on labeled rows: the winner, and every candidate's score.

    A choice made by :func:`choose_interior` also says whether its grid was extended
    (``extended``: the values added) and whether it still sits at a documented bound
    (``at_bound``, ``edge_message``). Such an edge choice is a warning, not a result: until
    :meth:`acknowledge_edge` records why the lecture may use it, reading :attr:`value`,
    :meth:`describe` or :meth:`score_table` raises :class:`sslviz.claims.EdgeNotAcknowledged`
    under ``SSLVIZ_STRICT_CLAIMS=1`` (the test command) and warns otherwise.
    """

    params: dict  # the chosen setting, e.g. {"alpha": 0.01}
    candidates: list  # list of dict, the grid in order
    scores: np.ndarray  # (n_candidates,) mean score of each candidate (higher is better)
    criterion: str  # "5-fold cv log-likelihood", "leave-one-out log-likelihood", "evidence", ...
    extended: tuple = ()  # values added to the grid by choose_interior
    at_bound: bool = False  # the choice is an end of the grid that is a documented bound
    edge_message: str = ""  # what the edge is, when at_bound
    acknowledged: str = ""  # the lecture's reason for using an edge choice

    def __post_init__(self):
        if not self.at_bound:
            message = grid_edge_message(self.params, self.candidates)
            if message:
                object.__setattr__(self, "at_bound", True)
                object.__setattr__(self, "edge_message", message)

    @property
    def tied(self):
        """The candidates whose score equals the best one (more than one: a tie was broken)."""
        return [c for c, t in zip(self.candidates, _tied_with_best(self.scores), strict=True) if t]

    @property
    def value(self):
        """The chosen value when a single parameter was tuned."""
        self._check_edge()
        (value,) = self.params.values()
        return value

    def acknowledge_edge(self, reason):
        """This choice with the lecture's ``reason`` for using a value at a bound of its grid."""
        if not isinstance(reason, str) or not reason.strip():
            raise ValueError(f"reason must be a non-empty str saying why an edge choice may be "
                             f"used, got {reason!r}")
        return replace(self, acknowledged=reason.strip())

    def _check_edge(self):
        if not self.at_bound or self.acknowledged:
            return
        from .claims import EdgeNotAcknowledged, strict

        message = (f"{self.edge_message}; acknowledge it with choice.acknowledge_edge(reason) "
                   "or sslviz.claims.acknowledge_edge(choice, reason) before using it")
        if strict():
            raise EdgeNotAcknowledged(message)
        warnings.warn(message, stacklevel=3)

    def describe(self):
        """One line for a notebook: what was chosen, and how."""
        self._check_edge()
        chosen = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                           for k, v in self.params.items())
        line = f"{chosen} (chosen by {self.criterion} on the labeled rows)"
        if self.at_bound:
            line += f"; {self.edge_message} (acknowledged: {self.acknowledged})"
        return line

    def score_table(self, digits=3):
        """Every candidate's score on one line, the chosen one marked with ``*``."""
        self._check_edge()
        cells = []
        for candidate, score in zip(self.candidates, self.scores, strict=True):
            name = ", ".join(f"{v:g}" if isinstance(v, float) else str(v)
                             for v in candidate.values())
            mark = "*" if candidate == self.params else ""
            cells.append(f"{name}{mark}: {score:.{digits}f}")
        return f"{self.criterion}: " + "  ".join(cells)


def _numeric(value):
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_))


def grid_edge_message(params, candidates):
    """Why ``params`` sits at an end of the grid ``candidates`` spans, or "" if it does not.

    A numeric parameter with at least 3 distinct values in the grid is at an edge when its chosen
    value is the smallest or the largest of them; categorical parameters (a covariance type) and
    two-valued switches have no edge. Every :class:`Choice` runs this check, so a hand-built grid
    search gets the same warning as :func:`choose_interior`.
    """
    edges = []
    for name, chosen in params.items():
        values = sorted({c[name] for c in candidates if name in c and _numeric(c[name])})
        if len(values) < 3 or not _numeric(chosen):
            continue
        if chosen in (values[0], values[-1]):
            side = "smallest" if chosen == values[0] else "largest"
            edges.append(f"{name} = {chosen:g} is the {side} value of its grid "
                         f"({values[0]:g} to {values[-1]:g})")
    if not edges:
        return ""
    return ("; ".join(edges) + ": extend the grid (sslviz.tuning.choose_interior) or say why "
            "the edge may be used")


def _tied_with_best(scores):
    scores = np.asarray(scores, dtype=float)
    best = np.nanmax(scores)
    return np.isclose(scores, best, rtol=1e-12, atol=1e-12) & np.isfinite(scores)


def best_index(scores, secondary=None):
    """The index of the best score; exact ties go to the middle tied candidate in grid order.

    ``secondary`` (optional, one score per candidate, higher is better; only the tied entries
    are read): ties are first broken by it, and what is still tied goes to the middle.
    Raises ``ValueError`` when no candidate has a finite score (every fit failed).
    """
    scores = np.asarray(scores, dtype=float)
    if not np.isfinite(scores).any():
        raise ValueError("no candidate of the grid could be scored (every fit failed or every "
                         "score is NaN); check the grid and that each fold holds every class")
    tied = np.flatnonzero(_tied_with_best(scores))
    if secondary is not None and len(tied) > 1:
        second = np.asarray(secondary, dtype=float)[tied]
        if np.isfinite(second).any():
            tied = tied[_tied_with_best(second)]
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


LEAVE_ONE_OUT = "loo"
"""``cv=LEAVE_ONE_OUT``: one fold per labeled row (:func:`labeled_folds`)."""


def labeled_folds(y, cv=5, *, random_state=None, include_unlabeled=False,
                  allow_unstratified=False, groups=None):
    """Stratified folds over the labeled rows of ``y`` (``-1`` = unlabeled).

    Returns a list of ``(train_rows, test_rows)``; with ``include_unlabeled`` every training fold
    also holds all unlabeled rows. ``cv="loo"`` (:data:`LEAVE_ONE_OUT`): every labeled row is
    held out alone, in order (Nigam et al.'s leave-one-out). Otherwise ``cv`` is lowered to the
    size of the smallest class. When a class has a single labeled row there is nothing to
    stratify: that is an error, unless ``allow_unstratified``, which gives
    ``min(cv, n_labeled)`` plain shuffled folds instead.
    ``groups`` (one id per row, e.g. the story of a sentence): a group's labeled rows are never
    split between training and held-out rows (scikit-learn's ``StratifiedGroupKFold``).
    """
    labeled = labeled_mask(y)
    rows, labels = np.flatnonzero(labeled), np.asarray(y)[labeled]
    extra = np.flatnonzero(~labeled) if include_unlabeled else np.array([], dtype=int)
    if isinstance(cv, str) and cv == LEAVE_ONE_OUT:
        if len(rows) < 2:
            raise ValueError(f"leave-one-out needs at least 2 labeled rows, got {len(rows)}")
        return [(np.concatenate([np.delete(rows, i), extra]), rows[i:i + 1])
                for i in range(len(rows))]
    smallest = np.unique(labels, return_counts=True)[1].min() if len(labels) else 0
    n_splits = min(check_int("cv", cv, minimum=2), smallest)
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
                 error_score=np.nan, groups=None, tie_break=None):
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
    tie_break : str or callable, optional
        A secondary scorer that breaks exact ties of ``scoring`` on the same folds (e.g.
        :data:`NEG_HINGE_LOSS` behind :data:`MARGIN_SCORING`).

    Returns
    -------
    Choice
        Exact ties go to the best tied candidate by ``tie_break``, then to the middle tied
        candidate in grid order (:func:`best_index`).
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
    criterion = f"{len(folds)}-fold cv {_scoring_name(scoring)}"
    tied = np.flatnonzero(_tied_with_best(scores)) if np.isfinite(scores).any() else []
    secondary = None
    if tie_break is not None and len(tied) > 1:
        again = GridSearchCV(clone(estimator), [{k: [v] for k, v in candidates[i].items()}
                                                for i in tied],
                             cv=folds, scoring=tie_break, refit=False, error_score=error_score)
        again.fit(X, np.asarray(y))
        secondary = np.full(len(candidates), np.nan)
        secondary[tied] = again.cv_results_["mean_test_score"]
        criterion += f" (ties: {_scoring_name(tie_break)})"
    best = best_index(scores, secondary)
    return Choice(candidates[best], candidates, scores, criterion)


def _loo_class_scores(X, y, alpha):
    """NB's class scores of every labeled document under the model fitted without it.

    NB's sufficient statistics are sums, so the model without document i is the full model with
    i's counts taken out of its own class (word counts, token total and class count); the other
    classes do not change. Returns ``(scores, own_generative, y_idx)``: ``scores[i, c]`` is
    ``log P(c) + log P(x_i | c)`` without document i (priors the class frequencies, as in
    ``MultinomialNB``; the multinomial coefficient, the same for every class and α, left out);
    ``own_generative[i]`` is ``log P(x_i | y_i)`` alone. Callers check that every class keeps a
    document when one is held out (:func:`_two_per_class`).
    """
    if not alpha > 0:
        raise ValueError(f"alpha must be > 0, got {alpha!r}")
    X = sp.csr_matrix(X, dtype=float)
    classes, y_idx, class_sizes = np.unique(np.asarray(y), return_inverse=True,
                                            return_counts=True)
    n_docs, n_words = X.shape
    if n_docs < 2:
        raise ValueError(f"leave-one-out needs at least 2 labeled documents, got {n_docs}")
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
    own_generative = own_words - doc_lengths * np.log(totals[y_idx] - doc_lengths)
    own = own_generative + np.log((class_sizes[y_idx] - 1) / (n_docs - 1))
    scores[np.arange(n_docs), y_idx] = own
    return scores, own_generative, y_idx


def _two_per_class(y, what):
    sizes = np.unique(np.asarray(y), return_counts=True)[1]
    if len(sizes) and sizes.min() < 2:
        raise ValueError(f"{what} needs at least 2 labeled documents in every class; the "
                         f"smallest class has {sizes.min()} (with one per class use the "
                         "evidence, criterion='evidence')")


def loo_log_likelihood(X, y, alpha):
    """``Σ_i log P(y_i | x_i)`` under multinomial NB fitted without document i (exact).

    The leave-one-out log-likelihood of the *labels* (a discriminative score of a generative
    model). Closed form, no refits (:func:`_loo_class_scores`). Every class needs at least 2
    documents (a class left empty has no prior).
    """
    _two_per_class(y, "the leave-one-out likelihood")
    scores, _, y_idx = _loo_class_scores(X, y, alpha)
    own = scores[np.arange(len(y_idx)), y_idx]
    return float(np.sum(own - logsumexp(scores, axis=1)))


def loo_accuracy(X, y, alpha):
    """The share of labeled documents that NB fitted without them classifies correctly.

    Nigam et al. (2000) chose EM's weight λ (and the Dirichlet prior) by this leave-one-out
    classification accuracy of the labeled documents, as Fujino, Ueda & Saito (2005, section
    "Experimental Settings") report and follow for EM-λ. Exact, in closed form; a document is
    classified as ``MultinomialNB.predict`` would (the first class of the highest score). Few
    labeled documents make its values coarse (ties are common: break them with a secondary
    criterion, see :data:`ALPHA_TIE_BREAK`).
    """
    _two_per_class(y, "leave-one-out accuracy")
    scores, _, y_idx = _loo_class_scores(X, y, alpha)
    return float(np.mean(np.argmax(scores, axis=1) == y_idx))


def loo_generative_log_likelihood(X, y, alpha):
    """``Σ_i log P(x_i | y_i, θ^(−i))``: held-out documents' words under their own class.

    The criterion Fujino, Ueda & Saito (2005, section "Experimental Settings") use for their own
    model's Dirichlet hyper-parameter: the leave-one-out log-likelihood of the *generative*
    probabilities. It never looks at the other classes, so it cannot be won by smoothing every
    class into the same flat distribution. Multinomial coefficients (independent of α) are left
    out. Exact, in closed form; every class needs at least 2 documents.
    """
    _two_per_class(y, "the leave-one-out generative likelihood")
    _, own_generative, _ = _loo_class_scores(X, y, alpha)
    return float(np.sum(own_generative))


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


# -- choices that are never silently at the edge of their grid ---------------------------------

@dataclass(frozen=True)
class ParameterKind:
    """How far a grid of one kind of parameter may be extended, and in which steps.

    ``scale="log"``: a scale parameter, extended by decades (×10 or ÷10) up to its bounds;
    ``scale="linear"``: extended by the grid's last step, up to its bounds;
    ``scale="double"``: a whole number (a neighbour or component count), doubled or halved.
    """

    name: str
    lower: float
    upper: float
    scale: str
    bounds_reason: str

    def beyond(self, values, upward):
        """The next value past the end of the sorted ``values``, or None at a bound."""
        end = values[-1] if upward else values[0]
        if math.isclose(end, self.upper if upward else self.lower, rel_tol=1e-9, abs_tol=0.0):
            return None
        if self.scale == "log":
            new = end * 10 if upward else end / 10
        elif self.scale == "double":
            new = int(end) * 2 if upward else max(int(end) // 2, int(self.lower))
        else:
            step = values[-1] - values[-2] if upward else values[1] - values[0]
            new = end + step if upward else end - step
        bound = self.upper if upward else self.lower
        if math.isclose(new, bound, rel_tol=1e-9, abs_tol=1e-12) or (new > bound) == upward:
            bound = int(bound) if self.scale == "double" else bound
            return bound  # the last step lands on (or past) the bound: stop there
        return new

    def check(self, value):
        value = float(value)
        if not self.lower <= value <= self.upper:
            raise ValueError(f"{self.name} = {value:g} is outside its documented bounds "
                             f"[{self.lower:g}, {self.upper:g}] ({self.bounds_reason})")
        if self.scale == "double":
            if value != int(value):
                raise ValueError(f"{self.name} must be a whole number, got {value:g}")
            return int(value)
        return value


PARAMETER_KINDS = {
    "alpha": ParameterKind(
        "alpha", 1e-6, 100.0, "log",
        "NB's α: below 1e-6 a pseudo-count is nothing beside one real token; above 100, "
        "α·|V| pseudo-tokens per class outnumber the tokens of any labeled set"),
    "C": ParameterKind(
        "C", 1e-4, 1e4, "log",
        "an SVM's C on features scaled to unit length: below 1e-4 every weight is ~0, above "
        "1e4 the problem is a hard margin"),
    "width": ParameterKind(
        "width", 1e-3, 1e3, "log",
        "a kernel width or σ, as a multiple of a data scale (e.g. the median distance)"),
    "unlabeled_weight": ParameterKind(
        "unlabeled_weight", 0.0, 1.0, "linear",
        "EM's λ, the weight of an unlabeled document, lies in [0, 1] (Nigam et al. 2000)"),
    "n_neighbors": ParameterKind(
        "n_neighbors", 1, 256, "double",
        "a kNN graph's k: 1 is the sparsest graph; past 256 neighbours the graph is nearly "
        "complete for the lectures' few thousand rows"),
    "n_components": ParameterKind(
        "n_components", 1, 128, "double",
        "M-EM's mixture components per class: 1 is plain NB; past 128 a component holds "
        "fewer than a few of the lectures' documents"),
    "spreading_alpha": ParameterKind(
        "spreading_alpha", 0.01, 0.99, "linear",
        "label spreading's α lies in (0, 1): at 0 the labels do not spread, at 1 the seed "
        "labels are forgotten (Zhou et al. 2004)"),
    # The paper's MER grid stops at 1, where lecture 09's MER study already finds one class
    # taking most unlabeled rows; 10 is one decade past it.
    "entropy_weight": ParameterKind(
        "entropy_weight", 1e-6, 10.0, "log",
        "entropy regularisation's λ (MLR/MER): below 1e-6 the unlabeled rows' entropy is "
        "nothing beside the labels' log-likelihood; above 10 it outweighs it so far that the "
        "fit puts every unlabeled row in one class (lecture 09's MER study)"),
}
"""The kinds of parameter :func:`choose_interior` extends, with their documented bounds."""


def choose_interior(score, grid, *, kind, criterion, tie_break=None, tie_break_name=None):
    """The best value of ``grid`` by ``score``, the grid extended until the best is interior.

    Parameters
    ----------
    score : callable value -> float (higher is better), computed on labeled rows only
    grid : sequence of at least 3 numbers within the kind's bounds
    kind : str (a key of :data:`PARAMETER_KINDS`) or ParameterKind
    criterion : str, the score's name
    tie_break : callable value -> float, optional
        The secondary criterion for exact ties of ``score`` (called for tied values only);
        what it still ties goes to the middle tied value (:func:`best_index`).

    Returns
    -------
    Choice
        Candidates in increasing order, the extended grid included (``extended``). When the
        best value is an end of the grid that is the kind's bound, ``at_bound`` is True and
        ``edge_message`` says so (see :meth:`Choice.acknowledge_edge`).
    """
    kind = PARAMETER_KINDS[kind] if isinstance(kind, str) else kind
    values = sorted({kind.check(v) for v in grid})
    if len(values) < 3:
        raise ValueError(f"the grid needs at least 3 distinct values (an interior choice needs "
                         f"one on each side), got {list(grid)!r}")
    primary, secondary, extended = {}, {}, []
    while True:
        for v in values:
            if v not in primary:
                primary[v] = float(score(v))
        scores = np.array([primary[v] for v in values])
        tied = np.flatnonzero(_tied_with_best(scores)) if np.isfinite(scores).any() else []
        second = None
        if tie_break is not None and len(tied) > 1:
            for i in tied:
                if values[i] not in secondary:
                    secondary[values[i]] = float(tie_break(values[i]))
            second = np.array([secondary.get(v, np.nan) for v in values])
        best = best_index(scores, second)
        if 0 < best < len(values) - 1:
            break
        upward = best == len(values) - 1
        new = kind.beyond(values, upward)
        if new is None:
            break
        values = sorted([*values, new])
        extended.append(new)
    value = values[best]
    at_bound = not 0 < best < len(values) - 1
    message = ""
    if at_bound:
        side = "upper" if best == len(values) - 1 else "lower"
        message = (f"{kind.name} = {value:g} is at the {side} bound of its grid "
                   f"({kind.bounds_reason})")
    name = criterion + (f" (ties: {tie_break_name})" if tie_break_name else "")
    candidates = [{kind.name: v} for v in values]
    return Choice({kind.name: value}, candidates, scores, name, tuple(extended), at_bound,
                  message)


ALPHA_CRITERIA = {
    "loo_accuracy": (loo_accuracy, "leave-one-out accuracy"),
    "evidence": (log_evidence, "evidence"),
    "loo_generative": (loo_generative_log_likelihood, "leave-one-out generative log-likelihood"),
    "loo_log_likelihood": (loo_log_likelihood, "leave-one-out log-likelihood"),
}
"""NB α's criteria on labeled rows: name -> (function(X, y, alpha), printed name)."""

ALPHA_TIE_BREAK = "evidence"
"""The secondary criterion of every α criterion: the evidence is smooth in α, needs no held-out
document and is defined with one labeled document per class (the evidence itself is
continuous: its exact ties go to the middle tied value)."""

DEFAULT_ALPHA_CRITERION = "evidence"
"""The criterion :func:`choose_nb_alpha` uses by default (see the module docstring's study)."""


def choose_nb_alpha(X, y, *, criterion="default", grid=ALPHA_GRID):
    """Multinomial NB's α chosen on the labeled rows, never silently at the edge of its grid.

    Parameters
    ----------
    X : sparse matrix of word counts, shape (n_documents, n_words)
    y : array of shape (n_documents,), ``-1`` for unlabeled rows (ignored)
    criterion : {"default", "loo_accuracy", "evidence", "loo_generative", "loo_log_likelihood"}
        "default": :data:`DEFAULT_ALPHA_CRITERION`. The leave-one-out criteria need 2 labeled
        documents in every class; "default" then falls back to the evidence.
    grid : sequence of float, extended by decades up to ``PARAMETER_KINDS["alpha"]``'s bounds
        until the choice is interior (:func:`choose_interior`)

    Returns
    -------
    Choice
        Exact ties are broken by :data:`ALPHA_TIE_BREAK`, then go to the middle.
    """
    labeled = labeled_mask(y)
    X_lab, y_lab = sp.csr_matrix(X)[labeled], np.asarray(y)[labeled]
    if criterion == "default":
        smallest = np.unique(y_lab, return_counts=True)[1].min() if len(y_lab) else 0
        criterion = DEFAULT_ALPHA_CRITERION if smallest >= 2 else "evidence"
    if criterion not in ALPHA_CRITERIA:
        raise ValueError(f"criterion must be 'default' or one of {sorted(ALPHA_CRITERIA)}, "
                         f"got {criterion!r}")
    function, name = ALPHA_CRITERIA[criterion]
    tie_function, tie_name = ALPHA_CRITERIA[ALPHA_TIE_BREAK]
    tie_break = None if criterion == ALPHA_TIE_BREAK else (
        lambda alpha: tie_function(X_lab, y_lab, alpha))
    return choose_interior(lambda alpha: function(X_lab, y_lab, alpha), grid, kind="alpha",
                           criterion=name, tie_break=tie_break,
                           tie_break_name=None if tie_break is None else tie_name)


MARGIN_SCORING = "balanced_accuracy"
"""A margin classifier's criterion: cross-validated balanced accuracy (the mean recall over the
classes), which a majority-class predictor cannot win (it scores 1 / n_classes)."""


def cv_score(estimator, param, X, y, *, cv=5, random_state=None, scoring="proper",
             semi_supervised=False, allow_unstratified=False, groups=None):
    """``value -> mean cross-validated score`` of ``estimator`` with ``param = value``.

    The folds (:func:`labeled_folds`) are drawn once and shared by every value; arguments as in
    :func:`choose_by_cv`. For :func:`choose_interior`.
    """
    folds = labeled_folds(y, cv, random_state=random_state, include_unlabeled=semi_supervised,
                          allow_unstratified=allow_unstratified, groups=groups)
    if scoring == "proper":
        scoring = proper_scoring(estimator)
    y = np.asarray(y)

    def score(value):
        model = clone(estimator).set_params(**{param: value})
        return float(np.mean(cross_val_score(model, X, y, cv=folds, scoring=scoring,
                                             error_score=np.nan)))

    score.folds_name = ("leave-one-out" if isinstance(cv, str) and cv == LEAVE_ONE_OUT
                        else f"{len(folds)}-fold cv")
    return score


def choose_by_cv_interior(estimator, param, grid, X, y, *, kind, scoring="proper",
                          tie_break=None, **cv_kwargs):
    """:func:`choose_by_cv` for one parameter, never silently at the edge of its grid.

    ``kind``: a key of :data:`PARAMETER_KINDS` (how the grid may be extended); ``tie_break``: a
    secondary scorer for exact ties (e.g. :data:`NEG_HINGE_LOSS` behind :data:`MARGIN_SCORING`).
    ``cv_kwargs``: ``cv``, ``random_state``, ``semi_supervised``, ``allow_unstratified``,
    ``groups``.
    """
    primary = cv_score(estimator, param, X, y, scoring=scoring, **cv_kwargs)
    secondary = (None if tie_break is None else
                 cv_score(estimator, param, X, y, scoring=tie_break, **cv_kwargs))
    resolved = proper_scoring(estimator) if scoring == "proper" else scoring
    choice = choose_interior(
        primary, grid, kind=kind,
        criterion=f"{primary.folds_name} {_scoring_name(resolved)}", tie_break=secondary,
        tie_break_name=None if tie_break is None else _scoring_name(tie_break))
    return replace(choice, params={param: choice.params[kind_name(kind)]},
                   candidates=[{param: c[kind_name(kind)]} for c in choice.candidates])


def kind_name(kind):
    """The parameter name of a kind (a key of :data:`PARAMETER_KINDS` or a ParameterKind)."""
    return kind if isinstance(kind, str) else kind.name
