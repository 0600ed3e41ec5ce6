"""The paper-scale tables as a small results file: what the run has cached, summarised.

The file keeps each selection's evaluation sets apart (``"selections"``: name -> entry, each
entry with its own sets, ``code`` and ``code_checked_by``): :data:`.hybrid.PAPER_SCALE_SELECTION`
(σ = 1, α by the leave-one-out log-likelihood of the labels; what the file first held, and what a
file without ``"selections"`` holds) and :data:`.hybrid.LABELED_SELECTION` (the fair one). Every
reader takes ``selection=`` (default: :data:`DEFAULT_SELECTION`, the file's first) and sees one
selection's entry as a summary of its own (:func:`read_results`); writing one selection never
touches another's.

``python -m sslviz.experiments hybrid table`` computes Tables 1-3 (paper scale: every size, 10
evaluation sets, MLR/MER included) into the result cache; ``python -m sslviz.experiments hybrid
summary`` reads that cache -- it computes nothing -- and writes :data:`RESULTS_FILE`: per corpus
and size, the evaluation sets that are in, each set's five accuracies and the job's CPU time.
The lecture and the README read that file, so a reader sees the run without its cache; sizes
not yet run are listed as missing. ``summary --readme README.md`` rewrites the README's table
with the sets of the selection ``--selection`` names, under a line naming it
(:func:`results_markdown`); the README shows :data:`.hybrid.LABELED_SELECTION`, the lecture's.

The file records the code that computed it (``"code"``: :func:`sslviz.code_digest.code_of` of the
job function, as in every cache key, so a summary can only read results of today's code); a test
fails with :data:`RERUN_HINT` when that code has changed since (:func:`results_code_changed`).
When the change should not move a number (a criterion added beside the ones the tables use, say),
``python -m sslviz.experiments hybrid recheck`` (:func:`recheck`) re-runs the smallest cell of
every corpus with today's code: only if every accuracy comes out the same does it record today's
code, with the cells it re-ran (``"code_checked_by"``); otherwise the tables must be rerun.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .. import cli
from .._io import atomic_write
from ..code_digest import code_of
from ..paths import STORED_RESULTS
from ..validation import check_choice
from . import results_file
from .hybrid import (
    CORPORA,
    LABELED_SELECTION,
    METHODS,
    PAPER_N_SEEDS,
    PAPER_SCALE_SELECTION,
    PAPER_SIZES,
    PAPER_TABLES,
    SELECTIONS,
    evaluate_split,
    table_key,
)
from .runner import run_jobs

RESULTS_FILE = STORED_RESULTS / "hybrid_paper_scale.json"
RUN_COMMAND = "python -m sslviz.experiments hybrid table"
RERUN_HINT = (f"rerun `{RUN_COMMAND}` and `{RUN_COMMAND} --selection 'labeled-rows'` (every "
              "corpus; hours of CPU: see README, 'paper scale'), then `python -m "
              "sslviz.experiments hybrid summary --selection 'labeled-rows' --readme README.md` "
              "(the README shows that selection) and re-execute lecture 09")
WORKERS = (1, 2, 8, 32)
DEFAULT_SELECTION = PAPER_SCALE_SELECTION
"""The selection a reader sees unless it names one: the one the file first held (lecture 09's)."""


def run_command(selection=DEFAULT_SELECTION):
    """The command that computes ``selection``'s sets."""
    return (RUN_COMMAND if selection == DEFAULT_SELECTION
            else f"{RUN_COMMAND} --selection {selection!r}")


def cached_cells(corpus, *, sizes, seeds, selection=DEFAULT_SELECTION):
    """The paper-scale results the cache holds for ``corpus`` under ``selection``, computing
    nothing.

    Returns ``{(size, seed): result dict}`` for the cached jobs and the list of missing
    ``(size, seed)``.
    """
    cells = [(int(size), int(seed)) for size in sizes for seed in seeds]
    results = run_jobs(evaluate_split, [{"n_labeled": size, "seed": seed} for size, seed in cells],
                       kind="hybrid", key=table_key(corpus, selection=selection),
                       cached_only=True)
    found = {cell: result for cell, result in zip(cells, results, strict=True)
             if result is not None}
    return found, [cell for cell, result in zip(cells, results, strict=True) if result is None]


def corpus_summary(corpus, *, sizes=None, seeds=range(PAPER_N_SEEDS),
                   selection=DEFAULT_SELECTION):
    """One corpus's entry of the results file: every size with at least one cached set."""
    sizes = PAPER_SIZES[corpus.name] if sizes is None else sizes
    found, missing = cached_cells(corpus, sizes=sizes, seeds=seeds, selection=selection)
    by_size = {}
    for size in sizes:
        sets = sorted(seed for s, seed in found if s == size)
        if not sets:
            continue
        results = [found[size, seed] for seed in sets]
        by_size[str(size)] = {
            "seeds": sets,
            "accuracy": [[round(float(a) * 100, 4) for a in r["accuracy"]] for r in results],
            "cpu_seconds": [round(float(r.get("cpu_seconds", np.nan)), 1) for r in results]}
    return {"n_unlabeled": corpus.n_unlabeled, "n_test": corpus.n_test, "sizes": by_size,
            "missing": [list(cell) for cell in missing]}


def _summary(corpora, selection, seeds):
    """This machine's cache of ``selection`` summarised (no merge with the file)."""
    return {"methods": list(METHODS), "selection": selection, "code": code_of(evaluate_split),
            "seeds": [int(s) for s in seeds], "command": run_command(selection),
            "corpora": {c.name: corpus_summary(c, seeds=seeds, selection=selection)
                        for c in corpora}}


def write_results(corpora, path=RESULTS_FILE, *, seeds=range(PAPER_N_SEEDS),
                  selection=DEFAULT_SELECTION):
    """Summarise the cache of ``selection`` for every corpus of ``corpora`` (loaded
    :class:`HybridCorpus`) into that selection's entry of ``path`` (JSON, written atomically);
    returns the entry as :func:`read_results` gives it. The other selections' entries are
    written back as they were.

    Nothing the entry held is lost (:func:`.results_file.settle`): the sets it records that this
    machine's cache lacks are kept when it was computed by today's code
    (:func:`merge_results`); a summary that would still hold fewer sets than the entry (an entry
    of other code) is refused with the counts (:class:`sslviz.cli.UsageError`), nothing
    written; an entry of other code that is replaced is first copied to
    ``<name>.<its digest>.json`` beside it."""
    check_choice("selection", selection, SELECTIONS)

    def refusal(held, would_hold):
        return (f"{Path(path).name} holds {held} evaluation sets under the selection "
                f"{selection!r}; the summary of this machine's cache would hold {would_hold} "
                "(the file was computed by other code, so its sets cannot be merged): nothing "
                f"was written. Run `{run_command(selection)}` for the missing sets first, or "
                "`python -m sslviz.experiments hybrid recheck` if today's code computes the "
                "file's numbers")

    summary = results_file.settle(
        _summary(corpora, selection, seeds), read_results(path, selection=selection), path,
        merge=merge_results, count=count_sets, refusal=refusal,
        what=f"{Path(path).name} ({selection})")
    _write_selection(path, summary)
    return summary


def _write_selection(path, summary):
    """Write ``summary`` (one selection's view) into its entry of the file at ``path``."""
    whole = read_file(path) or {"methods": list(METHODS), "selections": {}}
    entry = {key: value for key, value in summary.items() if key not in ("methods", "selection")}
    whole["selections"][summary.get("selection", DEFAULT_SELECTION)] = entry
    results_file.write_json(path, whole)


def count_sets(summary):
    """How many (corpus, size, evaluation set) cells ``summary`` (the results file) holds."""
    return sum(len(cell["seeds"]) for entry in summary["corpora"].values()
               for cell in entry["sizes"].values())


def merge_results(summary, previous):
    """``summary`` with every (corpus, size, set) of ``previous`` that it lacks added back (both
    computed by the same code); ``previous``'s ``code_checked_by`` is kept."""
    merged = json.loads(json.dumps(summary))
    if "code_checked_by" in previous:
        merged["code_checked_by"] = previous["code_checked_by"]
    for name, entry in previous["corpora"].items():
        target = merged["corpora"].setdefault(name, json.loads(json.dumps(entry)))
        for size, cell in entry["sizes"].items():
            into = target["sizes"].setdefault(size, {"seeds": [], "accuracy": [],
                                                     "cpu_seconds": []})
            for i, seed in enumerate(cell["seeds"]):
                if seed not in into["seeds"]:
                    into["seeds"].append(seed)
                    into["accuracy"].append(cell["accuracy"][i])
                    into["cpu_seconds"].append(cell["cpu_seconds"][i])
            order = np.argsort(into["seeds"], kind="stable")
            for field in ("seeds", "accuracy", "cpu_seconds"):
                into[field] = [into[field][i] for i in order]
        done = {(int(size), seed) for size, cell in target["sizes"].items()
                for seed in cell["seeds"]}
        target["sizes"] = dict(sorted(target["sizes"].items(), key=lambda item: int(item[0])))
        target["missing"] = [cell for cell in target["missing"] if tuple(cell) not in done]
    return merged


def results_code_changed(summary):
    """``""`` when ``summary`` (the results file) was computed by today's code, else why not."""
    recorded, today = summary.get("code"), code_of(evaluate_split)
    if recorded == today:
        return ""
    return (f"the code behind {RESULTS_FILE.name} changed (recorded {recorded}, today {today}): "
            f"{RERUN_HINT}")


def recheck(summary, corpora, *, n_jobs=1, path=RESULTS_FILE):
    """Re-run the smallest size's first set of each corpus of ``summary`` (one selection's
    entry, :func:`read_results`) with today's code, under its selection.

    ``corpora``: ``{name: HybridCorpus}``. Returns the differences (``[]``: every accuracy the
    same to 0.001 points); only then is today's code written into the file at ``path``, with the
    cells re-run.
    """
    differences, checked = [], []
    selection = summary.get("selection", DEFAULT_SELECTION)
    for name, entry in summary["corpora"].items():
        if not entry["sizes"]:
            continue
        size = min(entry["sizes"], key=int)
        seed = entry["sizes"][size]["seeds"][0]
        corpus = corpora[name]
        [result] = run_jobs(evaluate_split, [{"n_labeled": int(size), "seed": int(seed)}],
                            kind="hybrid", n_jobs=n_jobs,
                            key=table_key(corpus, selection=selection),
                            shared={"X": corpus.X, "y": corpus.y, "test_rows": corpus.test_rows,
                                    "n_test": corpus.n_test, "n_unlabeled": corpus.n_unlabeled,
                                    "mer": True, "normalization_cv": True,
                                    "selection": selection},
                            description=f"recheck {name} {size}")
        today = np.round(np.asarray(result["accuracy"], dtype=float) * 100, 4)
        stored = np.asarray(entry["sizes"][size]["accuracy"][0], dtype=float)
        checked.append(f"{name} |Dl|={size} set {seed}")
        if not np.allclose(today, stored, rtol=0, atol=1e-3):
            differences.append(f"{checked[-1]}: today {today.tolist()}, file {stored.tolist()}")
    if not differences:
        summary = {**summary, "selection": selection, "code": code_of(evaluate_split),
                   "code_checked_by": checked}
        summary.pop("cache_version", None)
        _write_selection(path, summary)
    return differences


def read_file(path=RESULTS_FILE):
    """The whole results file, ``{"methods": [...], "selections": {name: entry}}``, or ``None``
    when there is none. A file of the first layout (one selection's entry at the top, no
    ``"selections"``) is read as the entry of its ``"selection"``, else of
    :data:`DEFAULT_SELECTION`."""
    data = results_file.read_json(path)
    if data is None:
        return None
    if "selections" in data:
        return data
    entry = {key: value for key, value in data.items() if key not in ("methods", "selection")}
    return {"methods": data.get("methods", list(METHODS)),
            "selections": {data.get("selection", DEFAULT_SELECTION): entry}}


def read_results(path=RESULTS_FILE, *, selection=DEFAULT_SELECTION):
    """One selection's entry of the results file as a summary of its own (``methods``,
    ``selection``, ``seeds``, ``code``, ``corpora``, ...), or ``None`` when the file or that
    selection's entry is not there."""
    check_choice("selection", selection, SELECTIONS)
    whole = read_file(path)
    if whole is None or selection not in whole["selections"]:
        return None
    return {"methods": whole["methods"], "selection": selection,
            **whole["selections"][selection]}


def selections_held(path=RESULTS_FILE):
    """``{selection: evaluation sets held}`` of the results file (``{}`` without one)."""
    whole = read_file(path) or {"selections": {}}
    return {name: count_sets(entry) for name, entry in whole["selections"].items()}


def mean_and_sd(entry):
    """Mean and standard deviation (%) over the sets of one size's entry, per method."""
    accuracy = np.array(entry["accuracy"], dtype=float)
    return accuracy.mean(axis=0), accuracy.std(axis=0)


def results_text(summary):
    """Our paper-scale table beside Fujino et al.'s Tables 1-3: mean (sd) per method."""
    short = ("hybrid", "EM-λ", "MLR/MER", "NB", "MLR")
    lines = []
    for name, entry in summary["corpora"].items():
        lines.append(f"{name}: test accuracy (%), mean (sd) over the evaluation sets; "
                     "paper = Fujino et al. (2005), Tables 1-3")
        lines.append(f"{'|Dl|':>6} {'sets':>5} " + " ".join(f"{m:>12}" for m in short))
        for size, cell in entry["sizes"].items():
            mean, sd = mean_and_sd(cell)
            lines.append(f"{size:>6} {len(cell['seeds']):>5} " + " ".join(
                f"{m:5.1f} ({s:4.1f})" for m, s in zip(mean, sd, strict=True)))
            paper = PAPER_TABLES[name][int(size)]
            lines.append(f"{'paper':>6} {'':>5} " + " ".join(
                f"{m:5.1f} ({s:4.1f})" for m, s in zip(*paper, strict=True)))
        ran = {int(size) for size in entry["sizes"]}
        left = [s for s in PAPER_SIZES[name] if s not in ran]
        lines.append("  sizes not run yet: " + (", ".join(map(str, left)) or "none") + "\n")
    return "\n".join(lines).rstrip()


def projection(summary):
    """CPU seconds per job by corpus and size, and the projected time of the whole run.

    Returns ``(per_job, total_seconds, lower_bound)``: ``per_job[corpus][size]`` the mean CPU
    time of the measured jobs. A size not measured is charged the time interpolated linearly
    between the measured sizes around it, outside them the nearest measured size's time: an
    estimate. A corpus without any measured job adds nothing: the total is then a lower bound
    (``lower_bound`` True).
    """
    per_job, total, lower_bound = {}, 0.0, False
    n_sets = len(summary["seeds"])
    for name, entry in summary["corpora"].items():
        times = {int(size): float(np.nanmean(cell["cpu_seconds"]))
                 for size, cell in entry["sizes"].items()
                 if np.isfinite(cell["cpu_seconds"]).any()}
        per_job[name] = times
        if not times:
            lower_bound = True
            continue
        measured = sorted(times)
        sizes = np.array(PAPER_SIZES[name], dtype=float)
        total += n_sets * float(np.interp(sizes, measured, [times[s] for s in measured]).sum())
    return per_job, total, lower_bound


def projection_text(summary, workers=WORKERS):
    """The measured CPU time per job and the projected run on ``workers`` single-thread workers.

    N workers take at least total / N (the jobs are independent) and at least the longest job."""
    per_job, total, lower_bound = projection(summary)
    longest = max((t for times in per_job.values() for t in times.values()), default=0.0)
    lines = ["CPU seconds per job (mean over the sets run):"]
    for name, times in per_job.items():
        lines.append(f"  {name}: " + (", ".join(f"{size} labels {t:.0f} s"
                                                for size, t in times.items()) or "none run"))
    n_jobs = sum(len(PAPER_SIZES[name]) for name in summary["corpora"]) * len(summary["seeds"])
    at_least = "at least " if lower_bound else ""
    lines.append(f"Whole run ({n_jobs} jobs; a size not measured is charged the time "
                 "interpolated between measured sizes, outside them the nearest one's): "
                 f"{at_least}{duration(total)} of CPU time; on N single-thread workers:")
    lines.append("  " + ", ".join(f"N={n}: {at_least}{duration(max(total / n, longest))}"
                                  for n in workers))
    return "\n".join(lines)


def rerun_projection(summary, measured):
    """The projected CPU time of Tables 1-3 (every size, the file's sets) under other settings.

    ``measured``: ``{corpus: (size, cpu_seconds)}``, one job timed under the other settings.
    Each corpus's per-job times of :func:`projection` are scaled by the ratio of the measured
    job to the file's time at that size (interpolated when the file did not run it); a corpus
    not measured takes the mean ratio of the measured ones. An estimate: the ratio is assumed
    the same at every size. Returns ``(total_seconds, ratios)``.
    """
    if not measured:
        raise ValueError("measured must name at least one corpus: {corpus: (size, seconds)}")
    per_job, _, _ = projection(summary)
    ratios = {}
    for name, (size, seconds) in measured.items():
        times = per_job.get(name) or {}
        if not times:
            raise ValueError(f"the results file has no timed job of {name!r} to compare with")
        sizes = sorted(times)
        ratios[name] = seconds / float(np.interp(size, sizes, [times[s] for s in sizes]))
    mean_ratio = float(np.mean(list(ratios.values())))
    total = 0.0
    for name in summary["corpora"]:
        times = per_job.get(name) or {}
        if not times:
            continue
        sizes = sorted(times)
        per_size = np.interp(np.array(PAPER_SIZES[name], dtype=float), sizes,
                             [times[s] for s in sizes])
        total += len(summary["seeds"]) * float(per_size.sum()) * ratios.get(name, mean_ratio)
    return total, ratios


def current_summary(corpora, selection=DEFAULT_SELECTION, path=RESULTS_FILE,
                    seeds=range(PAPER_N_SEEDS)):
    """What :func:`write_results` would write for ``selection``, computing and writing nothing:
    this machine's cache of today's code, merged with the file's entry when that entry is of
    today's code (an entry of other code is left out: its CPU times measured other code)."""
    check_choice("selection", selection, SELECTIONS)
    return results_file.merged(_summary(corpora, selection, seeds),
                               read_results(path, selection=selection), merge_results)


def selection_projection(summary, reference):
    """The projected CPU time of ``summary``'s selection over every paper size, and its jobs.

    A size with measured jobs under the selection is charged their mean time; any other size is
    charged ``reference``'s time at that size (another selection's summary, e.g. the file's
    first; interpolated between its measured sizes) times a ratio measured under the selection:
    the corpus's own (mean over its measured sizes of the selection's time over the
    reference's), or for a corpus not measured at all the mean of the measured corpora's. An
    estimate: the ratio is assumed the same at every size. Returns ``(per_job, total_seconds,
    longest_job_seconds, ratios)``, ``ratios[corpus]`` the ratio used (None: every size
    measured).

    Raises
    ------
    ValueError
        When no job of the selection is measured, or the reference has no timed job of a
        corpus whose sizes are not all measured.
    """
    per_job, _, _ = projection(summary)
    reference_times, _, _ = projection(reference)
    if not any(per_job.values()):
        raise ValueError(f"no job of the selection {summary.get('selection')!r} is measured: "
                         f"run one with `{run_command(summary.get('selection'))} --sizes N "
                         "--seeds 0` first")

    def at(times, size):
        sizes = sorted(times)
        return float(np.interp(size, sizes, [times[s] for s in sizes]))

    own = {name: float(np.mean([t / at(reference_times[name], size)
                                for size, t in times.items()]))
           for name, times in per_job.items() if times and reference_times.get(name)}
    total, longest, ratios = 0.0, 0.0, {}
    for name in summary["corpora"]:
        times, base = per_job.get(name) or {}, reference_times.get(name) or {}
        missing = [size for size in PAPER_SIZES[name] if size not in times]
        ratios[name] = None
        if missing:
            if not base or not own:
                raise ValueError(f"the reference has no timed job of {name!r} (or no corpus "
                                 "is measured under both) to scale its missing sizes by")
            ratios[name] = own.get(name, float(np.mean(list(own.values()))))
        per_size = [times[size] if size in times else ratios[name] * at(base, size)
                    for size in PAPER_SIZES[name]]
        total += len(summary["seeds"]) * float(np.sum(per_size))
        longest = max(longest, max(per_size))
    return per_job, total, longest, ratios


def selection_projection_text(summary, reference=None, workers=WORKERS):
    """:func:`selection_projection` as text: the measured CPU time per job, the whole run's CPU
    time and its wall time on N single-thread workers (at least total / N, and at least the
    longest job). ``reference``: default the file's entry of :data:`DEFAULT_SELECTION`."""
    reference = read_results() if reference is None else reference
    per_job, total, longest, ratios = selection_projection(summary, reference or {
        "seeds": summary["seeds"], "corpora": {}})
    n_jobs = sum(len(PAPER_SIZES[name]) for name in summary["corpora"]) * len(summary["seeds"])
    lines = [f"selection {summary['selection']!r}: {count_sets(summary)} of {n_jobs} jobs "
             "measured by today's code; CPU seconds per job (mean over the sets run):"]
    for name, times in per_job.items():
        scaled = ("" if ratios[name] is None else
                  f"; other sizes: the first selection's times × {ratios[name]:.2f}")
        lines.append(f"  {name}: " + (", ".join(f"{size} labels {t:.1f} s"
                                                for size, t in times.items()) or "none run")
                     + scaled)
    lines.append(f"Whole run ({n_jobs} jobs): {duration(total)} of CPU time; on N "
                 "single-thread workers (at least total / N and the longest job):")
    lines.append("  " + ", ".join(f"N={n}: {duration(max(total / n, longest))}"
                                  for n in workers))
    return "\n".join(lines)


def duration(seconds):
    """``"42 min"`` below two hours, else ``"3.5 h"``."""
    minutes = seconds / 60
    return f"{minutes:.0f} min" if minutes < 120 else f"{minutes / 60:.1f} h"


def load_corpora():
    """The three corpora of the tables (their digests key the cache)."""
    from .hybrid import load_hybrid_corpus

    return [load_hybrid_corpus(name) for name in CORPORA]


README_BEGIN = "<!-- hybrid paper-scale table: written by `python -m sslviz.experiments hybrid " \
    "summary --readme README.md` -->"
README_END = "<!-- end of the hybrid paper-scale table -->"
SELECTION_NOTES = {
    LABELED_SELECTION: "every setting chosen on the labeled rows, every numeric grid extended "
                       "up to its bounds",
    PAPER_SCALE_SELECTION: "σ = 1, α by the leave-one-out log-likelihood of the labels, the "
                           "grids never extended"}
"""One line per selection for the README's block (:data:`.hybrid.SELECTIONS` say more)."""


def readme_command(selection=DEFAULT_SELECTION):
    """The command that writes ``selection``'s table into the README."""
    chosen = "" if selection == DEFAULT_SELECTION else f" --selection {selection!r}"
    return f"python -m sslviz.experiments hybrid summary{chosen} --readme README.md"


def results_markdown(summary):
    """The table of :func:`results_text` as Markdown: ours, then the paper's, per cell, under a
    line naming the summary's selection and the command that writes it."""
    short = ("hybrid", "EM-λ", "MLR/MER", "NB", "MLR")
    selection = summary.get("selection", DEFAULT_SELECTION)
    lines = [f"Selection: `{selection}` ({SELECTION_NOTES[selection]}; written by "
             f"`{readme_command(selection)}`).", "",
             "| corpus | labeled | sets | " + " | ".join(short) + " |",
             "|---|---:|---:|" + "---:|" * len(short)]
    for name, entry in summary["corpora"].items():
        for size, cell in entry["sizes"].items():
            mean, sd = mean_and_sd(cell)
            paper = PAPER_TABLES[name][int(size)]
            lines.append(f"| {name} | {size} | {len(cell['seeds'])} | " + " | ".join(
                f"{m:.1f} ({s:.1f}) · *{pm:.1f}*"
                for m, s, pm in zip(mean, sd, paper[0], strict=True)) + " |")
    return "\n".join(lines) + "\n\n" + projection_sentence(summary)


def projection_sentence(summary):
    """:func:`projection_text` in one Markdown paragraph."""
    per_job, total, lower_bound = projection(summary)
    longest = max((t for times in per_job.values() for t in times.values()), default=0.0)
    measured = "; ".join(f"{name} " + ", ".join(f"{size} labels {t:.0f} s"
                                                for size, t in times.items())
                         for name, times in per_job.items() if times)
    at_least = "at least " if lower_bound else ""
    return (f"CPU time per job (one BLAS thread): {measured or 'none measured'}. The whole run "
            f"({sum(len(PAPER_SIZES[n]) for n in summary['corpora']) * len(summary['seeds'])} "
            f"jobs, sizes not measured interpolated from the nearest measured): {at_least}"
            + ", ".join(f"{duration(max(total / n, longest))} on {n} worker{'s' * (n > 1)}"
                        for n in WORKERS) + ".")


def check_readme(path):
    """Refuse a README that is missing, cannot be written or has no table block; returns
    ``(text, start, end)`` of the block. Called before any slow work."""
    path = Path(path)
    if not path.is_file():
        raise cli.UsageError(f"--readme {path} does not exist: name the README that holds the "
                             "paper-scale table")
    cli.check_output_file(path, option="--readme", inputs=[RESULTS_FILE])
    text = path.read_text(encoding="utf-8")
    start, end = text.find(README_BEGIN), text.find(README_END)
    if start < 0 or end < start:
        raise cli.UsageError(f"{path} has no paper-scale table block: put the lines "
                             f"{README_BEGIN!r} and {README_END!r} where the table belongs")
    return text, start, end


def update_readme(path, summary):
    """Replace the table between :data:`README_BEGIN` and :data:`README_END` in ``path`` by
    ``summary``'s (its selection's, named in the block)."""
    text, start, end = check_readme(path)
    block = f"{README_BEGIN}\n{results_markdown(summary)}\n"
    with atomic_write(path, "w") as file:
        file.write(text[:start] + block + text[end:])
