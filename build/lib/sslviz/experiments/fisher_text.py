"""Lecture 06's Table 1 and Figure 1 as text, the paper's numbers beside ours."""

from __future__ import annotations

import numpy as np

from .fisher import FISHER_METHOD_NAMES, FISHER_METHODS, PAPER_SIZES, PAPER_TABLE_1


def fisher_table_text(grid, *, n_unlabeled=None, paper=True):
    """Table 1 as text: mean accuracy (%) per size and method, the paper's value in brackets."""
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
                theirs = PAPER_TABLE_1[PAPER_SIZES.index(int(size)),
                                       FISHER_METHODS.index(method)]
                cells.append(f"{ours} ({theirs:4.1f})")
            else:
                cells.append(ours)
        lines.append(f"{int(size):>8} " + " ".join(f"{c:>{width}}" for c in cells))
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
    [min-max], and the α (NB, NB+EM) or C (SVMs) chosen on the splits' labeled posts."""
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
            cells.append(text)
        lines.append(f"{FISHER_METHOD_NAMES[method]:>14}  " + " | ".join(cells))
    return "\n".join(lines)
