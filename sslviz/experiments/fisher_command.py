"""Lecture 06's paper-scale command and its tables as text, the paper's numbers beside ours.

``python -m sslviz.experiments fisher-table`` computes Table 1 of Takamura & Okumura,
``fisher-figure`` their Figure 1 (:mod:`sslviz.experiments.fisher`), ``fisher summary`` writes
what the cache holds into the results file lecture 06 reads
(:mod:`sslviz.experiments.fisher_results`), ``fisher recheck`` re-runs the cheapest cell of
each of its tables and records today's code in it only if no number moved; :func:`main` parses the
options (the package's one pattern: each lecture's experiments own a ``main(argv)``, and
``python -m sslviz.experiments`` only dispatches). Every job's result is cached as soon as it is
computed, so an interrupted run resumes where it stopped; ``--no-cache`` recomputes everything.
By default NB's α and every SVM's C are chosen on each split's labeled posts and the linear SVMs
see tf-idf; ``--paper-settings`` runs the paper's fixed settings instead (α = 2, C = 1,
unit-length counts; the linear SVM is then the count SVM and its column is left out).
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from .. import cli
from . import fisher
from .fisher import FISHER_METHOD_NAMES, PAPER_SIZES, paper_column


def fisher_table_text(grid, *, n_unlabeled=None, paper=True, features=None):
    """Table 1 as text: mean accuracy (%) per size and method, the paper's value in brackets
    (``( -  )`` for a method the paper did not run).

    ``features``: what our TSVM saw (``FisherSettings.features``); when it is not the paper's
    unit-length counts ("tf") and the table holds the TSVM beside the paper's value, a last line
    says that the bracketed TSVM saw counts.
    """
    table = grid.table(n_unlabeled)
    names = [FISHER_METHOD_NAMES[m] for m in grid.methods]
    width = max(len(n) for n in names) if paper else 8
    width = max(width, 13 if paper else 6)
    lines = ["#labeled " + " ".join(f"{n:>{width}}" for n in names)]
    for i, size in enumerate(grid.sizes):
        cells = []
        for m, method in enumerate(grid.methods):
            ours = "  -  " if np.isnan(table[i, m]) else f"{table[i, m]:5.1f}"
            if paper and int(size) in PAPER_SIZES:
                theirs = paper_column(method)[PAPER_SIZES.index(int(size))]
                cells.append(f"{ours} (" + (" -  " if np.isnan(theirs) else f"{theirs:4.1f}")
                             + ")")
            else:
                cells.append(ours)
        lines.append(f"{int(size):>8} " + " ".join(f"{c:>{width}}" for c in cells))
    if paper and features not in (None, "tf") and "tsvm" in grid.methods:
        lines.append(f"{FISHER_METHOD_NAMES['tsvm']}: ours on {features}, the paper's (in "
                     "brackets) on unit-length counts")
    return "\n".join(lines)


def fisher_figure_text(grid, method="ul-cat", *, spread=False):
    """Figure 1 as text: mean accuracy (%) of ``method`` per labeled size (rows) and unlabeled
    size (columns); with ``spread``, each mean followed by its range over the splits."""
    width = 18 if spread else 6
    header = "#labeled \\ #unlabeled " + " ".join(f"{int(u):>{width}}"
                                                  for u in grid.unlabeled_sizes)
    m = grid._index(grid.methods, method, "method")
    rows = []
    for i, size in enumerate(grid.sizes):
        cells = [f"{a:6.1f}" for a in grid.unlabeled_curve(method, size)]
        if spread:
            low, high = (np.min(grid.accuracy[i, :, :, m], axis=1) * 100,
                         np.max(grid.accuracy[i, :, :, m], axis=1) * 100)
            cells = [f"{c} [{lo:4.1f}-{hi:4.1f}]" for c, lo, hi in zip(cells, low, high,
                                                                      strict=True)]
        rows.append(f"{int(size):>21} " + " ".join(f"{c:>{width}}" for c in cells))
    return "\n".join([f"{FISHER_METHOD_NAMES[method]}", header, *rows])


def fisher_spread_text(grid, *, n_unlabeled=None):
    """Per method (rows) and labeled size: mean accuracy (%) over the splits, its range
    [min-max], and the α (NB, NB+EM) or C (SVMs) chosen on the splits' labeled posts, with the
    number of splits whose choice stopped at a bound of its parameter (if any)."""
    j = -1 if n_unlabeled is None else grid._index(grid.unlabeled_sizes, n_unlabeled,
                                                   "unlabeled size")
    lines = [f"#labeled: mean over {len(grid.splits)} splits [min-max], chosen α or C"]
    for m, method in enumerate(grid.methods):
        cells = []
        for i, size in enumerate(grid.sizes):
            acc = grid.accuracy[i, j, :, m] * 100
            text = f"{int(size)}: " + ("-" if np.isnan(acc).any() else
                                       f"{acc.mean():4.1f} [{acc.min():4.1f}-{acc.max():4.1f}]")
            if grid.chosen is not None and not np.isnan(grid.chosen[i, j, :, m]).any():
                low, high = np.min(grid.chosen[i, j, :, m]), np.max(grid.chosen[i, j, :, m])
                name = "α" if method in ("nb", "nb+em") else "C"
                text += f" {name} {low:g}" + ("" if low == high else f"-{high:g}")
                edges = 0 if grid.at_bound is None else int(np.nansum(grid.at_bound[i, j, :, m]))
                text += f" ({edges} at a bound)" if edges else ""
            cells.append(text)
        lines.append(f"{FISHER_METHOD_NAMES[method]:>14}  " + " | ".join(cells))
    return "\n".join(lines)


# -- the command ---------------------------------------------------------------------------------
def _parser():
    parser = cli.Parser(
        prog="python -m sslviz.experiments fisher",
        description="Paper-scale experiments. fisher-table: Table 1 of Takamura & Okumura "
        "(every method, 10,000 unlabeled posts, 5 splits); fisher-figure: their Figure 1 "
        "(SVM on ul-cat Fisher scores, 1,000-10,000 unlabeled posts). Results are cached per "
        "split and method; an interrupted run resumes.")
    parser.add_argument("command", choices=["table", "figure", "summary", "recheck"],
                        help="table: Table 1; figure: Figure 1 (also run as fisher-table, "
                        "fisher-figure); summary: write what the cache holds of both tables "
                        "(tuned and the paper's settings) into the results file lecture 06 "
                        "reads, computing nothing; recheck: re-run the smallest labeled size's "
                        "first split of each table with today's code and record that code in "
                        "the results file only if every number is the same")
    parser.add_argument("--sizes", type=int, nargs="+", help="labeled-set sizes")
    parser.add_argument("--unlabeled", type=int, nargs="+", help="unlabeled-set sizes")
    parser.add_argument("--splits", type=int, nargs="+",
                        default=list(range(fisher.PAPER_N_SPLITS)),
                        help="splits to run, 0-4 (default: all five)")
    parser.add_argument("--methods", nargs="+", choices=fisher.FISHER_METHODS,
                        help="methods (default: all for the table, ul-cat and nb+em for the "
                        "figure)")
    parser.add_argument("--tsvm-max-unlabeled", type=int, default=None,
                        help="give the TSVM at most this many unlabeled posts (default: all)")
    parser.add_argument("--paper-settings", action="store_true",
                        help="the paper's fixed settings (alpha=2, C=1, counts) instead of alpha "
                        "and C chosen on the labeled posts and tf-idf for the linear SVMs")
    parser.add_argument("--n-jobs", type=int, default=-1, help="parallel processes (-1: all "
                        "cores)")
    parser.add_argument("--no-cache", action="store_true", help="recompute everything")
    return parser


def _check_arguments(parser, args):
    """Refuse, before the corpus is loaded, values no run can use."""
    if any(not 0 <= split < fisher.PAPER_N_SPLITS for split in args.splits):
        parser.error(f"--splits must lie in 0..{fisher.PAPER_N_SPLITS - 1}, got {args.splits}")
    for name in ("sizes", "unlabeled"):
        values = getattr(args, name) or []
        if any(value < 1 for value in values):
            parser.error(f"--{name} must be positive, got {values}")
    if args.tsvm_max_unlabeled is not None and args.tsvm_max_unlabeled < 1:
        parser.error(f"--tsvm-max-unlabeled must be positive, got {args.tsvm_max_unlabeled}")
    if args.n_jobs == 0:
        parser.error("--n-jobs must be a number of processes (>= 1) or negative (-1: all "
                     "cores), got 0")


def _check_sizes(sizes, unlabeled, n_posts, test_folds):
    """Refuse labeled and unlabeled sizes that the training posts of a split cannot hold."""
    pool = n_posts - max(len(fold) for fold in test_folds)
    if max(sizes) + max(unlabeled) > pool:
        raise cli.UsageError(f"--sizes {max(sizes)} plus --unlabeled {max(unlabeled)} posts "
                             f"exceed the {pool} training posts of a split: choose smaller sizes")


def summary(path=None):
    """Write the results file (:func:`sslviz.experiments.fisher_results.write_results`) from
    this machine's cache and print it with the projection; returns the exit code."""
    from . import fisher_results

    path = fisher_results.RESULTS_FILE if path is None else path
    corpus = fisher.load_fisher_corpus()
    written = fisher_results.write_results(corpus.X, corpus.y, fisher.paper_test_folds(corpus.y),
                                           path)
    for name in fisher_results.SETTINGS:
        if written["settings"][name]["records"]:
            grid = fisher_results.results_grid(written, name)
            print(f"{name} settings, {path}:")
            for n_unlabeled in grid.unlabeled_sizes:
                print(f"{n_unlabeled:,} unlabeled posts, splits {grid.splits.tolist()}")
                print(fisher_table_text(grid, n_unlabeled=n_unlabeled))
        print(fisher_results.projection_text(written, name))
    return 0


def recheck(n_jobs=-1):
    """Re-run the cheapest cell of each table of the results file
    (:func:`sslviz.experiments.fisher_results.recheck`); returns the exit code: 0 when today's
    code was recorded, 1 when a number moved (the file unchanged)."""
    from . import fisher_results

    path = fisher_results.RESULTS_FILE
    summary = fisher_results.read_results(path)
    if summary is None or not fisher_results.count_records(summary):
        raise cli.UsageError(f"no records in {path} to re-run: run "
                             f"`{fisher_results.RUN_COMMAND}`, then "
                             f"`{fisher_results.SUMMARY_COMMAND}` first")
    cli.writable_file(path, option="the results file")
    corpus = fisher.load_fisher_corpus()
    differences = fisher_results.recheck(summary, corpus.X, corpus.y,
                                         fisher.paper_test_folds(corpus.y), n_jobs=n_jobs,
                                         path=path)
    if differences:
        print("today's code computes other numbers; the results file is unchanged:",
              *differences, f"To update it: {fisher_results.RERUN_HINT}", sep="\n")
        return 1
    print("the cheapest cell of each table is the same with today's code; "
          f"{path.name} now records it, re-run:",
          *fisher_results.read_results(path)["code_checked_by"], sep="\n")
    return 0


def main(argv):
    """``python -m sslviz.experiments fisher table|figure|summary|recheck [options]``; returns the
    exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    _check_arguments(parser, args)
    if args.command == "summary":
        return summary()
    if args.command == "recheck":
        return recheck(args.n_jobs)
    table = args.command == "table"
    sizes = args.sizes or (fisher.PAPER_SIZES if table else fisher.PAPER_FIGURE_1_SIZES)
    unlabeled = args.unlabeled or ((fisher.PAPER_N_UNLABELED,) if table
                                   else fisher.PAPER_FIGURE_1_UNLABELED)
    methods = args.methods or (fisher.FISHER_METHODS if table else ("ul-cat", "nb+em"))
    if args.paper_settings and not args.methods and table:
        methods = tuple(m for m in methods if m != "linear")  # on counts it is "counts"
    corpus = fisher.load_fisher_corpus()
    test_folds = fisher.paper_test_folds(corpus.y)
    _check_sizes(sizes, unlabeled, corpus.X.shape[0], test_folds)
    base = fisher.PAPER_SETTINGS if args.paper_settings else fisher.FisherSettings()
    settings = replace(base, tsvm_max_unlabeled=args.tsvm_max_unlabeled)
    print(f"20 Newsgroups: {corpus.X.shape[0]} posts, {corpus.X.shape[1]} words; "
          f"sizes {list(sizes)}, unlabeled {list(unlabeled)}, splits {args.splits}, "
          f"methods {list(methods)}, {'paper' if args.paper_settings else 'tuned'} settings",
          flush=True)
    start = time.perf_counter()
    grid = fisher.fisher_grid(corpus.X, corpus.y, sizes=sizes, unlabeled_sizes=unlabeled,
                              splits=args.splits, test_folds=test_folds,
                              methods=methods, settings=settings, use_cache=not args.no_cache,
                              n_jobs=args.n_jobs, description=f"fisher-{args.command}")
    print(fisher_table_text(grid, features=settings.features) if table
          else fisher_figure_text(grid, methods[0]))
    if table:
        print(fisher_spread_text(grid))
    print(f"wall time {time.perf_counter() - start:.0f} s; compute time of the cells "
          f"{np.nansum(grid.seconds):.0f} s (cached cells included)")
    return 0
