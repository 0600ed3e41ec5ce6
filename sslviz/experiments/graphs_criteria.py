"""Which criterion should choose a graph's k and spreading's α? Criteria validated, not assumed.

Lecture 11 chooses the neighbour count k of harmonic propagation and the k and α of label
spreading on the labeled rows only (:func:`sslviz.experiments.graphs.graph_cv`: hide a third of
the labeled rows, propagate from the rest, score the hidden labels). This study compares the
criteria that score can use (:data:`~sslviz.experiments.graphs.GRAPH_CRITERIA`): the held-out
log-likelihood of the hidden labels under the propagated distributions, their accuracy, and their
balanced accuracy (the mean recall over the senses). On seeded labeled draws of the lecture's
Senseval words it records, for every setting of a fixed grid (:data:`STUDY_K`,
:data:`STUDY_ALPHAS`, which holds the values the lecture's extended grids reach on these words),
each criterion's score and the accuracy on the instances left unlabeled. A criterion's
*regret* on a draw is the accuracy of the grid's test-best setting minus that of the setting the
criterion picks: reported, never used to choose. Ties of a criterion go to the log-likelihood,
then to the middle candidate, as in :func:`~sslviz.experiments.graphs.graph_cv`. The default
criterion is the one :func:`supported_criterion` names: the lowest mean regret, criteria within
one standard error of it tied, ties going to the fewest picks at an end of the grid.

The result (10 draws of *line* and *interest* at 5 % labeled; mean regret in points over the four
word × method cells): the log-likelihood 0.64, the accuracy 0.58 (difference +0.06 ± 0.21: not
separated), the balanced accuracy 1.66 (+1.08 ± 0.32 against the accuracy: worse). The
log-likelihood's picks sit at an end of the grid on 18 % of the draws, the accuracy's on 38 %
(harmonic propagation on *line*: k = 1 on 8 of 10), so the log-likelihood stays the default.
Spreading's k at the grid's largest value (40) on half of the *line* draws: the study's grid
is at its edge there (larger k cost dense solves); the lecture's own grid goes further.

Each (word, fraction, seed) is one job of :func:`sslviz.experiments.runner.run_jobs` (kind
``"graphs-criteria"``). ``python -m sslviz.experiments graph-criteria`` runs it and prints the
table. Cost: (folds + 1) × grid sparse solves per method and draw; denser graphs (large k) are
the slow ones.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .. import cli
from ..tuning import best_index
from .graphs import (
    GRAPH_CRITERIA,
    NeighbourGraphs,
    hidden_label_scores,
    labeled_draw,
    labeled_folds,
    neighbour_search,
    propagate,
    sense_task,
)
from .runner import run_jobs

RESULT_VERSION = 1  # bump for a change sslviz.code_digest cannot see (a dependency's)
STUDY_K = (1, 3, 5, 10, 20, 40)
"""The neighbour counts every draw is scored at (both ends are reached by the lecture's grid)."""
STUDY_ALPHAS = (0.2, 0.5, 0.9, 0.99)
"""Spreading's α values every draw is scored at (the lecture's grid)."""
CRITERIA = tuple(GRAPH_CRITERIA)
METHODS = ("harmonic", "spreading")
WORDS = ("line", "interest")
FRACTION = 0.05
N_SEEDS = 10


def method_grid(method):
    """The settings (list of dict) a method is scored at: k, and for spreading k × α."""
    if method == "harmonic":
        return [{"n_neighbors": k} for k in STUDY_K]
    return [{"n_neighbors": k, "alpha": a} for k in STUDY_K for a in STUDY_ALPHAS]


def criteria_job(unit, y, search, fraction, seed):
    """One labeled draw: every criterion's score and the unlabeled rows' accuracy at every
    setting of each method (``{method}_{criterion}``, ``{method}_accuracy``: arrays over
    :func:`method_grid`)."""
    y_semi = labeled_draw(y, fraction=fraction, seed=seed)
    rest = y_semi == -1
    folds = labeled_folds(y_semi, 3, random_state=seed, allow_unstratified=True)
    graphs = NeighbourGraphs(unit, search=search)
    result = {}
    for method in METHODS:
        grid = method_grid(method)
        scores = [hidden_label_scores(graphs, y_semi, method, params, folds) for params in grid]
        for criterion in CRITERIA:
            result[f"{method}_{criterion}"] = np.array([s[criterion] for s in scores])
        result[f"{method}_test"] = np.array([
            np.mean(propagate(graphs, y_semi, method, **params).transduction_[rest] == y[rest])
            for params in grid])
    return result


@dataclass(frozen=True)
class CriterionStudy:
    """The study's draws of one word and method: scores and accuracies over the grid."""

    word: str
    method: str
    grid: list  # settings, as dicts
    scores: dict  # criterion -> (n_seeds, n_settings)
    test: np.ndarray  # (n_seeds, n_settings) accuracy on the unlabeled rows

    def picks(self, criterion):
        """The index of the setting ``criterion`` picks on each draw (ties as graph_cv)."""
        second = self.scores["log_likelihood"]
        return np.array([best_index(s, None if criterion == "log_likelihood" else second[i])
                         for i, s in enumerate(self.scores[criterion])])

    def regret(self, criterion):
        """Per draw, the test-best setting's accuracy minus the picked one's (points)."""
        picked = self.test[np.arange(len(self.test)), self.picks(criterion)]
        return 100 * (self.test.max(axis=1) - picked)

    def at_edge(self, criterion):
        """The share of draws whose pick has a parameter at an end of the study's grid."""
        ends = {"n_neighbors": (min(STUDY_K), max(STUDY_K)),
                "alpha": (min(STUDY_ALPHAS), max(STUDY_ALPHAS))}
        return float(np.mean([any(v in ends[name] for name, v in self.grid[i].items())
                              for i in self.picks(criterion)]))


def criterion_study(words=WORDS, *, fraction=FRACTION, seeds=range(N_SEEDS), n_jobs=None,
                    progress=True, use_cache=True):
    """:func:`criteria_job` over ``words`` × ``seeds``: one :class:`CriterionStudy` per word and
    method, in that order."""
    studies = []
    for word in words:
        task = sense_task(word)
        search = neighbour_search(task.unit, max(STUDY_K))
        jobs = [{"fraction": float(fraction), "seed": int(s)} for s in seeds]
        results = run_jobs(criteria_job, jobs, kind="graphs-criteria",
                           key=lambda job, digest=task.digest: {
                               "data": digest, "k": STUDY_K, "alphas": STUDY_ALPHAS,
                               "version": RESULT_VERSION, **job},
                           shared={"unit": task.unit, "y": task.y, "search": search},
                           n_jobs=n_jobs, progress=progress, use_cache=use_cache,
                           description=f"{word}: graph criteria")
        for method in METHODS:
            studies.append(CriterionStudy(
                word, method, method_grid(method),
                {c: np.array([r[f"{method}_{c}"] for r in results]) for c in CRITERIA},
                np.array([r[f"{method}_test"] for r in results])))
    return studies


def paired_difference(studies, a, b):
    """Per draw (every word and method), criterion ``a``'s regret minus ``b``'s (points)."""
    return np.concatenate([s.regret(a) - s.regret(b) for s in studies])


def supported_criterion(studies):
    """The criterion the study supports, by a rule fixed before looking at the lecture.

    The lowest mean regret over every draw of every word and method; a criterion whose paired
    difference to it (:func:`paired_difference`) is within one standard error of zero is tied
    with it. Among tied criteria, the one whose picks sit at an end of the study's grid least
    often (an edge pick is a warning), then the order of :data:`CRITERIA`.
    """
    mean = {c: float(np.mean(np.concatenate([s.regret(c) for s in studies]))) for c in CRITERIA}
    lowest = min(CRITERIA, key=mean.get)

    def tied(criterion):
        d = paired_difference(studies, criterion, lowest)
        return criterion == lowest or d.mean() <= d.std(ddof=1) / np.sqrt(len(d))

    edge = {c: float(np.mean([s.at_edge(c) for s in studies])) for c in CRITERIA}
    return min((c for c in CRITERIA if tied(c)), key=lambda c: (edge[c], CRITERIA.index(c)))


def format_table(studies):
    """Mean regret [min-max] (points) and the share of picks at an edge of the study's grid."""
    lines = [f"{'word':>9} {'method':>10} " + " ".join(f"{c:>24}" for c in CRITERIA)
             + "   test-best accuracy"]
    for s in studies:
        cells = [f"{s.regret(c).mean():5.2f} [{s.regret(c).min():4.1f}-{s.regret(c).max():4.1f}]"
                 f" e{s.at_edge(c):.1f}" for c in CRITERIA]
        best = 100 * s.test.max(axis=1)
        lines.append(f"{s.word:>9} {s.method:>10} " + " ".join(f"{c:>24}" for c in cells)
                     + f"   {best.mean():.1f} [{best.min():.1f}-{best.max():.1f}]")
    means = {c: np.mean([s.regret(c).mean() for s in studies]) for c in CRITERIA}
    edges = {c: np.mean([s.at_edge(c) for s in studies]) for c in CRITERIA}
    lines.append("mean regret (points): " + ", ".join(f"{c} {v:.2f}" for c, v in means.items()))
    lines.append("share of picks at a grid end: " + ", ".join(f"{c} {v:.2f}"
                                                             for c, v in edges.items()))
    lowest = min(CRITERIA, key=means.get)
    for c in CRITERIA:
        if c != lowest:
            d = paired_difference(studies, c, lowest)
            lines.append(f"{c} - {lowest}: {d.mean():+.2f} ± {d.std(ddof=1) / np.sqrt(len(d)):.2f}"
                         f" (standard error over {len(d)} draws)")
    lines.append(f"supported (supported_criterion's rule): {supported_criterion(studies)}")
    lines.append("(regret: test-best setting of the grid minus the picked one, reference only; "
                 "e: share of picks at an end of the study's grid)")
    return "\n".join(lines)


def main(argv=None):
    """``python -m sslviz.experiments graph-criteria [--words ...] [--seeds ...] [--n-jobs N]``."""
    parser = cli.Parser(
        prog="python -m sslviz.experiments graph-criteria",
        description="Which criterion should choose lecture 11's k and spreading α: each "
        "criterion's pick on the labeled instances against the accuracy on the unlabeled ones, "
        "on Senseval words. Cached per draw; an interrupted run resumes.")
    parser.add_argument("--words", nargs="+", default=list(WORDS))
    parser.add_argument("--fraction", type=cli.finite_float(above=0), default=FRACTION)
    parser.add_argument("--seeds", type=cli.seed, nargs="+", default=list(range(N_SEEDS)))
    parser.add_argument("--n-jobs", type=cli.n_jobs, default=-1)
    parser.add_argument("--no-cache", action="store_true")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    print(format_table(criterion_study(args.words, fraction=args.fraction, seeds=args.seeds,
                                       n_jobs=args.n_jobs, use_cache=not args.no_cache)))
    print(f"\n{len(args.seeds)} draws per word; {time.perf_counter() - start:.0f} s")
    return 0
