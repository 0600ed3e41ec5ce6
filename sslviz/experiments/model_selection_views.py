"""Views of lecture 12: each α criterion's score curve on one split, and the choices over splits.

The criterion study (:mod:`sslviz.experiments.model_selection`) records, per split, the α each
criterion chose and the test accuracy of NB and EM at every α of its evaluation grid. The lecture
also draws what the study does not keep: each criterion's whole score curve against α on one
split's labeled rows (closed form, no refit: a few seconds for 20 Newsgroups), with the score of
the constant guess 1/K under the leave-one-out log P(y|x), the grid the choosers start from and
the bounds they may extend it to. Views are computed here, drawn by
:mod:`sslviz.plots.model_selection`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..splits import split_labeled
from ..tuning import ALPHA_CRITERIA, ALPHA_GRID, PARAMETER_KINDS
from .model_selection import CRITERIA, N_UNLABELED
from .runner import axis_index

CRITERION_LABELS = {
    "evidence": "evidence (MacKay & Peto)",
    "loo_accuracy": "LOO accuracy (Nigam et al.)",
    "loo_generative": "LOO generative log-lik. (Fujino et al.)",
    "loo_log_likelihood": "LOO log P(y|x) (fails)",
}
"""Each criterion of the study as the lecture's figures name it."""
START_GRID = (min(ALPHA_GRID), max(ALPHA_GRID))
"""The ends of the grid every α chooser starts from."""
ALPHA_BOUNDS = (PARAMETER_KINDS["alpha"].lower, PARAMETER_KINDS["alpha"].upper)
"""How far a chooser may extend that grid (``PARAMETER_KINDS["alpha"]``)."""


def study_cell(cells, corpus, n_labeled):
    """The cell of ``cells`` (from :func:`~sslviz.experiments.model_selection.alpha_study`) for
    ``corpus`` at ``n_labeled`` per class; ``n_labeled`` larger than the corpus's largest size
    (R8 stops at 40) means that largest size."""
    mine = sorted((c for c in cells if c.corpus == corpus), key=lambda c: c.n_labeled)
    if not mine:
        raise ValueError(f"no study cell for corpus {corpus!r}; the study holds "
                         f"{sorted({c.corpus for c in cells})}")
    for cell in mine:
        if cell.n_labeled == n_labeled:
            return cell
    if n_labeled > mine[-1].n_labeled:
        return mine[-1]
    raise ValueError(f"{corpus} was studied at {[c.n_labeled for c in mine]} labeled documents "
                     f"per class, not {n_labeled}")


def labeled_rows(corpus, n_labeled, seed, *, n_unlabeled=N_UNLABELED):
    """The labeled rows ``(X, y)`` of the study's split ``seed`` (the same draw as its job)."""
    split = split_labeled(corpus.y, n_labeled, per_class=True, n_unlabeled=n_unlabeled,
                          test_rows=corpus.test_rows, random_state=seed)
    return corpus.X[split.labeled], np.asarray(corpus.y)[split.labeled]


@dataclass(frozen=True)
class ScoreCurvesView:
    """Every criterion's score against α on one split's labeled rows, and what the study found.

    ``scores[c]`` is NaN where criterion ``c`` is not defined (leave-one-out with one labeled
    document per class). ``chosen`` and ``at_bound`` are the study's record for this split (the
    grid extended by decades from :data:`START_GRID` up to :data:`ALPHA_BOUNDS`);
    ``nb_accuracy`` and ``em_accuracy`` are test accuracies, for reference only (never chose).
    """

    corpus: str
    n_labeled: int
    seed: int
    alphas: np.ndarray  # (n_alphas,)
    scores: dict  # criterion -> (n_alphas,)
    chosen: dict  # criterion -> α (NaN where not defined)
    at_bound: dict  # criterion -> bool
    constant_guess: float  # n · log(1/K): the LOO log P(y|x) of guessing 1/K for every row
    nb_accuracy: np.ndarray  # (n_alphas,)
    em_accuracy: np.ndarray  # (n_alphas,)

    def below_guess(self):
        """True when every α of the grid scores below the constant guess in LOO log P(y|x)."""
        scores = self.scores["loo_log_likelihood"]
        return bool(np.all(np.isfinite(scores)) and np.all(scores < self.constant_guess))


def score_curves_view(corpus, cell, seed, *, n_unlabeled=N_UNLABELED):
    """:class:`ScoreCurvesView` of split ``seed`` of ``cell`` (an ``AlphaStudyCell`` of
    ``corpus``, a :class:`~sslviz.experiments.model_selection.Corpus`; ``n_unlabeled`` as in the
    study that made ``cell``)."""
    if corpus.name != cell.corpus:
        raise ValueError(f"the cell is of {cell.corpus!r}, the corpus is {corpus.name!r}")
    row = axis_index("seed", cell.seeds, seed)  # NotRun for a split the study did not make
    X, y = labeled_rows(corpus, cell.n_labeled, seed, n_unlabeled=n_unlabeled)
    defined = cell.n_labeled >= 2
    scores = {}
    for criterion in CRITERIA:
        function = ALPHA_CRITERIA[criterion][0]
        if criterion != "evidence" and not defined:
            scores[criterion] = np.full(len(cell.alphas), np.nan)
        else:
            scores[criterion] = np.array([function(X, y, a) for a in cell.alphas])
    return ScoreCurvesView(
        cell.corpus, cell.n_labeled, int(seed), cell.alphas, scores,
        {c: float(cell.chosen[row, i]) for i, c in enumerate(CRITERIA)},
        {c: bool(cell.at_bound[row, i] == 1) for i, c in enumerate(CRITERIA)},
        float(len(y) * np.log(1 / len(np.unique(y)))), cell.nb_accuracy[row],
        cell.em_accuracy[row])


@dataclass(frozen=True)
class ChoicesView:
    """Per criterion and split: test accuracy at the chosen α beside the test-best α's."""

    corpus: str
    n_labeled: int
    model: str  # "nb" or "em"
    criteria: tuple  # the criteria defined at this size
    accuracy: np.ndarray  # (n_criteria, n_seeds)
    test_best: np.ndarray  # (n_seeds,) reference only
    bound_share: np.ndarray  # (n_criteria,)

    @property
    def regret(self):
        """Points of test accuracy each choice gives away, per criterion and split (≥ 0)."""
        return 100 * (self.test_best[None, :] - self.accuracy)


def choices_view(cell, model="em"):
    """:class:`ChoicesView` of one study cell for ``model`` (``"nb"`` or ``"em"``)."""
    if model not in ("nb", "em"):
        raise ValueError(f"model must be 'nb' or 'em', got {model!r}")
    criteria = tuple(c for c in CRITERIA if cell.available(c))
    return ChoicesView(cell.corpus, cell.n_labeled, model, criteria,
                       np.array([cell.accuracy(c, model) for c in criteria]),
                       cell.test_best(model), np.array([cell.bound_share(c) for c in criteria]))
