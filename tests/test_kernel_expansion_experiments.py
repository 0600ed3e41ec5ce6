"""The kernel-expansion lecture's experiments, plots and explorers (on small synthetic data)."""

from __future__ import annotations

import numpy as np
import pytest
from explorer_checks import assert_exports
from matplotlib.figure import Figure

import sslviz.experiments.kernel_expansion as kx
from sslviz.experiments.kernel_expansion import (
    Curves,
    choose_width_factor,
    draw_labeled,
    draw_result,
    exponential_check,
    format_table,
    learning_curves,
    med_convergence,
    toy_problem,
)
from sslviz.kernel_expansion import squared_distances
from sslviz.plots.kernel_expansion import plot_error_curves, plot_semilog_check
from sslviz.widgets.kernel_expansion import curves_explorer, expansion_explorer, semilog_explorer


def two_clusters(n=80, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    return rng.normal(size=(n, 3)) + 2.5 * y[:, None], y


def test_draw_labeled_is_seeded_holds_both_classes_and_stays_in_the_candidates():
    y = np.array([0] * 30 + [1] * 3)
    candidates = np.arange(25, 33)
    rows = draw_labeled(y, candidates, 2, seed=4)
    assert set(y[rows]) == {0, 1} and set(rows) <= set(candidates)
    np.testing.assert_array_equal(rows, draw_labeled(y, candidates, 2, seed=4))
    with pytest.raises(ValueError, match="n_labeled must be an integer in"):
        draw_labeled(y, candidates, 1, seed=0)


def test_exponential_check_recovers_a_known_curve():
    sizes = np.array([2, 4, 6, 10, 15, 20, 30])
    errors = 0.04 + 0.3 * np.exp(-0.15 * sizes)
    given = exponential_check(sizes, errors, 0.04)
    assert given.slope == pytest.approx(-0.15) and given.r_squared == pytest.approx(1.0)
    assert given.intercept == pytest.approx(np.log(0.3))
    fitted = exponential_check(sizes, errors)
    assert fitted.how == "fitted" and fitted.asymptote == pytest.approx(0.04, abs=1e-6)
    with pytest.raises(ValueError, match="fewer than two"):
        exponential_check(sizes, errors, 1.0)
    with pytest.raises(ValueError, match="needs at least 4 sizes"):
        exponential_check(sizes[:3], errors[:3])


def test_draw_result_reports_every_method_and_med_convergence():
    X, y = two_clusters()
    result = draw_result(X, y, 8, 0, candidates=np.arange(80), test=np.arange(80))
    for method in kx.METHODS:
        assert 0 <= float(result[f"{method}_error"]) <= 1
    assert float(result["em_error"]) < 0.1 and float(result["med_error"]) < 0.1
    assert bool(result["med_converged"]) and float(result["med_kkt"]) <= 1e-3
    assert float(result["med_gap"]) >= -1e-9


def _direct_held_out_f(X, y, labeled, method, factor, seed):
    """f(x) of every held-out labeled row, fold by fold, computed from the points themselves."""
    from sslviz.kernel_expansion import fit_em, fit_med, kernel_width, membership
    from sslviz.tuning import labeled_folds

    targets = np.full(len(y), -1)
    targets[labeled] = y[labeled]
    f, held = [], []
    for train, held_out in labeled_folds(targets, 3, random_state=seed, include_unlabeled=True):
        fold_labeled = train[targets[train] != -1]
        sigma = factor * kernel_width(X[fold_labeled], y[fold_labeled])
        fit = fit_em if method == "em" else fit_med
        found = fit(membership(X[fold_labeled], X[train], sigma), y[fold_labeled], 2)
        f.append(membership(X[held_out], X[train], sigma) @ found.weights[0])
        held.append(y[held_out])
    return np.concatenate(f), np.concatenate(held)


@pytest.mark.parametrize(("method", "criterion"), [("em", "log_likelihood"), ("med", "hinge"),
                                                   ("em", "balanced_accuracy")])
def test_choose_width_factor_is_interior_on_the_direct_scores_of_the_same_folds(method,
                                                                               criterion):
    from sklearn.metrics import balanced_accuracy_score, hinge_loss, log_loss

    X, y = two_clusters(seed=1)
    X = X + np.random.default_rng(5).normal(scale=1.2, size=X.shape)  # overlapping clusters
    labeled = draw_labeled(y, np.arange(80), 20, seed=0)
    choice = choose_width_factor(squared_distances(X, X), y, labeled, method, seed=0,
                                 criterion=criterion)
    factors = [c["width_factor"] for c in choice.candidates]
    assert set(kx.WIDTH_FACTORS) <= set(factors) and factors == sorted(factors)
    direct = []
    for factor in factors:
        f, held = _direct_held_out_f(X, y, labeled, method, factor, seed=0)
        proba = np.clip(np.column_stack([1 - f, 1 + f]) / 2, 1e-15, 1.0)
        direct.append({"log_likelihood": -log_loss(held, proba),
                       "hinge": -hinge_loss(held, f),
                       "balanced_accuracy": balanced_accuracy_score(held, (f > 0).astype(int))
                       }[criterion])
    np.testing.assert_allclose(choice.scores, direct, rtol=1e-6, atol=1e-9)
    best = int(np.argmax(direct))
    if not choice.at_bound:  # the best of the extended grid, inside it
        assert 0 < factors.index(choice.value) < len(factors) - 1
        assert np.isclose(direct[best], direct[factors.index(choice.value)])
    else:  # only at a documented bound of a width
        assert choice.params["width_factor"] in (1e-3, 1e3) and "bound" in choice.edge_message
    assert kx.WIDTH_CRITERIA[criterion] in choice.criterion


def test_choose_width_factor_keeps_the_rule_with_one_label_and_names_bad_criteria():
    X, y = two_clusters(seed=1)
    sq = squared_distances(X, X)
    one_each = draw_labeled(y, np.arange(80), 2, seed=0)
    for method in ("em", "med"):
        kept = choose_width_factor(sq, y, one_each, method, criterion="hinge")
        assert kept.value == 1.0 and not kept.at_bound
    with pytest.raises(ValueError, match="criterion must be one of"):
        choose_width_factor(sq, y, draw_labeled(y, np.arange(80), 20, seed=0), "em",
                            criterion="evidence")
    assert choose_width_factor(sq, y, one_each, "med", criterion="rule").value == 1.0


def test_an_edge_width_is_refused_under_strict_claims_and_recorded_by_a_job(monkeypatch):
    from sslviz.claims import EdgeNotAcknowledged
    from sslviz.tuning import Choice

    monkeypatch.setenv("SSLVIZ_STRICT_CLAIMS", "1")
    edge = Choice({"width_factor": 0.35}, [{"width_factor": f} for f in kx.WIDTH_FACTORS],
                  np.arange(4.0), "hand-built")
    assert edge.at_bound
    with pytest.raises(EdgeNotAcknowledged, match="width_factor = 0.35 is the smallest"):
        _ = edge.value
    X, y = two_clusters(seed=1)
    monkeypatch.setattr(kx, "choose_width_factor", lambda *a, **k: edge)
    result = draw_result(X, y, 20, 0, candidates=np.arange(80), test=np.arange(80), width="cv",
                         methods=("em",))
    assert bool(result["em_at_bound"]) and float(result["em_factor"]) == 0.35


def test_width_study_measures_each_criterions_regret_against_the_test_best_width():
    X, y = two_clusters(60, seed=2)
    X = X + np.random.default_rng(1).normal(scale=1.0, size=X.shape)
    study = kx.width_study(X, y, sizes=[12], seeds=[0, 1], factors=(2.0, 1.0, 0.5, 0.25),
                           progress=False)
    for method in ("em", "med"):
        regret = study.regret(method)
        assert regret.shape == (1, 2, len(kx.STUDY_CRITERIA)) and np.all(regret >= 0)
        # the rule's column is the learning curve at the rule's width, on the same draws
        rule = learning_curves(X, y, sizes=[12], seeds=[0, 1], methods=(method,),
                               progress=False).errors(method)
        np.testing.assert_allclose(study.table[f"{method}_chosen_error"][..., -1], rule)
        assert np.all(study.table[f"{method}_chosen"][..., -1] == 1.0)
        mean = study.regret(method).mean(axis=(0, 1))
        assert kx.supported_criteria([study], method) == tuple(
            c for c, r in zip(kx.STUDY_CRITERIA, mean, strict=True) if r == mean.min())
        np.testing.assert_allclose(kx.pooled_regret([study, study], method), mean)
    lines = kx.format_width_study(study).splitlines()
    assert len(lines) == 2 + 2 * len(kx.STUDY_CRITERIA) and "L=12" in lines[1]


def test_a_fixed_width_factor_is_the_rule_scaled_for_both_methods():
    X, y = two_clusters()
    options = {"sizes": [6], "seeds": [0, 1], "methods": ("em", "med"), "progress": False}
    rule = learning_curves(X, y, width="rule", **options)
    same = learning_curves(X, y, width=1.0, **options)
    half = learning_curves(X, y, width=0.5, **options)
    chosen = learning_curves(X, y, width="cv", **options)  # the default criteria
    for m in ("em", "med"):
        np.testing.assert_array_equal(same.errors(m), rule.errors(m))
        assert np.all(half.table[f"{m}_factor"] == 0.5)
    np.testing.assert_array_equal(chosen.errors("em"), rule.errors("em"))  # EM keeps the rule
    assert np.all(chosen.table["em_factor"] == 1.0) and "med_at_bound" in chosen.table
    for bad in ("wide", 0, -1.0, True, float("nan")):
        with pytest.raises(ValueError, match="width must be 'rule', 'cv' or a factor > 0"):
            learning_curves(X, y, width=bad, **options)
    with pytest.raises(ValueError, match="factor must be a finite number > 0"):
        learning_curves(X, y, width="cv", factors=(1.0, 0.0), **options)


def test_learning_curves_are_cached_and_printed():
    X, y = two_clusters()
    curves = learning_curves(X, y, sizes=[2, 6], seeds=[0, 1], progress=False)
    again = learning_curves(X, y, sizes=[2, 6], seeds=[0, 1], progress=False)
    np.testing.assert_array_equal(curves.errors("em"), again.errors("em"))
    assert curves.errors("svm").shape == (2, 2)
    table = format_table(curves, ("em", "svm"))
    assert table.splitlines()[1].split()[0] == "2" and "±" in table
    share, kkt, gap = med_convergence(curves)
    assert 0 <= share <= 1 and kkt >= 0 and gap >= -1e-9
    with pytest.raises(ValueError, match="method must be one of"):
        curves.errors("nb")


def test_error_plots_draw_a_line_per_method():
    X, y = two_clusters()
    table = {f"{m}_error": np.full((2, 3), 0.1 * (i + 1)) for i, m in enumerate(kx.METHODS)}
    curves = Curves(np.array([2, 6]), np.arange(3), table)
    ax = Figure().subplots()
    artists = plot_error_curves(ax, curves, ["em", "svm"], title="t", scale=34)
    np.testing.assert_allclose(artists["svm"]["line"].get_ydata(), [0.5 * 34] * 2)
    fit = exponential_check(np.array([2, 4, 8]), np.array([0.3, 0.2, 0.1]), 0.05)
    drawn = plot_semilog_check(Figure().subplots(), [2, 4, 8], [0.3, 0.2, 0.1], fit, label="EM")
    np.testing.assert_allclose(drawn["points"].get_ydata(), [0.25, 0.15, 0.05])


def test_expansion_explorer_refits_replays_and_exports():
    X, y = toy_problem(120, seed=0)
    explorer = expansion_explorer(X, y, resolution=30)
    assert explorer.last_error is None
    slider = explorer.controls["iteration"]
    assert slider.value == slider.max  # the end of the slider shows the fit's last iteration
    title = explorer.figure.axes[0].get_title()
    last = int(title.split(" of ")[1].split(":")[0])
    assert f"iteration {last} of {last}" in title
    slider.value = 0  # replay the trace's first record: P(y|i) = 1/2, every point undecided
    assert explorer.last_error is None
    assert f"iteration 0 of {last}" in explorer.figure.axes[0].get_title()
    explorer.controls["method"].value = "med"
    explorer.controls["balanced"].value = False
    explorer.controls["sigma"].value = 0.3
    assert explorer.last_error is None
    title = explorer.figure.axes[0].get_title()
    assert "MED (plain), σ = 0.3" in title
    last = int(title.split(" of ")[1].split(":")[0])
    assert slider.max == last and f"iteration {min(slider.value, last)} of {last}" in title
    assert_exports(explorer)


def test_curves_explorer_switches_experiment_and_size():
    table = {f"{m}_error": np.full((2, 3), 0.1) for m in kx.METHODS}
    curves = {"a": Curves(np.array([2, 6]), np.arange(3), table),
              "b": Curves(np.array([2, 6]), np.arange(3), table)}
    explorer = curves_explorer(curves, size=2, scales={"b": 34})
    explorer.controls["experiment"].value = "b"
    explorer.controls["n_labeled"].value = 6
    explorer.controls["plain"].value = False
    assert explorer.last_error is None
    assert explorer.figure.axes[0].get_ylabel() == "test errors (of 34)"
    assert len(explorer.figure.axes[0].get_lines()) == 3 + 1  # em, med, svm + the size marker
    explorer.controls["plain"].value = True  # equal curves: plain EM wide and under plain MED
    lines = {line.get_label(): line for line in explorer.figure.axes[0].get_lines()}
    em_plain, med_plain = lines[kx.LABELS["em_plain"]], lines[kx.LABELS["med_plain"]]
    assert em_plain.get_linewidth() > 2 * med_plain.get_linewidth()
    assert em_plain.get_zorder() < med_plain.get_zorder()
    legend = explorer.figure.axes[0].get_legend()
    assert legend.get_bbox_to_anchor().y0 < explorer.figure.axes[0].get_window_extent().y0
    assert_exports(explorer)


def test_semilog_explorer_toggles_the_asymptote():
    sizes = np.array([2, 4, 6, 10, 15])
    table = {f"{m}_error": np.repeat((0.04 + 0.3 * np.exp(-0.2 * sizes))[:, None], 3, axis=1)
             for m in kx.METHODS}
    many = Curves(np.array([100]), np.arange(3), {k: np.full((1, 3), 0.04) for k in table})
    explorer = semilog_explorer(Curves(sizes, np.arange(3), table), many)
    points = explorer.figure.axes[0].get_lines()[0]
    np.testing.assert_allclose(points.get_ydata(), 0.3 * np.exp(-0.2 * sizes))
    explorer.controls["asymptote"].value = "fitted"
    assert explorer.last_error is None
    assert "fitted asymptote" in explorer.figure.axes[0].get_title()
    explorer.controls["n_labeled"].value = 4  # the line through the last four sizes only
    assert len(explorer.figure.axes[0].get_lines()[0].get_ydata()) == 4
    assert_exports(explorer)


def test_choose_svm_c_matches_choose_by_cv_interior():
    from sklearn.svm import LinearSVC

    from sslviz.tuning import MARGIN_SCORING, NEG_HINGE_LOSS, choose_by_cv_interior

    X, y = two_clusters(40, seed=3)
    X = X + np.random.default_rng(0).normal(scale=1.5, size=X.shape)  # not separable: C matters
    fast = kx.choose_svm_c(X, y, random_state=2)
    slow = choose_by_cv_interior(LinearSVC(max_iter=20_000, random_state=0), "C",
                                 kx.SVM_C_GRID, X, y, kind="C", scoring=MARGIN_SCORING,
                                 tie_break=NEG_HINGE_LOSS, random_state=2)
    assert fast.params == slow.params and fast.candidates == slow.candidates
    assert fast.extended == slow.extended and fast.at_bound == slow.at_bound
    np.testing.assert_allclose(fast.scores, slow.scores)
    assert fast.criterion == slow.criterion


def test_learning_curves_run_only_the_methods_asked_and_share_the_svm():
    X, y = two_clusters()
    full = learning_curves(X, y, sizes=[6], seeds=[0, 1], progress=False)
    some = learning_curves(X, y, sizes=[6], seeds=[0, 1], methods=("em", "svm"),
                           progress=False)
    assert some.methods == ("em", "svm") and "med_kkt" not in some.table
    np.testing.assert_array_equal(some.errors("em"), full.errors("em"))
    np.testing.assert_array_equal(some.errors("svm"), full.errors("svm"))
    assert format_table(some).splitlines()[0].split() == ["L", "em", "svm"]
    with pytest.raises(ValueError, match="method must be one of"):
        some.errors("med")
    with pytest.raises(ValueError, match="method must be one of"):
        learning_curves(X, y, sizes=[6], seeds=[0], methods=("nb",), progress=False)
    # the SVM is one job per draw whatever the width: the direct computation agrees
    direct = kx.svm_result(X, y, 6, 1, candidates=np.arange(80), test=np.arange(80))
    assert float(direct["svm_error"]) == full.errors("svm")[0, 1]
    choice = kx.choose_svm_c(X[draw_labeled(y, np.arange(80), 6, 1)],
                             y[draw_labeled(y, np.arange(80), 6, 1)], random_state=1)
    assert float(direct["svm_C"]) == choice.params["C"]
    assert bool(direct["svm_C_at_bound"]) == choice.at_bound
    # and draw_result on the shared distances equals draw_result computing them itself
    shared = draw_result(X, y, 6, 1, candidates=np.arange(80), test=np.arange(80),
                         sq=squared_distances(X, X))
    alone = draw_result(X, y, 6, 1, candidates=np.arange(80), test=np.arange(80))
    assert all(np.array_equal(shared[k], alone[k]) for k in alone)


def test_paper_scale_command_refuses_unknown_figures(capsys):
    with pytest.raises(SystemExit) as stop:
        kx.main(["figure3"])
    assert stop.value.code == 2
    assert "figures must be splice, leukemia and/or width-study" in capsys.readouterr().err


def test_toy_pictures_equal_the_expansion_computed_point_by_point():
    from sslviz.experiments.kernel_expansion import toy_pictures
    from sslviz.kernel_expansion import membership

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = (X[:, 0] > 0).astype(int)
    theta = rng.dirichlet([1, 1], size=30)
    grid, accuracy = toy_pictures(X, y, resolution=9)(theta, 0.7)
    i, j = 3, 6
    point = np.array([[grid.xs[j], grid.ys[i]]])
    np.testing.assert_allclose(grid.proba[i, j], (membership(point, X, 0.7) @ theta)[0])
    expected = np.mean(np.argmax(membership(X, X, 0.7) @ theta, axis=1) == y)
    assert accuracy == pytest.approx(expected)
