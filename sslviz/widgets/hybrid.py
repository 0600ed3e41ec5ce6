"""Explorers of the hybrid lecture (09): Tables 1-3 replayed, the weights λ1, λ2 over the
alternations, and the class shares of the unlabeled rows as MER's λ grows."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from ..experiments.hybrid import METHOD_LABELS, METHODS, PAPER_TABLES
from ..lectures import explorer_prefix
from ..plots.common import update_size_marker
from ..plots.hybrid import (
    plot_class_shares,
    plot_mer_sweep,
    plot_method_bars,
    plot_table_curves,
    plot_weight_trace,
    update_weight_markers,
)
from .base import Explorer, PerSetting, iteration_control, new_figure

LECTURE = explorer_prefix(__name__)  # its explorers' names (and exported files) begin so

WIDE = {"description_width": "initial"}  # a control's whole label, never cut ("labeled d…")


def table_explorer(tables, *, corpus, size, method="hybrid"):
    """Tables 1-3 as curves (ours solid, the paper's dotted) and the seeds at one size; a method
    the tables did not run (MLR/MER at lecture scale) gets no bar.

    ``tables`` maps a corpus name to its :class:`~sslviz.experiments.hybrid.HybridTable`;
    everything is replayed from them. Controls ``n_labeled``, ``corpus``, ``method``.
    """
    labels = [METHOD_LABELS[m] for m in METHODS]
    controls = {
        "n_labeled": widgets.SelectionSlider(options=tables[corpus].sizes.tolist(), value=size,
                                             description="labeled docs", style=WIDE),
        "corpus": widgets.Dropdown(options=list(tables), value=corpus, description="corpus",
                                   style=WIDE),
        "method": widgets.Dropdown(options=[(METHOD_LABELS[m], m) for m in METHODS],
                                   value=method, description="highlight", style=WIDE),
    }
    with new_figure((13, 5.4)) as figure:
        curve_ax, bar_ax = figure.subplots(1, 2, width_ratios=[1.5, 1])

    def update(values):
        table, size = tables[values["corpus"]], values["n_labeled"]
        sizes = table.sizes.tolist()
        plot_table_curves(curve_ax, table.sizes, table.accuracy, METHODS, labels,
                          paper=PAPER_TABLES[table.corpus], highlight=values["method"],
                          title=f"{table.corpus}: {len(table.seeds)} evaluation sets")
        update_size_marker(curve_ax, None, size)
        ran = [m for m in range(len(METHODS)) if np.isfinite(table.accuracy[..., m]).any()]
        plot_method_bars(bar_ax, table.accuracy[sizes.index(size)][:, ran],
                         [METHODS[m] for m in ran], [labels[m] for m in ran],
                         title=f"{size} labeled (each dot an evaluation set)")

    return Explorer(f"{LECTURE}-tables", figure, controls, update, ranges={
        "n_labeled": lambda values: tables[values["corpus"]].sizes.tolist()})


def weights_explorer(runs, class_names, *, corpus):
    """λ1, λ2 over the alternations of one recorded HybridNB fit, and the unlabeled rows' class
    shares at the chosen alternation (replayed from ``trace_``, never refitted).

    ``runs`` maps a corpus name to ``(split, model, accuracy)`` of
    :func:`~sslviz.experiments.hybrid.hybrid_run`; ``class_names`` a corpus name to its classes
    and ``truth`` shares (a dict ``{"names": [...], "truth": array}``).
    """
    iteration, play = iteration_control(len(runs[corpus][1].trace_) - 1)
    controls = {"iteration": iteration,
                "corpus": widgets.Dropdown(options=list(runs), value=corpus,
                                           description="corpus", style=WIDE)}
    with new_figure((13, 4.8)) as figure:
        weight_ax, share_ax = figure.subplots(1, 2, width_ratios=[1.2, 1])

    def curves(values):  # λ1, λ2 of the corpus's run, drawn once per corpus
        split, model, accuracy = runs[values["corpus"]]
        drawn = plot_weight_trace(weight_ax, model.trace_.values("weights"))
        weight_ax.set_title(f"{values['corpus']}: {len(split.labeled)} labeled, "
                            f"{len(split.unlabeled)} unlabeled; test accuracy {accuracy:.1%}")
        return drawn

    def update(values, drawn):
        model, current = runs[values["corpus"]][1], values["iteration"]
        update_weight_markers(drawn["curves"], current)
        step = model.trace_[current]
        info = class_names[values["corpus"]]
        plot_class_shares(share_ax, step.unlabeled_shares, info["names"], truth=info["truth"],
                          title=f"alternation {current}: mean R(k|x) on unlabeled "
                          f"({step.n_label_changes} changed)")

    return Explorer(f"{LECTURE}-weights", figure, controls, update, extra_controls=[play],
                    ranges={"iteration": lambda values: (
                        0, len(runs[values["corpus"]][1].trace_) - 1)},
                    setup={"curves": PerSetting(("corpus",), curves)})


def mer_explorer(sweeps, class_names, weights):
    """MLR/MER as λ grows: accuracy and the largest class's share (left), every class's share
    of the unlabeled rows at the chosen λ (right). ``sweeps`` maps a corpus name to
    ``(C, shares, accuracies, chosen λ)`` with ``shares`` (n_weights, n_classes) the unlabeled
    rows' predicted class shares (e.g. one seed of :func:`~sslviz.experiments.hybrid.mer_study`,
    or :func:`~sslviz.entropy_reg.unlabeled_shares_by_weight` of fitted models); replayed,
    nothing is refitted."""
    controls = {
        "entropy_weight": widgets.SelectionSlider(options=list(weights), value=weights[0],
                                                  description="λ (MER)", style=WIDE),
        "corpus": widgets.Dropdown(options=list(sweeps), description="evaluation set",
                                   style=WIDE),
    }
    with new_figure((13, 4.8)) as figure:
        sweep_ax, share_ax = figure.subplots(1, 2, width_ratios=[1.2, 1])

    def update(values):
        C, shares, accuracy, chosen = sweeps[values["corpus"]]
        shares = np.asarray(shares)
        marker = plot_mer_sweep(sweep_ax, weights, accuracy, shares.max(axis=1), chosen=chosen)
        marker.set_xdata([values["entropy_weight"]] * 2)
        sweep_ax.set_title(f"{values['corpus']}: MLR/MER with C={C:g}")
        i = list(weights).index(values["entropy_weight"])
        info = class_names[values["corpus"]]
        plot_class_shares(share_ax, shares[i], info["names"], truth=info["truth"],
                          title=f"λ={values['entropy_weight']:g}: predicted classes of the "
                          f"unlabeled ({accuracy[i]:.0%} test)")

    return Explorer(f"{LECTURE}-mer", figure, controls, update,
                    main="entropy_weight")
