"""Lecture 09's studies beside the tables: MLR/MER over its whole λ grid, Figure 2 (test
perplexity of Naive Bayes) and the paper-scale command (``python -m sslviz.experiments hybrid``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import MultinomialNB

from .. import cli
from ..cache import data_digest
from ..entropy_reg import EntropyRegularizedLR
from ..tuning import choose_alpha
from .hybrid import (
    C_GRID,
    CACHE_VERSION,
    CORPORA,
    MER_FOLDS,
    MER_WEIGHTS,
    PAPER_N_SEEDS,
    PAPER_SIZES,
    choose_on_labeled,
    evaluation_split,
    hybrid_table,
    labeled_columns,
    load_hybrid_corpus,
    lr_features,
    mer_text,
    normalization_text,
    table_text,
)
from .runner import run_jobs


# -- MLR/MER on its own: every λ of the grid, one job per (seed, λ) ----------------------------
def mer_point(X, y, n_labeled, seed, weight, *, test_rows=None, n_test=None, n_unlabeled):
    """MLR/MER at one λ on one evaluation set: exactly what :func:`evaluate_split` computes for
    that λ (MLR's C by cv, then the :data:`MER_FOLDS`-fold cv accuracy, the test accuracy, the
    unlabeled rows' class shares), so that the λ grid can be spread over processes."""
    split = evaluation_split(y, n_labeled, seed, test_rows=test_rows, n_test=n_test,
                             n_unlabeled=n_unlabeled)
    F_train, y_train = lr_features(X[split.train]), split.semi_supervised_targets(y)
    seen = labeled_columns(F_train, y_train)
    C = choose_on_labeled(LogisticRegression(fit_intercept=False, max_iter=1000),
                          {"C": list(C_GRID)}, F_train[:, seen], y_train,
                          random_state=seed).value
    template = EntropyRegularizedLR(C=C, entropy_weight=weight, record="summary")
    cv = choose_on_labeled(template, {"entropy_weight": [weight]}, F_train, y_train,
                           cv=MER_FOLDS, random_state=seed, semi_supervised=True).scores[0]
    model = clone(template).fit(F_train, y_train)
    test = float(np.mean(model.predict(lr_features(X[split.test])) == y[split.test]))
    n_classes = int(y.max()) + 1
    shares = np.full(n_classes, np.nan)
    shares[model.classes_] = model.trace_[-1].unlabeled_shares
    return {"C": np.float64(C), "cv_accuracy": np.float64(cv), "test_accuracy": np.float64(test),
            "shares": shares}


@dataclass(frozen=True)
class MerStudy:
    """Results of :func:`mer_study`: MLR/MER at every λ of ``weights`` on several seeds."""

    corpus: str
    n_labeled: int
    weights: tuple
    seeds: np.ndarray
    C: np.ndarray  # (n_seeds,)
    cv_accuracy: np.ndarray  # (n_seeds, n_weights)
    test_accuracy: np.ndarray  # (n_seeds, n_weights)
    shares: np.ndarray  # (n_seeds, n_weights, n_classes): unlabeled rows per predicted class

    @property
    def chosen(self):
        """λ chosen by cross-validation per seed (ties to the smaller λ), shape (n_seeds,)."""
        return np.asarray(self.weights)[np.argmax(self.cv_accuracy, axis=1)]

    @property
    def chosen_accuracy(self):
        """Test accuracy at the cross-validated λ, shape (n_seeds,)."""
        return self.test_accuracy[np.arange(len(self.seeds)), np.argmax(self.cv_accuracy, axis=1)]


def mer_study(corpus, *, n_labeled, seeds, weights=MER_WEIGHTS, use_cache=True, n_jobs=None,
              progress=True):
    """MLR/MER on one corpus and labeled-set size: every λ of ``weights`` on every seed, one
    cached job per (seed, λ) (:func:`mer_point`). With the paper's grid, ``chosen`` and
    ``chosen_accuracy`` are what :func:`evaluate_split` reports for MLR/MER."""
    seeds, weights = np.asarray(seeds, dtype=int), tuple(float(w) for w in weights)
    jobs = [{"n_labeled": int(n_labeled), "seed": int(seed), "weight": w}
            for seed in seeds for w in weights]
    results = _corpus_jobs(mer_point, jobs, corpus, kind="hybrid-mer",
                           description=f"MLR/MER ({corpus.name})", use_cache=use_cache,
                           n_jobs=n_jobs, progress=progress)

    def stack(name):
        values = np.array([r[name] for r in results])
        return values.reshape(len(seeds), len(weights), *values.shape[1:])

    return MerStudy(corpus.name, int(n_labeled), weights, seeds, stack("C")[:, 0],
                    stack("cv_accuracy"), stack("test_accuracy"), stack("shares"))


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
    for label, values in (("cv accuracy (mean)", study.cv_accuracy.mean(0)),
                          ("test accuracy (mean)", study.test_accuracy.mean(0)),
                          ("largest share (mean)", largest.mean(0)),
                          ("largest share (max)", largest.max(0))):
        lines.append(f"{label:>22} " + " ".join(f"{v:>6.1%}" for v in values))
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
                     giant_share=0.01):
    """Test perplexity of NB trained on ``n_train`` labeled documents (α by the evidence), on
    every test document and without the longest ``giant_share`` of them."""
    split = evaluation_split(y, n_train, seed, test_rows=test_rows, n_test=n_test,
                             n_unlabeled=n_unlabeled)
    X_lab, y_lab = X[split.labeled], y[split.labeled]
    alpha = choose_alpha(X_lab, y_lab, method="evidence").value
    X_test, y_test = X[split.test], y[split.test]
    lengths = np.asarray(X_test.sum(axis=1)).ravel()
    n_giant = int(np.ceil(giant_share * len(lengths)))
    keep = np.argsort(lengths)[: len(lengths) - n_giant]
    n_classes = int(y.max()) + 1
    return {"perplexity": np.array([
        test_perplexity(X_lab, y_lab, X_test, y_test, alpha, n_classes=n_classes),
        test_perplexity(X_lab, y_lab, X_test[keep], y_test[keep], alpha, n_classes=n_classes)]),
        "giant_token_share": np.float64(1 - lengths[keep].sum() / lengths.sum())}


@dataclass(frozen=True)
class PerplexityCurve:
    corpus: str
    sizes: np.ndarray
    perplexity: np.ndarray  # (n_sizes, n_seeds, 2): all test documents, without giant ones
    giant_token_share: float  # share of test tokens in the longest 1% of test documents


def perplexity_curve(corpus, *, sizes, seeds, use_cache=True, n_jobs=None, progress=True):
    """Figure 2 for one corpus: NB test perplexity against the number of training documents."""
    sizes, seeds = np.asarray(sizes, dtype=int), np.asarray(seeds, dtype=int)
    jobs = [{"n_train": int(s), "seed": int(seed)} for s in sizes for seed in seeds]
    results = _corpus_jobs(perplexity_point, jobs, corpus, kind="hybrid-perplexity",
                           description=f"Figure 2 ({corpus.name})", use_cache=use_cache,
                           n_jobs=n_jobs, progress=progress)
    perplexity = np.array([r["perplexity"] for r in results]).reshape(len(sizes), len(seeds), 2)
    share = float(np.mean([r["giant_token_share"] for r in results]))
    return PerplexityCurve(corpus.name, sizes, perplexity, share)


# -- the paper-scale command ---------------------------------------------------------------------
@cli.command
def main(argv=None):
    """``python -m sslviz.experiments.hybrid table | perplexity [options]`` (paper scale)."""
    parser = cli.Parser(
        prog="python -m sslviz.experiments hybrid",
        description="Tables 1-3 (table) or Figure 2 (perplexity) of Fujino, Ueda & Saito "
        "(2005) at paper scale: all labeled-set sizes, 10 evaluation sets. Cached per job; an "
        "interrupted run resumes.")
    parser.add_argument("command", choices=["table", "perplexity"])
    parser.add_argument("--corpora", nargs="+", choices=list(CORPORA), default=list(CORPORA))
    parser.add_argument("--sizes", type=int, nargs="+",
                        help="labeled-set sizes (default: the paper's)")
    parser.add_argument("--seeds", type=cli.seed, nargs="+", default=list(range(PAPER_N_SEEDS)))
    parser.add_argument("--n-jobs", type=cli.n_jobs, default=-1)
    parser.add_argument("--no-cache", action="store_true")
    args = parser.parse_args(argv)
    if any(size < 1 for size in args.sizes or []) or args.n_jobs == 0:
        parser.error("--sizes must be positive and --n-jobs nonzero")
    start = time.perf_counter()
    for name in args.corpora:
        corpus = load_hybrid_corpus(name)
        if args.command == "table":
            table = hybrid_table(corpus, sizes=args.sizes or PAPER_SIZES[name], seeds=args.seeds,
                                 use_cache=not args.no_cache, n_jobs=args.n_jobs)
            print(table_text(table), normalization_text(table), mer_text(table), sep="\n\n",
                  flush=True)
        else:
            curve = perplexity_curve(corpus, sizes=args.sizes or PERPLEXITY_SIZES[name],
                                     seeds=args.seeds, use_cache=not args.no_cache,
                                     n_jobs=args.n_jobs)
            print(perplexity_text(curve), flush=True)
    print(f"wall time {time.perf_counter() - start:.0f} s")
    return 0


PERPLEXITY_SIZES = {"reuters": (10, 30, 100, 300, 985), "webkb": (10, 30, 100, 300, 699),
                    "20news": (10, 30, 100, 300, 1000, 1391)}


def perplexity_text(curve):
    """Figure 2 as text: mean perplexity over seeds, with and without the giant test documents."""
    lines = [f"{curve.corpus}: NB test perplexity (all test documents / without the longest 1%, "
             f"which hold {curve.giant_token_share:.0%} of the test tokens)"]
    for size, values in zip(curve.sizes, curve.perplexity.mean(axis=1), strict=True):
        lines.append(f"{size:>6} training documents: {values[0]:>7.0f} / {values[1]:>7.0f}")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())


def _corpus_jobs(function, jobs, corpus, *, kind, description, use_cache, n_jobs, progress):
    """``run_jobs`` over one corpus: its arrays shared with every job, its digest in every key."""
    digest = data_digest(corpus.X, corpus.y, -1 if corpus.test_rows is None else corpus.test_rows)
    return run_jobs(
        function, jobs, kind=kind,
        key=lambda job: {"data": digest, "n_test": corpus.n_test, "version": CACHE_VERSION,
                         "n_unlabeled": corpus.n_unlabeled, **job},
        shared={"X": corpus.X, "y": corpus.y, "test_rows": corpus.test_rows,
                "n_test": corpus.n_test, "n_unlabeled": corpus.n_unlabeled},
        use_cache=use_cache, n_jobs=n_jobs, progress=progress, description=description)
