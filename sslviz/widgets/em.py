"""Explorers of the EM lecture (04): top words per iteration, NB vs EM learning curves, and the
smoothing constant α."""

from __future__ import annotations

import ipywidgets as widgets

from ..em import top_words
from ..experiments.em import em_runs_by_seed
from ..lectures import explorer_prefix
from ..plots.common import plot_word_columns, update_size_marker, update_word_columns
from ..plots.em import (
    plot_alpha_curves,
    plot_nb_em_bars,
    plot_nb_em_curves,
    plot_prediction_shares,
    plot_run_curves,
    plot_smoothing_mass,
    update_run_markers,
)
from .base import Explorer, PerSetting, iteration_control, new_figure, seed_control

LECTURE = explorer_prefix(__name__)  # its explorers' names (and exported files) begin so

RANKINGS = {"weighted log-odds": "log_odds", "P(w|c)": "probability"}
SMOOTHING_VALUES = ["evidence", 0.0001, 0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0]
LAMBDA_STEP = 0.1
LAMBDAS = [round(i * LAMBDA_STEP, 6) for i in range(round(1 / LAMBDA_STEP) + 1)]
"""While the kernel idles, the learning-curve explorer refits the settings up to this many steps
away along the λ and α sliders (one step along the sizes): a few seconds of work, after which the
kernel is idle again; a slider moved step by step then finds its next setting fitted."""


def top_words_explorer(corpus, *, target="course", seed=0, n_labeled=1, n_unlabeled=2500,
                       k=20, max_iter=10, alpha=1.0, n_columns=4, iteration=None):
    """Step through a recorded EM run and watch one class's top words change.

    One run per seed: ``n_labeled`` labeled documents per class and ``n_unlabeled`` unlabeled
    ones (Nigam et al.'s WebKB setting is 1 and 2,500), accuracy measured on the remaining
    documents. Moving the iteration slider only replays the run's trace; a new seed fits a new
    run (cached). ``alpha``: a number or a criterion's name (α chosen on the labeled rows,
    :func:`sslviz.experiments.em.chosen_alpha`). ``iteration``: where the slider starts (default
    the last iteration, so the opening picture shows iteration 0 beside the latest ones).

    Returns
    -------
    Explorer
        Controls ``iteration`` (with a Play button), ``target``, ``seed``, ``ranking``.
    """
    runs = em_runs_by_seed(corpus.X, corpus.y, n_labeled=n_labeled, per_class=True,
                           n_unlabeled=n_unlabeled, alpha=alpha, max_iter=max_iter)
    names = list(corpus.target_names)
    last = len(runs(seed).model.trace_) - 1
    iteration, play = iteration_control(last, last if iteration is None else iteration)
    controls = {
        "iteration": iteration,
        "target": widgets.Dropdown(options=names, value=target, description="class"),
        "seed": seed_control(seed),
        "ranking": widgets.Dropdown(options=list(RANKINGS), description="rank by"),
    }
    with new_figure((13, 6.2)) as figure:
        grid = figure.add_gridspec(2, 2, width_ratios=[2.1, 1])
        table_ax, objective_ax = figure.add_subplot(grid[:, 0]), figure.add_subplot(grid[0, 1])
        accuracy_ax = figure.add_subplot(grid[1, 1])
        table = plot_word_columns(table_ax, n_columns, k)

    def curves(values):  # the run's objective and accuracy, once per seed
        run = runs(values["seed"])
        return plot_run_curves(objective_ax, accuracy_ax, run.model.trace_.values("objective"),
                               run.test_accuracy, n_labeled=len(run.split.labeled),
                               n_unlabeled=len(run.split.unlabeled))

    def update(values, drawn):
        run, current = runs(values["seed"]), values["iteration"]
        shown = _columns_to_show(current, n_columns)
        label = run.model.classes_[names.index(values["target"])]
        columns = [top_words(run.model, corpus.vocabulary, iteration=i, k=k,
                             by=RANKINGS[values["ranking"]])[label] for i in shown]
        update_word_columns(table, [f"iteration {i}" for i in shown], columns,
                            highlight=shown.index(current))
        table_ax.set_title(f"top {k} words of class '{values['target']}' "
                           f"({values['ranking']}); new since iteration 0 in colour")
        update_run_markers(drawn["curves"], current)

    return Explorer(f"{LECTURE}-top_words", figure, controls, update, extra_controls=[play],
                    ranges={"iteration": lambda values: (
                        0, len(runs(values["seed"]).model.trace_) - 1)},
                    setup={"curves": PerSetting(("seed",), curves)})


def _columns_to_show(current, n_columns):
    """Iteration 0 and the most recent iterations up to ``current`` (just ``current`` if 1)."""
    if n_columns == 1:
        return [current]
    recent = list(range(max(1, current - n_columns + 2), current + 1))
    return [0] + recent if current > 0 else [0]


def learning_curve_explorer(curves, live, *, size, unlabeled_weight=1.0, alpha=0.1,
                            curves_computed_with=None):
    """NB vs EM accuracy against labeled-set size, one pair of curves per feature set.

    Parameters
    ----------
    curves : dict of str -> LearningCurve
        Precomputed curves (e.g. ``{"SMART stop list": ..., "no stop list": ...}``).
    live : dict of str -> callable (n_labeled, unlabeled_weight, alpha) -> (nb, em) accuracies
        Refits at one size for the feature set of the same name (e.g.
        :func:`sslviz.experiments.em.refit_at_size`); drawn as bars with one dot per seed in
        the right panel, so the effect of λ and the smoothing shows beside the curves. If it
        has a ``steps`` method (:meth:`sslviz.experiments.em.SizeRefits.steps`), that is the
        explorer's ``prepare``: the settings next to the one on screen are refitted while the
        kernel idles.
    size : int
        The labeled-set size highlighted first.
    unlabeled_weight, alpha : float, or for α a criterion's name
        Start values of the λ and smoothing sliders (a name, e.g. "evidence": α picked on each
        split's labeled rows by that criterion, :func:`sslviz.experiments.em.chosen_alpha`).
    curves_computed_with : (float, float or str) or None
        The (λ, α) the curves were computed with. At these values the right panel replays the
        curves' own numbers instead of refitting; ``None`` always refits.

    Returns
    -------
    Explorer
        Controls ``n_labeled`` (replays the curves), ``features``, ``unlabeled_weight`` and
        ``alpha`` (refit at the highlighted size; cached). λ is read on the slider's grid (0.7,
        not 0.7000000000000001), so one setting is one refit whichever way it was reached.
    """
    sizes = next(iter(curves.values())).sizes.tolist()
    controls = {
        "n_labeled": widgets.SelectionSlider(options=sizes, value=size, description="labeled docs",
                                             continuous_update=False),
        "features": widgets.Dropdown(options=list(curves), description="features"),
        "unlabeled_weight": widgets.FloatSlider(unlabeled_weight, min=0, max=1, step=LAMBDA_STEP,
                                                description="λ", continuous_update=False),
        "alpha": widgets.SelectionSlider(options=_smoothing_options(alpha), value=alpha,
                                         description="smoothing α", continuous_update=False),
    }
    with new_figure((13, 5.6)) as figure:
        curve_ax, point_ax = figure.subplots(1, 2, width_ratios=[1.6, 1])
        plot_nb_em_curves(curve_ax, curves)
    marker = {"line": None}  # the one artist that moves: created by the first update

    def setting_of(values):
        return (values["n_labeled"], _on_lambda_grid(values["unlabeled_weight"]),
                values["alpha"])

    def update(values):
        setting = setting_of(values)
        if setting[1:] == curves_computed_with:
            nb, em = curves[values["features"]].at(values["n_labeled"])  # recorded: replay
        else:  # may fail: change nothing before it
            nb, em = live[values["features"]](*setting)
        marker["line"] = update_size_marker(curve_ax, marker["line"], values["n_labeled"])
        plot_nb_em_bars(point_ax, nb, em, title=(
            f"{values['n_labeled']} labeled, {values['features']},\nλ={setting[1]:g}, "
            f"α={_alpha_text(setting[2])} (each dot a seed)"))

    def prepare(values):
        refit, setting = live[values["features"]], setting_of(values)
        if hasattr(refit, "steps") and setting[1:] != curves_computed_with:
            yield from refit.steps(*setting)

    # λ and α are the sliders moved step by step at one size; sizes replay the curves
    return Explorer(f"{LECTURE}-learning_curve", figure, controls, update,
                    prepare=prepare, prepare_along=("unlabeled_weight", "alpha"))


def _on_lambda_grid(value):
    return round(float(value), 6)  # as in LAMBDAS


def _smoothing_options(alpha):
    """The smoothing slider's values: the criterion ``alpha`` names (or the evidence) first."""
    numbers = [value for value in SMOOTHING_VALUES if not isinstance(value, str)]
    if not isinstance(alpha, str) and alpha not in numbers:
        raise ValueError(f"alpha must be a criterion's name or one of {numbers}, got {alpha!r}")
    return [alpha if isinstance(alpha, str) else SMOOTHING_VALUES[0], *numbers]


def _alpha_text(alpha):
    return f"chosen by the {alpha}" if isinstance(alpha, str) else f"{alpha:g}"


def smoothing_explorer(sweeps, class_names, *, alpha=None, seed=None):
    """What α does: pseudo-tokens against real ones, where test documents go, accuracy vs α.

    Parameters
    ----------
    sweeps : dict of str -> SmoothingSweep
        One per feature set (:func:`sslviz.experiments.em_settings.smoothing_sweep`); everything
        shown is replayed from them, nothing is refit, so the α slider is live.
    class_names : sequence of str
    alpha : float or None
        Start value of the slider (default: the α chosen on the first seed's labeled rows).
    seed : int or None
        The split shown in the two left panels (default: the first seed).

    Returns
    -------
    Explorer
        Controls ``alpha`` (main), ``features`` and ``seed``.
    """
    first = next(iter(sweeps.values()))
    seeds = first.seeds.tolist()
    seed = seeds[0] if seed is None else seed
    alpha = float(first.chosen[seeds.index(seed)]) if alpha is None else alpha
    controls = {
        "alpha": widgets.SelectionSlider(options=sorted(first.alphas.tolist()), value=alpha,
                                         description="smoothing α"),
        "features": widgets.Dropdown(options=list(sweeps), description="features"),
        "seed": widgets.Dropdown(options=seeds, value=seed, description="seed"),
    }
    with new_figure((15, 7.6)) as figure:
        mass_ax, share_ax, curve_ax = figure.subplots(1, 3, width_ratios=[1, 1, 1.2])

    def update(values):
        sweep = sweeps[values["features"]]
        i, j = sweep.index(values["alpha"]), sweep.seeds.tolist().index(values["seed"])
        plot_smoothing_mass(mass_ax, sweep.tokens[j], values["alpha"] * sweep.n_words,
                            class_names)
        plot_prediction_shares(share_ax, sweep.nb_predicted[i, j], sweep.em_predicted[i, j],
                               class_names)
        share_ax.set_yticks([])
        plot_alpha_curves(curve_ax, sweep.alphas, sweep.nb_accuracy, sweep.em_accuracy,
                          chosen=sweep.chosen, current=values["alpha"])
        share_ax.set_title(f"seed {values['seed']}, α={values['alpha']:g}: NB "
                           f"{sweep.nb_accuracy[i, j]:.0%}, EM {sweep.em_accuracy[i, j]:.0%}")

    return Explorer(f"{LECTURE}-smoothing", figure, controls, update, main="alpha")
