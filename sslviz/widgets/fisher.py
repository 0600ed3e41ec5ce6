"""Explorers of the Fisher-kernel lecture (06): one post's Fisher score, and Table 1 / Figure 1.

* :func:`fisher_document_explorer` shows one test post three ways: the model's posterior
  ``P(c|x)``, the largest entries of its unit-length word counts (what the linear SVM sees) and
  the largest entries of its unit-length Fisher score (what the Fisher-kernel SVM sees). Moving
  through posts only transforms one post; a new variant fits its model once (cached).
* :func:`fisher_table_explorer` replays precomputed results
  (:func:`sslviz.experiments.fisher_grid`): Table 1 as accuracy-vs-labeled-size curves, and
  Figure 1 (accuracy against the number of unlabeled posts) for the chosen variant and
  labeled-set size. Nothing is refitted.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
import scipy.sparse as sp
from matplotlib.figure import Figure

from ..experiments import FISHER_METHOD_NAMES, PAPER_SIZES, PAPER_TABLE_1
from ..experiments import FISHER_METHODS as ALL_METHODS
from ..export import style_context
from ..fisher import top_count_entries, top_entries
from ..plots.em import update_size_marker
from ..plots.fisher import (
    METHOD_COLORS,
    OTHER_COLOR,
    PREDICTED_COLOR,
    TRUE_COLOR,
    highlight_method,
    plot_entry_bars,
    plot_method_curves,
    plot_posterior,
    plot_unlabeled_curves,
    update_entry_bars,
    update_method_curve,
    update_posterior,
    update_unlabeled_curves,
)
from .base import Explorer

VARIANTS = ("ul-cat", "n-cat", "ul-cl")
WIDE = {"description_width": "initial"}  # slider labels shown in full


# -- one post ----------------------------------------------------------------------------------
def fisher_document_explorer(corpus, models, *, variant="ul-cat", document=0, k=12):
    """Browse test posts and compare their count vector with their Fisher score.

    Parameters
    ----------
    corpus : sslviz.text.CountCorpus
        The vectorized corpus the models were fitted on.
    models : callable variant -> (Split, fitted FisherKernelNB)
        E.g. :func:`sslviz.experiments.fisher_models_by_variant`; the posts shown are the
        split's test posts.
    variant : {"ul-cat", "n-cat", "ul-cl"}
    document : int
        Position of the first post shown among the test posts.
    k : int
        Entries shown of each vector.

    Returns
    -------
    Explorer
        Controls ``document`` (the main one; replays) and ``variant`` (fits once per variant).
    """
    split, _ = models(variant)
    rows = split.test
    controls = {
        "document": widgets.IntSlider(document, min=0, max=len(rows) - 1,
                                      description="test post"),
        "variant": widgets.Dropdown(options=list(VARIANTS), value=variant,
                                    description="model"),
    }
    names = list(corpus.target_names)
    with style_context():
        figure = Figure(figsize=(14, 6.2), layout="constrained")
        post_ax, counts_ax, score_ax = figure.subplots(1, 3, width_ratios=[1, 1.25, 1.6])
        counts = plot_entry_bars(counts_ax, k, xlabel="entry of the unit-length count vector")
        score = plot_entry_bars(score_ax, k, xlabel="entry of the unit-length Fisher score")
        counts_ax.set_title("what the linear SVM sees:\nthe largest word counts")
        score_ax.set_title("what the Fisher-kernel SVM sees: the largest\n"
                           "N(w,x) P(c|x) / √P(w|c)  (word | component)")
    state = {}

    def update(values):
        _, model = models(values["variant"])  # may fit: change nothing before it
        clusters = values["variant"] == "ul-cl"
        component_names = ([f"cluster {c}" for c in model.classes_] if clusters
                           else [names[c] for c in model.classes_])
        if state.get("names") != component_names:
            post_ax.clear()
            with style_context():
                state["posterior"] = plot_posterior(post_ax, component_names)
            state["names"] = component_names
        row = int(rows[values["document"]])
        x = corpus.X[row]
        posterior = model.nb_.predict_proba(x)[0]
        true_class = int(corpus.y[row])
        predicted = int(np.argmax(posterior))
        true_index = None if clusters else int(np.flatnonzero(model.classes_ == true_class)[0])
        update_posterior(state["posterior"], posterior, true_index=true_index,
                         predicted_index=predicted)
        post_ax.set_title(f"{'cluster' if clusters else 'class'} posterior\n"
                          f"({values['variant']} model)")
        counts_view = top_count_entries(x, corpus.vocabulary, k)
        update_entry_bars(counts, [f"{w}  (N={n})" for w, n, _ in counts_view],
                          [v for _, _, v in counts_view], [OTHER_COLOR] * len(counts_view))
        entries = top_entries(model.transform(x), component_names, corpus.vocabulary, k)
        labels, colors = [], []
        for c, word, _ in entries:
            labels.append(f"ρ[{component_names[c]}]" if word is None
                          else f"{word} | {component_names[c]}")
            colors.append(TRUE_COLOR if c == true_index
                          else PREDICTED_COLOR if c == predicted else OTHER_COLOR)
        update_entry_bars(score, labels, [v for _, _, v in entries], colors)
        verdict = ("" if clusters else "  (right)" if predicted == true_index
                   else f"  (model says {component_names[predicted]})")
        figure.suptitle(f"test post {values['document']} (corpus row {row}): "
                        f"{names[true_class]}{verdict} — "
                        f"{x.nnz} distinct words, {sp.csr_matrix(model.transform(x)).nnz} "
                        "non-zero Fisher entries", fontsize=12)

    return Explorer("06_fisher_kernel-document", figure, controls, update)


# -- Table 1 and Figure 1 ----------------------------------------------------------------------
def fisher_table_explorer(grid, *, size, variant="ul-cat", paper=True):
    """Table 1 as curves and Figure 1 for one method, replayed from a precomputed grid.

    Parameters
    ----------
    grid : FisherGrid
        From :func:`sslviz.experiments.fisher_grid`: every method at the largest unlabeled
        size, and some (e.g. ``unlabeled_methods=("ul-cat", "nb+em")``) at every unlabeled
        size.
    size : int
        Labeled-set size highlighted first (not the largest: the slider must be able to move).
    variant : str
        Method highlighted first: one with results at every unlabeled size, or a labeled-only
        method (the methods the dropdown offers).
    paper : bool
        Draw the paper's Table 1 values (dotted, hollow markers).

    Returns
    -------
    Explorer
        Controls ``n_labeled`` (main), ``n_unlabeled`` and ``variant``; all replay.
    """
    sizes = [int(s) for s in grid.sizes]
    unlabeled_sizes = [int(u) for u in grid.unlabeled_sizes]
    if unlabeled_sizes != sorted(unlabeled_sizes):
        raise ValueError(f"the grid's unlabeled sizes must increase, got {unlabeled_sizes}")
    largest = unlabeled_sizes[-1]
    methods = list(grid.methods)
    complete = [m for m in methods if not np.isnan(grid.accuracy[..., methods.index(m)]).any()]
    if not complete:
        raise ValueError("no method has results at every labeled and unlabeled size; run "
                         "fisher_grid with unlabeled_methods=(...) for the curves")
    options = [m for m in ("ul-cat", "ul-cl", "nb+em", "n-cat") if m in complete]
    controls = {
        "n_labeled": widgets.SelectionSlider(options=sizes, value=size,
                                             description="labeled posts", style=WIDE),
        "n_unlabeled": widgets.SelectionSlider(options=unlabeled_sizes, value=largest,
                                               description="unlabeled posts", style=WIDE),
        "variant": widgets.Dropdown(options=[(FISHER_METHOD_NAMES[m], m) for m in options],
                                    value=variant, description="method"),
    }
    paper_columns = [ALL_METHODS.index(m) for m in methods]
    with style_context():
        figure = Figure(figsize=(14, 5.8), layout="constrained")
        table_ax, curve_ax = figure.subplots(1, 2, width_ratios=[1.35, 1])
        lines = plot_method_curves(
            table_ax, grid.sizes, grid.table(largest), methods, FISHER_METHOD_NAMES,
            paper_sizes=np.array(PAPER_SIZES) if paper else None,
            paper=PAPER_TABLE_1[:, paper_columns] if paper else None)
        table_ax.legend(loc="lower right", fontsize=8, ncol=2)
        unlabeled_artists = plot_unlabeled_curves(curve_ax, np.array(unlabeled_sizes),
                                                  len(sizes))
    state = {"marker": None}

    def update(values):
        method, n_labeled, n_unlabeled = (values["variant"], values["n_labeled"],
                                          values["n_unlabeled"])
        at_size = grid.table(n_unlabeled)
        for m in complete:  # the others stay at the largest unlabeled size
            update_method_curve(lines, m, at_size[:, methods.index(m)])
        highlight_method(lines, method)
        state["marker"] = update_size_marker(table_ax, state["marker"], n_labeled)
        table_ax.set_title(f"Table 1 with {n_unlabeled:,} unlabeled posts (methods run at "
                           f"{largest:,} only stay there)\nsolid = ours, dotted = Takamura & "
                           "Okumura")
        reference = None
        if "linear" in methods:
            reference = grid.table(largest)[sizes.index(n_labeled), methods.index("linear")]
        update_unlabeled_curves(
            unlabeled_artists,
            {f"{s} labeled": grid.unlabeled_curve(method, s) for s in sizes},
            current=f"{n_labeled} labeled", n_unlabeled=n_unlabeled,
            color=METHOD_COLORS[method], reference=reference)
        curve_ax.relim()
        curve_ax.autoscale_view(scalex=False)
        curve_ax.set_title(f"Figure 1: {FISHER_METHOD_NAMES[method]} against unlabeled posts\n"
                           "dashed: linear SVM at the highlighted labeled size")

    return Explorer("06_fisher_kernel-table", figure, controls, update)
