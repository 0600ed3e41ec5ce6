"""Explorers of the Fisher-kernel lecture (06): one post's Fisher score, and Table 1 / Figure 1.

* :func:`fisher_document_explorer` shows one test post three ways: the model's posterior
  ``P(c|x)``, the largest entries of its unit-length word counts (what the linear SVM sees) and
  the largest entries of its unit-length Fisher score (what the Fisher-kernel SVM sees). Moving
  through posts only transforms one post; the other variants' models are fitted once, in a
  background thread as soon as the explorer is shown.
* :func:`fisher_table_explorer` replays precomputed results
  (:func:`sslviz.experiments.fisher.fisher_grid`): Table 1 as accuracy-vs-labeled-size curves,
  and Figure 1 (accuracy against the number of unlabeled posts) for the chosen variant and
  labeled-set size. Nothing is refitted.
"""

from __future__ import annotations

import ipywidgets as widgets

from .._memo import Once
from ..experiments.fisher import FISHER_METHOD_NAMES
from ..experiments.fisher_views import fisher_document_view, fisher_table_view, paper_table
from ..lectures import explorer_prefix
from ..plots.fisher import (
    plot_document_panels,
    plot_table_panels,
    update_document_panels,
    update_table_panels,
)
from .base import Explorer, new_figure

LECTURE = explorer_prefix(__name__)  # its explorers' names (and exported files) begin so

VARIANTS = ("ul-cat", "n-cat", "ul-cl")
#: Methods the table explorer offers, if they have results at every size.
CURVE_METHODS = ("ul-cat", "ul-cl", "nb+em", "n-cat")
WIDE = {"description_width": "initial"}  # slider labels shown in full


def fisher_document_explorer(corpus, models, *, variant="ul-cat", document=0, k=12):
    """Browse test posts and compare their count vector with their Fisher score.

    Parameters
    ----------
    corpus : sslviz.text.CountCorpus
        The vectorized corpus the models were fitted on.
    models : callable variant -> (Split, fitted FisherKernelNB)
        E.g. :func:`sslviz.experiments.fisher.fisher_models_by_variant`; the posts shown are
        the split's test posts.
    variant : {"ul-cat", "n-cat", "ul-cl"}, default="ul-cat"
    document : int, default=0
        Position of the first post shown among the test posts.
    k : int, default=12
        Entries shown of each vector.

    Returns
    -------
    Explorer
        Controls ``document`` (the main one; replays) and ``variant`` (fits once per variant).
        The models of the neighbouring variants are fitted in the explorer's background thread
        as soon as a figure is shown (``prepare``; about a second each, shared with the updates
        through :class:`sslviz._memo.Once`), so that switching the model usually finds it ready.
    """
    models = models if isinstance(models, Once) else Once(models)
    rows = models(variant)[0].test
    controls = {
        "document": widgets.IntSlider(document, min=0, max=len(rows) - 1,
                                      description="test post"),
        "variant": widgets.Dropdown(options=list(VARIANTS), value=variant,
                                    description="model"),
    }
    with new_figure((14, 6.2)) as figure:
        panels = plot_document_panels(*figure.subplots(1, 3, width_ratios=[1, 1.25, 1.6]), k)

    def update(values):
        _, model = models(values["variant"])  # may fit: change nothing before it
        view = fisher_document_view(corpus, model, row=int(rows[values["document"]]),
                                    position=values["document"], variant=values["variant"],
                                    k=k)
        update_document_panels(panels, view)

    def prepare(values):
        models(values["variant"])
        yield

    return Explorer(f"{LECTURE}-document", figure, controls, update, prepare=prepare,
                    prepare_in_background=True)


def fisher_table_explorer(grid, *, size, variant="ul-cat", paper=True):
    """Table 1 as curves and Figure 1 for one method, replayed from a precomputed grid.

    Parameters
    ----------
    grid : FisherGrid
        From :func:`sslviz.experiments.fisher.fisher_grid`: every method at the largest
        unlabeled size, and some (e.g. ``unlabeled_methods=("ul-cat", "nb+em")``) at every
        unlabeled size (increasing).
    size : int
        Labeled-set size highlighted first (not the largest: the slider must be able to move).
    variant : str, default="ul-cat"
        Method highlighted first: one of :data:`CURVE_METHODS` with results at every size.
    paper : bool, default=True
        Draw the paper's Table 1 values (dotted, hollow markers).

    Returns
    -------
    Explorer
        Controls ``n_labeled`` (main), ``n_unlabeled`` and ``variant``; all replay.
    """
    sizes, unlabeled_sizes = _checked_sizes(grid)
    options = [m for m in CURVE_METHODS if m in grid.complete_methods()]
    controls = {
        "n_labeled": widgets.SelectionSlider(options=sizes, value=size,
                                             description="labeled posts", style=WIDE),
        "n_unlabeled": widgets.SelectionSlider(options=unlabeled_sizes, value=unlabeled_sizes[-1],
                                               description="unlabeled posts", style=WIDE),
        "variant": widgets.Dropdown(options=[(FISHER_METHOD_NAMES[m], m) for m in options],
                                    value=variant, description="method"),
    }
    paper_sizes, paper_values = paper_table(grid.methods) if paper else (None, None)
    with new_figure((14, 5.8)) as figure:
        panels = plot_table_panels(
            *figure.subplots(1, 2, width_ratios=[1.35, 1]), sizes=grid.sizes,
            table=grid.table(unlabeled_sizes[-1]), methods=grid.methods,
            names=FISHER_METHOD_NAMES, unlabeled_sizes=unlabeled_sizes,
            paper_sizes=paper_sizes, paper=paper_values)

    def update(values):
        update_table_panels(panels, fisher_table_view(
            grid, method=values["variant"], n_labeled=values["n_labeled"],
            n_unlabeled=values["n_unlabeled"]))

    return Explorer(f"{LECTURE}-table", figure, controls, update)


def _checked_sizes(grid):
    """The grid's labeled and (increasing) unlabeled sizes as lists of int; refuse a grid with
    no method to draw against the unlabeled sizes."""
    sizes = [int(s) for s in grid.sizes]
    unlabeled_sizes = [int(u) for u in grid.unlabeled_sizes]
    if unlabeled_sizes != sorted(unlabeled_sizes):
        raise ValueError(f"the grid's unlabeled sizes must increase, got {unlabeled_sizes}")
    if not grid.complete_methods():
        raise ValueError("no method has results at every labeled and unlabeled size; run "
                         "fisher_grid with unlabeled_methods=(...) for the curves")
    return sizes, unlabeled_sizes
