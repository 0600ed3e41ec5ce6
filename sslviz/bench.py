"""Benchmarks: one EM iteration of :class:`~sslviz.em.SemiSupervisedNB` against its floor; the
explorers' latency (``python -m sslviz.bench explorers``, in :mod:`sslviz.bench_explorers`); the
lectures' cold and warm run times (``python -m sslviz.bench notebooks``, in
:mod:`sslviz.bench_notebooks`).

``python -m sslviz.bench em [--repeat N] [--subset all] [--stop-words smart]`` loads the full
20 Newsgroups as word counts (:func:`sslviz.text.load_counts`, cached), draws a stratified labeled
set of 100 documents (the rest unlabeled) and times, side by side in one run,

* the **floor**: the two sparse-dense products that one iteration cannot avoid,
  ``X @ log_theta.T`` (E-step) and ``X.T @ R`` (M-step), with ``X.T`` converted to CSR once, as
  EM does; and, for information, the same with the E-step product taken through the CSC view
  ``XT.T`` (:func:`floor_iteration_csc`), which is faster;
* **SemiSupervisedNB**: one iteration (E-step + M-step + trace record), measured as the time the
  :meth:`~sslviz.em.SemiSupervisedNB.iter_fit` generator takes to go from one yielded record to
  the next, with ``record="summary"`` and with ``record="full"``;
* **scikit-learn alone**: what a user would write for one EM iteration without this package:
  ``MultinomialNB`` fitted on the rows of ``X`` stacked once per class (``scipy.sparse.vstack``,
  built once outside the timing) with the posteriors as sample weights, then ``predict_proba``.

Times are wall-clock medians over ``repeat`` rounds after one warm-up round; the table also shows
the minima and the median CPU time of the calling thread (which a busy machine barely changes).
Each contender runs in its own phase, so that what one leaves behind is not billed to the next:
EM's BLAS calls can leave an OpenBLAS thread spinning on the other core for tens of milliseconds,
and EM with a full trace takes fresh memory at every iteration. Ratios use the wall medians and EM
with ``record="summary"``; the targets: EM / floor <= 1.3 and scikit-learn / EM >= 10.

Cost: one iteration is O(nnz(X) × n_classes); the scikit-learn path touches ``n_classes`` copies of
``X`` (about 37 million stored counts on 20 Newsgroups) and takes about half a second per
iteration there.
"""

from __future__ import annotations

import functools
import sys
import time

import numpy as np
import scipy.sparse as sp
from sklearn.naive_bayes import MultinomialNB

from . import cli
from .em import SemiSupervisedNB
from .splits import UNLABELED, split_labeled
from .validation import check_int

__all__ = [
    "floor_iteration",
    "floor_iteration_csc",
    "format_em_table",
    "main",
    "repeat_per_class",
    "run_em_benchmark",
    "sklearn_em_iteration",
]


# -- the contenders ------------------------------------------------------------------------------
def floor_iteration(X, XT, log_theta, R):
    """The two products of one EM iteration and nothing else.

    Parameters
    ----------
    X : csr_matrix of shape (n_samples, n_features), float64
    XT : csr_matrix of shape (n_features, n_samples)
        ``X.T.tocsr()``, computed once.
    log_theta : ndarray of shape (n_classes, n_features)
        log P(w|c).
    R : ndarray of shape (n_samples, n_classes)
        Responsibilities (weighted posteriors).

    Returns
    -------
    word_log_likelihood : ndarray of shape (n_samples, n_classes)
        Σ_w N(w,x) log P(w|c): add the log prior to get the E-step's joint log-likelihood.
    word_counts : ndarray of shape (n_features, n_classes)
        Σ_x R(x,c) N(w,x): the M-step's expected word counts (before smoothing).
    """
    return np.asarray(X @ log_theta.T), np.asarray(XT @ R)


def floor_iteration_csc(XT, log_theta, R):
    """:func:`floor_iteration` with the E-step product taken through ``XT.T``, a CSC view of X.

    The same numbers (up to summation order). ``X @ log_theta.T`` on CSR gathers one row of the
    (n_features, n_classes) array ``log_theta.T`` per stored count, all over memory; the CSC view
    reads ``log_theta.T`` once, in order, and scatters into the much smaller (n_samples,
    n_classes) result, which stays in cache. On 20 Newsgroups this product is several times
    faster, so this is the lower floor an implementation could reach.
    """
    return np.asarray(XT.T @ log_theta.T), np.asarray(XT @ R)


def repeat_per_class(X, n_classes):
    """``X`` stacked ``n_classes`` times, with labels ``0..n_classes-1`` per block.

    Returns
    -------
    X_rep : csr_matrix of shape (n_classes * n_samples, n_features)
    y_rep : ndarray of shape (n_classes * n_samples,)
    """
    X_rep = sp.vstack([X] * n_classes, format="csr")
    y_rep = np.repeat(np.arange(n_classes), X.shape[0])
    return X_rep, y_rep


def sklearn_em_iteration(X, R, *, alpha, X_rep, y_rep, labels=None):
    """One EM iteration written with scikit-learn alone.

    M-step: ``MultinomialNB`` fitted on ``X_rep`` (from :func:`repeat_per_class`) with the
    responsibilities ``R`` as sample weights and the class prior smoothed by ``alpha`` (as
    :class:`~sslviz.em.SemiSupervisedNB` does; ``MultinomialNB`` would not smooth it). E-step:
    ``predict_proba`` on ``X``, then labeled rows reset to their labels.

    Parameters
    ----------
    X : sparse matrix of shape (n_samples, n_features)
    R : ndarray of shape (n_samples, n_classes)
        Posteriors P(c|x) of the previous iteration (one-hot on labeled rows).
    alpha : float
    X_rep, y_rep : output of ``repeat_per_class(X, n_classes)``
    labels : ndarray of shape (n_samples,) or None
        Class index of each labeled row, ``-1`` on unlabeled rows; ``None``: no row is reset.

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
        The new posteriors.
    """
    n_classes = R.shape[1]
    prior = (R.sum(axis=0) + alpha) / (R.sum() + n_classes * alpha)
    weights = np.ravel(R, order="F")  # block c of X_rep is weighted by column c of R
    model = MultinomialNB(alpha=alpha, class_prior=prior)
    model.fit(X_rep, y_rep, sample_weight=weights)
    posteriors = model.predict_proba(X)
    if labels is not None:
        labeled = np.flatnonzero(labels != UNLABELED)
        posteriors[labeled] = 0.0
        posteriors[labeled, labels[labeled]] = 1.0
    return posteriors


# -- the benchmark -------------------------------------------------------------------------------
def run_em_benchmark(X, y, *, n_labeled=100, alpha=0.1, seed=0, repeat=5, warmup=1,
                     sklearn=True, progress=None):
    """Time one EM iteration against the floor and against scikit-learn (see module docstring).

    Parameters
    ----------
    X : sparse matrix of shape (n_documents, n_words)
        Word counts.
    y : ndarray of shape (n_documents,)
        Class of every document; ``n_labeled`` of them are kept (stratified, seeded), the rest
        become unlabeled.
    n_labeled : int, default=100
    alpha : float, default=0.1
    seed : int, default=0
        Seed of the split.
    repeat : int, default=5
        Timed rounds; every reported time is the median over them.
    warmup : int, default=1
        Untimed rounds first.
    sklearn : bool, default=True
        Also time the scikit-learn path (about half a second per round on 20 Newsgroups).
    progress : callable or None
        Called with a short message before each round (e.g. ``print``).

    Returns
    -------
    dict
        ``floor_ms``, ``floor_csc_ms``, ``em_summary_ms``, ``em_full_ms``, ``sklearn_ms`` (``nan``
        when skipped), ``em_over_floor`` (summary EM / floor), ``em_over_floor_csc`` (the same
        against :func:`floor_iteration_csc`), ``sklearn_over_em`` (scikit-learn / summary EM),
        ``min_ms`` and ``cpu_ms`` (dicts of the wall minima and of the median CPU times of the
        calling thread, keyed ``floor``, ``floor_csc``, ``em_summary``, ``em_full``,
        ``sklearn``), ``times`` (per key, an array of shape (repeat, 2): wall and CPU seconds of
        every timed round) and the problem's sizes.
    """
    repeat = check_int("repeat", repeat, minimum=1)
    warmup = check_int("warmup", warmup, minimum=0)
    y = np.asarray(y)
    split = split_labeled(y, n_labeled, random_state=seed)
    X_train = sp.csr_matrix(X[split.train], dtype=np.float64)
    classes, y_index = np.unique(y, return_inverse=True)
    y_semi = np.concatenate([y_index[split.labeled], np.full(len(split.unlabeled), UNLABELED)])
    n_classes = len(classes)

    # The start every contender works from: the supervised model (EM's iteration 0). The floor
    # uses the model's own log P(w|c) array (same shape, dtype and memory layout).
    start = SemiSupervisedNB(alpha=alpha, max_iter=0, record="summary").fit(X_train, y_semi)
    log_theta = start.feature_log_prob_
    R = start.predict_proba(X_train)
    labeled = np.flatnonzero(y_semi != UNLABELED)
    R[labeled] = 0.0
    R[labeled, y_semi[labeled]] = 1.0
    XT = X_train.T.tocsr()

    def em_iterations(record):
        # tol=0: stop only at an exact fixed point, so every round gets an iteration.
        model = SemiSupervisedNB(alpha=alpha, max_iter=warmup + repeat + 1, tol=0.0,
                                 record=record)
        generator = model.iter_fit(X_train, y_semi)
        next(generator)  # iteration 0
        next(generator)  # iteration 1: its gap also holds the E-step that opens an EM stage
        return generator

    def rounds(name, contenders):
        """Run the contenders one after the other, ``warmup + repeat`` times; keep timed rounds.

        Returns {key: (wall seconds, CPU seconds of this thread)} per timed round.
        """
        times = {key: [] for key in contenders}
        for round_ in range(warmup + repeat):
            if progress is not None:
                kind = "warm-up" if round_ < warmup else "timed"
                progress(f"{name}: round {round_ + 1}/{warmup + repeat} ({kind})")
            for key, call in contenders.items():
                elapsed = _seconds(call)
                if round_ >= warmup:
                    times[key].append(elapsed)
        return times

    # One phase per contender (see the module docstring); the two floors, which call
    # scipy.sparse only, alternate within theirs.
    times = rounds("floor", {
        "floor": lambda: floor_iteration(X_train, XT, log_theta, R),
        "floor_csc": lambda: floor_iteration_csc(XT, log_theta, R),
    })
    for record in ("summary", "full"):
        generator = em_iterations(record)
        times.update(rounds(f"EM ({record})", {f"em_{record}": functools.partial(next,
                                                                                 generator)}))
        generator.close()
    times["sklearn"] = []
    if sklearn:
        X_rep, y_rep = repeat_per_class(X_train, n_classes)
        times.update(rounds("scikit-learn", {
            "sklearn": lambda: sklearn_em_iteration(X_train, R, alpha=alpha, X_rep=X_rep,
                                                    y_rep=y_rep, labels=y_semi),
        }))

    def summarize(statistic, column):
        return {key: 1e3 * float(statistic([t[column] for t in values])) if values
                else float("nan") for key, values in times.items()}

    ms, best, cpu = summarize(np.median, 0), summarize(np.min, 0), summarize(np.median, 1)
    return {
        "n_samples": X_train.shape[0],
        "n_features": X_train.shape[1],
        "nnz": int(X_train.nnz),
        "n_classes": n_classes,
        "n_labeled": len(labeled),
        "alpha": alpha,
        "repeat": repeat,
        "warmup": warmup,
        "floor_ms": ms["floor"],
        "floor_csc_ms": ms["floor_csc"],
        "em_summary_ms": ms["em_summary"],
        "em_full_ms": ms["em_full"],
        "sklearn_ms": ms["sklearn"],
        "em_over_floor": ms["em_summary"] / ms["floor"],
        "em_over_floor_csc": ms["em_summary"] / ms["floor_csc"],
        "sklearn_over_em": ms["sklearn"] / ms["em_summary"],
        "min_ms": best,
        "cpu_ms": cpu,
        "times": {key: np.asarray(values).reshape(-1, 2) for key, values in times.items()},
    }


def _seconds(function):
    """(wall seconds, CPU seconds of the calling thread) of one call."""
    wall, cpu = time.perf_counter(), time.thread_time()
    function()
    return time.perf_counter() - wall, time.thread_time() - cpu


def format_em_table(result, *, title=""):
    """The benchmark's result as a plain-text table (times in ms, ratios against targets)."""
    def verdict(ok):
        return "ok" if ok else "MISSED"

    keys = ["floor", "floor_csc", "em_summary", "em_full", "sklearn"]
    names = [
        "(a) floor: X @ log_theta.T and X.T @ R",
        "(a-prime) floor, E-step product as XT.T @ log_theta.T",
        'SemiSupervisedNB, record="summary"',
        'SemiSupervisedNB, record="full"',
        "(b) scikit-learn MultinomialNB, stacked + weighted",
    ]
    width = max(len(name) for name in names)
    lines = [title] if title else []
    lines += [
        f"{result['n_samples']} documents x {result['n_features']} words, nnz={result['nnz']:,}, "
        f"{result['n_classes']} classes, {result['n_labeled']} labeled, alpha={result['alpha']}; "
        f"{result['repeat']} timed round{'s' * (result['repeat'] != 1)} after {result['warmup']} "
        "warm-up",
        "",
        f"{'one EM iteration':{width}}  {'median ms':>9}  {'min ms':>9}  {'CPU ms':>9}",
    ]
    lines += [f"{name:{width}}  {result[key + '_ms']:9.1f}  {result['min_ms'][key]:9.1f}  "
              f"{result['cpu_ms'][key]:9.1f}" for key, name in zip(keys, names, strict=True)]
    em_floor, em_floor_csc = result["em_over_floor"], result["em_over_floor_csc"]
    cpu = result["cpu_ms"]
    sk_em = result["sklearn_over_em"]
    lines += [
        "",
        f"{'EM / floor (a)':{width}}  {em_floor:9.2f}  target <= 1.3  {verdict(em_floor <= 1.3)}",
        f"{'EM / floor (a-prime)':{width}}  {em_floor_csc:9.2f}  (for information)",
        f"{'EM / floor (a), CPU times':{width}}  {cpu['em_summary'] / cpu['floor']:9.2f}  "
        "(for information)",
    ]
    if np.isfinite(sk_em):
        lines.append(
            f"{'scikit-learn / EM':{width}}  {sk_em:9.1f}  target >= 10   {verdict(sk_em >= 10)}"
        )
    return "\n".join(lines)


# -- command line --------------------------------------------------------------------------------
def _parser():
    parser = cli.Parser(
        prog="python -m sslviz.bench",
        description="Benchmarks of the sslviz algorithms on the course corpora.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    em = commands.add_parser(
        "em", help="one EM iteration on 20 Newsgroups: floor, SemiSupervisedNB, scikit-learn",
        description=__doc__.split("\n\n")[1],
    )
    em.add_argument("--repeat", type=cli.positive_int, default=5, help="timed rounds (default: 5)")
    em.add_argument("--subset", default="all", choices=("all", "train", "test"),
                    help="20 Newsgroups subset (default: all)")
    em.add_argument("--stop-words", default="smart", choices=("smart", "sklearn", "none"),
                    help="stop list removed before counting (default: smart)")
    em.add_argument("--n-labeled", type=cli.positive_int, default=100,
                    help="labeled documents (default: 100)")
    em.add_argument("--alpha", type=cli.finite_float(above=0), default=0.1,
                    help="smoothing (default: 0.1)")
    em.add_argument("--seed", type=cli.seed, default=0, help="seed of the split (default: 0)")
    em.add_argument("--no-sklearn", action="store_true",
                    help="skip the (slow) scikit-learn path")
    explorers = commands.add_parser(
        "explorers", help="every explorer of every notebook: replay and refit latency",
        description="Run the notebooks, then move every control of every explorer and time the "
        "redraws (targets: replay 0.1 s, refit 1 s on a first visit).")
    explorers.add_argument("notebooks", nargs="*", metavar="NOTEBOOK",
                           help="notebook files (default: all of notebooks/)")
    explorers.add_argument("--steps", type=cli.positive_int, default=4,
                           help="values visited per control (default: 4)")
    explorers.add_argument("--pause", type=cli.finite_float(minimum=0), default=0.5,
                           help="seconds the kernel idles between two changes (default: 0.5)")
    explorers.add_argument("--json", metavar="FILE", help="also write the measurements here")
    notebooks = commands.add_parser(
        "notebooks", help="every notebook top to bottom: cold and warm run times",
        description="Run each notebook in a fresh kernel twice, against a private result cache: "
        "cold (no result cached; vectorized corpora linked from your cache) and warm. Targets: "
        "cold 60 s, warm 15 s.")
    notebooks.add_argument("notebooks", nargs="*", metavar="NOTEBOOK",
                           help="notebook files (default: all of notebooks/)")
    notebooks.add_argument("--cold-corpora", action="store_true",
                           help="do not link the vectorized corpora: tokenize them too")
    notebooks.add_argument("--without-store", action="store_true",
                           help="do not read the results stored with the project "
                           "(sslviz/stored_results/cache): time the long sweeps too")
    notebooks.add_argument("--json", metavar="FILE", help="also write the measurements here")
    return parser


def _check_json(path, notebooks):
    """Refuse a ``--json`` file that cannot be written or is one of the notebooks measured."""
    if notebooks is None:
        from .deck import default_notebooks

        notebooks = default_notebooks()
    cli.check_output_file(path, option="--json", inputs=notebooks)


def _notebooks(args):
    import json

    from .bench_notebooks import bench_notebooks, format_notebook_table, rows_as_dicts
    from .notebook_files import NotebookFailed, write_text

    cli.require_classroom("python -m sslviz.bench notebooks")
    notebooks = cli.checked_notebooks(args.notebooks) or None
    if args.json:
        _check_json(args.json, notebooks)
    try:
        rows = bench_notebooks(notebooks, link_corpora=not args.cold_corpora,
                               use_store=not args.without_store)
    except NotebookFailed as error:
        print(f"error: {cli.one_line(error)}", file=sys.stderr)
        return 1
    print(format_notebook_table(rows, link_corpora=not args.cold_corpora,
                                use_store=not args.without_store))
    if args.json:
        write_text(args.json, json.dumps(rows_as_dicts(rows), indent=1))
    return 0


def _explorers(args):
    import json

    from .bench_explorers import bench_notebooks, format_explorer_table

    notebooks = cli.checked_notebooks(args.notebooks) or None
    if args.json:
        _check_json(args.json, notebooks)
    from .notebook_files import NotebookFailed, write_text

    try:
        rows = bench_notebooks(notebooks, n_steps=args.steps, pause=args.pause)
    except NotebookFailed as error:  # a cell of a notebook raised: nothing was measured
        print(f"error: {cli.one_line(error)}", file=sys.stderr)
        return 1
    print(format_explorer_table(rows))
    if args.json:
        write_text(args.json, json.dumps(rows, indent=1))
    return 0


@cli.command
def main(argv=None):
    """Entry point of ``python -m sslviz.bench``; returns the exit code."""
    args = _parser().parse_args(argv)
    if args.command == "explorers":
        return _explorers(args)
    if args.command == "notebooks":
        return _notebooks(args)
    from .text import TextOptions, load_counts

    stop_words = None if args.stop_words == "none" else args.stop_words
    print(f"loading 20newsgroups (subset={args.subset}, stop_words={stop_words}) ...",
          flush=True)
    corpus = load_counts("20newsgroups", TextOptions(stop_words=stop_words), subset=args.subset)
    if args.n_labeled >= corpus.X.shape[0]:
        raise cli.UsageError(f"--n-labeled {args.n_labeled}: the corpus has "
                             f"{corpus.X.shape[0]} documents; label fewer so that some stay "
                             "unlabeled")
    result = run_em_benchmark(
        corpus.X, corpus.y, n_labeled=args.n_labeled, alpha=args.alpha, seed=args.seed,
        repeat=args.repeat, sklearn=not args.no_sklearn,
        progress=lambda message: print(message, file=sys.stderr),
    )
    print(format_em_table(result, title=f"20 Newsgroups (subset={args.subset}, "
                                        f"stop_words={stop_words})"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
