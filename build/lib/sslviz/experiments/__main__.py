"""``python -m sslviz.experiments COMMAND [options]``: paper-scale runs.

``fisher-table``, ``fisher-figure`` (lecture 06, below); ``kernel-expansion [splice] [leukemia]``
(lecture 08, :func:`sslviz.experiments.kernel_expansion.main`); ``hybrid table|perplexity``
(lecture 09, :func:`sslviz.experiments.hybrid_studies.main`).

fisher-table computes Table 1 of Takamura & Okumura, fisher-figure their Figure 1
(:mod:`sslviz.experiments.fisher`). Every job's result is cached as soon as it is computed, so an
interrupted run resumes where it stopped; ``--no-cache`` recomputes everything. By default NB's α
and every SVM's C are chosen on each split's labeled posts and the linear SVMs see tf-idf;
``--paper-settings`` runs the paper's fixed settings instead (α = 2, C = 1, unit-length counts).

Every command takes ``--scheduler ADDRESS`` (e.g. ``tcp://host:8786``): its jobs then run on that
Dask cluster (:func:`sslviz.experiments.runner.use_scheduler`; ``pip install sslviz[cluster]``),
with the same cache, resume and progress bar.
"""

from __future__ import annotations

import importlib
import sys
import time
from dataclasses import replace

import numpy as np

from .. import cli
from . import fisher, fisher_text, runner

SCHEDULER_FLAG = "--scheduler"


def _parser():
    parser = cli.Parser(
        prog="python -m sslviz.experiments",
        description="Paper-scale experiments. fisher-table: Table 1 of Takamura & Okumura "
        "(every method, 10,000 unlabeled posts, 5 splits); fisher-figure: their Figure 1 "
        "(SVM on ul-cat Fisher scores, 1,000-10,000 unlabeled posts). Results are cached per "
        "split and method; an interrupted run resumes.")
    parser.add_argument("command", choices=["fisher-table", "fisher-figure"],
                        help="(also: kernel-expansion ..., hybrid ...; see python -m "
                        "sslviz.experiments hybrid --help)")
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


LECTURE_COMMANDS = {"hybrid": "sslviz.experiments.hybrid_studies",
                    "kernel-expansion": "sslviz.experiments.kernel_expansion"}
"""Commands whose options a lecture's experiments module parses itself (its ``main(argv)``)."""


def pop_scheduler(argv):
    """``(argv without --scheduler ADDRESS, ADDRESS or None)``; a bad address is refused."""
    rest, address = [], None
    arguments = iter(argv)
    for arg in arguments:
        if arg == SCHEDULER_FLAG or arg.startswith(SCHEDULER_FLAG + "="):
            address = arg.partition("=")[2] if "=" in arg else next(arguments, "")
            if "://" not in address or not address.split("://", 1)[1]:
                raise cli.UsageError(f"{SCHEDULER_FLAG} needs a scheduler address such as "
                                     f"tcp://host:8786, got {address!r}")
        else:
            rest.append(arg)
    return rest, address


@cli.command
def main(argv=None):
    """``python -m sslviz.experiments fisher-table | fisher-figure | hybrid ... [options]``."""
    argv = sys.argv[1:] if argv is None else list(argv)
    argv, scheduler = pop_scheduler(argv)
    if scheduler is None:
        return _run(argv)
    with runner.use_scheduler(scheduler):
        return _run(argv)


def _run(argv):
    if argv and argv[0] in LECTURE_COMMANDS:
        return importlib.import_module(LECTURE_COMMANDS[argv[0]]).main(argv[1:])
    parser = _parser()
    args = parser.parse_args(argv)
    _check_arguments(parser, args)
    table = args.command == "fisher-table"
    sizes = args.sizes or (fisher.PAPER_SIZES if table else fisher.PAPER_FIGURE_1_SIZES)
    unlabeled = args.unlabeled or ((fisher.PAPER_N_UNLABELED,) if table
                                   else fisher.PAPER_FIGURE_1_UNLABELED)
    methods = args.methods or (fisher.FISHER_METHODS if table else ("ul-cat", "nb+em"))
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
                              n_jobs=args.n_jobs, description=args.command)
    print(fisher_text.fisher_table_text(grid) if table
          else fisher_text.fisher_figure_text(grid, methods[0]))
    if table:
        print(fisher_text.fisher_spread_text(grid))
    print(f"wall time {time.perf_counter() - start:.0f} s; compute time of the cells "
          f"{np.nansum(grid.seconds):.0f} s (cached cells included)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
