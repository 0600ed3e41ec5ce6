"""Explorers of the EM lecture (04): top words per iteration, and NB vs EM learning curves."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from ..em import word_scores
from ..experiments import em_runs_by_seed
from ..export import style_context
from ..plots import (
    plot_iteration_curve,
    plot_learning_curve,
    plot_word_columns,
    update_iteration_marker,
    update_size_marker,
    update_word_columns,
)
from .base import Explorer

RANKINGS = {"weighted log-odds": "log_odds", "P(w|c)": "probability"}


def top_words_explorer(corpus, *, target="course", seed=0, n_labeled=1, n_unlabeled=2500,
                       k=20, max_iter=10, alpha=1.0, n_columns=4):
    """Step through a recorded EM run and watch one class's top words change.

    One run per seed: ``n_labeled`` labeled documents per class and ``n_unlabeled`` unlabeled
    ones (Nigam et al.'s WebKB setting is 1 and 2,500), accuracy measured on the remaining
    documents. Moving the iteration slider only replays the run's trace; a new seed fits a new
    run (cached).

    Returns
    -------
    Explorer
        Controls ``iteration`` (with a Play button), ``target``, ``seed``, ``ranking``.
    """
    runs = em_runs_by_seed(corpus.X, corpus.y, n_labeled=n_labeled, per_class=True,
                           n_unlabeled=n_unlabeled, alpha=alpha, max_iter=max_iter)
    names = list(corpus.target_names)
    first = runs(seed)
    iteration = widgets.IntSlider(0, min=0, max=len(first.model.trace_) - 1,
                                  description="iteration")
    play = widgets.Play(0, min=0, max=iteration.max, interval=1200, description="play")
    widgets.jslink((play, "value"), (iteration, "value"))
    controls = {
        "iteration": iteration,
        "target": widgets.Dropdown(options=names, value=target, description="class"),
        "seed": widgets.BoundedIntText(seed, min=0, max=999, description="seed",
                                       layout=widgets.Layout(width="150px")),
        "ranking": widgets.Dropdown(options=list(RANKINGS), description="rank by"),
    }
    with style_context():
        figure = Figure(figsize=(13, 6.2), layout="constrained")
        grid = figure.add_gridspec(2, 2, width_ratios=[2.1, 1])
        table_ax, objective_ax = figure.add_subplot(grid[:, 0]), figure.add_subplot(grid[0, 1])
        accuracy_ax = figure.add_subplot(grid[1, 1])
        table = plot_word_columns(table_ax, n_columns, k)
    curves = {}

    def update(values):
        run = runs(values["seed"])
        last = len(run.model.trace_) - 1
        iteration.max = play.max = last
        current = min(values["iteration"], last)
        if curves.get("seed") != values["seed"]:
            _draw_run_curves(objective_ax, accuracy_ax, run, curves)
            curves["seed"] = values["seed"]
        shown = _columns_to_show(current, n_columns)
        target_index = names.index(values["target"])
        by = RANKINGS[values["ranking"]]
        columns = [_top(run.model, i, target_index, corpus.vocabulary, k, by) for i in shown]
        update_word_columns(table, [f"iteration {i}" for i in shown], columns,
                            highlight=shown.index(current))
        table_ax.set_title(f"top {k} words of class '{values['target']}' "
                           f"({values['ranking']}); new since iteration 0 in colour")
        update_iteration_marker(curves["objective"], current)
        update_iteration_marker(curves["accuracy"], current)

    return Explorer("04_em_naive_bayes-top_words", figure, controls, update,
                    extra_controls=[play])


def _columns_to_show(current, n_columns):
    """Iteration 0 and the most recent iterations up to ``current`` (just ``current`` if 1)."""
    if n_columns == 1:
        return [current]
    recent = list(range(max(1, current - n_columns + 2), current + 1))
    return [0] + recent if current > 0 else [0]


def _top(model, iteration, target_index, vocabulary, k, by):
    scores = word_scores(model, iteration=iteration, by=by)[target_index]
    return vocabulary[np.argsort(-scores, kind="stable")[:k]].tolist()


def _draw_run_curves(objective_ax, accuracy_ax, run, curves):
    for ax in (objective_ax, accuracy_ax):
        ax.clear()
    with style_context():
        curves["objective"] = plot_iteration_curve(
            objective_ax, run.model.trace_.values("objective"), ylabel="log posterior L(θ)")
        curves["accuracy"] = plot_iteration_curve(
            accuracy_ax, run.test_accuracy * 100, ylabel="test accuracy (%)", color="#009E73")
    objective_ax.set_title("what EM climbs")
    accuracy_ax.set_title(f"{len(run.split.labeled)} labeled, {len(run.split.unlabeled)} unlabeled")


def learning_curve_explorer(curves, live, *, size, unlabeled_weight=1.0, alpha=0.1,
                            curves_computed_with=None):
    """NB vs EM accuracy against labeled-set size, one pair of curves per feature set.

    Parameters
    ----------
    curves : dict of str -> LearningCurve
        Precomputed curves (e.g. ``{"SMART stop list": ..., "no stop list": ...}``).
    live : dict of str -> callable (n_labeled, unlabeled_weight, alpha) -> (nb, em) accuracies
        Refits at one size for the feature set of the same name (e.g.
        :func:`sslviz.experiments.refit_at_size`); drawn as bars with one dot per seed in the
        right panel, so the effect of λ and the smoothing shows beside the curves.
    size : int
        The labeled-set size highlighted first.
    unlabeled_weight, alpha : float
        Start values of the λ and smoothing sliders.
    curves_computed_with : (float, float) or None
        The (λ, α) the curves were computed with. At these values the right panel replays the
        curves' own numbers instead of refitting; ``None`` always refits.

    Returns
    -------
    Explorer
        Controls ``n_labeled`` (replays the curves), ``features``, ``unlabeled_weight`` and
        ``alpha`` (refit at the highlighted size; cached).
    """
    names = list(curves)
    sizes = curves[names[0]].sizes.tolist()
    controls = {
        "n_labeled": widgets.SelectionSlider(options=sizes, value=size, description="labeled docs",
                                             continuous_update=False),
        "features": widgets.Dropdown(options=names, description="features"),
        "unlabeled_weight": widgets.FloatSlider(unlabeled_weight, min=0, max=1, step=0.1,
                                                description="λ", continuous_update=False),
        "alpha": widgets.SelectionSlider(options=[0.01, 0.03, 0.1, 0.3, 1.0], value=alpha,
                                         description="smoothing α", continuous_update=False),
    }
    with style_context():
        figure = Figure(figsize=(13, 5.6), layout="constrained")
        curve_ax, point_ax = figure.subplots(1, 2, width_ratios=[1.6, 1])
        colors = {"NB": "#0072B2", "EM": "#D55E00"}
        for name, linestyle in zip(names, ["-", "--", ":"], strict=False):
            for method, accuracy in (("NB", curves[name].nb_accuracy),
                                     ("EM", curves[name].em_accuracy)):
                plot_learning_curve(curve_ax, curves[name].sizes, accuracy,
                                    label=f"{method}, {name}", color=colors[method],
                                    linestyle=linestyle)
        curve_ax.legend(loc="upper left")
        curve_ax.set_title("supervised NB vs EM with unlabeled documents (spread over seeds)")
    state = {"marker": None}

    def update(values):
        if (values["unlabeled_weight"], values["alpha"]) == curves_computed_with:
            nb, em = curves[values["features"]].at(values["n_labeled"])  # recorded: replay
        else:  # may fail: change nothing before it
            nb, em = live[values["features"]](values["n_labeled"], values["unlabeled_weight"],
                                              values["alpha"])
        state["marker"] = update_size_marker(curve_ax, state["marker"], values["n_labeled"])
        _draw_live_point(point_ax, nb, em, values, colors)

    return Explorer("04_em_naive_bayes-learning_curve", figure, controls, update)


def _draw_live_point(ax, nb, em, values, colors):
    ax.clear()
    with style_context():
        for x, (method, accuracy) in enumerate((("NB", nb), ("EM", em))):
            accuracy = np.asarray(accuracy) * 100
            ax.bar(x, accuracy.mean(), color=colors[method], alpha=0.35, width=0.6)
            ax.plot(np.full(len(accuracy), x), accuracy, "o", color=colors[method])
            ax.text(x, accuracy.mean() + 1, f"{accuracy.mean():.1f}%", ha="center",
                    va="bottom", fontweight="bold")
        ax.set_xticks([0, 1], ["NB (labeled only)", "EM (+ unlabeled)"])
        ax.set_ylim(0, 100)
        ax.set_ylabel("test accuracy (%)")
        ax.set_title(f"{values['n_labeled']} labeled, {values['features']},\n"
                     f"λ={values['unlabeled_weight']:g}, α={values['alpha']:g} (each dot a seed)")
        ax.grid(alpha=0.3, axis="y")
