"""Explorers of Lecture 1 (what SSL is and when it fails).

* :func:`stepper_explorer` — the lecture's picture in five steps: a few labeled points, the
  boundary they suggest alone, the unlabeled cloud, labels spreading through it, a boundary that
  respects both.
* :func:`sweep_explorer` — supervised vs semi-supervised accuracy as the data move from
  favourable to unfavourable (replays a precomputed
  :class:`sslviz.experiments.what_is_ssl.Sweep`).
* :func:`word_association_explorer` — words no labeled post contains, and how EM gives them a
  class (20 Newsgroups; refits are cached, and the settings next to the one on screen are fitted
  while the kernel idles).
"""

from __future__ import annotations

import ipywidgets as widgets

from ..experiments.what_is_ssl import (
    TOY_EXTENT,
    cached_toy_fits,
    cached_toy_grids,
    cached_word_associations,
    rank_new_words,
    word_indices,
)
from ..export import style_context
from ..lectures import explorer_prefix
from ..plots.what_is_ssl import (
    STEPS,
    plot_accuracy_sweep,
    plot_step_list,
    plot_toy_panel,
    plot_word_association,
    step_note,
    update_accuracy_sweep,
    update_step_list,
    update_toy_fit,
    update_toy_step,
)
from .base import Explorer, iteration_control, new_figure, seed_control

LECTURE = explorer_prefix(__name__)  # its explorers' names (and exported files) begin so

ANGLES = tuple(range(0, 91, 15))


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
    n_train, n_test : int, default=300
        Points the learners see and are tested on
        (:func:`sslviz.experiments.what_is_ssl.fit_toy`).
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
    grids = cached_toy_grids(fits, TOY_EXTENT, resolution=resolution)
    step_slider, play = iteration_control(len(STEPS), step, minimum=1, description="step",
                                          interval=1500)
    controls = {"step": step_slider,
                "n_labeled": widgets.IntSlider(n_labeled, min=2, max=max_labeled,
                                               description="labeled pts",
                                               continuous_update=False),
                "angle": _angle_slider(ANGLES, angle),
                "seed": seed_control(seed)}
    with new_figure((11, 7.2)) as figure:
        ax, list_ax = figure.subplots(1, 2, width_ratios=[1, 1])
        panel = plot_toy_panel(ax, TOY_EXTENT)
        story = plot_step_list(list_ax, STEPS)

    def update(values):
        key = (values["angle"], values["n_labeled"], values["seed"])
        fit = fits(*key)  # may fail (e.g. too many labeled points): change nothing before
        current = values["step"] - 1  # 0-based index into STEPS
        update_toy_step(ax, panel, fit, current, supervised=grids(*key, "supervised"),
                        semi_supervised=grids(*key, "semi_supervised"))
        update_step_list(story, current, step_note(fit, current))

    return Explorer(f"{LECTURE}-stepper", figure, controls, update, extra_controls=[play])


def sweep_explorer(sweep, *, n_labeled=None, angle=None, resolution=120):
    """Supervised vs semi-supervised accuracy as the cluster assumption breaks.

    Left: the sweep's mean test accuracy (over its seeds, min-max shaded) against the angle
    between class boundary and cluster gap, for the chosen labeled-set size; a dotted line marks
    the chosen angle. Right: the data at that angle for the sweep's first seed, unlabeled points
    coloured by their true class (which neither learner sees), with both boundaries.

    Parameters
    ----------
    sweep : Sweep
        From :func:`sslviz.experiments.what_is_ssl.sweep_cluster_assumption`.
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
    fits = cached_toy_fits(**sweep.fit_params)
    grids = cached_toy_grids(fits, TOY_EXTENT, resolution=resolution)
    seed = int(sweep.seeds[0])
    first_size = sizes[min(1, len(sizes) - 1)] if n_labeled is None else n_labeled
    controls = {"n_labeled": widgets.SelectionSlider(options=sizes, value=first_size,
                                                     description="labeled pts",
                                                     continuous_update=False),
                "angle": _angle_slider(angles, angles[0] if angle is None else angle)}
    with new_figure((13, 6.4)) as figure:
        curve_ax, data_ax = figure.subplots(1, 2, width_ratios=[1.25, 1])
        curves = plot_accuracy_sweep(curve_ax, sweep.angles, *sweep.at(first_size),
                                     labels=("labeled only (logistic regression)",
                                             "labeled + unlabeled (label spreading)"))
        panel = plot_toy_panel(data_ax, TOY_EXTENT)

    def update(values):
        size, current = values["n_labeled"], values["angle"]
        accuracies = sweep.at(size)  # may fail: change nothing before
        fit = fits(current, size, seed)
        update_accuracy_sweep(curve_ax, curves, *accuracies, angle=current)
        curve_ax.set_title(f"{size} labeled points, mean of {len(sweep.seeds)} seeds "
                           "(band: min to max)")
        update_toy_fit(data_ax, panel, fit, unlabeled="true",
                       supervised=grids(current, size, seed, "supervised"),
                       semi_supervised=grids(current, size, seed, "semi_supervised"))
        data_ax.set_title(f"angle {current}°, seed {seed}: labeled only "
                          f"{fit.supervised_accuracy:.0%}, + unlabeled "
                          f"{fit.semi_supervised_accuracy:.0%}\n"
                          "(unlabeled points coloured by their true class)")

    return Explorer(f"{LECTURE}-sweep", figure, controls, update)


def word_association_explorer(corpus, *, test_rows, n_labeled=8, seed=0, words=(), k=8,
                              sizes=(2, 4, 8, 16, 32, 64), alpha=0.1, max_iter=10, min_df=10):
    """Words no labeled document contains, and the class EM gives them.

    Left: for the ``k`` words ranked first by
    :func:`sslviz.experiments.what_is_ssl.rank_new_words` (absent from the labeled documents,
    made predictive for the correct class by EM), plus the words typed in the text box, the
    class association before EM, after EM and with all training labels. Words that *do* occur
    in a labeled document are marked ``*``. Right: test accuracy of every EM iteration
    (0 = Naive Bayes on the labeled documents).

    Parameters
    ----------
    corpus : CountCorpus
        Two classes (e.g. two newsgroups).
    test_rows : array-like of int
    n_labeled : int, default=8
        Start size; one of ``sizes``.
    seed : int, default=0
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
        Controls ``n_labeled`` and ``seed`` (refit, cached) and ``words``. While the kernel
        idles, the fits one step away along ``n_labeled`` and ``seed`` are made (the way the
        last change went first).
    """
    if len(corpus.target_names) != 2:
        raise ValueError("word_association_explorer compares two classes; load a corpus with "
                         f"two categories (got {len(corpus.target_names)})")
    fits = cached_word_associations(corpus.X, corpus.y, test_rows=test_rows, alpha=alpha,
                                    max_iter=max_iter)
    controls = {"n_labeled": widgets.SelectionSlider(options=list(sizes), value=n_labeled,
                                                     description="labeled docs",
                                                     continuous_update=False),
                "seed": seed_control(seed),
                "words": widgets.Text(", ".join(words), description="your words",
                                      placeholder="e.g. car, orbit", continuous_update=False)}
    with new_figure((13, 6.4)) as figure:
        bar_ax, accuracy_ax = figure.subplots(1, 2, width_ratios=[1.9, 1])
    def update(values):
        typed = [w.strip() for w in values["words"].split(",") if w.strip()]
        extra = word_indices(corpus.vocabulary, typed)  # may fail: change nothing before
        result = fits(values["n_labeled"], values["seed"])
        ranked = rank_new_words(result, min_df=min_df, k=k).tolist()
        shown = ranked + [int(i) for i in extra if i not in ranked]
        with style_context():  # the axes are cleared: new artists take the package style
            plot_word_association(bar_ax, accuracy_ax, result, shown,
                                  vocabulary=corpus.vocabulary,
                                  class_names=list(corpus.target_names),
                                  n_ranked=len(ranked), typed=bool(typed))

    def prepare(values):  # one fit: one step
        fits(values["n_labeled"], values["seed"])
        yield

    return Explorer(f"{LECTURE}-word_association", figure, controls, update,
                    prepare=prepare)


def _angle_slider(angles, value):
    return widgets.SelectionSlider(options=angles, value=value, description="angle (°)",
                                   continuous_update=False)
