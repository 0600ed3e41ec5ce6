"""Lecture 09's views of the paper-scale results file: whatever sets it holds, as tables beside
Fujino et al.'s, with the hybrid's differences to its rivals per size and set.

A size with a single evaluation set has no spread, so it is never a table row: it is printed
apart. Nothing here computes a result; :func:`.hybrid_results.read_results` reads the file.
"""

from __future__ import annotations

import numpy as np

from .hybrid import PAPER_SIZES, PAPER_TABLES

SHORT_NAMES = {"hybrid": "hybrid", "em-lambda": "EM-λ", "mlr/mer": "MLR/MER", "nb": "NB",
               "mlr": "MLR"}


def paper_scale_gaps(summary, corpus, *, min_sets=2, rivals=("em-lambda", "nb", "mlr")):
    """The hybrid's accuracy minus each rival's, per evaluation set (points), for every size of
    ``corpus`` in a results file (:func:`.hybrid_results.read_results`) that holds at least
    ``min_sets`` sets: ``({size: {rival: array}}, [sizes with fewer sets])``."""
    if min_sets < 1:
        raise ValueError(f"min_sets must be at least 1, got {min_sets!r}")
    if corpus not in summary["corpora"]:
        raise ValueError(f"the results file holds no corpus {corpus!r}; it holds "
                         f"{sorted(summary['corpora'])}")
    methods = list(summary["methods"])
    kept, apart = {}, []
    for size, cell in summary["corpora"][corpus]["sizes"].items():
        accuracy = np.array(cell["accuracy"], dtype=float)
        if len(accuracy) < min_sets:
            apart.append(int(size))
            continue
        hybrid = accuracy[:, methods.index("hybrid")]
        kept[int(size)] = {rival: hybrid - accuracy[:, methods.index(rival)] for rival in rivals}
    return kept, apart


def paper_scale_text(summary, *, min_sets=2):
    """The results file as tables beside Fujino et al.'s: only sizes with at least ``min_sets``
    evaluation sets are rows (mean (sd) per method, the paper's row below), then per size the
    hybrid minus EM-λ and minus NB (mean ± sd over the sets, sets ahead); a size with fewer sets
    is printed apart, its accuracies only; the paper's sizes not in the file are listed."""
    methods, lines = list(summary["methods"]), []
    for name, entry in summary["corpora"].items():
        kept, apart = paper_scale_gaps(summary, name, min_sets=min_sets)
        lines.append(f"{name}: test accuracy (%), mean (sd) over the evaluation sets; paper = "
                     f"Fujino et al. (2005), Tables 1-3; sizes with at least {min_sets} sets")
        lines.append(f"{'|Dl|':>6} {'sets':>5} "
                     + " ".join(f"{SHORT_NAMES[m]:>12}" for m in methods))
        for size in kept:
            accuracy = np.array(entry["sizes"][str(size)]["accuracy"], dtype=float)
            lines.append(f"{size:>6} {len(accuracy):>5} " + " ".join(
                f"{m:5.1f} ({s:4.1f})" for m, s in zip(accuracy.mean(axis=0),
                                                       accuracy.std(axis=0), strict=True)))
            lines.append(f"{'paper':>6} {'':>5} " + " ".join(
                f"{m:5.1f} ({s:4.1f})" for m, s in zip(*PAPER_TABLES[name][size], strict=True)))
        for rival in ("em-lambda", "nb"):
            lines.append(f"  hybrid - {SHORT_NAMES[rival]}, mean ± sd (sets ahead): " + "; ".join(
                f"{size}: {d[rival].mean():+.1f} ± {d[rival].std():.1f} "
                f"({np.sum(d[rival] > 0)}/{len(d[rival])})" for size, d in kept.items()))
        for size in apart:
            cell = entry["sizes"][str(size)]
            lines.append(f"  {size} labels, {len(cell['seeds'])} set only (not a table row): "
                         + ", ".join(f"{SHORT_NAMES[m]} {a:.1f}" for m, a in
                                     zip(methods, np.mean(cell["accuracy"], axis=0), strict=True)))
        missing = [s for s in PAPER_SIZES[name] if str(s) not in entry["sizes"]]
        lines.append("  the paper's sizes not in the file: "
                     + (", ".join(map(str, missing)) or "none") + "\n")
    return "\n".join(lines).rstrip()
