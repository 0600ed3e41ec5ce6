"""Explorers of Lecture 1 (what SSL is and when it fails).

* :func:`stepper_explorer` — the lecture's picture in five steps: a few labeled points, the
  boundary they suggest alone, the unlabeled cloud, labels spreading through it, a boundary that
  respects both.
* :func:`sweep_explorer` — supervised vs semi-supervised accuracy as the data move from
  favourable to unfavourable (replays a precomputed :class:`sslviz.cluster_assumption.Sweep`).
* :func:`word_association_explorer` — words no labeled post contains, and how EM gives them a
  class (20 Newsgroups; refits are cached).
"""

from __future__ import annotations

from functools import lru_cache

import ipywidgets as widgets
from matplotlib.figure import Figure

from ..cluster_assumption import cached_toy_fits, decision_grid
from ..export import style_context
from ..plots.em import plot_iteration_curve, update_iteration_marker, update_size_marker
from ..plots.intro import (
    SEMI_SUPERVISED_COLOR,
    SUPERVISED_COLOR,
    plot_accuracy_sweep,
    plot_association_bars,
    plot_step_list,
    plot_toy_panel,
    update_accuracy_sweep,
    update_boundary,
    update_shading,
    update_step_list,
    update_toy_points,
)
from ..word_association import cached_word_associations, rank_new_words, word_indices
from .base import Explorer

STEPS = (
    "a few labeled points",
    "the boundary they suggest on their own",
    "the unlabeled cloud",
    "labels spread through the cloud",
    "a boundary that respects both",
)
XLIM, YLIM = (-4.5, 4.5), (-6.5, 6.5)
ANGLES = tuple(range(0, 91, 15))


def _grid_cache(fits, resolution):
    """A cached ``(angle, n_labeled, seed, which) -> (xs, ys, proba)`` over the toy panel."""

    @lru_cache(maxsize=64)
    def grid(angle, n_labeled, seed, which):
        fit = fits(angle, n_labeled, seed)
        model = fit.supervised if which == "supervised" else fit.semi_supervised
        return decision_grid(model, XLIM, YLIM, resolution=resolution)

    return grid


def stepper_explorer(*, n_labeled=2, angle=0, seed=0, step=1, n_train=300, n_test=300,
                     max_labeled=20, resolution=120):
    """Walk through the lecture's picture of semi-supervised learning, one step at a time.

    Parameters
    ----------
    n_labeled : int, default=2
        Labeled points at the start (one per class with 2).
    angle : int, default=0
        Start angle between class boundary and cluster gap (0 favourable, 90 unfavourable).
    seed : int, default=0
    step : int in [1, 5], default=1
    n_train, n_test : int
        Points the learners see and points they are tested on
        (:func:`sslviz.cluster_assumption.fit_toy`).
    max_labeled : int, default=20
        Largest value of the labeled-set slider.
    resolution : int, default=120
        Grid of the boundaries.

    Returns
    -------
    Explorer
        Controls ``step`` (with a Play button; replays), ``n_labeled``, ``angle`` and ``seed``
        (refit: logistic regression and label spreading, cached).
    """
    fits = cached_toy_fits(n_train=n_train, n_test=n_test)
    grids = _grid_cache(fits, resolution)
    step_slider = widgets.IntSlider(step, min=1, max=len(STEPS), description="step")
    play = widgets.Play(step, min=1, max=len(STEPS), interval=1500, description="play")
    widgets.jslink((play, "value"), (step_slider, "value"))
    controls = {
        "step": step_slider,
        "n_labeled": widgets.IntSlider(n_labeled, min=2, max=max_labeled,
                                       description="labeled pts", continuous_update=False),
        "angle": widgets.SelectionSlider(options=ANGLES, value=angle, description="angle (°)",
                                         continuous_update=False),
        "seed": widgets.BoundedIntText(seed, min=0, max=999, description="seed",
                                       layout=widgets.Layout(width="150px")),
    }
    with style_context():
        figure = Figure(figsize=(11, 7.2), layout="constrained")
        ax, list_ax = figure.subplots(1, 2, width_ratios=[1, 1])
        panel = plot_toy_panel(ax, XLIM, YLIM)
        story = plot_step_list(list_ax, STEPS)

    def update(values):
        key = (values["angle"], values["n_labeled"], values["seed"])
        fit = fits(*key)  # may fail (e.g. too many labeled points): change nothing before
        current = values["step"] - 1  # 0-based index into STEPS
        labeled, unlabeled = fit.split.labeled, fit.split.unlabeled
        update_toy_points(panel, fit.X[labeled], fit.y[labeled],
                          fit.X[unlabeled] if current >= 2 else None,
                          fit.unlabeled_predictions if current >= 3 else None)
        supervised = grids(*key, "supervised") if current >= 1 else None
        semi = grids(*key, "semi_supervised") if current >= 4 else None
        update_shading(panel, semi[2] if semi is not None else
                       (supervised[2] if current in (1, 2) else None))
        update_boundary(ax, panel, "supervised", supervised, color=SUPERVISED_COLOR,
                        linestyle="--")
        update_boundary(ax, panel, "semi_supervised", semi, color=SEMI_SUPERVISED_COLOR)
        ax.set_title(f"step {current + 1} of {len(STEPS)}: {STEPS[current]}")
        lines = [f"{len(labeled)} labeled points, " + (f"{len(unlabeled)} unlabeled"
                                                       if current >= 2 else "unlabeled hidden"),
                 f"angle between class boundary and cluster gap: {values['angle']}°"]
        if current >= 1:
            lines.append(f"test accuracy on {len(fit.split.test)} held-out points:")
            lines.append(f"   labeled only (dashed): {fit.supervised_accuracy:.0%}")
        if current >= 4:
            lines.append(f"   labeled + unlabeled (solid): {fit.semi_supervised_accuracy:.0%}")
        update_step_list(story, current, "\n".join(lines))

    return Explorer("01_what_is_ssl-stepper", figure, controls, update, extra_controls=[play])


def sweep_explorer(sweep, *, n_labeled=None, angle=None, resolution=120):
    """Supervised vs semi-supervised accuracy as the cluster assumption breaks.

    Left: the sweep's mean test accuracy (over its seeds, min-max shaded) against the angle
    between class boundary and cluster gap, for the chosen labeled-set size; a dotted line marks
    the chosen angle. Right: the data at that angle for the sweep's first seed, unlabeled points
    coloured by their true class (which neither learner sees), with both boundaries.

    Parameters
    ----------
    sweep : Sweep
        From :func:`sslviz.cluster_assumption.sweep_cluster_assumption`.
    n_labeled : int or None
        Start size (one of ``sweep.sizes``; default the second smallest).
    angle : float or None
        Start angle (one of ``sweep.angles``; default the first).

    Returns
    -------
    Explorer
        Controls ``n_labeled`` and ``angle``: the curves replay the sweep; the right panel is
        one of the sweep's own fits, redone (cached) to draw it.
    """
    sizes = [int(s) for s in sweep.sizes]
    angles = [int(a) if float(a).is_integer() else float(a) for a in sweep.angles]
    n_labeled = sizes[min(1, len(sizes) - 1)] if n_labeled is None else n_labeled
    angle = angles[0] if angle is None else angle
    fits = cached_toy_fits(**sweep.fit_params)
    grids = _grid_cache(fits, resolution)
    seed = int(sweep.seeds[0])
    controls = {
        "n_labeled": widgets.SelectionSlider(options=sizes, value=n_labeled,
                                             description="labeled pts", continuous_update=False),
        "angle": widgets.SelectionSlider(options=angles, value=angle, description="angle (°)",
                                         continuous_update=False),
    }
    with style_context():
        figure = Figure(figsize=(13, 6.4), layout="constrained")
        curve_ax, data_ax = figure.subplots(1, 2, width_ratios=[1.25, 1])
        curves = plot_accuracy_sweep(curve_ax, sweep.angles, *sweep.at(n_labeled),
                                     labels=("labeled only (logistic regression)",
                                             "labeled + unlabeled (label spreading)"))
        panel = plot_toy_panel(data_ax, XLIM, YLIM)
    state = {"marker": None}

    def update(values):
        size, current = values["n_labeled"], values["angle"]
        supervised, semi = sweep.at(size)  # may fail: change nothing before
        fit = fits(current, size, seed)
        update_accuracy_sweep(curve_ax, curves, supervised, semi)
        state["marker"] = update_size_marker(curve_ax, state["marker"], current)
        curve_ax.set_title(f"{size} labeled points, mean of {len(sweep.seeds)} seeds "
                           "(band: min to max)")
        labeled, unlabeled = fit.split.labeled, fit.split.unlabeled
        update_toy_points(panel, fit.X[labeled], fit.y[labeled], fit.X[unlabeled],
                          fit.y[unlabeled])
        update_boundary(data_ax, panel, "supervised", grids(current, size, seed, "supervised"),
                        color=SUPERVISED_COLOR, linestyle="--")
        update_boundary(data_ax, panel, "semi_supervised",
                        grids(current, size, seed, "semi_supervised"),
                        color=SEMI_SUPERVISED_COLOR)
        data_ax.set_title(f"angle {current}°, seed {seed}: labeled only "
                          f"{fit.supervised_accuracy:.0%}, + unlabeled "
                          f"{fit.semi_supervised_accuracy:.0%}\n"
                          "(unlabeled points coloured by their true class)")

    return Explorer("01_what_is_ssl-sweep", figure, controls, update)


def word_association_explorer(corpus, *, test_rows, n_labeled=8, seed=0, words=(), k=8,
                              sizes=(2, 4, 8, 16, 32, 64), alpha=0.1, max_iter=10, min_df=10):
    """Words no labeled document contains, and the class EM gives them.

    Left: for the ``k`` words ranked first by :func:`sslviz.word_association.rank_new_words`
    (absent from the labeled documents, made predictive for the correct class by EM), plus the
    words typed in the text box, the class association before EM, after EM and with all training
    labels. Words that *do* occur in a labeled document are marked ``*``. Right: test accuracy
    of every EM iteration (0 = Naive Bayes on the labeled documents).

    Parameters
    ----------
    corpus : CountCorpus
        Two classes (e.g. two newsgroups).
    test_rows : array-like of int
    n_labeled : int, default=8
        Start size; one of ``sizes``.
    words : sequence of str
        Words shown besides the ranked ones (editable in the explorer).
    k : int, default=8
    sizes : sequence of int
        Choices of the labeled-set slider.
    alpha, max_iter
        Of :class:`sslviz.em.SemiSupervisedNB`.
    min_df : int, default=10
        Least number of unlabeled documents a ranked word must occur in.

    Returns
    -------
    Explorer
        Controls ``n_labeled`` and ``seed`` (refit, cached) and ``words``.
    """
    if len(corpus.target_names) != 2:
        raise ValueError("word_association_explorer compares two classes; load a corpus with "
                         f"two categories (got {len(corpus.target_names)})")
    fits = cached_word_associations(corpus.X, corpus.y, test_rows=test_rows, alpha=alpha,
                                    max_iter=max_iter)
    class_names = list(corpus.target_names)
    controls = {
        "n_labeled": widgets.SelectionSlider(options=list(sizes), value=n_labeled,
                                             description="labeled docs", continuous_update=False),
        "seed": widgets.BoundedIntText(seed, min=0, max=999, description="seed",
                                       layout=widgets.Layout(width="150px")),
        "words": widgets.Text(", ".join(words), description="your words",
                              placeholder="e.g. car, orbit", continuous_update=False),
    }
    with style_context():
        figure = Figure(figsize=(13, 6.4), layout="constrained")
        bar_ax, accuracy_ax = figure.subplots(1, 2, width_ratios=[1.9, 1])

    def update(values):
        typed = [w.strip() for w in values["words"].split(",") if w.strip()]
        extra = word_indices(corpus.vocabulary, typed)  # may fail: change nothing before
        result = fits(values["n_labeled"], values["seed"])
        ranked = rank_new_words(result, min_df=min_df, k=k).tolist()
        shown = ranked + [int(i) for i in extra if i not in ranked]
        bar_ax.clear()
        accuracy_ax.clear()
        with style_context():
            plot_association_bars(bar_ax, corpus.vocabulary[shown].tolist(),
                                  result.before[shown], result.after[shown],
                                  result.reference[shown], class_names=class_names,
                                  seen=~result.absent[shown])
            curve = plot_iteration_curve(accuracy_ax, result.test_accuracy * 100,
                                         ylabel="test accuracy (%)", color=SEMI_SUPERVISED_COLOR)
            update_iteration_marker(curve, len(result.test_accuracy) - 1)
        unseen = result.before[result.absent]
        bar_ax.set_title(f"{len(ranked)} words in no labeled post that EM made predictive"
                         + (", then yours (* = in a labeled post)" if typed else "")
                         + "\nbefore EM every word absent from the labeled posts scores "
                         + (f"{unseen[0]:+.2f}" if len(unseen) else "-"))
        accuracy_ax.set_title(f"{len(result.split.labeled)} labeled, "
                              f"{len(result.split.unlabeled)} unlabeled posts:\n"
                              f"NB {result.test_accuracy[0]:.0%} → EM "
                              f"{result.test_accuracy[-1]:.0%}")
        accuracy_ax.set_ylim(40, 100)

    return Explorer("01_what_is_ssl-word_association", figure, controls, update)
