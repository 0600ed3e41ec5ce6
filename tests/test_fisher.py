"""FisherKernelNB against finite differences, closed forms and the models it is built on."""

import numpy as np
import pytest
import scipy.sparse as sp
from explorer_checks import assert_exports
from scipy.special import logsumexp
from sklearn.naive_bayes import MultinomialNB
from synthetic import topic_corpus

from sslviz.em import SemiSupervisedNB
from sslviz.fisher import (
    ANNEALING,
    FisherKernelNB,
    fisher_scores,
    log_likelihood_spherical,
    score_blocks,
    top_count_entries,
    top_entries,
)


def corpus(n_docs=120, n_words=18, n_labeled=12, seed=0):
    return topic_corpus(n_docs, n_words, n_labeled, seed)


def exact(model, X):
    return model.set_params(prune_tol=0.0, normalize=False).transform(X)


@pytest.mark.parametrize("variant", ["n-cat", "ul-cat", "ul-cl"])
def test_scores_are_finite_differences_of_the_log_likelihood(variant):
    X, _, y_semi = corpus()
    model = FisherKernelNB(variant=variant, max_iter=5, random_state=0).fit(X, y_semi)
    nb = model.nb_
    rho_prior = 2 * np.exp(0.5 * nb.component_log_prior_)
    rho_words = 2 * np.exp(0.5 * nb.component_log_prob_)
    n_components, n_words = rho_words.shape
    scores = exact(model, X[[0, 50, 99]]).toarray()
    h = 1e-6
    for row, x in zip(scores, X[[0, 50, 99]].toarray(), strict=True):
        numeric = []
        for c in range(n_components):
            step = np.zeros(n_components)
            step[c] = h
            numeric.append((log_likelihood_spherical(x, rho_prior + step, rho_words)
                            - log_likelihood_spherical(x, rho_prior - step, rho_words)) / (2 * h))
        for c in range(n_components):
            for w in range(n_words):
                step = np.zeros_like(rho_words)
                step[c, w] = h
                numeric.append((log_likelihood_spherical(x, rho_prior, rho_words + step)
                                - log_likelihood_spherical(x, rho_prior, rho_words - step))
                               / (2 * h))
        np.testing.assert_allclose(row, numeric, rtol=1e-6, atol=1e-7)


def test_kernel_is_the_closed_form_inner_product():
    """<s(x), s(x')> = Σ_c P(c|x) P(c|x') (1/P(c) + Σ_w N(w,x) N(w,x') / P(w|c))."""
    X, _, y_semi = corpus(seed=1)
    model = FisherKernelNB(variant="ul-cat", max_iter=5).fit(X, y_semi)
    scores = exact(model, X)
    kernel = (scores @ scores.T).toarray()
    post = model.nb_.predict_proba(X)
    prior, prob = np.exp(model.nb_.class_log_prior_), np.exp(model.nb_.feature_log_prob_)
    dense = X.toarray()
    expected = sum(np.outer(post[:, c], post[:, c])
                   * (1 / prior[c] + (dense / prob[c]) @ dense.T) for c in range(len(prior)))
    np.testing.assert_allclose(kernel, expected, rtol=1e-10)


def test_unit_length_sparse_and_pruning_changes_little():
    X, _, y_semi = corpus(n_docs=300, seed=2)
    model = FisherKernelNB(variant="ul-cat", max_iter=5).fit(X, y_semi)
    scores = model.transform(X)
    assert sp.issparse(scores) and scores.format == "csr"
    assert scores.shape == (300, 3 * (18 + 1)) == (300, model.n_features_out_)
    np.testing.assert_allclose(sp.linalg.norm(scores, axis=1), 1.0, rtol=1e-12)
    full = FisherKernelNB(variant="ul-cat", max_iter=5, prune_tol=0.0).fit(X, y_semi)
    full_scores = full.transform(X)
    assert scores.nnz < full_scores.nnz
    bound = np.sqrt(3) * model.prune_tol
    assert np.abs(scores - full_scores).max() <= bound
    # every row keeps its most probable component's block in full
    top = model.nb_.predict_proba(X).argmax(axis=1)
    blocks = score_blocks(scores, 3, 18)[1]
    full_blocks = score_blocks(full_scores, 3, 18)[1]
    rows = np.arange(300)
    np.testing.assert_allclose(blocks[rows, top], full_blocks[rows, top], atol=bound)
    assert np.all(np.count_nonzero(blocks[rows, top], axis=1)
                  == np.asarray((X > 0).sum(axis=1)).ravel())


def test_transform_of_unseen_documents_does_not_depend_on_the_batch():
    X, _, y_semi = corpus(seed=3)
    model = FisherKernelNB(variant="ul-cat", max_iter=5).fit(X[:80], y_semi[:80])
    new = X[80:]
    batch = model.transform(new).toarray()
    one_by_one = np.vstack([model.transform(new[i]).toarray() for i in range(new.shape[0])])
    np.testing.assert_allclose(batch, one_by_one, atol=1e-14)
    np.testing.assert_allclose(model.transform(new.toarray()).toarray(), batch)
    expected = fisher_scores(new, model.nb_.class_log_prior_, model.nb_.feature_log_prob_,
                             prune_tol=model.prune_tol)
    np.testing.assert_allclose(batch, expected.toarray())


def test_n_cat_is_multinomial_nb_on_the_labeled_rows_only():
    X, y, y_semi = corpus(seed=4)
    labeled = y_semi != -1
    model = FisherKernelNB(variant="n-cat", alpha=1.0).fit(X, y_semi)
    counts = np.bincount(y[labeled], minlength=3)
    prior = (counts + 1.0) / (counts.sum() + 3.0)
    reference = MultinomialNB(alpha=1.0, class_prior=prior).fit(X[labeled], y[labeled])
    np.testing.assert_allclose(model.nb_.feature_log_prob_, reference.feature_log_prob_)
    np.testing.assert_allclose(model.nb_.class_log_prior_, np.log(prior))
    only_labeled = FisherKernelNB(variant="n-cat").fit(X[labeled], y_semi[labeled])
    np.testing.assert_allclose(model.transform(X).toarray(), only_labeled.transform(X).toarray())
    assert model.nb_.n_iter_ == 0


def test_ul_cat_is_annealed_em_on_labeled_and_unlabeled_rows():
    X, _, y_semi = corpus(seed=5)
    model = FisherKernelNB(variant="ul-cat", max_iter=7).fit(X, y_semi)
    reference = SemiSupervisedNB(annealing=ANNEALING, max_iter=7, alpha=1.0).fit(X, y_semi)
    np.testing.assert_allclose(model.nb_.feature_log_prob_, reference.feature_log_prob_)
    assert set(model.nb_.trace_.values("beta")[1:]) == set(ANNEALING)
    plain = FisherKernelNB(variant="ul-cat", annealing=None, max_iter=7).fit(X, y_semi)
    assert set(plain.nb_.trace_.values("beta")) == {1.0}


def test_ul_cl_ignores_the_labels_and_is_seeded():
    X, y, y_semi = corpus(seed=6)
    model = FisherKernelNB(variant="ul-cl", max_iter=5, random_state=3).fit(X, y_semi)
    assert model.classes_.tolist() == [0, 1, 2]  # as many clusters as labeled classes
    relabeled = np.where(y_semi == -1, -1, (y_semi + 1) % 3)
    again = FisherKernelNB(variant="ul-cl", max_iter=5, random_state=3).fit(X, relabeled)
    np.testing.assert_array_equal(model.transform(X).toarray(), again.transform(X).toarray())
    unlabeled = FisherKernelNB(variant="ul-cl", n_clusters=3, max_iter=5,
                               random_state=3).fit(X, np.full_like(y, -1))
    np.testing.assert_array_equal(model.transform(X).toarray(),
                                  unlabeled.transform(X).toarray())
    other_seed = FisherKernelNB(variant="ul-cl", max_iter=5, random_state=4).fit(X, y_semi)
    assert not np.allclose(other_seed.nb_.feature_log_prob_, model.nb_.feature_log_prob_)
    five = FisherKernelNB(variant="ul-cl", n_clusters=5, max_iter=5).fit(X, y_semi)
    assert five.transform(X).shape == (X.shape[0], 5 * 19)


def test_ul_cl_clusters_line_up_with_well_separated_topics():
    X, y, y_semi = corpus(seed=6)
    purity = []
    for seed in range(4):
        model = FisherKernelNB(variant="ul-cl", n_clusters=5, random_state=seed).fit(X, y_semi)
        clusters = model.nb_.predict(X)
        purity.append(sum(np.bincount(y[clusters == k]).max() for k in np.unique(clusters)))
    assert np.mean(purity) / len(y) > 0.9


def test_feature_names():
    X, _, y_semi = corpus()
    model = FisherKernelNB(variant="n-cat").fit(X, y_semi)
    words = [f"w{i}" for i in range(18)]
    names = model.get_feature_names_out(words)
    assert names[:3].tolist() == ["rho[0]", "rho[1]", "rho[2]"]
    assert names[3] == "rho[w0|0]" and names[3 + 18 + 5] == "rho[w5|1]"
    assert len(names) == model.n_features_out_
    with pytest.raises(ValueError, match="input_features has 2 names; the model has 18"):
        model.get_feature_names_out(["a", "b"])


@pytest.mark.parametrize("params, y_change, message", [
    ({"variant": "linear"}, None,
     r"variant must be one of \['n-cat', 'ul-cat', 'ul-cl'\], got 'linear'"),
    ({"prune_tol": 1.0}, None, r"prune_tol must be a finite number >= 0 < 1, got 1.0"),
    ({"variant": "ul-cl", "n_clusters": 0}, None,
     "n_clusters must be an integer >= 1, got 0"),
    ({"variant": "ul-cl", "n_clusters": True}, None, "n_clusters must be an integer >= 1"),
    ({"variant": "ul-cat"}, "unlabeled",
     "variant 'ul-cat' needs labeled rows \\(y != -1\\), but every entry of y is -1; "
     "use variant='ul-cl'"),
    ({"variant": "n-cat"}, "unlabeled", "variant 'n-cat' needs labeled rows"),
    ({"variant": "ul-cl"}, "unlabeled", "variant 'ul-cl' with no labeled rows needs n_clusters"),
    ({}, "none",
     "FisherKernelNB requires y to be passed, but the target y is None: pass class labels"),
])
def test_bad_input(params, y_change, message):
    X, _, y_semi = corpus()
    y = {None: y_semi, "unlabeled": np.full_like(y_semi, -1), "none": None}[y_change]
    with pytest.raises(ValueError, match=message):
        FisherKernelNB(**params).fit(X, y)


def test_bad_documents():
    X, _, y_semi = corpus()
    model = FisherKernelNB(variant="n-cat").fit(X, y_semi)
    with pytest.raises(ValueError, match="X has 5 features, but FisherKernelNB is expecting 18"):
        model.transform(X[:, :5])
    with pytest.raises(ValueError, match="Negative values in data passed to FisherKernelNB"):
        model.transform(-X[:3])
    with pytest.raises(ValueError, match=r"scores have 10 columns, not 3 × \(18 \+ 1\)"):
        score_blocks(sp.csr_matrix((2, 10)), 3, 18)


def test_unfitted():
    from sklearn.exceptions import NotFittedError

    X, _, _ = corpus()
    with pytest.raises(NotFittedError, match="This FisherKernelNB instance is not fitted yet"):
        FisherKernelNB().transform(X)


def test_spherical_log_likelihood_is_the_mixture_likelihood():
    rng = np.random.default_rng(0)
    prior = rng.dirichlet(np.ones(3))
    prob = rng.dirichlet(np.ones(6), size=3)
    x = rng.poisson(2, 6)
    expected = logsumexp(np.log(prior) + np.log(prob) @ x)
    assert log_likelihood_spherical(x, 2 * np.sqrt(prior), 2 * np.sqrt(prob)) == pytest.approx(
        expected, rel=1e-12)


# -- SemiSupervisedNB(init="random"): the clustering EM behind "ul-cl" ----------------------------
def test_random_init_is_an_m_step_on_random_responsibilities():
    X, _, _ = corpus(seed=7)
    y = np.full(X.shape[0], -1)
    model = SemiSupervisedNB(init="random", classes=[0, 1, 2, 3], max_iter=0, alpha=0.5,
                             random_state=11).fit(X, y)
    resp = np.random.RandomState(11).random_sample((X.shape[0], 4)) + 1e-3
    resp /= resp.sum(axis=1, keepdims=True)
    counts = X.T @ resp
    expected_prob = (counts + 0.5) / (counts.sum(axis=0) + 0.5 * X.shape[1])
    expected_prior = (resp.sum(axis=0) + 0.5) / (resp.sum() + 4 * 0.5)
    np.testing.assert_allclose(model.feature_log_prob_, np.log(expected_prob.T))
    np.testing.assert_allclose(model.class_log_prior_, np.log(expected_prior))
    assert model.classes_.tolist() == [0, 1, 2, 3]


def test_random_init_keeps_labeled_rows_in_their_class():
    X, y, y_semi = corpus(seed=8)
    labeled = y_semi != -1
    model = SemiSupervisedNB(init="random", max_iter=0, alpha=1.0, random_state=0)
    model.fit(X[labeled], y_semi[labeled])
    reference = SemiSupervisedNB(max_iter=0, alpha=1.0).fit(X[labeled], y_semi[labeled])
    np.testing.assert_allclose(model.feature_log_prob_, reference.feature_log_prob_)
    # a class named in `classes` but never labeled is allowed with init="random"
    SemiSupervisedNB(init="random", classes=[0, 1, 2, 3], max_iter=2).fit(X, y_semi)


def test_labeled_init_is_unchanged_by_the_new_option():
    X, _, y_semi = corpus(seed=9)
    a = SemiSupervisedNB(max_iter=4, n_components=2, random_state=5).fit(X, y_semi)
    b = SemiSupervisedNB(max_iter=4, n_components=2, random_state=5, init="labeled").fit(X,
                                                                                        y_semi)
    np.testing.assert_array_equal(a.component_log_prob_, b.component_log_prob_)


@pytest.mark.parametrize("params, message", [
    ({"init": "kmeans"}, "init must be 'labeled' or 'random', got 'kmeans'"),
    ({"init": "random"}, r"no labeled rows: every entry of y is -1.*pass init='random' and "
                         r"classes=<the cluster names>"),
    ({}, "no labeled rows: every entry of y is -1"),
])
def test_random_init_errors(params, message):
    X, y, _ = corpus()
    with pytest.raises(ValueError, match=message):
        SemiSupervisedNB(**params).fit(X, np.full_like(y, -1))


# -- explorers (Lecture 06), driven from code ------------------------------------------------------
def hand_grid(methods, unlabeled_sizes, seed, *, largest_only=()):
    """A FisherGrid with known accuracies: sizes 10, 20, 40; two splits.

    Labeled-only methods repeat along the unlabeled axis, ``largest_only`` methods are NaN below
    the largest unlabeled size: what fisher_grid returns.
    """
    from sslviz.experiments.fisher import LABELED_ONLY_METHODS, FisherGrid

    rng = np.random.default_rng(seed)
    shape = (3, len(unlabeled_sizes), 2, len(methods))
    accuracy = rng.uniform(0.2, 0.9, shape)
    for m, method in enumerate(methods):
        if method in LABELED_ONLY_METHODS:
            accuracy[:, :, :, m] = accuracy[:, -1:, :, m]
        if method in largest_only:
            accuracy[:, :-1, :, m] = np.nan
    return FisherGrid(np.array([10, 20, 40]), np.array(unlabeled_sizes), np.array([0, 1]),
                      tuple(methods), accuracy, np.ones(shape))


@pytest.fixture
def grid():
    from sslviz.experiments.fisher import FISHER_METHODS

    return hand_grid(FISHER_METHODS, [50, 100, 300], seed=0, largest_only=("tsvm",))


def lines_by_label(ax):
    return {line.get_label(): line for line in ax.lines}


def mean(grid, method, i=slice(None), j=slice(None)):
    """Mean over splits (%) of one method, like FisherGrid.table / unlabeled_curve."""
    return grid.accuracy[i, j, :, grid.methods.index(method)].mean(axis=-1) * 100


def test_table_explorer_replays_the_grid(grid):
    from sslviz.experiments.fisher import FISHER_METHOD_NAMES
    from sslviz.widgets.fisher import fisher_table_explorer

    explorer = fisher_table_explorer(grid, size=20)
    assert explorer.last_error is None and explorer.main == "n_labeled"
    slider = explorer.controls["n_labeled"]
    assert slider.value != slider.options[-1]
    offered = [value for _, value in explorer.controls["variant"].options]
    assert offered == ["ul-cat", "ul-cl", "nb+em", "n-cat"]  # not the TSVM: largest size only
    left, right = explorer.figure.axes
    lines = lines_by_label(left)
    for method in grid.methods:
        np.testing.assert_allclose(lines[FISHER_METHOD_NAMES[method]].get_ydata(),
                                   mean(grid, method, j=2))
    assert lines["SVM (ul-cat)"].get_linewidth() > lines["SVM (linear)"].get_linewidth()
    # readable from the back of a room: one paper line at a time (the highlighted method's),
    # the paper's own values, and a legend of at least 12 pt
    paper_lines = [line for line in left.lines
                   if line.get_linestyle() == ":" and line.get_marker() == "o"]
    assert [line.get_visible() for line in paper_lines].count(True) == 1
    shown = next(line for line in paper_lines if line.get_visible())
    assert shown.get_color() == lines["SVM (ul-cat)"].get_color() and shown.get_alpha() is None
    np.testing.assert_array_equal(shown.get_ydata(), [30.0, 46.9, 53.3, 61.1, 71.0, 79.0, 85.4])
    assert len(paper_lines) == len(grid.methods) - 1  # none for the tf-idf SVM
    assert all(text.get_fontsize() >= 12 for text in left.get_legend().get_texts())
    curve_lines, point, reference = right.lines[:3], right.lines[3], right.lines[4]
    np.testing.assert_allclose(curve_lines[1].get_ydata(), mean(grid, "ul-cat", i=1))
    assert point.get_xdata()[0] == 300
    np.testing.assert_allclose(point.get_ydata()[0], mean(grid, "ul-cat", 1, 2))
    np.testing.assert_allclose(reference.get_ydata()[0], mean(grid, "linear", 1, 2))

    explorer.controls["n_unlabeled"].value = 50
    explorer.controls["variant"].value = "ul-cl"
    explorer.controls["n_labeled"].value = 40
    assert explorer.last_error is None
    assert explorer.caption.value == "n_labeled=40, n_unlabeled=50, variant=ul-cl"
    np.testing.assert_allclose(lines["SVM (ul-cl)"].get_ydata(), mean(grid, "ul-cl", j=0))
    np.testing.assert_allclose(lines["TSVM (linear)"].get_ydata(),  # run at 300 only: stays
                               mean(grid, "tsvm", j=2))
    np.testing.assert_allclose(curve_lines[2].get_ydata(), mean(grid, "ul-cl", i=2))
    visible = [line for line in paper_lines if line.get_visible()]
    assert len(visible) == 1 and visible[0].get_color() == lines["SVM (ul-cl)"].get_color()
    assert curve_lines[2].get_linewidth() > curve_lines[0].get_linewidth()
    np.testing.assert_allclose(point.get_ydata()[0], mean(grid, "ul-cl", 2, 0))
    np.testing.assert_allclose(reference.get_ydata()[0], mean(grid, "linear", 2, 2))

    explorer.controls["variant"].value = "n-cat"  # labeled only: flat over unlabeled sizes
    np.testing.assert_allclose(curve_lines[2].get_ydata(), [mean(grid, "n-cat", 2, 2)] * 3)


def test_table_explorer_exports_and_rejects_grids_without_curves(grid):

    from sslviz.widgets.fisher import fisher_table_explorer

    explorer = fisher_table_explorer(grid, size=10, variant="nb+em")
    assert_exports(explorer, "06_fisher_kernel-table")
    no_curves = hand_grid(("ul-cat", "tsvm"), [50, 100], seed=2, largest_only=("ul-cat", "tsvm"))
    with pytest.raises(ValueError, match="no method has results at every labeled and unlabeled "
                                         "size; run fisher_grid with unlabeled_methods"):
        fisher_table_explorer(no_curves, size=10)
    backwards = hand_grid(("ul-cat",), [100, 50], seed=2)
    with pytest.raises(ValueError, match=r"unlabeled sizes must increase, got \[100, 50\]"):
        fisher_table_explorer(backwards, size=10)


@pytest.fixture(scope="module")
def text_corpus():
    from sslviz.text import CountCorpus

    X, y, _ = topic_corpus(n_docs=240, n_words=24, seed=3)
    return CountCorpus(X, y, ["alpha", "beta", "gamma"],
                       np.array([f"word{i:02d}" for i in range(24)]),
                       np.array([f"d{i}" for i in range(240)]))


def test_document_explorer_shows_the_scores_of_the_post(text_corpus):
    from sslviz.experiments.fisher import FisherSettings, fisher_models_by_variant, paper_test_folds
    from sslviz.widgets.fisher import fisher_document_explorer

    folds = paper_test_folds(text_corpus.y, n_folds=4)
    models = fisher_models_by_variant(text_corpus.X, text_corpus.y, n_labeled=9, n_unlabeled=100,
                                      test_rows=folds[0], seed=0,
                                      settings=FisherSettings(max_iter=5))
    explorer = fisher_document_explorer(text_corpus, models, document=3, k=5)
    assert explorer.last_error is None and explorer.main == "document"
    explorer.controls["document"].value = 7
    assert explorer.last_error is None
    split, model = models("ul-cat")
    row = folds[0][7]
    x = text_corpus.X[row]
    post_ax, counts_ax, score_ax = explorer.figure.axes
    np.testing.assert_allclose([bar.get_width() for bar in post_ax.patches],
                               model.nb_.predict_proba(x)[0])
    expected_counts = top_count_entries(x, text_corpus.vocabulary, 5)
    np.testing.assert_allclose([bar.get_width() for bar in counts_ax.patches],
                               [v for _, _, v in expected_counts])
    dense = x.toarray().ravel()
    np.testing.assert_allclose(sorted(dense / np.linalg.norm(dense))[::-1][:5],
                               [v for _, _, v in expected_counts])
    entries = top_entries(model.transform(x), ["alpha", "beta", "gamma"],
                          text_corpus.vocabulary, 5)
    np.testing.assert_allclose([bar.get_width() for bar in score_ax.patches],
                               [v for _, _, v in entries])
    texts = [t.get_text() for t in score_ax.texts]
    assert texts == [f"ρ[{['alpha', 'beta', 'gamma'][c]}]" if w is None
                     else f"{w} | {['alpha', 'beta', 'gamma'][c]}" for c, w, _ in entries]
    assert f"test post 7 (corpus row {row})" in explorer.figure._suptitle.get_text()

    explorer.controls["variant"].value = "ul-cl"
    assert explorer.last_error is None
    assert [t.get_text() for t in post_ax.get_yticklabels()] == [f"cluster {c}"
                                                                 for c in range(3)]
    assert_exports(explorer)


def test_document_explorer_fits_the_other_variants_in_the_background(text_corpus):
    import threading

    from sslviz._memo import Once
    from sslviz.experiments.fisher import FisherSettings, fisher_models_by_variant, paper_test_folds
    from sslviz.widgets.fisher import fisher_document_explorer

    folds = paper_test_folds(text_corpus.y, n_folds=4)
    models = fisher_models_by_variant(text_corpus.X, text_corpus.y, n_labeled=9, n_unlabeled=100,
                                      test_rows=folds[0], seed=0,
                                      settings=FisherSettings(max_iter=5))
    fits = []

    def fit(variant):
        fits.append((variant, threading.current_thread().name))
        return models(variant)

    explorer = fisher_document_explorer(text_corpus, Once(fit), variant="ul-cl")
    assert explorer.ahead.wait(120)  # the class looks at the first post meanwhile
    assert sorted(fits) == sorted([("ul-cl", threading.main_thread().name),
                                   ("ul-cat", "sslviz-ahead"), ("n-cat", "sslviz-ahead")])
    for variant in ("n-cat", "ul-cat", "ul-cl"):
        explorer.controls["variant"].value = variant
        assert explorer.last_error is None
    assert len(fits) == 3  # every visit found its model ready: no fit on a visit
    assert explorer.caption.value.endswith("variant=ul-cl")


def test_top_entries_name_every_part_of_the_score():
    X, _, y_semi = corpus()
    model = FisherKernelNB(variant="ul-cat", max_iter=5).fit(X, y_semi)
    vocabulary = [f"w{i}" for i in range(18)]
    row = model.transform(X[4])
    entries = top_entries(row, ["a", "b", "c"], vocabulary, k=100)
    dense = row.toarray().ravel()
    assert len(entries) == row.nnz
    for c, word, value in entries:
        column = c if word is None else 3 + c * 18 + vocabulary.index(word)
        assert dense[column] == value
    assert [v for _, _, v in entries] == sorted(dense[dense > 0])[::-1]
    with pytest.raises(ValueError, match=r"expected one score row of 3 × \(18 \+ 1\) columns"):
        top_entries(model.transform(X[:2]), ["a", "b", "c"], vocabulary)
    with pytest.raises(ValueError, match="expected one row of 18 counts"):
        top_count_entries(X[:2], vocabulary)


def test_scores_leave_an_unsorted_input_untouched():
    """scipy shares index arrays with dtype conversions and sorts some in place: copy first."""
    X, _, y_semi = corpus()
    model = FisherKernelNB(variant="ul-cat", max_iter=3).fit(X, y_semi)
    row = X[5].tocoo()
    order = np.argsort(-row.col)  # the same row with its columns stored in reverse order
    unsorted = sp.csr_matrix((row.data[order].astype(np.int64), row.col[order],
                              [0, len(order)]), shape=(1, 18))
    assert not unsorted.has_sorted_indices
    indices, data = unsorted.indices.copy(), unsorted.data.copy()
    nb = model.nb_
    first = fisher_scores(unsorted, nb.class_log_prior_, nb.feature_log_prob_,
                          prune_tol=model.prune_tol).toarray()
    np.testing.assert_array_equal(unsorted.indices, indices)
    np.testing.assert_array_equal(unsorted.data, data)
    np.testing.assert_allclose(model.transform(unsorted).toarray(), first, atol=1e-15)
    np.testing.assert_allclose(first, model.transform(X[5]).toarray(), atol=1e-15)


def test_huge_counts_still_give_unit_rows():
    """Huge counts, whose squared block lengths (1e150) or entries (1e300) overflow: every row
    still has unit length (issue 22; it was 0). At 1e150 the unnormalized scores are finite and
    numpy normalizes them; at 1e300 the posteriors are as one-hot as at 1e150, so the unit rows
    are the same."""
    X, _, y_semi = corpus(n_docs=60)
    nb = FisherKernelNB(variant="n-cat").fit(X, y_semi).nb_
    params = (nb.class_log_prior_, nb.feature_log_prob_)
    raw = fisher_scores(X * 1e150, *params, normalize=False).toarray()
    assert np.all(np.isfinite(raw))
    peak = np.abs(raw).max(axis=1, keepdims=True)
    expected = (raw / peak) / np.linalg.norm(raw / peak, axis=1, keepdims=True)
    for scale in (1e150, 1e300):
        scores = fisher_scores(X * scale, *params)
        assert np.all(np.isfinite(scores.data))
        np.testing.assert_allclose(sp.linalg.norm(scores, axis=1), 1.0, rtol=1e-12)
        np.testing.assert_allclose(scores.toarray(), expected, rtol=1e-12, atol=1e-15)
    model = FisherKernelNB(variant="n-cat").fit(X * 1e300, y_semi)
    np.testing.assert_allclose(sp.linalg.norm(model.transform(X * 1e300), axis=1), 1.0,
                               rtol=1e-12)


def test_counts_whose_log_likelihood_overflows_are_refused_by_name():
    X, _, y_semi = corpus(n_docs=60)
    model = FisherKernelNB(variant="n-cat").fit(X, y_semi)
    X = sp.csr_matrix(X, dtype=float, copy=True)
    X.data[:] = 1e307  # finite counts, but a document's log-likelihood is below -1.8e308
    with pytest.raises(ValueError, match=r"^X holds counts too large \(up to 1e\+307\) for a "
                                         r"document's log-likelihood to be finite"):
        model.transform(X)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"normalize": "no"}, r"^normalize must be True or False, got 'no'$"),
    ({"annealing": "fast"}, r"^annealing must be an increasing sequence .*got 'fast'$"),
    ({"variant": "n-cat", "n_clusters": 0}, r"^n_clusters must be an integer >= 1, got 0$"),
])
def test_parameters_are_refused_by_name(kwargs, message):
    X, _, y_semi = corpus(n_docs=30)
    with pytest.raises(ValueError, match=message):
        FisherKernelNB(**kwargs).fit(X, y_semi)


def test_tiny_counts_still_give_unit_rows():
    """Counts scaled by 1e-300 (issue 32: rows of zeros, from dividing the prior part by the
    tiny peak count): a document that small is as good as empty, its posterior is the prior, so
    its unit score is √P(c) on the prior entries, as it already is at 1e-150."""
    X, _, y_semi = corpus(n_docs=60)
    model = FisherKernelNB(variant="n-cat").fit(X, y_semi)
    moderate = model.transform(X * 1e-150).toarray()
    tiny = model.transform(X * 1e-300).toarray()
    np.testing.assert_allclose(np.linalg.norm(tiny, axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(tiny, moderate, atol=1e-15)
    root_prior = np.exp(0.5 * model.nb_.component_log_prior_)
    np.testing.assert_allclose(tiny[:, :len(root_prior)], np.tile(root_prior, (60, 1)),
                               rtol=1e-12)
    raw = exact(model, X * 1e-300)
    assert np.all(np.isfinite(raw.data))
    np.testing.assert_allclose(raw[:, :len(root_prior)].toarray(), np.tile(root_prior, (60, 1)),
                               rtol=1e-12)
