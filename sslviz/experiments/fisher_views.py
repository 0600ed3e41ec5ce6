"""What the explorers of the Fisher-kernel lecture (06) draw, computed without drawing.

:func:`fisher_table_view` (Table 1 and Figure 1 from a
:class:`~sslviz.experiments.fisher.FisherGrid`) and :func:`paper_table` (the paper's numbers);
the one-post view,
:func:`~sslviz.fisher.fisher_document_view`, is re-exported here so that every view of the lecture
is imported from this module. :mod:`sslviz.plots.fisher` draws them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..fisher import FisherDocumentView, fisher_document_view
from .fisher import FISHER_METHOD_NAMES, PAPER_SIZES, paper_column

__all__ = ["FisherDocumentView", "FisherTableView", "fisher_document_view", "fisher_table_view",
           "paper_table"]


def paper_table(methods):
    """The paper's sizes and its Table 1 (%) for ``methods`` (columns in that order; NaN for a
    method the paper did not run)."""
    return np.array(PAPER_SIZES), np.column_stack([paper_column(m) for m in methods])


@dataclass(frozen=True)
class FisherTableView:
    """Table 1 at ``n_unlabeled`` posts and Figure 1 for ``method``, from a :class:`FisherGrid`.

    ``table``: method -> accuracy (%) per labeled size, for the methods run at every unlabeled
    size; ``curves``: ``"<size> labeled"`` -> accuracy (%) per unlabeled size; ``reference``:
    the linear SVM at ``n_labeled`` and the largest unlabeled size (``None`` if not run).
    """

    method: str
    method_name: str
    n_labeled: int
    n_unlabeled: int
    largest: int
    table: dict
    curves: dict
    current: str
    reference: float | None


def fisher_table_view(grid, *, method, n_labeled, n_unlabeled):
    """The :class:`FisherTableView` of ``method`` at ``n_labeled`` and ``n_unlabeled`` posts."""
    at_size, largest = grid.table(n_unlabeled), int(np.max(grid.unlabeled_sizes))
    reference = None
    if "linear" in grid.methods:
        reference = grid.mean("linear", n_labeled, largest) * 100
    return FisherTableView(
        method=method, method_name=FISHER_METHOD_NAMES[method], n_labeled=n_labeled,
        n_unlabeled=n_unlabeled, largest=largest,
        table={m: at_size[:, grid.methods.index(m)] for m in grid.complete_methods()},
        curves={f"{int(s)} labeled": grid.unlabeled_curve(method, s) for s in grid.sizes},
        current=f"{n_labeled} labeled", reference=reference)
