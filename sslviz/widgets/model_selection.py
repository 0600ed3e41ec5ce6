"""Explorers of lecture 12: each α criterion's score curve on one split, and the choices against
the test-best α over the study's splits."""

from __future__ import annotations

from functools import lru_cache

import ipywidgets as widgets

from ..experiments.model_selection import N_UNLABELED
from ..experiments.model_selection_views import (
    ALPHA_BOUNDS,
    CRITERION_LABELS,
    START_GRID,
    choices_view,
    score_curves_view,
    study_cell,
)
from ..lectures import explorer_prefix
from ..plots.model_selection import plot_choices, plot_score_curves
from .base import Explorer, new_figure, seed_control

LECTURE = explorer_prefix(__name__)  # its explorers' names (and exported files) begin so
SIZES = (1, 5, 50)  # labeled documents per class; a corpus studied up to 40 shows 40 at 50


def _size_control(value):
    return widgets.SelectionSlider(options=SIZES, value=value, description="labeled/class",
                                   continuous_update=False)


def criteria_explorer(corpora, cells, *, corpus, n_labeled=5, seed=0,
                      n_unlabeled=N_UNLABELED):
    """Every criterion's score against α on one split's labeled rows, the study's choice starred,
    the grid's ends and α's bounds marked, the constant guess 1/K on the LOO log P(y|x) panel,
    and NB's and EM's test accuracy against α for reference.

    Parameters
    ----------
    corpora : list of Corpus (:func:`sslviz.experiments.model_selection.lecture_corpora`)
    cells : list of AlphaStudyCell (:func:`sslviz.experiments.model_selection.alpha_study`)
    n_unlabeled : int
        The unlabeled pool of the study that made ``cells`` (its splits are drawn again).
    """
    by_name = {c.name: c for c in corpora}
    seeds = cells[0].seeds
    controls = {"corpus": widgets.Dropdown(options=list(by_name), value=corpus,
                                           description="corpus"),
                "n_labeled": _size_control(n_labeled),
                "seed": seed_control(seed, maximum=int(seeds.max()), description="split")}

    @lru_cache(maxsize=32)
    def view(name, size, split):
        return score_curves_view(by_name[name], study_cell(cells, name, size), split,
                                 n_unlabeled=n_unlabeled)

    with new_figure((16, 8)) as figure:
        axes = figure.subplots(2, 3).ravel()
        axes[-1].set_visible(False)  # four criteria and the accuracy panel

    def update(values):
        shown = view(values["corpus"], values["n_labeled"], values["seed"])
        plot_score_curves(axes[:-1], shown, labels=CRITERION_LABELS, start=START_GRID,
                          bounds=ALPHA_BOUNDS)
        figure.suptitle(f"{shown.corpus}, {shown.n_labeled} labeled per class, split "
                        f"{shown.seed}: dotted = the start grid's ends, dashed = α's bounds")

    def prepare(values):
        view(values["corpus"], values["n_labeled"], values["seed"])
        yield

    return Explorer(f"{LECTURE}-criteria", figure, controls, update, prepare=prepare,
                    prepare_along=("seed", "n_labeled"))


def choices_explorer(cells, *, corpus, n_labeled=5, model="em"):
    """Per split, each criterion's test accuracy against the test-best α's, and its regret.

    ``cells``: the study's cells (:func:`sslviz.experiments.model_selection.alpha_study`).
    """
    names = list(dict.fromkeys(c.corpus for c in cells))
    controls = {"corpus": widgets.Dropdown(options=names, value=corpus, description="corpus"),
                "n_labeled": _size_control(n_labeled),
                "model": widgets.ToggleButtons(options=[("NB", "nb"), ("EM", "em")],
                                               value=model, description="model")}
    with new_figure((15, 5.5)) as figure:
        scatter_ax, regret_ax = figure.subplots(1, 2, width_ratios=[1, 1.2])

    def update(values):
        cell = study_cell(cells, values["corpus"], values["n_labeled"])
        plot_choices(scatter_ax, regret_ax, choices_view(cell, values["model"]),
                     labels=CRITERION_LABELS)

    return Explorer(f"{LECTURE}-choices", figure, controls, update)
