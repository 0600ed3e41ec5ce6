"""Plots of the kernel-expansion lecture (08): the 2-D picture of a fitted expansion, the error
curves of Figures 1 and 2, the semilog check of exponential convergence and one fit's trace.
"""

from __future__ import annotations

import numpy as np
from matplotlib.colors import LinearSegmentedColormap

from ..experiments.kernel_expansion import LABELS
from .common import BLACK, BLUE, GREY, ORANGE, PURPLE, SKY, VERMILLION

METHOD_COLORS = {"em": ORANGE, "med": PURPLE, "em_plain": SKY, "med_plain": VERMILLION,
                 "svm": BLUE}
METHOD_STYLES = {"em": "-", "med": "-", "em_plain": ":", "med_plain": ":", "svm": "--"}
# the plain versions often coincide: EM's is drawn wide and pale under MED's thin line
METHOD_WIDTHS = {"em_plain": 6.0}
METHOD_MARKERS = {"em_plain": "s", "med_plain": "o"}
CLASS_MAP = LinearSegmentedColormap.from_list("two_classes", [BLUE, "#f4f4f4", ORANGE])


def plot_expansion_2d(ax, X, labeled, y, grid, weights, *, title):
    """Decision regions of a 2-D expansion with every kernel drawn as a point.

    Parameters
    ----------
    X : (N, 2) the kernels (all training points); labeled : row indices; y : labels (0/1)
    grid : sslviz.grids.Grid of P(y|x)
    weights : (N,) ``w_i = P(1|i) − P(0|i)`` in [−1, 1]: colour of each kernel (blue −1 …
        orange +1), so the weights learned on unlabeled points show
    """
    ax.clear()
    field = grid.proba[:, :, 1] - grid.proba[:, :, 0]
    image = ax.imshow(field, extent=grid.extent, origin="lower", cmap=CLASS_MAP, vmin=-1,
                      vmax=1, alpha=0.55, aspect="auto")
    boundary = ax.contour(grid.xs, grid.ys, field, levels=[0.0], colors=[BLACK], linewidths=2)
    points = ax.scatter(X[:, 0], X[:, 1], c=weights, cmap=CLASS_MAP, vmin=-1, vmax=1, s=22,
                        edgecolors=GREY, linewidths=0.5)
    marks = [ax.scatter(X[labeled][y[labeled] == c, 0], X[labeled][y[labeled] == c, 1],
                        marker=marker, s=170, c=color, edgecolors=BLACK, linewidths=1.5,
                        label=f"labeled class {c}", zorder=3)
             for c, marker, color in ((0, "s", BLUE), (1, "^", ORANGE))]
    ax.set_title(title)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.legend(loc="lower left", fontsize=9)
    return {"image": image, "boundary": boundary, "points": points, "labeled": marks}


def plot_fit_trace(ax, trace, *, method):
    """The objective a fit climbed (EM) or descended (MED) per iteration, with training accuracy
    (and MED's largest KKT violation) on a twin axis."""
    ax.clear()
    objective = trace.values("objective")
    (line,) = ax.plot(np.arange(len(objective)), objective, "-", color=BLUE, linewidth=2.5)
    ax.set_xlabel("EM iteration" if method == "em" else "MED sweep")
    ax.set_ylabel("conditional log-likelihood" if method == "em" else "log Z(λ)", color=BLUE)
    ax.grid(alpha=0.3)
    twin = ax.twinx() if not hasattr(ax, "_twin") else ax._twin
    twin.clear()
    twin.yaxis.set_label_position("right")
    twin.yaxis.tick_right()
    ax._twin = twin
    if method == "med":
        twin.semilogy(np.maximum(trace.values("kkt_violation"), 1e-16), "--", color=VERMILLION)
        twin.set_ylabel("largest KKT violation", color=VERMILLION)
    else:
        twin.plot(trace.values("training_accuracy") * 100, "--", color=VERMILLION)
        twin.set_ylim(0, 125)  # percent from 0, 100 % below the top: off the objective's line
        twin.set_ylabel("accuracy on labeled points (%)", color=VERMILLION)
    return {"line": line, "twin": twin}


def plot_error_curves(ax, curves, methods, *, title, scale=1.0, ylabel="test error",
                      legend_below=False):
    """Mean test error (± std over seeds, shaded) per labeled-set size for ``methods``.

    ``scale`` multiplies errors (e.g. 34 to count errors among Golub's 34 test samples);
    ``legend_below`` puts the legend under the axes, off the curves and bands.
    """
    ax.clear()
    artists = {}
    for method in methods:
        errors = curves.errors(method) * scale
        mean, std = errors.mean(axis=1), errors.std(axis=1)
        wide = method in METHOD_WIDTHS
        (line,) = ax.plot(curves.sizes, mean, marker=METHOD_MARKERS.get(method, "o"),
                          color=METHOD_COLORS[method], linestyle=METHOD_STYLES[method],
                          linewidth=METHOD_WIDTHS.get(method, 1.8), alpha=0.6 if wide else 1.0,
                          markersize=11 if wide else 6, zorder=1.9 if wide else 2.1,
                          label=LABELS[method])
        band = ax.fill_between(curves.sizes, mean - std, mean + std, color=line.get_color(),
                               alpha=0.12, linewidth=0)
        artists[method] = {"line": line, "band": band}
    ax.set_xlabel("labeled examples")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if legend_below:
        ax.legend(fontsize=10, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=3,
                  frameon=False)
    else:
        ax.legend(fontsize=9)
    return artists


def plot_semilog_check(ax, sizes, mean_errors, fit, *, label, color=None):
    """Figure 1a: ``mean error − asymptote`` on a log scale against the labeled-set size, and the
    straight line of :func:`sslviz.experiments.kernel_expansion.exponential_check`."""
    sizes, excess = np.asarray(sizes), np.asarray(mean_errors) - fit.asymptote
    shown = excess > 0
    points = ax.semilogy(sizes[shown], excess[shown], "o", label=label, color=color)[0]
    line = ax.semilogy(fit.used, np.exp(fit.intercept + fit.slope * fit.used), "-",
                       color=points.get_color(), alpha=0.6,
                       label=f"fit: slope {fit.slope:.3f}, R² {fit.r_squared:.2f}")[0]
    ax.set_xlabel("labeled examples")
    ax.set_ylabel("mean error − asymptote")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=9)
    return {"points": points, "line": line}
