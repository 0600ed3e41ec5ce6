"""Lecture 09's studies beside the tables: MLR/MER over its whole λ grid, Figure 2 (test
perplexity of Naive Bayes) and the paper-scale command (``python -m sslviz.experiments hybrid``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.model_selection import cross_validate
from sklearn.naive_bayes import MultinomialNB

from .. import cli
from ..cache import data_digest
from ..em import SemiSupervisedNB
from ..entropy_reg import EntropyRegularizedLR
from ..hybrid import HybridNB, class_word_counts, leave_one_out_log_likelihoods
from ..threads import one_thread
from ..tuning import (
    ALPHA_GRID,
    Choice,
    best_index,
    held_out_log_likelihood,
    labeled_folds,
)
from ..validation import check_choice
from .hybrid import (
    CORPORA,
    EM_WEIGHTS,
    LABELED_SELECTION,
    MER_FOLDS,
    MER_WEIGHTS,
    PAPER_N_SEEDS,
    PAPER_SCALE_SELECTION,
    PAPER_SIZES,
    RESULT_VERSION,
    SELECTIONS,
    TABLE_EDGE,
    choose_on_labeled,
    evaluation_split,
    hybrid_alpha,
    hybrid_table,
    labeled_columns,
    labels_loo_alpha,
    load_hybrid_corpus,
    lr_features,
    mer_text,
    mlr_c,
    nb_alpha,
    normalization_text,
    table_text,
)
from .hybrid_results import (
    DEFAULT_SELECTION,
    RERUN_HINT,
    RESULTS_FILE,
    check_readme,
    current_summary,
    load_corpora,
    projection_text,
    read_results,
    recheck,
    results_text,
    run_command,
    selection_projection_text,
    update_readme,
    write_results,
)
from .runner import run_jobs


# -- MLR/MER on its own: every λ of the grid, one job per (seed, λ) ----------------------------
@one_thread()
def mer_point(X, y, n_labeled, seed, weight, *, test_rows=None, n_test=None, n_unlabeled,
              selection=LABELED_SELECTION):
    """MLR/MER at one λ on one evaluation set: exactly what :func:`evaluate_split` computes for
    that λ (MLR's C by cv, then the :data:`MER_FOLDS`-fold cv log-likelihood that chooses λ, the
    cv accuracy beside it, the test accuracy, the unlabeled rows' class shares), so that the λ
    grid can be spread over processes."""
    split = evaluation_split(y, n_labeled, seed, test_rows=test_rows, n_test=n_test,
                             n_unlabeled=n_unlabeled)
    F_train, y_train = lr_features(X[split.train]), split.semi_supervised_targets(y)
    seen = labeled_columns(F_train, y_train)
    C = mlr_c(F_train[:, seen], y_train, seed, selection).value
    template = EntropyRegularizedLR(C=C, entropy_weight=weight, record="summary")
    # the folds and score of choose_on_labeled (so λ is chosen as the table chooses it), and
    # the accuracy of the same fits
    folds = labeled_folds(y_train, MER_FOLDS, random_state=seed, include_unlabeled=True,
                          allow_unstratified=True)
    cv = cross_validate(template, F_train, y_train, cv=folds, error_score=-np.inf,
                        scoring={"loglik": held_out_log_likelihood, "accuracy": "accuracy"})
    model = clone(template).fit(F_train, y_train)
    test = float(np.mean(model.predict(lr_features(X[split.test])) == y[split.test]))
    n_classes = int(y.max()) + 1
    shares = np.full(n_classes, np.nan)
    shares[model.classes_] = model.trace_[-1].unlabeled_shares
    return {"C": np.float64(C), "cv_score": np.float64(cv["test_loglik"].mean()),
            "cv_accuracy": np.float64(cv["test_accuracy"].mean()),
            "test_accuracy": np.float64(test), "shares": shares}


@dataclass(frozen=True)
class MerStudy:
    """Results of :func:`mer_study`: MLR/MER at every λ of ``weights`` on several seeds."""

    corpus: str
    n_labeled: int
    weights: tuple
    seeds: np.ndarray
    C: np.ndarray  # (n_seeds,)
    cv_score: np.ndarray  # (n_seeds, n_weights) cv log-likelihood per labeled row (chooses λ)
    cv_accuracy: np.ndarray  # (n_seeds, n_weights) cv accuracy of the same fits
    test_accuracy: np.ndarray  # (n_seeds, n_weights)
    shares: np.ndarray  # (n_seeds, n_weights, n_classes): unlabeled rows per predicted class

    @property
    def chosen_index(self):
        """Index of the λ chosen by cv log-likelihood per seed (ties: the middle one)."""
        return np.array([best_index(scores) for scores in self.cv_score])

    @property
    def chosen(self):
        """λ chosen by cross-validation per seed, shape (n_seeds,)."""
        return np.asarray(self.weights)[self.chosen_index]

    @property
    def chosen_accuracy(self):
        """Test accuracy at the cross-validated λ, shape (n_seeds,)."""
        return self.test_accuracy[np.arange(len(self.seeds)), self.chosen_index]


def mer_study(corpus, *, n_labeled, seeds, weights=MER_WEIGHTS, use_cache=True, n_jobs=None,
              progress=True, selection=LABELED_SELECTION):
    """MLR/MER on one corpus and labeled-set size: every λ of ``weights`` on every seed, one
    cached job per (seed, λ) (:func:`mer_point`). With the paper's grid, ``chosen`` and
    ``chosen_accuracy`` are what :func:`evaluate_split` reports for MLR/MER, unless the table
    extended the grid past an end (the study's choice is then that end)."""
    seeds, weights = np.asarray(seeds, dtype=int), tuple(float(w) for w in weights)
    jobs = [{"n_labeled": int(n_labeled), "seed": int(seed), "weight": w,
             "selection": check_choice("selection", selection, SELECTIONS)}
            for seed in seeds for w in weights]
    results = _corpus_jobs(mer_point, jobs, corpus, kind="hybrid-mer",
                           description=f"MLR/MER ({corpus.name})", use_cache=use_cache,
                           n_jobs=n_jobs, progress=progress)

    def stack(name):
        values = np.array([r[name] for r in results])
        return values.reshape(len(seeds), len(weights), *values.shape[1:])

    return MerStudy(corpus.name, int(n_labeled), weights, seeds, stack("C")[:, 0],
                    stack("cv_score"), stack("cv_accuracy"), stack("test_accuracy"),
                    stack("shares"))


def mer_study_text(study):
    """Per seed: C, the λ chosen by cv and its test accuracy, the test-picked (optimistic)
    accuracy; then per λ the mean cv and test accuracy and the largest class's share."""
    lines = [f"{study.corpus}, {study.n_labeled} labeled: MLR/MER over the λ grid, "
             f"{len(study.seeds)} evaluation sets"]
    for i, seed in enumerate(study.seeds):
        lines.append(f"  set {seed}: C={study.C[i]:g}, λ by cv {study.chosen[i]:g} -> "
                     f"{study.chosen_accuracy[i]:.1%} test; λ picked on test (optimistic) "
                     f"{study.test_accuracy[i].max():.1%}; λ=1e-5 {study.test_accuracy[i, 0]:.1%}")
    largest = np.nanmax(study.shares, axis=2)
    lines.append(f"{'λ':>22} " + " ".join(f"{w:>6g}" for w in study.weights))
    lines.append(f"{'cv log-lik (mean)':>22} " + " ".join(f"{v:>6.3f}"
                                                         for v in study.cv_score.mean(0)))
    for label, values in (("cv accuracy (mean)", study.cv_accuracy.mean(0)),
                          ("test accuracy (mean)", study.test_accuracy.mean(0)),
                          ("largest share (mean)", largest.mean(0)),
                          ("largest share (max)", largest.max(0))):
        lines.append(f"{label:>22} " + " ".join(f"{v:>6.1%}" for v in values))
    return "\n".join(lines)


# -- which leave-one-out likelihood chooses α ----------------------------------------------------
def words_loo_log_likelihood(X, y, alpha):
    """``Σ_n log P(x_n | y_n, θ^(−n))``: the leave-one-out likelihood of the labeled documents'
    *words* under their own class (multinomial coefficients left out), where
    :func:`sslviz.tuning.loo_log_likelihood` scores their *labels*, ``Σ_n log P(y_n | x_n)``."""
    classes, y_index = np.unique(np.asarray(y), return_inverse=True)
    counts = class_word_counts(X, y_index, len(classes))
    loo = leave_one_out_log_likelihoods(X, y_index, counts, alpha)
    return float(loo[np.arange(len(y_index)), y_index].sum())


def choose_alpha_by_words(X, y, *, grid=ALPHA_GRID):
    """NB's α maximising :func:`words_loo_log_likelihood` on the labeled rows (``y >= 0``)."""
    labeled = np.asarray(y) >= 0
    scores = np.array([words_loo_log_likelihood(X[labeled], np.asarray(y)[labeled], alpha)
                       for alpha in grid])
    candidates = [{"alpha": float(alpha)} for alpha in grid]
    choice = Choice(candidates[best_index(scores)], candidates, scores,
                    "leave-one-out likelihood of the words")
    return choice.acknowledge_edge(TABLE_EDGE) if choice.at_bound else choice


@one_thread()
def alpha_point(X, y, n_labeled, seed, *, test_rows=None, n_test=None, n_unlabeled,
                selection=LABELED_SELECTION):
    """HybridNB, EM-λ and NB on one evaluation set with α chosen by each leave-one-out
    likelihood: of the labels (:func:`.hybrid.labels_loo_alpha`, the paper-scale file's) and of
    the words (:func:`.hybrid.hybrid_alpha`, the lecture's tables'); EM-λ with each α, its λ by
    5-fold cv log-likelihood as in the paper-scale file (edge choices acknowledged). Arrays of
    shape (2,) in that order: ``alpha``, ``hybrid``, ``em`` and ``nb`` test accuracy,
    ``em_weight``; and ``hybrid_weights`` (2, 2)."""
    split = evaluation_split(y, n_labeled, seed, test_rows=test_rows, n_test=n_test,
                             n_unlabeled=n_unlabeled)
    X_train, y_train = X[split.train], split.semi_supervised_targets(y)
    X_test, y_test = X[split.test], y[split.test]
    words = (choose_alpha_by_words if selection == PAPER_SCALE_SELECTION else hybrid_alpha)
    alphas = (labels_loo_alpha(X_train, y_train).value, words(X_train, y_train).value)
    hybrid, em, em_weights, nb, weights = [], [], [], [], []
    for alpha in alphas:
        model = HybridNB(alpha=alpha).fit(X_train, y_train)
        hybrid.append(np.mean(model.predict(X_test) == y_test))
        weights.append(model.weights_)
        em_template = SemiSupervisedNB(alpha=alpha, max_iter=10, record="summary")
        em_weights.append(choose_on_labeled(
            em_template, {"unlabeled_weight": list(EM_WEIGHTS)}, X_train, y_train,
            random_state=seed, semi_supervised=True).acknowledge_edge(TABLE_EDGE).value)
        em_model = clone(em_template).set_params(unlabeled_weight=em_weights[-1])
        em.append(np.mean(em_model.fit(X_train, y_train).predict(X_test) == y_test))
        nb_model = MultinomialNB(alpha=alpha).fit(X[split.labeled], y[split.labeled])
        nb.append(np.mean(nb_model.predict(X_test) == y_test))
    return {"alpha": np.array(alphas), "hybrid": np.array(hybrid), "em": np.array(em),
            "em_weight": np.array(em_weights), "nb": np.array(nb),
            "hybrid_weights": np.array(weights)}


@dataclass(frozen=True)
class AlphaStudy:
    """Results of :func:`alpha_study`, arrays of shape (n_sizes, n_seeds, 2): the last axis is
    α by the labels' / the words' leave-one-out likelihood."""

    corpus: str
    sizes: np.ndarray
    seeds: np.ndarray
    alpha: np.ndarray
    hybrid: np.ndarray
    em: np.ndarray
    nb: np.ndarray
    hybrid_weights: np.ndarray  # (n_sizes, n_seeds, 2, 2)


def alpha_study(corpus, *, sizes, seeds, use_cache=True, n_jobs=None, progress=True,
                selection=LABELED_SELECTION):
    """:func:`alpha_point` at every size and seed of one corpus (cached jobs); ``selection``
    names how the words' α is chosen (:func:`alpha_point`)."""
    sizes, seeds = np.asarray(sizes, dtype=int), np.asarray(seeds, dtype=int)
    check_choice("selection", selection, SELECTIONS)
    jobs = [{"n_labeled": int(s), "seed": int(seed), "selection": selection}
            for s in sizes for seed in seeds]
    results = _corpus_jobs(alpha_point, jobs, corpus, kind="hybrid-alpha-em",
                           description=f"α criteria ({corpus.name})", use_cache=use_cache,
                           n_jobs=n_jobs, progress=progress)

    def stack(name):
        values = np.array([r[name] for r in results])
        return values.reshape(len(sizes), len(seeds), *values.shape[1:])

    return AlphaStudy(corpus.name, sizes, seeds, stack("alpha"), stack("hybrid"), stack("em"),
                      stack("nb"), stack("hybrid_weights"))


def alpha_study_text(study):
    """Per size and set: both α, and the hybrid's, EM-λ's and NB's test accuracy under each."""
    lines = [f"{study.corpus}: α by the leave-one-out likelihood of the labels / of the words"]
    for i, size in enumerate(study.sizes):
        for j, seed in enumerate(study.seeds):
            a, h = study.alpha[i, j], study.hybrid[i, j] * 100
            e, n = study.em[i, j] * 100, study.nb[i, j] * 100
            lines.append(f"{size:>6} set {seed}: α {a[0]:g} / {a[1]:g}   hybrid {h[0]:5.1f} / "
                         f"{h[1]:5.1f}   EM-λ {e[0]:5.1f} / {e[1]:5.1f}   NB {n[0]:5.1f} / "
                         f"{n[1]:5.1f}")
    return "\n".join(lines)


# -- Figure 2: test perplexity of Naive Bayes ---------------------------------------------------
def test_perplexity(X_train, y_train, X_test, y_test, alpha, *, n_classes):
    """Eq. 11: exp(−Σ_s Σ_i x_si log θ_{y_s,i} / Σ_s Σ_i x_si) of the NB word distributions."""
    model = MultinomialNB(alpha=alpha).fit(X_train, y_train)
    log_theta = np.full((n_classes, X_train.shape[1]), np.nan)
    log_theta[model.classes_] = model.feature_log_prob_
    # Σ_s Σ_i x_si log θ_{y_s,i} over the nonzero counts only (a dense (n_test, n_words) table
    # of log θ_{y_s} would hold hundreds of megabytes)
    coo = sp.coo_matrix(X_test)
    total = np.sum(coo.data * log_theta[np.asarray(y_test)[coo.row], coo.col])
    return float(np.exp(-total / coo.data.sum()))


def perplexity_point(X, y, n_train, seed, *, test_rows=None, n_test=None, n_unlabeled,
                     giant_share=0.01, selection=LABELED_SELECTION):
    """Test perplexity of NB trained on ``n_train`` labeled documents (α by
    :func:`.hybrid.hybrid_alpha`, as the tables' NB), on every test document and without
    the longest ``giant_share`` of them."""
    split = evaluation_split(y, n_train, seed, test_rows=test_rows, n_test=n_test,
                             n_unlabeled=n_unlabeled)
    X_lab, y_lab = X[split.labeled], y[split.labeled]
    alpha = nb_alpha(X_lab, y_lab, selection).value
    X_test, y_test = X[split.test], y[split.test]
    lengths = np.asarray(X_test.sum(axis=1)).ravel()
    n_giant = int(np.ceil(giant_share * len(lengths)))
    keep = np.argsort(lengths)[: len(lengths) - n_giant]
    n_classes = int(y.max()) + 1
    return {"perplexity": np.array([
        test_perplexity(X_lab, y_lab, X_test, y_test, alpha, n_classes=n_classes),
        test_perplexity(X_lab, y_lab, X_test[keep], y_test[keep], alpha, n_classes=n_classes)]),
        "giant_token_share": np.float64(1 - lengths[keep].sum() / lengths.sum()),
        "alpha": np.float64(alpha)}


@dataclass(frozen=True)
class PerplexityCurve:
    corpus: str
    sizes: np.ndarray
    perplexity: np.ndarray  # (n_sizes, n_seeds, 2): all test documents, without giant ones
    giant_token_share: float  # share of test tokens in the longest 1% of test documents
    alpha: np.ndarray  # (n_sizes, n_seeds) NB's α
    n_words: int  # vocabulary size V (a uniform word distribution has perplexity V)

    @property
    def relative(self):
        """Mean perplexity over seeds divided by V, shape (n_sizes, 2)."""
        return self.perplexity.mean(axis=1) / self.n_words


def perplexity_curve(corpus, *, sizes, seeds, use_cache=True, n_jobs=None, progress=True,
                     selection=LABELED_SELECTION):
    """Figure 2 for one corpus: NB test perplexity against the number of training documents
    (NB's α as the tables' under ``selection``)."""
    sizes, seeds = np.asarray(sizes, dtype=int), np.asarray(seeds, dtype=int)
    check_choice("selection", selection, SELECTIONS)
    jobs = [{"n_train": int(s), "seed": int(seed), "selection": selection}
            for s in sizes for seed in seeds]
    results = _corpus_jobs(perplexity_point, jobs, corpus, kind="hybrid-perplexity",
                           description=f"Figure 2 ({corpus.name})", use_cache=use_cache,
                           n_jobs=n_jobs, progress=progress)
    perplexity = np.array([r["perplexity"] for r in results]).reshape(len(sizes), len(seeds), 2)
    share = float(np.mean([r["giant_token_share"] for r in results]))
    alpha = np.array([r["alpha"] for r in results]).reshape(len(sizes), len(seeds))
    return PerplexityCurve(corpus.name, sizes, perplexity, share, alpha, int(corpus.X.shape[1]))


# -- the paper-scale command ---------------------------------------------------------------------
@cli.command
def main(argv=None):
    """``python -m sslviz.experiments hybrid table | perplexity | summary | recheck | projection
    [options]`` (paper scale)."""
    parser = cli.Parser(
        prog="python -m sslviz.experiments hybrid",
        description="Tables 1-3 (table) or Figure 2 (perplexity) of Fujino, Ueda & Saito "
        "(2005) at paper scale: all labeled-set sizes, 10 evaluation sets. Cached per job; an "
        "interrupted run resumes. 'summary' computes nothing: it writes what the cache holds "
        f"of the tables to {RESULTS_FILE.relative_to(RESULTS_FILE.parents[2])} (table does "
        "too, at its end), which the lecture and the README show, each selection apart. "
        "'projection' computes nothing either: the CPU time per job of a selection's jobs (the "
        "file's and this machine's cache) and the projected whole run on 1, 2, 8 and 32 "
        "workers.")
    parser.add_argument("command", choices=["table", "perplexity", "summary", "recheck",
                                            "projection"])
    parser.add_argument("--corpora", nargs="+", choices=list(CORPORA), default=list(CORPORA))
    parser.add_argument("--sizes", type=int, nargs="+",
                        help="labeled-set sizes (default: the paper's)")
    parser.add_argument("--seeds", type=cli.seed, nargs="+", default=list(range(PAPER_N_SEEDS)))
    parser.add_argument("--n-jobs", type=cli.n_jobs, default=-1)
    parser.add_argument("--no-cache", action="store_true")
    parser.add_argument("--selection", choices=list(SELECTIONS), default=DEFAULT_SELECTION,
                        help="how the settings are chosen (default: the one the results file "
                        f"first held, {DEFAULT_SELECTION!r}); summary, recheck and projection "
                        "read that selection's sets")
    parser.add_argument("--readme", metavar="FILE",
                        help="summary: also rewrite the paper-scale table in this README with "
                        "the sets of --selection (the block names the selection it shows)")
    args = parser.parse_args(argv)
    if any(size < 1 for size in args.sizes or []) or args.n_jobs == 0:
        parser.error("--sizes must be positive and --n-jobs nonzero")
    if args.readme and args.command not in ("summary", "table"):
        parser.error("--readme goes with summary or table (which ends in a summary)")
    _check_outputs(args)  # before any corpus loads
    start = time.perf_counter()
    if args.command == "summary":
        return _summary(args.readme, args.selection)
    if args.command == "recheck":
        return _recheck(args.n_jobs, args.selection)
    if args.command == "projection":
        print(selection_projection_text(current_summary(load_corpora(), args.selection)))
        return 0
    for name in args.corpora:
        corpus = load_hybrid_corpus(name)
        if args.command == "table":
            table = hybrid_table(corpus, sizes=args.sizes or PAPER_SIZES[name], seeds=args.seeds,
                                 use_cache=not args.no_cache, n_jobs=args.n_jobs,
                                 selection=args.selection)
            print(table_text(table), normalization_text(table), mer_text(table), sep="\n\n",
                  flush=True)
        else:
            curve = perplexity_curve(corpus, sizes=args.sizes or PERPLEXITY_SIZES[name],
                                     seeds=args.seeds, use_cache=not args.no_cache,
                                     n_jobs=args.n_jobs)
            print(perplexity_text(curve), flush=True)
    print(f"wall time {time.perf_counter() - start:.0f} s")
    if args.command == "table" and not args.no_cache:
        _summary(args.readme, args.selection)
    return 0


def _check_outputs(args):
    """Refuse, before any slow work, a results file or README the command could not write."""
    if args.command in ("summary", "recheck") or (args.command == "table"
                                                  and not args.no_cache):
        cli.writable_file(RESULTS_FILE, option="the results file")
    if args.readme:
        check_readme(args.readme)


def _recheck(n_jobs, selection=DEFAULT_SELECTION):
    """Re-run the smallest cell of each corpus; record today's code only if nothing moved."""
    summary = read_results(selection=selection)
    if summary is None:
        raise cli.UsageError(f"no sets of the selection {selection!r} in {RESULTS_FILE}: run "
                             f"`{run_command(selection)}` first")
    names = [name for name, entry in summary["corpora"].items() if entry["sizes"]]
    differences = recheck(summary, {name: load_hybrid_corpus(name) for name in names},
                          n_jobs=n_jobs)
    if differences:
        print("today's code computes other numbers; the results file is unchanged:",
              *differences, f"To update it: {RERUN_HINT}", sep="\n")
        return 1
    print(f"the smallest cell of {', '.join(names)} is the same with today's code; "
          f"{RESULTS_FILE.name} now records it")
    return 0


def _summary(readme=None, selection=DEFAULT_SELECTION):
    """Write ``selection``'s entry of the results file from the cache (all corpora, the paper's
    sizes and sets, whatever ``--sizes`` and ``--seeds`` ran) and print it with the projection;
    with ``readme``, rewrite that file's table too."""
    summary = write_results(load_corpora(), RESULTS_FILE, selection=selection)
    if readme:
        update_readme(readme, summary)
    print(results_text(summary), projection_text(summary), f"written: {RESULTS_FILE}",
          sep="\n\n")
    return 0


PERPLEXITY_SIZES = {"reuters": (10, 30, 100, 300, 985), "webkb": (10, 30, 100, 300, 699),
                    "20news": (10, 30, 100, 300, 1000, 1391)}


def perplexity_text(curve):
    """Figure 2 as text: mean perplexity over seeds, with and without the giant test documents,
    the same divided by the vocabulary size V, and NB's α per seed."""
    lines = [f"{curve.corpus}: V = {curve.n_words:,} words; NB test perplexity (all test "
             f"documents / without the longest 1%, which hold {curve.giant_token_share:.0%} of "
             "the test tokens), then divided by V"]
    for size, values, relative, alpha in zip(curve.sizes, curve.perplexity.mean(axis=1),
                                             curve.relative, curve.alpha, strict=True):
        lines.append(f"{size:>6} training documents: {values[0]:>7.0f} / {values[1]:>7.0f}   "
                     f"/V: {relative[0]:.3f} / {relative[1]:.3f}   α "
                     + " ".join(f"{a:g}" for a in alpha))
    return "\n".join(lines)



def _corpus_jobs(function, jobs, corpus, *, kind, description, use_cache, n_jobs, progress):
    """``run_jobs`` over one corpus: its arrays shared with every job, its digest in every key."""
    digest = data_digest(corpus.X, corpus.y, -1 if corpus.test_rows is None else corpus.test_rows)
    return run_jobs(
        function, jobs, kind=kind,
        key=lambda job: {"data": digest, "n_test": corpus.n_test, "version": RESULT_VERSION,
                         "n_unlabeled": corpus.n_unlabeled, **job},
        shared={"X": corpus.X, "y": corpus.y, "test_rows": corpus.test_rows,
                "n_test": corpus.n_test, "n_unlabeled": corpus.n_unlabeled},
        use_cache=use_cache, n_jobs=n_jobs, progress=progress, description=description)
