"""Explorers of the classification-EM lecture (07): the 2-D CEM stepper, the Figure-1 analog with
live refits (model, covariance, penalty, relevance threshold), and NB-CEM vs NB-EM."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from ..cem import decision_at_iteration
from ..experiments.classification_em import COVARIANCES, stepper_run
from ..grids import grid_extent
from ..lectures import explorer_prefix
from ..plots.classification_em import (
    BOW_STYLE,
    plot_bow_curves,
    plot_cem_panel,
    plot_extraction_bars,
    plot_figure1,
    plot_relevant_share,
    update_cem_panel,
)
from ..plots.common import plot_seed_bars, update_size_marker
from .base import Explorer, PerSetting, iteration_control, new_figure, seed_control

LECTURE = explorer_prefix(__name__)  # its explorers' names (and exported files) begin so

C_VALUES = [0.001, 0.01, 0.1, 1.0, 10.0, 100.0]
THRESHOLDS = [0.3, 0.4, 0.5, 0.6, 0.75]
WIDE = {"description_width": "initial"}  # slider labels shown in full


def cem_stepper_explorer(*, n_labeled=2, seed=0, covariance="full", C=1.0, resolution=90):
    """Generative (Gaussian) and logistic CEM side by side on lecture 01's two clusters.

    The iteration slider replays both recorded traces (unlabeled points coloured by the C-step's
    partition, the boundary of that iteration solid, iteration 0's dashed); the other controls
    refit (cached). Returns an :class:`Explorer` with controls ``iteration``, ``n_labeled``
    (per class), ``covariance``, ``C``, ``seed``.
    """
    iteration, play = iteration_control(1)
    controls = {
        "iteration": iteration,
        "n_labeled": widgets.IntSlider(n_labeled, min=1, max=10, description="labeled/class",
                                       continuous_update=False, style=WIDE),
        "covariance": widgets.Dropdown(options=list(COVARIANCES), value=covariance,
                                       description="covariance"),
        "C": widgets.SelectionSlider(options=C_VALUES, value=C, description="logistic C",
                                     continuous_update=False),
        "seed": seed_control(seed),
    }
    with new_figure((12.5, 5.6)) as figure:
        axes = figure.subplots(1, 2)

    def models_of(values):
        run = stepper_run(values["n_labeled"], values["seed"], values["covariance"], values["C"])
        return run, (("Generative-CEM", run.gaussian), ("Logistic-CEM", run.logistic))

    def iterations(values):  # the slider ends at the longer run's last iteration
        return 0, max(len(m.trace_) for _, m in models_of(values)[1]) - 1

    def draw_runs(values):  # the points, the grid and iteration 0's boundary of a new fit
        run, models = models_of(values)
        extent = grid_extent(run.X)
        xs, ys = np.meshgrid(np.linspace(*extent[:2], resolution),
                             np.linspace(*extent[2:], resolution))
        points = np.column_stack([xs.ravel(), ys.ravel()])
        labeled = np.flatnonzero(run.y_semi != -1)
        return {"grid": (xs, ys), "points": points,
                "panels": [plot_cem_panel(ax, run.X, labeled, run.y_semi[labeled], extent)
                           for ax in axes],
                "starts": [decision_at_iteration(m, points, 0).reshape(xs.shape)
                           for _, m in models]}

    def update(values, drawn):
        drawn = drawn["runs"]
        for (name, model), panel, start in zip(models_of(values)[1], drawn["panels"],
                                               drawn["starts"], strict=True):
            i = min(values["iteration"], len(model.trace_) - 1)  # the shorter run stays at its end
            step = model.trace_[i]
            decision = decision_at_iteration(model, drawn["points"], i).reshape(start.shape)
            done = " - converged" if i == len(model.trace_) - 1 and model.converged_ else ""
            update_cem_panel(panel, step.partition, drawn["grid"], decision, start,
                             title=f"{name}: iteration {i}, {step.n_label_changes} changed{done}")

    return Explorer(f"{LECTURE}-stepper", figure, controls, update, extra_controls=[play],
                    ranges={"iteration": iterations},
                    setup={"runs": PerSetting(("n_labeled", "seed", "covariance", "C"),
                                              draw_runs)})


def extraction_explorer(fig1, refit, *, fraction=0.1, model="logistic", covariance="full",
                        C=1.0, threshold=0.5):
    """The Figure-1 analog (recorded curves) beside live refits at the highlighted fraction.

    Parameters
    ----------
    fig1 : Figure1
        Curves from :func:`sslviz.experiments.classification_em.figure1`.
    refit : callable (fraction, model, covariance, C, threshold) -> dict
        E.g. :func:`sslviz.experiments.classification_em.extraction_refit`.

    Returns
    -------
    Explorer
        Controls ``fraction`` (moves the marker, refits), ``model``, ``covariance``, ``C``,
        ``threshold``.
    """
    controls = {
        "fraction": widgets.SelectionSlider(options=[float(f) for f in fig1.fractions],
                                            value=fraction, description="labeled share",
                                            continuous_update=False, style=WIDE),
        "model": widgets.Dropdown(options=["logistic", "gaussian"], value=model,
                                  description="model"),
        "covariance": widgets.Dropdown(options=list(COVARIANCES), value=covariance,
                                       description="covariance"),
        "C": widgets.SelectionSlider(options=C_VALUES, value=C, description="logistic C",
                                     continuous_update=False),
        "threshold": widgets.SelectionSlider(options=THRESHOLDS, value=threshold,
                                             description="relevance ≥", continuous_update=False,
                                             style=WIDE),
    }
    with new_figure((15, 5.2)) as figure:
        curve_ax, bar_ax, share_ax = figure.subplots(1, 3, width_ratios=[1.5, 1, 1])
        plot_figure1(curve_ax, fig1)
        curve_ax.set_title("Figure 1 analog (recorded; tuned on labeled rows)")
    drawn = {"marker": None}

    def update(values):
        result = refit(values["fraction"], values["model"], values["covariance"], values["C"],
                       values["threshold"])  # may fail: change nothing before it
        drawn["marker"] = update_size_marker(curve_ax, drawn["marker"], values["fraction"] * 100)
        setting = (f"C={values['C']:g}" if values["model"] == "logistic"
                   else f"{values['covariance']} covariance")
        plot_extraction_bars(bar_ax, result, title=(
            f"{values['model']}, {setting},\n{values['fraction']:.0%} labeled, relevance ≥ "
            f"{values['threshold']:g} (dot = seed)"))
        plot_relevant_share(share_ax, result["relevant_share"], float(result["true_share"]))

    return Explorer(f"{LECTURE}-extraction", figure, controls, update, main="fraction")


def bow_explorer(sizes, curves, *, size):
    """NB, NB-EM, NB-CEM and logistic regression against labeled documents per class; the
    slider highlights one size and shows each seed beside the means."""
    sizes = [int(s) for s in sizes]
    controls = {"n_labeled": widgets.SelectionSlider(options=sizes, value=size,
                                                     description="labeled/class", style=WIDE)}
    with new_figure((13, 5.2)) as figure:
        curve_ax, bar_ax = figure.subplots(1, 2, width_ratios=[1.5, 1])
        plot_bow_curves(curve_ax, sizes, curves)
    drawn = {"marker": None}

    def update(values):
        row = sizes.index(values["n_labeled"])
        drawn["marker"] = update_size_marker(curve_ax, drawn["marker"], values["n_labeled"])
        bars = [(label.split(" (")[0], curves[name][row], color)
                for name, (label, color, _) in BOW_STYLE.items()]
        plot_seed_bars(bar_ax, bars, title=f"{values['n_labeled']} labeled per class "
                                           "(dot = seed)")

    return Explorer(f"{LECTURE}-bag_of_words", figure, controls, update)
