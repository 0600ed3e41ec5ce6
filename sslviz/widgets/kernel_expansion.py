"""Explorers of the kernel-expansion lecture (08).

* :func:`expansion_explorer` -- two moons: the boundary of EM or MED on the expansion, the weight
  ``w_i`` every kernel (labeled or not) received, and the fit's trace replayed iteration by
  iteration (sliders for σ, the number of labeled points, EM vs MED, balanced or plain).
* :func:`semilog_explorer` -- Figure 1a (is the approach to the asymptote exponential?) beside
  Figure 1b, with the asymptote measured or fitted.
* :func:`curves_explorer` -- Figures 1b and 2: test error against the labeled-set size, and at one
  size a bar per method with a dot per seed.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from ..experiments.kernel_expansion import (
    LABELS,
    METHODS,
    exponential_check,
    toy_fits,
    toy_pictures,
)
from ..lectures import explorer_prefix
from ..plots.common import plot_seed_bars, update_size_marker
from ..plots.kernel_expansion import (
    METHOD_COLORS,
    plot_error_curves,
    plot_expansion_2d,
    plot_fit_trace,
    plot_semilog_check,
)
from .base import Explorer, PerSetting, iteration_control, new_figure, seed_control

LECTURE = explorer_prefix(__name__)  # its explorers' names (and exported files) begin so

WIDTHS = (0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.8)


def expansion_explorer(X, y, *, method="em", sigma=0.15, n_labeled=6, balanced=True, seed=0,
                       resolution=90):
    """Fit the expansion on 2-D points and see its boundary, its weights and its trace.

    Returns
    -------
    Explorer
        Controls ``n_labeled``, ``sigma``, ``method``, ``balanced``, ``seed`` (refit; cached) and
        ``iteration`` (replays the recorded trace: P(y|i) of that iteration; the slider ends at
        the fit's last iteration, and starts there).
    """
    fits, pictures = toy_fits(X, y), toy_pictures(X, y, resolution=resolution)
    first, _ = fits(method, n_labeled, sigma, balanced, seed)
    iteration, play = iteration_control(len(first.trace_) - 1, len(first.trace_) - 1)
    controls = {
        "n_labeled": widgets.IntSlider(n_labeled, min=2, max=40, description="labeled pts",
                                       continuous_update=False,
                                       style={"description_width": "initial"}),
        "sigma": widgets.SelectionSlider(options=WIDTHS, value=sigma, description="σ",
                                         continuous_update=False),
        "method": widgets.ToggleButtons(options=["em", "med"], value=method),
        "balanced": widgets.Checkbox(balanced, description="balanced"),
        "seed": seed_control(seed),
        "iteration": iteration,
    }
    with new_figure((12.5, 5.6)) as figure:
        picture_ax, trace_ax = figure.subplots(1, 2, width_ratios=[1.3, 1])
    setting = ("method", "n_labeled", "sigma", "balanced", "seed")

    def fit_of(values):
        return fits(*(values[name] for name in setting))

    def iterations(values):  # the slider ends at the fit's last iteration
        return 0, len(fit_of(values)[0].trace_) - 1

    def trace(values):  # the fit's trace and a marker, drawn once per fit
        model = fit_of(values)[0]
        plot_fit_trace(trace_ax, model.trace_, method=values["method"])
        return trace_ax.axvline(len(model.trace_) - 1, color="0.4", linestyle=":")

    def update(values, drawn):
        (model, labeled), current = fit_of(values), values["iteration"]
        last = len(model.trace_) - 1
        drawn["marker"].set_xdata([current, current])
        theta = model.trace_[current].label_proba
        grid, accuracy = pictures(theta, values["sigma"])
        plot_expansion_2d(picture_ax, X, labeled, y, grid, theta[:, 1] - theta[:, 0], title=(
            f"{values['method'].upper()}{'' if values['balanced'] else ' (plain)'}, σ = "
            f"{values['sigma']:g}, iteration {current} of {last}: {accuracy:.0%} of all points "
            "right"))

    return Explorer(f"{LECTURE}-expansion", figure, controls, update,
                    extra_controls=[play], main="n_labeled",
                    ranges={"iteration": iterations},
                    setup={"marker": PerSetting(setting, trace)})


def curves_explorer(curves, *, size, methods=METHODS, scales=None):
    """Error curves of several experiments, and the spread over seeds at one size.

    Parameters
    ----------
    curves : dict of str -> Curves
        E.g. ``{"splice": ..., "leukemia (width by cv)": ...}``; all with the same sizes.
    size : int
        The labeled-set size shown first in the bar panel.
    scales : dict of str -> float, optional
        Multiply a curve's errors (e.g. 34: errors counted among the leukemia test samples).
    """
    scales = scales or {}
    first = next(iter(curves.values()))
    controls = {
        "n_labeled": widgets.SelectionSlider(options=[int(s) for s in first.sizes], value=size,
                                             description="labeled", continuous_update=False),
        "experiment": widgets.Dropdown(options=list(curves), description="experiment"),
        "plain": widgets.Checkbox(True, description="show plain EM / MED"),
    }
    with new_figure((13, 5.4)) as figure:
        curve_ax, bar_ax = figure.subplots(1, 2, width_ratios=[1.5, 1])

    def update(values):
        name = values["experiment"]
        scale = scales.get(name, 1.0)
        shown = [m for m in methods if m in curves[name].methods
                 and (values["plain"] or not m.endswith("_plain"))]
        plot_error_curves(curve_ax, curves[name], shown, title=name, scale=scale,
                          ylabel="test errors (of 34)" if scale != 1.0 else "test error",
                          legend_below=True)
        update_size_marker(curve_ax, None, values["n_labeled"])
        row = int(np.flatnonzero(curves[name].sizes == values["n_labeled"])[0])
        plot_seed_bars(bar_ax, [(LABELS[m].replace(", ", "\n").replace(" (", "\n("),
                                 1 - curves[name].errors(m)[row], METHOD_COLORS[m])
                                for m in shown],
                       title=f"{values['n_labeled']} labeled: accuracy, a dot per seed")

    return Explorer(f"{LECTURE}-curves", figure, controls, update)


def semilog_explorer(curves, many, *, methods=("em", "med")):
    """Figure 1a and 1b: error minus asymptote on a log scale (with the fitted line), and the mean
    errors with the SVM.

    Parameters
    ----------
    curves : Curves over the labeled-set sizes
    many : Curves at one large size, whose mean error is the "measured" asymptote

    Returns
    -------
    Explorer
        Controls ``n_labeled`` (the smallest size the line is fitted to) and ``asymptote``:
        "measured" (the mean error of ``many``) or "fitted"
        (:func:`sslviz.experiments.kernel_expansion.exponential_check`).
    """
    sizes = [int(v) for v in curves.sizes]
    controls = {"n_labeled": widgets.SelectionSlider(options=sizes[:-3], value=sizes[0],
                                                     description="fit from L",
                                                     continuous_update=False),
                "asymptote": widgets.ToggleButtons(options=["measured", "fitted"],
                                                   description="asymptote")}
    with new_figure((12.5, 4.8)) as figure:
        semilog_ax, error_ax = figure.subplots(1, 2)
        plot_error_curves(error_ax, curves, [*methods, "svm"],
                          title="Figure 1b analog: mean test error (± std over seeds)")

    def update(values):
        semilog_ax.clear()
        kept = curves.sizes >= values["n_labeled"]
        for method in methods:
            means = curves.errors(method).mean(axis=1)[kept]
            given = many.errors(method).mean() if values["asymptote"] == "measured" else None
            fit = exponential_check(curves.sizes[kept], means, given)
            plot_semilog_check(semilog_ax, curves.sizes[kept], means, fit,
                               label=f"{LABELS[method]}, asymptote {fit.asymptote:.3f}",
                               color=METHOD_COLORS[method])
        semilog_ax.set_title(f"Figure 1a analog: error minus {values['asymptote']} asymptote, "
                             f"L >= {values['n_labeled']}")

    return Explorer(f"{LECTURE}-semilog", figure, controls, update)
