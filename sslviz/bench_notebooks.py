"""How long a lecture takes to run top to bottom: ``python -m sslviz.bench notebooks [NB ...]``.

What a student meets the first time a lecture is opened at home (**cold**: no experiment result
cached) and every time after (**warm**). Each notebook runs twice in a fresh kernel, as "Run All"
does, against a private result cache made for the benchmark (the user's cache is neither read
nor written):

1. cold: the private cache holds only the vectorized corpora (the ``counts`` and
   ``reuters_sentences`` entries, linked from the user's cache: tokenizing a corpus is shared by
   every lecture and done once per machine), or nothing at all with ``--cold-corpora``;
2. warm: the same cache again, now holding everything the cold run stored.

Both read the results stored with the project (``sslviz/stored_results/cache``, see
:mod:`sslviz.experiments.store`), as a student's first run does; ``--without-store`` switches
that off, to time the sweeps themselves.

Targets (issue 25, idle 2-core machine): cold <= 60 s, warm <= 15 s per notebook. The table also
names each run's slowest cell, which is where a cold run's time goes. Times are wall-clock seconds
of the cells alone (the kernel's start, about a second, is not counted). Speed is measured here,
never asserted in a test.
"""

from __future__ import annotations

import tempfile
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

from .lectures import CORPUS_KINDS, STORED_KINDS
from .notebook_files import environment, read_notebook, run_cells

COLD_TARGET, WARM_TARGET = 60.0, 15.0

__all__ = ["COLD_TARGET", "CORPUS_KINDS", "WARM_TARGET", "NotebookTimes", "bench_notebooks",
           "format_notebook_table", "private_cache", "time_cells"]


@dataclass(frozen=True)
class NotebookTimes:
    """One notebook's run: total seconds, and its slowest cell (index among code cells, seconds,
    first line of source)."""

    notebook: str
    run: str  # "cold" or "warm"
    seconds: float
    slowest_cell: int
    slowest_seconds: float
    slowest_source: str
    stored_missing: int = 0  # results of the lecture's stored kinds the run had to compute


@contextmanager
def private_cache(*, link_corpora=True, user_cache=None, use_store=True):
    """A temporary ``SSLVIZ_CACHE`` for the kernels started inside the block.

    With ``link_corpora``, the user's vectorized corpora (:data:`CORPUS_KINDS`) are linked in,
    read-only in spirit: the benchmark never writes into them unless a corpus was missing.
    ``use_store=False`` also hides the project's stored results (``SSLVIZ_STORE`` empty).
    """
    from sslviz.paths import cache_dir

    user_cache = Path(user_cache) if user_cache is not None else cache_dir()
    with tempfile.TemporaryDirectory(prefix="sslviz-bench-") as folder:
        if link_corpora:
            for kind in CORPUS_KINDS:
                if (user_cache / kind).is_dir():
                    (Path(folder) / kind).symlink_to(user_cache / kind, target_is_directory=True)
        changes = {"SSLVIZ_CACHE": folder, **({} if use_store else {"SSLVIZ_STORE": ""})}
        with environment(changes):
            yield Path(folder)


def time_cells(path, *, timeout=1800, progress=None) -> list[float]:
    """Run ``path``'s code cells in a fresh kernel (environment as now); seconds per cell."""
    path = Path(path)
    notebook = read_notebook(path)
    notebook.cells = [c for c in notebook.cells if c.cell_type == "code"]
    return run_cells(notebook, path.parent, timeout=timeout, progress=progress, name=path.name,
                     failure="code cell {n} failed", brief=True)


def _stored_kinds_computed(path, cache_folder):
    """How many results of ``path``'s stored kinds are in ``cache_folder`` (computed: the
    project's store did not hold them)."""
    return sum(len(list((Path(cache_folder) / kind).glob("*.npz")))
               for kind in STORED_KINDS.get(Path(path).stem, ()))


def _summary(path, run, seconds, stored_missing=0) -> NotebookTimes:
    cells = [c for c in read_notebook(path).cells if c.cell_type == "code"]
    slowest = max(range(len(seconds)), key=seconds.__getitem__) if seconds else 0
    source = cells[slowest].source.strip().splitlines() if cells else []
    return NotebookTimes(Path(path).stem, run, sum(seconds), slowest + 1,
                         seconds[slowest] if seconds else 0.0, (source or [""])[0][:60],
                         stored_missing)


def bench_notebooks(notebooks=None, *, link_corpora=True, use_store=True, timeout=1800,
                    progress=True):
    """Cold then warm run of each notebook (each with its own private cache); list of
    :class:`NotebookTimes`, two per notebook."""
    from tqdm.auto import tqdm

    from sslviz.deck import default_notebooks

    paths = [Path(p) for p in (default_notebooks() if notebooks is None else notebooks)]
    rows = []
    with tqdm(total=2 * len(paths), desc="notebook runs", disable=not progress) as bar:
        for path in paths:
            with private_cache(link_corpora=link_corpora, use_store=use_store) as folder:
                for run in ("cold", "warm"):
                    seconds = time_cells(path.resolve(), timeout=timeout, progress=bar)
                    missing = _stored_kinds_computed(path, folder) if use_store else 0
                    rows.append(_summary(path, run, seconds, missing))
                    bar.update(1)
    return rows


def format_notebook_table(rows, *, link_corpora=True, use_store=True) -> str:
    """Per notebook: cold and warm seconds against their targets, and each run's slowest cell."""
    by_notebook = {}
    for row in rows:
        by_notebook.setdefault(row.notebook, {})[row.run] = row
    header = (f"{'notebook':40} {'cold s':>7} {'<=60':>5} {'warm s':>7} {'<=15':>5}  "
              "slowest cell when cold (seconds)")
    lines = [header, "-" * len(header)]
    for name, runs in by_notebook.items():
        cold, warm = runs.get("cold"), runs.get("warm")
        lines.append(
            f"{name[:40]:40} {_seconds(cold):>7} {_verdict(cold, COLD_TARGET):>5} "
            f"{_seconds(warm):>7} {_verdict(warm, WARM_TARGET):>5}  "
            + (f"#{cold.slowest_cell} ({cold.slowest_seconds:.1f}): {cold.slowest_source}"
               if cold else ""))
    corpora = ("vectorized corpora warm (linked from the user's cache)" if link_corpora
               else "nothing cached, corpora included")
    store = ("the project's stored results read (sslviz/stored_results/cache)" if use_store
             else "no stored results read (--without-store)")
    stale = [f"{name} ({runs['cold'].stored_missing})" for name, runs in by_notebook.items()
             if "cold" in runs and runs["cold"].stored_missing]
    if stale:
        lines.append("stored results missing (computed by the cold run; rebuild them with "
                     "python -m sslviz.experiments store): " + ", ".join(stale))
    lines.append(f"cold = empty result cache, {corpora}, {store}; warm = the same cache after "
                 "the cold run")
    return "\n".join(lines)


def _seconds(row):
    return f"{row.seconds:.1f}" if row else "-"


def _verdict(row, target):
    # judged on the seconds shown, so that the table never contradicts itself
    return "-" if row is None else ("yes" if round(row.seconds, 1) <= target else "NO")


def rows_as_dicts(rows):
    """JSON-able form of :func:`bench_notebooks`' rows."""
    return [asdict(row) for row in rows]
